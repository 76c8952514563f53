/* cmd-triage.c: ferry triage STORE [BUG STATUS [ARG]] [-f FILE]
 *
 * Records what a person decided about a bug of a store in the triage file (report/triage.h), which
 * ferry bugs, report and check read: a filed bug, one that is not a bug, or a duplicate is known to
 * CI on every test that shows it, and a fixed one that shows again is a regression. Without BUG,
 * lists the store's bugs with their decisions. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "cmd.h"
#include "db.h"
#include "dedup.h"
#include "esc.h"
#include "fsutil.h"
#include "triage.h"
#include "xalloc.h"

static const char usage[] =
	"usage: ferry triage STORE BUG STATUS [ARG...] [-f FILE]\n"
	"       ferry triage STORE [--list] [-f FILE]\n"
	"\n"
	"Record a decision about a bug of STORE (BUG: its id, or the start of it, as ferry bugs shows it)\n"
	"in the triage file, editing it in place (its comments and order stay). STATUS is one of\n"
	"  new                  not decided yet\n"
	"  filed URL|#N         reported upstream: known, ferry check passes on it\n"
	"  not-a-bug REASON     known, with the reason (required)\n"
	"  duplicate BUG        another bug's: known\n"
	"  fixed RELEASE        fixed in RELEASE: a test that shows it again is a regression, and fails\n"
	"                       ferry check\n"
	"Without BUG, list the bugs of STORE with their decisions. ferry bugs, report and check read the\n"
	"file (their --triage FILE; by default " TRIAGE_DEFAULT " in the current directory, when it exists).\n";

struct triage_args {
	const char *file;
	int list;
};

#define AT(f) offsetof(struct triage_args, f)

static const struct opt options[] = {
	OPT_STRING('f', "file", "FILE", "the triage file (default: " TRIAGE_DEFAULT ")", AT(file)),
	OPT_FLAG(0, "list", "list the bugs of STORE with their decisions (what no BUG does)", AT(list)),
	OPT_END(),
};

/* The bug a prefix names, once. */
struct found {
	char *bug, *signature;
	size_t n;
};

static int found_bug(void *ctx, const struct db_bug *b, const struct db_row *rep, struct err *e)
{
	struct found *f = ctx;

	(void)rep;
	(void)e;
	/* A disputed reference has one id on each frontend that shows it: one bug. */
	if (f->bug && !strcmp(f->bug, b->bug_id))
		return 0;
	f->n++;
	free(f->bug);
	free(f->signature);
	f->bug = xstrdup(b->bug_id);
	f->signature = b->signature ? xstrdup(b->signature) : NULL;
	return 0;
}

struct listing {
	const struct triage *t;
	char *used;     /* per entry of t, whether a bug of the store has it */
	size_t n;
};

static int list_bug(void *ctx, const struct db_bug *b, struct err *e)
{
	struct listing *l = ctx;
	const struct triage_entry *te = triage_find(l->t, b->bug_id, b->signature);
	struct buf label = BUF_INIT;

	(void)e;
	if (te)
		l->used[te - l->t->v] = 1;
	triage_label(te, &label);
	if (te && strcmp(te->bug, b->bug_id))
		buf_addf(&label, " (decided as %s, by its signature)", te->bug);
	if (!l->n++)
		printf("  %-12s %-14s %7s  %-24s %s\n", "bug", "frontend", "tests", "operators", "status");
	printf("  %-12s %-14s %7lld  %-24.24s %s\n", esc_str(b->bug_id), esc_str(b->frontend), b->members,
	       esc_str(b->ops ? b->ops : ""), esc_str(label.data));
	buf_release(&label);
	return 0;
}

static int list(struct db *db, const struct triage *t, const char *store, struct err *e)
{
	struct listing l = { t, xcalloc(t->n + 1, 1), 0 };
	size_t away = 0;

	printf("%zu decision%s in %s; the bugs of %s:\n", t->n, t->n == 1 ? "" : "s", esc_str(t->path),
	       esc_str(store));
	if (db_bugs(db, NULL, list_bug, &l, e) < 0) {
		free(l.used);
		return -1;
	}
	if (!l.n)
		printf("  none\n");
	for (size_t i = 0; i < t->n; i++)
		away += !l.used[i];
	if (away)
		printf("decided, but not in this store:\n");
	for (size_t i = 0; i < t->n; i++) {
		struct buf label = BUF_INIT;

		if (l.used[i])
			continue;
		triage_label(&t->v[i], &label);
		printf("  %-12s %s\n", t->v[i].bug, esc_str(label.data));
		buf_release(&label);
	}
	free(l.used);
	return 0;
}

static int cmd_triage(int argc, char **argv)
{
	struct triage_args args = { 0 }, *a = &args;
	struct triage t = TRIAGE_INIT;
	struct db db = DB_INIT;
	struct err e = ERR_INIT;
	struct found f = { NULL, NULL, 0 };
	struct buf arg = BUF_INIT, label = BUF_INIT;
	const char *store;
	int code = EXIT_OK, s = 0;

	if (cmd_parse(&cmd_triage_entry, argc, argv, a) < 0)
		return EXIT_USAGE;
	if (optind == argc)
		return cmd_usage_error(&cmd_triage_entry, "triage takes a STORE");
	if (optind + 1 != argc && (a->list || optind + 3 > argc))
		return cmd_usage_error(&cmd_triage_entry, "triage takes STORE, or STORE BUG STATUS [ARG...]");
	store = argv[optind];
	if (optind + 1 < argc && (s = triage_status_parse(argv[optind + 2])) < 0)
		return cmd_usage_error(&cmd_triage_entry,
				       "'%s' is not a status (new, filed, not-a-bug, duplicate, fixed)",
				       argv[optind + 2]);
	if (!fs_exists(store)) {
		err_set(&e, EXIT_INPUT, "cannot open the store '%s': No such file or directory", store);
		goto fail;
	}
	/* The file is read before the store is grouped: a bad line costs nothing. */
	if (triage_load(&t, a->file ? a->file : TRIAGE_DEFAULT, 1, &e) < 0 ||
	    db_open(&db, store, DB_WRITE, &e) < 0 || dedup_rebuild(&db, NULL, NULL, NULL, &e) < 0 ||
	    triage_bind(&t, &db, &e) < 0)
		goto fail;
	if (optind + 1 == argc) {
		if (list(&db, &t, store, &e) < 0)
			goto fail;
		goto out;
	}
	if (db_bugs_by_prefix(&db, argv[optind + 1], found_bug, &f, &e) < 0)
		goto fail;
	if (f.n != 1) {
		err_set(&e, EXIT_INPUT, f.n ? "'%s' names more than one bug of '%s': give more of its id"
					     : "no bug of '%s' has an id that starts with '%s' (see ferry bugs)",
			f.n ? argv[optind + 1] : store, f.n ? store : argv[optind + 1]);
		goto fail;
	}
	for (int i = optind + 3; i < argc; i++)
		buf_addf(&arg, "%s%s", i > optind + 3 ? " " : "", argv[i]);
	if (triage_set(&t, f.bug, (enum triage_status)s, arg.data, f.signature, &e) < 0)
		goto fail;
	if (triage_save(&t, &e) < 0)
		goto fail;
	triage_label(triage_find(&t, f.bug, NULL), &label);
	printf("%s: %s (in %s)\n", f.bug, esc_str(label.data), esc_str(t.path));
	goto out;
fail:
	code = cmd_error(&e);
	if (e.code == EXIT_USAGE)
		fprintf(stderr, "Try 'ferry triage --help'.\n");
out:
	free(f.bug);
	free(f.signature);
	buf_release(&arg);
	buf_release(&label);
	db_close(&db);
	triage_release(&t);
	err_release(&e);
	return code;
}

const struct cmd_entry cmd_triage_entry = {
	.name = "triage", .fn = cmd_triage, .needs = CMD_NEEDS_NOTHING, .usage = usage, .opts = options,
	.summary = "record what was decided about a bug (filed, not a bug, duplicate, fixed), for CI",
};
