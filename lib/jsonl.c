/* jsonl.c: JSON Lines reading with per-line error recovery. */
#include "jsonl.h"
#include "xalloc.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

int jsonl_open(struct jsonl_reader *r, const char *path, struct err *e)
{
	struct jsonl_reader zero = JSONL_READER_INIT;

	*r = zero;
	if (!strcmp(path, "-"))
		r->fp = stdin;
	else if (!(r->fp = fopen(path, "r")))
		return err_errno(e, errno == ENOENT || errno == EISDIR ? EXIT_INPUT : EXIT_ENV,
				 "cannot open '%s'", path);
	r->path = xstrdup(path);
	return 0;
}

void jsonl_close(struct jsonl_reader *r)
{
	if (r->fp && r->fp != stdin)
		fclose(r->fp);
	free(r->path);
	free(r->line);
	r->fp = NULL;
	r->path = NULL;
	r->line = NULL;
}

/* One line into r->line, its newline left out; the line is held up to JSONL_MAX_LINE bytes and
 * the rest of a longer one read through and dropped. Its length, or -1 at the end, -2 on a read
 * error (e filled), -3 for a line too long. */
static ssize_t read_line(struct jsonl_reader *r, struct err *e)
{
	size_t n = 0;
	int c = EOF, any = 0, over = 0;

	flockfile(r->fp);
	while ((c = getc_unlocked(r->fp)) != EOF) {
		any = 1;
		if (c == '\n')
			break;
		if (over)
			continue;
		if (n == JSONL_MAX_LINE) {
			over = 1;
			continue;
		}
		if (n + 1 >= r->cap) {
			r->cap = r->cap ? 2 * r->cap : 4096;
			if (r->cap > JSONL_MAX_LINE + 1)
				r->cap = JSONL_MAX_LINE + 1;
			r->line = xrealloc(r->line, r->cap);
		}
		r->line[n++] = (char)c;
	}
	funlockfile(r->fp);
	if (c == EOF && ferror(r->fp)) {
		err_errno(e, EXIT_ENV, "cannot read '%s'", r->path);
		return -2;
	}
	if (!any)
		return -1;
	r->lineno++;
	if (over)
		return -3;
	if (!r->line)
		r->line = xmalloc(r->cap = 4096);
	r->line[n] = '\0';
	return (ssize_t)n;
}

/* The next non-blank line into r->line; its length, or -1 at the end, -2 on a read error, -3 for a
 * line longer than JSONL_MAX_LINE (e says so). */
static ssize_t next_line(struct jsonl_reader *r, struct err *e)
{
	ssize_t n;

	for (;;) {
		errno = 0;
		if ((n = read_line(r, e)) < 0) {
			if (n == -3)
				err_set(e, EXIT_INPUT, "line longer than %zu MiB", JSONL_MAX_LINE >> 20);
			return n;
		}
		while (n > 0 && (r->line[n - 1] == '\n' || r->line[n - 1] == '\r'))
			r->line[--n] = '\0';
		for (ssize_t i = 0; i < n; i++)
			if (r->line[i] != ' ' && r->line[i] != '\t')
				return n;
	}
}

static enum jsonl_status bad_line(struct jsonl_reader *r, struct err *e)
{
	r->bad++;
	err_prefix(e, "%s:%zu", r->path, r->lineno);
	e->code = EXIT_INPUT;
	return JSONL_BAD;
}

/* The next line of a record into r->line, its length in *n: JSONL_OK, or what the caller returns
 * (the end, a read error, a line too long). */
static enum jsonl_status record_line(struct jsonl_reader *r, size_t *n, struct err *e)
{
	ssize_t len = next_line(r, e);

	if (len == -2)
		return JSONL_FAIL;
	if (len == -3)
		return bad_line(r, e);
	if (len < 0)
		return JSONL_END;
	*n = (size_t)len;
	return JSONL_OK;
}

enum jsonl_status jsonl_next(struct jsonl_reader *r, struct instance *in, struct err *e)
{
	size_t n;
	enum jsonl_status st = record_line(r, &n, e);

	if (st != JSONL_OK)
		return st;
	if (record_parse(in, r->line, n, e) < 0)
		return bad_line(r, e);
	r->records++;
	return JSONL_OK;
}

enum jsonl_status jsonl_next_json(struct jsonl_reader *r, cJSON **out, struct err *e)
{
	size_t n;
	enum jsonl_status st;

	*out = NULL;
	if ((st = record_line(r, &n, e)) != JSONL_OK)
		return st;
	if (json_parse_text(r->line, n, out, e) < 0)
		return bad_line(r, e);
	if (!cJSON_IsObject(*out)) {
		cJSON_Delete(*out);
		*out = NULL;
		err_set(e, EXIT_INPUT, "expected a JSON object");
		return bad_line(r, e);
	}
	r->records++;
	return JSONL_OK;
}

enum jsonl_status jsonl_next_id(struct jsonl_reader *r, char **id, struct err *e)
{
	ssize_t n;
	char *p, *end;
	cJSON *j = NULL;
	const cJSON *v;

	*id = NULL;
	do {
		if ((n = next_line(r, e)) == -2)
			return JSONL_FAIL;
		if (n == -3)
			return bad_line(r, e);
		if (n < 0)
			return JSONL_END;
		p = r->line + strspn(r->line, " \t");
	} while (*p == '#');
	if (*p != '{') {
		for (end = p + strlen(p); end > p && (end[-1] == ' ' || end[-1] == '\t'); end--)
			;
		/* An id is one word; a line of several is a mistake (a queue pasted with its scores). */
		if ((size_t)(end - p) != strcspn(p, " \t\"")) {
			err_set(e, EXIT_INPUT, "expected an id (one word) or a JSON object with an \"id\"");
			return bad_line(r, e);
		}
		*id = xstrndup(p, (size_t)(end - p));
		r->records++;
		return JSONL_OK;
	}
	if (json_parse_text(r->line, (size_t)n, &j, e) < 0)
		return bad_line(r, e);
	v = cJSON_GetObjectItemCaseSensitive(j, "id");
	if (!cJSON_IsString(v) || !*v->valuestring) {
		cJSON_Delete(j);
		err_set(e, EXIT_INPUT, "a queue line without an \"id\"");
		return bad_line(r, e);
	}
	*id = xstrdup(v->valuestring);
	cJSON_Delete(j);
	r->records++;
	return JSONL_OK;
}

enum jsonl_status jsonl_good_json(struct jsonl_reader *r, cJSON **out, struct err *e)
{
	enum jsonl_status st;

	while ((st = jsonl_next_json(r, out, e)) == JSONL_BAD)
		err_release(e);
	return st;
}

enum jsonl_status jsonl_good_id(struct jsonl_reader *r, char **id, struct err *e)
{
	enum jsonl_status st;

	while ((st = jsonl_next_id(r, id, e)) == JSONL_BAD)
		err_release(e);
	return st;
}

/* --- appending ---------------------------------------------------------------------------------- */

/* Where the last line of fd's size bytes starts (after the last newline), or -1 on a read error. */
static long long last_line_start(int fd, long long size)
{
	char chunk[65536];
	long long at = size;

	while (at > 0) {
		size_t want = at < (long long)sizeof(chunk) ? (size_t)at : sizeof(chunk);
		ssize_t got = pread(fd, chunk, want, at - (long long)want);

		if (got != (ssize_t)want)
			return -1;
		for (size_t i = want; i > 0; i--)
			if (chunk[i - 1] == '\n')
				return at - (long long)want + (long long)i;
		at -= (long long)want;
	}
	return 0;
}

/* Whether the size bytes at from in fd make one whole JSON value. */
static int whole_json(int fd, long long from, long long size)
{
	char *text;
	cJSON *j = NULL;
	struct err ignored = ERR_INIT;
	int whole;

	if (size <= 0 || (size_t)size > JSONL_MAX_LINE)
		return 0;
	text = xmalloc((size_t)size + 1);
	whole = pread(fd, text, (size_t)size, from) == (ssize_t)size &&
		json_parse_text(text, (size_t)size, &j, &ignored) == 0;
	cJSON_Delete(j);
	err_release(&ignored);
	free(text);
	return whole;
}

int jsonl_append_open(struct jsonl_writer *w, const char *path, enum jsonl_link link, size_t *cut, struct err *e)
{
	struct stat st;
	long long start;
	int rfd = -1, r = -1;
	int flags = O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC | O_NOCTTY;

	if (cut)
		*cut = 0;
	if (link == JSONL_NOFOLLOW)
		flags |= O_NOFOLLOW;
	w->fd = open(path, flags, 0666);
	if (w->fd < 0 && errno == ELOOP && link == JSONL_NOFOLLOW)
		return err_set(e, EXIT_INPUT, "'%s' is a symbolic link: ferry writes no file through a link inside a "
			       "directory of its own (remove it)", path);
	if (w->fd < 0)
		return err_errno(e, EXIT_ENV, "cannot open '%s'", path);
	w->path = xstrdup(path);
	if (fstat(w->fd, &st) < 0) {
		err_errno(e, EXIT_ENV, "cannot open '%s'", path);
		goto out;
	}
	w->size = (long long)st.st_size;
	if (!S_ISREG(st.st_mode) || !w->size) {
		r = 0;
		goto out;
	}
	/* pread needs a descriptor that reads: the appending one does not. */
	if ((rfd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY)) < 0 || (start = last_line_start(rfd, w->size)) < 0) {
		err_errno(e, EXIT_ENV, "cannot read '%s'", path);
		goto out;
	}
	if (start < w->size && whole_json(rfd, start, w->size - start)) {
		/* A whole line that only lacks its newline (a file ended so by hand, or a writer stopped
		 * just before it): it stays, ended. */
		if (jsonl_append(w, "", 0, e) < 0)
			goto out;
	} else if (start < w->size) {
		if (ftruncate(w->fd, (off_t)start) < 0) {
			err_errno(e, EXIT_ENV, "cannot cut the torn last line of '%s'", path);
			goto out;
		}
		if (cut)
			*cut = (size_t)(w->size - start);
		w->size = start;
	}
	r = 0;
out:
	if (rfd >= 0)
		close(rfd);
	if (r < 0)
		jsonl_append_close(w);
	return r;
}

int jsonl_append(struct jsonl_writer *w, const char *line, size_t len, struct err *e)
{
	struct iovec iov[2] = { { (void *)line, len }, { "\n", 1 } };
	size_t total = len + 1, done = 0;
	int saved;

	while (done < total) {
		ssize_t n;

		/* What is left of the two parts. */
		if (done < len) {
			iov[0].iov_base = (char *)line + done;
			iov[0].iov_len = len - done;
			n = writev(w->fd, iov, 2);
		} else {
			n = write(w->fd, "\n", 1);
		}
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			goto fail;
		done += (size_t)n;
	}
	w->size += (long long)total;
	return 0;
fail:
	saved = errno ? errno : EIO;
	/* Part of the line may be there: the file goes back to its whole lines. Should that fail too,
	 * the next writer's jsonl_append_open cuts it. */
	if (done) {
		int back = ftruncate(w->fd, (off_t)w->size);

		(void)back;
	}
	errno = saved;
	return err_errno(e, EXIT_ENV, "cannot write '%s'", w->path);
}

void jsonl_append_close(struct jsonl_writer *w)
{
	if (w->fd >= 0)
		close(w->fd);
	free(w->path);
	w->fd = -1;
	w->path = NULL;
	w->size = 0;
}
