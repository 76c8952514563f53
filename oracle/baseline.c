/* baseline.c: reading and writing expected failures. */
#include "baseline.h"
#include "esc.h"
#include "fsutil.h"
#include "outcome.h"
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

static int add_row(void *ctx, const struct db_row *row, struct err *e)
{
	(void)e;
	add(ctx, row->frontend, row->id, row->outcome);
	return 0;
}

static int load_store(const char *path, struct strmap *set, struct err *e)
{
	struct db d = DB_INIT;
	int r;

	if (db_open(&d, path, DB_READ, e) < 0)
		return -1;
	r = db_bug_failures(&d, NULL, DB_BY_ID, add_row, set, e);
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
		/* ferry's own error is never a known failure (a file written before errors were left
		 * out may list one): the check must go on failing until the test is fixed. */
		if (outcome_from_name(outcome) != OUTCOME_ERROR)
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

static int write_row(void *ctx, const struct db_row *row, struct err *e)
{
	FILE *fp = ctx;

	(void)e;
	/* A newline in an operator's name would forge a line of the file (esc.h). */
	fprintf(fp, "%s %s %s %s\n", esc_str(row->frontend), esc_str(row->id), esc_str(row->outcome),
		esc_str(row->op));
	return 0;
}

struct counted {
	FILE *fp;
	size_t n;
};

static int write_counted(void *ctx, const struct db_row *row, struct err *e)
{
	struct counted *c = ctx;

	c->n++;
	return write_row(c->fp, row, e);
}

int baseline_write(struct db *d, const char *frontend, FILE *fp, size_t *n, struct err *e)
{
	struct counted c = { fp, 0 };

	*n = 0;
	fprintf(fp, "# ferry baseline: tests known to fail, one per line: FRONTEND ID OUTCOME OP\n"
		    "# ferry check --baseline FILE fails only on failures not listed here.\n");
	if (db_bug_failures(d, frontend, DB_BY_OP, write_counted, &c, e) < 0)
		return -1;
	*n = c.n;
	if (ferror(fp))
		return err_errno(e, EXIT_ENV, "cannot write the baseline");
	return 0;
}
