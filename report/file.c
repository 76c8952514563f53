/* file.c: ferry file's engine (file.h). What the store knows is gathered here (the bug, its
 * neighbours, the releases that ran its tests); ferry.oracle.issue composes the text and the
 * reproducer, runs the reproducer once to show what it prints, and hands back the files. */
#include "file.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bisect.h"
#include "esc.h"
#include "fsutil.h"
#include "py.h"
#include "xalloc.h"

/* A neighbour of the representative (db.h): a test one change away, and what the frontend did. */
static int add_neighbour(void *ctx, const struct db_neighbour *n, struct err *e)
{
	cJSON *list = ctx, *x;

	(void)e;
	if (!n->outcome)
		return 0;
	x = cJSON_CreateObject();
	cJSON_AddStringToObject(x, "change", n->change ? n->change : "?");
	cJSON_AddStringToObject(x, "outcome", n->outcome);
	cJSON_AddItemToObject(x, "bug", n->bug_id ? cJSON_CreateString(n->bug_id) : cJSON_CreateNull());
	cJSON_AddItemToArray(list, x);
	return 0;
}

/* The representative's result under each label of the same adapter (NAME, NAME@VERSION). */
struct releases {
	cJSON *list;
	const char *adapter, *id;
	struct db *db;
};

static int add_result(void *ctx, const struct db_row *row, struct err *e)
{
	cJSON *x = ctx;

	(void)e;
	cJSON_AddStringToObject(x, "outcome", row->outcome ? row->outcome : "?");
	if (row->frontend_version)
		cJSON_AddStringToObject(x, "release", row->frontend_version);
	return 0;
}

static int add_label(void *ctx, const char *label, struct err *e)
{
	struct releases *r = ctx;
	size_t n = strlen(r->adapter);
	char *version = NULL;
	cJSON *x;

	if (strncmp(label, r->adapter, n) || (label[n] && label[n] != '@'))
		return 0;
	x = cJSON_CreateObject();
	if (db_result(r->db, label, r->id, add_result, x, e) < 0 ||
	    db_frontend_version(r->db, label, &version, e) < 0) {
		cJSON_Delete(x);
		return -1;
	}
	if (!cJSON_GetObjectItemCaseSensitive(x, "outcome")) {
		cJSON_Delete(x);
		free(version);
		return 0;
	}
	cJSON_AddStringToObject(x, "label", label);
	cJSON_AddItemToObject(x, "version", version ? cJSON_CreateString(version) : cJSON_CreateNull());
	cJSON_AddItemToArray(r->list, x);
	free(version);
	return 0;
}

/* Write text into DIR/name: ferry's file in the user's directory (a link in its place refused). */
static int write_file(const char *dir, const char *name, const char *text, struct err *e)
{
	char *path = xasprintf("%s/%s", dir, name);
	int fd = fs_dir_beneath(dir, 0, 1, e), r = -1;

	if (fd >= 0) {
		r = fs_write_beneath(fd, name, path, text, strlen(text), e);
		close(fd);
	}
	free(path);
	return r;
}

int file_issue(struct db *db, cJSON *doc, const char *python, const char *outdir, FILE *out, struct err *e)
{
	const cJSON *fe = cJSON_GetObjectItemCaseSensitive(doc, "frontend");
	const cJSON *adapter = cJSON_GetObjectItemCaseSensitive(doc, "adapter");
	const cJSON *rep = cJSON_GetObjectItemCaseSensitive(doc, "representative");
	struct releases rel = { NULL, NULL, NULL, db };
	cJSON *neighbours = cJSON_AddArrayToObject(doc, "neighbours"), *files = NULL;
	char *text = NULL, *result = NULL;
	const char *args[1];
	int ret = -1;

	if (!cJSON_IsString(fe) || !cJSON_IsString(adapter) || !cJSON_IsString(rep))
		return err_set(e, EXIT_ENV, "ferry file: the bug's document lacks its frontend");
	if (db_neighbours(db, fe->valuestring, rep->valuestring, NULL, add_neighbour, neighbours, e) < 0)
		return -1;
	rel.list = cJSON_AddArrayToObject(doc, "releases");
	rel.adapter = adapter->valuestring;
	rel.id = rep->valuestring;
	if (db_frontends(db, NULL, add_label, &rel, e) < 0)
		return -1;
	{
		/* ferry bisect's verdict, from the member tests' results under the other releases. */
		struct buf line = BUF_INIT;
		const cJSON *bug = cJSON_GetObjectItemCaseSensitive(doc, "bug");

		if (cJSON_IsString(bug) && bisect_describe(db, fe->valuestring, bug->valuestring, &line, e) < 0) {
			buf_release(&line);
			return -1;
		}
		while (line.len && line.data[line.len - 1] == '\n')
			line.data[--line.len] = 0;
		cJSON_AddItemToObject(doc, "bisect", line.len ? cJSON_CreateString(line.data) : cJSON_CreateNull());
		buf_release(&line);
	}
	text = cJSON_PrintUnformatted(doc);
	args[0] = text;
	if (py_start(python, 1, e) < 0 ||
	    !(result = py_call_strings("ferry.oracle.issue", "compose", args, 1, "composing the issue failed", e)))
		goto out;
	if (!(files = cJSON_Parse(result)) || !cJSON_IsObject(files)) {
		err_set(e, EXIT_ENV, "ferry.oracle.issue.compose gave no JSON object");
		goto out;
	}
	if (!outdir) {
		const cJSON *issue = cJSON_GetObjectItemCaseSensitive(files, "issue.md");

		fputs(esc_lines(cJSON_IsString(issue) ? issue->valuestring : ""), out);
		ret = 0;
		goto out;
	}
	for (const cJSON *f = files->child; f; f = f->next) {
		/* Names are compose's own, never a path: a plain file name of DIR. */
		if (!cJSON_IsString(f) || !f->string || strchr(f->string, '/') || f->string[0] == '.')
			continue;
		if (write_file(outdir, f->string, f->valuestring, e) < 0)
			goto out;
		fprintf(out, "wrote %s/%s\n", esc_str(outdir), esc_str(f->string));
	}
	ret = 0;
out:
	cJSON_Delete(files);
	free(result);
	free(text);
	return ret;
}
