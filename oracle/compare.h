/* compare.h: the value oracle (shared/DESIGN.md, "Oracles"). A frontend's output is checked against
 * the reference that the source library computed: the shape must match, then the dtype, then the
 * values by Chebyshev distance (max |got - want|) with an absolute and a relative term, NaN and
 * Inf in the same places.
 *
 * An element passes when |got - want| <= atol + rtol * |want| (numpy.isclose's rule, asymmetric:
 * want is the reference). Floating types compare in double, which holds every float16, bfloat16
 * and float32 value exactly. Integer types compare exactly, in integer arithmetic (a double cannot
 * tell 2^63 - 1 from 2^63 - 2): rtol is ignored for them and atol is an absolute bound on the
 * integer difference, so the default tolerance means equality. Bools compare exactly.
 *
 * Half precision (float16, bfloat16, also when the reference was stored widened to float32): an
 * element also passes within COMPARE_HALF_ULPS units in the last place of want, at want's precision:
 *     |got - want| <= max(atol + rtol * |want|, COMPARE_HALF_ULPS * ulp(want))
 * Two frontends that round an intermediate once more or less land one or two ulps apart, and at
 * float16 one ulp is already 2^-10 relative (0.0078125 at 8.0), beyond the default rtol. ulp(w) is
 * 2^(floor(log2|w|) - mantissa bits) for normal w (10 bits for float16, 7 for bfloat16), the
 * subnormal step below the smallest normal. Other types have no ulp term: float32's ulp is far
 * inside the default tolerance.
 *
 * Ties: an operator that returns the index of an element it selected (topk, sort, argmax, ...)
 * may return any of several equal elements. compare_tie_output names those outputs (a table in
 * compare.c), and compare_untie accepts an index that differs from the reference's where both point
 * at equal elements of the operator's data input; the values output is compared as any other, so a
 * wrong value is still a mismatch, and so is an index pointing at a different value.
 *
 * Ownership: a struct array_view borrows its shape, strides and data. A struct compare_result owns
 * its copies of the shapes and indices; compare_result_release frees them. */
#ifndef FERRY_COMPARE_H
#define FERRY_COMPARE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "buf.h"
#include "err.h"
#include "tolerance.h"

enum dtype {
	DTYPE_BOOL,
	DTYPE_INT8, DTYPE_INT16, DTYPE_INT32, DTYPE_INT64,
	DTYPE_UINT8, DTYPE_UINT16, DTYPE_UINT32, DTYPE_UINT64,
	DTYPE_FLOAT16, DTYPE_BFLOAT16, DTYPE_FLOAT32, DTYPE_FLOAT64,
};
#define DTYPE_COUNT (DTYPE_FLOAT64 + 1)

/* numpy's names: "bool", "int8", ..., "float16", "bfloat16", "float32", "float64". */
const char *compare_dtype_name(enum dtype t);
int compare_dtype_from_name(const char *name, enum dtype *t, struct err *e);
/* Bytes per element. */
size_t compare_dtype_size(enum dtype t);
/* From a Python buffer-protocol (struct module) format: "f", "d", "e", "?", "b", "B", "h", "H",
 * "i", "I", "l", "L", "q", "Q", "n", "N", optionally after "@" (native sizes: "l" is a C long),
 * "=" or "<" (standard sizes: "l" is 4 bytes). Big-endian data ('>', '!') is an error on a
 * little-endian machine: the comparison reads native byte order. */
int compare_dtype_from_format(const char *format, enum dtype *t, struct err *e);

/* A tensor in memory, row-major unless strides say otherwise. */
struct array_view {
	enum dtype dtype;
	int rank;               /* 0 for a scalar */
	const int64_t *shape;   /* rank entries, each >= 0 (borrowed) */
	const int64_t *strides; /* NULL (C-contiguous), or rank byte strides, as numpy's (borrowed) */
	const void *data;       /* (borrowed); need not be aligned */
};


/* Units in the last place allowed for float16 and bfloat16 results (see above). runtime_compare.py's
 * FERRY_HALF_ULPS is the same number, for reproducers (a unit test holds them equal). */
#define COMPARE_HALF_ULPS 2
/* One unit in the last place of w at precision t (DTYPE_FLOAT16 or DTYPE_BFLOAT16). */
double compare_half_ulp(double w, enum dtype t);

enum compare_outcome {
	COMPARE_OK,    /* same shape, same dtype, every element within tolerance */
	COMPARE_SHAPE, /* shapes differ; nothing else was compared */
	COMPARE_DTYPE, /* same shape, dtypes differ; values were not compared */
	COMPARE_VALUE, /* some element is beyond tolerance, or NaN or Inf differ */
};

struct compare_result {
	enum compare_outcome outcome;
	enum dtype got_dtype, want_dtype;
	int got_rank, want_rank;
	int64_t *got_shape, *want_shape; /* owned */
	struct tolerance tol;
	enum dtype precision;    /* the precision whose ulps were allowed; want_dtype when none */
	int ulps;                /* COMPARE_HALF_ULPS for a half-precision comparison, else 0 */
	uint64_t untied;         /* indices accepted as ties by compare_untie, reported by the caller */

	uint64_t count;          /* elements compared */
	uint64_t mismatches;     /* elements with finite got and want beyond tolerance */
	uint64_t nan_mismatches; /* elements where exactly one of got and want is NaN */
	uint64_t inf_mismatches; /* elements where got or want is infinite and they differ */

	/* The Chebyshev distance over the elements where both are finite (0 if there are none), and
	 * the element where it is reached (the first such, in row-major order). */
	double max_abs;
	uint64_t max_abs_int;    /* integer types and bool: the same, exactly */
	bool has_worst;
	int64_t *worst_index;    /* rank entries (owned) */
	char worst_got[40], worst_want[40];

	/* The first NaN or Inf mismatch, if any. */
	bool has_special;
	int64_t *special_index;  /* rank entries (owned) */
	char special_got[40], special_want[40];
};

void compare_result_init(struct compare_result *r);
void compare_result_release(struct compare_result *r);

/* Compare got against the reference want. Returns 0 when the comparison was made, whatever its
 * outcome (see r->outcome); -1 when a view is malformed (a negative dimension, a null data pointer
 * for a non-empty tensor, an unknown dtype), or tol is negative or NaN. r is released first. */
int compare_arrays(const struct array_view *got, const struct array_view *want,
		   const struct tolerance *tol, struct compare_result *r, struct err *e);

/* The same, judging values at precision real, the dtype the values had before they were widened
 * for storage (bfloat16 stored as float32): its ulps are allowed where it is float16 or bfloat16.
 * compare_arrays is compare_arrays_as with real = want->dtype. */
int compare_arrays_as(const struct array_view *got, const struct array_view *want, enum dtype real,
		      const struct tolerance *tol, struct compare_result *r, struct err *e);

/* Whether output k (of n) of operator op is the indices of elements of the operator's first input
 * (its data), where equal elements make any of them a right answer: topk's and sort's indices, argmax's
 * output. op is the instance's operator name (torch.topk, torch.Tensor.sort, TopK, keras.ops.argmax). */
bool compare_tie_output(const char *op, int k, int n);

/* For an indices output (compare_tie_output): *fixed is a copy of got, C-contiguous, in got's dtype,
 * where each index that differs from want's but points at an element of data equal to the one want's
 * points at (NaN equal to NaN) is replaced by want's; *untied counts them. The axis is the one along
 * which got's shape can come from data's (the same rank with one axis shortened, or one axis less; a
 * single index is one into the flattened data); where several fit, any of them may show the tie.
 * Returns 1 when *fixed was made (owned by the caller, free()), 0 when got, want and data do not fit
 * together as indices (other shapes or dtypes, not integers): then compare as usual. */
int compare_untie(const struct array_view *got, const struct array_view *want, const struct array_view *data,
		  void **fixed, uint64_t *untied);

/* One line for a report, e.g. "max |got - want| = 0.25 at [1, 3] (got 1.25, want 1.0), 3 of 64
 * elements beyond atol 0.001 + rtol 0.001", or "shape mismatch: got [2, 3], want [3, 2]". */
void compare_describe(const struct compare_result *r, struct buf *out);

#endif
