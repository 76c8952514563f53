/* cmd-run.c: ferry run DIR --frontend NAME[,NAME...] -o STORE
 *
 * Feeds the wrapped models of DIR to compiler frontends, each test in one of ferry's watched worker
 * processes (oracle/runner.c), and records every result in the store as soon as it is known. The
 * oracles run in the worker: a crash in a stage (load, compile, execute), a message that means
 * "unsupported", or outputs that differ from the source library's reference. The same command run
 * again skips the tests that already have a result, so an interrupted or killed run resumes. */
#include <cjson/cJSON.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "db.h"
#include "fsutil.h"
#include "jsonl.h"
#include "progress.h"
#include "runner.h"
#include "strmap.h"
#include "wrapped.h"
#include "xalloc.h"

static const char usage[] =
	"usage: ferry run DIR --frontend NAME[,NAME...] -o STORE [options]\n"
	"\n"
	"Run the wrapped models of DIR (from ferry wrap) through compiler frontends and record each\n"
	"result in STORE (SQLite). Running the same command again resumes where it stopped.\n"
	"\n"
	"Frontends:\n"
	"  ort            ONNX Runtime, CPU, all graph optimizations (ONNX models)\n"
	"  NAME:LIBRARY   an adapter of your own, adapter_NAME.py, for models of LIBRARY, found in\n"
	"                 the directories of FERRY_ADAPTERS (colon-separated); see oracle/ferry_driver.py\n"
	"\n"
	"Options:\n"
	"  -F, --frontend LIST  frontends to run, comma-separated\n"
	"  -o, --output STORE   the results store to create or resume\n"
	"      --queue FILE     run in this order (a queue from ferry rank; ids not in it are not run)\n"
	"  -n, --limit N        run at most N tests per frontend this time\n"
	"  -j, --jobs N         worker processes (default: the number of cores)\n"
	"  -t, --timeout SECS   time one test may take (default 60)\n"
	"  -m, --memory SIZE    memory one worker may use, e.g. 4G (default: a share of the machine's)\n"
	"      --atol X         absolute tolerance of the value oracle (default 1e-3)\n"
	"      --rtol X         relative tolerance of the value oracle (default 1e-3)\n"
	"  -q, --quiet          no progress line\n";

struct frontend {
	const char *name;
	const char *library;  /* the models it takes */
	int owned;            /* name and library are allocated (an adapter of the user's) */
};

static const struct frontend frontends[] = {
	{ "ort", "onnx", 0 },
};

static const char *const outcomes[] = {
	"pass", "mismatch", "crash", "unsupported", "timeout", "oom", "error",
};
#define N_OUTCOMES (sizeof(outcomes) / sizeof(outcomes[0]))

struct run {
	struct db db;
	struct wrapped *tests;
	size_t ntests;
	size_t *order;          /* indexes into tests, in queue order */
	size_t norder;
	size_t cursor;
	const struct frontend *fe;
	long long run_id;
	double atol, rtol;
	long limit;
	size_t taken, already, skipped_invalid;
	size_t counts[N_OUTCOMES];
	size_t failed;
	struct progress progress;
};

static const struct frontend *find_frontend(const char *name)
{
	for (size_t i = 0; i < sizeof(frontends) / sizeof(frontends[0]); i++)
		if (!strcmp(frontends[i].name, name))
			return &frontends[i];
	return NULL;
}

static int next_job(void *ctx, struct runner_job *job, struct err *e)
{
	struct run *r = ctx;

	while (r->cursor < r->norder) {
		struct wrapped *t = &r->tests[r->order[r->cursor++]];
		cJSON *req;
		int has;

		if (strcmp(t->in.library, r->fe->library))
			continue;
		if (!t->valid) {
			r->skipped_invalid++;
			continue;
		}
		if ((has = db_has_result(&r->db, r->fe->name, t->in.id, e)) < 0)
			return -1;
		if (has) {
			r->already++;
			continue;
		}
		if (r->limit >= 0 && (long)r->taken >= r->limit)
			return 0;
		r->taken++;
		req = cJSON_CreateObject();
		cJSON_AddStringToObject(req, "task", "run");
		cJSON_AddStringToObject(req, "id", t->in.id);
		cJSON_AddStringToObject(req, "dir", t->dir);
		cJSON_AddBoolToObject(req, "random", t->random);
		cJSON_AddNumberToObject(req, "atol", r->atol);
		cJSON_AddNumberToObject(req, "rtol", r->rtol);
		job->key = xstrdup(t->in.id);
		job->request = cJSON_PrintUnformatted(req);
		cJSON_Delete(req);
		return 1;
	}
	return 0;
}

static const char *json_str(const cJSON *o, const char *key)
{
	const cJSON *v = o ? cJSON_GetObjectItemCaseSensitive(o, key) : NULL;

	return cJSON_IsString(v) ? v->valuestring : NULL;
}

static void count(struct run *r, const char *outcome)
{
	for (size_t i = 0; i < N_OUTCOMES; i++)
		if (!strcmp(outcomes[i], outcome)) {
			r->counts[i]++;
			break;
		}
	if (strcmp(outcome, "pass") && strcmp(outcome, "unsupported"))
		r->failed++;
}

static int job_done(void *ctx, const struct runner_job *job, const struct runner_outcome *o, struct err *e)
{
	struct run *r = ctx;
	struct db_result res;
	struct buf msg = BUF_INIT, sig = BUF_INIT;
	int ret;

	memset(&res, 0, sizeof(res));
	res.frontend = r->fe->name;
	res.id = job->key;
	res.run_id = r->run_id;
	res.stage = o->stage;
	res.max_abs = NAN;
	res.seconds = o->seconds;
	res.detail = o->stderr_text && *o->stderr_text ? o->stderr_text : NULL;
	switch (o->end) {
	case RUNNER_REPLY: {
		const cJSON *m = cJSON_GetObjectItemCaseSensitive(o->reply, "max_abs");
		const char *outcome = json_str(o->reply, "outcome");

		res.outcome = outcome ? outcome : "error";
		res.stage = json_str(o->reply, "stage") ? json_str(o->reply, "stage") : NULL;
		res.exc_type = json_str(o->reply, "exc_type");
		res.message = outcome ? json_str(o->reply, "message") : "the worker's result has no outcome";
		res.frame = json_str(o->reply, "frame");
		if (json_str(o->reply, "detail"))
			res.detail = json_str(o->reply, "detail");
		if (cJSON_IsNumber(m))
			res.max_abs = m->valuedouble;
		break;
	}
	case RUNNER_TIMEOUT:
		res.outcome = "timeout";
		buf_addf(&msg, "no result after %.0fs%s%s", o->seconds, o->stage ? " in stage " : "",
			 o->stage ? o->stage : "");
		res.message = msg.data;
		break;
	case RUNNER_OOM:
		res.outcome = "oom";
		buf_adds(&msg, "the worker passed the memory limit");
		res.message = msg.data;
		break;
	case RUNNER_DIED:
		res.outcome = "crash";
		buf_adds(&msg, "the worker ");
		proc_status_describe(&o->status, &msg);
		res.message = msg.data;
		if (o->status.signaled)
			buf_addf(&sig, "signal %d", o->status.sig);
		else
			buf_addf(&sig, "exit %d", o->status.code);
		res.exc_type = sig.data;
		break;
	}
	count(r, res.outcome);
	ret = db_put_result(&r->db, &res, e);
	buf_release(&msg);
	buf_release(&sig);
	progress_update(&r->progress, r->taken, r->failed);
	return ret;
}

static void tick(void *ctx)
{
	struct run *r = ctx;

	progress_update(&r->progress, r->progress.done, r->failed);
}

static void warn_line(const char *msg)
{
	cmd_warn("%s", msg);
}

/* The queue's ids, in order, as indexes into the wrapped tests; ids the wrap does not know are
 * reported and passed over. */
static int load_queue(struct run *r, const char *path, struct err *e)
{
	struct strmap index = STRMAP_INIT;
	struct jsonl_reader q;
	struct err bad = ERR_INIT;
	size_t cap = 0, unknown = 0;
	enum jsonl_status st;
	cJSON *j;
	int ret = -1;

	for (size_t i = 0; i < r->ntests; i++)
		strmap_get(&index, r->tests[i].in.id, NULL)->count = i;
	if (jsonl_open(&q, path, e) < 0)
		goto out;
	while ((st = jsonl_next_json(&q, &j, &bad)) != JSONL_END) {
		struct strmap_entry *t;
		const char *id;

		if (st == JSONL_FAIL) {
			*e = bad;
			goto out;
		}
		if (st == JSONL_BAD) {
			cmd_warn("%s", bad.msg);
			err_release(&bad);
			continue;
		}
		id = json_str(j, "id");
		if (!id)
			cmd_warn("%s:%zu: a queue line without an id", path, q.lineno);
		else if (!(t = strmap_find(&index, id)))
			unknown++;
		else {
			XGROW(r->order, cap, r->norder + 1);
			r->order[r->norder++] = t->count;
		}
		cJSON_Delete(j);
	}
	if (unknown)
		cmd_warn("%zu ids of the queue '%s' are not among the wrapped models", unknown, path);
	ret = 0;
out:
	jsonl_close(&q);
	strmap_release(&index);
	return ret;
}

static size_t results_now(const struct run *r)
{
	size_t n = 0;

	for (size_t i = 0; i < N_OUTCOMES; i++)
		n += r->counts[i];
	return n;
}

static void print_summary(const struct run *r, const char *version)
{
	printf("run %s%s%s%s:\n", r->fe->name, version ? " (" : "", version ? version : "", version ? ")" : "");
	printf("  ran now              %zu\n", r->taken);
	for (size_t i = 0; i < N_OUTCOMES; i++)
		if (r->counts[i])
			printf("    %-18s %zu\n", outcomes[i], r->counts[i]);
	printf("  already in the store %zu\n", r->already);
	printf("  invalid, not run     %zu\n", r->skipped_invalid);
}

/* How many tests the frontend still has to run, for the progress line's total. */
static size_t remaining(struct run *r)
{
	size_t n = 0;
	struct err ignored = ERR_INIT;

	for (size_t i = 0; i < r->norder; i++) {
		const struct wrapped *t = &r->tests[r->order[i]];

		if (t->valid && !strcmp(t->in.library, r->fe->library) &&
		    db_has_result(&r->db, r->fe->name, t->in.id, &ignored) == 0)
			n++;
	}
	err_release(&ignored);
	return r->limit >= 0 && (size_t)r->limit < n ? (size_t)r->limit : n;
}

static int run_frontend(struct run *r, const struct runner_opts *base, int quiet, const char *command, struct err *e)
{
	struct runner_opts ro = *base;
	struct runner_callbacks cb = { r, next_job, job_done, tick };
	const char *wargv[5];
	char *self = fs_self_exe(), *version = NULL, *label;
	int ret = -1;

	wargv[0] = self;
	wargv[1] = "worker";
	wargv[2] = "--run";
	wargv[3] = r->fe->name;
	wargv[4] = NULL;
	ro.argv = wargv;
	r->cursor = 0;
	r->taken = r->already = r->skipped_invalid = r->failed = 0;
	memset(r->counts, 0, sizeof(r->counts));
	if (db_start_run(&r->db, r->fe->name, NULL, command, &r->run_id, e) < 0)
		goto out;
	label = xasprintf("run %s", r->fe->name);
	progress_start(&r->progress, label, 0, quiet);
	r->progress.total = remaining(r);
	ret = runner_run(&ro, &cb, &version, e);
	if (ret == 0) {
		progress_finish(&r->progress);
		if (db_finish_run(&r->db, r->run_id, version, e) < 0)
			ret = -1;
		else
			print_summary(r, version);
	} else {
		progress_clear(&r->progress);
	}
	free(label);
out:
	free(version);
	free(self);
	return ret;
}

static int cmd_run(int argc, char **argv)
{
	enum { OPT_QUEUE = 256, OPT_ATOL, OPT_RTOL };
	static const struct option longopts[] = {
		{ "frontend", required_argument, NULL, 'F' },
		{ "output", required_argument, NULL, 'o' },
		{ "queue", required_argument, NULL, OPT_QUEUE },
		{ "limit", required_argument, NULL, 'n' },
		{ "jobs", required_argument, NULL, 'j' },
		{ "timeout", required_argument, NULL, 't' },
		{ "memory", required_argument, NULL, 'm' },
		{ "atol", required_argument, NULL, OPT_ATOL },
		{ "rtol", required_argument, NULL, OPT_RTOL },
		{ "quiet", no_argument, NULL, 'q' },
		{ NULL, 0, NULL, 0 },
	};
	struct run r;
	struct runner_opts ro;
	struct err e = ERR_INIT;
	const char *output = NULL, *queue = NULL, *list = NULL;
	struct frontend chosen[16];
	size_t nchosen = 0, bad = 0;
	unsigned long long mem;
	char *names = NULL, *tok, *save, *command = NULL;
	struct buf cmdline = BUF_INIT;
	int opt, quiet = 0, code = EXIT_OK, limit, unavailable = 0;

	memset(&r, 0, sizeof(r));
	memset(&ro, 0, sizeof(ro));
	r.atol = r.rtol = 1e-3;
	r.limit = -1;
	ro.jobs = cmd_default_jobs();
	ro.timeout = 60;
	ro.start_timeout = 300;
	ro.stderr_cap = 64 * 1024;
	ro.mem_limit = 0;
	mem = 0;
	while ((opt = getopt_long(argc, argv, "F:o:n:j:t:m:q", longopts, NULL)) != -1) {
		char *end;

		switch (opt) {
		case 'F': list = optarg; break;
		case 'o': output = optarg; break;
		case OPT_QUEUE: queue = optarg; break;
		case 'n':
			if (cmd_parse_int(optarg, 0, 1 << 30, &limit) < 0)
				return cmd_usage_error(&cmd_run_entry, "--limit takes a number");
			r.limit = limit;
			break;
		case 'j':
			if (cmd_parse_int(optarg, 1, 256, &ro.jobs) < 0)
				return cmd_usage_error(&cmd_run_entry, "--jobs takes a number from 1 to 256");
			break;
		case 't':
			if (cmd_parse_seconds(optarg, &ro.timeout) < 0)
				return cmd_usage_error(&cmd_run_entry, "--timeout takes a number of seconds");
			break;
		case 'm':
			if (cmd_parse_size(optarg, &mem) < 0 || mem == 0)
				return cmd_usage_error(&cmd_run_entry, "--memory takes a size such as 512M or 4G");
			break;
		case OPT_ATOL: case OPT_RTOL:
			*(opt == OPT_ATOL ? &r.atol : &r.rtol) = strtod(optarg, &end);
			if (*end || end == optarg || !(*(opt == OPT_ATOL ? &r.atol : &r.rtol) >= 0))
				return cmd_usage_error(&cmd_run_entry, "--atol and --rtol take a non-negative number");
			break;
		case 'q': quiet = 1; break;
		default: return cmd_usage_error(&cmd_run_entry, "bad option");
		}
	}
	if (optind + 1 != argc)
		return cmd_usage_error(&cmd_run_entry, "run takes one DIR (the output of ferry wrap)");
	if (!list)
		return cmd_usage_error(&cmd_run_entry, "no frontend: name one or more with --frontend (known: ort)");
	if (!output)
		return cmd_usage_error(&cmd_run_entry, "no output: say which store to write with -o");
	names = xstrdup(list);
	for (tok = strtok_r(names, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		char *colon = strchr(tok, ':');
		const struct frontend *f;

		if (colon)
			*colon = '\0';
		f = find_frontend(tok);
		if (nchosen == sizeof(chosen) / sizeof(chosen[0])) {
			code = cmd_usage_error(&cmd_run_entry, "at most %zu frontends in one run", nchosen);
			goto out;
		}
		if (f && colon && strcmp(colon + 1, f->library)) {
			code = cmd_usage_error(&cmd_run_entry, "frontend '%s' takes %s models, not %s", tok, f->library, colon + 1);
			goto out;
		}
		if (f) {
			chosen[nchosen] = *f;
		} else if (colon && *tok && colon[1]) {
			/* An adapter of the user's: FERRY_ADAPTERS names where adapter_NAME.py is. */
			chosen[nchosen].name = xstrdup(tok);
			chosen[nchosen].library = xstrdup(colon + 1);
			chosen[nchosen].owned = 1;
		} else {
			code = cmd_usage_error(&cmd_run_entry, "unknown frontend '%s' (known: ort; an adapter of your own is "
					       "NAME:LIBRARY, found through FERRY_ADAPTERS)", tok);
			goto out;
		}
		nchosen++;
	}
	ro.mem_limit = mem ? mem : cmd_default_memory(ro.jobs);
	for (int i = 0; i < argc; i++)
		buf_addf(&cmdline, "%s%s", i ? " " : "ferry ", argv[i]);
	command = buf_detach(&cmdline);

	if (wrapped_load(argv[optind], &r.tests, &r.ntests, &bad, warn_line, &e) < 0 ||
	    db_open(&r.db, output, 1, &e) < 0) {
		code = cmd_error(&e);
		goto out;
	}
	if (queue) {
		if (load_queue(&r, queue, &e) < 0) {
			code = cmd_error(&e);
			goto out;
		}
	} else {
		r.order = xcalloc(r.ntests, sizeof(*r.order));
		for (size_t i = 0; i < r.ntests; i++)
			r.order[i] = i;
		r.norder = r.ntests;
	}
	/* The store keeps the instances themselves, so that reports and reproducers need nothing else. */
	if (db_begin(&r.db, &e) < 0)
		goto dberr;
	for (size_t i = 0; i < r.ntests; i++) {
		const struct wrapped *t = &r.tests[i];

		if (db_put_instance(&r.db, &t->in, t->line, t->valid ? "ok" : "invalid", t->reason, t->random,
				    t->dir, &e) < 0)
			goto dberr;
	}
	if (db_commit(&r.db, &e) < 0)
		goto dberr;

	for (size_t i = 0; i < nchosen; i++) {
		r.fe = &chosen[i];
		if (!r.limit) {
			print_summary(&r, NULL);
			continue;
		}
		if (run_frontend(&r, &ro, quiet, command, &e) == 0)
			continue;
		if (e.code != EXIT_ENV || results_now(&r) > 0) {
			code = cmd_error(&e);
			if (e.code == EXIT_INTERRUPTED)
				fprintf(stderr, "ferry: results so far are in '%s'; run the same command to go on\n", output);
			goto out;
		}
		/* The worker could not start: the frontend's package is missing or broken. */
		err_prefix(&e, "frontend '%s' is unavailable", r.fe->name);
		cmd_error(&e);
		err_release(&e);
		unavailable++;
	}
	if (unavailable && (size_t)unavailable == nchosen)
		code = EXIT_ENV;
	goto out;
dberr:
	code = cmd_error(&e);
out:
	db_close(&r.db);
	wrapped_free(r.tests, r.ntests);
	free(r.order);
	free(command);
	free(names);
	for (size_t i = 0; i < nchosen; i++)
		if (chosen[i].owned) {
			free((char *)chosen[i].name);
			free((char *)chosen[i].library);
		}
	err_release(&e);
	return code;
}

const struct cmd_entry cmd_run_entry = {
	"run", cmd_run, CMD_NEEDS_NOTHING, usage,
	"run wrapped models through compiler frontends into a results store",
};
