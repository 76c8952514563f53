/* report.c: ferry report's engine (report.h).
 *
 * Summarises a results store on the terminal: outcomes per frontend, the reasons the frontend gave
 * for what it does not support (grouped, with counts), the operators with failures, and the
 * failures themselves, each line led by what decides it (a crash's decisive line, a mismatch's
 * NaN/Inf and out-of-tolerance counts before its largest difference), what the frontend supports
 * by (operator, dtype) as its probes found (oracle/probe.h), and the frontends whose
 * release could not take their format at all. With -o, writes one standalone reproducer script per
 * failure (made by the source library's template: it needs only the library and the compiler, not
 * ferry). */
#include "py.h"
#include "report.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "classify.h"
#include "db.h"
#include "dedup.h"
#include "esc.h"
#include "filing.h"
#include "locations.h"
#include "session.h"
#include "strmap.h"
#include "summary.h"
#include "fsutil.h"
#include "outdir.h"
#include "htmlreport.h"
#include "triage.h"
#include "probe.h"
#include "tolerance.h"
#include "xalloc.h"

#define FAILURES_SHOWN 40
#define REASONS_SHOWN 12
#define WORTH_FILING 10   /* the head of the filing order the report shows */

struct report {
	const struct report_opts *o;  /* borrowed */
	FILE *out;
	struct db db;
	const char *frontend;   /* NULL: all */
	const char *glob;       /* --op, or NULL */
	size_t width;           /* of a line on the terminal; 0: no limit */
	struct summary sum;
	int all;
	int any;                /* a frontend was printed */
	long long shown;        /* failures listed of the frontend being printed */
	struct strmap probes;   /* the probes of the frontend being printed (probe.h) */
	/* Writing reproducers. */
	const char *outdir;
	size_t written, failed;
	size_t metamorphic;  /* failures of the metamorphic oracle: ferry show writes theirs */
	struct triage triage;   /* the decisions about bugs (triage.h) */
};

static void report_warn(const struct report *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* A line for o->warn. */
static void report_warn(const struct report *r, const char *fmt, ...)
{
	struct buf line = BUF_INIT;
	va_list ap;

	va_start(ap, fmt);
	buf_vaddf(&line, fmt, ap);
	va_end(ap);
	if (r->o->warn)
		r->o->warn(r->o->warn_ctx, line.data);
	buf_release(&line);
}

static int print_instances(struct report *r, struct err *e)
{
	struct db_summary s;

	if (db_summary(&r->db, &s, e) < 0)
		return -1;
	fprintf(r->out, "store %s: %lld instances of %lld operators (%lld valid, %lld invalid, %lld with random "
		"outputs)\n", esc_str(r->db.path), s.instances, s.ops, s.valid, s.invalid, s.random);
	return 0;
}

/* Spec questions: the instances whose source test wrote expected outputs (a C++ test's AddOutput
 * values) that onnx's reference evaluator does not give. wrap compared them and wrote the verdict in
 * the test directory's meta.json ("expected"); neither side is trusted over the other, so they are
 * listed here as questions for the spec, not counted as any frontend's failure. */
struct questions {
	const char *glob;
	struct strmap seen;
	long long compared, disagree;
	struct buf lines;
};

static int add_question(void *ctx, const struct db_row *row, struct err *e)
{
	struct questions *q = ctx;
	struct buf text = BUF_INIT;
	struct err ignored = ERR_INIT;
	cJSON *meta = NULL, *ex, *d;
	char *path;
	int created;

	(void)e;
	if (!row->dir || !row->op || !summary_op_matches(q->glob, row->op) ||
	    (strmap_get(&q->seen, row->id, &created), !created))
		return 0;
	path = xasprintf("%s/meta.json", row->dir);
	/* a test directory removed since the run: nothing to say about it */
	if (fs_read(path, &text, &ignored) == 0 && (meta = cJSON_Parse(text.data)) &&
	    cJSON_IsObject(ex = cJSON_GetObjectItemCaseSensitive(meta, "expected"))) {
		q->compared++;
		if (cJSON_IsFalse(cJSON_GetObjectItemCaseSensitive(ex, "agrees"))) {
			cJSON *where, *diff;

			q->disagree++;
			d = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(ex, "disagree"), 0);
			where = cJSON_GetObjectItemCaseSensitive(d, "where");
			diff = cJSON_GetObjectItemCaseSensitive(d, "max_abs_diff");
			buf_addf(&q->lines, "    %-24s %.12s  output %d, %s", esc_str(row->op), row->id,
				 cJSON_GetObjectItemCaseSensitive(d, "output") ?
				 cJSON_GetObjectItemCaseSensitive(d, "output")->valueint : 0,
				 cJSON_IsString(where) ? esc_str(where->valuestring) : "?");
			if (cJSON_IsNumber(diff))
				buf_addf(&q->lines, " (max |diff| %.3g)", diff->valuedouble);
			buf_addc(&q->lines, '\n');
		}
	}
	cJSON_Delete(meta);
	err_release(&ignored);
	buf_release(&text);
	free(path);
	return 0;
}

static int print_questions(struct report *r, struct err *e)
{
	struct questions q;
	int rc;

	memset(&q, 0, sizeof(q));
	strmap_init(&q.seen);
	q.glob = r->glob;
	rc = db_results_with(&r->db, r->frontend, NULL, add_question, &q, e);
	if (rc == 0 && q.compared) {
		fprintf(r->out, "\nspec questions: %lld of the %lld instances whose source test wrote expected outputs "
			"disagree with onnx's reference evaluator\n", q.disagree, q.compared);
		if (q.lines.len)
			fputs(q.lines.data, r->out);
	}
	buf_release(&q.lines);
	strmap_release(&q.seen);
	return rc;
}

/* The outcomes of a frontend's tests (in the order of enum outcome), and the operators with failures. */
static void print_counts(FILE *out, const struct summary_frontend *f)
{
	for (int o = 0; o < OUTCOME_COUNT; o++)
		if (f->outcomes[o])
			fprintf(out, "  %-12s %6lld\n", outcome_name(o), f->outcomes[o]);
	if (f->other)
		fprintf(out, "  %-12s %6lld\n", "other", f->other);
	fprintf(out, "  %-12s %6lld\n", "total", f->total);
}

static void print_ops(FILE *out, const struct summary_frontend *f)
{
	size_t n;
	struct strmap_entry **ops = summary_failing_ops(f, 25, &n);

	if (n)
		fprintf(out, "\n  operators with failures    tests  mismatch  crash  timeout/oom\n");
	for (size_t i = 0; i < n; i++) {
		const struct summary_op *o = ops[i]->ptr;

		fprintf(out, "  %-24s %7lld %9lld %6lld %12lld\n",
			esc_str(ops[i]->key), o->tests, o->mismatch, o->crash,
			o->timeout_oom);
	}
	free(ops);
}

/* --- unsupported reasons ------------------------------------------------------------------------- */

struct reason {
	char *text;          /* the line a pattern matched (else the decisive line) of its first test */
	struct strmap ops;   /* operator -> tests */
	long long n;
	/* Its tests by their group's probe (probe.h): a class, or none. */
	long long by_probe[PROBE_NCLASSES];
	const struct probe_row *probe;   /* one such probe (the map's) */
	struct strmap groups;            /* the groups probed: "OP\tDTYPE" */
};

struct reasons {
	struct strmap by_key;       /* normalised reason -> struct reason */
	struct classify patterns;   /* the frontend's, to find the line that earned "unsupported" */
	const struct strmap *probes;
	const char *glob;
};

/* One unsupported result joins the reason named by the line of its message that a pattern matches
 * (what the frontend said it lacks: in OpenVINO's report, "No conversion rule found for aten.x" can
 * come after a later translator's failure that it caused), normalised; else by its decisive line. */
static int add_unsupported(void *ctx, const struct db_row *row, struct err *e)
{
	struct reasons *all = ctx;
	struct strmap *reasons = &all->by_key;
	struct buf decisive = BUF_INIT, key = BUF_INIT;
	struct strmap_entry *ent;
	struct reason *r;
	int created;

	(void)e;
	if (!summary_op_matches(all->glob, row->op))
		return 0;
	if (classify_matched_line(&all->patterns, row->exc_type, row->message, &key)) {
		dedup_decisive(key.data, &decisive); /* the line, its status prefixes and locations dropped */
		buf_reset(&key);
	} else {
		dedup_decisive(row->message, &decisive);
	}
	dedup_normalize(decisive.data ? decisive.data : "", &key);
	ent = strmap_get(reasons, key.data ? key.data : "", &created);
	if (created) {
		r = xcalloc(1, sizeof(*r));
		r->text = buf_detach(&decisive);
		ent->ptr = r;
	}
	r = ent->ptr;
	r->n++;
	strmap_get(&r->ops, row->op ? row->op : "?", NULL)->count++;
	{
		const struct probe_row *p = probe_map_find(all->probes, row->record);

		if (p) {
			struct buf g = BUF_INIT;

			r->by_probe[p->cls]++;
			r->probe = p;
			buf_addf(&g, "%s\t%s", p->op, p->dtype);
			strmap_get(&r->groups, g.data, NULL);
			buf_release(&g);
		}
	}
	buf_release(&decisive);
	buf_release(&key);
	return 0;
}

/* The first line of a message, in line (cut to its size); returns line. */
static const char *first_line(const char *msg, char *line, size_t size)
{
	snprintf(line, size, "%.*s", (int)strcspn(msg ? msg : "", "\n"), msg ? msg : "");
	return line;
}

/* What the probes say of a reason's tests: whether the frontend lacks the (operator, dtype) group
 * itself, or only this form of it. */
static void print_reason_probe(FILE *out, const struct reason *r)
{
	long long unsup = r->by_probe[PROBE_UNSUPPORTED], sup = r->by_probe[PROBE_SUPPORTED];
	long long failing = r->by_probe[PROBE_FAILING], known = unsup + sup + failing;
	const struct probe_row *p = r->probe;
	char more[64] = "";

	if (!known)
		return;
	if (r->groups.len > 1)
		snprintf(more, sizeof(more), " (and %zu more groups)", r->groups.len - 1);
	if (known == r->n && unsup == known) {
		struct buf why = BUF_INIT;
		char line[256];

		dedup_decisive(p->message ? p->message : "", &why);
		fprintf(out, "          probe: %s %s unsupported%s: %.100s\n", esc_str(p->op), esc_str(p->dtype), more,
			esc_str(first_line(why.data, line, sizeof(line))));
		buf_release(&why);
	}
	else if (known == r->n && sup == known)
		fprintf(out, "          the simplest %s %s test %s%s: this form is what it lacks\n", esc_str(p->op),
			esc_str(p->dtype), !strcmp(p->outcome, "pass") ? "passes" : "runs", more);
	else
		fprintf(out, "          probes of its tests' groups: %lld unsupported, %lld supported, %lld "
			"failing%s\n", unsup, sup, failing, known < r->n ? ", some not probed" : "");
}

static int by_count(const void *a, const void *b)
{
	const struct reason *x = *(struct reason *const *)a, *y = *(struct reason *const *)b;

	return x->n != y->n ? (x->n < y->n ? 1 : -1) : strcmp(x->text, y->text);
}

/* "unsupported reasons": each reason once, with its tests and operators, the commonest first. */
static int print_reasons(struct report *r, const char *fe, struct err *e)
{
	struct reasons all = { STRMAP_INIT, CLASSIFY_INIT, &r->probes, r->glob };
	char *adapter = session_adapter_name(fe);
	struct strmap reasons;
	struct reason **list;
	struct err ignored = ERR_INIT;
	size_t n = 0;
	int ret = -1;

	/* Patterns that no longer load (a frontend gone, a user's file moved) only cost the matched line. */
	if (classify_load_frontend(&all.patterns, adapter, &ignored) < 0)
		classify_release(&all.patterns);
	if (db_results_with(&r->db, fe, "unsupported", add_unsupported, &all, e) < 0) {
		reasons = all.by_key;
		goto out;
	}
	reasons = all.by_key;
	list = xcalloc(reasons.len + 1, sizeof(*list));
	for (size_t i = 0; i < reasons.cap; i++)
		if (reasons.slots[i].key)
			list[n++] = reasons.slots[i].ptr;
	qsort(list, n, sizeof(*list), by_count);
	if (n)
		fprintf(r->out, "\n  unsupported: %zu reason%s    tests  (operators)\n", n, n == 1 ? "" : "s");
	for (size_t i = 0; i < n; i++) {
		struct strmap_entry **ops;
		struct buf line = BUF_INIT;
		size_t k;

		if (!r->all && i >= REASONS_SHOWN) {
			fprintf(r->out, "  ... and %zu more reasons (ferry report --all)\n", n - REASONS_SHOWN);
			break;
		}
		for (char *c = list[i]->text; *c; c++)
			if (*c == '\n')
				*c = ' ';
		ops = strmap_sorted(&list[i]->ops);
		for (k = 0; ops[k] && k < 3; k++)
			buf_addf(&line, "%s%s", k ? ", " : "", ops[k]->key);
		if (list[i]->ops.len > k)
			buf_addf(&line, " +%zu", list[i]->ops.len - k);
		{
			/* The operators go first on a terminal: the reason may be long. */
			const char *ops_text = esc_str(line.data ? line.data : "");

			fprintf(r->out, "  %6lld  ", list[i]->n);
			summary_print_cut(r->out, esc_str(list[i]->text), 10 + strlen(ops_text) + 4, r->width);
			fprintf(r->out, "  (%s)\n", ops_text);
		}
		print_reason_probe(r->out, list[i]);
		free(ops);
		buf_release(&line);
	}
	free(list);
	ret = 0;
out:
	for (size_t i = 0; i < reasons.cap; i++) {
		struct reason *x = reasons.slots[i].key ? reasons.slots[i].ptr : NULL;

		if (x) {
			free(x->text);
			strmap_release(&x->ops);
			strmap_release(&x->groups);
			free(x);
		}
	}
	strmap_release(&reasons);
	classify_release(&all.patterns);
	free(adapter);
	return ret;
}

/* --- failures ----------------------------------------------------------------------------------- */

/* Under a failure that ferry reduce reduced: the subgraph's nodes, the operators that decide. */
static int print_reduction(void *ctx, const struct db_reduction *x, struct err *e)
{
	const struct report *r = ctx;

	(void)e;
	if (!strcmp(x->status, "reduced"))
		fprintf(r->out, "  %-9s %-20s reduced from %lld to %lld node%s: %s\n",
			"", "", x->nodes_before, x->nodes_after,
			x->nodes_after == 1 ? "" : "s", esc_str(x->ops ? x->ops : "?"));
	return 0;
}

static int print_failure(void *ctx, const struct db_row *row, struct err *e)
{
	struct report *r = ctx;
	const char *stage = row->stage ? row->stage : "", *mark = "";
	struct buf line = BUF_INIT, head = BUF_INIT;
	cJSON *prov;

	(void)e;
	if (!summary_op_matches(r->glob, row->op))
		return 0;
	if (!r->shown)
		fprintf(r->out, "\n  failures:\n");
	if (!r->all && r->shown >= FAILURES_SHOWN) {
		r->shown++;
		return 0;
	}
	/* One line per failure, led by what decides it, then the whole message (summary.h). */
	summary_failure_line(row->outcome, row->exc_type, row->message, SUMMARY_WHOLE, &line);
	/* A crash in an (operator, dtype) group whose simplest test passes is a bug in a path the
	 * frontend supports, not the edge of what it supports. */
	if (outcome_name_is_bug(row->outcome) && strcmp(row->outcome, "mismatch")) {
		const struct probe_row *p = probe_map_find(&r->probes, row->record);

		mark = p && !strcmp(p->outcome, "pass") ? "(simplest form passes) " : "";
	}
	buf_addf(&head, "  %-9s %-20s %.12s  ", esc_str(row->outcome), esc_str(row->op), esc_str(row->id));
	/* A test ferry made says so: a variant under its parent's name alone reads as the parent. */
	if ((prov = row->record ? cJSON_Parse(row->record) : NULL) && record_origin(prov) != RECORD_HARVESTED) {
		char *what = record_what(prov);

		buf_addf(&head, "(%s) ", esc_str(what));
		free(what);
	}
	cJSON_Delete(prov);
	buf_addf(&head, "%s%s%s%s", *stage ? "[" : "", esc_str(stage), *stage ? "] " : "", mark);
	fputs(head.data, r->out);
	summary_print_cut(r->out, esc_str(line.data), head.len, r->width);
	fputc('\n', r->out);
	buf_release(&head);
	buf_release(&line);
	r->shown++;
	return db_reductions(&r->db, row->frontend, row->id, print_reduction, r, e) < 0 ? -1 : 0;
}

/* --- what the frontend supports ------------------------------------------------------------------ */

#define SUPPORT_OPS_SHOWN 25

static int by_group(const void *a, const void *b)
{
	const struct probe_row *x = *(struct probe_row *const *)a, *y = *(struct probe_row *const *)b;
	int c = strcmp(x->op, y->op);

	return c ? c : strcmp(x->dtype, y->dtype);
}

/* "support": the groups the probes found supported, unsupported and failing; the last two listed
 * by operator with their dtypes. */
static void print_support(struct report *r, const char *version)
{
	const struct strmap *m = &r->probes;
	struct probe_row **list;
	size_t n = 0, counts[PROBE_NCLASSES] = { 0 };

	if (!m->len)
		return;
	list = xcalloc(m->len, sizeof(*list));
	for (size_t i = 0; i < m->cap; i++)
		if (m->slots[i].key) {
			list[n] = m->slots[i].ptr;
			counts[list[n++]->cls]++;
		}
	qsort(list, n, sizeof(*list), by_group);
	fprintf(r->out, "\n  support (probes of %s): %zu (operator, dtype) groups: %zu supported, %zu unsupported, "
		"%zu failing\n", version && *version ? esc_str(version) : "this release", n, counts[PROBE_SUPPORTED],
		counts[PROBE_UNSUPPORTED], counts[PROBE_FAILING]);
	for (int c = PROBE_UNSUPPORTED; c <= PROBE_FAILING; c++) {
		size_t ops = 0;

		for (size_t i = 0; i < n;) {
			struct buf line = BUF_INIT;
			size_t k = i;

			if (list[i]->cls != (enum probe_class)c) {
				i++;
				continue;
			}
			for (; k < n && !strcmp(list[k]->op, list[i]->op); k++)
				if (list[k]->cls == (enum probe_class)c)
					buf_addf(&line, "%s%s", line.len ? " " : "", list[k]->dtype);
			if (r->all || ops < SUPPORT_OPS_SHOWN)
				fprintf(r->out, "    %-12s %-24s %s\n",
					ops ? "" : probe_class_name(c), esc_str(list[i]->op),
					esc_str(line.data));
			ops++;
			buf_release(&line);
			i = k;
		}
		if (!r->all && ops > SUPPORT_OPS_SHOWN)
			fprintf(r->out, "    %-12s ... and %zu more operators (ferry report --all)\n", "",
				ops - SUPPORT_OPS_SHOWN);
	}
	free(list);
}

static int print_frontend(struct report *r, const struct summary_frontend *f, struct err *e)
{
	const char *fe = f->name;
	char *version = f->version ? xstrdup(f->version) : NULL;

	fprintf(r->out, "\nfrontend %s", esc_str(fe));
	if (version)
		fprintf(r->out, " (%s)", esc_str(version));
	fprintf(r->out, ":\n");
	r->any = 1;
	probe_map_release(&r->probes);
	/* The probes of the release its latest run reported, which are those of its results as a rule. */
	if (probe_map_load(&r->probes, &r->db, fe, version, e) < 0) {
		free(version);
		return -1;
	}
	print_counts(r->out, f);
	print_support(r, version);
	free(version);
	if (print_reasons(r, fe, e) < 0)
		return -1;
	print_ops(r->out, f);
	r->shown = 0;
	if (db_failures(&r->db, fe, DB_BY_OUTCOME, print_failure, r, e) < 0)
		return -1;
	if (!r->all && r->shown > FAILURES_SHOWN)
		fprintf(r->out, "  ... and %lld more (ferry report --all)\n", r->shown - FAILURES_SHOWN);
	return 0;
}

/* --- releases side by side ----------------------------------------------------------------------
 * One adapter stored under two or more labels (NAME, NAME@VERSION): each older release against the
 * next newer one over the tests both ran. Releases are ordered by the versions the frontends
 * reported, in version-number order (strverscmp: 2023.0.0 before 2026.4.0, 1.9 before 1.22). */

struct release {
	char *label, *version;
};

/* A result of the older release, by test id (in a strmap's ptr). */
struct older {
	int failure, pass, error;  /* the frontend failed; passed; ferry could not build the test */
	char *signature, *example;
};

/* The tests of one column of the table, grouped by bug (signature -> count, ptr the example). */
struct column {
	const char *name, *says;   /* says: what the older release did (NULL: failing in both) */
	size_t tests;
	struct strmap bugs;
};

struct releases {
	struct report *r;
	const char *adapter;
	struct release *list;
	size_t n, cap;
	struct strmap older;       /* the older release's results */
	struct column col[3];      /* fixed since, new in, still failing */
	size_t both, errors;       /* tests both ran; of them, ferry's errors in either */
};

static int add_release(void *ctx, const char *fe, struct err *e)
{
	struct releases *x = ctx;
	char *adapter = session_adapter_name(fe);
	int same = !strcmp(adapter, x->adapter);

	free(adapter);
	if (!same)
		return 0;
	XGROW(x->list, x->cap, x->n + 1);
	x->list[x->n].label = xstrdup(fe);
	if (db_frontend_version(&x->r->db, fe, &x->list[x->n].version, e) < 0)
		return -1;
	x->n++;
	return 0;
}

static int by_version(const void *a, const void *b)
{
	const struct release *x = a, *y = b;
	int c = strverscmp(x->version ? x->version : "", y->version ? y->version : "");

	return c ? c : strcmp(x->label, y->label);
}

/* The bug a failure belongs to (dedup's signature, under the adapter's name so that one cause in two
 * releases is one bug) and how to name it: the operator and the message's decisive line. */
static void bug_of(const struct db_row *row, const char *adapter, char **signature, char **example)
{
	struct failure f = { adapter, row->op ? row->op : "?", row->outcome, row->stage, row->exc_type, row->frame,
			     row->message };
	struct buf sig = BUF_INIT, line = BUF_INIT;

	dedup_signature(&f, &sig);
	buf_addf(&line, "%s %s: ", row->outcome, row->op ? row->op : "?");
	dedup_decisive(row->message ? row->message : "", &line);
	*signature = buf_detach(&sig);
	*example = buf_detach(&line);
}

/* A failure of the frontend's: ferry's own errors (a test it could not build) are the same under any
 * release, and say nothing of either. */
static int frontend_failed(const char *outcome)
{
	return outcome_name_is_failure(outcome) && strcmp(outcome, outcome_name(OUTCOME_ERROR));
}

static int add_older(void *ctx, const struct db_row *row, struct err *e)
{
	struct releases *x = ctx;
	struct older *o;

	(void)e;
	if (!summary_op_matches(x->r->glob, row->op))
		return 0;
	o = xcalloc(1, sizeof(*o));
	o->failure = frontend_failed(row->outcome);
	o->pass = !strcmp(row->outcome, "pass");
	o->error = !strcmp(row->outcome, outcome_name(OUTCOME_ERROR));
	if (o->failure)
		bug_of(row, x->adapter, &o->signature, &o->example);
	strmap_get(&x->older, row->id, NULL)->ptr = o;
	return 0;
}

static void count_in(struct column *c, const char *signature, const char *example)
{
	struct strmap_entry *b = strmap_get(&c->bugs, signature, NULL);

	c->tests++;
	if (!b->count++)
		b->ptr = xstrdup(example);
}

static int add_newer(void *ctx, const struct db_row *row, struct err *e)
{
	struct releases *x = ctx;
	struct strmap_entry *t = strmap_find(&x->older, row->id);
	const struct older *o = t ? t->ptr : NULL;
	int failure = frontend_failed(row->outcome), pass = !strcmp(row->outcome, "pass");
	char *sig = NULL, *example = NULL;

	(void)e;
	if (!o)
		return 0;
	x->both++;
	if (o->error || !strcmp(row->outcome, outcome_name(OUTCOME_ERROR)))
		x->errors++;
	else if (o->failure && pass)
		count_in(&x->col[0], o->signature, o->example);
	else if (o->pass && failure) {
		bug_of(row, x->adapter, &sig, &example);
		count_in(&x->col[1], sig, example);
	} else if (o->failure && failure) {
		bug_of(row, x->adapter, &sig, &example);
		count_in(&x->col[2], sig, example);
	}
	free(sig);
	free(example);
	return 0;
}

static void column_release(struct column *c)
{
	for (size_t i = 0; i < c->bugs.cap; i++)
		free(c->bugs.slots[i].key ? c->bugs.slots[i].ptr : NULL);
	strmap_release(&c->bugs);
	c->tests = 0;
}

static void older_release(struct strmap *m)
{
	for (size_t i = 0; i < m->cap; i++) {
		struct older *o = m->slots[i].key ? m->slots[i].ptr : NULL;

		if (o) {
			free(o->signature);
			free(o->example);
			free(o);
		}
	}
	strmap_release(m);
}

#define RELEASE_BUGS_SHOWN 3

static void print_column(FILE *out, const struct column *c, const struct release *older,
			 const struct release *newer, size_t width)
{
	struct strmap_entry **sorted = strmap_sorted(&c->bugs);
	/* Release numbers, as labels have them: the builds are in the frontends' headings above. */
	const char *o = older->version ? older->version : older->label;
	const char *n = newer->version ? newer->version : newer->label;
	int on = (int)strspn(o, SESSION_RELEASE_CHARS), nn = (int)strspn(n, SESSION_RELEASE_CHARS);
	char *ov = xasprintf("%.*s", on ? on : (int)strlen(o), o), *nv = xasprintf("%.*s", nn ? nn : (int)strlen(n), n);

	fprintf(out, "    %-14s %5zu tests, %zu bug%s  (", c->name, c->tests, c->bugs.len, c->bugs.len == 1 ? "" : "s");
	if (c->says)
		fprintf(out, "%s %s, %s %s)\n", c->says, esc_str(ov),
			strcmp(c->says, "failing in") ? "failing in" : "passing in", esc_str(nv));
	else
		fprintf(out, "failing in %s and in %s)\n", esc_str(ov), esc_str(nv));
	free(ov);
	free(nv);
	for (size_t i = 0; i < c->bugs.len && i < RELEASE_BUGS_SHOWN; i++)
	{
		fprintf(out, "      %4zu  ", sorted[i]->count);
		summary_print_cut(out, esc_str(sorted[i]->ptr), 12, width);
		fputc('\n', out);
	}
	if (c->bugs.len > RELEASE_BUGS_SHOWN)
		fprintf(out, "       ... and %zu more bugs\n", c->bugs.len - RELEASE_BUGS_SHOWN);
	free(sorted);
}

/* The releases table of the adapter behind label fe, when the store holds it under two labels. */
static int print_releases(struct report *r, const char *adapter, struct err *e)
{
	struct releases x;
	int ret = -1;

	memset(&x, 0, sizeof(x));
	x.r = r;
	x.adapter = adapter;
	x.col[0] = (struct column){ "fixed since", "failing in", 0, STRMAP_INIT };
	x.col[1] = (struct column){ "new in", "passing in", 0, STRMAP_INIT };
	x.col[2] = (struct column){ "still failing", NULL, 0, STRMAP_INIT };
	if (db_frontends(&r->db, NULL, add_release, &x, e) < 0)
		goto out;
	if (x.n < 2) {
		ret = 0;
		goto out;
	}
	qsort(x.list, x.n, sizeof(*x.list), by_version);
	fprintf(r->out, "\nreleases of %s (each against the next newer, ordered by the versions they reported):\n",
		esc_str(adapter));
	for (size_t i = 0; i + 1 < x.n; i++) {
		const struct release *older = &x.list[i], *newer = &x.list[i + 1];

		x.both = x.errors = 0;
		if (db_results_with(&r->db, older->label, NULL, add_older, &x, e) < 0 ||
		    db_results_with(&r->db, newer->label, NULL, add_newer, &x, e) < 0)
			goto out;
		fprintf(r->out, "  %s -> %s: %zu tests both ran", esc_str(older->label), esc_str(newer->label), x.both);
		if (x.errors)
			fprintf(r->out, ", %zu left out (ferry's own error in either)", x.errors);
		fputc('\n', r->out);
		for (size_t k = 0; k < 3; k++) {
			print_column(r->out, &x.col[k], older, newer, r->width);
			column_release(&x.col[k]);
		}
		older_release(&x.older);
	}
	r->any = 1;
	ret = 0;
out:
	for (size_t k = 0; k < 3; k++)
		column_release(&x.col[k]);
	older_release(&x.older);
	for (size_t i = 0; i < x.n; i++) {
		free(x.list[i].label);
		free(x.list[i].version);
	}
	free(x.list);
	return ret;
}

struct adapters {
	struct report *r;
	struct strmap seen;
};

static int releases_of(void *ctx, const char *fe, struct err *e)
{
	struct adapters *a = ctx;
	char *adapter = session_adapter_name(fe);
	int created = 0, r = 0;

	strmap_get(&a->seen, adapter, &created);
	if (created)
		r = print_releases(a->r, adapter, e);
	free(adapter);
	return r;
}

/* A releases table per adapter stored under two labels or more (with -F, the one of its adapter). */
static int print_all_releases(struct report *r, struct err *e)
{
	struct adapters a = { r, STRMAP_INIT };
	int ret;

	if (r->frontend) {
		char *adapter = session_adapter_name(r->frontend);

		ret = print_releases(r, adapter, e);
		free(adapter);
		return ret;
	}
	ret = db_frontends(&r->db, NULL, releases_of, &a, e);
	strmap_release(&a.seen);
	return ret;
}

/* "frontend X (release): unavailable for FORMAT: why", once: its tests were left for another run. */
static int print_unavailable(void *ctx, const char *fe, const char *version, const char *why, struct err *e)
{
	struct report *r = ctx;

	(void)e;
	fprintf(r->out, "\nfrontend %s", esc_str(fe));
	if (version)
		fprintf(r->out, " (%s)", esc_str(version));
	fprintf(r->out, ": %s\n", esc_str(why));
	r->any = 1;
	return 0;
}

/* s as one file name: '/' and a leading '.' (".", "..") made '_'. Caller frees. */
static char *file_name(const char *s)
{
	char *n = xstrdup(s && *s ? s : "_");

	for (char *c = n; *c; c++)
		if (*c == '/')
			*c = '_';
	if (n[0] == '.')
		n[0] = '_';
	return n;
}

/* One reproducer: ferry.oracle.reproducer.reproducer(library, record, testdir, frontend, atol, rtol), with
 * the tolerance that judged the result (the default for a result stored before results kept one),
 * written to ROOT/FRONTEND/OP-ID.py (the last own components of ROOT/FRONTEND are ferry's); *path
 * (when not NULL) gets that path, or NULL when no reproducer could be made (warned). A failure of the
 * metamorphic oracle is the mutated model's: the reference's script would not show it (ferry show BUG
 * -o DIR writes its own, with both models). */
static int reproduce_into(struct report *r, const struct db_row *row, const char *root, int own, char **path_out,
			  struct err *e)
{
	const char *op = row->op ? row->op : "?";
	char atol[40], rtol[40];
	char *culprit = session_pair_culprit(row->frontend, row->exc_type);
	char *adapter = session_adapter_name(culprit);
	const char *args[] = { row->library, row->record ? row->record : "", row->dir ? row->dir : "", adapter,
			       atol, rtol };
	struct err pe = ERR_INIT;
	char module[80], *script = NULL, *dir = NULL, *path = NULL, *safe_op = NULL, *safe_fe = NULL, *name = NULL;
	int bad, fd = -1, ret = -1;

	if (path_out)
		*path_out = NULL;
	snprintf(atol, sizeof(atol), "%.17g", isnan(row->atol) ? TOLERANCE_DEFAULT_ATOL : row->atol);
	snprintf(rtol, sizeof(rtol), "%.17g", isnan(row->rtol) ? TOLERANCE_DEFAULT_RTOL : row->rtol);
	if ((bad = db_mutation(&r->db, row->frontend, row->id, NULL, NULL, e)) != 0) {
		r->metamorphic += bad > 0;
		ret = bad < 0 ? -1 : 0;
		goto out;
	}
	if (py_start(r->o->python, 1, e) < 0)
		goto out;
	if (!row->library || py_template_module(row->library, module, sizeof(module), &pe) < 0
	    || !(script = py_call_strings("ferry.oracle.reproducer", "reproducer", args, 6, "cannot make a reproducer",
					  &pe))) {
		report_warn(r, "%s %s: %s", op, row->id, row->library ? pe.msg : "the store has no instance for it");
		r->failed++;
		ret = 0;
		goto out;
	}
	safe_op = xstrdup(op);
	for (char *c = safe_op; *c; c++)
		if (*c == '/' || *c == ' ')
			*c = '_';
	/* The frontend and the id are the store's (data): each a file name, whatever they say. */
	safe_fe = file_name(row->frontend);
	name = xasprintf("%s-%.12s.py", safe_op, row->id);
	for (char *c = name; *c; c++)
		if (*c == '/')
			*c = '_';
	dir = xasprintf("%s/%s", root, safe_fe);
	path = xasprintf("%s/%s", dir, name);
	/* ROOT is the user's; FRONTEND (and the page's reproducers/) are ferry's: no link there followed. */
	if ((fd = fs_dir_beneath(dir, own, 1, e)) < 0 ||
	    fs_write_beneath(fd, name, path, script, strlen(script), e) < 0)
		goto out;
	r->written++;
	if (path_out) {
		*path_out = path;
		path = NULL;
	}
	ret = 0;
out:
	if (fd >= 0)
		close(fd);
	err_release(&pe);
	free(culprit);
	free(adapter);
	free(dir);
	free(path);
	free(safe_op);
	free(safe_fe);
	free(name);
	free(script);
	return ret;
}

static int write_reproducer(void *ctx, const struct db_row *row, struct err *e)
{
	struct report *r = ctx;

	if (!summary_op_matches(r->glob, row->op))
		return 0;
	return reproduce_into(r, row, r->outdir, 1, NULL, e);
}

/* htmlreport's: the reproducer of a bug's representative. */
static int reproduce_for_page(void *ctx, const struct db_row *row, const char *root, char **path, struct err *e)
{
	return reproduce_into(ctx, row, root, 2, path, e);
}

/* Write a reproducer per failure. */
static int write_reproducers(struct report *r, const char *outdir, struct err *e)
{
	r->outdir = outdir;
	r->written = r->failed = 0;
	if (py_start(r->o->python, 1, e) < 0)
		return -1;
	if (db_failures(&r->db, r->frontend, DB_BY_OP, write_reproducer, r, e) < 0)
		return -1;
	fprintf(r->out, "\nreproducers: %zu written to %s/FRONTEND/OP-ID.py%s\n", r->written, esc_str(outdir),
		r->failed ? " (some could not be made; see the warnings)" : "");
	if (r->metamorphic)
		fprintf(r->out, "  and %zu failures of the metamorphic oracle, whose reproducers (the original and the "
			"mutated model side by side) ferry show BUG -o DIR writes\n", r->metamorphic);
	return 0;
}

/* --- --json --------------------------------------------------------------------------------------- */

static cJSON *json_string_or_null(const char *s)
{
	return s ? cJSON_CreateString(s) : cJSON_CreateNull();
}

static cJSON *json_number_or_null(double v)
{
	return isnan(v) ? cJSON_CreateNull() : cJSON_CreateNumber(v);
}

/* Where json_failure adds a failure, and which. */
struct json_failures {
	cJSON *list;
	const char *glob;       /* --op, or NULL */
};

static int json_failure(void *ctx, const struct db_row *row, struct err *e)
{
	const struct json_failures *jf = ctx;
	cJSON *list = jf->list, *o, *prov;
	struct buf line = BUF_INIT;
	const char *glob = jf->glob;
	char *name;

	(void)e;
	if (!summary_op_matches(glob, row->op))
		return 0;
	summary_failure_line(row->outcome, row->exc_type, row->message, 0, &line);
	o = cJSON_CreateObject();
	cJSON_AddStringToObject(o, "id", row->id);
	cJSON_AddItemToObject(o, "op", json_string_or_null(row->op));
	if ((prov = row->record ? cJSON_Parse(row->record) : NULL)) {
		name = record_name(prov, row->id);
		cJSON_AddStringToObject(o, "origin", record_origin_name(record_origin(prov)));
		cJSON_AddStringToObject(o, "name", name);
		free(name);
		cJSON_Delete(prov);
	}
	cJSON_AddStringToObject(o, "outcome", row->outcome);
	cJSON_AddItemToObject(o, "stage", json_string_or_null(row->stage));
	cJSON_AddItemToObject(o, "exc_type", json_string_or_null(row->exc_type));
	/* line: what decides first (summary.h); message: as the frontend said it */
	cJSON_AddStringToObject(o, "line", line.data);
	cJSON_AddItemToObject(o, "message", json_string_or_null(row->message));
	cJSON_AddItemToObject(o, "seconds", json_number_or_null(row->seconds));
	cJSON_AddItemToObject(o, "max_abs", json_number_or_null(row->max_abs));
	cJSON_AddItemToArray(list, o);
	buf_release(&line);
	return 0;
}

static cJSON *json_durations(const struct summary *s)
{
	cJSON *d = cJSON_CreateObject(), *fes = cJSON_AddArrayToObject(d, "frontends");
	cJSON *slow = cJSON_AddArrayToObject(d, "slowest");
	double total = 0;

	for (size_t i = 0; i < s->nfe; i++) {
		const struct summary_frontend *f = &s->fe[i];
		cJSON *o = cJSON_CreateObject(), *ended = cJSON_AddObjectToObject(o, "ended");

		total += f->seconds;
		cJSON_AddStringToObject(o, "name", f->name);
		cJSON_AddNumberToObject(o, "tests", (double)f->timed);
		cJSON_AddNumberToObject(o, "seconds", f->seconds);
		for (size_t k = 0; k < f->ended.cap; k++)
			if (f->ended.slots[k].key) {
				const struct summary_time *t = f->ended.slots[k].ptr;
				cJSON *x = cJSON_AddObjectToObject(ended, f->ended.slots[k].key);

				cJSON_AddNumberToObject(x, "seconds", t->seconds);
				cJSON_AddNumberToObject(x, "tests", (double)t->tests);
			}
		cJSON_AddItemToArray(fes, o);
	}
	for (size_t i = 0; i < s->nslow; i++) {
		cJSON *o = cJSON_CreateObject();

		cJSON_AddNumberToObject(o, "seconds", s->slowest[i].seconds);
		cJSON_AddStringToObject(o, "frontend", s->slowest[i].frontend);
		cJSON_AddStringToObject(o, "id", s->slowest[i].id);
		cJSON_AddStringToObject(o, "op", s->slowest[i].op);
		cJSON_AddStringToObject(o, "outcome", s->slowest[i].outcome);
		cJSON_AddItemToArray(slow, o);
	}
	cJSON_AddNumberToObject(d, "seconds", total);
	return d;
}

struct json_decided {
	const struct triage *t;
	cJSON *list;
};

/* A bug of the store that the triage file decides, into the report's list. */
static int json_decided(void *ctx, const struct db_bug *b, struct err *e)
{
	struct json_decided *d = ctx;
	const struct triage_entry *te = triage_find(d->t, b->bug_id, b->signature);
	cJSON *o;

	(void)e;
	if (!te)
		return 0;
	o = cJSON_CreateObject();
	cJSON_AddStringToObject(o, "bug", b->bug_id);
	cJSON_AddStringToObject(o, "frontend", b->frontend);
	triage_json(te, o);
	cJSON_AddItemToArray(d->list, o);
	return 0;
}

/* The report as one JSON document: every failure, whole, and its line led by what decides it. */
static int print_json(struct report *r, const char *store, struct err *e)
{
	struct json_failures jf;
	cJSON *doc = cJSON_CreateObject(), *fes, *inst;
	struct db_summary ds;
	char *text;
	int ret = -1;

	if (db_summary(&r->db, &ds, e) < 0)
		goto out;
	cJSON_AddStringToObject(doc, "store", store);
	cJSON_AddItemToObject(doc, "op", json_string_or_null(r->glob));
	inst = cJSON_AddObjectToObject(doc, "instances");
	cJSON_AddNumberToObject(inst, "instances", (double)ds.instances);
	cJSON_AddNumberToObject(inst, "operators", (double)ds.ops);
	cJSON_AddNumberToObject(inst, "valid", (double)ds.valid);
	cJSON_AddNumberToObject(inst, "invalid", (double)ds.invalid);
	cJSON_AddNumberToObject(inst, "random", (double)ds.random);
	fes = cJSON_AddArrayToObject(doc, "frontends");
	for (size_t i = 0; i < r->sum.nfe; i++) {
		const struct summary_frontend *f = &r->sum.fe[i];
		cJSON *o = cJSON_CreateObject(), *counts, *ops;
		struct strmap_entry **failing;
		size_t n;

		cJSON_AddStringToObject(o, "name", f->name);
		cJSON_AddItemToObject(o, "version", json_string_or_null(f->version));
		counts = cJSON_AddObjectToObject(o, "outcomes");
		for (int k = 0; k < OUTCOME_COUNT; k++)
			cJSON_AddNumberToObject(counts, outcome_name(k), (double)f->outcomes[k]);
		if (f->other)
			cJSON_AddNumberToObject(counts, "other", (double)f->other);
		cJSON_AddNumberToObject(o, "total", (double)f->total);
		ops = cJSON_AddArrayToObject(o, "operators_with_failures");
		failing = summary_failing_ops(f, 0, &n);
		for (size_t k = 0; k < n; k++) {
			const struct summary_op *x = failing[k]->ptr;
			cJSON *j = cJSON_CreateObject();

			cJSON_AddStringToObject(j, "op", failing[k]->key);
			cJSON_AddNumberToObject(j, "tests", (double)x->tests);
			cJSON_AddNumberToObject(j, "failed", (double)x->failed);
			cJSON_AddNumberToObject(j, "mismatch", (double)x->mismatch);
			cJSON_AddNumberToObject(j, "crash", (double)x->crash);
			cJSON_AddNumberToObject(j, "timeout_oom", (double)x->timeout_oom);
			cJSON_AddItemToArray(ops, j);
		}
		free(failing);
		cJSON_AddItemToArray(fes, o);
		jf.list = cJSON_AddArrayToObject(o, "failures");
		jf.glob = r->glob;
		if (db_failures(&r->db, f->name, DB_BY_OUTCOME, json_failure, &jf, e) < 0)
			goto out;
	}
	cJSON_AddItemToObject(doc, "durations", json_durations(&r->sum));
	{
		/* The store's bugs as its last grouping left them, with the decisions about them. */
		cJSON *t = cJSON_AddObjectToObject(doc, "triage");
		struct json_decided d = { &r->triage, NULL };

		cJSON_AddItemToObject(t, "file", json_string_or_null(r->triage.path));
		d.list = cJSON_AddArrayToObject(t, "bugs");
		if (db_bugs(&r->db, r->frontend, json_decided, &d, e) < 0)
			goto out;
	}
	text = cJSON_Print(doc);
	fputs(text, r->out);
	fputc('\n', r->out);
	free(text);
	ret = 0;
out:
	cJSON_Delete(doc);
	return ret;
}

static int write_html(struct report *r, const char *store, const char *dir, struct err *e)
{
	struct htmlreport h;

	memset(&h, 0, sizeof(h));
	h.db = &r->db;
	h.sum = &r->sum;
	h.store = store;
	h.dir = dir;
	h.frontend = r->frontend;
	h.glob = r->glob;
	h.queues = r->o->queues.v;
	h.nqueues = r->o->queues.n;
	h.reproduce = reproduce_for_page;
	h.ctx = r;
	h.triage = &r->triage;
	/* The bugs as ferry bugs groups them now. */
	if (dedup_rebuild(&r->db, r->frontend, NULL, NULL, e) < 0 || triage_bind(&r->triage, &r->db, e) < 0 ||
	    htmlreport_write(&h, e) < 0)
		return -1;
	fprintf(r->out, "wrote %s/index.html (%zu bytes) and %zu reproducer%s in %s/reproducers\n",
		esc_str(dir), h.bytes,
		h.reproducers, h.reproducers == 1 ? "" : "s", esc_str(dir));
	return 0;
}

/* The bugs most worth a maintainer's time (filing.h), as the store's last grouping left them: the
 * head of the list that ferry bugs prints, so that the report starts where a maintainer would. */
static int print_worth_filing(struct report *r, const char *store, struct err *e)
{
	struct filing f = { NULL, 0 };
	size_t bugs = 0, shown = 0, decided = 0;

	if (r->glob)
		return 0;
	if (filing_load(&r->db, r->frontend, &f, e) < 0)
		return -1;
	/* A bug filed, not a bug or a duplicate (triage.h) is decided: not worth filing again. */
	for (size_t i = 0; i < f.n; i++) {
		bugs += f.v[i].kind == KIND_BUG;
		decided += f.v[i].kind == KIND_BUG && triage_known(triage_find(&r->triage, f.v[i].b.bug_id,
									       f.v[i].b.signature));
	}
	bugs -= decided;
	if (bugs)
		fprintf(r->out, "\nthe bugs most worth filing (%zu of %zu; ferry bugs lists them all, "
			"ferry file %s BUG\nwrites one as an issue):\n", bugs < WORTH_FILING ? bugs : WORTH_FILING,
			bugs, esc_str(store));
	for (size_t i = 0; i < f.n && shown < WORTH_FILING; i++) {
		const struct db_bug *b = &f.v[i].b;
		const struct triage_entry *te = triage_find(&r->triage, b->bug_id, b->signature);
		struct buf head = BUF_INIT, line = BUF_INIT;

		if (f.v[i].kind != KIND_BUG || triage_known(te))
			continue;
		shown++;
		/* A bug decided fixed that the store still shows: said first. */
		if (te && te->status == TRIAGE_FIXED) {
			buf_adds(&line, "[");
			triage_label(te, &line);
			buf_adds(&line, "] ");
		}
		summary_failure_line(b->outcome, NULL, b->message, 0, &line);
		buf_addf(&head, "  %-12s %-14s %-8s %5lld  %-20.20s ", esc_str(b->bug_id), esc_str(b->frontend),
			 esc_str(b->outcome), b->members, esc_str(b->ops ? b->ops : ""));
		fputs(head.data, r->out);
		summary_print_cut(r->out, esc_str(line.data ? line.data : ""), head.len, r->width);
		fputc('\n', r->out);
		buf_release(&head);
		buf_release(&line);
	}
	if (decided)
		fprintf(r->out, "%s  (%zu bug%s decided in %s, filed, not a bug or a duplicate, left out)\n",
			bugs ? "" : "\n", decided, decided == 1 ? "" : "s", esc_str(r->triage.path));
	filing_release(&f);
	return 0;
}

int report_write(const char *store, const struct report_opts *o, FILE *out, struct err *e)
{
	struct report r;
	struct outdir page = OUTDIR_INIT, repro = OUTDIR_INIT;
	int ret = -1;

	memset(&r, 0, sizeof(r));
	r.o = o;
	r.out = out;
	r.frontend = o->frontend;
	r.glob = o->glob;
	r.all = o->all;
	r.width = summary_width(out, o->wide);
	if (!fs_exists(store))
		return err_set(e, EXIT_INPUT, "cannot open the store '%s': No such file or directory", store);
	if ((o->triage || fs_exists(TRIAGE_DEFAULT)) &&
	    triage_load(&r.triage, o->triage ? o->triage : TRIAGE_DEFAULT, 0, e) < 0) {
		triage_release(&r.triage);
		return -1;
	}
	/* The page groups the failures into bugs anew, which writes to the store. */
	if (db_open(&r.db, store, o->html ? DB_WRITE : DB_READ, e) < 0 ||
	    locations_check(&r.db, store, o->warn, o->warn_ctx, e) < 0 ||
	    summary_require_match(&r.db, store, r.frontend, r.glob, e) < 0 ||
	    summary_load(&r.sum, &r.db, r.frontend, r.glob, e) < 0 || triage_bind(&r.triage, &r.db, e) < 0)
		goto out;
	if (o->json) {
		ret = print_json(&r, store, e);
		goto out;
	}
	/* One claim for one directory: --html DIR -o DIR writes the page and the reproducers side by side. */
	if ((o->html && outdir_open(&page, o->html, store, o->own, e) < 0) ||
	    (o->outdir && !(o->html && outdir_same(o->html, o->outdir)) &&
	     outdir_open(&repro, o->outdir, store, o->own, e) < 0))
		goto out;
	if (o->html) {
		if (write_html(&r, store, o->html, e) < 0)
			goto out;
		ret = o->outdir ? write_reproducers(&r, o->outdir, e) : 0;
		goto out;
	}
	if (print_instances(&r, e) < 0 || print_worth_filing(&r, store, e) < 0 || print_questions(&r, e) < 0)
		goto out;
	if (r.glob)
		fprintf(out, "operators matching '%s'\n", esc_str(r.glob));
	for (size_t i = 0; i < r.sum.nfe; i++)
		if (print_frontend(&r, &r.sum.fe[i], e) < 0)
			goto out;
	if (db_unavailable(&r.db, r.frontend, print_unavailable, &r, e) < 0 || print_all_releases(&r, e) < 0)
		goto out;
	if (!r.any)
		fprintf(out, "\nno results%s%s yet\n", r.frontend ? " for frontend " : "",
			r.frontend ? esc_str(r.frontend) : "");
	if (o->durations)
		summary_print_durations(out, &r.sum);
	ret = o->outdir ? write_reproducers(&r, o->outdir, e) : 0;
out:
	ret = outdir_finish(&page, ret, e);
	ret = outdir_finish(&repro, ret, e);
	summary_release(&r.sum);
	probe_map_release(&r.probes);
	triage_release(&r.triage);
	db_close(&r.db);
	return ret;
}
