/* vary.c: the vary engine (vary.h): two passes over the corpus, parents round-robin across
 * operators, candidates validated by the library in ferry's workers (ahead of the order, as many
 * as there are workers), and each decided in the order: kept variants and the log appended. */
#include <cjson/cJSON.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <xxhash.h>

#include "fsutil.h"
#include "libraries.h"
#include "protocol.h"
#include "runner.h"
#include "vary.h"
#include "xalloc.h"

/* A parent whose candidates are being tried (the first open one), or validated ahead. */
struct vary_active {
	char id[33];
	char *op;          /* the parent's operator, for the log */
	struct rules_cands cands;
	char (*pre)[33];   /* each candidate's pre-id, "" until needed */
	size_t next;       /* the order's next candidate: those before it are decided */
	size_t scan;       /* the next candidate to look at for validating ahead */
	size_t kept;       /* variants kept, earlier runs included */
	size_t ahead;      /* its candidates asked and not decided, but for those the library dropped */
	struct vary_asked **asked;  /* what it asked for */
	size_t nasked, asked_cap;
};

/* A candidate given to a worker to validate, then its verdict, which waits for the order. */
struct vary_asked {
	char pre[33];
	struct vary_active *a;  /* who asked for it; NULL once that parent has closed */
	int inflight;           /* with a worker */
	int ready;              /* the verdict is in */
	int counted;            /* in a->ahead */
	int decided;            /* the order took it (a frees it when it closes) */
	cJSON *outputs;         /* accepted: the outputs the library computed */
	char *undefined;        /* accepted: why the reference is in the undefined domain, or NULL */
	char *why;              /* dropped: the library's reason */
};

static const char *const dim_names[RULES_NDIMS] = { "dtype", "shape", "param", "scalar", "type" };

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
		if (!v->o->pools_corpus)
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

/* The pools of another corpus than the parents' (vary_opts.pools_corpus): its bad lines are its
 * own business, passed over unsaid. */
static int pools_of(struct vary *v, const char *path, struct err *e)
{
	struct jsonl_reader r = JSONL_READER_INIT;
	enum jsonl_status st;
	struct instance in;
	struct err bad = ERR_INIT;

	if (jsonl_open(&r, path, e) < 0)
		return -1;
	while ((st = jsonl_next(&r, &in, &bad)) != JSONL_END) {
		if (st == JSONL_FAIL) {
			*e = bad;
			jsonl_close(&r);
			return -1;
		}
		if (st == JSONL_BAD) {
			err_release(&bad);
			continue;
		}
		if (strcmp(in.kind, "graph"))
			rules_pools_add(&v->pools, &in);
		record_release(&in);
	}
	jsonl_close(&r);
	return 0;
}

/* The parents round-robin across operators: the first of each operator, then the second, ... */
static void order_parents(struct vary *v, struct op_parents *per, size_t nops)
{
	size_t total = 0, round = 0;

	for (size_t i = 0; i < nops; i++)
		total += per[i].n;
	v->order = xcalloc(total ? total : 1, sizeof(*v->order));
	v->order_line = xcalloc(total ? total : 1, sizeof(*v->order_line));
	v->order_nth = xcalloc(total ? total : 1, sizeof(*v->order_nth));
	while (v->norder < total) {
		for (size_t i = 0; i < nops; i++)
			if (round < per[i].n) {
				v->order[v->norder] = per[i].off[round];
				v->order_nth[v->norder] = round;
				v->order_line[v->norder++] = per[i].line[round];
			}
		round++;
	}
}

/* What an earlier run left: the variants' ids, and every candidate it tried. A variant of OUTPUT
 * that no log line keeps (a run stopped between the two writes) is one the order keeps again
 * without writing it twice. */
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
			strmap_get(&v->unlogged, in.id, NULL)->count = 1;
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
			const cJSON *pre, *parent, *status, *id;
			struct strmap_entry *u;

			if (st != JSONL_OK) {
				*e = bad;
				goto out;
			}
			pre = cJSON_GetObjectItemCaseSensitive(j, "pre");
			parent = cJSON_GetObjectItemCaseSensitive(j, "parent");
			status = cJSON_GetObjectItemCaseSensitive(j, "status");
			id = cJSON_GetObjectItemCaseSensitive(j, "id");
			if (!cJSON_IsString(pre) || !cJSON_IsString(parent) || !cJSON_IsString(status)) {
				cJSON_Delete(j);
				err_set(e, EXIT_INPUT, "%s:%zu: a log line needs pre, parent and status", v->log_path,
					r.lineno);
				goto out;
			}
			strmap_get(&v->pre, pre->valuestring, NULL);
			strmap_get(&v->logged, pre->valuestring, NULL);
			if (!strcmp(status->valuestring, "kept")) {
				strmap_get(&v->parent_kept, parent->valuestring, NULL)->count++;
				if (cJSON_IsString(id) && (u = strmap_find(&v->unlogged, id->valuestring)))
					u->count = 0;
			}
			v->log_tried++;
			cJSON_Delete(j);
		}
	}
	ret = 0;
out:
	jsonl_close(&r);
	return ret;
}

/* Open path to append to, its torn end cut off (and said). */
static int open_appender(struct vary *v, struct jsonl_writer *w, const char *path, struct err *e)
{
	size_t cut = 0;

	if (jsonl_append_open(w, path, JSONL_FOLLOW, &cut, e) < 0)
		return -1;
	v->cut += cut;
	if (cut && v->o->warn) {
		char *msg = xasprintf("'%s': cut a torn last line of %zu bytes (a vary stopped while writing it)",
				      path, cut);

		v->o->warn(v->o->ctx, msg);
		free(msg);
	}
	return 0;
}

int vary_open(struct vary *v, const struct vary_opts *o, struct err *e)
{
	struct strmap ops = STRMAP_INIT;
	struct op_parents *per = NULL;
	size_t nops = 0;
	char *lock = NULL;
	int r = -1;

	memset(v, 0, sizeof(*v));
	v->o = o;
	v->lock.fd = v->out.fd = v->log.fd = -1;
	rules_pools_init(&v->pools);
	v->log_path = xasprintf("%s.log", o->output);
	if (fs_input_file(o->corpus, e) < 0 || libraries_load(o->python, e) < 0)
		return -1;
	if (!strcmp(o->corpus, "-"))
		return err_set(e, EXIT_USAGE, "ferry vary reads its corpus twice: give a file, not '-'");
	if (fs_exists(o->output) && fs_is_dir(o->output))
		return err_set(e, EXIT_INPUT, "cannot write to '%s': it is a directory", o->output);
	/* One writer: taken before anything is read of what an earlier run left, and the torn ends a
	 * killed one left are cut off before they are read. */
	lock = xasprintf("%s.lock", o->output);
	if (lock_file(&v->lock, lock, o->output, "output", o->command, e) < 0 ||
	    (fs_exists(o->output) && open_appender(v, &v->out, o->output, e) < 0) ||
	    (fs_exists(v->log_path) && open_appender(v, &v->log, v->log_path, e) < 0))
		goto out;
	if (pass1(v, &ops, &per, &nops, e) < 0 || (o->pools_corpus && pools_of(v, o->pools_corpus, e) < 0))
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
	free(lock);
	strmap_release(&ops);
	return r;
}

/* --- pass 2 ------------------------------------------------------------------------------------- */

static int budget_spent(const struct vary *v)
{
	return v->o->budget && v->log_tried + v->tried >= v->o->budget;
}

/* Open the next parent, read again from the corpus, with its candidates, at the end of the open
 * ones; NULL when none is left. */
static struct vary_active *open_parent(struct vary *v)
{
	while (v->next_parent < v->norder) {
		size_t nth = v->order_nth[v->next_parent];
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
		/* A parent of very many inputs takes seconds: told to stop meanwhile, it stops. */
		rules_stop_when(runner_interrupted);
		if (v->o->one_change)
			rules_neighbours(&in, &v->pools, &a->cands);
		else
			rules_all(&in, &v->pools, v->o->seed, nth, &a->cands);
		rules_stop_when(NULL);
		v->skipped += a->cands.skipped;
		a->pre = xcalloc(a->cands.n ? a->cands.n : 1, sizeof(*a->pre));
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

/* The pre-id of a's candidate k. */
static const char *pre_of(struct vary_active *a, size_t k)
{
	if (!a->pre[k][0])
		vary_pre_id(&a->cands.v[k].in, a->pre[k]);
	return a->pre[k];
}

static void asked_free(struct vary_asked *q)
{
	if (!q)
		return;
	cJSON_Delete(q->outputs);
	free(q->undefined);
	free(q->why);
	free(q);
}

/* Close the first open parent: its verdicts not decided stay in v->asked, for a candidate of another
 * parent that is the same (they are few, and small). */
static void close_first(struct vary *v)
{
	struct vary_active *a = v->active[0];

	for (size_t i = 0; i < a->nasked; i++) {
		struct vary_asked *q = a->asked[i];

		if (q->decided) {
			asked_free(q);
			continue;
		}
		q->a = NULL;
		q->counted = 0;
		v->ahead--;
	}
	free(a->asked);
	free(a->pre);
	rules_cands_release(&a->cands);
	free(a->op);
	free(a);
	memmove(v->active, v->active + 1, --v->nactive * sizeof(*v->active));
}

/* Ask a worker to validate a's candidate k. 1, with job filled. */
static int ask(struct vary *v, struct vary_active *a, size_t k, struct runner_job *job)
{
	struct rules_cand *c = &a->cands.v[k];
	const char *pre = pre_of(a, k);
	struct vary_asked *q = xcalloc(1, sizeof(*q));
	struct buf b = BUF_INIT;
	cJSON *req;

	record_write(&c->in, &b);
	req = cJSON_CreateObject();
	cJSON_AddStringToObject(req, PROTO_KEY_TASK, PROTO_TASK_VALIDATE);
	cJSON_AddStringToObject(req, PROTO_KEY_ID, pre);
	cJSON_AddStringToObject(req, PROTO_KEY_LIBRARY, c->in.library);
	cJSON_AddStringToObject(req, PROTO_KEY_RECORD, b.data);
	job->key = xstrdup(pre);
	job->request = cJSON_PrintUnformatted(req);
	cJSON_Delete(req);
	buf_release(&b);
	memcpy(q->pre, pre, sizeof(q->pre));
	q->a = a;
	q->inflight = q->counted = 1;
	a->ahead++;
	v->ahead++;
	v->inflight++;
	XGROW(a->asked, a->asked_cap, a->nasked + 1);
	a->asked[a->nasked++] = q;
	strmap_get(&v->asked, pre, NULL)->ptr = q;
	return 1;
}

/* The first line of a reason, for the tally. */
static char *first_line(const char *s)
{
	size_t n = strcspn(s, "\n");

	return xasprintf("%.*s", (int)n, s);
}

/* The kept variant: the candidate with the outputs the library computed and its provenance.
 * NULL where they do not make a record (e says why). */
static char *variant_line(const struct vary_active *a, const struct rules_cand *c, const cJSON *outputs,
			  const char *undefined, char id[33], struct err *e)
{
	struct buf b = BUF_INIT;
	cJSON *j, *prov;
	struct instance in;
	int r;

	record_write(&c->in, &b);
	j = cJSON_Parse(b.data);
	buf_release(&b);
	cJSON_DeleteItemFromObjectCaseSensitive(j, "id");
	cJSON_ReplaceItemInObjectCaseSensitive(j, "outputs", cJSON_Duplicate(outputs, 1));
	prov = cJSON_AddObjectToObject(j, "variant");
	cJSON_AddStringToObject(prov, "parent", a->id);
	cJSON_AddStringToObject(prov, "vary", c->label);
	/* The label's words overlap across dimensions ("param:eps=1" is a value or a type): the
	 * dimension says which kind of change reached what the variant finds. */
	cJSON_AddStringToObject(prov, "dim", vary_dim_name(c->dim));
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

/* Decide the order's next candidate of a, the first open parent, by its verdict q: kept (written to
 * OUTPUT), a duplicate of a variant or instance there is, or dropped; logged either way. */
static int decide(struct vary *v, struct vary_active *a, const struct vary_asked *q, struct err *e)
{
	const struct rules_cand *c = &a->cands.v[a->next];
	const char *status = "dropped";
	struct buf why = BUF_INIT;
	struct strmap_entry *u = NULL;
	char *line = NULL, id[33] = "";
	cJSON *log;
	int r = 0, write = 0, written = 0;

	if (q->outputs) {
		struct err bad = ERR_INIT;

		if (!(line = variant_line(a, c, q->outputs, q->undefined, id, &bad)))
			buf_addf(&why, "the library's outputs make no record: %s", bad.msg);
		err_release(&bad);
	} else {
		buf_adds(&why, q->why ? q->why : "the template gave no status");
	}
	if (line && (u = strmap_find(&v->unlogged, id)) && u->count)
		status = "kept";  /* by a run that stopped before it could log it: OUTPUT has it */
	else if (line && strmap_find(&v->ids, id))
		status = "duplicate";
	else if (line)
		status = "kept", write = 1;
	if (write && v->out.fd < 0)
		r = open_appender(v, &v->out, v->o->output, e);
	if (write && r == 0 && (r = jsonl_append(&v->out, line, strlen(line), e)) == 0)
		written = 1;
	if (r == 0) {
		char *text;

		log = cJSON_CreateObject();
		cJSON_AddStringToObject(log, "pre", q->pre);
		cJSON_AddStringToObject(log, "parent", a->id);
		cJSON_AddStringToObject(log, "op", a->op);
		cJSON_AddStringToObject(log, "vary", c->label);
		cJSON_AddStringToObject(log, "dim", vary_dim_name(c->dim));
		cJSON_AddStringToObject(log, "status", status);
		if (!line)
			cJSON_AddStringToObject(log, "reason", why.data);
		if (*id)
			cJSON_AddStringToObject(log, "id", id);
		if (line && q->undefined)
			cJSON_AddStringToObject(log, "undefined", q->undefined);
		text = cJSON_PrintUnformatted(log);
		r = jsonl_append(&v->log, text, strlen(text), e);
		cJSON_free(text);
		cJSON_Delete(log);
	}
	/* Counted once written (the log line, or the variant before it): a run stopped by a failed
	 * write then says what it kept. */
	if (r == 0 || written) {
		v->tried++;
		v->dims[c->dim].tried++;
		if (!strcmp(status, "kept")) {
			if (u)
				u->count = 0;
			strmap_get(&v->ids, id, NULL);
			a->kept++;
			v->kept++;
			v->dims[c->dim].kept++;
			v->undefined += q->undefined != NULL;
		} else if (!strcmp(status, "duplicate")) {
			v->duplicates++;
		} else {
			char *first = first_line(why.data);

			v->dropped++;
			strmap_get(&v->reasons, first, NULL)->count++;
			free(first);
		}
	}
	free(line);
	buf_release(&why);
	return r;
}

/* Decide what the order can: its candidates in turn, each whose verdict is in, up to the first that
 * is not (given to a worker, or to be). */
static int advance(struct vary *v, struct err *e)
{
	for (;;) {
		struct vary_active *a;
		struct strmap_entry *qe;
		struct vary_asked *q;
		const char *pre;
		int r;

		if (budget_spent(v))
			return 0;
		if (!v->nactive && !open_parent(v))
			return 0;
		a = v->active[0];
		if (a->next >= a->cands.n || a->kept >= (size_t)v->o->per_instance) {
			close_first(v);
			continue;
		}
		pre = pre_of(a, a->next);
		if (strmap_find(&v->pre, pre)) {
			/* An instance of the corpus, a candidate tried before: not tried again. */
			if (strmap_find(&v->logged, pre))
				v->resumed++;
			else
				v->duplicates++;
			a->next++;
			continue;
		}
		qe = strmap_find(&v->asked, pre);
		q = qe ? qe->ptr : NULL;
		if (!q || !q->ready)
			return 0;
		qe->ptr = NULL;
		strmap_get(&v->pre, pre, NULL);
		r = decide(v, a, q, e);
		if (q->counted)
			q->a->ahead--;
		if (q->a) {
			v->ahead--;
			q->decided = 1;
		} else {
			asked_free(q);
		}
		if (r < 0)
			return -1;
		a->next++;
	}
}

/* A candidate of a to validate ahead of the order: the next one not decided nor asked for, while
 * those asked (and not dropped) may yet fall short of its quota. */
static int look_ahead(struct vary *v, struct vary_active *a, struct runner_job *job)
{
	if (a->scan < a->next)
		a->scan = a->next;
	while (a->scan < a->cands.n && a->kept + a->ahead < (size_t)v->o->per_instance) {
		size_t k = a->scan++;
		const char *pre = pre_of(a, k);
		struct strmap_entry *qe = strmap_find(&v->asked, pre);

		if (!strmap_find(&v->pre, pre) && !(qe && qe->ptr))
			return ask(v, a, k, job);
	}
	return 0;
}

static int next_job(void *ctx, struct runner_job *job, struct err *e)
{
	struct vary *v = ctx;
	size_t window = (size_t)(v->o->jobs > 0 ? v->o->jobs : 1) + 2;

	if (advance(v, e) < 0)
		return -1;
	if (budget_spent(v) || !v->nactive)
		return 0;  /* the order is through; the runner waits for what workers still have */
	/* The order waits on its next candidate: a worker has it, or is given it now. */
	{
		struct vary_active *a = v->active[0];
		struct strmap_entry *qe = strmap_find(&v->asked, pre_of(a, a->next));

		if (!qe || !qe->ptr)
			return ask(v, a, a->next, job);
	}
	/* Ahead of it, as far as a budget leaves room. */
	if (v->o->budget && v->log_tried + v->tried + v->ahead >= v->o->budget)
		return v->inflight ? 2 : 0;
	for (size_t i = 0;; i++) {
		if (i == v->nactive && (v->nactive >= window || !open_parent(v)))
			break;
		if (look_ahead(v, v->active[i], job))
			return 1;
	}
	return v->inflight ? 2 : 0;
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
	struct strmap_entry *qe = strmap_find(&v->asked, job->key);
	struct vary_asked *q = qe ? qe->ptr : NULL;
	struct buf why = BUF_INIT;

	if (!q || !q->inflight)
		return 0;
	q->inflight = 0;
	v->inflight--;
	if (o->end == RUNNER_REPLY) {
		const cJSON *s = cJSON_GetObjectItemCaseSensitive(o->reply, PROTO_KEY_STATUS);
		const cJSON *rs = cJSON_GetObjectItemCaseSensitive(o->reply, PROTO_KEY_REASON);
		const cJSON *out = cJSON_GetObjectItemCaseSensitive(o->reply, PROTO_KEY_OUTPUTS);
		const cJSON *u = cJSON_GetObjectItemCaseSensitive(o->reply, PROTO_KEY_UNDEFINED);
		const cJSON *m = cJSON_GetObjectItemCaseSensitive(o->reply, PROTO_KEY_MESSAGE);
		int ok = cJSON_IsString(s) && !strcmp(s->valuestring, "ok");

		/* Nothing the library said: the candidate is not logged, so a later run tries it. */
		if (cJSON_IsString(s) && !strcmp(s->valuestring, "error"))
			return err_set(e, EXIT_ENV, "cannot validate candidates of the library: %s",
				       cJSON_IsString(rs) ? rs->valuestring : "?");
		/* The outputs as an array, or as the JSON text of one. */
		if (ok && cJSON_IsString(out))
			q->outputs = cJSON_Parse(out->valuestring);
		else if (ok && cJSON_IsArray(out))
			q->outputs = cJSON_Duplicate(out, 1);
		if (q->outputs && !cJSON_IsArray(q->outputs)) {
			cJSON_Delete(q->outputs);
			q->outputs = NULL;
		}
		if (q->outputs && cJSON_IsString(u))
			q->undefined = xstrdup(u->valuestring);
		if (!q->outputs)
			buf_adds(&why, ok ? "the template gave no outputs" : cJSON_IsString(rs) ? rs->valuestring :
				 cJSON_IsString(m) ? m->valuestring : "the template gave no status");
	} else if (o->end == RUNNER_DIED && o->status.signaled && o->status.sig == SIGKILL && !o->status.stopped) {
		/* Not ferry's kill, nor the library's doing, as a rule: the kernel's OOM killer, or a user. */
		return err_set(e, EXIT_ENV, "a worker was killed from outside ferry (SIGKILL) validating a candidate "
			       "of '%s' (%s): nothing is logged for it", q->a ? q->a->id : "?", q->a ? q->a->op : "?");
	} else {
		no_reply_reason(o, v->o->timeout, &why);
	}
	if (!q->outputs)
		q->why = buf_detach(&why);
	buf_release(&why);
	q->ready = 1;
	if (!q->outputs && q->counted) {
		q->a->ahead--;
		q->counted = 0;
	}
	if (advance(v, e) < 0)
		return -1;
	if (v->o->progress)
		v->o->progress(v->o->ctx, v->tried, v->dropped);
	return 0;
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
	char *self;
	double start;
	int r;

	if (v->log.fd < 0 && open_appender(v, &v->log, v->log_path, e) < 0)
		return -1;
	self = fs_self_exe();
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
	/* What workers validated ahead that the order did not reach. */
	for (size_t i = 0; i < v->asked.cap; i++)
		if (v->asked.slots[i].key && v->asked.slots[i].ptr)
			v->unused++;
	free(self);
	return r;
}

void vary_release(struct vary *v)
{
	/* The verdicts open parents asked for: the decided ones are theirs, the others v->asked's. */
	while (v->nactive)
		close_first(v);
	for (size_t i = 0; i < v->asked.cap; i++)
		if (v->asked.slots[i].key)
			asked_free(v->asked.slots[i].ptr);
	free(v->active);
	strmap_release(&v->asked);
	strmap_release(&v->ids);
	strmap_release(&v->unlogged);
	strmap_release(&v->pre);
	strmap_release(&v->logged);
	strmap_release(&v->parent_kept);
	strmap_release(&v->reasons);
	rules_pools_release(&v->pools);
	free(v->order);
	free(v->order_line);
	free(v->order_nth);
	free(v->log_path);
	if (v->corpus)
		fclose(v->corpus);
	/* A struct vary that vary_open never saw is all zeros: its descriptors are not -1 but 0. */
	if (v->o) {
		jsonl_append_close(&v->out);
		jsonl_append_close(&v->log);
		lock_release(&v->lock);
	}
	memset(v, 0, sizeof(*v));
}
