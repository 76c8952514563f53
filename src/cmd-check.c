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
 * it, and it says nothing of the frontend, so the check counts it as not built and does not fail.
 * The triage file (report/triage.h) knows causes, not tests: a failure of a bug decided filed, not a
 * bug or a duplicate is known on any test, one never seen before too; one of a bug decided fixed is a
 * regression, and fails the check. */
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
#include "triage.h"
#include "summary.h"
#include "xalloc.h"

static const char usage[] =
	"usage: ferry check DIR --frontend NAME[,NAME...] -o STORE [options]\n"
	"\n"
	"Run the wrapped tests of DIR like ferry run, then compare with a baseline of known failures:\n"
	"exit 0 when nothing new fails, 1 when something does. Prints the new failures and the newly\n"
	"fixed tests, a variant or generated test named as one; writes JUnit XML with --junit, and\n"
	"one JSON document instead of the text with --json. The triage file's decisions (ferry triage)\n"
	"make a failure of a filed bug known, and one of a fixed bug a regression.\n";

struct check_args {
	const char *baseline_path, *junit, *triage;
	struct runopts r;
};

#define AT(f) offsetof(struct check_args, f)

static const struct opt options[] = {
	OPT_STRING('b', "baseline", "FILE", "known failures: a file from ferry baseline, or a previous store\n"
		   "(without one, every failure is new), or a triage file", AT(baseline_path)),
	OPT_STRING(0, "triage", "FILE", "the decisions about bugs (ferry triage; default: " TRIAGE_DEFAULT "\n"
		   "when it exists)", AT(triage)),
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
	int regression;             /* a failure of a bug the triage file says is fixed */
	char *triaged;              /* the decision that made it known or a regression (owned), or NULL */
	char *why;                  /* then why (owned) */
	enum record_origin origin;
};

struct check {
	struct session *s;
	const struct frontend *fe;
	struct strmap *baseline;
	struct strmap kinds;        /* the failures that are not frontend bugs (kinds_tests) */
	struct strmap decided;      /* the failures of bugs the triage file decides (triage_tests) */
	struct strmap bugs;         /* with --json: each failing test's bug (runopts_bugs) */
	cJSON *json;                /* with --json: the document being filled, instead of printing */
	const struct wrapped *t;    /* the test being judged */
	struct err *e;              /* where a store that cannot be read says so */
	struct verdict *v;
	size_t n, cap;
	size_t not_run;
	size_t regressions;
};

static char *dup_or_null(const char *s)
{
	return s ? xstrdup(s) : NULL;
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
	v->name = record_name(t->in.extra, t->in.id);
	v->origin = record_origin(t->in.extra);
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
		const struct triage_entry *te;
		struct buf label = BUF_INIT;

		key = xasprintf("%s\x1f%s", c->fe->label, t->in.id);
		known = strmap_find(&c->decided, key);
		free(key);
		te = known ? known->ptr : NULL;
		if (te && (triage_known(te) || te->status == TRIAGE_FIXED)) {
			triage_label(te, &label);
			v->triaged = buf_detach(&label);
			v->known = triage_known(te);
			v->regression = te->status == TRIAGE_FIXED;
		}
	}
	if (v->failing && !v->known && !v->ferrys && !v->regression) {
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
		free(v->triaged);
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
			/* A CI system groups by class: ferry's own tests apart from the library's. */
			if (v[k].origin != RECORD_HARVESTED)
				fprintf(fp, ".%s", record_origin_name(v[k].origin));
			fputs("\" name=\"", fp);
			xml_escape(fp, v[k].name);
			fprintf(fp, "\" time=\"%.3f\"", v[k].seconds);
			if (v[k].failing && !v[k].known && !v[k].apart) {
				fputs(">\n      <failure type=\"", fp);
				xml_escape(fp, v[k].outcome);
				fputs("\" message=\"", fp);
				if (v[k].regression) {
					fputs("regression (", fp);
					xml_escape(fp, v[k].triaged);
					fputs("): ", fp);
				}
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
				if (v[k].triaged) {
					fputs("known (", fp);
					xml_escape(fp, v[k].triaged);
					fputs("): ", fp);
				} else if (v[k].known) {
					fputs("known failure (baseline): ", fp);
				}
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

/* What one frontend's verdicts add up to. */
struct tally {
	size_t fails, known, fixed, news, ferrys, unbuilt, apart, regressions;
};

static void tally(const struct verdict *v, size_t n, struct tally *t)
{
	memset(t, 0, sizeof(*t));
	for (size_t i = 0; i < n; i++) {
		t->fails += v[i].failing;
		t->known += v[i].known;
		t->apart += v[i].apart != 0;
		t->fixed += v[i].fixed;
		t->ferrys += v[i].ferrys;
		t->unbuilt += v[i].unbuilt;
		t->regressions += v[i].regression;
	}
	t->news = t->fails - t->known - t->apart;
}

/* A test's line: head, then tail cut to a terminal's width; in a file or a pipe, a CI log, whole. */
static void print_line(struct buf *head, const char *tail, size_t width)
{
	fputs(head->data, stdout);
	summary_print_cut(stdout, tail, head->len, width);
	putchar('\n');
	buf_reset(head);
}

static void print_verdicts(const char *fe, const struct verdict *v, size_t n, size_t not_run)
{
	struct tally t;
	struct buf head = BUF_INIT, tail = BUF_INIT;
	size_t width = summary_width(stdout, 0);

	tally(v, n, &t);
	printf("check %s: %zu tests judged, %zu failing (%zu known, %zu new", esc_str(fe), n, t.fails, t.known,
	       t.news);
	if (t.apart)
		printf(", %zu not %s", t.apart, t.apart == 1 ? "a frontend bug" : "frontend bugs");
	printf("), %zu newly fixed", t.fixed);
	if (t.regressions)
		printf(", %zu regression%s (of a bug decided fixed)", t.regressions, t.regressions == 1 ? "" : "s");
	if (not_run)
		printf(", %zu not run (limit or budget)", not_run);
	if (t.ferrys)
		printf(", %zu ferry could not run (ferry's error, not the frontend's)", t.ferrys);
	if (t.unbuilt)
		printf(", %zu not built in its format (see 'ferry report')", t.unbuilt);
	putchar('\n');
	for (size_t i = 0; i < n; i++)
		if (v[i].regression) {
			buf_addf(&head, "  REGRESSION %-9s %-20s %s  ", esc_str(v[i].outcome), esc_str(v[i].op),
				 esc_str(v[i].name));
			buf_addf(&tail, "%s: %s%s%s", esc_str(v[i].triaged), esc_str(v[i].stage),
				 v[i].stage ? ": " : "", esc_str(v[i].message));
			print_line(&head, tail.data, width);
			buf_reset(&tail);
		} else if (v[i].failing && !v[i].known && !v[i].apart) {
			buf_addf(&head, "  %-6s %-9s %-20s %s  ", v[i].ferrys ? "FERRY" : "NEW",
				 v[i].ferrys ? "error" : esc_str(v[i].outcome), esc_str(v[i].op), esc_str(v[i].name));
			buf_addf(&tail, "%s%s%s", esc_str(v[i].stage), v[i].stage ? ": " : "", esc_str(v[i].message));
			print_line(&head, tail.data, width);
			buf_reset(&tail);
		}
	/* Not the frontend's to fix: the test, the reference or the environment (kinds.h). */
	for (size_t i = 0; i < n; i++)
		if (v[i].apart) {
			buf_addf(&head, "  APART  %-9s %-20s %s  %s: ", esc_str(kinds_name((enum kind)v[i].apart)),
				 esc_str(v[i].op), esc_str(v[i].name), esc_str(v[i].outcome));
			print_line(&head, esc_str(v[i].why), width);
		}
	for (size_t i = 0; i < n; i++)
		if (v[i].fixed)
			printf("  FIXED  %-9s %-20s %s\n", esc_str(v[i].outcome), esc_str(v[i].op), esc_str(v[i].name));
	buf_release(&head);
	buf_release(&tail);
}

/* --json: one frontend's verdicts, into the document's frontends and tests (doc/json.md). */
static void json_verdicts(struct check *c, const struct session_result *res, cJSON *tests)
{
	struct tally t;
	cJSON *o = cJSON_CreateObject(), *outcomes;
	const char *fe = c->fe->label;

	tally(c->v, c->n, &t);
	cJSON_AddStringToObject(o, "frontend", fe);
	cJSON_AddItemToObject(o, "version", runopts_json_string(res->version));
	cJSON_AddItemToObject(o, "unavailable", cJSON_CreateNull());
	cJSON_AddNumberToObject(o, "judged", (double)c->n);
	outcomes = cJSON_AddObjectToObject(o, "outcomes");
	for (size_t i = 0; i < c->n; i++) {
		cJSON *x = cJSON_GetObjectItemCaseSensitive(outcomes, c->v[i].outcome);

		if (x)
			cJSON_SetNumberValue(x, x->valuedouble + 1);
		else
			cJSON_AddNumberToObject(outcomes, c->v[i].outcome, 1);
	}
	cJSON_AddNumberToObject(o, "failing", (double)t.fails);
	cJSON_AddNumberToObject(o, "known", (double)t.known);
	cJSON_AddNumberToObject(o, "new", (double)t.news);
	cJSON_AddNumberToObject(o, "not_frontend_bugs", (double)t.apart);
	cJSON_AddNumberToObject(o, "fixed", (double)t.fixed);
	cJSON_AddNumberToObject(o, "regressions", (double)t.regressions);
	cJSON_AddNumberToObject(o, "not_run", (double)c->not_run);
	cJSON_AddNumberToObject(o, "ferry_errors", (double)t.ferrys);
	cJSON_AddNumberToObject(o, "not_built", (double)t.unbuilt);
	cJSON_AddItemToArray(cJSON_GetObjectItemCaseSensitive(c->json, "frontends"), o);
	for (size_t i = 0; i < c->n; i++) {
		const struct verdict *v = &c->v[i];
		const char *status = v->ferrys ? "ferry" : v->regression ? "regression" : v->apart ? "apart" :
				     v->known ? "known" :
				     v->failing ? "new" : v->fixed ? "fixed" : NULL;
		char *key;
		const struct strmap_entry *bug;

		if (!status)
			continue;
		key = xasprintf("%s\x1f%s", fe, v->id);
		bug = strmap_find(&c->bugs, key);
		free(key);
		o = cJSON_CreateObject();
		cJSON_AddStringToObject(o, "status", status);
		cJSON_AddStringToObject(o, "frontend", fe);
		cJSON_AddStringToObject(o, "id", v->id);
		cJSON_AddStringToObject(o, "op", v->op);
		cJSON_AddStringToObject(o, "origin", record_origin_name(v->origin));
		cJSON_AddStringToObject(o, "name", v->name);
		cJSON_AddStringToObject(o, "outcome", v->outcome);
		cJSON_AddItemToObject(o, "stage", runopts_json_string(v->stage));
		cJSON_AddItemToObject(o, "kind", v->failing && !v->ferrys ?
				      cJSON_CreateString(kinds_name((enum kind)v->apart)) : cJSON_CreateNull());
		cJSON_AddItemToObject(o, "why", runopts_json_string(v->why));
		cJSON_AddItemToObject(o, "bug", runopts_json_string(bug && v->failing ? bug->ptr : NULL));
		cJSON_AddItemToObject(o, "message", runopts_json_string(v->message));
		cJSON_AddItemToObject(o, "triage", runopts_json_string(v->triaged));
		cJSON_AddItemToArray(tests, o);
	}
}

static int cmd_check(int argc, char **argv)
{
	struct check_args args = { 0 }, *a = &args;
	struct runopts *ro = &a->r;
	struct session_result res[RUNOPTS_MAX_FRONTENDS];
	struct strmap baseline = STRMAP_INIT;
	struct triage triage = TRIAGE_INIT;
	const char *triage_path;
	struct check c;
	struct tally t;
	cJSON *tests = NULL;
	struct err e = ERR_INIT;
	struct fs_output junit_out = FS_OUTPUT_INIT;
	FILE *jf = NULL;
	size_t new_failures = 0, ferry_errors = 0;
	int code = EXIT_OK, ran = 0, stopped = 0;

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
	/* A triage file serves as the baseline too: what it decides is known, whatever the tests. */
	triage_path = a->triage;
	if (a->baseline_path && triage_is_file(a->baseline_path)) {
		if (a->triage && strcmp(a->triage, a->baseline_path)) {
			code = cmd_usage_error(&cmd_check_entry, "the baseline '%s' is a triage file: give one, not "
					       "--triage too", a->baseline_path);
			goto out;
		}
		triage_path = a->baseline_path;
		a->baseline_path = NULL;
	}
	if (!triage_path && fs_exists(TRIAGE_DEFAULT))
		triage_path = TRIAGE_DEFAULT;
	/* Read the baseline first: a typo in its name must not cost a whole run. */
	if (a->baseline_path && baseline_load(a->baseline_path, &baseline, &e) < 0)
		goto fail;
	if (triage_path && triage_load(&triage, triage_path, 0, &e) < 0)
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
	if (ro->json) {
		c.json = cJSON_CreateObject();
		cJSON_AddStringToObject(c.json, "command", "check");
		cJSON_AddStringToObject(c.json, "store", ro->s.store);
		cJSON_AddItemToObject(c.json, "baseline", runopts_json_string(a->baseline_path));
		cJSON_AddItemToObject(c.json, "runs", runopts_json(ro, res));
		cJSON_AddArrayToObject(c.json, "frontends");
		tests = cJSON_AddArrayToObject(c.json, "tests");
	} else {
		runopts_print(ro, res);
		putchar('\n');
	}
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
	if (kinds_tests(session_db(c.s), &c.kinds, &e) < 0 ||
	    triage_tests(session_db(c.s), &triage, &c.decided, &e) < 0 ||
	    (c.json && runopts_bugs(session_db(c.s), &c.bugs, &e) < 0))
		goto fail;
	if (triage_path && !c.json)
		printf("triage: %zu decision%s in %s\n", triage.n, triage.n == 1 ? "" : "s", esc_str(triage_path));
	/* A check that judged nothing must not pass: a frontend that could not start, or a limit or
	 * budget that left every test out, is a misconfigured CI job, not a clean one. (A wrong library,
	 * shard or queue was refused before the run, by session_open.) */
	for (size_t i = 0; i < ro->nfes; i++) {
		if (res[i].unavailable) {
			if (c.json) {
				cJSON *o = cJSON_CreateObject();

				cJSON_AddStringToObject(o, "frontend", ro->fes[i].label);
				cJSON_AddItemToObject(o, "unavailable", runopts_json_string(res[i].why));
				cJSON_AddItemToArray(cJSON_GetObjectItemCaseSensitive(c.json, "frontends"), o);
			} else {
				printf("check %s: unavailable: %s\n", esc_str(ro->fes[i].label), esc_str(res[i].why));
			}
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
		tally(c.v, c.n, &t);
		new_failures += t.news;
		ferry_errors += t.ferrys;
		if (c.json)
			json_verdicts(&c, &res[i], tests);
		else
			print_verdicts(c.fe->label, c.v, c.n, c.not_run);
		if (!c.n && !*e.msg)
			err_set(&e, EXIT_INPUT, "check judged no tests on frontend '%s': %s", c.fe->label,
				c.not_run ? "--limit or --budget left out all of its tests, and none has a result yet"
					  : "none of its tests has a result");
		if (jf)
			junit_frontend(jf, c.fe->label, c.v, c.n);
		for (size_t k = 0; k < c.n; k++)
			c.regressions += c.v[k].regression;
		verdicts_free(&c);
	}
	if (*e.msg) {
		if (!c.json)
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
	/* Cut short, a check has judged only part of its tests: never a pass, and said apart. */
	stopped = runopts_stopped(ro, res) != EXIT_OK;
	if (stopped)
		code = EXIT_STOPPED;
	if (c.json) {
		cJSON_AddNumberToObject(c.json, "new", (double)(new_failures - ferry_errors - c.regressions));
		cJSON_AddNumberToObject(c.json, "regressions", (double)c.regressions);
		cJSON_AddNumberToObject(c.json, "ferry_errors", (double)ferry_errors);
		cJSON_AddBoolToObject(c.json, "passed", !new_failures && !stopped);
		cJSON_AddBoolToObject(c.json, "stopped_early", stopped);
		cJSON_AddNumberToObject(c.json, "exit", code);
		runopts_json_print(c.json);
		c.json = NULL;
		goto out;
	}
	if (c.regressions)
		printf("check failed: %zu regression%s: a bug the triage file says is fixed fails again\n",
		       c.regressions, c.regressions == 1 ? "" : "s");
	if (new_failures > ferry_errors + c.regressions)
		printf("check failed: new failures\n");
	if (ferry_errors)
		printf("check failed: ferry could not run %zu test%s (ferry's error, not the frontend's: see\n"
		       "'ferry report'; running the command again retries them)\n", ferry_errors,
		       ferry_errors == 1 ? "" : "s");
	if (!stopped && !new_failures)
		printf("check passed: nothing new fails\n");
	goto out;
fail:
	code = cmd_error(&e);
	/* A CI job reading the document learns why there is no verdict. */
	if (c.json) {
		cJSON_AddStringToObject(c.json, "error", e.msg);
		cJSON_AddBoolToObject(c.json, "passed", 0);
		cJSON_AddNumberToObject(c.json, "exit", code);
		runopts_json_print(c.json);
		c.json = NULL;
	}
out:
	fs_output_abort(&junit_out);
	verdicts_free(&c);
	if (ran)
		for (size_t i = 0; i < ro->nfes; i++)
			session_result_release(&res[i]);
	session_close(c.s);
	baseline_release(&baseline);
	kinds_tests_release(&c.kinds);
	strmap_release(&c.decided);
	triage_release(&triage);
	runopts_bugs_release(&c.bugs);
	cJSON_Delete(c.json);
	runopts_release(ro);
	err_release(&e);
	return code;
}

const struct cmd_entry cmd_check_entry = {
	.name = "check", .fn = cmd_check, .needs = CMD_NEEDS_NOTHING, .usage = usage, .opts = options,
	.summary = "the CI entry point: run, compare with known failures, exit 1 on new ones",
	.help = runopts_help,
};
