/* reduce.c: ferry reduce's engine (reduce.h).
 *
 * Reduces failing multi-node ONNX tests to the smallest subgraph that still fails the same way
 * (GenCoG's reducer, node by node): the bug's reproducer is then a model of a node or two, which
 * names the operator that decides. For each failing result it takes (a crash or a mismatch: the
 * failing member of the bugs, or with --simplest each bug's representative), ferry.templates.onnx_subgraph plans
 * candidate subgraphs, smallest first (each node alone, then each node with its producers, growing;
 * at most 4 per node), and writes each as an ordinary test directory whose cut tensors hold the
 * original reference run's values. The candidates run through the result's frontend in watched
 * workers, as ferry run runs a test (oracle/session.h's request and judgement), and the first in
 * that order whose result has the same outcome and the same group key as the original failure
 * (report/dedup.h's signature) is the reduction. It is kept in DIR (default STORE.reduced), as
 * DIR/FRONTEND/ID, and recorded in the store's reductions table, where ferry show, bugs and report
 * find it. A result reduced before is not reduced again (--again does). */
#include <cjson/cJSON.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "db.h"
#include "dedup.h"
#include "esc.h"
#include "fsutil.h"
#include "locations.h"
#include "opts.h"
#include "outcome.h"
#include "protocol.h"
#include "py.h"
#include "reduce.h"
#include "session.h"
#include "strmap.h"
#include "tolerance.h"
#include "xalloc.h"

#define SUBGRAPH_MODULE "ferry.templates.onnx_subgraph"

/* One failing result to reduce. */
struct target {
	char *frontend, *id, *op, *dir;
	char *signature;        /* its failure's group key, as dedup groups it */
	char *outcome;
	struct tolerance tol;
	cJSON *plan;            /* onnx_subgraph.plan(): nodes, ops, candidates, random */
	int nodes, random;
	size_t ncands, next;    /* candidates, and the next to hand out */
	size_t inflight, tried, invalid;
	unsigned char *ran;     /* per candidate: run through the frontend */
	long found;             /* the first candidate (in order) that fails the same way, or -1 */
	int settled;
	char *workdir, *final;  /* DIR/FRONTEND/ID.tmp (the candidates), DIR/FRONTEND/ID */
};

struct reduce {
	const struct reduce_opts *a;  /* the options (borrowed) */
	FILE *out;
	struct db db;
	const char *store;
	char *outdir;
	struct target *t;
	size_t n, cap;
	struct strmap seen;      /* "FRONTEND\tID" of the results taken */
	size_t failures, not_onnx, other_outcome, one_node, done_before, no_instance, pairs;
	/* The frontend being run: its targets are t[first..last). */
	const char *label;
	size_t first, last, cursor;
	char *version;
	size_t reduced, kept;
};

static void reduce_warn(const struct reduce *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* A line for the caller's warn. */
static void reduce_warn(const struct reduce *r, const char *fmt, ...)
{
	struct buf line = BUF_INIT;
	va_list ap;

	va_start(ap, fmt);
	buf_vaddf(&line, fmt, ap);
	va_end(ap);
	if (r->a->warn)
		r->a->warn(r->a->warn_ctx, line.data);
	buf_release(&line);
}

static void target_release(struct target *t)
{
	free(t->frontend);
	free(t->id);
	free(t->op);
	free(t->dir);
	free(t->signature);
	free(t->outcome);
	cJSON_Delete(t->plan);
	free(t->workdir);
	free(t->final);
	free(t->ran);
}

/* A file name of a label (NAME or NAME@VERSION, a user's adapter's NAME may hold anything) or of an
 * id the store gives. */
static char *safe_name(const char *s)
{
	char *out = xstrdup(s);

	for (char *c = out; *c; c++)
		if (*c == '/' || (*c == '.' && c == out))
			*c = '_';
	return out;
}

/* --- choosing the results ----------------------------------------------------------------------- */

static int take_row(void *ctx, const struct db_row *row, struct err *e)
{
	struct reduce *r = ctx;
	struct failure f = { row->frontend, row->op ? row->op : "", row->outcome, row->stage, row->exc_type,
			     row->frame, row->message };
	struct buf sig = BUF_INIT;
	struct target *t;

	(void)e;
	r->failures++;
	if (!row->library) {
		r->no_instance++;
		return 0;
	}
	/* Two frontends against each other: the one that disagrees with the reference has the same
	 * failure as its own result, which is reduced as such. */
	if (strstr(row->frontend, SESSION_PAIR_SEP)) {
		r->pairs++;
		return 0;
	}
	if (strcmp(row->library, "onnx")) {
		r->not_onnx++;
		return 0;
	}
	/* A timeout or oom would cost the timeout per candidate; what they say of a subgraph is slow. */
	if (strcmp(row->outcome, outcome_name(OUTCOME_CRASH)) && strcmp(row->outcome, outcome_name(OUTCOME_MISMATCH))) {
		r->other_outcome++;
		return 0;
	}
	dedup_signature(&f, &sig);
	XGROW(r->t, r->cap, r->n + 1);
	t = &r->t[r->n++];
	memset(t, 0, sizeof(*t));
	t->frontend = xstrdup(row->frontend);
	t->id = xstrdup(row->id);
	t->op = xstrdup(row->op ? row->op : "");
	t->dir = xstrdup(row->dir ? row->dir : "");
	t->outcome = xstrdup(row->outcome);
	t->signature = buf_detach(&sig);
	t->tol.atol = isnan(row->atol) ? TOLERANCE_DEFAULT_ATOL : row->atol;
	t->tol.rtol = isnan(row->rtol) ? TOLERANCE_DEFAULT_RTOL : row->rtol;
	t->found = -1;
	return 0;
}

/* Take the result (frontend, id) once: its row, unless it was reduced before. */
static int take(struct reduce *r, const char *frontend, const char *id, struct err *e)
{
	struct buf key = BUF_INIT;
	int created, n;

	buf_addf(&key, "%s\t%s", frontend, id);
	strmap_get(&r->seen, key.data, &created);
	buf_release(&key);
	if (!created)
		return 0;
	if (!r->a->again) {
		if ((n = db_reductions(&r->db, frontend, id, NULL, NULL, e)) < 0)
			return -1;
		if (n > 0) {
			r->done_before++;
			return 0;
		}
	}
	return db_result(&r->db, frontend, id, take_row, r, e) < 0 ? -1 : 0;
}

static int take_member(void *ctx, const char *frontend, const char *bug_id, const char *id, const char *op,
		       struct err *e)
{
	(void)bug_id;
	(void)op;
	return take(ctx, frontend, id, e);
}

/* A bug's members, or with --simplest its representative. */
static int take_bug(struct reduce *r, const struct db_bug *b, struct err *e)
{
	if (!r->a->simplest)
		return db_bug_members(&r->db, b->frontend, b->bug_id, -1, take_member, r, e);
	return take(r, b->frontend, b->representative, e);
}

struct by_prefix {
	struct reduce *r;
	const char *frontend;
	int matches;
};

static int take_prefixed(void *ctx, const struct db_bug *b, const struct db_row *rep, struct err *e)
{
	struct by_prefix *p = ctx;

	(void)rep;
	if (p->frontend && strcmp(b->frontend, p->frontend))
		return 0;
	p->matches++;
	return take_bug(p->r, b, e);
}

static int take_any(void *ctx, const struct db_bug *b, struct err *e)
{
	return take_bug(ctx, b, e);
}

/* Plan each target (its model's nodes and candidates); those of one node are dropped. */
static int plan_targets(struct reduce *r, struct err *e)
{
	size_t kept = 0;

	for (size_t i = 0; i < r->n; i++) {
		struct target *t = &r->t[i];
		const char *args[] = { t->dir };
		struct err pe = ERR_INIT;
		char *text = py_call_strings(SUBGRAPH_MODULE, "plan", args, 1, "cannot read the model", &pe);
		const cJSON *nodes, *cands;

		if (!text) {
			if (pe.code == EXIT_INTERRUPTED) {
				*e = pe;
				return -1;
			}
			reduce_warn(r, "%s %s: %s", t->frontend, t->id, pe.msg);
			err_release(&pe);
			target_release(t);
			continue;
		}
		t->plan = cJSON_Parse(text);
		free(text);
		nodes = cJSON_GetObjectItemCaseSensitive(t->plan, "nodes");
		cands = cJSON_GetObjectItemCaseSensitive(t->plan, "candidates");
		t->nodes = cJSON_IsNumber(nodes) ? nodes->valueint : 0;
		t->ncands = cJSON_IsArray(cands) ? (size_t)cJSON_GetArraySize(cands) : 0;
		t->random = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(t->plan, "random"));
		t->ran = xcalloc(t->ncands + 1, 1);
		if (t->nodes <= 1) {
			r->one_node++;
			target_release(t);
			continue;
		}
		r->t[kept++] = *t;
	}
	r->n = kept;
	return 0;
}

static int by_frontend(const void *a, const void *b)
{
	const struct target *x = a, *y = b;
	int c = strcmp(x->frontend, y->frontend);

	return c ? c : strcmp(x->id, y->id);
}

/* --- running the candidates ---------------------------------------------------------------------- */

/* The subgraph's operators in node order, comma-separated. Caller frees. */
static char *candidate_ops(const struct target *t, long k)
{
	const cJSON *ops = cJSON_GetObjectItemCaseSensitive(t->plan, "ops");
	const cJSON *c = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(t->plan, "candidates"), (int)k);
	const cJSON *node;
	struct buf out = BUF_INIT;

	cJSON_ArrayForEach(node, c) {
		const cJSON *op = cJSON_GetArrayItem(ops, node->valueint);

		buf_addf(&out, "%s%s", out.len ? "," : "", cJSON_IsString(op) ? op->valuestring : "?");
	}
	return buf_detach(&out);
}

static char *candidate_dir(const struct target *t, size_t k)
{
	return xasprintf("%s/c%zu", t->workdir, k);
}

/* The target is done: its reduction recorded, the winner moved to its place, the rest removed. */
static int settle(struct reduce *r, struct target *t, struct err *e)
{
	struct db_reduction red = { t->frontend, t->id, "not reduced", NULL, t->nodes, t->nodes, (long long)t->tried,
				    NULL, r->version };
	char *ops = NULL, *winner = NULL;
	int ret = -1;

	t->settled = 1;
	/* The candidates that decided: those up to the one found (each smaller one ran, and did not
	 * fail the same way). The runner takes a job ahead of a free worker, so one beyond it may have
	 * run as well; it decided nothing. */
	if (t->found >= 0) {
		t->tried = 0;
		for (long k = 0; k <= t->found; k++)
			t->tried += t->ran[k];
		red.candidates = (long long)t->tried;
	}
	if (t->found >= 0) {
		const cJSON *c = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(t->plan, "candidates"),
						    (int)t->found);

		winner = candidate_dir(t, (size_t)t->found);
		if (fs_remove_tree(t->final, e) < 0)
			goto out;
		if (rename(winner, t->final) < 0) {
			err_errno(e, EXIT_ENV, "cannot move '%s' to '%s'", winner, t->final);
			goto out;
		}
		ops = candidate_ops(t, t->found);
		red.status = "reduced";
		red.dir = t->final;
		red.nodes_after = cJSON_GetArraySize(c);
		red.ops = ops;
		r->reduced++;
	} else {
		r->kept++;
	}
	if (fs_remove_tree(t->workdir, e) < 0 || db_put_reduction(&r->db, &red, e) < 0)
		goto out;
	if (t->found >= 0)
		fprintf(r->out, "%s %s: reduced from %d to %lld nodes (%s) in %zu candidates: %s\n",
			esc_str(t->frontend), esc_str(t->id), t->nodes, red.nodes_after, esc_str(ops), t->tried,
			esc_str(t->final));
	else
		fprintf(r->out, "%s %s: not reduced: no smaller subgraph of its %d nodes fails the same way "
			"(%zu candidates%s)\n",
			esc_str(t->frontend), esc_str(t->id), t->nodes, t->tried,
			t->invalid ? ", some could not stand alone" : "");
	fflush(r->out);
	ret = 0;
out:
	free(ops);
	free(winner);
	return ret;
}

static int next_job(void *ctx, struct runner_job *job, struct err *e)
{
	struct reduce *r = ctx;

	while (r->cursor < r->last) {
		struct target *t = &r->t[r->cursor];
		const cJSON *c;
		char *nodes, *dir, *text;
		const char *args[3];
		struct err pe = ERR_INIT;
		cJSON *res;
		int ok;

		if (t->found >= 0 || t->next >= t->ncands) {
			r->cursor++;
			if (!t->settled && !t->inflight && settle(r, t, e) < 0)
				return -1;
			continue;
		}
		c = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(t->plan, "candidates"), (int)t->next);
		nodes = cJSON_PrintUnformatted(c);
		dir = candidate_dir(t, t->next);
		args[0] = t->dir;
		args[1] = nodes;
		args[2] = dir;
		text = py_call_strings(SUBGRAPH_MODULE, "write", args, 3, "cannot write a subgraph", &pe);
		res = text ? cJSON_Parse(text) : NULL;
		ok = res && cJSON_IsString(cJSON_GetObjectItemCaseSensitive(res, "status")) &&
		     !strcmp(cJSON_GetObjectItemCaseSensitive(res, "status")->valuestring, "ok");
		free(text);
		free(nodes);
		cJSON_Delete(res);
		if (!ok) {
			/* A subgraph that cannot stand alone (onnx rejects it) is no candidate. */
			if (pe.code == EXIT_INTERRUPTED) {
				free(dir);
				*e = pe;
				return -1;
			}
			err_release(&pe);
			t->invalid++;
			t->next++;
			free(dir);
			continue;
		}
		job->key = xasprintf("%zu:%zu", r->cursor, t->next);
		job->request = session_request_dir(t->id, dir, t->random, t->tol);
		t->next++;
		t->inflight++;
		free(dir);
		return 1;
	}
	return 0;
}

static void ready(void *ctx, const char *version)
{
	struct reduce *r = ctx;

	free(r->version);
	r->version = version ? xstrdup(version) : NULL;
}

static int job_done(void *ctx, const struct runner_job *job, const struct runner_outcome *o, struct err *e)
{
	struct reduce *r = ctx;
	size_t ti = 0, k = 0;
	struct target *t;
	struct db_result res;
	struct buf msg = BUF_INIT, sig = BUF_INIT, key = BUF_INIT, stage = BUF_INIT;
	int ret = 0;

	if (sscanf(job->key, "%zu:%zu", &ti, &k) != 2 || ti >= r->n)
		return err_set(e, EXIT_ENV, "ferry reduce lost track of a candidate ('%s')", job->key);
	t = &r->t[ti];
	t->inflight--;
	if (o->end == RUNNER_REPLY && cJSON_IsString(cJSON_GetObjectItemCaseSensitive(o->reply, PROTO_KEY_UNAVAILABLE)))
		return err_set(e, EXIT_ENV, "frontend '%s' is unavailable for %s", r->label,
			       cJSON_GetObjectItemCaseSensitive(o->reply, PROTO_KEY_UNAVAILABLE)->valuestring);
	memset(&res, 0, sizeof(res));
	session_outcome(o, &res, &msg, &sig, &stage);
	t->tried++;
	if (k < t->ncands)
		t->ran[k] = 1;
	if (!strcmp(outcome_name(res.outcome), t->outcome)) {
		struct failure f = { t->frontend, t->op, t->outcome, res.stage, res.exc_type, res.frame, res.message };

		dedup_signature(&f, &key);
		if (!strcmp(key.data, t->signature) && (t->found < 0 || (long)k < t->found))
			t->found = (long)k;
	}
	/* Settled once nothing smaller can still fail the same way: the candidates before the one found
	 * were all handed out before it, and are now all back. */
	if (!t->settled && !t->inflight && (t->found >= 0 || t->next >= t->ncands))
		ret = settle(r, t, e);
	buf_release(&msg);
	buf_release(&sig);
	buf_release(&stage);
	buf_release(&key);
	return ret;
}

/* The frontend that gave the results labelled label: -F's, or the adapter NAME itself. */
static int frontend_for(const char *opt_frontend, const char *label, struct frontend *fe,
			const struct runner_opts *ro, struct err *e)
{
	if (opt_frontend && strchr(opt_frontend, '@')) {
		if (session_frontend(opt_frontend, fe, e) < 0 || session_frontend_label(fe, ro, e) < 0)
			return -1;
		if (fe->why) {
			err_set(e, EXIT_ENV, "frontend '%s': %s", opt_frontend, fe->why);
			frontend_release(fe);
			return -1;
		}
		return 0;
	}
	if (strchr(label, '@'))
		return err_set(e, EXIT_USAGE, "the failures of '%s' ran under another interpreter: reduce them with "
			       "-F NAME@PYTHON, PYTHON being that release's", label);
	{
		/* The label is the adapter's NAME; its failures are of ONNX tests, whatever it declares. */
		char *spec = xasprintf("%s:onnx", label);
		int r = session_frontend(spec, fe, e);

		free(spec);
		return r;
	}
}

static int run_frontend(struct reduce *r, size_t first, size_t last, struct err *e)
{
	struct runner_opts ro, base;
	struct runner_callbacks cb = { r, next_job, job_done, NULL, ready };
	struct frontend fe = { NULL, NULL, NULL, NULL, NULL, 0 };
	const char *wargv[5];
	char *env[2] = { NULL, NULL };
	char *self = NULL, *label_dir = NULL, *version = NULL;
	int ret = -1;

	memset(&base, 0, sizeof(base));
	base.jobs = r->a->jobs ? r->a->jobs : opts_default_jobs();
	base.timeout = r->a->timeout > 0 ? r->a->timeout : 60;
	base.start_timeout = 300;
	base.mem_limit = r->a->memory ? r->a->memory : opts_default_memory(base.jobs);
	base.stderr_cap = 64 * 1024;
	r->label = r->t[first].frontend;
	if (frontend_for(r->a->frontend, r->label, &fe, &base, e) < 0)
		goto out;
	if (strcmp(fe.label, r->label)) {
		err_set(e, EXIT_USAGE, "-F '%s' is release '%s', and the failures are those of '%s'", r->a->frontend,
			fe.label, r->label);
		goto out;
	}
	label_dir = safe_name(r->label);
	for (size_t i = first; i < last; i++) {
		struct target *t = &r->t[i];
		/* LABEL and ID.tmp are ferry's (and STORE.reduced, beside the store, where -o names no
		 * directory): a link planted there is refused before anything is removed or made through it. */
		int own = r->a->outdir ? 2 : 3, fd;
		char *id_dir;
		char *label = xasprintf("%s/%s", r->outdir, label_dir);

		fd = fs_dir_beneath(label, own - 1, 1, e);
		free(label);
		if (fd < 0)
			goto out;
		close(fd);
		id_dir = safe_name(t->id);  /* the store's (data): one file name, whatever it says */
		t->final = xasprintf("%s/%s/%s", r->outdir, label_dir, id_dir);
		free(id_dir);
		t->workdir = xasprintf("%s.tmp", t->final);
		if (fs_remove_tree(t->workdir, e) < 0 || (fd = fs_dir_beneath(t->workdir, own, 1, e)) < 0)
			goto out;
		close(fd);
	}
	self = fs_self_exe();
	session_worker_command(&fe, self, wargv, env);
	session_worker_opts(&ro, &base, wargv, env);
	r->first = r->cursor = first;
	r->last = last;
	ret = runner_run(&ro, &cb, &version, e);
	/* Whatever was still unsettled when the workers ran out of candidates. */
	for (size_t i = first; ret == 0 && i < last; i++)
		if (!r->t[i].settled)
			ret = settle(r, &r->t[i], e);
	for (size_t i = first; ret < 0 && i < last; i++)
		if (r->t[i].workdir) {
			struct err ignored = ERR_INIT;

			fs_remove_tree(r->t[i].workdir, &ignored);
			err_release(&ignored);
		}
out:
	frontend_release(&fe);
	free(env[0]);
	free(self);
	free(label_dir);
	free(version);
	return ret;
}

int reduce_run(const char *store, const char *const *bugs, size_t nbugs, const struct reduce_opts *a, FILE *out,
	       struct err *e)
{
	struct reduce r;
	int ret = -1;

	memset(&r, 0, sizeof(r));
	r.a = a;
	r.out = out;
	r.store = store;
	if (!fs_exists(r.store))
		return err_set(e, EXIT_INPUT, "cannot open the store '%s': No such file or directory", r.store);
	if (db_open(&r.db, r.store, DB_WRITE, e) < 0 || db_lock(&r.db, "ferry reduce", e) < 0 ||
	    locations_check(&r.db, r.store, a->warn, a->warn_ctx, e) < 0 ||
	    dedup_rebuild(&r.db, NULL, NULL, NULL, e) < 0)
		goto out;
	/* -F NAME@PYTHON selects by the release's label, known once its worker said it: below. */
	for (size_t i = 0; i < nbugs; i++) {
		struct by_prefix p = { &r, a->frontend && !strchr(a->frontend, '@') ? a->frontend : NULL, 0 };

		if (db_bugs_by_prefix(&r.db, bugs[i], take_prefixed, &p, e) < 0)
			goto out;
		if (!p.matches) {
			err_set(e, EXIT_INPUT, "no bug '%s' in '%s'%s%s (see ferry bugs)", bugs[i], r.store,
				p.frontend ? " for frontend " : "", p.frontend ? p.frontend : "");
			goto out;
		}
	}
	if (!nbugs &&
	    db_bugs(&r.db, a->frontend && !strchr(a->frontend, '@') ? a->frontend : NULL, take_any, &r, e) < 0)
		goto out;
	if (r.failures && r.not_onnx + r.no_instance == r.failures) {
		err_set(e, EXIT_INPUT, "'%s' has no failing ONNX test to reduce (ferry reduce reduces ONNX models; "
			"its %zu failure%s %s of other libraries)", r.store, r.failures, r.failures == 1 ? "" : "s",
			r.failures == 1 ? "is" : "are");
		goto out;
	}
	if (r.n && (py_start(a->python, 0, e) < 0 || plan_targets(&r, e) < 0))
		goto out;
	if (a->outdir) {
		r.outdir = fs_abspath(a->outdir);
	} else {
		char *abs = fs_abspath(r.store);

		r.outdir = xasprintf("%s.reduced", abs);
		free(abs);
	}
	if (r.n) /* r.t is NULL when nothing is to be reduced: qsort of NULL is undefined, even of 0 */
		qsort(r.t, r.n, sizeof(*r.t), by_frontend);
	for (size_t first = 0; first < r.n;) {
		size_t last = first;

		while (last < r.n && !strcmp(r.t[last].frontend, r.t[first].frontend))
			last++;
		if (run_frontend(&r, first, last, e) < 0) {
			if (e->code != EXIT_USAGE || !strchr(r.t[first].frontend, '@'))
				goto out;
			/* Another release's failures, without its interpreter: said, and the rest go on. */
			reduce_warn(&r, "%s", e->msg);
			err_release(e);
		}
		first = last;
	}
	fprintf(out, "%zu reduced, %zu not reducible, of %zu multi-node failures taken; %zu of one node, %zu reduced "
		"before%s, %zu neither crash nor mismatch\n", r.reduced, r.kept, r.n, r.one_node, r.done_before,
		r.done_before ? " (--again reduces them again)" : "", r.other_outcome);
	if (r.pairs)
		fprintf(out, "%zu disagreement%s of two frontends left to the result of the one that disagrees with "
			"the reference\n", r.pairs, r.pairs == 1 ? "" : "s");
	if (r.reduced)
		fprintf(out, "ferry show %s BUG: the reduced model is the reproducer\n", esc_str(r.store));
	ret = 0;
out:
	for (size_t i = 0; i < r.n; i++)
		target_release(&r.t[i]);
	free(r.t);
	free(r.outdir);
	free(r.version);
	strmap_release(&r.seen);
	db_close(&r.db);
	return ret;
}
