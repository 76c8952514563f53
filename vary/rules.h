/* rules.h: the variation rules of ferry vary (vary/vary.h): pure functions that, from a parent
 * instance and the pools of the corpus, make labelled candidate instances, one list per dimension
 * of variation (dtype, shape, parameter values, scalar vs tensor, a value's Python type). A candidate is a whole record
 * (record_from_json accepted it), whose outputs are still the parent's: only the library's run
 * (the validate task) knows the real ones. Each list comes in an order drawn from the seed and
 * the parent's id, so the same seed gives the same candidates in the same order.
 *
 * Labels name what changed: "dtype:int16", "rank:+1", "rank:-1", "dim:2=1", "dim:0=0",
 * "spatial:kernel", "spatial:kernel-1", "spatial:kernel+stride-1", "spatial:nonsquare",
 * "param:stride=-1", "param:+bias=false" (a param the parent lacks, added), "in:2=0",
 * "pair:padding=1,stride=2", "scalar:in:1=tensor", "tensor:in:1=number", and a value's type as a
 * value is ("param:eps=1" for eps=1e-12, "param:p=[2.0]").
 *
 * Ownership: the pools own copies of what they hold; a candidate list owns its candidates. */
#ifndef FERRY_RULES_H
#define FERRY_RULES_H

#include <stddef.h>
#include <stdint.h>

#include "record.h"
#include "strmap.h"

enum rules_dim { RULES_DTYPE, RULES_SHAPE, RULES_PARAM, RULES_SCALAR, RULES_TYPE, RULES_NDIMS };

/* What pass 1 saw in the corpus: per (op, param) the distinct values (canonical text, any type),
 * per (library, param) the distinct str and dtype values, each in first-seen order and capped. */
struct rules_pools {
	struct strmap op_param;    /* "op\x1fparam" -> struct rules_list * */
	struct strmap lib_param;   /* "library\x1fparam" -> struct rules_list * */
	struct strmap op_params;   /* "op" -> struct rules_list * of param names */
};

struct rules_list {
	char **items;
	size_t *counts;   /* how many instances showed each item */
	size_t n;
};

struct rules_cand {
	char *label;          /* owned */
	enum rules_dim dim;
	struct instance in;   /* owned; its id is over the stale outputs */
};

struct rules_cands {
	struct rules_cand *v;
	size_t n, cap;
	/* Candidates the rules knew the library refuses, and so did not make: a torch module that
	 * holds no floating weights (ReLU6, a pooling) with a dtype= argument, which its constructor
	 * does not take. Counted, never tried. */
	size_t skipped;
};

void rules_pools_init(struct rules_pools *p);
void rules_pools_add(struct rules_pools *p, const struct instance *in);
void rules_pools_release(struct rules_pools *p);

void rules_cands_release(struct rules_cands *c);

/* The dtypes ferry tries for a library, as its template declares them (libraries.h, whose table
 * must have been read: NULL-terminated; an empty list for an unknown library). */
const char *const *rules_dtypes(const char *library);

/* Append each dimension's candidates to out (in seeded order within the dimension). pools may be
 * NULL (no str/dtype alternatives, no added params).
 *
 * Parameter values and types are in no shuffled order but scheduled: the first alternative of
 * every parameter (the most extreme value, 1e30 or 1024 first), then the second of each, and so
 * on, parameters in an order drawn from the seed and the operator, with each pair right after the
 * later of its two single changes (a value is tried alone before any pair that holds it). nth, the
 * parent's place among its operator's parents (0 first), rotates that schedule, so that the
 * parents of an operator, each of which reaches only the first few, start at another parameter's
 * extreme each. */
void rules_dtype(const struct instance *parent, uint64_t seed, struct rules_cands *out);
void rules_shape(const struct instance *parent, uint64_t seed, struct rules_cands *out);
void rules_param(const struct instance *parent, const struct rules_pools *pools, uint64_t seed, size_t nth,
		 struct rules_cands *out);
void rules_scalar(const struct instance *parent, uint64_t seed, struct rules_cands *out);
/* The same parameter or non-tensor input value in another Python type the library may take for it,
 * labelled as a parameter or input value is ("param:eps=1", "param:dim=1.0", "param:bias=0",
 * "param:alpha=true", "param:eps=[1e-12]", "in:1=(2,)"): a float as an int, an int as a float (and
 * 0 or 1 as a bool), a bool as an int, a scalar as a one-element list or tuple. None for ONNX. */
void rules_type(const struct instance *parent, uint64_t seed, size_t nth, struct rules_cands *out);

/* A check the rules make before each candidate (NULL: none): once it returns nonzero, no more
 * candidates are made, and the lists end short. Each candidate is a copy of its parent, so a parent
 * of hundreds of thousands of inputs takes seconds per candidate: ferry vary told to stop (SIGTERM)
 * stops here too, rather than after every candidate of that parent. */
void rules_stop_when(int (*stop)(void));

/* Every dimension's candidates, interleaved round-robin (dtype, shape, param, scalar, type, dtype,
 * ...). nth: the parent's place among its operator's parents (rules_param). */
void rules_all(const struct instance *parent, const struct rules_pools *pools, uint64_t seed, size_t nth,
	       struct rules_cands *out);

/* A failure's neighbours (ferry go's trigger stage, pipeline/triggers.h): candidates one change
 * away from the parent, each telling what triggers a failure when it passes: the first input's
 * group in up to three other dtypes ("dtype:float32", most common first), each parameter left out
 * so that the library's default applies ("param:-ceil_mode") or set to the value the corpus shows
 * most often for it ("param:ceil_mode=0"), and the first input one rank less ("rank:-1"), with a
 * dimension of 1 ("dim:2=1") or one rank more ("rank:+1"). In no random order: dtype, parameter
 * and shape candidates interleaved, the most telling of each first, so that a quota of a few
 * neighbours per parent covers the three. */
void rules_neighbours(const struct instance *p, const struct rules_pools *pools, struct rules_cands *out);

#endif
