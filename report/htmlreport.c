/* htmlreport.c: ferry report --html DIR (htmlreport.h). The page is built in one buffer and written
 * once (fs_write_atomic), so a reader never sees half a page. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "apfd.h"
#include "bisect.h"
#include "buf.h"
#include "config.h"
#include "dedup.h"
#include "esc.h"
#include "filing.h"
#include "fsutil.h"
#include "htmlreport.h"
#include "kinds.h"
#include "trigger.h"
#include "outcome.h"
#include "sha256.h"
#include "strmap.h"
#include "xalloc.h"

/* Text from the store, as HTML text or attribute value. */
static void text(struct buf *b, const char *s)
{
	esc_add(b, s ? s : "", ESC_XML);
}

static void pre(struct buf *b, const char *s)
{
	esc_add(b, s ? s : "", ESC_XML | ESC_LINES);
}

static const char *const outcome_colour[OUTCOME_COUNT] = {
	[OUTCOME_PASS] = "#2f9e44", [OUTCOME_MISMATCH] = "#e8590c", [OUTCOME_INCONSISTENT] = "#d6336c",
	[OUTCOME_CRASH] = "#c92a2a", [OUTCOME_TIMEOUT] = "#7048e8", [OUTCOME_OOM] = "#5f3dc4",
	[OUTCOME_UNSUPPORTED] = "#adb5bd", [OUTCOME_UNDEFINED] = "#dee2e6", [OUTCOME_ERROR] = "#495057",
};

static const char style[] =
	"body{font:14px/1.45 system-ui,-apple-system,'Segoe UI',Roboto,sans-serif;margin:0;color:#212529;"
	"background:#f8f9fa}\n"
	"header{background:#1c3d5a;color:#fff;padding:18px 32px}header h1{margin:0;font-size:22px}\n"
	"header p{margin:4px 0 0;opacity:.85}\n"
	"main{padding:8px 32px 40px;max-width:1400px}\n"
	"section{background:#fff;border:1px solid #dee2e6;border-radius:8px;padding:12px 20px;margin:18px 0}\n"
	"h2{font-size:17px;margin:6px 0 10px;color:#1c3d5a}h3{font-size:15px;margin:14px 0 6px}\n"
	"table{border-collapse:collapse;font-size:13px}th,td{padding:3px 8px;border-bottom:1px solid #e9ecef;"
	"text-align:left;vertical-align:top}\n"
	"th{background:#f1f3f5;position:sticky;top:0}td.n{text-align:right;font-variant-numeric:tabular-nums}\n"
	"code,pre{font:12px/1.4 ui-monospace,SFMono-Regular,Menlo,Consolas,monospace}\n"
	"pre{background:#f1f3f5;padding:8px;border-radius:4px;white-space:pre-wrap;word-break:break-word;"
	"max-height:360px;overflow:auto;margin:6px 0}\n"
	".bug{border-left:4px solid #c92a2a;padding:4px 12px;margin:12px 0}\n"
	".bug.mismatch{border-color:#e8590c}.bug h3{margin:2px 0}\n"
	".grid td{text-align:center;min-width:56px;font-variant-numeric:tabular-nums}\n"
	".grid td.op{text-align:left;white-space:nowrap}.grid-wrap{overflow:auto;max-height:640px}\n"
	".legend span{display:inline-block;margin-right:14px}.sw{display:inline-block;width:11px;height:11px;"
	"border-radius:2px;margin-right:4px;vertical-align:-1px}\n"
	/* Nothing wider than the window: long words (paths, operator lists, MLIR) break where they must,
	 * and the plots shrink to it (a viewBox each); only the grid scrolls, in its own box. */
	"body{overflow-wrap:break-word}th,td.n{white-space:nowrap}svg{max-width:100%;height:auto}\n"
	"td code,td.line{overflow-wrap:anywhere}td.id code{white-space:nowrap}.wide{overflow-x:auto}\n"
	/* The bug list's columns (columns[], in order) at widths of their own, so that what failed gets
	 * what is left and not what the operator lists leave it; a narrow window drops origin and
	 * stage (the bug's own section below says both). */
	"table.bugs{width:100%;table-layout:fixed}.bugs th:nth-child(1){width:2.5em}"
	".bugs th:nth-child(2){width:8.5em}.bugs th:nth-child(3){width:8em}.bugs th:nth-child(4){width:7em}"
	".bugs th:nth-child(5){width:5.5em}.bugs th:nth-child(6){width:5em}.bugs th:nth-child(7){width:3.5em}"
	".bugs th:nth-child(8){width:16%}.bugs .triage{display:inline-block;margin-top:2px}\n"
	"@media (max-width:1000px){.bugs th:nth-child(4),.bugs td:nth-child(4),.bugs th:nth-child(6),"
	".bugs td:nth-child(6){display:none}}\n"
	"@media (max-width:900px){header{padding:14px 16px}main{padding:4px 10px 30px}"
	"section{padding:10px 10px}th,td{padding:3px 5px}}\n"
	"table.bugs th{cursor:pointer;user-select:none}th[data-dir=up]::after{content:' \\25b2'}"
	"th[data-dir=down]::after{content:' \\25bc'}\n"
	".filter{margin:6px 0 10px}.filter input{width:min(28em,100%)}.filter output{margin:0 10px}\n"
	".made{color:#ae3ec9}\n"
	".muted{color:#868e96}details summary{cursor:pointer;color:#1c3d5a}\n"
	"svg text{font:12px system-ui,sans-serif;fill:#343a40}\n"
	".triage{font-size:12px;font-weight:normal;padding:1px 6px;border-radius:8px;background:#e9ecef}\n"
	".triage.fixed{background:#ffe3e3}\n";

/* --- outcomes ------------------------------------------------------------------------------------ */

static void legend(struct buf *b)
{
	buf_adds(b, "<p class=\"legend\">");
	for (int o = 0; o < OUTCOME_COUNT; o++)
		buf_addf(b, "<span><i class=\"sw\" style=\"background:%s\"></i>%s</span>", outcome_colour[o],
			 outcome_name(o));
	buf_adds(b, "</p>\n");
}

/* One stacked bar per frontend, its tests by outcome. */
static void outcome_bars(struct buf *b, const struct summary *s)
{
	const double x0 = 190, w = 640;
	double h = 26.0 * (double)s->nfe + 10;

	buf_addf(b, "<svg role=\"img\" aria-label=\"outcomes per frontend\" width=\"%.0f\" height=\"%.0f\" "
		 "viewBox=\"0 0 %.0f %.0f\">\n", x0 + w + 90, h, x0 + w + 90, h);
	for (size_t i = 0; i < s->nfe; i++) {
		const struct summary_frontend *f = &s->fe[i];
		double y = 6 + 26.0 * (double)i, x = x0;

		buf_addf(b, "<text x=\"%.0f\" y=\"%.1f\" text-anchor=\"end\">", x0 - 8, y + 14);
		text(b, f->name);
		buf_adds(b, "</text>\n");
		for (int o = 0; o < OUTCOME_COUNT; o++) {
			double part = f->total ? w * (double)f->outcomes[o] / (double)f->total : 0;

			if (!f->outcomes[o])
				continue;
			buf_addf(b, "<rect x=\"%.2f\" y=\"%.1f\" width=\"%.2f\" height=\"18\" fill=\"%s\">",
				 x, y, part, outcome_colour[o]);
			buf_addf(b, "<title>%s: %lld</title></rect>\n", outcome_name(o), f->outcomes[o]);
			x += part;
		}
		buf_addf(b, "<text x=\"%.0f\" y=\"%.1f\">%lld tests</text>\n", x0 + w + 6, y + 14, f->total);
	}
	buf_adds(b, "</svg>\n");
}

static void outcome_table(struct buf *b, const struct summary *s)
{
	buf_adds(b, "<div class=\"wide\"><table><tr><th>frontend</th><th>release</th>");
	for (int o = 0; o < OUTCOME_COUNT; o++)
		buf_addf(b, "<th>%s</th>", outcome_name(o));
	buf_adds(b, "<th>total</th></tr>\n");
	for (size_t i = 0; i < s->nfe; i++) {
		const struct summary_frontend *f = &s->fe[i];

		buf_adds(b, "<tr><td>");
		text(b, f->name);
		buf_adds(b, "</td><td>");
		text(b, f->version ? f->version : "");
		buf_adds(b, "</td>");
		for (int o = 0; o < OUTCOME_COUNT; o++)
			buf_addf(b, "<td class=\"n\">%lld</td>", f->outcomes[o]);
		buf_addf(b, "<td class=\"n\">%lld</td></tr>\n", f->total);
	}
	buf_adds(b, "</table></div>\n");
}

/* --- frontend x operator ------------------------------------------------------------------------- */

static int by_failures(const void *a, const void *b)
{
	const struct strmap_entry *x = *(struct strmap_entry *const *)a, *y = *(struct strmap_entry *const *)b;

	if (x->count != y->count)
		return x->count < y->count ? 1 : -1;
	return strcmp(x->key, y->key);
}

/* Each operator a row, each frontend a column: its failures of its tests, coloured by the worst. */
static void grid(struct buf *b, const struct summary *s)
{
	struct strmap fails = STRMAP_INIT;
	struct strmap_entry **ops;
	size_t n = 0;

	for (size_t i = 0; i < s->all_ops.cap; i++)
		if (s->all_ops.slots[i].key) {
			struct strmap_entry *x = strmap_get(&fails, s->all_ops.slots[i].key, NULL);

			for (size_t k = 0; k < s->nfe; k++) {
				struct strmap_entry *o = strmap_find(&s->fe[k].ops, x->key);

				x->count += o ? o->count : 0;
			}
		}
	ops = xcalloc(fails.len + 1, sizeof(*ops));
	for (size_t i = 0; i < fails.cap; i++)
		if (fails.slots[i].key)
			ops[n++] = &fails.slots[i];
	qsort(ops, n, sizeof(*ops), by_failures);
	buf_addf(b, "<p class=\"muted\">%zu operators; a cell is failures / tests, red where any failed, grey "
		 "where the frontend does not support them, green where all passed.</p>\n", n);
	buf_adds(b, "<div class=\"grid-wrap\"><table class=\"grid\"><tr><th>operator</th>");
	for (size_t k = 0; k < s->nfe; k++) {
		buf_adds(b, "<th>");
		text(b, s->fe[k].name);
		buf_adds(b, "</th>");
	}
	buf_adds(b, "</tr>\n");
	for (size_t i = 0; i < n; i++) {
		buf_adds(b, "<tr><td class=\"op\"><code>");
		text(b, ops[i]->key);
		buf_adds(b, "</code></td>");
		for (size_t k = 0; k < s->nfe; k++) {
			struct strmap_entry *ent = strmap_find(&s->fe[k].ops, ops[i]->key);
			const struct summary_op *o = ent ? ent->ptr : NULL;
			const char *bg = "#fff";
			struct buf title = BUF_INIT;

			if (!o) {
				buf_adds(b, "<td class=\"muted\">-</td>");
				continue;
			}
			if (o->failed)
				bg = o->failed * 2 >= o->tests ? "#ffa8a8" : "#ffe3e3";
			else if (o->by_outcome[OUTCOME_PASS] == o->tests)
				bg = "#d3f9d8";
			else if (o->by_outcome[OUTCOME_UNSUPPORTED])
				bg = "#e9ecef";
			for (int x = 0; x < OUTCOME_COUNT; x++)
				if (o->by_outcome[x])
					buf_addf(&title, "%s%s %lld", title.len ? ", " : "", outcome_name(x),
						 o->by_outcome[x]);
			buf_addf(b, "<td style=\"background:%s\" title=\"", bg);
			text(b, title.data ? title.data : "");
			buf_addf(b, "\">%lld/%lld</td>", o->failed, o->tests);
			buf_release(&title);
		}
		buf_adds(b, "</tr>\n");
	}
	buf_adds(b, "</table></div>\n");
	free(ops);
	strmap_release(&fails);
}

/* --- unsupported reasons ------------------------------------------------------------------------- */

struct reasons {
	const char *glob;
	struct strmap by_key;   /* normalised decisive line -> count; ptr: struct reason */
};

struct reason {
	char *text;
	struct strmap ops;
};

static int add_reason(void *ctx, const struct db_row *row, struct err *e)
{
	struct reasons *r = ctx;
	struct buf line = BUF_INIT, key = BUF_INIT;
	struct strmap_entry *ent;
	struct reason *x;

	(void)e;
	if (!summary_op_matches(r->glob, row->op))
		return 0;
	dedup_decisive(row->message ? row->message : "", &line);
	dedup_normalize(line.data ? line.data : "", &key);
	ent = strmap_get(&r->by_key, key.data ? key.data : "", NULL);
	ent->count++;
	if (!ent->ptr) {
		x = xcalloc(1, sizeof(*x));
		x->text = buf_detach(&line);
		if (!x->text)
			x->text = xstrdup("");
		ent->ptr = x;
	}
	x = ent->ptr;
	strmap_get(&x->ops, row->op ? row->op : "?", NULL)->count++;
	buf_release(&line);
	buf_release(&key);
	return 0;
}

static int reasons_of(struct buf *b, struct htmlreport *h, const char *fe, struct err *e)
{
	struct reasons r = { h->glob, STRMAP_INIT };
	struct strmap_entry **list = NULL;
	int ret = -1;

	if (db_results_with(h->db, fe, "unsupported", add_reason, &r, e) < 0)
		goto out;
	ret = 0;
	if (!r.by_key.len)
		goto out;
	list = strmap_sorted(&r.by_key);
	buf_adds(b, "<h3>");
	text(b, fe);
	buf_addf(b, ": %zu reason%s</h3>\n<table><tr><th>tests</th><th>reason</th><th>operators</th></tr>\n",
		 r.by_key.len, r.by_key.len == 1 ? "" : "s");
	for (size_t i = 0; list[i]; i++) {
		const struct reason *x = list[i]->ptr;
		struct strmap_entry **ops = strmap_sorted(&x->ops);

		buf_addf(b, "<tr><td class=\"n\">%zu</td><td><code>", list[i]->count);
		text(b, x->text);
		buf_adds(b, "</code></td><td>");
		for (size_t k = 0; ops[k]; k++) {
			if (k == 8) {
				buf_addf(b, " +%zu", x->ops.len - 8);
				break;
			}
			buf_adds(b, k ? ", " : "");
			text(b, ops[k]->key);
		}
		buf_adds(b, "</td></tr>\n");
		free(ops);
	}
	buf_adds(b, "</table>\n");
out:
	free(list);
	for (size_t i = 0; i < r.by_key.cap; i++)
		if (r.by_key.slots[i].key) {
			struct reason *x = r.by_key.slots[i].ptr;

			free(x->text);
			strmap_release(&x->ops);
			free(x);
		}
	strmap_release(&r.by_key);
	return ret;
}

/* --- bugs ---------------------------------------------------------------------------------------- */

/* Where a bug's tests came from: a library's own test (harvested), ferry vary's or the trigger
 * stage's change of one (variant), ferry generate's graph or node (graph); and whether ferry reduce
 * cut one down to a smaller subgraph that fails the same way (reduced). */
enum origin { ORIGIN_HARVESTED = 1, ORIGIN_VARIANT = 2, ORIGIN_GRAPH = 4, ORIGIN_REDUCED = 8 };
static const char *const origin_name[] = { "harvested", "variant", "graph", "reduced" };
#define ORIGIN_COUNT 4

struct bug {
	char *id, *frontend, *outcome, *stage, *signature, *rep, *ops, *line;
	long long members;
	size_t rank;          /* 1-based, in filing order */
	unsigned origins;     /* enum origin, of its members */
};

/* Found only by tests ferry made: none of its failing tests is a library's own. */
static int made_only(const struct bug *x)
{
	return x->origins && !(x->origins & ORIGIN_HARVESTED);
}

struct bugs {
	struct bug *v;
	size_t n, cap;
};

static char *dup0(const char *s)
{
	return xstrdup(s ? s : "");
}

static int keep_bug(void *ctx, const struct db_bug *b, struct err *e)
{
	struct bugs *l = ctx;
	struct bug *x;

	(void)e;
	XGROW(l->v, l->cap, l->n + 1);
	x = &l->v[l->n++];
	x->id = dup0(b->bug_id);
	x->frontend = dup0(b->frontend);
	x->outcome = dup0(b->outcome);
	x->stage = dup0(b->stage);
	x->signature = dup0(b->signature);
	x->rep = dup0(b->representative);
	x->ops = dup0(b->ops);
	x->members = b->members;
	x->rank = l->n;
	x->origins = 0;
	{
		struct buf line = BUF_INIT;

		summary_failure_line(b->outcome, NULL, b->message, 0, &line);
		x->line = buf_detach(&line);
	}
	return 0;
}

/* What the triage file decided about x (triage.h), as a label; nothing when it decides nothing. */
static void triage_span(const struct htmlreport *h, const struct bug *x, struct buf *b)
{
	const struct triage_entry *te = h->triage ? triage_find(h->triage, x->id, x->signature) : NULL;
	struct buf label = BUF_INIT;

	if (!te)
		return;
	triage_label(te, &label);
	buf_addf(b, " <span class=\"triage %s\">", triage_status_name(te->status));
	text(b, label.data);
	buf_adds(b, "</span>");
	buf_release(&label);
}

struct members {
	const char *glob;
	struct buf list;
	size_t shown, matched;
};

#define MEMBERS_SHOWN 100

static int add_member(void *ctx, const char *frontend, const char *bug_id, const char *id, const char *op,
		      struct err *e)
{
	struct members *m = ctx;

	(void)frontend;
	(void)bug_id;
	(void)e;
	if (!summary_op_matches(m->glob, op))
		return 0;
	m->matched++;
	if (m->shown++ >= MEMBERS_SHOWN)
		return 0;
	buf_adds(&m->list, "<li><code>");
	text(&m->list, id);
	buf_adds(&m->list, "</code> ");
	text(&m->list, op);
	buf_adds(&m->list, "</li>");
	return 0;
}

/* Whether a bug has a member test of an operator that --op matches. */
static int bug_matches(struct htmlreport *h, const struct bug *x)
{
	struct members m = { h->glob, BUF_INIT, 0, 0 };
	struct err ignored = ERR_INIT;

	db_bug_members(h->db, x->frontend, x->id, -1, add_member, &m, &ignored);
	buf_release(&m.list);
	err_release(&ignored);
	return m.matched > 0;
}

struct rep {
	struct htmlreport *h;
	struct buf *b;
};

/* The representative: its message, whole, its traceback, and a link to its reproducer. */
static int show_rep(void *ctx, const struct db_row *row, struct err *e)
{
	struct rep *r = ctx;
	struct buf line = BUF_INIT;
	char *root = xasprintf("%s/reproducers", r->h->dir), *path = NULL;
	int ret = -1;

	summary_failure_line(row->outcome, row->exc_type, row->message, 0, &line);
	buf_adds(r->b, "<p><b>");
	text(r->b, line.data);
	buf_adds(r->b, "</b></p>\n<details><summary>the whole message");
	if (row->detail && *row->detail)
		buf_adds(r->b, " and the traceback");
	buf_adds(r->b, "</summary><pre>");
	pre(r->b, row->message);
	if (row->detail && *row->detail) {
		buf_adds(r->b, "\n\n");
		pre(r->b, row->detail);
	}
	buf_adds(r->b, "</pre></details>\n");
	if (r->h->reproduce && r->h->reproduce(r->h->ctx, row, root, &path, e) < 0)
		goto out;
	if (path) {
		/* The link is relative to the page, so that DIR can be moved or attached whole. */
		const char *rel = path + strlen(r->h->dir) + 1;

		buf_adds(r->b, "<p>reproducer: <a href=\"");
		for (const char *c = rel; *c; c++) {
			if ((*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') || (*c >= '0' && *c <= '9') ||
			    strchr("/._-", *c))
				buf_addc(r->b, *c);
			else
				buf_addf(r->b, "%%%02X", (unsigned char)*c);
		}
		buf_adds(r->b, "\"><code>");
		text(r->b, rel);
		buf_adds(r->b, "</code></a></p>\n");
		r->h->reproducers++;
	} else {
		buf_adds(r->b, "<p class=\"muted\">no reproducer could be made (see ferry show)</p>\n");
	}
	ret = 0;
out:
	buf_release(&line);
	free(root);
	free(path);
	return ret;
}

static unsigned origin_of(const char *record)
{
	cJSON *j = record ? cJSON_Parse(record) : NULL;
	const cJSON *suite = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(j, "source"),
							      "suite");
	unsigned o = ORIGIN_HARVESTED;

	if (!j)
		return 0;
	if (cJSON_GetObjectItemCaseSensitive(j, "variant"))
		o = ORIGIN_VARIANT;
	else if (cJSON_IsString(suite) && !strcmp(suite->valuestring, "generate"))
		o = ORIGIN_GRAPH;
	cJSON_Delete(j);
	return o;
}

struct origins {
	struct strmap bugs;      /* "frontend\tbug_id" -> struct bug (borrowed) */
	struct strmap reduced;   /* "frontend\tid" of each test ferry reduce cut down */
};

static int add_reduced(void *ctx, const struct db_reduction *r, struct err *e)
{
	struct origins *o = ctx;
	char *key;

	(void)e;
	if (strcmp(r->status ? r->status : "", "reduced"))
		return 0;
	key = xasprintf("%s\t%s", r->frontend, r->id);
	strmap_get(&o->reduced, key, NULL);
	free(key);
	return 0;
}

static int add_origin(void *ctx, const char *frontend, const char *bug_id, const char *id, const char *record,
		      struct err *e)
{
	struct origins *o = ctx;
	char *key = xasprintf("%s\t%s", frontend, bug_id);
	struct strmap_entry *x = strmap_find(&o->bugs, key);
	struct bug *bug = x ? x->ptr : NULL;

	(void)e;
	free(key);
	if (!bug)
		return 0;
	bug->origins |= origin_of(record);
	key = xasprintf("%s\t%s", frontend, id);
	if (strmap_find(&o->reduced, key))
		bug->origins |= ORIGIN_REDUCED;
	free(key);
	return 0;
}

/* The metamorphic oracle's reduction of a test's mutations (lib/db.h) is ferry reduce's for it. */
static int add_reduced_mutation(void *ctx, const struct db_mutation *m, struct err *e)
{
	struct db_reduction r = { .frontend = m->frontend, .id = m->id, .status = m->status };

	return add_reduced(ctx, &r, e);
}

/* Each bug's origins, from its members' records and the reductions, in passes over the store. */
static int bug_origins(struct htmlreport *h, struct bugs *l, struct err *e)
{
	struct origins o = { STRMAP_INIT, STRMAP_INIT };
	int ret = -1;

	for (size_t i = 0; i < l->n; i++) {
		char *key = xasprintf("%s\t%s", l->v[i].frontend, l->v[i].id);

		strmap_get(&o.bugs, key, NULL)->ptr = &l->v[i];
		free(key);
	}
	if (db_reductions(h->db, NULL, NULL, add_reduced, &o, e) < 0 ||
	    db_mutations(h->db, NULL, add_reduced_mutation, &o, e) < 0 ||
	    db_bug_member_records(h->db, h->frontend, add_origin, &o, e) < 0)
		goto out;
	ret = 0;
out:
	strmap_release(&o.bugs);
	strmap_release(&o.reduced);
	return ret;
}

static void add_origins(struct buf *b, unsigned origins, const char *sep)
{
	for (int k = 0, n = 0; k < ORIGIN_COUNT; k++)
		if (origins & (1u << k))
			buf_addf(b, "%s%s", n++ ? sep : "", origin_name[k]);
}

/* --- the bug list's columns: a name, a class for the cells ("n": a number, sorted as one) and what a
 * row's cell holds. A column more is one more entry. */

static void cell_rank(struct buf *b, struct htmlreport *h, const struct bug *x)
{
	(void)h;
	buf_addf(b, "%zu", x->rank);
}

static void cell_id(struct buf *b, struct htmlreport *h, const struct bug *x)
{
	buf_adds(b, "<a href=\"#bug-");
	text(b, x->id);
	buf_adds(b, "\"><code>");
	text(b, x->id);
	buf_adds(b, "</code></a>");
	triage_span(h, x, b);
}

static void cell_frontend(struct buf *b, struct htmlreport *h, const struct bug *x)
{
	(void)h;
	text(b, x->frontend);
}

static void cell_origin(struct buf *b, struct htmlreport *h, const struct bug *x)
{
	(void)h;
	add_origins(b, x->origins, ", ");
	if (made_only(x))
		buf_adds(b, " <b class=\"made\" title=\"no harvested test fails: only tests ferry made (variants, "
			 "generated graphs) find it\">ferry-made only</b>");
}

static void cell_outcome(struct buf *b, struct htmlreport *h, const struct bug *x)
{
	(void)h;
	text(b, x->outcome);
}

static void cell_stage(struct buf *b, struct htmlreport *h, const struct bug *x)
{
	(void)h;
	text(b, *x->stage ? x->stage : "-");
}

static void cell_members(struct buf *b, struct htmlreport *h, const struct bug *x)
{
	(void)h;
	buf_addf(b, "%lld", x->members);
}

static void cell_ops(struct buf *b, struct htmlreport *h, const struct bug *x)
{
	(void)h;
	buf_adds(b, "<code>");
	/* A space after each comma: a long list wraps between operators rather than inside one. */
	for (const char *p = x->ops; *p;) {
		size_t n = strcspn(p, ",");
		char *op = xstrndup(p, n);

		text(b, op);
		free(op);
		p += n;
		if (*p == ',') {
			buf_adds(b, ", ");
			p++;
		}
	}
	buf_adds(b, "</code>");
}

static void cell_line(struct buf *b, struct htmlreport *h, const struct bug *x)
{
	enum kind k = kinds_of_signature(x->signature);

	(void)h;
	if (k != KIND_BUG) {
		struct buf why = BUF_INIT;

		kinds_reason(x->signature, &why);
		buf_adds(b, "<b>");
		text(b, kinds_name(k));
		buf_adds(b, "</b>: ");
		text(b, why.data ? why.data : "");
		buf_adds(b, "<br>");
		buf_release(&why);
	}
	text(b, x->line);
}

static const struct column {
	const char *name, *cls;
	void (*cell)(struct buf *b, struct htmlreport *h, const struct bug *x);
} columns[] = {
	{ "#", "n", cell_rank },
	{ "bug", "id", cell_id },
	{ "frontend", NULL, cell_frontend },
	{ "origin", NULL, cell_origin },
	{ "symptom", NULL, cell_outcome },
	{ "stage", NULL, cell_stage },
	{ "tests", "n", cell_members },
	{ "operators", "ops", cell_ops },
	{ "what failed", "line", cell_line },
};

/* The page's one script: it shows the filter above the bug lists, and sorts a list by the column whose
 * heading is clicked (again: the other way). Without it, the lists are whole, in filing order. Its
 * hash is in the page's Content-Security-Policy, so that nothing else can run. */
static const char script[] =
	"(function(){var f=document.getElementById('bug-filter');if(!f)return;f.hidden=false;\n"
	"var q=f.querySelector('input'),o=f.querySelector('select[name=origin]'),"
	"fe=f.querySelector('select[name=frontend]'),n=f.querySelector('output'),\n"
	"rows=[].slice.call(document.querySelectorAll('table.bugs tbody tr'));\n"
	"function apply(){var t=q.value.toLowerCase(),c=0;rows.forEach(function(r){\n"
	"var ok=(!t||r.textContent.toLowerCase().indexOf(t)>=0)&&"
	"(!o.value||(' '+r.dataset.origin+' ').indexOf(' '+o.value+' ')>=0)&&"
	"(!fe.value||r.dataset.frontend===fe.value);\n"
	"r.hidden=!ok;c+=ok?1:0;});n.value=c+' of '+rows.length+' shown';}\n"
	"[q,o,fe].forEach(function(e){e.addEventListener('input',apply);e.addEventListener('change',apply);});\n"
	"[].forEach.call(document.querySelectorAll('table.bugs thead th'),function(th){\n"
	"th.tabIndex=0;th.title='sort';function sort(){var tb=th.closest('table').tBodies[0],"
	"i=th.cellIndex,up=th.dataset.dir!=='up',num=th.classList.contains('n');\n"
	"[].forEach.call(th.parentNode.cells,function(c){delete c.dataset.dir;});th.dataset.dir=up?'up':'down';\n"
	"var rs=[].slice.call(tb.rows);rs.sort(function(a,b){var x=a.cells[i].textContent,"
	"y=b.cells[i].textContent,d=num?parseFloat(x)-parseFloat(y):x.localeCompare(y);return up?d:-d;});\n"
	"rs.forEach(function(r){tb.appendChild(r);});}\n"
	"th.addEventListener('click',sort);th.addEventListener('keydown',function(ev){"
	"if(ev.key==='Enter')sort();});});apply();})();\n";

/* The filter's controls, hidden until the script shows them: a text box, origins and frontends. */
static void bug_filter(struct buf *b, const struct bugs *l)
{
	struct strmap fes = STRMAP_INIT;
	struct strmap_entry **list;

	for (size_t i = 0; i < l->n; i++)
		strmap_get(&fes, l->v[i].frontend, NULL);
	list = strmap_sorted(&fes);
	buf_adds(b, "<div id=\"bug-filter\" class=\"filter\" hidden><input type=\"search\" "
		 "placeholder=\"filter: text in any column\" aria-label=\"filter the bugs\"> "
		 "<select name=\"origin\" aria-label=\"origin\"><option value=\"\">any origin</option>");
	for (int k = 0; k < ORIGIN_COUNT; k++)
		buf_addf(b, "<option value=\"%s\">%s</option>", origin_name[k], origin_name[k]);
	buf_adds(b, "<option value=\"made\">ferry-made only</option></select> <select name=\"frontend\" "
		 "aria-label=\"frontend\"><option value=\"\">any frontend</option>");
	for (size_t i = 0; list[i]; i++) {
		buf_adds(b, "<option>");
		text(b, list[i]->key);
		buf_adds(b, "</option>");
	}
	buf_adds(b, "</select> <output></output> <span class=\"muted\">click a heading to sort</span></div>\n");
	free(list);
	strmap_release(&fes);
}

static void bug_row(struct buf *b, struct htmlreport *h, const struct bug *x)
{
	buf_adds(b, "<tr data-frontend=\"");
	text(b, x->frontend);
	buf_adds(b, "\" data-origin=\"");
	add_origins(b, x->origins, " ");
	buf_adds(b, made_only(x) ? " made\">" : "\">");
	for (size_t c = 0; c < sizeof(columns) / sizeof(*columns); c++) {
		buf_adds(b, columns[c].cls ? "<td class=\"" : "<td>");
		if (columns[c].cls)
			buf_addf(b, "%s\">", columns[c].cls);
		columns[c].cell(b, h, x);
		buf_adds(b, "</td>");
	}
	buf_adds(b, "</tr>\n");
}

static int bugs_section(struct buf *b, struct htmlreport *h, struct err *e)
{
	struct bugs l = { NULL, 0, 0 };
	struct filing f = { NULL, 0 };
	size_t shown = 0;
	int ret = -1;

	/* In filing order (filing.h): the bugs most worth a maintainer's time first. */
	if (filing_load(h->db, h->frontend, &f, e) < 0)
		goto out;
	for (size_t i = 0; i < f.n; i++)
		keep_bug(&l, &f.v[i].b, e);
	filing_release(&f);
	if (bug_origins(h, &l, e) < 0)
		goto out;
	if (l.n)
		bug_filter(b, &l);
	/* First the list, one line a bug linking to its entry below; then, apart, the entries that are
	 * not frontend bugs (kinds.h), each with its kind and why. */
	for (int apart = 0; apart < 2; apart++) {
		size_t listed = 0;

		for (size_t i = 0; i < l.n; i++)
			listed += (kinds_of_signature(l.v[i].signature) != KIND_BUG) == apart &&
				  !(h->glob && !bug_matches(h, &l.v[i]));
		if (!listed)
			continue;
		if (apart)
			buf_adds(b, "<h3>Not frontend bugs</h3>\n<p>ferry keeps these failures, and lists them apart: "
				 "the frontend lacks or says it does not support what the test asks, the difference is "
				 "within the dtype's precision, the reference is disputed, ferry's test is suspected "
				 "invalid, or the frontend's environment is broken.</p>\n");
		buf_adds(b, "<table class=\"bugs\"><thead><tr>");
		/* A number's heading says so: the script sorts its column as numbers. */
		for (size_t c = 0; c < sizeof(columns) / sizeof(*columns); c++)
			buf_addf(b, "<th%s>%s</th>",
				 columns[c].cls && !strcmp(columns[c].cls, "n") ? " class=\"n\"" : "", columns[c].name);
		buf_adds(b, "</tr></thead>\n<tbody>\n");
		for (size_t i = 0; i < l.n; i++) {
			if (h->glob && !bug_matches(h, &l.v[i]))
				continue;
			if ((kinds_of_signature(l.v[i].signature) != KIND_BUG) != apart)
				continue;
			bug_row(b, h, &l.v[i]);
		}
		buf_adds(b, "</tbody></table>\n");
	}
	for (size_t i = 0; i < l.n; i++) {
		struct bug *x = &l.v[i];
		struct members m = { h->glob, BUF_INIT, 0, 0 };
		struct rep r = { h, b };

		if (db_bug_members(h->db, x->frontend, x->id, -1, add_member, &m, e) < 0) {
			buf_release(&m.list);
			goto out;
		}
		if (!m.matched) {
			buf_release(&m.list);
			continue;
		}
		shown++;
		buf_addf(b, "<div class=\"bug %s\" id=\"bug-", !strcmp(x->outcome, "mismatch") ? "mismatch" : "");
		text(b, x->id);
		buf_adds(b, "\"><h3>bug <code>");
		text(b, x->id);
		buf_adds(b, "</code>: ");
		text(b, x->frontend);
		buf_adds(b, " ");
		text(b, x->outcome);
		if (*x->stage) {
			buf_adds(b, " in stage ");
			text(b, x->stage);
		}
		buf_addf(b, ", %lld test%s, operators <code>", x->members, x->members == 1 ? "" : "s");
		text(b, x->ops);
		buf_adds(b, "</code>");
		triage_span(h, x, b);
		buf_adds(b, "</h3>\n");
		{
			struct buf trigger = BUF_INIT;

			/* What triggers it (trigger.h), above what it said. */
			if (trigger_describe(h->db, x->frontend, x->id, x->rep, &trigger, e) < 0) {
				buf_release(&trigger);
				buf_release(&m.list);
				goto out;
			}
			if (trigger.len) {
				buf_adds(b, "<p class=\"trigger\">");
				text(b, trigger.data);
				buf_adds(b, "</p>\n");
			}
			/* The releases it affects, where ferry bisect ran its tests under others (bisect.h). */
			buf_reset(&trigger);
			if (bisect_describe(h->db, x->frontend, x->id, &trigger, e) < 0) {
				buf_release(&trigger);
				buf_release(&m.list);
				goto out;
			}
			if (trigger.len) {
				buf_adds(b, "<p class=\"releases\">releases: ");
				text(b, trigger.data);
				buf_adds(b, "</p>\n");
			}
			buf_release(&trigger);
		}
		if (x->origins) {
			buf_adds(b, "<p class=\"origin\">its tests: ");
			add_origins(b, x->origins, ", ");
			if (made_only(x))
				buf_adds(b, "; <b class=\"made\">ferry-made only</b>: no harvested test fails");
			buf_adds(b, "</p>\n");
		}
		buf_adds(b, "<p class=\"muted\">signature <code>");
		text(b, x->signature);
		buf_adds(b, "</code>; simplest test <code>");
		text(b, x->rep);
		buf_adds(b, "</code></p>\n");
		if (db_result(h->db, x->frontend, x->rep, show_rep, &r, e) < 0) {
			buf_release(&m.list);
			goto out;
		}
		buf_addf(b, "<details><summary>%zu member%s</summary><ul>", m.matched, m.matched == 1 ? "" : "s");
		buf_add(b, m.list.data ? m.list.data : "", m.list.len);
		if (m.matched > MEMBERS_SHOWN)
			buf_addf(b, "<li class=\"muted\">and %zu more (ferry show)</li>", m.matched - MEMBERS_SHOWN);
		buf_adds(b, "</ul></details></div>\n");
		buf_release(&m.list);
	}
	if (!shown)
		buf_adds(b, "<p>No bugs.</p>\n");
	ret = 0;
out:
	for (size_t i = 0; i < l.n; i++) {
		free(l.v[i].id);
		free(l.v[i].frontend);
		free(l.v[i].outcome);
		free(l.v[i].stage);
		free(l.v[i].signature);
		free(l.v[i].rep);
		free(l.v[i].ops);
		free(l.v[i].line);
	}
	free(l.v);
	return ret;
}

/* --- bug-discovery curves ------------------------------------------------------------------------ */

static const char *const line_colour[] = { "#1c7ed6", "#e8590c", "#2f9e44", "#ae3ec9", "#f08c00", "#0c8599",
					   "#c92a2a", "#5c940d" };

struct curve {
	char *label;
	struct apfd_result r;
};

struct store_bugs {
	const char *glob;
	struct apfd_bugs *bugs;
};

/* Each failing test reveals its bug (frontend:bug_id), as ferry apfd --bugs STORE counts them. */
static int add_store_bug(void *ctx, const char *frontend, const char *bug_id, const char *id, const char *op,
			 struct err *e)
{
	struct store_bugs *m = ctx;
	char *bug;

	(void)e;
	if (!summary_op_matches(m->glob, op))
		return 0;
	bug = xasprintf("%s:%s", frontend, bug_id);
	apfd_bugs_add(m->bugs, id, bug);
	free(bug);
	return 0;
}

/* A step of 1, 2 or 5 times a power of ten that cuts [0, max] into at most five parts. */
static long nice_step(size_t max)
{
	long p = 1;

	for (;; p *= 10)
		for (int k = 0; k < 3; k++) {
			long step = p * (k == 0 ? 1 : k == 1 ? 2 : 5);

			if ((double)max / (double)step <= 5)
				return step;
		}
}

static void plot_curves(struct buf *b, const struct curve *c, size_t n)
{
	const double W = 720, H = 320, L = 56, R = 170, T = 12, B = 40;
	size_t xmax = 1, ymax = 1;

	for (size_t i = 0; i < n; i++) {
		xmax = c[i].r.n > xmax ? c[i].r.n : xmax;
		ymax = c[i].r.m > ymax ? c[i].r.m : ymax;
	}
	buf_addf(b, "<svg role=\"img\" aria-label=\"bugs found against tests run\" width=\"%.0f\" height=\"%.0f\" "
		 "viewBox=\"0 0 %.0f %.0f\">\n", W, H, W, H);
	buf_addf(b, "<rect x=\"%.0f\" y=\"%.0f\" width=\"%.0f\" height=\"%.0f\" fill=\"#fff\" stroke=\"#ced4da\"/>\n",
		 L, T, W - L - R, H - T - B);
	/* Ticks at round numbers (1, 2 or 5 times a power of ten), four or five an axis. */
	for (long v = 0, step = nice_step(xmax); v <= (long)xmax; v += step) {
		double x = L + (W - L - R) * (double)v / (double)xmax;

		buf_addf(b, "<line x1=\"%.1f\" y1=\"%.0f\" x2=\"%.1f\" y2=\"%.0f\" stroke=\"#f1f3f5\"/>",
			 x, T, x, H - B);
		buf_addf(b, "<text x=\"%.1f\" y=\"%.0f\" text-anchor=\"middle\">%ld</text>\n", x, H - B + 16, v);
	}
	for (long v = 0, step = nice_step(ymax); v <= (long)ymax; v += step) {
		double y = H - B - (H - T - B) * (double)v / (double)ymax;

		buf_addf(b, "<line x1=\"%.0f\" y1=\"%.1f\" x2=\"%.0f\" y2=\"%.1f\" stroke=\"#f1f3f5\"/>",
			 L, y, W - R, y);
		buf_addf(b, "<text x=\"%.0f\" y=\"%.1f\" text-anchor=\"end\">%ld</text>\n", L - 6, y + 4, v);
	}
	buf_addf(b, "<text x=\"%.0f\" y=\"%.0f\" text-anchor=\"middle\">tests run</text>", L + (W - L - R) / 2,
		 H - 6);
	buf_addf(b, "<text transform=\"translate(14 %.0f) rotate(-90)\" text-anchor=\"middle\">bugs found</text>\n",
		 T + (H - T - B) / 2);
	for (size_t i = 0; i < n; i++) {
		const char *col = line_colour[i % (sizeof(line_colour) / sizeof(*line_colour))];
		double px = L, py = H - B;

		/* A step: flat until the test that finds the next bug. */
		buf_addf(b, "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"2\" points=\"%.1f,%.1f", col, px, py);
		for (size_t k = 0; k < c[i].r.ncurve; k++) {
			double x = L + (W - L - R) * (double)c[i].r.curve_tests[k] / (double)xmax;
			double y = H - B - (H - T - B) * (double)(k + 1) / (double)ymax;

			buf_addf(b, " %.1f,%.1f %.1f,%.1f", x, py, x, y);
			py = y;
		}
		buf_addf(b, " %.1f,%.1f\"/>\n", L + (W - L - R) * (double)c[i].r.n / (double)xmax, py);
		buf_addf(b, "<rect x=\"%.0f\" y=\"%.0f\" width=\"12\" height=\"4\" fill=\"%s\"/>", W - R + 12,
			 T + 10 + 34.0 * (double)i, col);
		buf_addf(b, "<text x=\"%.0f\" y=\"%.0f\">", W - R + 30, T + 16 + 34.0 * (double)i);
		text(b, c[i].label);
		buf_adds(b, "</text>");
		if (isnan(c[i].r.apfd))
			buf_addf(b, "<text x=\"%.0f\" y=\"%.0f\" class=\"muted\">no bugs</text>\n", W - R + 30,
				 T + 31 + 34.0 * (double)i);
		else
			buf_addf(b, "<text x=\"%.0f\" y=\"%.0f\">APFD %.3f</text>\n", W - R + 30,
				 T + 31 + 34.0 * (double)i, c[i].r.apfd);
	}
	buf_adds(b, "</svg>\n");
}

static int curves_section(struct buf *b, struct htmlreport *h, struct err *e)
{
	struct apfd_bugs bugs;
	struct curve *c = xcalloc(h->nqueues + 1, sizeof(*c));
	struct store_bugs m = { h->glob, &bugs };
	size_t n = 0;
	int ret = -1;

	apfd_bugs_init(&bugs);
	if (!h->nqueues) {
		buf_adds(b, "<p class=\"muted\">No queue was given: <code>ferry report --html DIR --queue "
			 "LABEL=QUEUE</code> plots how fast each queue finds these bugs.</p>\n");
		ret = 0;
		goto out;
	}
	if (db_bug_members(h->db, h->frontend, NULL, -1, add_store_bug, &m, e) < 0)
		goto out;
	for (; n < h->nqueues; n++) {
		struct apfd_queue q;
		const char *arg = h->queues[n], *eq = strchr(arg, '='), *file = eq ? eq + 1 : arg;

		apfd_queue_init(&q);
		c[n].r = (struct apfd_result)APFD_RESULT_INIT;
		if (eq) {
			c[n].label = xstrndup(arg, (size_t)(eq - arg));
		} else {
			const char *base = strrchr(file, '/');

			c[n].label = xstrdup(base ? base + 1 : file);
		}
		if (apfd_queue_load(&q, file, e) < 0 || apfd_eval(&q, &bugs, 0, &c[n].r, e) < 0) {
			apfd_queue_release(&q);
			n++;
			goto out;
		}
		apfd_queue_release(&q);
	}
	plot_curves(b, c, n);
	buf_adds(b, "<table><tr><th>queue</th><th>tests</th><th>bugs found</th><th>bugs no test of it reveals"
		 "</th><th>APFD</th><th>RAUC 25%</th><th>50%</th><th>75%</th><th>100%</th></tr>\n");
	for (size_t i = 0; i < n; i++) {
		buf_adds(b, "<tr><td>");
		text(b, c[i].label);
		buf_addf(b, "</td><td class=\"n\">%zu</td><td class=\"n\">%zu</td><td class=\"n\">%zu</td>", c[i].r.n,
			 c[i].r.m, c[i].r.missing);
		if (isnan(c[i].r.apfd))
			buf_adds(b, "<td class=\"n\">-</td>");
		else
			buf_addf(b, "<td class=\"n\">%.3f</td>", c[i].r.apfd);
		for (int k = 0; k < APFD_RAUC_POINTS; k++)
			if (isnan(c[i].r.rauc[k]))
				buf_adds(b, "<td class=\"n\">-</td>");
			else
				buf_addf(b, "<td class=\"n\">%.3f</td>", c[i].r.rauc[k]);
		buf_adds(b, "</tr>\n");
	}
	buf_adds(b, "</table>\n");
	ret = 0;
out:
	for (size_t i = 0; i < n; i++) {
		free(c[i].label);
		apfd_result_release(&c[i].r);
	}
	free(c);
	apfd_bugs_release(&bugs);
	return ret;
}

/* --- timings ------------------------------------------------------------------------------------- */

static const char *ended_colour(const char *where)
{
	if (!strcmp(where, "pass"))
		return outcome_colour[OUTCOME_PASS];
	if (!strcmp(where, "load"))
		return "#74c0fc";
	if (!strcmp(where, "compile"))
		return "#1c7ed6";
	if (!strcmp(where, "execute"))
		return "#f59f00";
	if (outcome_from_name(where) >= 0)
		return outcome_colour[outcome_from_name(where)];
	return "#adb5bd";
}

static void timings(struct buf *b, const struct summary *s)
{
	const double x0 = 190, w = 560;
	double most = 0, h = 26.0 * (double)s->nfe + 10;

	for (size_t i = 0; i < s->nfe; i++)
		most = s->fe[i].seconds > most ? s->fe[i].seconds : most;
	if (most <= 0) {
		buf_adds(b, "<p class=\"muted\">The store recorded no times.</p>\n");
		return;
	}
	buf_adds(b, "<p class=\"muted\">Seconds spent per frontend, split by where its tests ended: "
		 "passed (every stage ran), or the stage that failed.</p>\n");
	buf_addf(b, "<svg role=\"img\" aria-label=\"time per frontend\" width=\"%.0f\" height=\"%.0f\" "
		 "viewBox=\"0 0 %.0f %.0f\">\n", x0 + w + 120, h, x0 + w + 120, h);
	for (size_t i = 0; i < s->nfe; i++) {
		const struct summary_frontend *f = &s->fe[i];
		struct strmap_entry **ended = strmap_sorted(&f->ended);
		double y = 6 + 26.0 * (double)i, x = x0;

		buf_addf(b, "<text x=\"%.0f\" y=\"%.1f\" text-anchor=\"end\">", x0 - 8, y + 14);
		text(b, f->name);
		buf_adds(b, "</text>\n");
		for (size_t k = 0; ended[k]; k++) {
			const struct summary_time *t = ended[k]->ptr;
			double part = w * t->seconds / most;

			buf_addf(b, "<rect x=\"%.2f\" y=\"%.1f\" width=\"%.2f\" height=\"18\" fill=\"%s\"><title>",
				 x, y, part, ended_colour(ended[k]->key));
			text(b, ended[k]->key);
			buf_addf(b, ": %.1f s, %lld tests</title></rect>\n", t->seconds, t->tests);
			x += part;
		}
		buf_addf(b, "<text x=\"%.1f\" y=\"%.1f\">%.*f s</text>\n", x + 6, y + 14, f->seconds < 10 ? 2 : 0,
			 f->seconds);
		free(ended);
	}
	buf_adds(b, "</svg>\n<p class=\"legend\">");
	{
		static const char *const where[] = { "pass", "load", "compile", "execute", "mismatch", "other" };

		for (size_t k = 0; k < sizeof(where) / sizeof(*where); k++)
			buf_addf(b, "<span><i class=\"sw\" style=\"background:%s\"></i>%s</span>",
				 ended_colour(where[k]), where[k]);
	}
	buf_adds(b, "</p>\n<table><tr><th>frontend</th><th>tests timed</th><th>seconds</th><th>mean</th>"
		 "<th>where tests ended: seconds (tests)</th></tr>\n");
	for (size_t i = 0; i < s->nfe; i++) {
		const struct summary_frontend *f = &s->fe[i];
		struct strmap_entry **ended = strmap_sorted(&f->ended);

		buf_adds(b, "<tr><td>");
		text(b, f->name);
		buf_addf(b, "</td><td class=\"n\">%lld</td><td class=\"n\">%.2f</td><td class=\"n\">%.3f</td><td>",
			 f->timed, f->seconds, f->timed ? f->seconds / (double)f->timed : 0.0);
		for (size_t k = 0; ended[k]; k++) {
			const struct summary_time *t = ended[k]->ptr;

			buf_adds(b, k ? ", " : "");
			text(b, ended[k]->key);
			buf_addf(b, " %.2f (%lld)", t->seconds, t->tests);
		}
		buf_adds(b, "</td></tr>\n");
		free(ended);
	}
	buf_adds(b, "</table>\n<h3>slowest tests</h3>\n<table><tr><th>seconds</th><th>frontend</th><th>operator"
		 "</th><th>test</th><th>outcome</th></tr>\n");
	for (size_t i = 0; i < s->nslow; i++) {
		buf_addf(b, "<tr><td class=\"n\">%.3f</td><td>", s->slowest[i].seconds);
		text(b, s->slowest[i].frontend);
		buf_adds(b, "</td><td><code>");
		text(b, s->slowest[i].op);
		buf_adds(b, "</code></td><td><code>");
		text(b, s->slowest[i].id);
		buf_adds(b, "</code></td><td>");
		text(b, s->slowest[i].outcome);
		buf_adds(b, "</td></tr>\n");
	}
	buf_adds(b, "</table>\n");
}

/* --- the page ------------------------------------------------------------------------------------ */

/* The script's SHA-256 in base64, as a Content-Security-Policy's 'sha256-...' source names it. */
static void script_hash(struct buf *b)
{
	static const char digits[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
	uint8_t d[33] = { 0 };

	sha256_digest(script, strlen(script), d);
	for (int i = 0; i < 33; i += 3) {
		uint32_t v = (uint32_t)d[i] << 16 | (uint32_t)d[i + 1] << 8 | d[i + 2];

		buf_addc(b, digits[v >> 18 & 63]);
		buf_addc(b, digits[v >> 12 & 63]);
		buf_addc(b, i + 1 < 32 ? digits[v >> 6 & 63] : '=');
		buf_addc(b, i + 2 < 32 ? digits[v & 63] : '=');
	}
}

int htmlreport_write(struct htmlreport *h, struct err *e)
{
	struct buf b = BUF_INIT;
	struct db_summary ds;
	char *path = NULL, when[64] = "";
	time_t now = time(NULL);
	int fd = -1, ret = -1;

	if (db_summary(h->db, &ds, e) < 0)
		goto out;
	strftime(when, sizeof(when), "%Y-%m-%d %H:%M UTC", gmtime(&now));
	buf_adds(&b, "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
		 "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
		 /* Nothing on the page may load anything, and nothing runs but its own script, which
		  * its hash names: no fetch, no frame, no script a message could smuggle in. */
		 "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src "
		 "'unsafe-inline'; img-src data:; script-src 'sha256-");
	script_hash(&b);
	buf_adds(&b, "'\">\n<title>ferry report: ");
	text(&b, h->store);
	buf_addf(&b, "</title>\n<style>\n%s</style></head><body>\n<header><h1>ferry report</h1><p>store <code>", style);
	text(&b, h->store);
	buf_addf(&b, "</code>: %lld instances of %lld operators (%lld valid, %lld invalid, %lld with random "
		 "outputs)", ds.instances, ds.ops, ds.valid, ds.invalid, ds.random);
	if (h->glob) {
		buf_adds(&b, "; operators matching <code>");
		text(&b, h->glob);
		buf_adds(&b, "</code>");
	}
	buf_addf(&b, "</p><p>made by ferry %s on %s</p></header>\n<main>\n", PACKAGE_VERSION, when);

	buf_adds(&b, "<section id=\"outcomes\"><h2>Outcomes per frontend</h2>\n");
	if (!h->sum->nfe)
		buf_adds(&b, "<p>No results yet.</p>\n");
	else {
		legend(&b);
		outcome_bars(&b, h->sum);
		outcome_table(&b, h->sum);
	}
	buf_adds(&b, "</section>\n<section id=\"bugs\"><h2>Unique bugs</h2>\n");
	if (bugs_section(&b, h, e) < 0)
		goto out;
	buf_adds(&b, "</section>\n<section id=\"grid\"><h2>Frontends and operators</h2>\n");
	grid(&b, h->sum);
	buf_adds(&b, "</section>\n<section id=\"unsupported\"><h2>Unsupported: the reasons the frontends gave</h2>\n");
	for (size_t i = 0; i < h->sum->nfe; i++)
		if (h->sum->fe[i].outcomes[OUTCOME_UNSUPPORTED] && reasons_of(&b, h, h->sum->fe[i].name, e) < 0)
			goto out;
	buf_adds(&b, "</section>\n<section id=\"curves\"><h2>Bug discovery per queue</h2>\n");
	if (curves_section(&b, h, e) < 0)
		goto out;
	buf_adds(&b, "</section>\n<section id=\"timings\"><h2>Timings</h2>\n");
	timings(&b, h->sum);
	buf_addf(&b, "</section>\n</main>\n<script>%s</script>\n</body></html>\n", script);
	path = xasprintf("%s/index.html", h->dir);
	/* DIR is the user's (a link there followed); index.html in it is ferry's, and never a link's target. */
	if ((fd = fs_dir_beneath(h->dir, 0, 1, e)) < 0 ||
	    fs_write_beneath(fd, "index.html", path, b.data, b.len, e) < 0)
		goto out;
	h->bytes = b.len;
	ret = 0;
out:
	if (fd >= 0)
		close(fd);
	free(path);
	buf_release(&b);
	return ret;
}
