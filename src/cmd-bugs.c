/* cmd-bugs.c: ferry bugs STORE
 *
 * Groups the failures of a results store into unique bugs (oracle/dedup.h), keeps them in the store,
 * and lists them: each with its frontend, symptom, how many tests show it, the operators involved,
 * and its representative, the simplest test that shows it. */
#include <stdio.h>
#include <string.h>

#include "cmd.h"
#include "db.h"
#include "dedup.h"
#include "esc.h"
#include "fsutil.h"

static const char usage[] =
	"usage: ferry bugs STORE [-F FRONTEND]\n"
	"\n"
	"Group the failures in STORE into unique bugs (by frontend, conversion function and symptom)\n"
	"and list them. ferry show STORE BUG prints one with its reproducer.\n";

static const char *frontend;

static const struct opt options[] = {
	OPT_STRING('F', "frontend", "NAME", "only this frontend", &frontend),
	OPT_END(),
};

static const char *col(sqlite3_stmt *st, int i)
{
	const unsigned char *s = sqlite3_column_text(st, i);

	return s ? (const char *)s : "";
}

static int cmd_bugs(int argc, char **argv)
{
	struct db db = DB_INIT;
	struct err e = ERR_INIT;
	sqlite3_stmt *st = NULL;
	size_t nbugs = 0, nfail = 0;
	int code = EXIT_OK;

	if (opts_parse(&cmd_bugs_entry, argc, argv) < 0)
		return EXIT_USAGE;
	if (optind + 1 != argc)
		return cmd_usage_error(&cmd_bugs_entry, "bugs takes one STORE");
	if (!fs_exists(argv[optind])) {
		err_set(&e, EXIT_INPUT, "cannot open the store '%s': No such file or directory", argv[optind]);
		return cmd_error(&e);
	}
	if (db_open(&db, argv[optind], DB_WRITE, &e) < 0 || dedup_rebuild(&db, frontend, &nbugs, &nfail, &e) < 0)
		goto fail;
	printf("%zu unique bugs from %zu failures in %s\n", nbugs, nfail, esc_str(argv[optind]));
	if (!(st = db_prepare(&db,
		"SELECT bug_id, frontend, outcome, coalesce(stage, '-'), members, ops, representative,"
		" replace(coalesce(message, ''), char(10), ' ')"
		" FROM bugs WHERE ?1 IS NULL OR frontend = ?1 ORDER BY frontend, members DESC, bug_id", &e)))
		goto fail;
	if (frontend)
		sqlite3_bind_text(st, 1, frontend, -1, SQLITE_STATIC);
	if (nbugs)
		printf("\n  %-12s %-10s %-9s %-8s %7s  %-24s %s\n", "bug", "frontend", "symptom", "stage", "tests",
		       "operators", "message of the simplest test");
	while (sqlite3_step(st) == SQLITE_ROW)
		printf("  %-12s %-10s %-9s %-8s %7lld  %-24.24s %.90s\n", esc_str(col(st, 0)), esc_str(col(st, 1)),
		       esc_str(col(st, 2)), esc_str(col(st, 3)), sqlite3_column_int64(st, 4), esc_str(col(st, 5)),
		       esc_str(col(st, 7)));
	goto out;
fail:
	code = cmd_error(&e);
out:
	sqlite3_finalize(st);
	db_close(&db);
	err_release(&e);
	return code;
}

const struct cmd_entry cmd_bugs_entry = {
	.name = "bugs", .fn = cmd_bugs, .needs = CMD_NEEDS_NOTHING, .usage = usage, .opts = options,
	.summary = "group the failures of a store into unique bugs and list them",
};
