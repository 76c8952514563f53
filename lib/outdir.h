/* outdir.h: the directory an output option names (report -o and --html, show -o, file -o, report
 * --xfail): ferry writes only into one that is new or empty, or that it wrote into before for the
 * same store, so that one store's reproducers never mix with another's and nothing ferry did not
 * write is overwritten. DIR/.ferry-output marks it: the store (absolute) and every file and
 * directory ferry made there; the next run removes those (and only those) before it writes anew,
 * so no stale file of the run before stays.
 *
 * outdir_open() claims the directory (made where missing) and clears what the marker lists;
 * outdir_commit() lists in the marker whatever is new in it since; outdir_release() frees. */
#ifndef FERRY_OUTDIR_H
#define FERRY_OUTDIR_H

#include "err.h"
#include "strmap.h"

#define OUTDIR_MARKER ".ferry-output"

struct outdir {
	char *dir;              /* as named (owned) */
	char *store;            /* the store's absolute path (owned) */
	struct strmap before;   /* what was there after the clear: not ferry's (keys "f PATH", "d PATH") */
	int open;
};

#define OUTDIR_INIT { NULL, NULL, STRMAP_INIT, 0 }

/* Claim dir for the store's output. Refused (EXIT_INPUT, naming the directory and what to do) when
 * dir holds anything without a marker, or a marker of another store; with adopt, a directory without
 * a marker, or with another store's, is taken as ferry's own and emptied (ferry go's
 * DIR/LIBRARY/reproducers, which older ferrys left unmarked, in a project that may have moved). */
int outdir_open(struct outdir *o, const char *dir, const char *store, int adopt, struct err *e);
/* Write the marker: the store and what is in dir now that was not at outdir_open. */
int outdir_commit(struct outdir *o, struct err *e);
void outdir_release(struct outdir *o);
/* The end of a command that opened o (or not: then nothing), whose result is ret (0 or -1 with e
 * filled): commit and release; what it wrote is listed even when it failed, since it is ferry's.
 * ret, or -1 with e filled when the commit failed. */
int outdir_finish(struct outdir *o, int ret, struct err *e);
/* Whether a and b name the same directory (either may not exist yet). */
int outdir_same(const char *a, const char *b);

#endif
