/* bugs.c: ferry bugs' engine (bugs.h).
 *
 * Groups the failures of a results store into unique bugs (dedup.h), keeps them in the store,
 * and lists them: each with its frontend, symptom, how many tests show it, the operators involved,
 * and its representative, the simplest test that shows it, with what ferry reduce made of it (the
 * operators that decide a graph's failure). */
#include "bugs.h"

#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "db.h"
#include "dedup.h"
#include "bisect.h"
#include "esc.h"
#include "filing.h"
#include "kinds.h"
#include "strmap.h"
#include "fsutil.h"
#include "summary.h"
#include "trigger.h"
#include "triage.h"
#include "xalloc.h"

/* What a bug is listed with: its member tests that match --op. */
struct listing {
	struct db *db;
	FILE *out;
	size_t width;
	const char *glob;     /* --op */
	cJSON *json;          /* the array of bugs, with --json */
	cJSON *members;       /* of the bug being listed */
	size_t matched, shown;
	enum kind kind;       /* the kind being listed (text only) */
	struct strmap seen;   /* a disputed reference's id -> its frontends, listed once (text only) */
	size_t counts[KIND_COUNT];
	const struct filing_bug *at; /* the bug being listed: its place in filing order */
	const struct triage *triage; /* the decisions about bugs (triage.h) */
};

static int match_member(void *ctx, const char *fe, const char *bug_id, const char *id, const char *op,
			struct err *e)
{
	struct listing *l = ctx;

	(void)fe;
	(void)bug_id;
	(void)e;
	if (!summary_op_matches(l->glob, op))
		return 0;
	l->matched++;
	if (l->members) {
		cJSON *m = cJSON_CreateObject();

		cJSON_AddStringToObject(m, "id", id);
		cJSON_AddStringToObject(m, "op", op ? op : "?");
		cJSON_AddItemToArray(l->members, m);
	}
	return 0;
}

/* ferry reduce's subgraph of a bug's simplest test: the operators that decide a graph's failure. */
static int print_reduction(void *ctx, const struct db_reduction *r, struct err *e)
{
	const struct listing *l = ctx;

	(void)e;
	if (!strcmp(r->status, "reduced"))
		fprintf(l->out, "  %-12s reduced from %lld to %lld node%s: %s%s\n", "", r->nodes_before, r->nodes_after,
			r->nodes_after == 1 ? "" : "s", esc_str(r->ops ? r->ops : "?"),
			r->nodes_after == 1 ? " (the decisive operator)" : "");
	else
		fprintf(l->out, "  %-12s not reducible: no smaller subgraph of its %lld nodes fails the same way\n", "",
			r->nodes_before);
	return 0;
}

/* A bug's representative: its exception type, for the bug's line, and its name (record.h). */
struct rep {
	char *exc_type, *name;
	enum record_origin origin;
};

static int rep_result(void *ctx, const struct db_row *row, struct err *e)
{
	struct rep *r = ctx;
	cJSON *prov = row->record ? cJSON_Parse(row->record) : NULL;

	(void)e;
	r->exc_type = row->exc_type ? xstrdup(row->exc_type) : NULL;
	r->name = record_name(prov, row->id);
	r->origin = record_origin(prov);
	cJSON_Delete(prov);
	return 0;
}

static cJSON *string_or_null(const char *s)
{
	return s ? cJSON_CreateString(s) : cJSON_CreateNull();
}

/* An entry that is not a frontend bug (kinds.h): its reason first, then what its simplest test
 * said. A disputed reference is the reference's, and a suspected invalid test ferry's, not a
 * frontend's: one line for all the frontends that show it. */
static int print_apart(struct listing *l, const struct db_bug *b, const struct buf *line)
{
	struct buf head = BUF_INIT, why = BUF_INIT;
	const char *frontends = b->frontend;
	struct strmap_entry *seen = NULL;

	if (l->kind == KIND_DISPUTED || l->kind == KIND_INVALID) {
		seen = strmap_get(&l->seen, b->bug_id, NULL);
		if (seen->count++)
			return 0;
		frontends = seen->ptr;
	}
	kinds_reason(b->signature, &why);
	buf_addf(&head, "  %-12s %-10s %7lld  %-24.24s ", esc_str(b->bug_id), esc_str(frontends), b->members,
		 esc_str(b->ops));
	fputs(head.data, l->out);
	summary_print_cut(l->out, esc_str(why.data ? why.data : ""), head.len, l->width);
	fputc('\n', l->out);
	buf_reset(&head);
	buf_addf(&head, "  %-12s ", "");
	fputs(head.data, l->out);
	summary_print_cut(l->out, esc_str(line->data ? line->data : ""), head.len, l->width);
	fputc('\n', l->out);
	buf_release(&head);
	buf_release(&why);
	return 0;
}

/* The entries of each kind, and the frontends of each disputed reference, before the listing. */
static int count_kind(void *ctx, const struct db_bug *b, struct err *e)
{
	struct listing *l = ctx;
	enum kind k = kinds_of_signature(b->signature);

	(void)e;
	if (l->glob) {
		size_t matched = l->matched;
		int r;

		l->matched = 0;
		r = db_bug_members(l->db, b->frontend, b->bug_id, -1, match_member, l, e);
		if (r < 0)
			return -1;
		if (!l->matched) {
			l->matched = matched;
			return 0;
		}
		l->matched = matched;
	}
	if (k == KIND_DISPUTED || k == KIND_INVALID) {
		struct strmap_entry *s = strmap_get(&l->seen, b->bug_id, NULL);
		char *both = s->ptr ? xasprintf("%s,%s", (char *)s->ptr, b->frontend) : xstrdup(b->frontend);

		free(s->ptr);
		s->ptr = both;
		if (s->count++)
			return 0;
	}
	l->counts[k]++;
	return 0;
}

static int print_bug(void *ctx, const struct db_bug *b, struct err *e)
{
	struct listing *l = ctx;
	struct buf line = BUF_INIT, head = BUF_INIT;
	struct rep rep = { NULL, NULL, RECORD_HARVESTED };
	const char *exc_type;
	cJSON *o = NULL;
	const struct triage_entry *te;
	int ret = -1;

	l->matched = 0;
	l->members = NULL;
	if (!l->json && kinds_of_signature(b->signature) != l->kind)
		return 0;
	if (l->json) {
		o = cJSON_CreateObject();
		l->members = cJSON_CreateArray();
	}
	if (db_bug_members(l->db, b->frontend, b->bug_id, -1, match_member, l, e) < 0 ||
	    db_result(l->db, b->frontend, b->representative, rep_result, &rep, e) < 0)
		goto out;
	exc_type = rep.exc_type;
	ret = 0;
	if (!l->matched)
		goto out;
	l->shown++;
	/* One line per bug, led by what decides it (summary.h): what grouped it. */
	summary_failure_line(b->outcome, exc_type, b->message, 0, &line);
	if (o) {
		cJSON_AddStringToObject(o, "bug", b->bug_id);
		cJSON_AddStringToObject(o, "frontend", b->frontend);
		cJSON_AddStringToObject(o, "outcome", b->outcome);
		cJSON_AddItemToObject(o, "stage", string_or_null(b->stage));
		cJSON_AddItemToObject(o, "exc_type", string_or_null(exc_type));
		cJSON_AddNumberToObject(o, "tests", (double)b->members);
		cJSON_AddStringToObject(o, "operators", b->ops ? b->ops : "");
		cJSON_AddStringToObject(o, "signature", b->signature ? b->signature : "");
		/* What is not a frontend bug is listed apart, with its reason (kinds.h). */
		cJSON_AddStringToObject(o, "kind", kinds_name(kinds_of_signature(b->signature)));
		/* What the filing order (filing.h) weighed, and the place it gave. */
		cJSON_AddNumberToObject(o, "rank", (double)l->at->rank);
		cJSON_AddStringToObject(o, "severity", filing_severity_name(l->at->severity));
		cJSON_AddBoolToObject(o, "older_release", l->at->older);
		cJSON_AddNumberToObject(o, "operator_count", (double)l->at->operators);
		if (kinds_of_signature(b->signature) != KIND_BUG) {
			kinds_reason(b->signature, &head);
			cJSON_AddStringToObject(o, "reason", head.data ? head.data : "");
			buf_reset(&head);
		}
		if (trigger_describe(l->db, b->frontend, b->bug_id, b->representative, &head, e) < 0)
			goto out;
		cJSON_AddItemToObject(o, "trigger", head.len ? cJSON_CreateString(head.data) : cJSON_CreateNull());
		buf_reset(&head);
		if (bisect_describe(l->db, b->frontend, b->bug_id, &head, e) < 0)
			goto out;
		while (head.len && head.data[head.len - 1] == '\n')
			head.data[--head.len] = 0;
		cJSON_AddItemToObject(o, "releases", head.len ? cJSON_CreateString(head.data) : cJSON_CreateNull());
		buf_reset(&head);
		if ((te = triage_find(l->triage, b->bug_id, b->signature)))
			triage_json(te, cJSON_AddObjectToObject(o, "triage"));
		else
			cJSON_AddNullToObject(o, "triage");
		cJSON_AddStringToObject(o, "representative", b->representative ? b->representative : "");
		cJSON_AddItemToObject(o, "representative_name", string_or_null(rep.name));
		cJSON_AddStringToObject(o, "representative_origin", record_origin_name(rep.origin));
		cJSON_AddStringToObject(o, "line", line.data);
		cJSON_AddItemToObject(o, "message", string_or_null(b->message));
		cJSON_AddItemToObject(o, "members", l->members);
		l->members = NULL;
		cJSON_AddItemToArray(l->json, o);
		o = NULL;
		goto out;
	}
	if (l->kind != KIND_BUG) {
		ret = print_apart(l, b, &line);
		goto out;
	}
	buf_addf(&head, "  %-12s %-10s %-9s %-8s %7lld  %-24.24s ", esc_str(b->bug_id), esc_str(b->frontend),
		 esc_str(b->outcome), esc_str(b->stage ? b->stage : "-"), b->members, esc_str(b->ops));
	fputs(head.data, l->out);
	summary_print_cut(l->out, esc_str(line.data), head.len, l->width);
	fputc('\n', l->out);
	/* What a person decided about it (triage.h): why it is known, or what it was fixed in. */
	if ((te = triage_find(l->triage, b->bug_id, b->signature))) {
		buf_reset(&head);
		triage_label(te, &head);
		if (strcmp(te->bug, b->bug_id))
			buf_addf(&head, " (decided as %s, by its signature)", te->bug);
		fprintf(l->out, "  %-12s triage: ", "");
		summary_print_cut(l->out, esc_str(head.data), 23, l->width);
		fputc('\n', l->out);
	}
	/* A simplest test that ferry made is named as such: the bug is not its parent's. */
	if (rep.origin != RECORD_HARVESTED) {
		fprintf(l->out, "  %-12s simplest test: ", "");
		summary_print_cut(l->out, esc_str(rep.name), 30, l->width);
		fputc('\n', l->out);
	}
	/* What triggers it, by contrast with its one-change neighbours (trigger.h), under its line. */
	buf_reset(&head);
	if (trigger_describe(l->db, b->frontend, b->bug_id, b->representative, &head, e) < 0)
		goto out;
	if (head.len) {
		fprintf(l->out, "  %-12s ", "");
		summary_print_cut(l->out, esc_str(head.data), 15, l->width);
		fputc('\n', l->out);
	}
	/* The releases it affects, where ferry bisect ran its tests under others (bisect.h). */
	buf_reset(&head);
	if (bisect_describe(l->db, b->frontend, b->bug_id, &head, e) < 0)
		goto out;
	while (head.len && head.data[head.len - 1] == '\n')
		head.data[--head.len] = 0;
	if (head.len) {
		fprintf(l->out, "  %-12s releases: ", "");
		summary_print_cut(l->out, esc_str(head.data), 25, l->width);
		fputc('\n', l->out);
	}
	ret = db_reductions(l->db, b->frontend, b->representative, print_reduction, l, e) < 0 ? -1 : 0;
out:
	cJSON_Delete(o);
	cJSON_Delete(l->members);
	l->members = NULL;
	free(rep.exc_type);
	free(rep.name);
	buf_release(&line);
	buf_release(&head);
	return ret;
}

/* Call fn on each bug of f, in filing order, with where it stands in the order in l->at. */
static int each_bug(struct listing *l, const struct filing *f, int (*fn)(void *, const struct db_bug *, struct err *),
		    struct err *e)
{
	for (size_t i = 0; i < f->n; i++) {
		l->at = &f->v[i];
		if (fn(l, &f->v[i].b, e) < 0)
			return -1;
	}
	l->at = NULL;
	return 0;
}

int bugs_list(const char *store, const struct bugs_opts *o, FILE *out, struct err *e)
{
	struct triage t = TRIAGE_INIT;
	struct filing f = { NULL, 0 };
	struct db db = DB_INIT;
	struct listing l;
	size_t nbugs = 0, nfail = 0, apart, shown_apart = 0;
	int ret = -1;

	memset(&l, 0, sizeof(l));
	if (!fs_exists(store))
		return err_set(e, EXIT_INPUT, "cannot open the store '%s': No such file or directory", store);
	if ((o->triage || fs_exists(TRIAGE_DEFAULT)) &&
	    triage_load(&t, o->triage ? o->triage : TRIAGE_DEFAULT, 0, e) < 0)
		goto out;
	if (db_open(&db, store, DB_WRITE, e) < 0 || summary_require_match(&db, store, o->frontend, o->glob, e) < 0 ||
	    dedup_rebuild(&db, o->frontend, &nbugs, &nfail, e) < 0 ||
	    triage_bind(&t, &db, e) < 0 || filing_load(&db, o->frontend, &f, e) < 0)
		goto out;
	l.db = &db;
	l.out = out;
	l.triage = &t;
	l.glob = o->glob;
	l.width = summary_width(out, o->wide);
	if (o->json) {
		cJSON *doc = cJSON_CreateObject();
		char *text;

		cJSON_AddStringToObject(doc, "store", store);
		cJSON_AddItemToObject(doc, "op", string_or_null(o->glob));
		cJSON_AddNumberToObject(doc, "failures", (double)nfail);
		l.json = cJSON_AddArrayToObject(doc, "bugs");
		if (each_bug(&l, &f, print_bug, e) < 0) {
			cJSON_Delete(doc);
			goto out;
		}
		text = cJSON_Print(doc);
		fprintf(out, "%s\n", text);
		free(text);
		cJSON_Delete(doc);
		ret = 0;
		goto out;
	}
	if (each_bug(&l, &f, count_kind, e) < 0)
		goto out;
	apart = nbugs - l.counts[KIND_BUG];
	for (int k = 1; k < KIND_COUNT; k++)
		shown_apart += l.counts[k];
	/* The disputed references' entries were counted once each: a line names all their frontends. */
	for (size_t i = 0; i < l.seen.cap; i++)
		if (l.seen.slots[i].key)
			l.seen.slots[i].count = 0;
	fprintf(out, "%zu unique bug%s from %zu failure%s in %s", nbugs - apart, nbugs - apart == 1 ? "" : "s", nfail,
		nfail == 1 ? "" : "s", esc_str(store));
	if (apart)
		fprintf(out, " (and %zu %s, listed after them)", shown_apart,
			shown_apart == 1 ? "entry that is not a frontend bug" : "entries that are not frontend bugs");
	fputc('\n', out);
	if (o->glob)
		fprintf(out, "those with a test of an operator matching '%s':\n", esc_str(o->glob));
	if (l.counts[KIND_BUG])
		fprintf(out, "\n  %-12s %-10s %-9s %-8s %7s  %-24s %s\n",
			"bug", "frontend", "symptom", "stage", "tests",
			"operators", "what failed in the simplest test");
	if (each_bug(&l, &f, print_bug, e) < 0)
		goto out;
	if (o->glob && !l.shown)
		fprintf(out, "  none\n");
	for (int k = 1; k < KIND_COUNT; k++) {
		if (!l.counts[k])
			continue;
		fprintf(out, "\nNot a frontend bug: %s: %zu\n  %-12s %-10s %7s  %-24s %s\n",
			kinds_heading((enum kind)k), l.counts[k], "entry", "frontend", "tests", "operators",
			"why, then what failed in the simplest test");
		l.kind = (enum kind)k;
		if (each_bug(&l, &f, print_bug, e) < 0)
			goto out;
	}
	ret = 0;
out:
	for (size_t i = 0; i < l.seen.cap; i++)
		if (l.seen.slots[i].key)
			free(l.seen.slots[i].ptr);
	strmap_release(&l.seen);
	filing_release(&f);
	triage_release(&t);
	db_close(&db);
	return ret;
}
