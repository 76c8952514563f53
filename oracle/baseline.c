/* baseline.c: reading and writing expected failures. */
#include "baseline.h"
#include "esc.h"
#include "fsutil.h"
#include "session.h"
#include "xalloc.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

char *baseline_key(const char *frontend, const char *id)
{
	return xasprintf("%s %s", frontend, id);
}

static void add(struct strmap *set, const char *frontend, const char *id, const char *outcome)
{
	char *key = baseline_key(frontend, id);
	struct strmap_entry *ent = strmap_get(set, key, NULL);

	free(ent->ptr);
	ent->ptr = xstrdup(outcome);
	free(key);
}

static int load_store(const char *path, struct strmap *set, struct err *e)
{
	struct db d = DB_INIT;
	sqlite3_stmt *st;
	int r = -1;

	if (db_open(&d, path, DB_READ, e) < 0)
		return -1;
	if (!(st = db_prepare(&d, "SELECT frontend, id, outcome FROM results", e)))
		goto out;
	while (sqlite3_step(st) == SQLITE_ROW) {
		const char *outcome = (const char *)sqlite3_column_text(st, 2);

		if (session_is_failure(outcome))
			add(set, (const char *)sqlite3_column_text(st, 0), (const char *)sqlite3_column_text(st, 1),
				outcome);
	}
	sqlite3_finalize(st);
	r = 0;
out:
	db_close(&d);
	return r;
}

int baseline_load(const char *path, struct strmap *set, struct err *e)
{
	FILE *fp;
	char *line = NULL;
	size_t cap = 0, lineno = 0;
	int r = 0;

	if (!fs_exists(path))
		return err_set(e, EXIT_INPUT, "cannot open the baseline '%s': No such file or directory", path);
	if (fs_input_file(path, e) < 0)
		return -1;
	if (db_is_store(path))
		return load_store(path, set, e);
	if (!(fp = fopen(path, "r")))
		return err_errno(e, errno == ENOENT ? EXIT_INPUT : EXIT_ENV, "cannot open the baseline '%s'", path);
	while (getline(&line, &cap, fp) > 0) {
		char frontend[128], id[64], outcome[32];
		const char *p;

		lineno++;
		line[strcspn(line, "\r\n")] = '\0';
		p = line + strspn(line, " \t");
		if (!*p || *p == '#')
			continue;
		if (sscanf(p, "%127s %63s %31s", frontend, id, outcome) != 3) {
			r = err_set(e, EXIT_INPUT, "%s:%zu: expected FRONTEND ID OUTCOME [OP]", path, lineno);
			break;
		}
		if (strlen(id) != 32 || strspn(id, "0123456789abcdef") != 32) {
			r = err_set(e, EXIT_INPUT, "%s:%zu: '%s' is not an instance id (32 hex digits)", path, lineno,
				id);
			break;
		}
		add(set, frontend, id, outcome);
	}
	free(line);
	fclose(fp);
	return r;
}

void baseline_release(struct strmap *set)
{
	for (size_t i = 0; i < set->cap; i++)
		if (set->slots[i].key)
			free(set->slots[i].ptr);
	strmap_release(set);
}

int baseline_write(struct db *d, const char *frontend, FILE *fp, size_t *n, struct err *e)
{
	sqlite3_stmt *st = db_prepare(d,
		"SELECT r.frontend, r.id, r.outcome, i.op FROM results r JOIN instances i USING(id)"
		" WHERE (?1 IS NULL OR r.frontend = ?1)"
		" AND r.outcome NOT IN ('pass', 'unsupported', 'undefined') ORDER BY r.frontend, i.op, r.id", e);

	*n = 0;
	if (!st)
		return -1;
	if (frontend)
		sqlite3_bind_text(st, 1, frontend, -1, SQLITE_STATIC);
	fprintf(fp, "# ferry baseline: tests known to fail, one per line: FRONTEND ID OUTCOME OP\n"
		    "# ferry check --baseline FILE fails only on failures not listed here.\n");
	while (sqlite3_step(st) == SQLITE_ROW) {
		/* A newline in an operator's name would forge a line of the file (esc.h). */
		fprintf(fp, "%s %s %s %s\n", esc_str((const char *)sqlite3_column_text(st, 0)),
			esc_str((const char *)sqlite3_column_text(st, 1)),
				esc_str((const char *)sqlite3_column_text(st, 2)),
			esc_str((const char *)sqlite3_column_text(st, 3)));
		(*n)++;
	}
	sqlite3_finalize(st);
	if (ferror(fp))
		return err_errno(e, EXIT_ENV, "cannot write the baseline");
	return 0;
}
