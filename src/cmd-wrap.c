/* cmd-wrap.c: ferry wrap CORPUS -o DIR
 *
 * Turns each instance of a corpus into a single-operator model with its inputs and the reference
 * outputs that the source library computes (templates/LIBRARY.py). The templates run in
 * ferry's workers, like the frontends, since a library can crash or hang on an odd usage too.
 * An instance the library itself rejects is marked invalid, with the library's reason, and never
 * reaches a compiler. DIR gets one directory per instance under tests/, and DIR/wrapped.jsonl: the
 * records, each annotated with "wrap": {"status", "reason", "random", "dir"}, appended as each one is
 * done, so running the command again picks up where an interrupted one stopped. */
#include <cjson/cJSON.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "esc.h"
#include "fsutil.h"
#include "jsonl.h"
#include "progress.h"
#include "runner.h"
#include "strmap.h"
#include "xalloc.h"
#include "wrapped.h"

static const char usage[] =
	"usage: ferry wrap CORPUS -o DIR [options]\n"
	"\n"
	"Make a single-operator model, inputs and reference outputs for every instance of CORPUS.\n"
	"Writes DIR/tests/ and DIR/wrapped.jsonl; an interrupted wrap resumes when run again.\n"
	"\n"
	"Options:\n"
	"  -o, --output DIR     where the models go\n"
	"  -j, --jobs N         worker processes (default: the number of cores)\n"
	"  -t, --timeout SECS   time one instance may take (default 60)\n"
	"  -q, --quiet          no progress line\n";

/* An instance handed to a worker and not yet done. */
struct pending {
	char *line;      /* the record as written, without the annotation */
	size_t lineno;   /* where it stands in the corpus */
	char *op;
};

struct wrap {
	struct jsonl_reader corpus;
	const char *dir;
	FILE *out;
	char *out_path;
	struct strmap done;      /* ids already in wrapped.jsonl, or taken from the corpus this time */
	struct strmap pending;   /* id -> struct pending */
	struct strmap reasons;   /* invalid reason -> count */
	size_t total, resumed, ok, invalid, random, bad_lines, shown;
	struct progress progress;
};

#define SHOW_INVALID 20

struct wrap_ctx {
	struct wrap *w;
	double timeout;
};

/* DIR and its wrapped.jsonl are made when the first instance is about to be wrapped, not before: a
 * wrap that fails on its corpus (missing, empty, junk) leaves nothing behind. */
static int open_output(struct wrap *w, struct err *e)
{
	char *tests = xasprintf("%s/tests", w->dir);
	int r = fs_mkdirs(tests, e);

	free(tests);
	if (r < 0)
		return -1;
	if (!(w->out = fopen(w->out_path, "a")))
		return err_errno(e, EXIT_ENV, "cannot open '%s'", w->out_path);
	return 0;
}

static int next_job(void *ctx, struct runner_job *job, struct err *e)
{
	struct wrap *w = ((struct wrap_ctx *)ctx)->w;
	struct instance in;
	struct err bad = ERR_INIT;

	for (;;) {
		enum jsonl_status st = jsonl_next(&w->corpus, &in, &bad);
		struct pending *p;
		struct buf b = BUF_INIT;
		char *dir;
		cJSON *req;
		int created;

		if (st == JSONL_END)
			return 0;
		if (st == JSONL_FAIL) {
			*e = bad;
			return -1;
		}
		if (st == JSONL_BAD) {
			progress_clear(&w->progress);
			cmd_warn("%s", bad.msg);
			err_release(&bad);
			w->bad_lines++;
			continue;
		}
		strmap_get(&w->done, in.id, &created);
		if (!created) {
			/* Wrapped by an earlier run, or a duplicate line of the corpus. */
			w->resumed++;
			record_release(&in);
			continue;
		}
		if (!w->out && open_output(w, e) < 0) {
			record_release(&in);
			return -1;
		}
		/* A corpus that is itself a wrap's output carries an old annotation: drop it. */
		if (in.extra)
			cJSON_DeleteItemFromObjectCaseSensitive(in.extra, "wrap");
		record_write(&in, &b);
		dir = wrapped_test_dir(w->dir, in.id);
		req = cJSON_CreateObject();
		cJSON_AddStringToObject(req, "task", "wrap");
		cJSON_AddStringToObject(req, "id", in.id);
		cJSON_AddStringToObject(req, "library", in.library);
		cJSON_AddStringToObject(req, "record", b.data);
		cJSON_AddStringToObject(req, "dir", dir);
		job->key = xstrdup(in.id);
		job->request = cJSON_PrintUnformatted(req);
		cJSON_Delete(req);
		free(dir);

		p = xcalloc(1, sizeof(*p));
		p->line = buf_detach(&b);
		p->lineno = w->corpus.lineno;
		p->op = xstrdup(in.op);
		strmap_get(&w->pending, in.id, NULL)->ptr = p;
		record_release(&in);
		return 1;
	}
}

static void pending_free(struct pending *p)
{
	if (!p)
		return;
	free(p->line);
	free(p->op);
	free(p);
}

/* What became of the instance, from the worker's reply or the way the worker ended. */
static cJSON *annotation(const struct runner_outcome *o, double timeout)
{
	cJSON *a = cJSON_CreateObject();
	struct buf why = BUF_INIT;

	if (o->end == RUNNER_REPLY) {
		const cJSON *s = cJSON_GetObjectItemCaseSensitive(o->reply, "status");
		const cJSON *r = cJSON_GetObjectItemCaseSensitive(o->reply, "reason");
		const cJSON *rnd = cJSON_GetObjectItemCaseSensitive(o->reply, "random");

		cJSON_AddStringToObject(a, "status", cJSON_IsString(s) ? s->valuestring : "invalid");
		if (cJSON_IsString(r))
			cJSON_AddStringToObject(a, "reason", r->valuestring);
		else if (!cJSON_IsString(s))
			cJSON_AddStringToObject(a, "reason", "the template gave no status");
		cJSON_AddBoolToObject(a, "random", cJSON_IsTrue(rnd));
		if (cJSON_IsString(cJSON_GetObjectItemCaseSensitive(o->reply, "undefined")))
			cJSON_AddStringToObject(a, "undefined",
						cJSON_GetObjectItemCaseSensitive(o->reply, "undefined")->valuestring);
		return a;
	}
	cJSON_AddStringToObject(a, "status", "invalid");
	switch (o->end) {
	case RUNNER_TIMEOUT:
		buf_addf(&why, "the library took longer than %gs to build the model and its reference", timeout);
		break;
	case RUNNER_OOM:
		buf_adds(&why, "the library passed the memory limit building the model and its reference");
		break;
	default:
		buf_adds(&why, "the library crashed building the model and its reference: ");
		proc_status_describe(&o->status, &why);
		break;
	}
	cJSON_AddStringToObject(a, "reason", why.data);
	cJSON_AddBoolToObject(a, "random", 0);
	buf_release(&why);
	return a;
}

static int job_done(void *ctx, const struct runner_job *job, const struct runner_outcome *o, struct err *e)
{
	struct wrap_ctx *c = ctx;
	struct wrap *w = c->w;
	struct strmap_entry *pe = strmap_find(&w->pending, job->key);
	struct pending *p = pe ? pe->ptr : NULL;
	cJSON *a;
	const cJSON *status, *reason;
	char *text, *dir;
	size_t n;
	int r = 0;

	if (!p)
		return 0;
	pe->ptr = NULL;
	a = annotation(o, c->timeout);
	dir = wrapped_test_dir(w->dir, job->key);
	cJSON_AddStringToObject(a, "dir", dir + strlen(w->dir) + 1);
	free(dir);
	status = cJSON_GetObjectItemCaseSensitive(a, "status");
	reason = cJSON_GetObjectItemCaseSensitive(a, "reason");
	if (!strcmp(status->valuestring, "ok")) {
		w->ok++;
		w->random += cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(a, "random"));
	} else {
		const char *why = cJSON_IsString(reason) ? reason->valuestring : "?";

		w->invalid++;
		strmap_get(&w->reasons, why, NULL)->count++;
		if (w->shown++ < SHOW_INVALID) {
			progress_clear(&w->progress);
			cmd_warn("%s:%zu: %s is invalid: %s", w->corpus.path, p->lineno, p->op, why);
		}
	}
	/* The record line ends with '}': the annotation goes in just before it. */
	text = cJSON_PrintUnformatted(a);
	n = strlen(p->line);
	if (fprintf(w->out, "%.*s,\"wrap\":%s}\n", (int)(n - 1), p->line, text) < 0 || fflush(w->out) != 0)
		r = err_errno(e, EXIT_ENV, "cannot write '%s'", w->out_path);
	cJSON_free(text);
	cJSON_Delete(a);
	pending_free(p);
	progress_update(&w->progress, w->ok + w->invalid, w->invalid);
	return r;
}

static void tick(void *ctx)
{
	struct wrap_ctx *c = ctx;

	progress_update(&c->w->progress, c->w->ok + c->w->invalid, c->w->invalid);
}

static void print_summary(const struct wrap *w)
{
	struct strmap_entry **v = strmap_sorted(&w->reasons);

	printf("wrap %s -> %s:\n", esc_str(w->corpus.path), esc_str(w->dir));
	printf("  wrapped now          %zu\n", w->ok + w->invalid);
	printf("    valid              %zu\n", w->ok);
	printf("    random outputs     %zu\n", w->random);
	printf("    invalid            %zu\n", w->invalid);
	for (size_t i = 0; v[i] && i < 10; i++)
		printf("      %6zu  %s\n", v[i]->count, esc_str(v[i]->key));  /* the library's words */
	if (w->reasons.len > 10)
		printf("      (%zu more reasons)\n", w->reasons.len - 10);
	printf("  already wrapped      %zu\n", w->resumed);
	if (w->bad_lines)
		printf("  bad corpus lines     %zu\n", w->bad_lines);
	free(v);
}

static int cmd_wrap(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "jobs", required_argument, NULL, 'j' },
		{ "timeout", required_argument, NULL, 't' },
		{ "quiet", no_argument, NULL, 'q' },
		{ NULL, 0, NULL, 0 },
	};
	struct wrap w;
	struct wrap_ctx ctx;
	struct runner_opts ro;
	struct runner_callbacks cb = { NULL, next_job, job_done, tick };
	struct err e = ERR_INIT;
	const char *output = NULL;
	char *self = NULL;
	const char *wargv[4];
	int opt, quiet = 0, code = EXIT_OK;

	memset(&w, 0, sizeof(w));
	memset(&ro, 0, sizeof(ro));
	ro.jobs = cmd_default_jobs();
	ro.timeout = 60;
	while ((opt = getopt_long(argc, argv, "o:j:t:q", longopts, NULL)) != -1) {
		switch (opt) {
		case 'o': output = optarg; break;
		case 'j': if (cmd_parse_int(optarg, 1, 256, &ro.jobs) < 0) return cmd_usage_error(&cmd_wrap_entry, "--jobs takes a number from 1 to 256"); break;
		case 't': if (cmd_parse_seconds(optarg, &ro.timeout) < 0) return cmd_usage_error(&cmd_wrap_entry, "--timeout takes a number of seconds"); break;
		case 'q': quiet = 1; break;
		default: return cmd_usage_error(&cmd_wrap_entry, "bad option");
		}
	}
	if (optind + 1 != argc)
		return cmd_usage_error(&cmd_wrap_entry, "wrap takes one CORPUS");
	if (!output)
		return cmd_usage_error(&cmd_wrap_entry, "no output: say where the models go with -o DIR");

	w.dir = output;
	if (fs_input_file(argv[optind], &e) < 0 || jsonl_open(&w.corpus, argv[optind], &e) < 0) {
		code = cmd_error(&e);
		goto out;
	}
	if (fs_exists(output) && !fs_is_dir(output)) {
		err_set(&e, EXIT_INPUT, "cannot write into '%s': it is not a directory", output);
		code = cmd_error(&e);
		goto out;
	}
	w.out_path = xasprintf("%s/%s", output, WRAPPED_FILE);
	if (wrapped_done_ids(w.out_path, &w.done, &e) < 0) {
		code = cmd_error(&e);
		goto out;
	}

	self = fs_self_exe();
	wargv[0] = self;
	wargv[1] = "worker";
	wargv[2] = "--wrap";
	wargv[3] = NULL;
	ro.argv = wargv;
	ro.start_timeout = 300;
	ro.mem_limit = cmd_default_memory(ro.jobs);
	ro.stderr_cap = 64 * 1024;
	ctx.w = &w;
	ctx.timeout = ro.timeout;
	cb.ctx = &ctx;
	progress_start(&w.progress, "wrap", 0, quiet);
	if (runner_run(&ro, &cb, NULL, &e) < 0) {
		progress_clear(&w.progress);
		code = cmd_error(&e);
		if (e.code == EXIT_INTERRUPTED)
			fprintf(stderr, "ferry: %zu instances wrapped are kept; run the same command to go on\n",
				w.ok + w.invalid);
		goto out;
	}
	progress_finish(&w.progress);
	if (!w.out && !w.resumed) {
		err_set(&e, EXIT_INPUT, "'%s' holds no instance records%s", argv[optind],
			w.bad_lines ? " (every line is bad)" : "");
		code = cmd_error(&e);
		goto out;
	}
	print_summary(&w);
out:
	if (w.out)
		fclose(w.out);
	for (size_t i = 0; i < w.pending.cap; i++)
		if (w.pending.slots[i].key)
			pending_free(w.pending.slots[i].ptr);
	strmap_release(&w.pending);
	strmap_release(&w.done);
	strmap_release(&w.reasons);
	jsonl_close(&w.corpus);
	free(w.out_path);
	free(self);
	err_release(&e);
	return code;
}

const struct cmd_entry cmd_wrap_entry = {
	"wrap", cmd_wrap, CMD_NEEDS_NOTHING, usage,
	"make a model, inputs and reference outputs for every instance",
};
