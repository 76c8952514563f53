/* rank.h: ordering a corpus so that the tests most likely to find new bugs run first (shared/DESIGN.md,
 * "Ranking (after OPERA)"), and the baselines it is measured against.
 *
 * A corpus is loaded into a struct rank_set: not the records, which would not fit for a million
 * instances, but what the strategies need of each one: its id, its operator, whether it can run
 * (tier), the subspace of each parameter as small dense ids, and, when the strategy asks for them, a
 * minhash signature of its canonical form (FAST) or the elements it covers (coverage).
 * The set and the other types the strategies share are declared in rankset.h.
 *
 * Strategies (enum rank_strategy):
 *   opera       operator score x parameter diversity, greedy selection (prioritize/opera.h)
 *   random      a seeded order of its own (rank_random_seed), independent of the tie-breaking one
 *   fast        FAST's similarity-based order: minhash + LSH (prioritize/fast.h)
 *   total       most covered elements first (prioritize/coverage.h)
 *   additional  most not-yet-covered elements first, starting over when nothing new is left
 * Every strategy puts the instances that cannot run last: first those whose wrap status is invalid,
 * then those that are unmigratable, each group ordered by the same strategy. Ties are broken by the
 * seeded order: each instance's id hashed with the seed, so that the queue depends on the corpus,
 * the seed and the options, never on the order of the corpus's lines.
 *
 * The queue file (rank_queue_write) is JSON Lines, one line per instance, first to run first:
 *
 *   {"rank":1,"id":"<32 hex digits>","op":"Conv","score":12.5}
 *   {"rank":2,"id":"...","op":"Relu","score":3}
 *   ...
 *   {"rank":9,"id":"...","op":"Pad","score":0,"status":"invalid"}
 *
 * "rank" counts from 1; "score" is the strategy's score when the instance was chosen (opera: operator
 * score x diversity; fast: estimated Jaccard distance to what came before; total/additional: the
 * number of (new) covered elements; random: 0); "status" appears only on the instances that cannot
 * run ("invalid", "unmigratable"). Every instance of the corpus appears exactly once.
 *
 * Ownership: the set owns all its arrays and strings; a queue owns its arrays. */
#ifndef FERRY_RANK_H
#define FERRY_RANK_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "buf.h"
#include "counts.h"
#include "err.h"
#include "intern.h"
#include "record.h"
#include "rankset.h"
#include "select.h"
#include "subspace.h"

enum rank_strategy { RANK_OPERA, RANK_RANDOM, RANK_FAST, RANK_TOTAL, RANK_ADDITIONAL };

#define RANK_SET_INIT { 0 }

void rank_set_init(struct rank_set *s);
void rank_set_release(struct rank_set *s);

/* Add one instance from its parts: the parameters' names and subspace codes (struct subspace_param).
 * This is what the loader calls for each record; the tests and the benchmark call it directly. The
 * strings are copied. Returns the instance's index (instances are numbered in the order added). */
uint32_t rank_set_add(struct rank_set *s, const char *id, const char *op, enum rank_tier tier,
		      const struct subspace_param *p, size_t np);
/* Add a record: its parameters and inputs (subspace_row_fill), its tier (unmigratable, or
 * extra["wrap"]["status"] == "invalid"), and when want_sig its FAST signature. */
uint32_t rank_set_add_record(struct rank_set *s, const struct instance *in, struct subspace_row *row,
			     struct buf *scratch);
/* The tier of a record. */
enum rank_tier rank_tier_of(const struct instance *in);

const char *rank_set_id(const struct rank_set *s, uint32_t i);
const char *rank_set_op(const struct rank_set *s, uint32_t i);
/* The index of the first instance with this id, or UINT32_MAX. */
uint32_t rank_set_find(struct rank_set *s, const char *id);

/* Called for each bad line of a corpus ("FILE:LINE: why" in e); the loader goes on after it. */
typedef void (*rank_bad_line_fn)(void *ctx, const struct err *e);

/* Load a JSON Lines corpus ("-": standard input). Bad lines are passed to bad (may be NULL), in corpus
 * order, and skipped; *nbad counts them. Records are parsed on several threads and added in corpus
 * order, so the set is the same as a line-by-line read would make. Fails only when the file cannot be
 * read (or holds more than 2^32 - 2 instances). */
int rank_set_load(struct rank_set *s, const char *path, rank_bad_line_fn bad, void *ctx, size_t *nbad,
		  struct err *e);

/* Load per-test coverage: a directory with one file per test named after its id (any extension;
 * one covered element per line, such as "frontend/onnx.py:120"), or a JSON Lines file of
 * {"id": ..., "covered": ["...", ...]}. Tests of the corpus without coverage cover nothing; *unknown
 * counts coverage for ids not in the corpus (ignored). */
int rank_set_load_coverage(struct rank_set *s, const char *path, size_t *unknown, struct err *e);

struct rank_queue {
	uint32_t *order;   /* instance indices, first to run first */
	double *score;
	size_t n;
};

#define RANK_QUEUE_INIT { NULL, NULL, 0 }

void rank_queue_init(struct rank_queue *q, size_t n);
void rank_queue_release(struct rank_queue *q);

struct rank_opts {
	enum rank_strategy strategy;
	uint64_t seed;
	const struct counts *counts;      /* opera: NULL scores every operator 1 */
	enum rank_fast_variant fast;
	int jobs;                         /* opera: threads, 0 for one per online CPU */
};

#define RANK_OPTS_INIT { RANK_OPERA, 1, NULL, RANK_FAST_PW, 0 }

/* Rank the set. The queue is filled with all n instances. */
int rank_run(const struct rank_set *s, const struct rank_opts *o, struct rank_queue *q,
	     struct rank_stats *st, struct err *e);

/* The seeded order: order[k] is the instance in position k, pos[i] the position of instance i
 * (either may be NULL). A permutation of 0..n-1 sorted by hash(id, seed), then by index. */
void rank_seeded_order(const struct rank_set *s, uint64_t seed, uint32_t *order, uint32_t *pos);
/* The seed of the random strategy's order for --seed seed: derived from it with a constant of its own,
 * so that the random baseline is independent of the order that breaks OPERA's (and FAST's) ties at
 * the same seed. Were it the same order, OPERA's many ties would follow the random queue itself and
 * the two queues would share far more than chance (592 of the top 1,500 in one corpus), biasing an
 * APFD comparison. */
uint64_t rank_random_seed(uint64_t seed);

/* Write the queue as JSON Lines to path ("-": standard output); a file is replaced atomically. */
int rank_queue_write(const struct rank_set *s, const struct rank_queue *q, const char *path, struct err *e);
/* Append one queue line (no newline). */
void rank_queue_line(const struct rank_set *s, const struct rank_queue *q, size_t k, struct buf *out);

const char *rank_strategy_name(enum rank_strategy st);
/* Parse a strategy name; -1 when unknown. */
int rank_strategy_parse(const char *name, enum rank_strategy *st);
int rank_fast_parse(const char *name, enum rank_fast_variant *v);

#endif
