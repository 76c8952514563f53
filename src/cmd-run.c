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
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "classify.h"
#include "cmd.h"
#include "esc.h"
#include "fsutil.h"
#include "outcome.h"
#include "protocol.h"
#include "runopts.h"
#include "tolerance.h"
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

static const char *one;

static const struct opt options[] = {
	OPT_STRING(0, "one", "TESTDIR", "run this one test directory (DIR/tests/XX/ID) and print what happened,\n"
		   "storing nothing (for people writing adapters)", &one),
	OPT_INCLUDE(runopts_options),
	OPT_END(),
};

/* --- ferry run --one ---------------------------------------------------------------------------- */

struct one {
	const char *dir;
	int taken;
	int code;
};

static int one_next(void *ctx, struct runner_job *job, struct err *e)
{
	struct one *o = ctx;
	const struct runopts *ro = &runopts;
	cJSON *req;

	(void)e;
	if (o->taken++)
		return 0;
	req = cJSON_CreateObject();
	cJSON_AddStringToObject(req, PROTO_KEY_TASK, PROTO_TASK_RUN);
	cJSON_AddStringToObject(req, PROTO_KEY_ID, "one");
	cJSON_AddStringToObject(req, PROTO_KEY_DIR, o->dir);
	cJSON_AddBoolToObject(req, PROTO_KEY_RANDOM, 0);
	cJSON_AddNumberToObject(req, PROTO_KEY_ATOL, ro->s.atol);
	cJSON_AddNumberToObject(req, PROTO_KEY_RTOL, ro->s.rtol);
	job->key = xstrdup("one");
	job->request = cJSON_PrintUnformatted(req);
	cJSON_Delete(req);
	return 1;
}

static const char *reply_str(const cJSON *reply, const char *key)
{
	const cJSON *v = reply ? cJSON_GetObjectItemCaseSensitive(reply, key) : NULL;

	return cJSON_IsString(v) ? v->valuestring : NULL;
}

/* What one_done found, printed after the frontend's version is known. */
static struct buf one_out = BUF_INIT;

/* One labelled field; a value of several lines is indented under its label. */
static void field(const char *label, const char *value)
{
	if (!value || !*value)
		return;
	buf_addf(&one_out, "%-11s", label);
	for (const char *line = value; *line;) {
		size_t n = strcspn(line, "\n");
		char *text = xstrndup(line, n);

		buf_addf(&one_out, "%s%s\n", line == value ? "" : "           ", esc_str(text));
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
			field("outcome", line.data);
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
	field("stages", reply_str(r->reply, PROTO_KEY_STAGES));
	buf_addf(&line, "%s%s%s (%.3fs in all)", outcome ? outcome : "?", stage ? " in stage " : "", stage ? stage : "",
		 r->seconds);
	field("outcome", line.data);
	buf_reset(&line);
	if (r->end == RUNNER_TIMEOUT)
		buf_addf(&line, "no result within the timeout (%gs): the worker was killed", runopts.s.runner.timeout);
	else if (r->end == RUNNER_OOM)
		buf_adds(&line, "the worker passed the memory limit: it was killed");
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
	field("decided", line.data);
	if (reply_str(r->reply, PROTO_KEY_COMPARED)) {
		const cJSON *m = cJSON_GetObjectItemCaseSensitive(r->reply, PROTO_KEY_MAX_ABS);

		buf_reset(&line);
		buf_adds(&line, reply_str(r->reply, PROTO_KEY_COMPARED));
		if (cJSON_IsNumber(m))
			buf_addf(&line, "\nmax |got - want|: %g", m->valuedouble);
		field("compared", line.data);
	}
	if (reply_str(r->reply, PROTO_KEY_EXC_TYPE) || reply_str(r->reply, PROTO_KEY_MESSAGE)) {
		buf_reset(&line);
		if (reply_str(r->reply, PROTO_KEY_EXC_TYPE))
			buf_addf(&line, "%s: ", reply_str(r->reply, PROTO_KEY_EXC_TYPE));
		buf_adds(&line, reply_str(r->reply, PROTO_KEY_MESSAGE) ? reply_str(r->reply, PROTO_KEY_MESSAGE) : "");
		field(outcome && !strcmp(outcome, outcome_name(OUTCOME_MISMATCH)) ? "mismatch" : "exception",
		      line.data);
	}
	field("frame", reply_str(r->reply, PROTO_KEY_FRAME));
	if (reply_str(r->reply, PROTO_KEY_EXC_TYPE) && (frame = innermost(reply_str(r->reply, PROTO_KEY_DETAIL))))
		field("innermost", frame);
	if (r->stderr_text && *r->stderr_text) {
		const char *tail = r->stderr_text + strlen(r->stderr_text);
		int lines = 0;

		while (tail > r->stderr_text && lines <= 10)
			lines += *--tail == '\n';
		field("stderr", tail + (*tail == '\n'));
	}
	if (outcome && outcome_name_is_failure(outcome) &&
	    !(!strcmp(outcome, outcome_name(OUTCOME_ERROR)) && stage && !strcmp(stage, PROTO_STAGE_WRAP)))
		o->code = EXIT_FAILURES;
out:
	free(frame);
	buf_release(&line);
	return 0;
}

/* The library of test id, from its line in the wrap's wrapped.jsonl (dir is DIR/tests/XX/ID), else
 * from dir/record.json; NULL when neither says. Caller frees. */
static char *wrap_library(const char *dir, const char *id)
{
	char *found = NULL;

	for (int k = 0; k < 2 && !found; k++) {
		char *path = k ? xasprintf("%s/record.json", dir) : xasprintf("%s/../../../wrapped.jsonl", dir);
		struct buf text = BUF_INIT;
		struct err ignored = ERR_INIT;

		if (fs_read(path, &text, &ignored) == 0) {
			for (char *line = text.data; *line && !found;) {
				size_t n = strcspn(line, "\n");
				char save = line[n];
				cJSON *rec;
				const cJSON *lid, *lib;

				line[n] = '\0';
				rec = strstr(line, id) ? cJSON_Parse(line) : NULL;
				lid = rec ? cJSON_GetObjectItemCaseSensitive(rec, "id") : NULL;
				lib = rec ? cJSON_GetObjectItemCaseSensitive(rec, "library") : NULL;
				if (cJSON_IsString(lid) && !strcmp(lid->valuestring, id) && cJSON_IsString(lib))
					found = xstrdup(lib->valuestring);
				cJSON_Delete(rec);
				line[n] = save;
				line += n + (save == '\n');
			}
		}
		err_release(&ignored);
		buf_release(&text);
		free(path);
	}
	return found;
}

/* The test directory's operator and library (from meta.json and record.json), or -1 naming the
 * directory. */
static int one_test(const char *dir, char **op, char **library, char **dtype, struct err *e)
{
	struct buf text = BUF_INIT;
	char *path = NULL;
	cJSON *meta = NULL;
	const cJSON *v;
	int r = -1;

	if (!fs_is_dir(dir)) {
		err_set(e, EXIT_INPUT, "'%s' is not a test directory (a directory of a wrap: DIR/tests/XX/ID)", dir);
		goto out;
	}
	path = xasprintf("%s/meta.json", dir);
	if (fs_read(path, &text, e) < 0 || !(meta = cJSON_Parse(text.data)) || !cJSON_IsObject(meta)) {
		err_release(e);
		err_set(e, EXIT_INPUT, "'%s' is not a wrapped test directory: no readable JSON object in '%s'", dir,
			path);
		goto out;
	}
	v = cJSON_GetObjectItemCaseSensitive(meta, "op");
	*op = xstrdup(cJSON_IsString(v) ? v->valuestring : "?");
	v = cJSON_GetObjectItemCaseSensitive(meta, "outputs");
	v = cJSON_IsArray(v) ? cJSON_GetArrayItem(v, 0) : NULL;
	v = v ? cJSON_GetObjectItemCaseSensitive(v, "dtype") : NULL;
	*dtype = cJSON_IsString(v) ? xstrdup(v->valuestring) : NULL;
	v = cJSON_GetObjectItemCaseSensitive(meta, "id");
	if (!cJSON_IsString(v) || !(*library = wrap_library(dir, v->valuestring))) {
		err_set(e, EXIT_INPUT, "'%s' is not a wrapped test directory: its wrap's line (DIR/wrapped.jsonl, "
			"DIR/tests/XX/ID) names no library for it, nor does its record.json", dir);
		goto out;
	}
	r = 0;
out:
	cJSON_Delete(meta);
	buf_release(&text);
	free(path);
	return r;
}

static int run_one(struct runopts *ro, const char *dir, struct err *e)
{
	struct tolerance_rules rules = TOLERANCE_RULES_INIT;
	struct runner_opts opts;
	struct one o = { dir, 0, EXIT_OK };
	struct runner_callbacks cb = { &o, one_next, one_done, NULL, NULL };
	const struct frontend *fe = &ro->fes[0];
	const char *wargv[5];
	char *env[2] = { NULL, NULL };
	char *self = fs_self_exe(), *version = NULL, *op = NULL, *library = NULL, *dtype = NULL;
	struct tolerance tol = { ro->s.atol, ro->s.rtol };
	int r = -1;

	if (one_test(dir, &op, &library, &dtype, e) < 0)
		goto out;
	if (strcmp(library, fe->library)) {
		err_set(e, EXIT_USAGE, "frontend '%s' takes %s models; '%s' is a %s test", fe->name, fe->library, dir,
			library);
		goto out;
	}
	if (ro->s.tolerances && tolerance_rules_load(&rules, ro->s.tolerances, e) < 0)
		goto out;
	tol = tolerance_for(&rules, op, dtype, fe->name, tol);
	ro->s.atol = tol.atol;
	ro->s.rtol = tol.rtol;
	/* NAME@PYTHON: its worker runs on that interpreter, as in a run. */
	session_worker_command(fe, self, wargv, env);
	session_worker_opts(&opts, &ro->s.runner, wargv, env);
	opts.jobs = 1;
	/* A worker that cannot start (the frontend is missing or broken) ends the run: EXIT_ENV. */
	if (runner_run(&opts, &cb, &version, e) < 0)
		goto out;
	printf("%-11s%s (%s)\n", "test", esc_str(dir), esc_str(op));
	printf("%-11s%s %s\n", "frontend", esc_str(fe->label), version ? esc_str(version) : "(no version)");
	fputs(one_out.data, stdout);
	r = o.code;
out:
	buf_release(&one_out);
	free(env[0]);
	free(version);
	free(self);
	free(op);
	free(library);
	free(dtype);
	tolerance_rules_release(&rules);
	return r;
}

static int cmd_run(int argc, char **argv)
{
	struct runopts *ro = &runopts;
	struct session *s = NULL;
	struct session_result res[RUNOPTS_MAX_FRONTENDS];
	struct err e = ERR_INIT;
	int code = EXIT_OK, ran = 0;

	runopts_init(ro);
	memset(res, 0, sizeof(res));
	if (opts_parse(&cmd_run_entry, argc, argv) < 0) {
		code = EXIT_USAGE;
		goto out;
	}
	if (one) {
		if (optind != argc || ro->nfes != 1 || ro->s.store) {
			code = cmd_usage_error(&cmd_run_entry, "--one takes one test directory and one --frontend, "
					       "and no DIR nor -o (it stores nothing)");
			goto out;
		}
		ro->s.runner.mem_limit = ro->memory ? ro->memory : cmd_default_memory(1);
		if ((code = run_one(ro, one, &e)) < 0)
			code = cmd_error(&e);
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
	ran = 1;
	if (session_run(s, ro->fes, ro->nfes, res, &e) < 0) {
		code = cmd_error(&e);
		if (e.code == EXIT_INTERRUPTED)
			fprintf(stderr, "ferry: results so far are in '%s'; run the same command to go on\n",
				ro->s.store);
		goto out;
	}
	runopts_print(ro, res);
	for (size_t i = 0; i < ro->nfes; i++)
		if (res[i].unavailable)
			cmd_warn("frontend '%s' is unavailable: %s", ro->fes[i].label, res[i].why);
out:
	if (ran)
		for (size_t i = 0; i < ro->nfes; i++)
			session_result_release(&res[i]);
	session_close(s);
	runopts_release(ro);
	err_release(&e);
	return code;
}

const struct cmd_entry cmd_run_entry = {
	.name = "run", .fn = cmd_run, .needs = CMD_NEEDS_NOTHING, .usage = usage, .opts = options,
	.summary = "run wrapped models through compiler frontends into a results store",
};
