/* vary.c: the vary engine (vary.h): two passes over the corpus, parents round-robin across
 * operators, candidates validated by the library in ferry's workers, kept variants and the log
 * appended as each candidate is done. */
#include <cjson/cJSON.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <xxhash.h>

#include "fsutil.h"
#include "protocol.h"
#include "runner.h"
#include "vary.h"
#include "xalloc.h"

/* A parent whose candidates are being tried. */
struct vary_active {
	char id[33];
	char *op;          /* the parent's operator, for the log */
	struct rules_cands cands;
	size_t next;       /* the next candidate to look at */
	size_t kept;       /* variants kept, earlier runs included */
	size_t inflight;   /* candidates handed to workers and not yet done */
};

/* A candidate handed to a worker and not yet done. */
struct vary_pending {
	struct vary_active *a;
	char *record;      /* the candidate as written, stale outputs */
	char *label;
	enum rules_dim dim;
};

static const char *const dim_names[RULES_NDIMS] = { "dtype", "shape", "param", "scalar" };

const char *vary_dim_name(enum rules_dim d)
{
	return (unsigned)d < RULES_NDIMS ? dim_names[d] : "?";
}

void vary_pre_id(const struct instance *in, char out[33])
{
	struct instance t = *in;
	struct buf b = BUF_INIT;
	XXH128_hash_t h;

	t.outputs = NULL;
	t.noutputs = 0;
	record_canonical(&t, &b);
	h = XXH3_128bits(b.data, b.len);
	snprintf(out, 33, "%016llx%016llx", (unsigned long long)h.high64, (unsigned long long)h.low64);
	buf_release(&b);
}

/* --- pass 1 ------------------------------------------------------------------------------------- */

struct op_parents {
	long *off;
	size_t *line;
	size_t n;
};

/* Read the corpus: pools, ids and pre-ids, and the parents of each operator. ops: op -> index + 1
 * into *per (grown here), in order of first appearance. */
static int pass1(struct vary *v, struct strmap *ops, struct op_parents **per, size_t *nops, struct err *e)
{
	struct jsonl_reader r = JSONL_READER_INIT;
	int ret = -1;

	if (jsonl_open(&r, v->o->corpus, e) < 0)
		return -1;
	for (;;) {
		struct instance in;
		struct err bad = ERR_INIT;
		long off = ftell(r.fp);
		enum jsonl_status st = jsonl_next(&r, &in, &bad);
		char pre[33];
		int created;
		struct strmap_entry *oe;
		struct op_parents *op;

		if (st == JSONL_END)
			break;
		if (st == JSONL_FAIL) {
			*e = bad;
			goto out;
		}
		if (st == JSONL_BAD) {
			if (v->o->warn)
				v->o->warn(v->o->ctx, bad.msg);
			err_release(&bad);
			v->bad_lines++;
			continue;
		}
		v->records++;
		strmap_get(&v->ids, in.id, &created);
		/* A graph is many operators: the rules grow one operator's instance, and a graph's params
		 * (its op types and node count) are no operator's values to pool. */
		if (!strcmp(in.kind, "graph")) {
			v->graphs += created;
			record_release(&in);
			continue;
		}
		rules_pools_add(&v->pools, &in);
		vary_pre_id(&in, pre);
		strmap_get(&v->pre, pre, NULL);
		/* A line repeated in the corpus is one parent. */
		if (created && !in.unmigratable && off >= 0) {
			oe = strmap_get(ops, in.op, NULL);
			if (!oe->count) {
				*per = xrealloc(*per, (*nops + 1) * sizeof(**per));
				memset(&(*per)[*nops], 0, sizeof(**per));
				oe->count = ++*nops;
			}
			op = &(*per)[oe->count - 1];
			op->off = xrealloc(op->off, (op->n + 1) * sizeof(*op->off));
			op->line = xrealloc(op->line, (op->n + 1) * sizeof(*op->line));
			op->off[op->n] = off;
			op->line[op->n++] = r.lineno;
		}
		record_release(&in);
	}
	ret = 0;
out:
	jsonl_close(&r);
	return ret;
}

/* The parents round-robin across operators: the first of each operator, then the second, ... */
static void order_parents(struct vary *v, struct op_parents *per, size_t nops)
{
	size_t total = 0, round = 0;

	for (size_t i = 0; i < nops; i++)
		total += per[i].n;
	v->order = xcalloc(total ? total : 1, sizeof(*v->order));
	v->order_line = xcalloc(total ? total : 1, sizeof(*v->order_line));
	while (v->norder < total) {
		for (size_t i = 0; i < nops; i++)
			if (round < per[i].n) {
				v->order[v->norder] = per[i].off[round];
				v->order_line[v->norder++] = per[i].line[round];
			}
		round++;
	}
}

/* What an earlier run left: the variants' ids, and every candidate it tried. */
static int read_earlier(struct vary *v, struct err *e)
{
	struct jsonl_reader r = JSONL_READER_INIT;
	int ret = -1;

	if (fs_exists(v->o->output)) {
		struct instance in;
		struct err bad = ERR_INIT;
		enum jsonl_status st;

		if (jsonl_open(&r, v->o->output, e) < 0)
			return -1;
		while ((st = jsonl_next(&r, &in, &bad)) != JSONL_END) {
			if (st != JSONL_OK) {
				*e = bad;
				goto out;
			}
			strmap_get(&v->ids, in.id, NULL);
			record_release(&in);
		}
		jsonl_close(&r);
	}
	if (fs_exists(v->log_path)) {
		cJSON *j;
		struct err bad = ERR_INIT;
		enum jsonl_status st;

		if (jsonl_open(&r, v->log_path, e) < 0)
			return -1;
		while ((st = jsonl_next_json(&r, &j, &bad)) != JSONL_END) {
			const cJSON *pre, *parent, *status;

			if (st != JSONL_OK) {
				*e = bad;
				goto out;
			}
			pre = cJSON_GetObjectItemCaseSensitive(j, "pre");
			parent = cJSON_GetObjectItemCaseSensitive(j, "parent");
			status = cJSON_GetObjectItemCaseSensitive(j, "status");
			if (!cJSON_IsString(pre) || !cJSON_IsString(parent) || !cJSON_IsString(status)) {
				cJSON_Delete(j);
				err_set(e, EXIT_INPUT, "%s:%zu: a log line needs pre, parent and status", v->log_path,
					r.lineno);
				goto out;
			}
			strmap_get(&v->pre, pre->valuestring, NULL);
			strmap_get(&v->logged, pre->valuestring, NULL);
			if (!strcmp(status->valuestring, "kept"))
				strmap_get(&v->parent_kept, parent->valuestring, NULL)->count++;
			v->log_tried++;
			cJSON_Delete(j);
		}
	}
	ret = 0;
out:
	jsonl_close(&r);
	return ret;
}

int vary_open(struct vary *v, const struct vary_opts *o, struct err *e)
{
	struct strmap ops = STRMAP_INIT;
	struct op_parents *per = NULL;
	size_t nops = 0;
	int r = -1;

	memset(v, 0, sizeof(*v));
	v->o = o;
	rules_pools_init(&v->pools);
	v->log_path = xasprintf("%s.log", o->output);
	if (fs_input_file(o->corpus, e) < 0)
		return -1;
	if (!strcmp(o->corpus, "-"))
		return err_set(e, EXIT_USAGE, "ferry vary reads its corpus twice: give a file, not '-'");
	if (fs_exists(o->output) && fs_is_dir(o->output))
		return err_set(e, EXIT_INPUT, "cannot write to '%s': it is a directory", o->output);
	if (pass1(v, &ops, &per, &nops, e) < 0)
		goto out;
	if (!v->records) {
		err_set(e, EXIT_INPUT, "'%s' holds no instance records%s", o->corpus,
			v->bad_lines ? " (every line is bad)" : "");
		goto out;
	}
	order_parents(v, per, nops);
	if (read_earlier(v, e) < 0)
		goto out;
	if (!(v->corpus = fopen(o->corpus, "r"))) {
		err_errno(e, EXIT_INPUT, "cannot open '%s'", o->corpus);
		goto out;
	}
	r = 0;
out:
	for (size_t i = 0; i < nops; i++) {
		free(per[i].off);
		free(per[i].line);
	}
	free(per);
	strmap_release(&ops);
	return r;
}

/* --- pass 2 ------------------------------------------------------------------------------------- */

static int budget_spent(const struct vary *v)
{
	return v->o->budget && v->log_tried + v->tried >= v->o->budget;
}

/* The next parent, read again from the corpus, with its candidates; NULL when none is left. */
static struct vary_active *open_parent(struct vary *v)
{
	while (v->next_parent < v->norder) {
		long off = v->order[v->next_parent++];
		struct instance in;
		struct err ignored = ERR_INIT;
		struct vary_active *a;
		struct strmap_entry *k;
		char *line = NULL;
		size_t cap = 0;
		ssize_t n = -1;

		if (fseek(v->corpus, off, SEEK_SET) == 0)
			/* jsonl passes blank lines over, so the offset may stand before some. */
			while ((n = getline(&line, &cap, v->corpus)) > 0 && strspn(line, " \t\r\n") == (size_t)n)
				;
		if (n <= 0 || record_parse(&in, line, (size_t)n, &ignored) < 0) {
			err_release(&ignored);
			free(line);
			continue;
		}
		free(line);
		a = xcalloc(1, sizeof(*a));
		memcpy(a->id, in.id, sizeof(a->id));
		a->op = xstrdup(in.op);
		rules_all(&in, &v->pools, v->o->seed, &a->cands);
		k = strmap_find(&v->parent_kept, in.id);
		a->kept = k ? k->count : 0;
		record_release(&in);
		v->parents++;
		v->active = xrealloc(v->active, (v->nactive + 1) * sizeof(*v->active));
		v->active[v->nactive++] = a;
		return a;
	}
	return NULL;
}

static void active_free(struct vary_active *a)
{
	rules_cands_release(&a->cands);
	free(a->op);
	free(a);
}

/* Drop the parents that have nothing more to give and nothing in flight. */
static void prune(struct vary *v)
{
	size_t k = 0;

	for (size_t i = 0; i < v->nactive; i++) {
		struct vary_active *a = v->active[i];

		if (!a->inflight && (a->next >= a->cands.n || a->kept >= (size_t)v->o->per_instance))
			active_free(a);
		else
			v->active[k++] = a;
	}
	v->nactive = k;
}

/* The next candidate of a that is worth trying, as a job; 0 when a has none to give now.
 * force: hand one out even though those in flight may yet fill the parent's quota. */
static int take(struct vary *v, struct vary_active *a, int force, struct runner_job *job)
{
	while (a->next < a->cands.n && a->kept < (size_t)v->o->per_instance &&
	       (force || a->kept + a->inflight < (size_t)v->o->per_instance)) {
		struct rules_cand *c = &a->cands.v[a->next++];
		struct vary_pending *p;
		struct buf b = BUF_INIT;
		char pre[33];
		int created;
		cJSON *req;

		vary_pre_id(&c->in, pre);
		strmap_get(&v->pre, pre, &created);
		if (!created) {
			if (strmap_find(&v->logged, pre))
				v->resumed++;
			else
				v->duplicates++;
			continue;
		}
		record_write(&c->in, &b);
		req = cJSON_CreateObject();
		cJSON_AddStringToObject(req, PROTO_KEY_TASK, PROTO_TASK_VALIDATE);
		cJSON_AddStringToObject(req, PROTO_KEY_ID, pre);
		cJSON_AddStringToObject(req, PROTO_KEY_LIBRARY, c->in.library);
		cJSON_AddStringToObject(req, PROTO_KEY_RECORD, b.data);
		job->key = xstrdup(pre);
		job->request = cJSON_PrintUnformatted(req);
		cJSON_Delete(req);
		p = xcalloc(1, sizeof(*p));
		p->a = a;
		p->record = buf_detach(&b);
		p->label = xstrdup(c->label);
		p->dim = c->dim;
		strmap_get(&v->pending, pre, NULL)->ptr = p;
		a->inflight++;
		v->tried++;
		v->dims[c->dim].tried++;
		return 1;
	}
	return 0;
}

static int next_job(void *ctx, struct runner_job *job, struct err *e)
{
	struct vary *v = ctx;

	(void)e;
	for (;;) {
		if (budget_spent(v))
			return 0;
		prune(v);
		for (size_t i = 0; i < v->nactive; i++)
			if (take(v, v->active[i], 0, job))
				return 1;
		if (open_parent(v))
			continue;
		/* No parent is left to open, and those open wait on candidates in flight. The runner asks
		 * no more once told there is nothing, so hand one out now; a variant beyond the quota is
		 * then not kept (logged "surplus"). */
		for (size_t i = 0; i < v->nactive; i++)
			if (take(v, v->active[i], 1, job))
				return 1;
		return 0;
	}
}

static void pending_free(struct vary_pending *p)
{
	if (!p)
		return;
	free(p->record);
	free(p->label);
	free(p);
}

/* The first line of a reason, for the tally. */
static char *first_line(const char *s)
{
	size_t n = strcspn(s, "\n");

	return xasprintf("%.*s", (int)n, s);
}

/* The kept variant: the candidate with the outputs the library computed and its provenance.
 * NULL where they do not make a record (e says why). */
static char *variant_line(const struct vary_pending *p, const cJSON *outputs, const char *undefined,
			  char id[33], struct err *e)
{
	cJSON *j = cJSON_Parse(p->record), *prov;
	struct instance in;
	struct buf b = BUF_INIT;
	int r;

	cJSON_DeleteItemFromObjectCaseSensitive(j, "id");
	cJSON_ReplaceItemInObjectCaseSensitive(j, "outputs", cJSON_Duplicate(outputs, 1));
	prov = cJSON_AddObjectToObject(j, "variant");
	cJSON_AddStringToObject(prov, "parent", p->a->id);
	cJSON_AddStringToObject(prov, "vary", p->label);
	if (undefined)
		cJSON_AddStringToObject(prov, "undefined", undefined);
	r = record_from_json(&in, j, e);
	cJSON_Delete(j);
	if (r < 0)
		return NULL;
	memcpy(id, in.id, 33);
	record_write(&in, &b);
	record_release(&in);
	return buf_detach(&b);
}

static int write_line(FILE *f, const char *path, const char *line, struct err *e)
{
	if (fprintf(f, "%s\n", line) < 0 || fflush(f) != 0)
		return err_errno(e, EXIT_ENV, "cannot write '%s'", path);
	return 0;
}

/* Why a candidate whose worker did not answer is dropped. */
static void no_reply_reason(const struct runner_outcome *o, double timeout, struct buf *why)
{
	switch (o->end) {
	case RUNNER_TIMEOUT:
		buf_addf(why, "the library took longer than %gs", timeout);
		break;
	case RUNNER_OOM:
		buf_adds(why, "the library passed the memory limit");
		break;
	default:
		buf_adds(why, "the library crashed: ");
		proc_status_describe(&o->status, why);
		break;
	}
}

static int job_done(void *ctx, const struct runner_job *job, const struct runner_outcome *o, struct err *e)
{
	struct vary *v = ctx;
	struct strmap_entry *pe = strmap_find(&v->pending, job->key);
	struct vary_pending *p = pe ? pe->ptr : NULL;
	struct buf why = BUF_INIT;
	const char *status = "dropped", *undefined = NULL;
	char *line = NULL, id[33] = "";
	cJSON *log, *outputs = NULL;
	int r = 0;

	if (!p)
		return 0;
	pe->ptr = NULL;
	p->a->inflight--;
	if (o->end == RUNNER_REPLY) {
		const cJSON *s = cJSON_GetObjectItemCaseSensitive(o->reply, PROTO_KEY_STATUS);
		const cJSON *rs = cJSON_GetObjectItemCaseSensitive(o->reply, PROTO_KEY_REASON);
		const cJSON *out = cJSON_GetObjectItemCaseSensitive(o->reply, PROTO_KEY_OUTPUTS);
		const cJSON *u = cJSON_GetObjectItemCaseSensitive(o->reply, PROTO_KEY_UNDEFINED);
		const cJSON *m = cJSON_GetObjectItemCaseSensitive(o->reply, PROTO_KEY_MESSAGE);

		/* Nothing the library said: the candidate is not logged, so a later run tries it. */
		if (cJSON_IsString(s) && !strcmp(s->valuestring, "error")) {
			pending_free(p);
			return err_set(e, EXIT_ENV, "cannot validate candidates of the library: %s",
				       cJSON_IsString(rs) ? rs->valuestring : "?");
		}
		if (cJSON_IsString(u))
			undefined = u->valuestring;
		/* The outputs as an array, or as the JSON text of one. */
		if (cJSON_IsString(out))
			outputs = cJSON_Parse(out->valuestring);
		else if (cJSON_IsArray(out))
			outputs = cJSON_Duplicate(out, 1);
		if (cJSON_IsString(s) && !strcmp(s->valuestring, "ok") && cJSON_IsArray(outputs)) {
			struct err bad = ERR_INIT;

			if (!(line = variant_line(p, outputs, undefined, id, &bad)))
				buf_addf(&why, "the library's outputs make no record: %s", bad.msg);
			err_release(&bad);
		} else if (cJSON_IsString(s) && !strcmp(s->valuestring, "ok")) {
			buf_adds(&why, "the template gave no outputs");
		} else {
			buf_adds(&why, cJSON_IsString(rs) ? rs->valuestring : cJSON_IsString(m) ? m->valuestring
				 : "the template gave no status");
		}
	} else {
		no_reply_reason(o, v->o->timeout, &why);
	}
	if (line && p->a->kept >= (size_t)v->o->per_instance) {
		status = "surplus";
		v->surplus++;
	} else if (line && strmap_find(&v->ids, id)) {
		status = "duplicate";
		v->duplicates++;
	} else if (line) {
		status = "kept";
		strmap_get(&v->ids, id, NULL);
		p->a->kept++;
		v->kept++;
		v->dims[p->dim].kept++;
		v->undefined += undefined != NULL;
		if (!v->out && !(v->out = fopen(v->o->output, "a")))
			r = err_errno(e, EXIT_ENV, "cannot open '%s'", v->o->output);
		if (r == 0)
			r = write_line(v->out, v->o->output, line, e);
	} else {
		char *first = first_line(why.data);

		v->dropped++;
		strmap_get(&v->reasons, first, NULL)->count++;
		free(first);
	}
	log = cJSON_CreateObject();
	cJSON_AddStringToObject(log, "pre", job->key);
	cJSON_AddStringToObject(log, "parent", p->a->id);
	cJSON_AddStringToObject(log, "op", p->a->op);
	cJSON_AddStringToObject(log, "vary", p->label);
	cJSON_AddStringToObject(log, "status", status);
	if (why.len)
		cJSON_AddStringToObject(log, "reason", why.data);
	if (*id)
		cJSON_AddStringToObject(log, "id", id);
	if (undefined)
		cJSON_AddStringToObject(log, "undefined", undefined);
	if (r == 0) {
		char *text = cJSON_PrintUnformatted(log);

		r = write_line(v->log, v->log_path, text, e);
		cJSON_free(text);
	}
	cJSON_Delete(log);
	cJSON_Delete(outputs);
	free(line);
	buf_release(&why);
	pending_free(p);
	if (v->o->progress)
		v->o->progress(v->o->ctx, v->tried, v->dropped);
	return r;
}

static void tick(void *ctx)
{
	struct vary *v = ctx;

	if (v->o->progress)
		v->o->progress(v->o->ctx, v->tried, v->dropped);
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

int vary_run(struct vary *v, struct err *e)
{
	struct runner_opts ro;
	struct runner_callbacks cb = { v, next_job, job_done, tick, NULL };
	const char *wargv[4];
	char *self = fs_self_exe();
	double start;
	int r;

	if (!(v->log = fopen(v->log_path, "a"))) {
		free(self);
		return err_errno(e, EXIT_ENV, "cannot open '%s'", v->log_path);
	}
	memset(&ro, 0, sizeof(ro));
	wargv[0] = self;
	wargv[1] = "worker";
	wargv[2] = "--wrap";
	wargv[3] = NULL;
	ro.argv = wargv;
	ro.jobs = v->o->jobs;
	ro.timeout = v->o->timeout;
	ro.start_timeout = 300;
	ro.mem_limit = v->o->mem_limit;
	ro.stderr_cap = 64 * 1024;
	start = now();
	r = runner_run(&ro, &cb, NULL, e);
	v->seconds = now() - start;
	free(self);
	return r;
}

void vary_release(struct vary *v)
{
	for (size_t i = 0; i < v->pending.cap; i++)
		if (v->pending.slots[i].key)
			pending_free(v->pending.slots[i].ptr);
	for (size_t i = 0; i < v->nactive; i++)
		active_free(v->active[i]);
	free(v->active);
	strmap_release(&v->pending);
	strmap_release(&v->ids);
	strmap_release(&v->pre);
	strmap_release(&v->logged);
	strmap_release(&v->parent_kept);
	strmap_release(&v->reasons);
	rules_pools_release(&v->pools);
	free(v->order);
	free(v->order_line);
	free(v->log_path);
	if (v->corpus)
		fclose(v->corpus);
	if (v->out)
		fclose(v->out);
	if (v->log)
		fclose(v->log);
	memset(v, 0, sizeof(*v));
}
