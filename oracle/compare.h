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

/* One line for a report, e.g. "max |got - want| = 0.25 at [1, 3] (got 1.25, want 1.0), 3 of 64
 * elements beyond atol 0.001 + rtol 0.001", or "shape mismatch: got [2, 3], want [3, 2]". */
void compare_describe(const struct compare_result *r, struct buf *out);

#endif
