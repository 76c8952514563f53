/* summary.c: what report, bugs and show print of a store (summary.h). */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "dedup.h"
#include "esc.h"
#include "select.h"
#include "summary.h"
#include "xalloc.h"

/* How much a part of a mismatch's description decides: NaN/Inf placement, shape and dtype first, then
 * how many elements are out of tolerance, then the largest difference; "0 of N beyond" last. */
static int part_rank(const char *p, size_t n)
{
	char *s = xstrndup(p, n);
	int rank = 2;

	if (strstr(s, "NaN") || strstr(s, "Inf") || strstr(s, "shape") || strstr(s, "dtype"))
		rank = 0;
	else if (strstr(s, " elements beyond "))
		rank = s[0] == '0' && s[1] == ' ' ? 3 : 1;
	free(s);
	return rank;
}

/* A mismatch's "output K: a, b, c" with its comma-separated parts (outside brackets) ordered by what
 * decides (part_rank), the order otherwise kept. */
static void order_mismatch(const char *msg, struct buf *out)
{
	const char *start[16], *p = msg, *colon = strstr(msg, ": ");
	size_t len[16];
	int n = 0, depth = 0;

	if (!strncmp(msg, "output ", 7) && colon) {
		buf_add(out, msg, (size_t)(colon + 2 - msg));
		p = colon + 2;
	}
	start[0] = p;
	for (const char *c = p;; c++) {
		if (*c == '(' || *c == '[' || *c == '{')
			depth++;
		else if ((*c == ')' || *c == ']' || *c == '}') && depth > 0)
			depth--;
		if (!*c || (*c == ',' && !depth && c[1] == ' ' && n < 15)) {
			len[n] = (size_t)(c - start[n]);
			n++;
			if (!*c)
				break;
			start[n] = c + 2;
		}
	}
	for (int rank = 0, first = 1; rank <= 3; rank++)
		for (int i = 0; i < n; i++)
			if (part_rank(start[i], len[i]) == rank) {
				buf_addf(out, "%s%.*s", first ? "" : ", ", (int)len[i], start[i]);
				first = 0;
			}
}

/* Whether a result's exc_type is an exception's name worth putting first: not ferry's own words for
 * a worker's death ("exit 3", "signal 11"), which its message says already, and not already said. */
static int names_exception(const char *exc_type, const char *said)
{
	return exc_type && *exc_type && !strchr(exc_type, ' ') && !strstr(said ? said : "", exc_type);
}

/* Past where a line was said, to what it says: a compiler's "FILE:LINE:COL: error: " (IREE's
 * "<stdin>:4:10: error: ") and a native "file.cc:385 " before the text. The signature keeps them
 * (dedup.h), and so does the whole message. */
static const char *past_location(const char *s)
{
	const char *p = s + strcspn(s, " :");

	if (*p != ':' || !isdigit((unsigned char)p[1])) {
		p = s;  /* dedup_decisive took "<unknown>:0: " off already */
	} else {
		while (*p == ':' && isdigit((unsigned char)p[1]))
			for (p++; isdigit((unsigned char)*p); p++)
				;
		p += *p == ':';
		while (*p == ' ')
			p++;
	}
	if (!strncmp(p, "error: ", 7))
		p += 7;
	else if (!strncmp(p, "fatal error: ", 13))
		p += 13;
	return *p ? p : s;
}

void summary_failure_line(const char *outcome, const char *exc_type, const char *message, unsigned flags,
			  struct buf *out)
{
	size_t from = out->len;

	if (outcome && !strcmp(outcome, "crash") && message) {
		struct buf line = BUF_INIT;

		/* tvm-tflite's KeyError reads "10" alone: the type is half of what was said. */
		dedup_decisive(message, &line);
		if (names_exception(exc_type, line.data))
			buf_addf(out, "%s: ", exc_type);
		buf_adds(out, past_location(line.data ? line.data : ""));
		if ((flags & SUMMARY_WHOLE) && line.data && strcmp(line.data, message))
			buf_addf(out, " -- %s", message);
		buf_release(&line);
	} else if (outcome && !strcmp(outcome, "mismatch") && message) {
		order_mismatch(message, out);
	} else {
		if (outcome && outcome_name_is_failure(outcome) && names_exception(exc_type, message))
			buf_addf(out, "%s: ", exc_type);
		buf_adds(out, message ? message : "");
	}
	if (!out->data)
		buf_adds(out, "");
	for (char *c = out->data + from; *c; c++)
		if (*c == '\n' || *c == '\r')
			*c = ' ';
}

size_t summary_width(FILE *out, int wide)
{
	struct winsize w;
	const char *cols = getenv("COLUMNS");
	long n;

	if (wide || !isatty(fileno(out)))
		return 0;
	if (cols && (n = strtol(cols, NULL, 10)) > 20)
		return (size_t)n;
	if (ioctl(fileno(out), TIOCGWINSZ, &w) == 0 && w.ws_col > 20)
		return w.ws_col;
	return 100;
}

void summary_print_cut(FILE *out, const char *s, size_t used, size_t width)
{
	size_t room = width > used + 10 ? width - used : 10, n = strlen(s);

	if (!width || n <= room) {
		fputs(s, out);
		return;
	}
	/* Cut on a character's first byte, so that a terminal is not left inside UTF-8. */
	n = room - 3;
	while (n > 0 && ((unsigned char)s[n] & 0xc0) == 0x80)
		n--;
	fprintf(out, "%.*s...", (int)n, s);
}

int summary_op_matches(const char *glob, const char *op)
{
	if (!glob)
		return 1;
	return select_op_matches(glob, op);
}

struct glob_count {
	const char *glob;
	long long tests, matched;
};

static int count_match(void *ctx, const struct db_row *row, struct err *e)
{
	struct glob_count *c = ctx;

	(void)e;
	c->tests++;
	c->matched += summary_op_matches(c->glob, row->op);
	return 0;
}

int summary_require_match(struct db *d, const char *store, const char *frontend, const char *glob, struct err *e)
{
	struct glob_count c = { glob, 0, 0 };

	if (!glob)
		return 0;
	if (db_results_with(d, frontend, NULL, count_match, &c, e) < 0)
		return -1;
	if (c.matched)
		return 0;
	return err_set(e, EXIT_INPUT, "--op %s selects none of the %lld tests%s%s in '%s': nothing to show",
		       glob, c.tests, frontend ? " of " : "", frontend ? frontend : "", store);
}

static struct summary_frontend *frontend_of(struct summary *s, const char *name)
{
	struct summary_frontend *f;

	if (s->nfe && !strcmp(s->fe[s->nfe - 1].name, name))
		return &s->fe[s->nfe - 1];
	for (size_t i = 0; i < s->nfe; i++)
		if (!strcmp(s->fe[i].name, name))
			return &s->fe[i];
	XGROW(s->fe, s->cap, s->nfe + 1);
	f = &s->fe[s->nfe++];
	memset(f, 0, sizeof(*f));
	f->name = xstrdup(name);
	return f;
}

static void note_slow(struct summary *s, const struct db_row *row)
{
	size_t k = s->nslow < SUMMARY_SLOWEST ? s->nslow : SUMMARY_SLOWEST - 1;
	struct summary_slow *x;

	if (s->nslow == SUMMARY_SLOWEST) {
		if (row->seconds <= s->slowest[k].seconds)
			return;
		x = &s->slowest[k];
		free(x->frontend);
		free(x->id);
		free(x->op);
		free(x->outcome);
	} else {
		s->nslow++;
	}
	/* Insertion: the list stays sorted, slowest first. */
	for (; k > 0 && s->slowest[k - 1].seconds < row->seconds; k--)
		s->slowest[k] = s->slowest[k - 1];
	x = &s->slowest[k];
	x->frontend = xstrdup(row->frontend);
	x->id = xstrdup(row->id);
	x->op = xstrdup(row->op ? row->op : "?");
	x->outcome = xstrdup(row->outcome);
	x->seconds = row->seconds;
}

static int add_row(void *ctx, const struct db_row *row, struct err *e)
{
	struct summary *s = ctx;
	struct summary_frontend *f;
	struct summary_op *o;
	struct summary_time *t;
	struct strmap_entry *ent;
	int out = outcome_from_name(row->outcome);

	(void)e;
	if (!summary_op_matches(s->glob, row->op))
		return 0;
	f = frontend_of(s, row->frontend);
	f->total++;
	if (out >= 0)
		f->outcomes[out]++;
	else
		f->other++;
	strmap_get(&s->all_ops, row->op ? row->op : "?", NULL)->count++;
	ent = strmap_get(&f->ops, row->op ? row->op : "?", NULL);
	if (!ent->ptr)
		ent->ptr = xcalloc(1, sizeof(struct summary_op));
	o = ent->ptr;
	o->tests++;
	if (out >= 0)
		o->by_outcome[out]++;
	o->mismatch += out == OUTCOME_MISMATCH;
	o->crash += out == OUTCOME_CRASH;
	o->timeout_oom += out == OUTCOME_TIMEOUT || out == OUTCOME_OOM;
	if (outcome_name_is_failure(row->outcome)) {
		o->failed++;
		ent->count++;
	}
	if (!isnan(row->seconds)) {
		f->seconds += row->seconds;
		f->timed++;
		/* A result without a stage ran through every stage (a mismatch) or never reached one: its
		 * outcome says which. */
		ent = strmap_get(&f->ended, out == OUTCOME_PASS ? "pass" : row->stage && *row->stage ? row->stage :
				 row->outcome, NULL);
		ent->count++;
		if (!ent->ptr)
			ent->ptr = xcalloc(1, sizeof(struct summary_time));
		t = ent->ptr;
		t->seconds += row->seconds;
		t->tests++;
		note_slow(s, row);
	}
	return 0;
}

int summary_load(struct summary *s, struct db *d, const char *frontend, const char *glob, struct err *e)
{
	memset(s, 0, sizeof(*s));
	s->glob = glob;
	if (db_results_with(d, frontend, NULL, add_row, s, e) < 0)
		return -1;
	for (size_t i = 0; i < s->nfe; i++)
		if (db_frontend_version(d, s->fe[i].name, &s->fe[i].version, e) < 0)
			return -1;
	return 0;
}

static void free_ptrs(struct strmap *m)
{
	for (size_t i = 0; i < m->cap; i++)
		if (m->slots[i].key)
			free(m->slots[i].ptr);
	strmap_release(m);
}

void summary_release(struct summary *s)
{
	for (size_t i = 0; i < s->nfe; i++) {
		free(s->fe[i].name);
		free(s->fe[i].version);
		free_ptrs(&s->fe[i].ops);
		free_ptrs(&s->fe[i].ended);
	}
	free(s->fe);
	for (size_t i = 0; i < s->nslow; i++) {
		free(s->slowest[i].frontend);
		free(s->slowest[i].id);
		free(s->slowest[i].op);
		free(s->slowest[i].outcome);
	}
	strmap_release(&s->all_ops);
	memset(s, 0, sizeof(*s));
}

struct strmap_entry **summary_failing_ops(const struct summary_frontend *f, size_t limit, size_t *n)
{
	/* strmap_sorted orders by count (failures here), then name: the order the store's query had. */
	struct strmap_entry **all = strmap_sorted(&f->ops);
	size_t k = 0;

	for (size_t i = 0; all[i]; i++)
		if (all[i]->count && (!limit || k < limit))
			all[k++] = all[i];
	all[k] = NULL;
	*n = k;
	return all;
}

void summary_print_durations(FILE *out, const struct summary *s)
{
	double total = 0;

	for (size_t i = 0; i < s->nfe; i++)
		total += s->fe[i].seconds;
	if (!s->nslow)
		return;
	fprintf(out, "\ndurations: %.1f s in the tests the store timed\n", total);
	fprintf(out, "  %-20s %8s %10s %9s   where tests ended: seconds (tests)\n", "frontend", "tests", "seconds",
		"mean");
	for (size_t i = 0; i < s->nfe; i++) {
		const struct summary_frontend *f = &s->fe[i];
		struct strmap_entry **ended;

		if (!f->timed)
			continue;
		fprintf(out, "  %-20s %8lld %10.1f %9.3f  ",
			esc_str(f->name), f->timed, f->seconds, f->seconds / f->timed);
		ended = strmap_sorted(&f->ended);
		for (size_t k = 0; ended[k]; k++) {
			const struct summary_time *t = ended[k]->ptr;

			fprintf(out, " %s %.1f (%lld)", esc_str(ended[k]->key), t->seconds, t->tests);
		}
		fputc('\n', out);
		free(ended);
	}
	fprintf(out, "  slowest tests:\n");
	for (size_t i = 0; i < s->nslow; i++)
		fprintf(out, "  %9.3f s  %-20s %-24s %.12s  %s\n",
			s->slowest[i].seconds, esc_str(s->slowest[i].frontend),
			esc_str(s->slowest[i].op), esc_str(s->slowest[i].id), esc_str(s->slowest[i].outcome));
}
