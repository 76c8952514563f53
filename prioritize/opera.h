/* opera.h: the diversity ranking of shared/DESIGN.md, "Ranking (after OPERA)".
 *
 * An instance's score is op(o) x div(i), o its operator:
 *
 *   op(o)  = (uses of o in the corpus + 1) / (uses of o in the compiler's frontend tests + 1)
 *            add-one smoothing on both sides: an operator the compiler never tests scores its corpus
 *            count + 1 instead of infinity, and an operator with one instance is not scored as if
 *            it had none. Without counts, op(o) = 1 for every operator.
 *
 *   div(i) = (new singles + new pairs) / (P + Pc(Pc-1)/2)
 *            P is the number of parameters of o: the union of the parameter names (and inputs) of
 *            all of o's instances. A parameter an instance does not set is at its default; the record
 *            has no schema of defaults, so the absence itself is the subspace "default" of that
 *            parameter, shared by every instance of o that leaves it out. A single is a (parameter,
 *            subspace), a pair two of them; it is new when no instance of o chosen so far has it.
 *            Pairs are taken among the first Pc = min(P, 64) parameters in order of appearance,
 *            which bounds the memory of operators with absurdly many parameters and changes nothing
 *            for real ones. An operator with no parameters has one constant pseudo-parameter, so its
 *            first instance scores 1 and the rest 0.
 *
 * Selection is greedy in turns: of the instances that still add something, those whose operator has
 * had the fewest chosen so far compete, and the one with the highest score runs next (an operator's
 * k-th instance goes before any operator's (k+1)-th); choosing it can lower only the scores of its
 * own operator's instances, so only those are rescored; ties go to the earlier instance in the
 * seeded order. By score alone, op(o) -- which spans orders of magnitude with counts -- put every
 * instance of a few rarely tested operators first, and the queue found fewer causes early than
 * random orders (bench/rank-causes). Instances of an operator whose diversity is used up score 0
 * and come in the seeded order after everything that still adds something.
 *
 * How it is fast (n instances, P parameters, F = P + P(P-1)/2 features each): an instance's score
 * is a count of unseen features, and a feature turns seen once; so instead of recounting every
 * instance of the operator after each choice (O(n_o) per choice, O(sum n_o^2) in all), each newly
 * seen feature decrements the count of exactly the instances that have it, found through an index
 * from (parameter, subspace) to its instances. That bounds all the rescoring at O(n F) plus the
 * scans of the index. Instances sit in per-level bitmaps (level = count) so that the best of an
 * operator -- highest level, then earliest in the seeded order -- is found in O(n_o / 4096) word
 * reads. Since choices in one operator never change another's scores, each operator's sequence is
 * computed on its own (with only that operator's tables in memory) and the sequences are merged by
 * a binary heap keyed by (turn, score, seeded position), the turn being the place in its operator's
 * sequence: the result is exactly the greedy order over the
 * whole corpus; the sequences are computed on several threads. Total: O(n (P + F) + n log(ops))
 * time, O(n P) memory. */
#ifndef FERRY_OPERA_H
#define FERRY_OPERA_H

#include <stddef.h>
#include <stdint.h>

#include "counts.h"
#include "rankset.h"

/* The operator scores (one per operator of s) from the counts (NULL: all 1); fills the counts part
 * of st (may be NULL). */
void opera_op_scores(const struct rank_set *s, const struct counts *c, double *opscore, struct rank_stats *st);

/* Order the instances idx[0..n), given in the seeded order: out[k] is the instance to run k-th and
 * score[k] its score when chosen. jobs: threads to use (0: one per online CPU); the result is the
 * same for any number. cover (may be NULL) gets the distinct features of idx[0..n) as the scores
 * count them (struct rank_cover): the tables the ranking builds anyway give them, at no extra pass. */
void opera_rank(const struct rank_set *s, const uint32_t *idx, size_t n, const double *opscore, int jobs,
		uint32_t *out, double *score, struct rank_cover *cover);

/* The features of operator o as the ranking sees them: P parameters and F features per instance. */
void opera_shape(const struct rank_set *s, uint32_t o, uint32_t *P, uint32_t *F);

#endif
