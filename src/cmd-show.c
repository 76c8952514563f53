/* cmd-show.c: ferry show STORE BUG [-o DIR]
 *
 * Prints one unique bug: its signature, its member tests, the representative (the simplest member)
 * as a record, and the representative's standalone reproducer. With -o, writes the reproducer and the
 * test in the compiler's own test format (for ONNX, a backend test-data directory) into DIR, so a
 * found bug becomes a regression test. */
#include "py.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "db.h"
#include "dedup.h"
#include "esc.h"
#include "fsutil.h"
#include "xalloc.h"

static const char usage[] =
	"usage: ferry show STORE BUG [-o DIR]\n"
	"\n"
	"Print a unique bug (an id from ferry bugs, or a unique prefix of one) with its member tests and\n"
	"the reproducer of its simplest test.\n"
	"\n"
	"Options:\n"
	"  -o, --output DIR     also write DIR/reproducer.py and the test in the compiler's own format\n"
	"                       in DIR/test_OP_ID/ (ONNX: a backend test-data directory; PyTorch: a\n"
	"                       pytest test function)\n";

static const char *col(sqlite3_stmt *st, int i)
{
	const unsigned char *s = sqlite3_column_text(st, i);

	return s ? (const char *)s : "";
}

/* ferry.templates.LIBRARY.FUNC(record, testdir, args...) -> str: a reproducer or an export path. */
static char *call_template(const char *library, const char *func, const char *record, const char *testdir,
			   const char *arg, const char *arg2, struct err *e)
{
	const char *args[] = { record, testdir, arg, arg2 };
	char module[80], what[128];

	if (py_start(cmd_python(), 1, e) < 0)
		return NULL;
	if (py_template_module(library, module, sizeof(module), e) < 0)
		return NULL;
	snprintf(what, sizeof(what), "the %s template's %s() failed", library, func);
	return py_call_strings(module, func, args, arg2 ? 4 : 3, what, e);
}

static int cmd_show(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "output", required_argument, NULL, 'o' },
		{ NULL, 0, NULL, 0 },
	};
	struct db db = DB_INIT;
	struct err e = ERR_INIT;
	sqlite3_stmt *st = NULL, *mem = NULL;
	const char *outdir = NULL;
	char *pattern = NULL, *bug = NULL, *frontend = NULL, *rep = NULL, *library = NULL, *record = NULL,
	     *testdir = NULL, *op = NULL, *script = NULL;
	int opt, code = EXIT_OK, matches = 0;

	while ((opt = getopt_long(argc, argv, "o:", longopts, NULL)) != -1) {
		if (opt != 'o')
			return cmd_usage_error(&cmd_show_entry, "bad option");
		outdir = optarg;
	}
	if (optind + 2 != argc)
		return cmd_usage_error(&cmd_show_entry, "show takes a STORE and a BUG");
	if (!fs_exists(argv[optind])) {
		err_set(&e, EXIT_INPUT, "cannot open the store '%s': No such file or directory", argv[optind]);
		return cmd_error(&e);
	}
	if (db_open(&db, argv[optind], DB_WRITE, &e) < 0 || dedup_rebuild(&db, NULL, NULL, NULL, &e) < 0)
		goto fail;
	pattern = xasprintf("%s%%", argv[optind + 1]);
	if (!(st = db_prepare(&db,
		"SELECT b.bug_id, b.frontend, b.outcome, coalesce(b.stage, '-'), b.signature, b.members, b.ops,"
		" b.representative, i.library, i.record, coalesce(i.dir, ''), i.op, coalesce(r.message, ''),"
		" coalesce(r.detail, '')"
		" FROM bugs b JOIN instances i ON i.id = b.representative"
		" JOIN results r ON r.id = b.representative AND r.frontend = b.frontend"
		" WHERE b.bug_id LIKE ?1", &e)))
		goto fail;
	sqlite3_bind_text(st, 1, pattern, -1, SQLITE_STATIC);
	while (sqlite3_step(st) == SQLITE_ROW) {
		if (matches++)
			continue;
		bug = xstrdup(col(st, 0));
		frontend = xstrdup(col(st, 1));
		rep = xstrdup(col(st, 7));
		library = xstrdup(col(st, 8));
		record = xstrdup(col(st, 9));
		testdir = xstrdup(col(st, 10));
		op = xstrdup(col(st, 11));
		printf("bug %s: %s %s in stage %s, %lld tests, operators %s\n", esc_str(bug), esc_str(frontend),
		       esc_str(col(st, 2)), esc_str(col(st, 3)), sqlite3_column_int64(st, 5), esc_str(col(st, 6)));
		printf("signature: %s\n", esc_str(col(st, 4)));
		printf("simplest test: %s\n", esc_str(rep));
		printf("message: %s\n", esc_str(col(st, 12)));
		/* A traceback keeps its lines; nothing else of it reaches the terminal raw (esc.h). */
		if (*col(st, 13)) {
			const char *detail = esc_lines(col(st, 13));

			printf("detail:\n%s%s", detail, detail[strlen(detail) - 1] == '\n' ? "" : "\n");
		}
		printf("record: %s\n", esc_str(record));
	}
	if (matches != 1) {
		if (matches)
			err_set(&e, EXIT_INPUT, "'%s' names %d bugs; give more of the id", argv[optind + 1], matches);
		else
			err_set(&e, EXIT_INPUT, "no bug '%s' in '%s' (see ferry bugs)", argv[optind + 1], argv[optind]);
		goto fail;
	}
	if (!(mem = db_prepare(&db, "SELECT m.id, i.op FROM bug_members m JOIN instances i USING(id)"
				    " WHERE m.bug_id = ?1 AND m.frontend = ?2 ORDER BY i.op, m.id LIMIT 50", &e)))
		goto fail;
	sqlite3_bind_text(mem, 1, bug, -1, SQLITE_STATIC);
	sqlite3_bind_text(mem, 2, frontend, -1, SQLITE_STATIC);
	printf("members:\n");
	while (sqlite3_step(mem) == SQLITE_ROW)
		printf("  %s  %s\n", esc_str(col(mem, 0)), esc_str(col(mem, 1)));

	if (!(script = call_template(library, "reproducer", record, testdir, frontend, NULL, &e)))
		goto fail;
	if (!outdir) {
		printf("reproducer:\n%s", esc_lines(script));
		goto out;
	}
	{
		char *path = xasprintf("%s/reproducer.py", outdir);
		char *export_dir = xasprintf("%s/test_%s_%.12s", outdir, op, rep);
		char *done = NULL;
		int bad = fs_mkdirs(outdir, &e) < 0 || fs_write_atomic(path, script, strlen(script), &e) < 0 ||
			  !(done = call_template(library, "export", record, testdir, export_dir, frontend, &e));

		if (!bad)
			printf("wrote %s and %s\n", esc_str(path), esc_str(done));
		free(done);
		free(path);
		free(export_dir);
		if (bad)
			goto fail;
	}
	goto out;
fail:
	code = cmd_error(&e);
out:
	sqlite3_finalize(st);
	sqlite3_finalize(mem);
	db_close(&db);
	free(pattern);
	free(bug);
	free(frontend);
	free(rep);
	free(library);
	free(record);
	free(testdir);
	free(op);
	free(script);
	err_release(&e);
	return code;
}

const struct cmd_entry cmd_show_entry = {
	"show", cmd_show, CMD_NEEDS_NOTHING, usage,
	"print a unique bug with its members and reproducer; export it as a test",
};
