/* expr.h: the expressions of the operator spec language (gen/specs/README) and their values: int,
 * float, string and list, and, for names that stand for them, a tensor, a group of tensors and a
 * dtype. gen/spec.c parses expressions into struct expr (names already resolved to slots of a
 * block's environment); gen/solve.c evaluates them many times per generated vertex, so evaluation
 * allocates only from an arena that the solver resets per vertex, never with malloc.
 *
 * Ownership: expressions live in the arena of the spec set that parsed them; values live in the
 * arena of the evaluation that made them (strings are interned by the spec set and outlive both). */
#ifndef FERRY_GEN_EXPR_H
#define FERRY_GEN_EXPR_H

#include <stddef.h>
#include <stdint.h>

/* Generated tensors have at most this rank (a spec that asks for more drops the vertex). */
#define GEN_MAX_RANK 5

/* The dtypes of the spec language, in the order of its documentation. */
enum gen_dtype {
	DT_FLOAT16, DT_FLOAT32, DT_FLOAT64, DT_BFLOAT16, DT_INT8, DT_INT16, DT_INT32, DT_INT64,
	DT_UINT8, DT_UINT16, DT_UINT32, DT_UINT64, DT_BOOL, DT_COUNT
};

/* The dtype's name in records ("float32"), its ONNX TensorProto enum, and its parse (-1 if none). */
const char *expr_dtype_name(int dt);
int expr_dtype_onnx(int dt);
int expr_dtype_parse(const char *name);
int expr_dtype_is_float(int dt);
int expr_dtype_is_unsigned(int dt);

/* A bump allocator. Blocks are kept across resets, so a solver that resets per vertex stops
 * allocating once the largest vertex has been seen. */
struct arena_block;
struct arena {
	struct arena_block *head;   /* the block being filled; earlier blocks follow it */
	struct arena_block *spare;  /* freed by reset, reused before malloc */
};

#define ARENA_INIT { NULL, NULL }

void *expr_alloc(struct arena *a, size_t n);
void expr_arena_reset(struct arena *a);
void expr_arena_release(struct arena *a);

/* A tensor while it is chosen: rank and the first `known` dims are chosen. */
struct gen_tensor {
	int dtype;
	int rank;
	int known;
	int64_t dims[GEN_MAX_RANK];
};

struct gen_group {
	int n;
	struct gen_tensor **t;   /* n tensors; NULL entries are absent */
};

enum val_kind { VAL_NONE, VAL_INT, VAL_FLOAT, VAL_STR, VAL_LIST, VAL_TENSOR, VAL_GROUP, VAL_DTYPE };

struct val {
	int kind;
	int n;                      /* VAL_LIST: the number of items */
	union {
		int64_t i;              /* VAL_INT, VAL_DTYPE (an enum gen_dtype) */
		double f;
		const char *s;          /* interned */
		struct val *items;
		const struct gen_tensor *t;
		const struct gen_group *g;
	} u;
};

enum expr_kind {
	X_INT, X_FLOAT, X_STR, X_NAME, X_LIST, X_SPLICE, X_RANGE, X_INDEX, X_SLICE, X_RANK, X_SHAPE,
	X_COUNT, X_COMP, X_BIN, X_NEG, X_NOT, X_AND, X_OR, X_COND, X_IN, X_NOTIN, X_CALL
};

enum expr_op { OP_ADD, OP_SUB, OP_MUL, OP_DIV, OP_MOD, OP_EQ, OP_NE, OP_LT, OP_LE, OP_GT, OP_GE };

enum expr_fn {
	FN_LEN, FN_SUM, FN_PROD, FN_MIN, FN_MAX, FN_ABS, FN_DIVISORS, FN_CEIL_DIV, FN_RANGE, FN_UNIFORM,
	FN_COUNT
};

/* A node of an expression. X_NAME: s is the name, slot its place in the environment. X_COMP:
 * a[0] for v in a[1] if a[2] (a[2] may be NULL), slot is v's. X_SLICE: a[0][a[1]:a[2]], bounds may
 * be NULL. X_CALL: op is the enum expr_fn. */
struct expr {
	unsigned char kind, op;
	int line, col;
	int slot;
	int n;
	int64_t i;
	double f;
	const char *s;
	struct expr **a;
};

/* Where evaluation failed, for the message "FILE:LINE:COL: ...". */
struct expr_fail {
	int line, col;
	char msg[240];
};

struct expr_env {
	struct val *slots;          /* the block's environment; VAL_NONE: nothing chosen there */
	struct arena *arena;        /* where lists are made */
	struct expr_fail *fail;
};

/* Evaluate x. -1 on a spec bug (a name without a value, an index out of range, a type mismatch,
 * a division by zero), with env->fail filled. */
int expr_eval(const struct expr *x, struct expr_env *env, struct val *out);
/* Set env->fail at x (printf-style); returns -1. */
int expr_failf(struct expr_env *env, const struct expr *x, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* Python's truth of a value (a tensor or group is an error: -1). */
int expr_truth(const struct val *v, struct expr_env *env, const struct expr *at);
/* Numeric equality (int 2 equals float 2.0), strings by content, lists item by item: 1 or 0. A spec
 * can nest lists without bound (each let a list of the last) and share them (let b = [a, a] doubles
 * the tree while the arena holds one copy), so the comparison visits at most *budget values (NULL:
 * EXPR_EQUAL_MAX_ITEMS), each decremented from it, and lists at most EXPR_EQUAL_MAX_DEPTH deep; -1
 * beyond either. */
#define EXPR_EQUAL_MAX_DEPTH 100
#define EXPR_EQUAL_MAX_ITEMS (1 << 22)
int expr_equal(const struct val *a, const struct val *b, long *budget);
/* The value as a list: a list as is, a tensor as its shape; -1 otherwise. */
int expr_as_list(const struct val *v, struct expr_env *env, const struct expr *at, struct val *out);
/* The value as an integer; -1 (with fail) when it is not one. */
int expr_as_int(const struct val *v, struct expr_env *env, const struct expr *at, int64_t *out);
/* A short description of a value, for messages ("[1, 2]", "float32[1,3,8,8]"). */
void expr_describe(const struct val *v, char *out, size_t size);
/* The name of a value's kind ("an int", "a list", ...). */
const char *expr_kind_name(int kind);

#endif
