/* wrap.c: the wrap engine (wrap.h): the corpora read, instances handed to workers running the
 * templates, and each outcome appended to DIR/wrapped.jsonl. */
#include <cjson/cJSON.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/statvfs.h>
#include <unistd.h>

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

/* With a queue: where an id's record is, to read it again when the queue reaches it. */
struct wrap_place {
	size_t corpus;   /* index into o->corpora */
	long offset;     /* of the line (or of blank lines before it) */
	size_t lineno;   /* the reader's line count before it */
};


/* Take DIR's lock (DIR exists). */
static int lock_dir(struct wrap *w, struct err *e)
{
	char *path = xasprintf("%s.lock", w->out_path);
	int r = lock_file(&w->lock, path, w->o->dir, "directory", w->o->command, e);

	free(path);
	return r;
}

/* Open wrapped.jsonl to append to, holding DIR's lock: a torn last line is cut off, and said. */
static int open_appender(struct wrap *w, struct err *e)
{
	size_t cut = 0;

	/* Nor is wrapped.jsonl appended to through a link planted in its place. */
	if (jsonl_append_open(&w->out, w->out_path, JSONL_NOFOLLOW, &cut, e) < 0)
		return -1;
	w->cut += cut;
	if (cut && w->o->warn) {
		char *msg = xasprintf("'%s': cut a torn last line of %zu bytes (a wrap stopped while writing it; "
				      "its instance is wrapped again)", w->out_path, cut);

		w->o->warn(w->o->ctx, msg);
		free(msg);
	}
	return 0;
}

/* DIR and its wrapped.jsonl are made when the first instance is about to be wrapped, not before: a
 * wrap that fails on its corpus (missing, empty, junk) leaves nothing behind. A DIR made now is
 * locked now; another wrap may have written into it since wrap_open read it, so what it holds is
 * read again. */
static int open_output(struct wrap *w, struct err *e)
{
	char *tests = xasprintf("%s/tests", w->o->dir);
	int fd = fs_dir_beneath(tests, 1, 1, e), late = w->lock.fd < 0;  /* DIR is the user's, tests/ ferry's */

	free(tests);
	if (fd < 0)
		return -1;
	close(fd);
	if ((late && lock_dir(w, e) < 0) || open_appender(w, e) < 0)
		return -1;
	return late ? wrapped_done_ids(w->out_path, &w->done, e) : 0;
}

/* Whether the file system that holds DIR is full (or out of inodes): a template failing then may
 * have failed for want of space, whatever it said (PyTorch's writer says "unexpected pos", and its
 * TorchScript writer aborts). A margin of 1 MiB, since the write that failed needed more than was
 * left; root may use the blocks reserved for it, so they count for root. */
static int dir_full(const char *dir)
{
	struct statvfs st;
	int root = geteuid() == 0;
	unsigned long long blocks, inodes;

	if (statvfs(dir, &st) < 0)
		return 0;
	blocks = root ? st.f_bfree : st.f_bavail;
	inodes = root ? st.f_ffree : st.f_favail;
	return blocks * st.f_frsize < (1ULL << 20) || (st.f_files && !inodes);
}

/* The formats the requested frontends read of a library's models, as the JSON list the template
 * takes (new), or NULL for all of them: no formats given, or a frontend whose format is computed.
 * *none is set where no requested frontend takes the library at all. */
static cJSON *formats_for(const struct wrap_opts *o, const char *library, int *none)
{
	cJSON *list;
	size_t j;

	*none = 0;
	if (!o->formats)
		return NULL;
	list = cJSON_CreateArray();
	for (size_t k = 0; k < o->nformats; k++) {
		if (strcmp(o->formats[k].library, library))
			continue;
		if (!*o->formats[k].format) {
			cJSON_Delete(list);
			return NULL;
		}
		for (j = 0; j < k; j++)  /* two frontends of one format (pt2): named once */
			if (!strcmp(o->formats[j].library, library) &&
			    !strcmp(o->formats[j].format, o->formats[k].format))
				break;
		if (j == k)
			cJSON_AddItemToArray(list, cJSON_CreateString(o->formats[k].format));
	}
	if (!cJSON_GetArraySize(list)) {
		cJSON_Delete(list);
		*none = 1;
		return NULL;
	}
	return list;
}

/* The record the template gets: the corpus line, with the wrap options the template reads
 * ("wrap_options", which it takes out again) where they are not the defaults: the weights, and the
 * formats to make (formats, taken over; NULL: all). The options are put into the line as text, not by
 * parsing and printing it again: cJSON prints a double in 15 digits wherever that comes within an
 * epsilon of it, so the template would build its tensors of kept values from other numbers (one ulp
 * off) than a wrap without options. The line written to wrapped.jsonl stays the corpus's own. */
static void add_record(cJSON *req, const char *line, const char *weights, cJSON *formats)
{
	cJSON *opts;
	char *text, *with;
	size_t n = strlen(line);
	int input = weights && strcmp(weights, "constant");

	if (!input && !formats) {
		cJSON_AddStringToObject(req, PROTO_KEY_RECORD, line);
		return;
	}
	opts = cJSON_CreateObject();
	if (input)
		cJSON_AddStringToObject(opts, "weights", weights);
	if (formats)
		cJSON_AddItemToObject(opts, "formats", formats);
	text = cJSON_PrintUnformatted(opts);
	/* record_write's line is an object with fields: it ends with '}', and the options go before it. */
	with = xasprintf("%.*s,\"wrap_options\":%s}", (int)(n - 1), line, text);
	cJSON_AddStringToObject(req, PROTO_KEY_RECORD, with);
	free(with);
	cJSON_free(text);
	cJSON_Delete(opts);
}

/* A line that is not JSON_OK nor the end: -1 with e filled on a read failure, 0 for a bad line
 * (reported through o->warn and counted in *nbad). */
static int bad_line(struct wrap *w, enum jsonl_status st, struct err *bad, size_t *nbad, struct err *e)
{
	if (st == JSONL_FAIL) {
		*e = *bad;
		return -1;
	}
	if (w->o->warn)
		w->o->warn(w->o->ctx, bad->msg);
	err_release(bad);
	(*nbad)++;
	return 0;
}

/* The next record of the corpora, read one after the other as if the files were one: 1 with *in
 * filled and *k its corpus, 0 at the end, -1 on a read error. Bad lines are reported and counted. */
static int next_in_corpora(struct wrap *w, struct instance *in, size_t *k, struct err *e)
{
	struct err bad = ERR_INIT;

	for (;;) {
		enum jsonl_status st = jsonl_next(&w->corpus[w->current], in, &bad);

		if (st == JSONL_END) {
			if (w->current + 1 == w->o->ncorpora)
				return 0;
			w->current++;
			continue;
		}
		if (st != JSONL_OK) {
			if (bad_line(w, st, &bad, &w->bad_lines, e) < 0)
				return -1;
			continue;
		}
		*k = w->current;
		return 1;
	}
}

/* With a queue: read the corpora through once, noting where each id's record is (its first line,
 * as without a queue an id met again is wrapped once). */
static int index_corpora(struct wrap *w, struct err *e)
{
	for (;;) {
		struct jsonl_reader *r = &w->corpus[w->current];
		struct wrap_place at = { w->current, ftell(r->fp), r->lineno };
		struct instance in;
		struct strmap_entry *ent;
		size_t k;
		int created, got;

		if (at.offset < 0)
			return err_errno(e, EXIT_INPUT, "cannot read '%s' in the queue's order", r->path);
		if ((got = next_in_corpora(w, &in, &k, e)) <= 0)
			return got;
		if (k != at.corpus) {
			/* The record is the first of the next corpus: its place is that reader's start. */
			at.corpus = k;
			at.offset = 0;
			at.lineno = 0;
		}
		ent = strmap_get(&w->index, in.id, &created);
		if (created) {
			ent->ptr = xmalloc(sizeof(at));
			memcpy(ent->ptr, &at, sizeof(at));
		}
		record_release(&in);
	}
}

/* The next record in the queue's order: 1 with *in filled and *k its corpus, 0 at the end of the
 * queue (or of its first o->limit lines), -1 on a read error. */
static int next_in_queue(struct wrap *w, struct instance *in, size_t *k, struct err *e)
{
	struct err bad = ERR_INIT;

	while (!w->o->limit || w->queued < w->o->limit) {
		cJSON *j = NULL;
		enum jsonl_status st = jsonl_next_json(&w->queue, &j, &bad);
		const struct wrap_place *at;
		struct strmap_entry *ent;
		struct jsonl_reader *r;
		const cJSON *id;

		if (st == JSONL_END)
			return 0;
		if (st != JSONL_OK) {
			if (bad_line(w, st, &bad, &w->bad_queue, e) < 0)
				return -1;
			continue;
		}
		id = cJSON_GetObjectItemCaseSensitive(j, "id");
		if (!cJSON_IsString(id)) {
			if (w->o->warn) {
				char *msg = xasprintf("%s:%zu: a queue line without an id", w->o->queue,
						      w->queue.lineno);

				w->o->warn(w->o->ctx, msg);
				free(msg);
			}
			w->bad_queue++;
			cJSON_Delete(j);
			continue;
		}
		w->queued++;
		ent = strmap_find(&w->index, id->valuestring);
		cJSON_Delete(j);
		if (!ent) {
			w->unknown++;
			continue;
		}
		at = ent->ptr;
		r = &w->corpus[at->corpus];
		if (fseek(r->fp, at->offset, SEEK_SET) < 0)
			return err_errno(e, EXIT_INPUT, "cannot read '%s' in the queue's order", r->path);
		r->lineno = at->lineno;
		st = jsonl_next(r, in, &bad);
		if (st != JSONL_OK) {
			/* It was a good record when the corpora were indexed: the file changed since. */
			if (st == JSONL_FAIL || st == JSONL_BAD) {
				*e = bad;
				return -1;
			}
			return err_set(e, EXIT_INPUT, "'%s' changed while it was wrapped", r->path);
		}
		*k = at->corpus;
		return 1;
	}
	return 0;
}

static int next_job(void *ctx, struct runner_job *job, struct err *e)
{
	struct wrap *w = ctx;
	struct instance in;

	for (;;) {
		struct pending *p;
		struct buf b = BUF_INIT;
		char *dir;
		cJSON *req, *formats;
		size_t k = 0;
		int none, got;

		got = w->o->queue ? next_in_queue(w, &in, &k, e) : next_in_corpora(w, &in, &k, e);
		if (got <= 0)
			return got;
		if ((w->o->only && !strmap_find(w->o->only, in.id)) ||
		    (select_any(w->o->select) && !select_instance(w->o->select, &in))) {
			w->left_out++;
			record_release(&in);
			continue;
		}
		if (strmap_find(&w->done, in.id)) {
			/* Wrapped by an earlier run, or a duplicate line of a corpus (or of another: the
			 * same usage harvested and derived as a variant is one test). */
			w->resumed++;
			record_release(&in);
			continue;
		}
		formats = formats_for(w->o, in.library, &none);
		if (none) {
			/* No requested frontend takes its library: nothing of it would run. */
			w->skipped++;
			record_release(&in);
			continue;
		}
		if (w->out.fd < 0) {
			if (open_output(w, e) < 0) {
				cJSON_Delete(formats);
				record_release(&in);
				return -1;
			}
			if (strmap_find(&w->done, in.id)) {
				/* Wrapped by another wrap before this one took DIR. */
				w->resumed++;
				cJSON_Delete(formats);
				record_release(&in);
				continue;
			}
		}
		strmap_get(&w->done, in.id, NULL);
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
		add_record(req, b.data, w->o->weights, formats);
		cJSON_AddStringToObject(req, PROTO_KEY_DIR, dir);
		job->key = xstrdup(in.id);
		job->request = cJSON_PrintUnformatted(req);
		cJSON_Delete(req);
		free(dir);

		p = xcalloc(1, sizeof(*p));
		p->line = buf_detach(&b);
		p->corpus = w->o->corpora[k];
		p->lineno = w->corpus[k].lineno;
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
	const cJSON *s = o->end == RUNNER_REPLY ? cJSON_GetObjectItemCaseSensitive(o->reply, PROTO_KEY_STATUS) : NULL;
	cJSON *a;
	const cJSON *status, *reason;
	struct buf line = BUF_INIT;
	char *text, *dir;
	size_t n;
	int r = 0;

	if (!p)
		return 0;
	pe->ptr = NULL;
	if (cJSON_IsString(s) && !strcmp(s->valuestring, "error")) {
		/* The machine failed (the worker says why): nothing is the instance's to record, and
		 * nothing more can be wrapped until what failed is mended. */
		const cJSON *why = cJSON_GetObjectItemCaseSensitive(o->reply, PROTO_KEY_REASON);
		const cJSON *code = cJSON_GetObjectItemCaseSensitive(o->reply, PROTO_KEY_CODE);

		r = err_set(e, cJSON_IsNumber(code) && code->valueint == EXIT_INPUT ? EXIT_INPUT : EXIT_ENV,
			    "cannot wrap %s:%zu (%s): %s", p->corpus, p->lineno, p->op,
			    cJSON_IsString(why) ? why->valuestring : "the worker failed");
		pending_free(p);
		return r;
	}
	if (o->end == RUNNER_DIED && o->status.signaled && o->status.sig == SIGKILL && !o->status.stopped) {
		/* Not ferry's kill (that would be a timeout or the memory limit), nor the library's own
		 * doing, as a rule: the kernel's OOM killer, or a user. The instance is tried again. */
		w->killed++;
		if (w->o->warn) {
			char *msg = xasprintf("%s:%zu: %s: its worker was killed from outside ferry (SIGKILL): "
					      "nothing is recorded for it", p->corpus, p->lineno, p->op);

			w->o->warn(w->o->ctx, msg);
			free(msg);
		}
		pending_free(p);
		return 0;
	}
	if (!(cJSON_IsString(s) && !strcmp(s->valuestring, "ok")) && dir_full(w->o->dir)) {
		r = err_set(e, EXIT_ENV, "cannot wrap %s:%zu (%s): the file system of '%s' is full", p->corpus,
			    p->lineno, p->op, w->o->dir);
		pending_free(p);
		return r;
	}
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
	buf_add(&line, p->line, n - 1);
	buf_addf(&line, ",\"wrap\":%s}", text);
	r = jsonl_append(&w->out, line.data, line.len, e);
	buf_release(&line);
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
	w->out.fd = w->lock.fd = -1;
	if (!o->ncorpora)
		return err_set(e, EXIT_USAGE, "no corpus to wrap");
	for (size_t k = 0; k < o->ncorpora; k++)
		if (fs_input_file(o->corpora[k], e) < 0)
			return -1;
	if (o->queue && fs_input_file(o->queue, e) < 0)
		return -1;
	w->corpus = xcalloc(o->ncorpora, sizeof(*w->corpus));
	for (size_t k = 0; k < o->ncorpora; k++)
		if (jsonl_open(&w->corpus[k], o->corpora[k], e) < 0)
			return -1;
	if (o->queue && jsonl_open(&w->queue, o->queue, e) < 0)
		return -1;
	if (fs_exists(o->dir) && !fs_is_dir(o->dir))
		return err_set(e, EXIT_INPUT, "cannot write into '%s': it is not a directory", o->dir);
	w->out_path = xasprintf("%s/%s", o->dir, WRAPPED_FILE);
	/* A DIR there already is locked before it is read, so that a second wrap is refused before
	 * it starts, and a torn end is mended before anything reads past it. One that cannot be
	 * written (unpacked read-only) is read as it is: with nothing left to wrap there is nothing
	 * to write either, and otherwise open_output says what stops it. */
	if (fs_is_dir(o->dir) && access(o->dir, W_OK) == 0 &&
	    (lock_dir(w, e) < 0 || (fs_exists(w->out_path) && open_appender(w, e) < 0)))
		return -1;
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
	if (w->o->queue && index_corpora(w, e) < 0)
		goto out;
	if (runner_run(&ro, &cb, NULL, e) < 0)
		goto out;
	if (w->killed) {
		err_set(e, EXIT_ENV, "%zu instance%s not wrapped: %s worker%s killed from outside ferry (SIGKILL, as "
			"the kernel's OOM killer sends); run the same command to try %s again", w->killed,
			w->killed > 1 ? "s were" : " was", w->killed > 1 ? "their" : "its", w->killed > 1 ? "s were" :
			" was", w->killed > 1 ? "them" : "it");
		goto out;
	}
	if (w->out.fd < 0 && !w->resumed && !w->skipped) {
		if (w->left_out && !w->bad_lines && !w->o->only)
			err_set(e, EXIT_INPUT, "--op/--test select none of the %zu instances of %s'%s'", w->left_out,
				w->o->ncorpora > 1 ? "the corpora, such as " : "", w->o->corpora[0]);
		else if (w->left_out && w->o->only)
			r = 0;  /* ferry go's sample: nothing of it left to wrap */
		else if (w->o->queue && w->index.len)
			/* A queue of another corpus, of plain ids or of junk would wrap nothing and say it
			 * was done. */
			err_set(e, EXIT_INPUT, "the queue '%s' names none of the instances of the corpora%s",
				w->o->queue, w->queued ? " (it should be ferry rank's output for them)" :
				" (it has no line with an id)");
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
	/* A struct wrap that wrap_open never saw is all zeros: its descriptors are not -1 but 0. */
	if (w->o) {
		jsonl_append_close(&w->out);
		lock_release(&w->lock);
	}
	for (size_t i = 0; i < w->pending.cap; i++)
		if (w->pending.slots[i].key)
			pending_free(w->pending.slots[i].ptr);
	for (size_t i = 0; i < w->index.cap; i++)
		if (w->index.slots[i].key)
			free(w->index.slots[i].ptr);
	strmap_release(&w->pending);
	strmap_release(&w->done);
	strmap_release(&w->reasons);
	strmap_release(&w->index);
	if (w->corpus)
		for (size_t k = 0; k < w->o->ncorpora; k++)
			jsonl_close(&w->corpus[k]);
	free(w->corpus);
	jsonl_close(&w->queue);
	free(w->out_path);
	memset(w, 0, sizeof(*w));
}
