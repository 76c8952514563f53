/* trigger.h: what triggers a bug, said by contrast (issue 29, item 2). ferry go's trigger stage
 * (pipeline/triggers.h) runs a handful of one-change neighbours of each bug's representative, its
 * simplest test, on the bug's frontend (vary's rules_neighbours: another dtype of the first input,
 * another rank or a dimension of 1, a parameter left at its default or set to the corpus's common
 * value) and keeps them in the store's neighbours table, their results in the results table like
 * any test's. This module reads them back: a neighbour that passes names a change that makes the
 * failure go away; one that fails within the same bug names a change that does not.
 *
 * Reads the store only: the title is computed whenever asked, from what the store holds then. */
#ifndef FERRY_TRIGGER_H
#define FERRY_TRIGGER_H

#include "buf.h"
#include "db.h"
#include "err.h"
#include "strmap.h"

/* representative: the bug's simplest test, as the caller read it with the bug (NULL: looked up).
 * Append to title a short text that a compiler maintainer reads as what triggers the bug bug_id of
 * frontend, from the neighbours of its representative that ran on frontend:
 *   "fails for int16 inputs; passes for float32 and int32"
 *   "fails for int16 and complex64 inputs, with ceil_mode=True; passes for float32, with ceil_mode
 *    at its default"
 *   "fails alike for float32 and int32 inputs, at rank 3"   (no change made it pass)
 * Nothing is appended when no neighbour ran there (a store of a run without triggers, a bug whose
 * representative has none, or none that passed or failed alike). A representative that is itself a
 * neighbour of a member of the bug (a neighbour that failed alike and was simpler) is described by
 * that member's neighbours. 0, or -1 with e filled (the store could not be read). */
int trigger_describe(struct db *d, const char *frontend, const char *bug_id, const char *representative,
		     struct buf *title, struct err *e);
/* trigger_describe, and into params (when not NULL) the clauses of the parameters whose change made
 * the representative pass, alone: "with antialias at its default" of "passes with dim 2 of size 1,
 * with antialias at its default". Nothing is appended to params where no parameter's change passed. */
int trigger_describe_params(struct db *d, const char *frontend, const char *bug_id, const char *representative,
			    struct buf *title, struct buf *params, struct err *e);

/* The members of bug bug_id of frontend that test is a one-change neighbour of (a neighbour that
 * failed alike and, simpler, became the bug's representative stands for them), into out as keys.
 * 0, or -1 with e. */
int trigger_parents_in_bug(struct db *d, const char *frontend, const char *bug_id, const char *test,
			   struct strmap *out, struct err *e);

#endif
