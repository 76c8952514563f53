/* triggers.c: the plan and the bookkeeping of ferry go's trigger stage (triggers.h); go.c runs the
 * vary, wrap and run around them. */
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "db.h"
#include "dedup.h"
#include "fsutil.h"
#include "jsonl.h"
#include "record.h"
#include "triggers.h"
#include "trigger.h"
#include "kinds.h"
#include "xalloc.h"

void triggers_plan_release(struct triggers_plan *p)
{
	for (size_t i = 0; i < p->nbugs; i++) {
		free(p->bugs[i].frontend);
		free(p->bugs[i].bug_id);
		free(p->bugs[i].representative);
	}
	free(p->bugs);
	strmap_release(&p->parents);
	memset(p, 0, sizeof(*p));
}

/* One frontend's bugs, the most members first (db_bugs' order); only its frontend bugs: what it lacks
 * or says it does not support, a disputed reference or a suspected invalid test (kinds.h) has no
 * trigger to find. */
struct fe_bugs {
	const char *frontend;
	struct triggers_bug *v;
	size_t n, cap, next;
};

static int collect_bug(void *ctx, const struct db_bug *b, struct err *e)
{
	struct fe_bugs *f = ctx;
	struct triggers_bug *t;

	(void)e;
	if (kinds_of_signature(b->signature) != KIND_BUG)
		return 0;
	XGROW(f->v, f->cap, f->n + 1);
	t = &f->v[f->n++];
	t->frontend = xstrdup(b->frontend);
	t->bug_id = xstrdup(b->bug_id);
	t->representative = xstrdup(b->representative);
	return 0;
}

static int keep_record(void *ctx, const struct db_row *row, struct err *e)
{
	char **out = ctx;

	(void)e;
	if (row->record && !*out)
		*out = xstrdup(row->record);
	return 0;
}

/* The ids of a corpus file that exists, into m, and its text into text. */
static int read_ids(const char *path, struct strmap *m, struct buf *text, struct err *e)
{
	struct jsonl_reader r;
	enum jsonl_status st;
	char *id;

	if (!fs_exists(path))
		return 0;
	if (jsonl_open(&r, path, e) < 0)
		return -1;
	while ((st = jsonl_good_id(&r, &id, e)) == JSONL_OK) {
		int created;

		strmap_get(m, id, &created);
		if (created) {
			buf_adds(text, r.line);
			if (text->data[text->len - 1] != '\n')
				buf_addc(text, '\n');
		}
		free(id);
	}
	jsonl_close(&r);
	return st == JSONL_FAIL ? -1 : 0;
}

/* A representative that is a neighbour of a member of its bug (a neighbour that failed alike, and
 * is simpler) stands for that member, whose neighbours ran already: varying it again would take
 * the next simpler one, run after run. *found: the member it stands for, or NULL (caller frees).
 * 0, or -1 with e. */
static int stands_for(struct db *d, const struct triggers_bug *b, char **found, struct err *e)
{
	struct strmap parents = STRMAP_INIT;
	int r = -1;

	*found = NULL;
	if (trigger_parents_in_bug(d, b->frontend, b->bug_id, b->representative, &parents, e) < 0)
		goto out;
	for (size_t i = 0; i < parents.cap && !*found; i++)
		if (parents.slots[i].key)
			*found = xstrdup(parents.slots[i].key);
	r = 0;
out:
	strmap_release(&parents);
	return r;
}

/* Take bug b into the plan: its representative's record into text unless have has it. 1 taken, 0
 * passed over (a graph, or no record in the store), -1 on error. */
static int take(struct db *d, struct triggers_plan *p, struct triggers_bug *b, struct strmap *have,
		struct buf *text, size_t *added, struct err *e)
{
	char *record = NULL, *member;
	struct instance in = INSTANCE_INIT;
	struct err bad = ERR_INIT;
	int r = 0, created;

	if (stands_for(d, b, &member, e) < 0)
		return -1;
	if (member) {
		free(b->representative);
		b->representative = member;
	}
	if (db_result(d, b->frontend, b->representative, keep_record, &record, e) < 0)
		return -1;
	if (!record || record_parse(&in, record, strlen(record), &bad) < 0) {
		err_release(&bad);
		free(record);
		return 0;
	}
	if (!strcmp(in.kind, "graph") || in.unmigratable) {
		p->graphs += !strcmp(in.kind, "graph");
		goto out;
	}
	strmap_get(have, in.id, &created);
	if (created) {
		/* Written back as ferry writes a record: one line, whatever the store holds. */
		record_write(&in, text);
		buf_addc(text, '\n');
		(*added)++;
	}
	strmap_get(&p->parents, in.id, NULL);
	XGROW(p->bugs, p->cap, p->nbugs + 1);
	p->bugs[p->nbugs++] = *b;
	memset(b, 0, sizeof(*b));
	r = 1;
out:
	record_release(&in);
	free(record);
	return r;
}

int triggers_plan(const char *store, const char *const *frontends, size_t nfes, size_t max_bugs,
		  const char *parents, struct triggers_plan *p, size_t *added, struct err *e)
{
	struct db d = DB_INIT;
	struct fe_bugs *per = xcalloc(nfes ? nfes : 1, sizeof(*per));
	struct strmap have = STRMAP_INIT;
	struct buf text = BUF_INIT;
	int r = -1, more = 1;

	memset(p, 0, sizeof(*p));
	*added = 0;
	if (db_open(&d, store, DB_WRITE, e) < 0 || dedup_rebuild(&d, NULL, NULL, NULL, e) < 0)
		goto out;
	for (size_t i = 0; i < nfes; i++) {
		per[i].frontend = frontends[i];
		if (db_bugs(&d, frontends[i], collect_bug, &per[i], e) < 0)
			goto out;
	}
	if (read_ids(parents, &have, &text, e) < 0)
		goto out;
	/* Round-robin across the frontends, the most members first within each. */
	while (more && (!max_bugs || p->nbugs < max_bugs)) {
		more = 0;
		for (size_t i = 0; i < nfes && (!max_bugs || p->nbugs < max_bugs); i++) {
			if (per[i].next >= per[i].n)
				continue;
			more = 1;
			if (take(&d, p, &per[i].v[per[i].next++], &have, &text, added, e) < 0)
				goto out;
		}
	}
	if (*added && fs_write_atomic(parents, text.data, text.len, e) < 0)
		goto out;
	r = 0;
out:
	for (size_t i = 0; i < nfes; i++) {
		for (size_t k = 0; k < per[i].n; k++) {
			free(per[i].v[k].frontend);
			free(per[i].v[k].bug_id);
			free(per[i].v[k].representative);
		}
		free(per[i].v);
	}
	free(per);
	strmap_release(&have);
	buf_release(&text);
	db_close(&d);
	return r;
}

struct to_run {
	struct strmap *ids, *every;
};

static int add_run(void *ctx, const struct db_neighbour *n, struct err *e)
{
	struct to_run *t = ctx;

	(void)e;
	strmap_get(t->ids, n->id, NULL);
	strmap_get(t->every, n->id, NULL);
	return 0;
}

int triggers_record(const char *store, const char *log, const struct triggers_plan *p, struct triggers_run *runs,
		    size_t nruns, struct strmap *every, size_t *neighbours, struct err *e)
{
	struct jsonl_reader r = JSONL_READER_INIT;
	struct db d = DB_INIT;
	enum jsonl_status st;
	cJSON *j;
	int ret = -1, in_tx = 0;

	*neighbours = 0;
	if (db_open(&d, store, DB_WRITE, e) < 0)
		return -1;
	if (fs_exists(log)) {
		if (jsonl_open(&r, log, e) < 0 || db_begin(&d, e) < 0)
			goto out;
		in_tx = 1;
		while ((st = jsonl_good_json(&r, &j, e)) == JSONL_OK) {
			const cJSON *parent = cJSON_GetObjectItemCaseSensitive(j, "parent");
			const cJSON *id = cJSON_GetObjectItemCaseSensitive(j, "id");
			const cJSON *vary = cJSON_GetObjectItemCaseSensitive(j, "vary");
			int rc = 0;

			/* Kept, or the same test as one there is: either way a test one change away. */
			if (cJSON_IsString(parent) && cJSON_IsString(id) && cJSON_IsString(vary) &&
			    strcmp(parent->valuestring, id->valuestring)) {
				rc = db_put_neighbour(&d, parent->valuestring, id->valuestring, vary->valuestring, e);
				(*neighbours)++;
			}
			cJSON_Delete(j);
			if (rc < 0)
				goto out;
		}
		if (st == JSONL_FAIL || db_commit(&d, e) < 0)
			goto out;
		in_tx = 0;
	}
	for (size_t i = 0; i < p->nbugs; i++)
		for (size_t k = 0; k < nruns; k++) {
			struct to_run t = { &runs[k].ids, every };

			if (strcmp(runs[k].frontend, p->bugs[i].frontend))
				continue;
			if (db_neighbours(&d, runs[k].frontend, p->bugs[i].representative, NULL, add_run, &t, e) < 0)
				goto out;
		}
	ret = 0;
out:
	if (in_tx && ret < 0) {
		struct err ignored = ERR_INIT;

		db_commit(&d, &ignored);
		err_release(&ignored);
	}
	jsonl_close(&r);
	db_close(&d);
	return ret;
}
