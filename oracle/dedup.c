/* dedup.c: grouping failures into unique bugs. */
#include "dedup.h"
#include "record.h"
#include "strmap.h"
#include "xalloc.h"

#include <ctype.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <xxhash.h>

#define NORMALIZED_MAX 240

/* An exponent inside a number: e7, e-07, E+3. */
static int is_exponent(const char *p)
{
	const char *d = p + 1;

	if (*p != 'e' && *p != 'E')
		return 0;
	if (*d == '-' || *d == '+')
		d++;
	return isdigit((unsigned char)*d);
}

void dedup_normalize(const char *msg, struct buf *out)
{
	size_t start = out->len;
	const char *p = msg ? msg : "";

	while (*p && out->len - start < NORMALIZED_MAX) {
		unsigned char c = (unsigned char)*p;

		if (c == '0' && (p[1] == 'x' || p[1] == 'X') && isxdigit((unsigned char)p[2])) {
			buf_adds(out, "0x#");
			for (p += 2; isxdigit((unsigned char)*p); p++)
				;
		} else if (isdigit(c)) {
			buf_addc(out, '#');
			while (isdigit((unsigned char)*p) || *p == '.' || is_exponent(p))
				p += is_exponent(p) ? (p[1] == '-' || p[1] == '+' ? 2 : 1) : 1;
		} else if (c == '\'' || c == '"') {
			const char *end = strchr(p + 1, c);

			if (end && end - p < 200) {
				buf_adds(out, "'*'");
				p = end + 1;
			} else {
				buf_addc(out, (char)c);
				p++;
			}
		} else if (c == '/' && (p == msg || isspace((unsigned char)p[-1]) || p[-1] == '(' || p[-1] == ':')) {
			buf_adds(out, "PATH");
			while (*p && !isspace((unsigned char)*p) && *p != ':' && *p != ')' && *p != ',')
				p++;
		} else if (isspace(c)) {
			if (out->len > start && out->data[out->len - 1] != ' ')
				buf_addc(out, ' ');
			while (isspace((unsigned char)*p))
				p++;
		} else if (isalpha(c) || c == '_') {
			/* Copy a word whole, so digits inside identifiers (conv2d, int64) survive. */
			while (isalnum((unsigned char)*p) || *p == '_')
				buf_addc(out, *p++);
		} else {
			buf_addc(out, (char)c);
			p++;
		}
	}
	while (out->len > start && out->data[out->len - 1] == ' ')
		out->data[--out->len] = '\0';
}

/* The kind of a mismatch, from the comparison's description. */
static const char *mismatch_kind(const char *message)
{
	if (!message)
		return "values";
	if (strstr(message, "shape"))
		return "shape";
	if (strstr(message, "dtype"))
		return "dtype";
	if (strstr(message, "NaN") || strstr(message, "nan") || strstr(message, "Inf") || strstr(message, "inf "))
		return "nan/inf";
	if (strstr(message, "outputs"))
		return "output count";
	return "values";
}

void dedup_signature(const struct failure *f, struct buf *out)
{
	const char *stage = f->stage ? f->stage : "-";
	int o = outcome_from_name(f->outcome);

	buf_addf(out, "%s|%s|%s|", f->frontend, f->outcome, stage);
	if (o == OUTCOME_MISMATCH) {
		buf_addf(out, "%s|%s", f->op, mismatch_kind(f->message));
	} else if (o == OUTCOME_CRASH && f->exc_type && !strncmp(f->exc_type, "signal ", 7)) {
		buf_addf(out, "%s|%s", f->exc_type, f->op);
	} else if (o == OUTCOME_CRASH) {
		/* The first line of the message says what failed; later lines are stack dumps. */
		const char *m = f->message ? f->message : "";
		size_t first = strcspn(m, "\n");
		char *line = xstrndup(m, first);

		buf_addf(out, "%s|%s|", f->exc_type ? f->exc_type : "-", f->frame ? f->frame : "-");
		dedup_normalize(line, out);
		free(line);
	} else {
		buf_addf(out, "%s", f->op);
	}
}

/* How simple an instance is: fewer parameters first, then fewer input elements. */
static void simplicity(const char *record, long long *nparams, long long *elements)
{
	struct instance in;
	struct err e = ERR_INIT;

	*nparams = 1LL << 40;
	*elements = 1LL << 60;
	if (record_parse(&in, record, strlen(record), &e) < 0) {
		err_release(&e);
		return;
	}
	*nparams = (long long)in.nparams;
	*elements = 0;
	for (size_t i = 0; i < in.ninputs; i++) {
		long long n = 1;

		if (in.inputs[i].type != V_TENSOR)
			continue;
		for (int k = 0; k < in.inputs[i].u.t.rank; k++)
			n *= in.inputs[i].u.t.shape[k] > 0 ? in.inputs[i].u.t.shape[k] : 1;
		*elements += n;
	}
	record_release(&in);
}

struct bug {
	char id[17];
	char *frontend, *outcome, *stage, *message, *signature;
	char *rep;                 /* the representative's id */
	long long rep_params, rep_elements;
	struct strmap ops;
	char **members;
	size_t nmembers, cap;
};

static void bug_free(struct bug *b)
{
	free(b->frontend);
	free(b->outcome);
	free(b->stage);
	free(b->message);
	free(b->signature);
	free(b->rep);
	strmap_release(&b->ops);
	for (size_t i = 0; i < b->nmembers; i++)
		free(b->members[i]);
	free(b->members);
	free(b);
}

struct rebuild {
	struct strmap bugs;   /* signature -> struct bug */
	struct buf sig;
	size_t failures;
};

/* One failing result joins its bug, and may become its representative. */
static int add_failure(void *ctx, const struct db_row *row, struct err *e)
{
	struct rebuild *rb = ctx;
	struct failure f = { row->frontend, row->op ? row->op : "", row->outcome, row->stage, row->exc_type,
			     row->frame, row->message };
	struct strmap_entry *ent;
	struct bug *b;
	long long np, ne;
	int created;

	(void)e;
	rb->failures++;
	buf_reset(&rb->sig);
	dedup_signature(&f, &rb->sig);
	ent = strmap_get(&rb->bugs, rb->sig.data, &created);
	if (created) {
		XXH64_hash_t h = XXH3_64bits(rb->sig.data, rb->sig.len);

		b = xcalloc(1, sizeof(*b));
		snprintf(b->id, sizeof(b->id), "%012llx", (unsigned long long)(h >> 16));
		b->frontend = xstrdup(f.frontend);
		b->outcome = xstrdup(f.outcome);
		b->stage = f.stage ? xstrdup(f.stage) : NULL;
		b->message = f.message ? xstrdup(f.message) : NULL;
		b->signature = xstrdup(rb->sig.data);
		b->rep_params = b->rep_elements = -1;
		ent->ptr = b;
	}
	b = ent->ptr;
	XGROW(b->members, b->cap, b->nmembers + 1);
	b->members[b->nmembers++] = xstrdup(row->id);
	strmap_get(&b->ops, f.op, NULL)->count++;
	simplicity(row->record ? row->record : "", &np, &ne);
	if (!b->rep || np < b->rep_params || (np == b->rep_params && ne < b->rep_elements)) {
		free(b->rep);
		b->rep = xstrdup(row->id);
		b->rep_params = np;
		b->rep_elements = ne;
		free(b->message);
		b->message = f.message ? xstrdup(f.message) : NULL;
	}
	return 0;
}

int dedup_rebuild(struct db *d, const char *frontend, size_t *nbugs, size_t *nfailures, struct err *e)
{
	struct rebuild rb = { STRMAP_INIT, BUF_INIT, 0 };
	struct db_bug *rows = NULL;
	struct buf *oplists = NULL;
	size_t n = 0;
	int r = -1;

	/* By id within a frontend: the representative's last tie-break is the smallest id. */
	if (db_bug_failures(d, frontend, DB_BY_ID, add_failure, &rb, e) < 0)
		goto out;
	rows = xcalloc(rb.bugs.len + 1, sizeof(*rows));
	oplists = xcalloc(rb.bugs.len + 1, sizeof(*oplists));
	for (size_t i = 0; i < rb.bugs.cap; i++) {
		struct bug *b = rb.bugs.slots[i].key ? rb.bugs.slots[i].ptr : NULL;
		struct strmap_entry **ops;

		if (!b)
			continue;
		ops = strmap_sorted(&b->ops);
		for (size_t k = 0; ops[k]; k++)
			buf_addf(&oplists[n], "%s%s", k ? "," : "", ops[k]->key);
		free(ops);
		rows[n] = (struct db_bug){ b->id, b->frontend, b->outcome, b->stage, b->signature, b->rep,
					   oplists[n].data, b->message, (long long)b->nmembers, b->members,
					   b->nmembers };
		n++;
	}
	if (db_bugs_replace(d, frontend, rows, n, e) < 0)
		goto out;
	if (nbugs)
		*nbugs = rb.bugs.len;
	if (nfailures)
		*nfailures = rb.failures;
	r = 0;
out:
	for (size_t i = 0; i < n; i++)
		buf_release(&oplists[i]);
	free(oplists);
	free(rows);
	for (size_t i = 0; i < rb.bugs.cap; i++)
		if (rb.bugs.slots[i].key)
			bug_free(rb.bugs.slots[i].ptr);
	strmap_release(&rb.bugs);
	buf_release(&rb.sig);
	return r;
}
