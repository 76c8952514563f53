/* solve.h: instantiating one operator on the graph being built (Isra's method): the block's
 * statements run in their order, each choosing from a domain that what came before has narrowed,
 * without ever going back. An input is an existing tensor of the graph when one fits all its
 * domains (with the picking rate), else a new graph input or initializer; then the attributes, the
 * other inputs and the outputs. An empty domain is a bug of the spec (it says where), never a
 * reason to search; the vertex is dropped.
 *
 * spec_check-like use at load: solve_check solves every block on sampled first inputs and rejects a
 * spec whose domain can become empty, naming the variable, its line and that first input.
 *
 * Ownership: a solve_node and everything it points to lives in the solver's arena until the next
 * solve_node; blocks are borrowed from their spec_set. */
#ifndef FERRY_GEN_SOLVE_H
#define FERRY_GEN_SOLVE_H

#include <stdint.h>

#include "err.h"
#include "expr.h"
#include "spec.h"

/* xoshiro256**, seeded through splitmix64: the same seed gives the same corpus everywhere. */
struct solve_rng {
	uint64_t s[4];
};

void solve_rng_seed(struct solve_rng *r, uint64_t seed);
uint64_t solve_rng_next(struct solve_rng *r);
/* Uniform in [0, n); n > 0. */
uint64_t solve_rng_below(struct solve_rng *r, uint64_t n);
/* Uniform in [0, 1). */
double solve_rng_double(struct solve_rng *r);

struct solve_opts {
	double pick_rate;         /* the chance that an input looks for a tensor to reuse */
	int max_dim;              /* a dimension without a dims clause is drawn from 1..max_dim */
	int64_t max_elements;     /* a tensor with more elements drops the vertex */
	int first_dims_max;       /* 0, or the first input's default dims bound (spec checks) */
};

/* The tensors an input may reuse (graph inputs and node outputs; never initializers), by dtype
 * and rank. id: the graph's own number for the tensor, handed back on reuse. */
struct solve_pool {
	struct gen_tensor *t;
	int *id;
	int n, cap;
	int *by[DT_COUNT][GEN_MAX_RANK + 1];
	int nby[DT_COUNT][GEN_MAX_RANK + 1], capby[DT_COUNT][GEN_MAX_RANK + 1];
};

void solve_pool_init(struct solve_pool *p);
void solve_pool_reset(struct solve_pool *p);
void solve_pool_release(struct solve_pool *p);
void solve_pool_add(struct solve_pool *p, const struct gen_tensor *t, int id);

enum solve_input_kind { IN_ABSENT, IN_REUSE, IN_GRAPH, IN_CONST };

struct solve_input {
	int kind;
	int id;                   /* IN_REUSE: the pool's id */
	struct gen_tensor t;
	int has_range;
	double range[2];
	const struct val *values; /* IN_CONST with exact values: a flat VAL_LIST of numbers */
};

struct solve_attr {
	const char *name;
	struct val v;             /* int, float, string, dtype, or a list of int, float or string */
};

enum solve_status {
	SOLVE_OK, SOLVE_TOO_LARGE, SOLVE_TOO_DEEP, SOLVE_SPEC_BUG
};

struct solve_node {
	const struct block *b;
	const char *op;
	struct solve_input *in;
	int nin;
	struct gen_tensor *out;
	int nout;
	struct solve_attr *attrs;  /* sorted by name */
	int nattrs;
	/* SOLVE_SPEC_BUG: where and what */
	int bug_line, bug_col;
	char bug[400];
	char first[96];            /* the first input, described: "X: float32[1,3,8,8]" */
};

struct solver {
	struct arena arena;
	struct solve_opts o;
	struct solve_rng *rng;     /* borrowed */
	struct expr_fail fail;
	int *scratch;
	int cap_scratch;
};

void solve_init(struct solver *sv, const struct solve_opts *o, struct solve_rng *rng);
void solve_release(struct solver *sv);

/* Instantiate op (one of b's) on pool (NULL: nothing to reuse). */
enum solve_status solve_node(struct solver *sv, const struct block *b, const char *op, const struct solve_pool *pool,
			     struct solve_node *out);

/* Solve every block of s on `samples` sampled first inputs; -1 (EXIT_INPUT) at the first domain
 * that became empty or expression that failed, naming FILE:LINE, the variable and the first input. */
int solve_check(const struct spec_set *s, const struct solve_opts *o, int samples, struct err *e);

#endif
