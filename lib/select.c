/* select.c: --op and --test, the same selection for every stage (select.h). */
#include "select.h"

#include <cjson/cJSON.h>
#include <ctype.h>
#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "buf.h"
#include "xalloc.h"

void select_add(struct select *s, int ops, const char *list)
{
	char ***v = ops ? &s->ops : &s->tests;
	size_t *n = ops ? &s->nops : &s->ntests, *cap = ops ? &s->ops_cap : &s->tests_cap;

	for (const char *p = list; *p; p += *p == ',') {
		size_t len = strcspn(p, ",");

		/* "a,,b" and a trailing comma select nothing more: an empty glob would match no name. */
		if (len) {
			XGROW(*v, *cap, *n + 1);
			(*v)[(*n)++] = xstrndup(p, len);
		}
		p += len;
	}
}

int select_any(const struct select *s)
{
	return s && (s->nops || s->ntests);
}

static int is_glob(const char *pattern)
{
	return strpbrk(pattern, "*?[") != NULL;
}

/* Smart case, as in ripgrep and fd: a pattern that holds a capital letter asks for that case. */
static int case_sensitive(const char *pattern)
{
	for (const char *p = pattern; *p; p++)
		if (isupper((unsigned char)*p))
			return 1;
	return 0;
}

static int has_substring(const char *name, const char *word, int sensitive)
{
	size_t n = strlen(word);

	for (const char *p = name; *p; p++)
		if (sensitive ? !strncmp(p, word, n) : !strncasecmp(p, word, n))
			return 1;
	return !n;
}

/* A pattern without capitals matches the name in lower case: FNM_CASEFOLD is not POSIX. */
static int glob_matches(const char *glob, const char *name, int sensitive)
{
	char *lower;
	int r;

	if (sensitive)
		return !fnmatch(glob, name, 0);
	lower = xstrdup(name);
	for (char *p = lower; *p; p++)
		*p = (char)tolower((unsigned char)*p);
	r = !fnmatch(glob, lower, 0);
	free(lower);
	return r;
}

int select_test_matches(const char *pattern, const char *test)
{
	int sensitive = case_sensitive(pattern);

	if (!test)
		return 0;
	/* A glob is matched whole: "test_conv*" must not take a test named "x.test_conv". */
	return is_glob(pattern) ? glob_matches(pattern, test, sensitive) : has_substring(test, pattern, sensitive);
}

int select_op_matches(const char *pattern, const char *op)
{
	int sensitive = case_sensitive(pattern);
	const char *dot;

	if (!op)
		return 0;
	if (!is_glob(pattern))
		return has_substring(op, pattern, sensitive);
	dot = strrchr(op, '.');
	return glob_matches(pattern, op, sensitive) || (dot && glob_matches(pattern, dot + 1, sensitive));
}

char *select_widen(const char *pattern)
{
	int sensitive = case_sensitive(pattern), glob = is_glob(pattern);
	struct buf b = BUF_INIT;

	/* A bracket's range has no simple case-folded form: such a pattern passes everything on. */
	if (!sensitive && strchr(pattern, '['))
		return xstrdup("*");
	if (!glob)
		buf_addf(&b, "*");
	for (const char *p = pattern; *p; p++) {
		unsigned char c = (unsigned char)*p;

		if (!glob && c == '\\')
			buf_addf(&b, "[\\]");
		else if (!sensitive && isalpha(c))
			buf_addf(&b, "[%c%c]", tolower(c), toupper(c));
		else
			buf_addf(&b, "%c", c);
	}
	if (!glob)
		buf_addf(&b, "*");
	return buf_detach(&b);
}

static int any_op(const struct select *s, const char *op)
{
	for (size_t i = 0; i < s->nops; i++)
		if (select_op_matches(s->ops[i], op))
			return 1;
	return 0;
}

int select_match(const struct select *s, const char *op, const char *test)
{
	if (!s)
		return 1;
	if (s->nops && !any_op(s, op))
		return 0;
	if (s->ntests) {
		size_t i;

		for (i = 0; i < s->ntests; i++)
			if (select_test_matches(s->tests[i], test))
				break;
		if (i == s->ntests)
			return 0;
	}
	return 1;
}

int select_instance(const struct select *s, const struct instance *in)
{
	const cJSON *src = in->extra ? cJSON_GetObjectItemCaseSensitive(in->extra, "source") : NULL;
	const cJSON *test = src ? cJSON_GetObjectItemCaseSensitive(src, "test") : NULL;
	const cJSON *alias = in->extra ? cJSON_GetObjectItemCaseSensitive(in->extra, "op_alias") : NULL;
	const char *t = cJSON_IsString(test) ? test->valuestring : NULL;

	/* An operator recorded under its public name is also selected by its internal one. */
	return select_match(s, in->op, t) || (cJSON_IsString(alias) && select_match(s, alias->valuestring, t));
}

char *select_describe(const struct select *s)
{
	struct buf b = BUF_INIT;

	for (size_t i = 0; i < s->nops; i++)
		buf_addf(&b, "%s%s", i ? "," : (b.len ? " --op " : "--op "), s->ops[i]);
	for (size_t i = 0; i < s->ntests; i++)
		buf_addf(&b, "%s%s", i ? "," : (b.len ? " --test " : "--test "), s->tests[i]);
	return buf_detach(&b);
}

void select_release(struct select *s)
{
	for (size_t i = 0; i < s->nops; i++)
		free(s->ops[i]);
	for (size_t i = 0; i < s->ntests; i++)
		free(s->tests[i]);
	free(s->ops);
	free(s->tests);
	memset(s, 0, sizeof(*s));
}
