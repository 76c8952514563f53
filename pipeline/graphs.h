/* graphs.h: the generate stage: ONNX graphs from the operator specs (gen/), with a progress line and
 * a summary, into a corpus; ferry generate and ferry go call it. */
#ifndef FERRY_GRAPHS_H
#define FERRY_GRAPHS_H

#include <stddef.h>

#include "stage.h"

struct graphs_opts {
	const char *output;             /* the corpus */
	const char *const *globs;       /* the operators to use (--ops), or none: all */
	size_t nglobs;
	const char *specs;              /* the specs' directory, or NULL: ferry's own */
	int count;                      /* graphs */
	int min_nodes, max_nodes;       /* nodes per graph, drawn uniformly */
	int seed, opset;
	int diversity;                  /* operators chosen by the novelty of their recent vertices */
	double pick_rate, p_reject;
	int max_dim, max_elements;
	int list;                       /* list the operators on io->out instead, and stop */
	int quiet;                      /* no progress line */
};

/* Generate o->count graphs into o->output. An exit code; EXIT_USAGE (said by no one: usage holds
 * why) when an --ops glob names no operator. */
int graphs_generate(const struct graphs_opts *o, const struct stage_io *io, struct err *usage);

#endif
