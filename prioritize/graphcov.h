/* graphcov.h: the graph coverage of a corpus, as Isra measures generated tests ("Effective Random
 * Test Generation for Deep Learning Compilers"), for any corpus: harvested, varied or generated. A
 * record of kind "graph" is its nodes and the tensors between them; any other record is a graph of
 * one node (its operator, its present inputs and outputs).
 *
 * Over the corpus, the distinct
 *   operation types          op
 *   input degrees            (op, in-degree): in-degree, the node's present inputs, from whatever
 *                            they come (a graph input, a constant or another node)
 *   output degrees           (op, out-degree): out-degree, the uses of the node's outputs by other
 *                            nodes, and one more for each of them that is a graph output (its user)
 *   single edges             (producer op, consumer op) of a tensor one node makes and another uses
 *   double edges             (a, b, c) of two edges a -> b -> c through one node b
 *   shapes and attributes    (op, each input's dtype and rank, the attributes' values)
 * and per graph the means of its nodes and of its distinct operation types, single edges, double
 * edges and shapes-and-attributes signatures.
 *
 * Records come parsed (cJSON, as jsonl_next_json gives them), so that a graph record is read by its
 * members whatever lib/record.c makes of them. Prints nothing. */
#ifndef FERRY_GRAPHCOV_H
#define FERRY_GRAPHCOV_H

#include <stddef.h>

#include "err.h"
#include "strmap.h"

struct cJSON;

struct graphcov {
	size_t graphs;           /* records counted: graphs, and other records as one-node graphs */
	size_t invalid;          /* records a wrap found invalid (its "wrap" annotation): not counted */
	size_t operations;       /* nodes, over all graphs */
	struct strmap ops;       /* op -> nodes of that op */
	struct strmap in_degrees, out_degrees, edges, triples, signatures;  /* keys, see above */
	/* Sums over graphs of each graph's distinct op types, edges, triples and signatures. */
	size_t sum_types, sum_edges, sum_triples, sum_signatures;
};

#define GRAPHCOV_INIT { 0, 0, 0, STRMAP_INIT, STRMAP_INIT, STRMAP_INIT, STRMAP_INIT, STRMAP_INIT, \
			STRMAP_INIT, 0, 0, 0, 0 }

void graphcov_init(struct graphcov *g);
void graphcov_release(struct graphcov *g);

/* Count one record. -1 with e (EXIT_INPUT, naming the member) for a record that is not one: no op,
 * or a graph whose members are missing or of the wrong type, or that names a tensor no input,
 * constant or earlier node makes. g is unchanged then. */
int graphcov_add(struct graphcov *g, const struct cJSON *record, struct err *e);

/* The means per graph (0 for no graph). */
struct graphcov_means {
	double operations, types, edges, triples, signatures;
};
void graphcov_means(const struct graphcov *g, struct graphcov_means *m);

#endif
