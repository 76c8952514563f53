/* classify.c: the per-frontend "unsupported" patterns (see classify.h). */
#include "classify.h"
#include "buf.h"
#include "fsutil.h"
#include "home.h"
#include "xalloc.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* REG_NEWLINE: a message is a multi-line traceback; see classify.h. */
#define CLASSIFY_REG_FLAGS (REG_EXTENDED | REG_NOSUB | REG_ICASE | REG_NEWLINE)

void classify_init(struct classify *c)
{
	c->patterns = NULL;
	c->n = 0;
	c->cap = 0;
}

static void pattern_release(struct classify_pattern *p)
{
	regfree(&p->re);
	free(p->text);
	free(p->path);
}

void classify_release(struct classify *c)
{
	for (size_t i = 0; i < c->n; i++)
		pattern_release(&c->patterns[i]);
	free(c->patterns);
	classify_init(c);
}

void classify_free(struct classify *c)
{
	if (!c)
		return;
	classify_release(c);
	free(c);
}

static int read_file(const char *path, struct buf *b, struct err *e)
{
	char chunk[8192];
	size_t n;
	int ret = -1;
	FILE *f = fopen(path, "r");

	if (!f)
		return err_errno(e, EXIT_ENV, "cannot open '%s'", path);
	while ((n = fread(chunk, 1, sizeof(chunk), f)) > 0)
		buf_add(b, chunk, n);
	if (ferror(f)) {
		err_errno(e, EXIT_ENV, "cannot read '%s'", path);
		goto out;
	}
	ret = 0;
out:
	fclose(f);
	return ret;
}

static bool blank(const char *s)
{
	return s[strspn(s, " \t\r\f\v")] == '\0';
}

int classify_load(struct classify *c, const char *path, struct err *e)
{
	struct buf text = BUF_INIT;
	struct classify add = CLASSIFY_INIT;
	char *line, *next;
	int lineno = 0, ret = -1;

	if (read_file(path, &text, e) < 0)
		goto out;
	for (line = text.data; line < text.data + text.len; line = next) {
		char *nl = memchr(line, '\n', (size_t)(text.data + text.len - line));
		struct classify_pattern *p;
		size_t len;
		int rc;

		lineno++;
		next = nl ? nl + 1 : text.data + text.len;
		len = (size_t)(next - line) - (nl ? 1 : 0);
		if (len && line[len - 1] == '\r')
			len--;
		if (memchr(line, '\0', len)) {
			err_set(e, EXIT_INPUT, "%s:%d: NUL byte in a pattern", path, lineno);
			goto out;
		}
		line[len] = '\0';
		if (line[0] == '#' || blank(line))
			continue;

		XGROW(add.patterns, add.cap, add.n + 1);
		p = &add.patterns[add.n];
		rc = regcomp(&p->re, line, CLASSIFY_REG_FLAGS);
		if (rc != 0) {
			char msg[256];

			regerror(rc, &p->re, msg, sizeof(msg));
			/* regcomp frees what it allocated when it fails: no regfree here. */
			err_set(e, EXIT_INPUT, "%s:%d: bad regular expression '%s': %s", path, lineno, line, msg);
			goto out;
		}
		p->text = xstrdup(line);
		p->path = xstrdup(path);
		p->line = lineno;
		add.n++;
	}

	/* Only now, when the whole file compiled, does c change. */
	XGROW(c->patterns, c->cap, c->n + add.n);
	if (add.n)
		memcpy(c->patterns + c->n, add.patterns, add.n * sizeof(*add.patterns));
	c->n += add.n;
	add.n = 0;
	ret = 0;
out:
	classify_release(&add);
	buf_release(&text);
	return ret;
}

bool classify_match(const struct classify *c, const char *message, const struct classify_pattern **which)
{
	if (!message)
		return false;
	for (size_t i = 0; i < c->n; i++) {
		if (regexec(&c->patterns[i].re, message, 0, NULL, 0) == 0) {
			if (which)
				*which = &c->patterns[i];
			return true;
		}
	}
	return false;
}

int classify_load_frontend(struct classify *c, const char *frontend, struct err *e)
{
	char *dir = home_python_dir(e), *path;
	int r = 0;

	if (!dir)
		return -1;
	path = xasprintf("%s/ferry/oracle/unsupported/%s.txt", dir, frontend);
	if (fs_exists(path))
		r = classify_load(c, path, e);
	free(path);
	free(dir);
	if (r == 0 && getenv("FERRY_ADAPTERS")) {
		char *dirs = xstrdup(getenv("FERRY_ADAPTERS")), *save = NULL;

		for (char *d = strtok_r(dirs, ":", &save); d && r == 0; d = strtok_r(NULL, ":", &save)) {
			path = xasprintf("%s/unsupported/%s.txt", d, frontend);
			if (fs_exists(path))
				r = classify_load(c, path, e);
			free(path);
		}
		free(dirs);
	}
	return r;
}

int classify_matched_line(const struct classify *c, const char *type, const char *message, struct buf *out)
{
	struct buf line = BUF_INIT;
	const char *p = message;
	int first = 1, found = 0;

	while (p && *p && !found) {
		const char *nl = strchr(p, '\n');
		size_t len = nl ? (size_t)(nl - p) : strlen(p);

		buf_reset(&line);
		if (first && type && *type)
			buf_addf(&line, "%s: ", type);
		buf_add(&line, p, len);
		if (!blank(line.data) && classify_match(c, line.data, NULL)) {
			size_t lead = strspn(p, " \t-*"); /* a list's bullet ("-- No conversion rule ...") */

			buf_add(out, p + (lead < len ? lead : 0), lead < len ? len - lead : len);
			found = 1;
		}
		first = 0;
		p = nl ? nl + 1 : NULL;
	}
	buf_release(&line);
	return found;
}
