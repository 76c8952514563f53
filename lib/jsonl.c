/* jsonl.c: JSON Lines reading with per-line error recovery. */
#include "jsonl.h"
#include "xalloc.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

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

/* The next non-blank line into r->line; its length, or -1 at the end / -2 on a read error. */
static ssize_t next_line(struct jsonl_reader *r, struct err *e)
{
	ssize_t n;

	for (;;) {
		errno = 0;
		n = getline(&r->line, &r->cap, r->fp);
		if (n < 0) {
			if (ferror(r->fp)) {
				err_errno(e, EXIT_ENV, "cannot read '%s'", r->path);
				return -2;
			}
			return -1;
		}
		r->lineno++;
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

enum jsonl_status jsonl_next(struct jsonl_reader *r, struct instance *in, struct err *e)
{
	ssize_t n = next_line(r, e);

	if (n == -2)
		return JSONL_FAIL;
	if (n < 0)
		return JSONL_END;
	if (record_parse(in, r->line, (size_t)n, e) < 0)
		return bad_line(r, e);
	r->records++;
	return JSONL_OK;
}

enum jsonl_status jsonl_next_json(struct jsonl_reader *r, cJSON **out, struct err *e)
{
	ssize_t n = next_line(r, e);

	*out = NULL;
	if (n == -2)
		return JSONL_FAIL;
	if (n < 0)
		return JSONL_END;
	if (json_parse_text(r->line, (size_t)n, out, e) < 0)
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
