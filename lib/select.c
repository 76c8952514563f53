/* select.c: --op and --test, the same selection for every stage (select.h). */
#include "select.h"

#include <cjson/cJSON.h>
#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>

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

static int any_glob(char *const *globs, size_t n, const char *name)
{
	const char *dot = strrchr(name, '.');

	for (size_t i = 0; i < n; i++)
		if (!fnmatch(globs[i], name, 0) || (dot && !fnmatch(globs[i], dot + 1, 0)))
			return 1;
	return 0;
}

int select_match(const struct select *s, const char *op, const char *test)
{
	if (!s)
		return 1;
	if (s->nops && (!op || !any_glob(s->ops, s->nops, op)))
		return 0;
	/* A test name is matched whole: "test_conv*" must not take a test named "x.test_conv". */
	if (s->ntests) {
		size_t i;

		for (i = 0; test && i < s->ntests; i++)
			if (!fnmatch(s->tests[i], test, 0))
				break;
		if (!test || i == s->ntests)
			return 0;
	}
	return 1;
}

int select_instance(const struct select *s, const struct instance *in)
{
	const cJSON *src = in->extra ? cJSON_GetObjectItemCaseSensitive(in->extra, "source") : NULL;
	const cJSON *test = src ? cJSON_GetObjectItemCaseSensitive(src, "test") : NULL;

	return select_match(s, in->op, cJSON_IsString(test) ? test->valuestring : NULL);
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
