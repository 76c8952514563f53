/* triage.c: the triage file (triage.h). Its lines are kept as read, so that an edit rewrites only
 * the entry it changes and a reviewer's diff is that entry. */
#include "triage.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "fsutil.h"
#include "xalloc.h"

static const char *const status_names[TRIAGE_STATUS_COUNT] = {
	"new", "filed", "not-a-bug", "duplicate", "fixed",
};

/* What each status's ARG is, for the message that asks for it. */
static const char *const arg_needs[TRIAGE_STATUS_COUNT] = {
	NULL, "a link to the report (a URL or #N)", "the reason it is not a bug", "the id of the bug it duplicates",
	"the release that fixed it",
};

int triage_status_parse(const char *name)
{
	for (int s = 0; s < TRIAGE_STATUS_COUNT; s++)
		if (!strcmp(name, status_names[s]))
			return s;
	return -1;
}

const char *triage_status_name(enum triage_status s)
{
	return status_names[s];
}

static int is_bug_id(const char *s, size_t len)
{
	size_t i;

	if (len != 12)
		return 0;
	for (i = 0; i < len && isxdigit((unsigned char)s[i]) && !isupper((unsigned char)s[i]); i++)
		;
	return i == len;
}

/* Why arg does not do for status s, or NULL when it does. */
static const char *bad_arg(enum triage_status s, const char *arg, const char *bug)
{
	if (s == TRIAGE_NEW)
		return arg && *arg ? "new takes nothing after it" : NULL;
	if (!arg || !*arg)
		return arg_needs[s];
	if (s == TRIAGE_FILED && !strstr(arg, "://") &&
	    !(arg[0] == '#' && arg[1] && strspn(arg + 1, "0123456789") == strlen(arg + 1)))
		return arg_needs[s];
	if (s == TRIAGE_DUPLICATE && (!is_bug_id(arg, strlen(arg)) || (bug && !strcmp(arg, bug))))
		return "the id of another bug (12 hex digits) that it duplicates";
	if ((s == TRIAGE_FILED || s == TRIAGE_FIXED) && strpbrk(arg, " \t"))
		return arg_needs[s];
	return NULL;
}

static void add_line(struct triage *t, char *line)
{
	XGROW(t->lines, t->lcap, t->nlines + 1);
	t->lines[t->nlines++] = line;
}

/* The line at index i, an entry or a signature under one, into t. */
static int parse_line(struct triage *t, size_t i, struct err *e)
{
	const char *line = t->lines[i], *p = line + strspn(line, " \t"), *end;
	struct triage_entry *te;
	const char *why;
	int s;

	if (!*p || *p == '#')
		return 0;
	if (p != line) {
		if (strncmp(p, "signature ", 10))
			return err_set(e, EXIT_INPUT,
				       "%s:%zu: an indented line is a 'signature SIG' of the entry above", t->path,
				       i + 1);
		if (!t->n || t->v[t->n - 1].signature)
			return err_set(e, EXIT_INPUT, "%s:%zu: a signature with no entry above it to belong to",
				       t->path, i + 1);
		t->v[t->n - 1].signature = xstrdup(p + 10 + strspn(p + 10, " \t"));
		t->v[t->n - 1].sig_line = i;
		return 0;
	}
	end = p + strcspn(p, " \t");
	if (!is_bug_id(p, (size_t)(end - p)))
		return err_set(e, EXIT_INPUT, "%s:%zu: '%.*s' is not a bug id (12 hex digits, as ferry bugs shows)",
			       t->path, i + 1, (int)(end - p), p);
	for (size_t k = 0; k < t->n; k++)
		if (!strncmp(t->v[k].bug, p, 12))
			return err_set(e, EXIT_INPUT, "%s:%zu: bug %.12s is decided already, on line %zu", t->path,
				       i + 1, p, t->v[k].line + 1);
	XGROW(t->v, t->cap, t->n + 1);
	te = &t->v[t->n++];
	memset(te, 0, sizeof(*te));
	te->bug = xstrndup(p, 12);
	te->line = i;
	p = end + strspn(end, " \t");
	end = p + strcspn(p, " \t");
	{
		char *name = xstrndup(p, (size_t)(end - p));

		s = triage_status_parse(name);
		if (s < 0) {
			err_set(e, EXIT_INPUT, "%s:%zu: '%s' is not a status (new, filed, not-a-bug, duplicate, fixed)",
				t->path, i + 1, name);
			free(name);
			return -1;
		}
		free(name);
	}
	te->status = (enum triage_status)s;
	p = end + strspn(end, " \t");
	if (*p) {
		size_t len = strlen(p);

		while (len && isspace((unsigned char)p[len - 1]))
			len--;
		te->arg = xstrndup(p, len);
	}
	if ((why = bad_arg(te->status, te->arg, te->bug)))
		return err_set(e, EXIT_INPUT, "%s:%zu: %s needs %s", t->path, i + 1, status_names[s], why);
	return 0;
}

int triage_load(struct triage *t, const char *path, int missing_ok, struct err *e)
{
	FILE *fp;
	char *line = NULL;
	size_t cap = 0;
	ssize_t len;

	free(t->path);
	t->path = xstrdup(path);
	if (!fs_exists(path)) {
		if (missing_ok)
			return 0;
		return err_set(e, EXIT_INPUT, "cannot open the triage file '%s': No such file or directory", path);
	}
	if (fs_input_file(path, e) < 0)
		return -1;
	if (!(fp = fopen(path, "r")))
		return err_errno(e, errno == ENOENT ? EXIT_INPUT : EXIT_ENV, "cannot open the triage file '%s'", path);
	while ((len = getline(&line, &cap, fp)) > 0) {
		line[strcspn(line, "\r\n")] = '\0';
		add_line(t, xstrdup(line));
	}
	free(line);
	fclose(fp);
	for (size_t i = 0; i < t->nlines; i++)
		if (parse_line(t, i, e) < 0)
			return -1;
	return 0;
}

void triage_release(struct triage *t)
{
	for (size_t i = 0; i < t->nlines; i++)
		free(t->lines[i]);
	for (size_t i = 0; i < t->n; i++) {
		free(t->v[i].bug);
		free(t->v[i].arg);
		free(t->v[i].signature);
	}
	free(t->lines);
	free(t->v);
	free(t->path);
	strmap_release(&t->present);
	memset(t, 0, sizeof(*t));
}

int triage_is_file(const char *path)
{
	FILE *fp = fopen(path, "r");
	char *line = NULL;
	size_t cap = 0;
	int r = 0;

	if (!fp)
		return 0;
	while (getline(&line, &cap, fp) > 0) {
		const char *p = line + strspn(line, " \t\r\n"), *end;
		char *name;

		if (!*p || *p == '#')
			continue;
		end = p + strcspn(p, " \t\r\n");
		if (is_bug_id(p, (size_t)(end - p))) {
			p = end + strspn(end, " \t");
			name = xstrndup(p, strcspn(p, " \t\r\n"));
			r = triage_status_parse(name) >= 0;
			free(name);
		}
		break;
	}
	free(line);
	fclose(fp);
	return r;
}

/* Whether text is of pattern, each <*> of pattern standing for one token of text: one or more
 * characters, never a space or a '|'. Any more and a template of wildcards ("<*> <*> : <*>") would
 * take the decision about one cause to every message of its shape. */
static int sig_match(const char *pat, const char *text)
{
	while (*pat) {
		if (!strncmp(pat, "<*>", 3)) {
			for (const char *q = text + 1; q[-1] && q[-1] != '|' && q[-1] != ' '; q++)
				if (sig_match(pat + 3, q))
					return 1;
			return 0;
		}
		if (*pat != *text)
			return 0;
		pat++;
		text++;
	}
	return !*text;
}

const struct triage_entry *triage_find(const struct triage *t, const char *bug, const char *signature)
{
	for (size_t i = 0; bug && i < t->n; i++)
		if (!strcmp(t->v[i].bug, bug))
			return &t->v[i];
	for (size_t i = 0; signature && i < t->n; i++)
		if (t->v[i].signature && !strmap_find(&t->present, t->v[i].bug) &&
		    !strcmp(t->v[i].signature, signature))
			return &t->v[i];
	/* The cause's template learnt from more (or fewer) messages: one is the other with wildcards. */
	for (size_t i = 0; signature && i < t->n; i++)
		if (t->v[i].signature && !strmap_find(&t->present, t->v[i].bug) &&
		    (sig_match(t->v[i].signature, signature) || sig_match(signature, t->v[i].signature)))
			return &t->v[i];
	return NULL;
}

static int note_bug(void *ctx, const struct db_bug *b, struct err *e)
{
	(void)e;
	strmap_get(ctx, b->bug_id, NULL);
	return 0;
}

int triage_bind(struct triage *t, struct db *d, struct err *e)
{
	strmap_release(&t->present);
	strmap_init(&t->present);
	return t->n ? db_bugs(d, NULL, note_bug, &t->present, e) : 0;
}

int triage_known(const struct triage_entry *te)
{
	return te && (te->status == TRIAGE_FILED || te->status == TRIAGE_NOT_A_BUG || te->status == TRIAGE_DUPLICATE);
}

void triage_label(const struct triage_entry *te, struct buf *out)
{
	switch (te ? te->status : TRIAGE_NEW) {
	case TRIAGE_NEW:
	case TRIAGE_STATUS_COUNT:
		buf_adds(out, "new");
		break;
	case TRIAGE_FILED:
		buf_addf(out, "filed %s", te->arg);
		break;
	case TRIAGE_NOT_A_BUG:
		buf_addf(out, "not a bug: %s", te->arg);
		break;
	case TRIAGE_DUPLICATE:
		buf_addf(out, "duplicate of %s", te->arg);
		break;
	case TRIAGE_FIXED:
		buf_addf(out, "fixed in %s", te->arg);
		break;
	}
}

/* What a new file starts with: how to read it, for a reviewer who has not run ferry. */
static const char *const header[] = {
	"# ferry triage: decisions about bugs, one a line: BUG STATUS [ARG], where STATUS is",
	"# new, filed URL|#N, not-a-bug REASON, duplicate BUG or fixed RELEASE; the indented",
	"# signature under a bug finds it when its id changes. See 'ferry triage --help'.",
	NULL,
};

/* A line for the file: control characters (a newline would forge a line) made '?'. */
static char *one_line(char *s)
{
	for (char *p = s; *p; p++)
		if ((unsigned char)*p < 0x20 || *p == 0x7f)
			*p = '?';
	return s;
}

static void insert_line(struct triage *t, size_t at, char *line)
{
	add_line(t, NULL);
	memmove(&t->lines[at + 1], &t->lines[at], (t->nlines - 1 - at) * sizeof(*t->lines));
	t->lines[at] = line;
	for (size_t i = 0; i < t->n; i++) {
		if (t->v[i].line >= at)
			t->v[i].line++;
		if (t->v[i].sig_line && t->v[i].sig_line >= at)
			t->v[i].sig_line++;
	}
}

int triage_set(struct triage *t, const char *bug, enum triage_status s, const char *arg, const char *signature,
	       struct err *e)
{
	struct triage_entry *te = NULL;
	const char *why = bad_arg(s, arg, bug);

	if (why)
		return err_set(e, EXIT_USAGE, "%s needs %s", status_names[s], why);
	for (size_t i = 0; i < t->n && !te; i++)
		if (!strcmp(t->v[i].bug, bug))
			te = &t->v[i];
	if (!te) {
		if (!t->nlines)
			for (const char *const *l = header; *l; l++)
				add_line(t, xstrdup(*l));
		XGROW(t->v, t->cap, t->n + 1);
		te = &t->v[t->n++];
		memset(te, 0, sizeof(*te));
		te->bug = xstrdup(bug);
		add_line(t, NULL);
		te->line = t->nlines - 1;
	}
	te->status = s;
	free(te->arg);
	te->arg = arg && *arg ? one_line(xstrdup(arg)) : NULL;
	free(t->lines[te->line]);
	t->lines[te->line] = xasprintf("%s %s%s%s", bug, status_names[s], te->arg ? " " : "", te->arg ? te->arg : "");
	if (signature) {
		free(te->signature);
		te->signature = one_line(xstrdup(signature));
		if (te->sig_line) {
			free(t->lines[te->sig_line]);
			t->lines[te->sig_line] = xasprintf("    signature %s", te->signature);
		} else {
			size_t at = te->line + 1;

			insert_line(t, at, xasprintf("    signature %s", te->signature));
			te->sig_line = at;
		}
	}
	return 0;
}

int triage_save(const struct triage *t, struct err *e)
{
	struct buf b = BUF_INIT;
	int r;

	for (size_t i = 0; i < t->nlines; i++)
		buf_addf(&b, "%s\n", t->lines[i]);
	r = fs_write_atomic(t->path, b.data ? b.data : "", b.len, e);
	buf_release(&b);
	return r;
}

struct tests_of {
	const struct triage *t;
	struct strmap bugs;     /* "FRONTEND\x1fBUG" -> its entry */
	struct strmap *out;
};

static int decided_bug(void *ctx, const struct db_bug *b, struct err *e)
{
	struct tests_of *o = ctx;
	const struct triage_entry *te = triage_find(o->t, b->bug_id, b->signature);
	char *key;

	(void)e;
	if (!te)
		return 0;
	key = xasprintf("%s\x1f%s", b->frontend, b->bug_id);
	strmap_get(&o->bugs, key, NULL)->ptr = (void *)te;
	free(key);
	return 0;
}

static int decided_test(void *ctx, const char *fe, const char *bug_id, const char *id, const char *op,
			struct err *e)
{
	struct tests_of *o = ctx;
	char *key = xasprintf("%s\x1f%s", fe, bug_id);
	const struct strmap_entry *b = strmap_find(&o->bugs, key);

	(void)op;
	(void)e;
	free(key);
	if (!b)
		return 0;
	key = xasprintf("%s\x1f%s", fe, id);
	strmap_get(o->out, key, NULL)->ptr = b->ptr;
	free(key);
	return 0;
}

int triage_tests(struct db *d, struct triage *t, struct strmap *out, struct err *e)
{
	struct tests_of o = { t, STRMAP_INIT, out };
	int r = 0;

	if (t->n)
		r = triage_bind(t, d, e) < 0 || db_bugs(d, NULL, decided_bug, &o, e) < 0 ||
		    db_bug_members(d, NULL, NULL, -1, decided_test, &o, e) < 0 ? -1 : 0;
	strmap_release(&o.bugs);
	return r;
}

void triage_json(const struct triage_entry *te, cJSON *o)
{
	struct buf label = BUF_INIT;

	cJSON_AddStringToObject(o, "status", triage_status_name(te->status));
	cJSON_AddItemToObject(o, "arg", te->arg ? cJSON_CreateString(te->arg) : cJSON_CreateNull());
	cJSON_AddStringToObject(o, "as", te->bug);
	triage_label(te, &label);
	cJSON_AddStringToObject(o, "label", label.data);
	buf_release(&label);
}
