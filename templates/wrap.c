/* wrap.c: the wrap engine (wrap.h): the corpora read, instances handed to workers running the
 * templates, and each outcome appended to DIR/wrapped.jsonl. */
#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fsutil.h"
#include "protocol.h"
#include "runner.h"
#include "wrap.h"
#include "wrapped.h"
#include "xalloc.h"

/* An instance handed to a worker and not yet done. */
struct pending {
	char *line;      /* the record as written, without the annotation */
	const char *corpus;  /* where it stands: one of the options' corpora (borrowed), */
	size_t lineno;       /* and its line */
	char *op;
};


/* DIR and its wrapped.jsonl are made when the first instance is about to be wrapped, not before: a
 * wrap that fails on its corpus (missing, empty, junk) leaves nothing behind. */
static int open_output(struct wrap *w, struct err *e)
{
	char *tests = xasprintf("%s/tests", w->o->dir);
	int r = fs_mkdirs(tests, e);

	free(tests);
	if (r < 0)
		return -1;
	if (!(w->out = fopen(w->out_path, "a")))
		return err_errno(e, EXIT_ENV, "cannot open '%s'", w->out_path);
	return 0;
}

/* The record the template gets: the corpus line, with the wrap options the template reads
 * ("wrap_options", which it takes out again) where they are not the defaults. The line written to
 * wrapped.jsonl stays the corpus's own. 1, or 0 where the line does not parse back. */
static int add_record(cJSON *req, const char *line, const char *weights)
{
	cJSON *rec, *opts;
	char *text;

	if (!weights || !strcmp(weights, "constant")) {
		cJSON_AddStringToObject(req, PROTO_KEY_RECORD, line);
		return 1;
	}
	if (!(rec = cJSON_Parse(line)) || !cJSON_IsObject(rec)) {
		cJSON_Delete(rec);
		return 0;
	}
	cJSON_DeleteItemFromObjectCaseSensitive(rec, "wrap_options");
	opts = cJSON_AddObjectToObject(rec, "wrap_options");
	cJSON_AddStringToObject(opts, "weights", weights);
	text = cJSON_PrintUnformatted(rec);
	cJSON_AddStringToObject(req, PROTO_KEY_RECORD, text);
	cJSON_free(text);
	cJSON_Delete(rec);
	return 1;
}

static int next_job(void *ctx, struct runner_job *job, struct err *e)
{
	struct wrap *w = ctx;
	struct instance in;
	struct err bad = ERR_INIT;

	for (;;) {
		enum jsonl_status st = jsonl_next(&w->corpus, &in, &bad);
		struct pending *p;
		struct buf b = BUF_INIT;
		char *dir;
		cJSON *req;
		int created;

		if (st == JSONL_END) {
			/* The next corpus, as if the files were one. */
			if (w->current + 1 == w->o->ncorpora)
				return 0;
			jsonl_close(&w->corpus);
			if (jsonl_open(&w->corpus, w->o->corpora[++w->current], e) < 0)
				return -1;
			continue;
		}
		if (st == JSONL_FAIL) {
			*e = bad;
			return -1;
		}
		if (st == JSONL_BAD) {
			if (w->o->warn)
				w->o->warn(w->o->ctx, bad.msg);
			err_release(&bad);
			w->bad_lines++;
			continue;
		}
		if ((w->o->only && !strmap_find(w->o->only, in.id)) ||
		    (select_any(w->o->select) && !select_instance(w->o->select, &in))) {
			w->left_out++;
			record_release(&in);
			continue;
		}
		strmap_get(&w->done, in.id, &created);
		if (!created) {
			/* Wrapped by an earlier run, or a duplicate line of a corpus (or of another: the
			 * same usage harvested and derived as a variant is one test). */
			w->resumed++;
			record_release(&in);
			continue;
		}
		if (!w->out && open_output(w, e) < 0) {
			record_release(&in);
			return -1;
		}
		/* A corpus that is itself a wrap's output carries an old annotation: drop it. */
		if (in.extra) {
			cJSON_DeleteItemFromObjectCaseSensitive(in.extra, "wrap");
			/* Options are ferry wrap's to give (add_record), never a corpus line's. */
			cJSON_DeleteItemFromObjectCaseSensitive(in.extra, "wrap_options");
		}
		record_write(&in, &b);
		dir = wrapped_test_dir(w->o->dir, in.id);
		req = cJSON_CreateObject();
		cJSON_AddStringToObject(req, PROTO_KEY_TASK, PROTO_TASK_WRAP);
		cJSON_AddStringToObject(req, PROTO_KEY_ID, in.id);
		cJSON_AddStringToObject(req, PROTO_KEY_LIBRARY, in.library);
		if (!add_record(req, b.data, w->o->weights)) {
			cJSON_Delete(req);
			buf_release(&b);
			free(dir);
			record_release(&in);
			return err_set(e, EXIT_INPUT, "%s:%zu: the record cannot be read back",
				       w->o->corpora[w->current], w->corpus.lineno);
		}
		cJSON_AddStringToObject(req, PROTO_KEY_DIR, dir);
		job->key = xstrdup(in.id);
		job->request = cJSON_PrintUnformatted(req);
		cJSON_Delete(req);
		free(dir);

		p = xcalloc(1, sizeof(*p));
		p->line = buf_detach(&b);
		p->corpus = w->o->corpora[w->current];
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
		const cJSON *s = cJSON_GetObjectItemCaseSensitive(o->reply, PROTO_KEY_STATUS);
		const cJSON *r = cJSON_GetObjectItemCaseSensitive(o->reply, PROTO_KEY_REASON);
		const cJSON *rnd = cJSON_GetObjectItemCaseSensitive(o->reply, PROTO_KEY_RANDOM);
		const cJSON *undef = cJSON_GetObjectItemCaseSensitive(o->reply, PROTO_KEY_UNDEFINED);
		const cJSON *values = cJSON_GetObjectItemCaseSensitive(o->reply, PROTO_KEY_UNDEFINED_VALUES);

		cJSON_AddStringToObject(a, "status", cJSON_IsString(s) ? s->valuestring : "invalid");
		if (cJSON_IsString(r))
			cJSON_AddStringToObject(a, "reason", r->valuestring);
		else if (!cJSON_IsString(s))
			cJSON_AddStringToObject(a, "reason", "the template gave no status");
		cJSON_AddBoolToObject(a, "random", cJSON_IsTrue(rnd));
		if (cJSON_IsString(undef))
			cJSON_AddStringToObject(a, "undefined", undef->valuestring);
		if (cJSON_IsString(undef) && cJSON_IsTrue(values))
			cJSON_AddTrueToObject(a, "undefined_values");
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
	struct wrap *w = ctx;
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
	a = annotation(o, w->o->timeout);
	dir = wrapped_test_dir(w->o->dir, job->key);
	cJSON_AddStringToObject(a, "dir", dir + strlen(w->o->dir) + 1);
	free(dir);
	status = cJSON_GetObjectItemCaseSensitive(a, "status");
	reason = cJSON_GetObjectItemCaseSensitive(a, "reason");
	if (!strcmp(status->valuestring, "ok")) {
		w->ok++;
		w->random += cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(a, "random"));
	} else {
		const char *why = cJSON_IsString(reason) ? reason->valuestring : "?";
		char *first = xasprintf("%.*s", (int)strcspn(why, "\n"), why);

		w->invalid++;
		/* Counted by the first line: Keras's long comparisons and tracebacks differ below it. */
		strmap_get(&w->reasons, first, NULL)->count++;
		free(first);
		if (w->o->invalid)
			w->o->invalid(w->o->ctx, p->corpus, p->lineno, p->op, why);
	}
	/* The record line ends with '}': the annotation goes in just before it. */
	text = cJSON_PrintUnformatted(a);
	n = strlen(p->line);
	if (fprintf(w->out, "%.*s,\"wrap\":%s}\n", (int)(n - 1), p->line, text) < 0 || fflush(w->out) != 0)
		r = err_errno(e, EXIT_ENV, "cannot write '%s'", w->out_path);
	cJSON_free(text);
	cJSON_Delete(a);
	pending_free(p);
	if (w->o->progress)
		w->o->progress(w->o->ctx, w->ok + w->invalid, w->invalid);
	return r;
}

static void tick(void *ctx)
{
	struct wrap *w = ctx;

	if (w->o->progress)
		w->o->progress(w->o->ctx, w->ok + w->invalid, w->invalid);
}

int wrap_open(struct wrap *w, const struct wrap_opts *o, struct err *e)
{
	memset(w, 0, sizeof(*w));
	w->o = o;
	if (!o->ncorpora)
		return err_set(e, EXIT_USAGE, "no corpus to wrap");
	for (size_t k = 0; k < o->ncorpora; k++)
		if (fs_input_file(o->corpora[k], e) < 0)
			return -1;
	if (jsonl_open(&w->corpus, o->corpora[0], e) < 0)
		return -1;
	if (fs_exists(o->dir) && !fs_is_dir(o->dir))
		return err_set(e, EXIT_INPUT, "cannot write into '%s': it is not a directory", o->dir);
	w->out_path = xasprintf("%s/%s", o->dir, WRAPPED_FILE);
	return wrapped_done_ids(w->out_path, &w->done, e);
}

int wrap_run(struct wrap *w, struct err *e)
{
	struct runner_opts ro;
	struct runner_callbacks cb = { w, next_job, job_done, tick, NULL };
	const char *wargv[4];
	char *self = fs_self_exe();
	int r = -1;

	memset(&ro, 0, sizeof(ro));
	wargv[0] = self;
	wargv[1] = "worker";
	wargv[2] = "--wrap";
	wargv[3] = NULL;
	ro.argv = wargv;
	ro.jobs = w->o->jobs;
	ro.timeout = w->o->timeout;
	ro.start_timeout = 300;
	ro.mem_limit = w->o->mem_limit;
	ro.stderr_cap = 64 * 1024;
	if (runner_run(&ro, &cb, NULL, e) < 0)
		goto out;
	if (!w->out && !w->resumed) {
		if (w->left_out && !w->bad_lines && !w->o->only)
			err_set(e, EXIT_INPUT, "--op/--test select none of the %zu instances of %s'%s'", w->left_out,
				w->o->ncorpora > 1 ? "the corpora, such as " : "", w->o->corpora[0]);
		else if (w->left_out && w->o->only)
			r = 0;  /* ferry go's sample: nothing of it left to wrap */
		else if (w->o->ncorpora == 1)
			err_set(e, EXIT_INPUT, "'%s' holds no instance records%s", w->o->corpora[0],
				w->bad_lines ? " (every line is bad)" : "");
		else
			err_set(e, EXIT_INPUT, "none of the %zu corpora holds an instance record%s", w->o->ncorpora,
				w->bad_lines ? " (every line is bad)" : "");
		goto out;
	}
	r = 0;
out:
	free(self);
	return r;
}

void wrap_release(struct wrap *w)
{
	if (w->out)
		fclose(w->out);
	for (size_t i = 0; i < w->pending.cap; i++)
		if (w->pending.slots[i].key)
			pending_free(w->pending.slots[i].ptr);
	strmap_release(&w->pending);
	strmap_release(&w->done);
	strmap_release(&w->reasons);
	jsonl_close(&w->corpus);
	free(w->out_path);
	memset(w, 0, sizeof(*w));
}
