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

	buf_addf(out, "%s|%s|%s|", f->frontend, f->outcome, stage);
	if (!strcmp(f->outcome, "mismatch")) {
		buf_addf(out, "%s|%s", f->op, mismatch_kind(f->message));
	} else if (!strcmp(f->outcome, "crash") && f->exc_type && !strncmp(f->exc_type, "signal ", 7)) {
		buf_addf(out, "%s|%s", f->exc_type, f->op);
	} else if (!strcmp(f->outcome, "crash")) {
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

static const char *col(sqlite3_stmt *st, int i)
{
	const unsigned char *s = sqlite3_column_text(st, i);

	return s ? (const char *)s : NULL;
}

static int store_bugs(struct db *d, const char *frontend, struct strmap *bugs, struct err *e)
{
	sqlite3_stmt *del1 = NULL, *del2 = NULL, *ins = NULL, *mem = NULL;
	int r = -1;

	if (!(del1 = db_prepare(d, "DELETE FROM bugs WHERE ?1 IS NULL OR frontend = ?1", e)) ||
	    !(del2 = db_prepare(d, "DELETE FROM bug_members WHERE ?1 IS NULL OR frontend = ?1", e)) ||
	    !(ins = db_prepare(d, "INSERT INTO bugs(bug_id, frontend, outcome, stage, signature, representative,"
			       " members, ops, message) VALUES(?,?,?,?,?,?,?,?,?)", e)) ||
	    !(mem = db_prepare(d, "INSERT OR REPLACE INTO bug_members(bug_id, frontend, id) VALUES(?,?,?)", e)))
		goto out;
	for (int k = 0; k < 2; k++) {
		sqlite3_stmt *st = k ? del2 : del1;

		if (frontend)
			sqlite3_bind_text(st, 1, frontend, -1, SQLITE_STATIC);
		if (sqlite3_step(st) != SQLITE_DONE) {
			db_error(d, e, "cannot write to the store");
			goto out;
		}
	}
	for (size_t i = 0; i < bugs->cap; i++) {
		struct bug *b = bugs->slots[i].key ? bugs->slots[i].ptr : NULL;
		struct strmap_entry **ops;
		struct buf oplist = BUF_INIT;

		if (!b)
			continue;
		ops = strmap_sorted(&b->ops);
		for (size_t k = 0; ops[k]; k++)
			buf_addf(&oplist, "%s%s", k ? "," : "", ops[k]->key);
		free(ops);
		sqlite3_reset(ins);
		sqlite3_bind_text(ins, 1, b->id, -1, SQLITE_STATIC);
		sqlite3_bind_text(ins, 2, b->frontend, -1, SQLITE_STATIC);
		sqlite3_bind_text(ins, 3, b->outcome, -1, SQLITE_STATIC);
		sqlite3_bind_text(ins, 4, b->stage, -1, SQLITE_STATIC);
		sqlite3_bind_text(ins, 5, b->signature, -1, SQLITE_STATIC);
		sqlite3_bind_text(ins, 6, b->rep, -1, SQLITE_STATIC);
		sqlite3_bind_int64(ins, 7, (long long)b->nmembers);
		sqlite3_bind_text(ins, 8, oplist.data, -1, SQLITE_TRANSIENT);
		sqlite3_bind_text(ins, 9, b->message, -1, SQLITE_STATIC);
		buf_release(&oplist);
		if (sqlite3_step(ins) != SQLITE_DONE) {
			db_error(d, e, "cannot write to the store");
			goto out;
		}
		for (size_t m = 0; m < b->nmembers; m++) {
			sqlite3_reset(mem);
			sqlite3_bind_text(mem, 1, b->id, -1, SQLITE_STATIC);
			sqlite3_bind_text(mem, 2, b->frontend, -1, SQLITE_STATIC);
			sqlite3_bind_text(mem, 3, b->members[m], -1, SQLITE_STATIC);
			if (sqlite3_step(mem) != SQLITE_DONE) {
				db_error(d, e, "cannot write to the store");
				goto out;
			}
		}
	}
	r = 0;
out:
	sqlite3_finalize(del1);
	sqlite3_finalize(del2);
	sqlite3_finalize(ins);
	sqlite3_finalize(mem);
	return r;
}

int dedup_rebuild(struct db *d, const char *frontend, size_t *nbugs, size_t *nfailures, struct err *e)
{
	sqlite3_stmt *st = db_prepare(d,
		"SELECT r.frontend, i.op, r.outcome, r.stage, r.exc_type, r.frame, r.message, r.id, i.record"
		" FROM results r JOIN instances i USING(id)"
		" WHERE r.outcome IN ('mismatch', 'crash', 'timeout', 'oom', 'error')"
		" AND (?1 IS NULL OR r.frontend = ?1) ORDER BY r.frontend, r.id", e);
	struct strmap bugs = STRMAP_INIT;
	struct buf sig = BUF_INIT;
	size_t failures = 0;
	int r = -1;

	if (!st)
		return -1;
	if (frontend)
		sqlite3_bind_text(st, 1, frontend, -1, SQLITE_STATIC);
	while (sqlite3_step(st) == SQLITE_ROW) {
		struct failure f = { col(st, 0), col(st, 1), col(st, 2), col(st, 3), col(st, 4), col(st, 5),
				     col(st, 6) };
		const char *id = col(st, 7);
		struct strmap_entry *ent;
		struct bug *b;
		long long np, ne;
		int created;

		failures++;
		buf_reset(&sig);
		dedup_signature(&f, &sig);
		ent = strmap_get(&bugs, sig.data, &created);
		if (created) {
			XXH64_hash_t h = XXH3_64bits(sig.data, sig.len);

			b = xcalloc(1, sizeof(*b));
			snprintf(b->id, sizeof(b->id), "%012llx", (unsigned long long)(h >> 16));
			b->frontend = xstrdup(f.frontend);
			b->outcome = xstrdup(f.outcome);
			b->stage = f.stage ? xstrdup(f.stage) : NULL;
			b->message = f.message ? xstrdup(f.message) : NULL;
			b->signature = xstrdup(sig.data);
			b->rep_params = b->rep_elements = -1;
			ent->ptr = b;
		}
		b = ent->ptr;
		XGROW(b->members, b->cap, b->nmembers + 1);
		b->members[b->nmembers++] = xstrdup(id);
		strmap_get(&b->ops, f.op, NULL)->count++;
		simplicity(col(st, 8), &np, &ne);
		if (!b->rep || np < b->rep_params || (np == b->rep_params && ne < b->rep_elements)) {
			free(b->rep);
			b->rep = xstrdup(id);
			b->rep_params = np;
			b->rep_elements = ne;
			free(b->message);
			b->message = f.message ? xstrdup(f.message) : NULL;
		}
	}
	if (db_begin(d, e) < 0)
		goto out;
	if (store_bugs(d, frontend, &bugs, e) < 0) {
		sqlite3_exec(d->h, "ROLLBACK", NULL, NULL, NULL);
		goto out;
	}
	if (db_commit(d, e) < 0)
		goto out;
	if (nbugs)
		*nbugs = bugs.len;
	if (nfailures)
		*nfailures = failures;
	r = 0;
out:
	sqlite3_finalize(st);
	for (size_t i = 0; i < bugs.cap; i++)
		if (bugs.slots[i].key)
			bug_free(bugs.slots[i].ptr);
	strmap_release(&bugs);
	buf_release(&sig);
	return r;
}
