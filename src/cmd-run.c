/* cmd-run.c: ferry run DIR --frontend NAME[,NAME...] -o STORE
 *
 * Feeds the wrapped models of DIR to compiler frontends, each test in one of ferry's watched worker
 * processes, and records every result in the store as soon as it is known (oracle/session.h). The
 * oracles run in the worker: a crash in a stage (load, compile, execute), a message that means
 * "unsupported", or outputs that differ from the source library's reference. The same command run
 * again skips the tests that already have a result, so an interrupted or killed run resumes.
 *
 * ferry run --one TESTDIR -F NAME runs one test directory through one adapter, in the same watched
 * worker, and prints what happened at every step instead of storing it: for people writing adapters. */
#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "esc.h"
#include "fsutil.h"
#include "outcome.h"
#include "protocol.h"
#include "runargs.h"
#include "tolerance.h"
#include "warnlog.h"
#include "xalloc.h"

static const char usage[] =
	"usage: ferry run DIR --frontend NAME[,NAME...] -o STORE [options]\n"
	"\n"
	"Run the wrapped models of DIR (from ferry wrap) through compiler frontends and record each\n"
	"result in STORE (SQLite). Running the same command again resumes where it stopped.\n"
	"   or: ferry run --one TESTDIR --frontend NAME [options]\n"
	"\n"
	"Run one wrapped test directory through one frontend, store nothing, and print each stage\n"
	"with its time, the outcome and how it was decided; exit as ferry check would for that test.\n";

struct run_args {
	const char *one;
	struct runopts r;
};

#define AT(f) offsetof(struct run_args, f)

static const struct opt options[] = {
	OPT_STRING(0, "one", "TESTDIR", "run this one test directory (DIR/tests/XX/ID) and print what happened,\n"
		   "storing nothing (for people writing adapters)", AT(one)),
	OPT_FLAG(0, "probe-only", "run only probes, one per operator and type signature of the tests (a corpus of\n"
		 "ferry generate --probes), into STORE's support table, which ferry generate\n"
		 "--support reads", AT(r.s.probe_only)),
	OPT_INCLUDE(runopts_options, AT(r)),
	OPT_END(),
};

/* --- ferry run --one ---------------------------------------------------------------------------- */

struct one {
	char *request;          /* the test's worker request, as a run makes it */
	const char *undefined;  /* why its inputs lie in the operator's undefined domain, or NULL */
	int taken;
	int code;
	double timeout;         /* -t */
	struct buf out;         /* what one_done found, printed after the frontend's version is known */
};

static int one_next(void *ctx, struct runner_job *job, struct err *e)
{
	struct one *o = ctx;

	(void)e;
	if (o->taken++)
		return 0;
	job->key = xstrdup("one");
	job->request = xstrdup(o->request);
	return 1;
}

static const char *reply_str(const cJSON *reply, const char *key)
{
	const cJSON *v = reply ? cJSON_GetObjectItemCaseSensitive(reply, key) : NULL;

	return cJSON_IsString(v) ? v->valuestring : NULL;
}

/* One labelled field; a value of several lines is indented under its label. */
static void field(struct buf *out, const char *label, const char *value)
{
	if (!value || !*value)
		return;
	buf_addf(out, "%-11s", label);
	for (const char *line = value; *line;) {
		size_t n = strcspn(line, "\n");
		char *text = xstrndup(line, n);

		buf_addf(out, "%s%s\n", line == value ? "" : "           ", esc_str(text));
		free(text);
		line += n + (line[n] == '\n');
	}
}

/* The innermost "File ..." line of a traceback and the source line under it, or NULL. */
static char *innermost(const char *tb)
{
	const char *last = NULL;

	for (const char *p = tb; p && (p = strstr(p, "  File \"")); p++)
		last = p;
	if (!last)
		return NULL;
	last += 2;
	return xstrndup(last, strcspn(last, "\n"));
}

static int one_done(void *ctx, const struct runner_job *job, const struct runner_outcome *r, struct err *e)
{
	struct one *o = ctx;
	const char *outcome = NULL, *stage = r->stage;
	struct buf line = BUF_INIT;
	char *frame = NULL;

	(void)job;
	(void)e;
	switch (r->end) {
	case RUNNER_REPLY:
		if (reply_str(r->reply, PROTO_KEY_UNAVAILABLE)) {
			buf_addf(&line, "unavailable: this release cannot take %s",
				 reply_str(r->reply, PROTO_KEY_UNAVAILABLE));
			field(&o->out, "outcome", line.data);
			o->code = EXIT_ENV;
			goto out;
		}
		outcome = reply_str(r->reply, PROTO_KEY_OUTCOME);
		stage = reply_str(r->reply, PROTO_KEY_STAGE);
		break;
	case RUNNER_TIMEOUT:
		outcome = outcome_name(OUTCOME_TIMEOUT);
		break;
	case RUNNER_OOM:
		outcome = outcome_name(OUTCOME_OOM);
		break;
	case RUNNER_DIED:
		outcome = outcome_name(OUTCOME_CRASH);
		break;
	}
	field(&o->out, "stages", reply_str(r->reply, PROTO_KEY_STAGES));
	buf_addf(&line, "%s%s%s (%.3fs in all)", outcome ? outcome : "?", stage ? " in stage " : "", stage ? stage : "",
		 r->seconds);
	field(&o->out, "outcome", line.data);
	buf_reset(&line);
	if (r->end == RUNNER_TIMEOUT)
		buf_addf(&line, "no result within the timeout (%gs): the worker was killed", o->timeout);
	else if (r->end == RUNNER_OOM)
		buf_adds(&line, "the worker passed the memory limit: it was killed");
	else if (r->end == RUNNER_DIED && r->why)
		buf_adds(&line, r->why);
	else if (r->end == RUNNER_DIED)
		proc_status_describe(&r->status, &line);
	else if (reply_str(r->reply, PROTO_KEY_PATTERN))
		buf_addf(&line, "unsupported: the message matches %s", reply_str(r->reply, PROTO_KEY_PATTERN));
	else if (outcome && !strcmp(outcome, outcome_name(OUTCOME_CRASH)))
		buf_adds(&line, "a crash: an exception from the frontend that no unsupported pattern matches");
	else if (outcome && !strcmp(outcome, outcome_name(OUTCOME_ERROR)))
		buf_addf(&line, "ferry's own error%s", stage && !strcmp(stage, PROTO_STAGE_WRAP)
			 ? ": the template could not make the model in this format at wrap (not the frontend's)"
			 : " (a \"ferry: \" message, a missing file of the test): not the frontend's");
	else
		buf_adds(&line, "the outputs against the references (the value oracle)");
	field(&o->out, "decided", line.data);
	if (reply_str(r->reply, PROTO_KEY_COMPARED)) {
		const cJSON *m = cJSON_GetObjectItemCaseSensitive(r->reply, PROTO_KEY_MAX_ABS);

		buf_reset(&line);
		buf_adds(&line, reply_str(r->reply, PROTO_KEY_COMPARED));
		if (cJSON_IsNumber(m))
			buf_addf(&line, "\nmax |got - want|: %g", m->valuedouble);
		field(&o->out, "compared", line.data);
	}
	if (reply_str(r->reply, PROTO_KEY_EXC_TYPE) || reply_str(r->reply, PROTO_KEY_MESSAGE)) {
		buf_reset(&line);
		if (reply_str(r->reply, PROTO_KEY_EXC_TYPE))
			buf_addf(&line, "%s: ", reply_str(r->reply, PROTO_KEY_EXC_TYPE));
		buf_adds(&line, reply_str(r->reply, PROTO_KEY_MESSAGE) ? reply_str(r->reply, PROTO_KEY_MESSAGE) : "");
		field(&o->out, outcome && !strcmp(outcome, outcome_name(OUTCOME_MISMATCH)) ? "mismatch" : "exception",
		      line.data);
	}
	field(&o->out, "frame", reply_str(r->reply, PROTO_KEY_FRAME));
	if (reply_str(r->reply, PROTO_KEY_EXC_TYPE) && (frame = innermost(reply_str(r->reply, PROTO_KEY_DETAIL))))
		field(&o->out, "innermost", frame);
	if (r->stderr_text && *r->stderr_text) {
		const char *tail = r->stderr_text + strlen(r->stderr_text);
		int lines = 0;

		while (tail > r->stderr_text && lines <= 10)
			lines += *--tail == '\n';
		field(&o->out, "stderr", tail + (*tail == '\n'));
	}
	/* As a run records it: a failure on inputs in the operator's undefined domain is no bug. */
	if (o->undefined && outcome && outcome_name_is_failure(outcome)) {
		buf_reset(&line);
		buf_addf(&line, "%s: a run records this %s as %s, not as a failure", o->undefined, outcome,
			 outcome_name(OUTCOME_UNDEFINED));
		field(&o->out, "undefined", line.data);
	} else if (outcome && outcome_name_is_failure(outcome) &&
		   !(!strcmp(outcome, outcome_name(OUTCOME_ERROR)) && stage && !strcmp(stage, PROTO_STAGE_WRAP)))
		o->code = EXIT_FAILURES;
out:
	free(frame);
	buf_release(&line);
	return 0;
}

/* The test of directory dir (DIR/tests/XX/ID), as the run would take it from its wrap's
 * DIR/wrapped.jsonl, into *tests (*n of them; *t is dir's); -1 naming dir when it is no such test. */
static int one_test(const char *dir, struct wrapped **tests, size_t *n, const struct wrapped **t, struct err *e)
{
	char *wrapdir = NULL, *real = NULL;
	size_t bad = 0;
	int r = -1;

	*tests = NULL;
	*n = 0;
	*t = NULL;
	if (!fs_is_dir(dir) || !(real = realpath(dir, NULL))) {
		err_set(e, EXIT_INPUT, "'%s' is not a test directory (a directory of a wrap: DIR/tests/XX/ID)", dir);
		goto out;
	}
	wrapdir = xasprintf("%s/../../..", real);
	if (wrapped_load(wrapdir, tests, n, &bad, NULL, NULL, e) < 0) {
		err_release(e);
		goto no_test;
	}
	for (size_t i = 0; i < *n && !*t; i++) {
		char *other = realpath((*tests)[i].dir, NULL);

		if (other && !strcmp(other, real))
			*t = &(*tests)[i];
		free(other);
	}
	if (*t) {
		r = 0;
		goto out;
	}
no_test:
	err_set(e, EXIT_INPUT, "'%s' is not a wrapped test directory: its wrap (DIR/%s, for DIR/tests/XX/ID) "
		"has no test of it", dir, WRAPPED_FILE);
out:
	free(wrapdir);
	free(real);
	return r;
}

static int run_one(struct runopts *ro, const char *dir, struct err *e)
{
	struct tolerance_rules rules = TOLERANCE_RULES_INIT;
	struct runner_opts opts;
	struct one o = { NULL, NULL, 0, EXIT_OK, ro->s.runner.timeout, BUF_INIT };
	struct runner_callbacks cb = { &o, one_next, one_done, NULL, NULL };
	const struct frontend *fe = &ro->fes[0];
	struct wrapped *tests = NULL;
	const struct wrapped *t;
	size_t ntests = 0;
	const char *wargv[5];
	char *env[2] = { NULL, NULL };
	char *self = fs_self_exe(), *version = NULL;
	int r = -1;

	if (one_test(dir, &tests, &ntests, &t, e) < 0)
		goto out;
	if (strcmp(t->in.library, fe->library)) {
		err_set(e, EXIT_USAGE, "frontend '%s' takes %s models; '%s' is a %s test", fe->name, fe->library, dir,
			t->in.library);
		goto out;
	}
	if (!t->valid) {
		err_set(e, EXIT_INPUT, "'%s' is a test ferry could not make, so no frontend runs it: %s", dir,
			t->reason ? t->reason : "(no reason recorded)");
		goto out;
	}
	if (ro->s.tolerances && tolerance_rules_load(&rules, ro->s.tolerances, e) < 0)
		goto out;
	o.request = session_request(t, &rules, fe->name, (struct tolerance){ ro->s.atol, ro->s.rtol });
	o.undefined = t->undefined;
	/* NAME@PYTHON: its worker runs on that interpreter, as in a run. */
	session_worker_command(fe, self, wargv, env);
	session_worker_opts(&opts, &ro->s.runner, wargv, env);
	opts.jobs = 1;
	/* A worker that cannot start (the frontend is missing or broken) ends the run: EXIT_ENV. */
	if (runner_run(&opts, &cb, &version, e) < 0)
		goto out;
	printf("%-11s%s (%s)\n", "test", esc_str(dir), esc_str(t->in.op));
	printf("%-11s%s %s\n", "frontend", esc_str(fe->label), version ? esc_str(version) : "(no version)");
	fputs(o.out.data ? o.out.data : "", stdout);
	r = o.code;
out:
	buf_release(&o.out);
	free(env[0]);
	free(version);
	free(self);
	free(o.request);
	wrapped_free(tests, ntests);
	tolerance_rules_release(&rules);
	return r;
}

/* Where the tests' time went, per frontend: its own stages, as its workers measured them, and
 * ferry's share of the rest (queueing, the protocol, reading and comparing, the store). */
static void print_durations(const struct runopts *ro, const struct session_result *res)
{
	int any = 0;

	for (size_t i = 0; i < ro->nfes; i++)
		any |= res[i].timed > 0;
	if (!any)
		return;
	printf("durations (seconds; ferry: queueing, protocol, reading and comparing, store):\n");
	printf("  %-22s %7s %9s %9s %9s %9s %7s\n", "frontend", "tests", "load", "compile", "execute", "ferry",
	       "ferry%");
	for (size_t i = 0; i < ro->nfes; i++) {
		const struct session_result *r = &res[i];
		double all = r->load_seconds + r->compile_seconds + r->execute_seconds + r->ferry_seconds;

		if (!r->timed)
			continue;
		printf("  %-22s %7zu %9.3f %9.3f %9.3f %9.3f %6.1f%%\n", esc_str(ro->fes[i].label), r->timed,
		       r->load_seconds, r->compile_seconds, r->execute_seconds, r->ferry_seconds,
		       all > 0 ? 100 * r->ferry_seconds / all : 0.0);
	}
}

static int cmd_run(int argc, char **argv)
{
	struct run_args args = { 0 }, *a = &args;
	struct runopts *ro = &a->r;
	struct session *s = NULL;
	struct session_result res[RUNOPTS_MAX_FRONTENDS];
	struct err e = ERR_INIT;
	struct warnlog warnings;
	int code = EXIT_OK, ran = 0;

	runopts_init(ro, cmd_warn_line);
	memset(res, 0, sizeof(res));
	if (cmd_parse(&cmd_run_entry, argc, argv, a) < 0) {
		code = EXIT_USAGE;
		goto out;
	}
	if (a->one) {
		if (ro->oracle || ro->mutations >= 0 || ro->seed >= 0) {
			code = cmd_usage_error(&cmd_run_entry, "--one runs the reference oracle only (no --oracle, -k, "
					       "--seed)");
			goto out;
		}
		if (ro->json) {
			code = cmd_usage_error(&cmd_run_entry, "--one prints what happened at each step as text: "
					       "no --json");
			goto out;
		}
		if (optind != argc || ro->nfes != 1 || ro->s.store) {
			code = cmd_usage_error(&cmd_run_entry, "--one takes one test directory and one --frontend, "
					       "and no DIR nor -o (it stores nothing)");
			goto out;
		}
		ro->s.runner.mem_limit = ro->memory ? ro->memory : opts_default_memory(1);
		if ((code = run_one(ro, a->one, &e)) < 0)
			code = cmd_error(&e);
		goto out;
	}
	if (ro->s.probe_only && (ro->s.no_probe || ro->oracle)) {
		code = cmd_usage_error(&cmd_run_entry, "--probe-only runs probes through the reference oracle: "
				       "no --no-probe, no --oracle");
		goto out;
	}
	if (optind + 1 != argc) {
		code = cmd_usage_error(&cmd_run_entry, "run takes one DIR (the output of ferry wrap)");
		goto out;
	}
	if (runopts_finish(ro, &cmd_run_entry, argv[optind], argc, argv) < 0) {
		code = EXIT_USAGE;
		goto out;
	}
	if (session_open(&s, &ro->s, &e) < 0) {
		code = cmd_error(&e);
		goto out;
	}
	runopts_print_selection(ro, s);
	if (ro->collect_only) {
		runopts_collect(ro, s);
		goto out;
	}
	ran = 1;
	/* Python's warnings in this process (the workers' stderr is each test's) beside the store. */
	warnlog_open_beside(&warnings, ro->s.store);
	if (session_run(s, ro->fes, ro->nfes, res, &e) < 0) {
		code = cmd_error(&e);
		if (e.code == EXIT_INTERRUPTED)
			fprintf(stderr, "ferry: results so far are in '%s'; run the same command to go on\n",
				ro->s.store);
		goto out;
	}
	if (ro->json) {
		cJSON *doc = cJSON_CreateObject();

		cJSON_AddStringToObject(doc, "command", "run");
		cJSON_AddStringToObject(doc, "store", ro->s.store);
		cJSON_AddItemToObject(doc, "frontends", runopts_json(ro, res));
		if (runopts_json_failures(ro, s, cJSON_AddArrayToObject(doc, "failures"), &e) < 0) {
			cJSON_Delete(doc);
			code = cmd_error(&e);
			goto out;
		}
		runopts_json_print(doc);
	} else {
		runopts_print(ro, res);
		print_durations(ro, res);
	}
	code = runopts_stopped(ro, res);
	for (size_t i = 0; i < ro->nfes; i++)
		if (res[i].unavailable)
			cmd_warn("frontend '%s' is unavailable: %s", ro->fes[i].label, res[i].why);
out:
	if (ran)
		for (size_t i = 0; i < ro->nfes; i++)
			session_result_release(&res[i]);
	if (ran)
		warnlog_close(&warnings);
	session_close(s);
	runopts_release(ro);
	err_release(&e);
	return code;
}

const struct cmd_entry cmd_run_entry = {
	.name = "run", .fn = cmd_run, .needs = CMD_NEEDS_NOTHING, .usage = usage, .opts = options,
	.summary = "run wrapped models through compiler frontends into a results store",
	.help = runopts_help,
};
