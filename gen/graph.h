/* graph.h: ONNX graphs generated from operator specs (ferry generate). A graph grows one vertex at
 * a time: an operator is chosen (uniformly, or by GenCoG's diversity: operators whose recent
 * vertices brought new vertex and edge signatures are chosen more), solved on the tensors the graph
 * already has (gen/solve.h), and kept unless it is dropped (a spec bug, a tensor too large) or
 * rejected (GenCoG's vertex rejection: a vertex seen before is rejected with probability p_reject).
 *
 * Each graph is written as one corpus record (lib/record.h) of kind "graph" (ISSUE14's fixed
 * format: graph inputs x0.., initializers c0.., node outputs t0.., nodes in topological order, a
 * graph output for every node output that no node consumes), or, for a graph of one node, as an
 * ordinary node record. The id is lib/record.c's, so identical graphs are one instance.
 *
 * Ownership: a graph_gen borrows its spec_set (which must outlive it) and owns everything else. */
#ifndef FERRY_GEN_GRAPH_H
#define FERRY_GEN_GRAPH_H

#include <stddef.h>
#include <stdint.h>

#include "buf.h"
#include "err.h"
#include "solve.h"
#include "spec.h"
#include "strmap.h"

struct graph_opts {
	int min_nodes, max_nodes;
	int opset;
	uint64_t seed;
	int diversity;             /* GenCoG's diversity-directed operator choice */
	double p_reject;           /* GenCoG's vertex rejection */
	struct solve_opts solve;
	const char *library_version;  /* the onnx release, or NULL */
	/* What the frontend lacks (NNSmith's dtype test): whether a vertex of op (the record's name,
	 * "DOMAIN.OP" outside ai.onnx) with this type signature (oracle/probe.h's probe_signature:
	 * "OUT(IN,...)") is one it says it has no support for. Such a vertex is dropped and another
	 * drawn. NULL: it lacks nothing. */
	int (*lacks)(void *ctx, const char *op, const char *signature);
	/* Called with each vertex kept, named as lacks names it (NULL: not called). */
	void (*drawn)(void *ctx, const char *op, const char *signature);
	void *lacks_ctx;
};

struct graph_op {
	const char *name;          /* interned by the spec set */
	const struct block **blocks;   /* the blocks that hold at the opset */
	int nblocks;
	size_t nodes;              /* vertices kept */
	size_t lacked;             /* vertices dropped since the frontend lacks their group */
	double novelty;            /* recent share of vertices that brought a new signature */
};

/* A set of 64-bit signatures (open addressing; 0 is the empty slot). */
struct graph_sigs {
	uint64_t *slot;
	size_t cap, len;
};

struct graph_tensor;
struct graph_node;

struct graph_gen {
	struct graph_opts o;
	struct graph_op *ops;
	int nops;
	struct solve_rng rng;
	struct solver sv;
	struct solve_pool pool;
	/* the graph being built */
	struct graph_tensor *t;
	int nt, capt;
	struct graph_node *nodes;
	int nnodes, capnodes;
	int *ints;                 /* the nodes' input and output tensor numbers */
	size_t nints, capints;
	struct buf text;           /* the nodes' params and constants' values, canonical */
	int ninputs, nconsts, nouts;
	struct graph_sigs vertex_sigs, edge_sigs;
	/* what happened */
	size_t graphs, nodes_total, nodes_min, nodes_max, short_graphs;
	size_t drop_large, drop_rank, drop_bug, rejected, drop_lacks;
	struct strmap bugs;        /* "FILE:LINE:COL: what" -> how often */
	int probing;               /* graph_probes is writing: records say so in their source */
};

/* Choose the operators (globs: --op patterns, select_op_matches, any matching; none: all) of s that hold at
 * o->opset. -1 (EXIT_USAGE) when no operator matches a glob. */
int graph_gen_init(struct graph_gen *g, const struct spec_set *s, const char *const *globs, size_t nglobs,
		   const struct graph_opts *o, struct err *e);
void graph_gen_release(struct graph_gen *g);

/* Generate graph number index and append its record (one line, no newline) to line. Returns the
 * number of nodes, 0 when no vertex could be made at all (nothing is appended). */
int graph_generate(struct graph_gen *g, uint64_t index, struct buf *line);

/* The probes of g's operators (oracle/probe.h): for every type signature (probe_signature) that
 * a vertex alone can have, the one with the fewest input elements among `tries` draws per block,
 * each appended to out as a node record line (newline included), in operator then signature order;
 * the same seed gives the same lines. o->lacks plays no part. Returns the number of records. */
size_t graph_probes(struct graph_gen *g, int tries, struct buf *out);

#endif
