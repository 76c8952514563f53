/* graphs.h: the generate stage: ONNX graphs from the operator specs (gen/), with a progress line and
 * a summary, into a corpus; ferry generate and ferry go call it. */
#ifndef FERRY_GRAPHS_H
#define FERRY_GRAPHS_H

#include <stddef.h>
#include <stdint.h>

#include "stage.h"
#include "strmap.h"

/* What the frontends of a generation lack, by a store's probe table (oracle/probe.h): the
 * operators and type signatures (probe_signature) whose probe any of them, at the release its
 * latest run reported, answered "unsupported" (the frontend's own word), and the signatures no
 * probe tried whose dtypes it never took in their places (support_lacks in graphs.c). A signature
 * whose probe crashed stays in: a crash is for finding. */
struct graphs_support {
	struct strmap lacked;           /* "OP\tSIGNATURE" */
	/* By frontend number F: "F\tOP" probed, "F\tOP\tSIGNATURE" probed, and "F\tOP\tPOS\tDTYPE" a
	 * dtype in place POS (0: the output) of a signature probed without "unsupported" */
	struct strmap known;
	/* "OP\tSIGNATURE" of vertices the generation drew that a frontend has no probe of */
	struct strmap unprobed;
	size_t nfes;
	size_t probed;                  /* signatures probed, over the frontends */
	uint64_t digest;                /* of the lacked groups, by frontend: a stamp changes with them */
};

#define GRAPHS_SUPPORT_INIT { STRMAP_INIT, STRMAP_INIT, STRMAP_INIT, 0, 0, 0 }

/* Load the support of frontends (their names in the store) from the store at path. */
int graphs_support_load(struct graphs_support *s, const char *store, const char *const *frontends, size_t n,
			struct err *e);
void graphs_support_release(struct graphs_support *s);

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
	struct graphs_support *support; /* draw nothing they lack, or NULL; what it had no probe of, it
					 * gathers in support->unprobed */
	int list;                       /* list the operators on io->out instead, and stop */
	int probes;                     /* write the operators' probes (graph_probes) instead of count graphs */
	int quiet;                      /* no progress line */
	int no_summary;                 /* no summary either (a draft ferry go generates again) */
};

/* Generate o->count graphs into o->output. An exit code; EXIT_USAGE (said by no one: usage holds
 * why) when an --ops glob names no operator. */
int graphs_generate(const struct graphs_opts *o, const struct stage_io *io, struct err *usage);

#endif
