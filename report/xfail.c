/* xfail.c: ferry report --xfail's engine (xfail.h). The C side gathers each failing test with its
 * bug from the store, as one JSON list; ferry.oracle.regress.xfail writes the formats, so that the
 * names it gives the tests are the names ferry show -o gives their directories. */
#include "py.h"
#include "xfail.h"

#include <cjson/cJSON.h>
#include <stdlib.h>
#include <string.h>

#include "db.h"
#include "dedup.h"
#include "esc.h"
#include "fsutil.h"
#include "outdir.h"
#include "strmap.h"
#include "xalloc.h"

struct gathered {
	struct strmap bugs;  /* "FRONTEND\tID" -> its bug's id (ptr, owned here) */
	cJSON *list;         /* the failures, in the store's order (frontend, id) */
};

static int keep_member(void *ctx, const char *frontend, const char *bug_id, const char *id, const char *op,
		       struct err *e)
{
	struct gathered *g = ctx;
	char *key = xasprintf("%s\t%s", frontend, id);
	struct strmap_entry *m = strmap_get(&g->bugs, key, NULL);

	(void)op;
	(void)e;
	if (!m->ptr)
		m->ptr = xstrdup(bug_id);
	free(key);
	return 0;
}

static int keep_failure(void *ctx, const struct db_row *r, struct err *e)
{
	struct gathered *g = ctx;
	cJSON *f = cJSON_CreateObject();
	char *key = xasprintf("%s\t%s", r->frontend, r->id);
	const struct strmap_entry *m = strmap_find(&g->bugs, key);

	(void)e;
	free(key);
	cJSON_AddStringToObject(f, "frontend", r->frontend);
	cJSON_AddStringToObject(f, "id", r->id);
	cJSON_AddStringToObject(f, "op", r->op ? r->op : "?");
	cJSON_AddStringToObject(f, "library", r->library ? r->library : "");
	cJSON_AddStringToObject(f, "outcome", r->outcome);
	cJSON_AddItemToObject(f, "stage", r->stage ? cJSON_CreateString(r->stage) : cJSON_CreateNull());
	cJSON_AddStringToObject(f, "bug", m && m->ptr ? m->ptr : "?");
	cJSON_AddStringToObject(f, "message", r->message ? r->message : "");
	cJSON_AddItemToArray(g->list, f);
	return 0;
}

int xfail_write(const char *store, const char *frontend, const char *dir, const char *python, FILE *out,
		struct err *e)
{
	struct db db = DB_INIT;
	struct gathered g = { STRMAP_INIT, cJSON_CreateArray() };
	char *json = NULL, *lines = NULL;
	struct outdir od = OUTDIR_INIT;
	int ret = -1;

	if (!fs_exists(store)) {
		err_set(e, EXIT_INPUT, "cannot open the store '%s': No such file or directory", store);
		goto out;
	}
	/* The bugs table as the store's failures make it now (as ferry bugs and show see it). */
	if (db_open(&db, store, DB_WRITE, e) < 0 || dedup_rebuild(&db, frontend, NULL, NULL, e) < 0 ||
	    db_bug_members(&db, frontend, NULL, -1, keep_member, &g, e) < 0 ||
	    db_bug_failures(&db, frontend, DB_BY_ID, keep_failure, &g, e) < 0)
		goto out;
	json = cJSON_PrintUnformatted(g.list);
	if (outdir_open(&od, dir, store, 0, e) < 0)
		goto out;
	{
		const char *args[] = { json, dir };

		if (py_start(python, 1, e) < 0 ||
		    !(lines = py_call_strings("ferry.oracle.regress", "xfail", args, 2,
					      "cannot write the expected-failure lists", e)))
			goto out;
	}
	fputs(esc_lines(lines), out);
	ret = 0;
out:
	ret = outdir_finish(&od, ret, e);
	db_close(&db);
	for (size_t k = 0; k < g.bugs.cap; k++)
		if (g.bugs.slots[k].key)
			free(g.bugs.slots[k].ptr);
	strmap_release(&g.bugs);
	cJSON_Delete(g.list);
	free(json);
	free(lines);
	return ret;
}
