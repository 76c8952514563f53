/* fast.h: the FAST baseline (Miranda, Cruciani, Verdecchia, Bertolino: "FAST approaches to scalable
 * similarity-based test case prioritization", ICSE 2018), black-box flavour, as OPERA compared to it.
 *
 * Each instance is its canonical record (record_canonical); its k-shingles (k = RANK_SHINGLE bytes)
 * are minhashed with RANK_SIG hash functions, and locality-sensitive hashing puts the signatures in
 * RANK_SIG bands of one row each. The order is built by repeating:
 *   1. the candidates are the remaining instances that share no LSH bucket with the signature of
 *      what was chosen so far (the elementwise minimum of the chosen signatures, which is the minhash
 *      of the union of their shingles); when there are none, the chosen signature starts over empty;
 *   2. pw: the candidate farthest from what was chosen (estimated Jaccard distance: the share of
 *      signature positions that differ) runs next;
 *      one / log / sqrt / all: that many candidates (1, log2 |C|, sqrt |C|, |C|), drawn at random
 *      with the seed, run next in the order drawn.
 * Ties, and the first instance, go to the earliest in the seeded order (FAST draws the first at
 * random; the seeded order is that draw).
 *
 * Cost: pw compares every remaining instance each step, O(n^2 RANK_SIG); that is FAST-pw's own
 * cost, and why FAST offers the sampled variants, O(n^1.5) for sqrt. */
#ifndef FERRY_FAST_H
#define FERRY_FAST_H

#include <stddef.h>
#include <stdint.h>

#include "rankset.h"

/* Order idx[0..n) (given in the seeded order; their signatures in s->sig). */
void fast_rank(const struct rank_set *s, const uint32_t *idx, size_t n, enum rank_fast_variant v,
	       uint64_t seed, uint32_t *out, double *score);

/* The signature of a text: RANK_SIG minimum hashes over its RANK_SHINGLE-byte shingles (a text
 * shorter than a shingle is one shingle). */
void fast_signature(const char *text, size_t len, uint64_t *sig);

#endif
