/* vary.h: the vary engine, what ferry vary (src/cmd-vary.c) drives. It grows every instance of a
 * corpus along dtype, rank and shape, parameter values, scalar vs tensor, and a value's Python
 * type (the rules of vary/rules.h), and keeps the variants that the source library accepts: each
 * candidate runs in the library's reference run (the template's validate(), in ferry's watched
 * workers, task PROTO_TASK_VALIDATE), and a rejected one is dropped, counted by the library's reason.
 *
 * The corpus is read twice: pass 1 gathers the pools (the values each (op, param) and each
 * (library, param) is seen with) and the ids of every instance, with and without outputs; pass 2
 * takes the parents round-robin across operators, in order of first appearance, so that a budget
 * reaches many operators. A candidate whose identity without outputs (its pre-id) is an
 * instance's of the corpus or an earlier candidate's is not tried. A kept variant is the candidate
 * with the outputs the library computed and its id recomputed, with
 *   "variant": {"parent": ID, "vary": LABEL[, "undefined": WHY]}
 * appended to OUTPUT (a corpus like any other). Every candidate tried is a line of OUTPUT.log
 * ({"pre", "parent", "op", "vary", "status": kept|duplicate|dropped, "reason"}), so that the same
 * command run again goes on where an interrupted one stopped, and a user can see every drop.
 *
 * What is tried and kept is decided in one order, whatever the workers: parent by parent, and each
 * parent's candidates in turn, until it has its quota of variants, as one worker would take them.
 * Workers validate candidates ahead of that order (those it will most likely reach), and each
 * verdict waits for its turn; a verdict the order never reaches (its parent's quota was met first)
 * is dropped unlogged. So the same corpus, seed and options make the same OUTPUT and OUTPUT.log
 * byte for byte, with -j 1 or -j 8, and an interrupted run that the same command finishes too.
 *
 * One vary writes OUTPUT at a time: it holds OUTPUT.lock (lib/lock.h), and a second is refused
 * (EXIT_ENV) naming the first. Lines are written whole (lib/jsonl.h): a torn last line of OUTPUT or
 * OUTPUT.log, which a vary killed while writing it leaves, is cut off by the next. A candidate whose
 * validation failed because the machine did (the worker answers "error", or was killed from outside
 * ferry) is not logged, and the run stops (EXIT_ENV) so that the same command tries it again.
 *
 * In its one-change mode (vary_opts.one_change, ferry go's trigger stage) the candidates are
 * rules_neighbours', a bug's representative's neighbours, decided the same way.
 *
 * The engine prints nothing: it reports through the hooks of struct vary_opts, and the counts in
 * struct vary are the caller's to print. */
#ifndef FERRY_VARY_H
#define FERRY_VARY_H

#include <stdint.h>
#include <stdio.h>

#include "err.h"
#include "jsonl.h"
#include "lock.h"
#include "rules.h"
#include "strmap.h"

struct vary_opts {
	const char *corpus;     /* borrowed */
	const char *output;     /* the variants' corpus; its log is OUTPUT.log (borrowed) */
	int per_instance;       /* variants kept per parent at most */
	uint64_t seed;
	size_t budget;          /* candidates tried in all, earlier runs included; 0: no limit */
	const char *command;    /* the command line, for the lock's note (borrowed; NULL: "ferry") */
	int jobs;
	double timeout;         /* seconds one candidate may take */
	unsigned long long mem_limit;
	const char *python;     /* the interpreter that reads the libraries' dtypes (libraries.h) */
	/* A failure's neighbours rather than variants (ferry go's trigger stage): each parent's
	 * candidates are rules_neighbours', one change at a time, in their order, not rules_all's. */
	int one_change;
	/* The corpus whose values the pools hold (the corpus's common value of a parameter), read
	 * for them alone; NULL: corpus's own. */
	const char *pools_corpus;

	void *ctx;
	/* A bad corpus line, skipped ("FILE:LINE: why"); a torn last line cut off. */
	void (*warn)(void *ctx, const char *msg);
	/* Candidates tried so far in this run, of which dropped; about ten times a second. */
	void (*progress)(void *ctx, size_t tried, size_t dropped);
};

struct vary_count {
	size_t tried, kept;
};

struct vary {
	size_t records, bad_lines;   /* pass 1: the corpus */
	size_t graphs;               /* records of kind "graph" (ferry generate's graphs): not varied */
	size_t parents;              /* parents whose candidates were looked at in this run */
	size_t tried, kept, duplicates, undefined, dropped;
	size_t resumed;              /* candidates an earlier run tried (OUTPUT.log) */
	size_t unused;               /* validated ahead of the order, which did not reach them */
	size_t skipped;              /* candidates the rules did not make, knowing the library refuses
				      * them (struct rules_cands): never tried nor logged */
	size_t cut;                  /* bytes of torn last lines of OUTPUT and OUTPUT.log, cut off */
	struct vary_count dims[RULES_NDIMS];
	struct strmap reasons;       /* first line of the library's reason -> candidates dropped */
	double seconds;              /* the validation's wall time */

	/* The engine's own. */
	const struct vary_opts *o;
	struct rules_pools pools;
	struct strmap ids;           /* ids of the corpus and of OUTPUT */
	struct strmap unlogged;      /* ids of OUTPUT that no line of OUTPUT.log keeps (count 1): a
				      * vary stopped between the two writes */
	struct strmap pre;           /* pre-ids of the corpus, of OUTPUT.log and of candidates tried */
	struct strmap logged;        /* pre-ids of OUTPUT.log */
	struct strmap parent_kept;   /* parent id -> variants OUTPUT.log says were kept */
	struct strmap asked;         /* pre-id -> struct vary_asked *: validated, or being validated */
	long *order;                 /* the parents' offsets in the corpus, in the order taken */
	size_t *order_line;
	size_t *order_nth;           /* each parent's place among its operator's (rules_all's nth) */
	size_t norder, next_parent, log_tried;
	struct vary_active **active; /* the parents open, in the order: the first is the one tried */
	size_t nactive;
	size_t inflight;             /* candidates with a worker */
	size_t ahead;                /* validated or being validated, not yet reached by the order */
	FILE *corpus;
	struct lock lock;
	struct jsonl_writer out, log;
	char *log_path;
};

/* Pass 1, and what an earlier run left in OUTPUT and OUTPUT.log. 0, or -1 with e filled. */
int vary_open(struct vary *v, const struct vary_opts *o, struct err *e);
/* Pass 2. 0, or -1 with e filled (EXIT_INTERRUPTED on SIGINT or SIGTERM: what was kept stays;
 * EXIT_ENV when the machine failed). */
int vary_run(struct vary *v, struct err *e);
void vary_release(struct vary *v);

/* The identity of in without its outputs (32 hex digits and a NUL into out). */
void vary_pre_id(const struct instance *in, char out[33]);

/* The dimension names, "dtype", "shape", "param", "scalar", "type". */
const char *vary_dim_name(enum rules_dim d);

#endif
