/* coverage.h: the coverage-based baselines (Rothermel et al.'s total and additional strategies),
 * for when a coverage file per test is at hand (rank_set_load_coverage).
 *
 *   total       most covered elements first.
 *   additional  most elements not covered by the tests already chosen first; when no remaining test
 *               adds anything, the covered set starts over (the usual "additional with reset"), and
 *               tests that cover nothing at all come last.
 * Ties go to the earliest in the seeded order. Additional is a lazy greedy: a test's count can only
 * fall as coverage grows, so a stale count popped from the heap is recounted and pushed down, and a
 * test is chosen when its fresh count still tops the heap; the result is the plain greedy order. */
#ifndef FERRY_COVERAGE_H
#define FERRY_COVERAGE_H

#include <stddef.h>
#include <stdint.h>

#include "rankset.h"

/* Order idx[0..n) (given in the seeded order; coverage in s->coff/s->cov). */
void coverage_rank(const struct rank_set *s, const uint32_t *idx, size_t n, int additional,
		   uint32_t *out, double *score);

#endif
