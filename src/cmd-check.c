/* cmd-check.c: ferry check DIR --frontend NAME[,...] -o STORE [--baseline FILE] [--junit FILE]
 *
 * The CI entry point. Runs the wrapped tests (in queue order, within a limit or a time budget, one
 * shard of them) exactly as ferry run does, then judges: a failing test that the baseline does not
 * list is new, and makes the check fail (exit 1); a listed test that now passes is newly fixed. Writes
 * JUnit XML, one testcase per migrated test grouped by frontend and operator, for CI systems.
 * ferry's own errors (a test ferry could not run) are never known and always fail the check, said as
 * ferry's, not the compiler's: a broken test must not pass CI unnoticed. Except a test that was never
 * built for the frontend's format (stage "wrap": the template recorded at wrap that it could not make
 * that model, e.g. the TFLite converter refused the layer): it is the same every time, no run can fix
 * it, and it says nothing of the frontend, so the check counts it as not built and does not fail. */
#include <cjson/cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "baseline.h"
#include "cmd.h"
#include "esc.h"
#include "fsutil.h"
#include "kinds.h"
#include "protocol.h"
#include "runargs.h"
#include "xalloc.h"

static const char usage[] =
	"usage: ferry check DIR --frontend NAME[,NAME...] -o STORE [options]\n"
	"\n"
	"Run the wrapped tests of DIR like ferry run, then compare with a baseline of known failures:\n"
	"exit 0 when nothing new fails, 1 when something does. Prints the new failures and the newly\n"
	"fixed tests; writes JUnit XML with --junit.\n";

struct check_args {
	const char *baseline_path, *junit;
	struct runopts r;
};

#define AT(f) offsetof(struct check_args, f)

static const struct opt options[] = {
	OPT_STRING('b', "baseline", "FILE", "known failures: a file from ferry baseline, or a previous store\n"
		   "(without one, every failure is new)", AT(baseline_path)),
	OPT_STRING(0, "junit", "FILE", "write JUnit XML: a testsuite per frontend and operator, a testcase per test",
		   AT(junit)),
	OPT_INCLUDE(runopts_options, AT(r)),
	OPT_END(),
};

/* One judged test. */
struct verdict {
	char *op, *id, *name, *outcome, *stage, *message, *detail;
	double seconds;
	int failing, known, fixed, ferrys, unbuilt;
	int apart;                  /* a new failure that is not a frontend bug: its kind (kinds.h) */
	char *why;                  /* then why (owned) */
};

struct check {
	struct session *s;
	const struct frontend *fe;
	struct strmap *baseline;
	struct strmap kinds;        /* the failures that are not frontend bugs (kinds_tests) */
	const struct wrapped *t;    /* the test being judged */
	struct err *e;              /* where a store that cannot be read says so */
	struct verdict *v;
	size_t n, cap;
	size_t not_run;
};

static char *dup_or_null(const char *s)
{
	return s ? xstrdup(s) : NULL;
}

/* The test's name for people: the library test it came from, then the id's start. */
static char *test_name(const struct wrapped *t)
{
	const cJSON *src = t->in.extra ? cJSON_GetObjectItemCaseSensitive(t->in.extra, "source") : NULL;
	const cJSON *test = src ? cJSON_GetObjectItemCaseSensitive(src, "test") : NULL;

	if (cJSON_IsString(test))
		return xasprintf("%s [%.12s]", test->valuestring, t->in.id);
	return xstrdup(t->in.id);
}

/* The test's result, against the baseline. */
static int judge_result(void *ctx, const struct db_row *row, struct err *e)
{
	struct check *c = ctx;
	const struct wrapped *t = c->t;
	struct verdict *v;
	char *key;
	struct strmap_entry *known;

	(void)e;
	XGROW(c->v, c->cap, c->n + 1);
	v = &c->v[c->n++];
	memset(v, 0, sizeof(*v));
	v->op = xstrdup(t->in.op);
	v->id = xstrdup(t->in.id);
	v->name = test_name(t);
	v->outcome = xstrdup(row->outcome);
	v->stage = dup_or_null(row->stage);
	v->message = dup_or_null(row->message);
	v->detail = dup_or_null(row->detail);
	v->seconds = isnan(row->seconds) ? 0 : row->seconds;
	v->failing = outcome_name_is_failure(v->outcome);
	key = baseline_key(c->fe->label, t->in.id);
	known = c->baseline ? strmap_find(c->baseline, key) : NULL;
	free(key);
	v->ferrys = outcome_from_name(v->outcome) == OUTCOME_ERROR;
	v->unbuilt = v->ferrys && v->stage && !strcmp(v->stage, PROTO_STAGE_WRAP);
	if (v->unbuilt)
		v->failing = v->ferrys = 0;
	v->known = v->failing && known && !v->ferrys;
	v->fixed = !v->failing && known;
	if (v->failing && !v->known && !v->ferrys) {
		key = xasprintf("%s\x1f%s", c->fe->label, t->in.id);
		known = strmap_find(&c->kinds, key);
		free(key);
		if (known) {
			v->apart = (int)known->count;
			v->why = xstrdup(known->ptr ? known->ptr : "");
		}
	}
	return 0;
}

static int judge(void *ctx, const struct wrapped *t)
{
	struct check *c = ctx;
	int found;

	if (!t->valid)
		return 0;
	c->t = t;
	if ((found = db_result(session_db(c->s), c->fe->label, t->in.id, judge_result, c, c->e)) < 0)
		return -1;
	if (!found)
		c->not_run++;
	return 0;
}

static void verdicts_free(struct check *c)
{
	for (size_t i = 0; i < c->n; i++) {
		struct verdict *v = &c->v[i];

		free(v->op);
		free(v->id);
		free(v->name);
		free(v->outcome);
		free(v->stage);
		free(v->message);
		free(v->detail);
		free(v->why);
	}
	free(c->v);
	c->v = NULL;
	c->n = c->cap = 0;
	c->not_run = 0;
}

/* XML 1.0 has no place for most control characters, even as character references: they are
 * written as visible escapes (esc.h), and so is invalid UTF-8, which would make the document
 * unreadable. Attribute values are one line; the failure's text keeps its lines. */
static void xml_escape_flags(FILE *fp, const char *s, unsigned flags)
{
	struct buf b = BUF_INIT;

	esc_add(&b, s, ESC_XML | flags);
	fputs(b.data, fp);
	buf_release(&b);
}

static void xml_escape(FILE *fp, const char *s)
{
	xml_escape_flags(fp, s, 0);
}

/* JUnit's "skipped": a known failure, or neither a pass nor a failure (unsupported, undefined). */
static int skipped_test(const struct verdict *v)
{
	return v->known || v->apart || (!v->failing && outcome_from_name(v->outcome) != OUTCOME_PASS);
}

static int by_op(const void *a, const void *b)
{
	const struct verdict *x = a, *y = b;
	int r = strcmp(x->op, y->op);

	return r ? r : strcmp(x->id, y->id);
}

/* The testsuites of one frontend; verdicts sorted by operator. */
static void junit_frontend(FILE *fp, const char *fe, struct verdict *v, size_t n)
{
	for (size_t i = 0; i < n;) {
		size_t j = i, failures = 0, skipped = 0;
		double time = 0;

		while (j < n && !strcmp(v[j].op, v[i].op)) {
			failures += v[j].failing && !v[j].known && !v[j].apart;
			skipped += skipped_test(&v[j]);
			time += v[j].seconds;
			j++;
		}
		fputs("  <testsuite name=\"", fp);
		xml_escape(fp, fe);
		fputc('.', fp);
		xml_escape(fp, v[i].op);
		fprintf(fp, "\" tests=\"%zu\" failures=\"%zu\" errors=\"0\" skipped=\"%zu\" time=\"%.3f\">\n",
			j - i, failures, skipped, time);
		for (size_t k = i; k < j; k++) {
			fputs("    <testcase classname=\"ferry.", fp);
			xml_escape(fp, fe);
			fputc('.', fp);
			xml_escape(fp, v[k].op);
			fputs("\" name=\"", fp);
			xml_escape(fp, v[k].name);
			fprintf(fp, "\" time=\"%.3f\"", v[k].seconds);
			if (v[k].failing && !v[k].known && !v[k].apart) {
				fputs(">\n      <failure type=\"", fp);
				xml_escape(fp, v[k].outcome);
				fputs("\" message=\"", fp);
				if (v[k].stage) {
					xml_escape(fp, v[k].stage);
					fputs(": ", fp);
				}
				xml_escape(fp, v[k].message);
				fputs("\">", fp);
				xml_escape_flags(fp, v[k].detail ? v[k].detail : v[k].message, ESC_LINES);
				fputs("</failure>\n    </testcase>\n", fp);
			} else if (skipped_test(&v[k])) {
				fputs(">\n      <skipped message=\"", fp);
				fputs(v[k].known ? "known failure (baseline): " : "", fp);
				if (v[k].apart) {
					fputs("not a frontend bug (", fp);
					xml_escape(fp, kinds_name((enum kind)v[k].apart));
					fputs(": ", fp);
					xml_escape(fp, v[k].why);
					fputs("): ", fp);
				}
				xml_escape(fp, v[k].outcome);
				fputs(": ", fp);
				xml_escape(fp, v[k].message);
				fputs("\"/>\n    </testcase>\n", fp);
			} else {
				fputs("/>\n", fp);
			}
		}
		fputs("  </testsuite>\n", fp);
		i = j;
	}
}

static void print_verdicts(const char *fe, const struct verdict *v, size_t n, size_t not_run,
			   size_t *new_failures, size_t *ferry_errors)
{
	size_t fails = 0, known = 0, fixed = 0, news = 0, ferrys = 0, unbuilt = 0, apart = 0;

	for (size_t i = 0; i < n; i++) {
		fails += v[i].failing;
		known += v[i].known;
		apart += v[i].apart != 0;
		fixed += v[i].fixed;
		ferrys += v[i].ferrys;
		unbuilt += v[i].unbuilt;
	}
	news = fails - known - apart;
	printf("check %s: %zu tests judged, %zu failing (%zu known, %zu new", esc_str(fe), n, fails, known, news);
	if (apart)
		printf(", %zu not %s", apart, apart == 1 ? "a frontend bug" : "frontend bugs");
	printf("), %zu newly fixed", fixed);
	if (not_run)
		printf(", %zu not run (limit or budget)", not_run);
	if (ferrys)
		printf(", %zu ferry could not run (ferry's error, not the frontend's)", ferrys);
	if (unbuilt)
		printf(", %zu not built in its format (see 'ferry report')", unbuilt);
	putchar('\n');
	for (size_t i = 0; i < n; i++)
		if (v[i].failing && !v[i].known && !v[i].apart)
			printf("  %-6s %-9s %-20s %s  %s%s%.120s\n", v[i].ferrys ? "FERRY" : "NEW",
			       v[i].ferrys ? "error" : esc_str(v[i].outcome), esc_str(v[i].op),
			       esc_str(v[i].name), esc_str(v[i].stage), v[i].stage ? ": " : "", esc_str(v[i].message));
	/* Not the frontend's to fix: the test, the reference or the environment (kinds.h). */
	for (size_t i = 0; i < n; i++)
		if (v[i].apart)
			printf("  APART  %-9s %-20s %s  %s: %.120s\n", esc_str(kinds_name((enum kind)v[i].apart)),
			       esc_str(v[i].op), esc_str(v[i].name), esc_str(v[i].outcome), esc_str(v[i].why));
	for (size_t i = 0; i < n; i++)
		if (v[i].fixed)
			printf("  FIXED  %-9s %-20s %s\n", esc_str(v[i].outcome), esc_str(v[i].op), esc_str(v[i].name));
	*new_failures += news;
	*ferry_errors += ferrys;
}

static int cmd_check(int argc, char **argv)
{
	struct check_args args = { 0 }, *a = &args;
	struct runopts *ro = &a->r;
	struct session_result res[RUNOPTS_MAX_FRONTENDS];
	struct strmap baseline = STRMAP_INIT;
	struct check c;
	struct err e = ERR_INIT;
	struct fs_output junit_out = FS_OUTPUT_INIT;
	FILE *jf = NULL;
	size_t new_failures = 0, ferry_errors = 0;
	int code = EXIT_OK, ran = 0;

	runopts_init(ro, cmd_warn_line);
	memset(res, 0, sizeof(res));
	memset(&c, 0, sizeof(c));
	if (cmd_parse(&cmd_check_entry, argc, argv, a) < 0) {
		code = EXIT_USAGE;
		goto out;
	}
	if (optind + 1 != argc) {
		code = cmd_usage_error(&cmd_check_entry, "check takes one DIR (the output of ferry wrap)");
		goto out;
	}
	if (runopts_finish(ro, &cmd_check_entry, argv[optind], argc, argv) < 0) {
		code = EXIT_USAGE;
		goto out;
	}
	/* Read the baseline first: a typo in its name must not cost a whole run. */
	if (a->baseline_path && baseline_load(a->baseline_path, &baseline, &e) < 0)
		goto fail;
	if (session_open(&c.s, &ro->s, &e) < 0)
		goto fail;
	runopts_print_selection(ro, c.s);
	if (ro->collect_only) {
		runopts_collect(ro, c.s);
		goto out;
	}
	ran = 1;
	if (session_run(c.s, ro->fes, ro->nfes, res, &e) < 0) {
		if (e.code == EXIT_INTERRUPTED)
			fprintf(stderr, "ferry: results so far are in '%s'\n", ro->s.store);
		goto fail;
	}
	runopts_print(ro, res);
	putchar('\n');
	if (a->junit) {
		if (fs_output_open(&junit_out, a->junit, &e) < 0)
			goto fail;
		jf = junit_out.fp;
		fputs("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"ferry\">\n", jf);
	}
	c.baseline = a->baseline_path ? &baseline : NULL;
	c.e = &e;
	/* What is not a frontend bug (a suspected invalid test, a disputed reference, an environment
	 * that fails the canary, ...) is said, and does not fail the check. */
	if (kinds_tests(session_db(c.s), &c.kinds, &e) < 0)
		goto fail;
	/* A check that judged nothing must not pass: a frontend that could not start, or a limit or
	 * budget that left every test out, is a misconfigured CI job, not a clean one. (A wrong library,
	 * shard or queue was refused before the run, by session_open.) */
	for (size_t i = 0; i < ro->nfes; i++) {
		if (res[i].unavailable) {
			printf("check %s: unavailable: %s\n", esc_str(ro->fes[i].label), esc_str(res[i].why));
			if (!*e.msg)
				err_set(&e, EXIT_ENV, "check judged no tests on frontend '%s': it is unavailable: %s",
					ro->fes[i].label, res[i].why);
			continue;
		}
		c.fe = &ro->fes[i];
		if (session_each(c.s, c.fe, judge, &c) < 0)
			goto fail;
		if (c.n)  /* c.v is NULL when nothing was judged; qsort must not see NULL */
			qsort(c.v, c.n, sizeof(*c.v), by_op);
		print_verdicts(c.fe->label, c.v, c.n, c.not_run, &new_failures, &ferry_errors);
		if (!c.n && !*e.msg)
			err_set(&e, EXIT_INPUT, "check judged no tests on frontend '%s': %s", c.fe->label,
				c.not_run ? "--limit or --budget left out all of its tests, and none has a result yet"
					  : "none of its tests has a result");
		if (jf)
			junit_frontend(jf, c.fe->label, c.v, c.n);
		verdicts_free(&c);
	}
	if (*e.msg) {
		printf("check failed: a frontend judged no tests\n");
		goto fail;
	}
	if (jf) {
		fputs("</testsuites>\n", jf);
		jf = NULL;
		if (fs_output_commit(&junit_out, &e) < 0)
			goto fail;
	}
	code = new_failures ? EXIT_FAILURES : EXIT_OK;
	if (new_failures > ferry_errors)
		printf("check failed: new failures\n");
	if (ferry_errors)
		printf("check failed: ferry could not run %zu test%s (ferry's error, not the frontend's: see\n"
		       "'ferry report'; running the command again retries them)\n", ferry_errors,
		       ferry_errors == 1 ? "" : "s");
	/* Cut short, a check has judged only part of its tests: never a pass, and said apart. */
	if (runopts_stopped(ro, res))
		code = EXIT_STOPPED;
	else if (!new_failures)
		printf("check passed: nothing new fails\n");
	goto out;
fail:
	code = cmd_error(&e);
out:
	fs_output_abort(&junit_out);
	verdicts_free(&c);
	if (ran)
		for (size_t i = 0; i < ro->nfes; i++)
			session_result_release(&res[i]);
	session_close(c.s);
	baseline_release(&baseline);
	kinds_tests_release(&c.kinds);
	runopts_release(ro);
	err_release(&e);
	return code;
}

const struct cmd_entry cmd_check_entry = {
	.name = "check", .fn = cmd_check, .needs = CMD_NEEDS_NOTHING, .usage = usage, .opts = options,
	.summary = "the CI entry point: run, compare with known failures, exit 1 on new ones",
	.help = runopts_help,
};
