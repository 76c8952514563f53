/* cmd-bugs.c: ferry bugs STORE
 *
 * Groups the failures of a results store into unique bugs (oracle/dedup.h), keeps them in the store,
 * and lists them: each with its frontend, symptom, how many tests show it, the operators involved,
 * and its representative, the simplest test that shows it, with what ferry reduce made of it (the
 * operators that decide a graph's failure). */
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
	"usage: ferry bugs STORE [-F FRONTEND]\n"
	"\n"
	"Group the failures in STORE into unique bugs (by frontend, conversion function and symptom)\n"
	"and list them. ferry show STORE BUG prints one with its reproducer.\n";

static const char *frontend;

static const struct opt options[] = {
	OPT_STRING('F', "frontend", "NAME", "only this frontend", &frontend),
	OPT_END(),
};

/* ferry reduce's subgraph of a bug's simplest test: the operators that decide a graph's failure. */
static int print_reduction(void *ctx, const struct db_reduction *r, struct err *e)
{
	(void)ctx;
	(void)e;
	if (!strcmp(r->status, "reduced"))
		printf("  %-12s reduced from %lld to %lld node%s: %s%s\n", "", r->nodes_before, r->nodes_after,
		       r->nodes_after == 1 ? "" : "s", esc_str(r->ops ? r->ops : "?"),
		       r->nodes_after == 1 ? " (the decisive operator)" : "");
	else
		printf("  %-12s not reducible: no smaller subgraph of its %lld nodes fails the same way\n", "",
		       r->nodes_before);
	return 0;
}

static int print_bug(void *ctx, const struct db_bug *b, struct err *e)
{
	struct db *db = ctx;
	struct buf line = BUF_INIT;
	char *message;

	/* One line per bug: a crash's decisive line (what grouped it), a mismatch's description, their
	 * newlines as spaces. */
	if (!strcmp(b->outcome, "crash"))
		dedup_decisive(b->message, &line);
	else
		buf_adds(&line, b->message ? b->message : "");
	message = buf_detach(&line);
	for (char *c = message; *c; c++)
		if (*c == '\n')
			*c = ' ';
	printf("  %-12s %-10s %-9s %-8s %7lld  %-24.24s %.90s\n", esc_str(b->bug_id), esc_str(b->frontend),
	       esc_str(b->outcome), esc_str(b->stage ? b->stage : "-"), b->members, esc_str(b->ops), esc_str(message));
	free(message);
	return db_reductions(db, b->frontend, b->representative, print_reduction, NULL, e) < 0 ? -1 : 0;
}

static int cmd_bugs(int argc, char **argv)
{
	struct db db = DB_INIT;
	struct err e = ERR_INIT;
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
	if (nbugs)
		printf("\n  %-12s %-10s %-9s %-8s %7s  %-24s %s\n", "bug", "frontend", "symptom", "stage", "tests",
		       "operators", "what failed in the simplest test");
	if (db_bugs(&db, frontend, print_bug, &db, &e) < 0)
		goto fail;
	goto out;
fail:
	code = cmd_error(&e);
out:
	db_close(&db);
	err_release(&e);
	return code;
}

const struct cmd_entry cmd_bugs_entry = {
	.name = "bugs", .fn = cmd_bugs, .needs = CMD_NEEDS_NOTHING, .usage = usage, .opts = options,
	.summary = "group the failures of a store into unique bugs and list them",
};
