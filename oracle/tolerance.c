/* tolerance.c: the tolerance overrides file. */
#include "tolerance.h"
#include "fsutil.h"
#include "home.h"
#include "xalloc.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int tolerance_rules_load(struct tolerance_rules *t, const char *arg, struct err *e)
{
	/* A name (torch) is one of ferry's files: installed, or the source tree's (home.h). */
	char *path = home_tolerances(arg, e), *line = NULL;
	FILE *fp = NULL;
	size_t cap = 0, lineno = 0;
	int r = -1;

	if (!path || fs_input_file(path, e) < 0)
		goto out;
	if (!(fp = fopen(path, "r"))) {
		err_errno(e, errno == ENOENT ? EXIT_INPUT : EXIT_ENV, "cannot open '%s'", path);
		goto out;
	}
	r = 0;
	while (getline(&line, &cap, fp) > 0) {
		char op[256], dtype[64], fe[128], reason[1024];
		double atol, rtol;
		int used = 0;
		struct tolerance_rule *rule;

		lineno++;
		line[strcspn(line, "\r\n")] = '\0';
		if (!line[strspn(line, " \t")] || line[strspn(line, " \t")] == '#')
			continue;
		if (sscanf(line, "%255s %63s %127s %lf %lf %n", op, dtype, fe, &atol, &rtol, &used) < 5 || !used) {
			r = err_set(e, EXIT_INPUT, "%s:%zu: expected OP DTYPE FRONTEND ATOL RTOL REASON", path, lineno);
			break;
		}
		snprintf(reason, sizeof(reason), "%s", line + used);
		if (!*reason) {
			r = err_set(e, EXIT_INPUT, "%s:%zu: a tolerance needs its reason, after RTOL", path, lineno);
			break;
		}
		if (!(atol >= 0) || !(rtol >= 0)) {
			r = err_set(e, EXIT_INPUT, "%s:%zu: tolerances are non-negative numbers", path, lineno);
			break;
		}
		XGROW(t->rules, t->cap, t->n + 1);
		rule = &t->rules[t->n++];
		rule->op = xstrdup(op);
		rule->dtype = xstrdup(dtype);
		rule->frontend = xstrdup(fe);
		rule->reason = xstrdup(reason);
		rule->tol.atol = atol;
		rule->tol.rtol = rtol;
	}
out:
	free(line);
	if (fp)
		fclose(fp);
	free(path);
	return r;
}

void tolerance_rules_release(struct tolerance_rules *t)
{
	for (size_t i = 0; i < t->n; i++) {
		free(t->rules[i].op);
		free(t->rules[i].dtype);
		free(t->rules[i].frontend);
		free(t->rules[i].reason);
	}
	free(t->rules);
	t->rules = NULL;
	t->n = t->cap = 0;
}

static int matches(const char *pattern, const char *value)
{
	return !strcmp(pattern, "*") || (value && !strcmp(pattern, value));
}

const struct tolerance_rule *tolerance_rules_find(const struct tolerance_rules *t, const char *op,
						  const char *dtype, const char *frontend)
{
	for (size_t i = 0; i < t->n; i++)
		if (matches(t->rules[i].op, op) && matches(t->rules[i].dtype, dtype) &&
		    matches(t->rules[i].frontend, frontend))
			return &t->rules[i];
	return NULL;
}

struct tolerance tolerance_for(const struct tolerance_rules *t, const char *op, const char *dtype,
			       const char *frontend, struct tolerance deflt)
{
	const struct tolerance_rule *rule = tolerance_rules_find(t, op, dtype, frontend);

	return rule ? rule->tol : deflt;
}
