/* subspace.h: the value-space partition of the diversity ranking (shared/DESIGN.md, "Ranking (after
 * OPERA)"). Two values in the same subspace count as the same usage; the ranking prefers instances
 * whose parameters (and pairs of parameters) fall in subspaces not yet chosen for their operator.
 *
 *   none            one subspace
 *   bool            by value
 *   int             <-1, -1, 0, 1, >1
 *   float           <0, 0, >0, inf, -inf, nan   (-inf is split from inf: a frontend's handling of
 *                                                the two differs as often as it fails on either)
 *   str, dtype,     by value
 *   callable
 *   opaque          one subspace (its repr is no usage of the operator's parameter space)
 *   graph           by format
 *   list, tuple     the kind, the length (0..5, >5) and the subspaces of the first six items
 *   dict            the names and the subspaces of the values
 *   tensor          dtype x rank (0..5, >5) x each dimension's integer subspace (an unknown dimension
 *                   is "none"); for a tensor whose values the record kept (indices, shapes, axes:
 *                   the harvester keeps values only where the operator depends on them) and that has
 *                   at most eight of them, also each value's subspace, since for such inputs the
 *                   values are the usage (a Reshape to [-1, 0] is not a Reshape to [2, 3])
 *
 * A subspace is named by a 64-bit code, a hash of its description; two different subspaces share a
 * code with probability about 2^-64 per pair, far below anything that could change an order.
 *
 * The parameters of an instance are its params, by name, and its inputs, named "inputs[0]",
 * "inputs[1]", ... (brackets cannot occur in a parameter name, so the two never collide). */
#ifndef FERRY_SUBSPACE_H
#define FERRY_SUBSPACE_H

#include <stddef.h>
#include <stdint.h>

#include "record.h"

/* The subspace code of a value. */
uint64_t subspace_code(const struct value *v);

/* Integer and float classes, exposed for the tests and the benchmark generator. */
enum subspace_int { SUB_INT_LT_M1 = 1, SUB_INT_M1, SUB_INT_0, SUB_INT_1, SUB_INT_GT_1, SUB_INT_NONE };
enum subspace_float { SUB_F_NEG = 1, SUB_F_ZERO, SUB_F_POS, SUB_F_INF, SUB_F_NINF, SUB_F_NAN };
enum subspace_int subspace_int_class(int64_t i);
enum subspace_float subspace_float_class(double d);

struct subspace_param {
	const char *name;    /* borrowed: from the instance, or from the row for inputs */
	size_t len;
	uint64_t code;
};

/* The parameters of one instance. Ownership: the row owns its arrays; the names of params point into
 * the instance, so a row is valid only while the instance it was filled from is. */
struct subspace_row {
	struct subspace_param *p;
	size_t n, cap;
	char (*inames)[32];  /* "inputs[i]" */
	size_t icap;
};

#define SUBSPACE_ROW_INIT { NULL, 0, 0, NULL, 0 }

void subspace_row_init(struct subspace_row *r);
void subspace_row_release(struct subspace_row *r);
/* Replace the row's contents with the parameters of in. */
void subspace_row_fill(struct subspace_row *r, const struct instance *in);

#endif
