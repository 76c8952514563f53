/* graphcov.c: the graph coverage of a corpus (graphcov.h). */
#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "graphcov.h"
#include "record.h"
#include "xalloc.h"

/* Keys join their parts with a unit separator, which no operator name holds. */
#define SEP "\x1f"

void graphcov_init(struct graphcov *g)
{
	memset(g, 0, sizeof(*g));
}

void graphcov_release(struct graphcov *g)
{
	strmap_release(&g->ops);
	strmap_release(&g->in_degrees);
	strmap_release(&g->out_degrees);
	strmap_release(&g->edges);
	strmap_release(&g->triples);
	strmap_release(&g->signatures);
	graphcov_init(g);
}

/* One node of the graph being read: everything borrowed from the record. */
struct node {
	const char *op;
	const cJSON *params;   /* an object of tagged values, or NULL */
	struct buf inputs;     /* the inputs' types, "float32/4,-,int64/1" ("-": absent) */
	size_t in_degree, out_degree;
};

/* The graph being read, before it is counted: counted only once it is read whole. */
struct graph {
	struct node *nodes;
	size_t n;
	size_t *from, *to;     /* edges: producer and consumer node, one per use of a tensor */
	size_t nedges;
};

static void graph_release(struct graph *gr)
{
	for (size_t i = 0; i < gr->n; i++)
		buf_release(&gr->nodes[i].inputs);
	free(gr->nodes);
	free(gr->from);
	free(gr->to);
}

static struct node *add_node(struct graph *gr, const char *op, const cJSON *params)
{
	struct node *nd;

	gr->nodes = xrealloc(gr->nodes, (gr->n + 1) * sizeof(*gr->nodes));
	nd = &gr->nodes[gr->n++];
	memset(nd, 0, sizeof(*nd));
	nd->op = op;
	nd->params = cJSON_IsObject(params) ? params : NULL;
	return nd;
}

static void add_edge(struct graph *gr, size_t from, size_t to)
{
	gr->from = xrealloc(gr->from, (gr->nedges + 1) * sizeof(*gr->from));
	gr->to = xrealloc(gr->to, (gr->nedges + 1) * sizeof(*gr->to));
	gr->from[gr->nedges] = from;
	gr->to[gr->nedges++] = to;
}

/* "dtype/rank" of a tensor type ({"dtype", "shape"}), "?" where it does not say. */
static void type_text(const cJSON *t, struct buf *out)
{
	const cJSON *d = cJSON_GetObjectItemCaseSensitive(t, "dtype");
	const cJSON *s = cJSON_GetObjectItemCaseSensitive(t, "shape");

	if (!cJSON_IsString(d) || !cJSON_IsArray(s)) {
		buf_addc(out, '?');
		return;
	}
	buf_addf(out, "%s/%d", d->valuestring, cJSON_GetArraySize(s));
}

static void add_input_type(struct node *nd, const char *text_or_null, const cJSON *type)
{
	if (nd->inputs.len)
		buf_addc(&nd->inputs, ',');
	if (text_or_null)
		buf_adds(&nd->inputs, text_or_null);
	else
		type_text(type, &nd->inputs);
}

/* A one-node graph of any record but a graph: its present inputs in, its present outputs out (each
 * a graph output). */
static void read_node_record(const cJSON *rec, const char *op, struct graph *gr)
{
	const cJSON *ins = cJSON_GetObjectItemCaseSensitive(rec, "inputs");
	const cJSON *outs = cJSON_GetObjectItemCaseSensitive(rec, "outputs");
	const cJSON *in_list = cJSON_IsArray(ins) ? ins : NULL, *out_list = cJSON_IsArray(outs) ? outs : NULL;
	struct node *nd = add_node(gr, op, cJSON_GetObjectItemCaseSensitive(rec, "params"));
	const cJSON *v;

	cJSON_ArrayForEach(v, in_list) {
		const cJSON *body = cJSON_IsObject(v) ? v->child : NULL;

		if (!body || !strcmp(body->string, "none")) {
			add_input_type(nd, "-", NULL);
			continue;
		}
		nd->in_degree++;
		/* A tensor by its dtype and rank; any other value (a Python number, a list) by its tag. */
		add_input_type(nd, strcmp(body->string, "tensor") ? body->string : NULL, body);
	}
	cJSON_ArrayForEach(v, out_list)
		if (!(cJSON_IsObject(v) && v->child && !strcmp(v->child->string, "none")))
			nd->out_degree++;
}

static int bad(struct err *e, const char *what)
{
	return err_set(e, EXIT_INPUT, "%s", what);
}

/* The tensors a graph's nodes can use: name -> producing node + 1 (count; 0: an input or a
 * constant) and its type (ptr). */
static int name_tensor(struct strmap *names, const cJSON *name, const cJSON *type, size_t producer,
		       const char *where, struct err *e)
{
	struct strmap_entry *en;
	int created;

	if (!cJSON_IsString(name) || !*name->valuestring)
		return err_set(e, EXIT_INPUT, "%s: a tensor needs a name", where);
	en = strmap_get(names, name->valuestring, &created);
	if (!created)
		return err_set(e, EXIT_INPUT, "%s: tensor '%s' is made twice", where, name->valuestring);
	en->count = producer;
	en->ptr = (void *)type;
	return 0;
}

static int read_graph_record(const cJSON *rec, struct graph *gr, struct err *e)
{
	const cJSON *graph = cJSON_GetObjectItemCaseSensitive(rec, "graph");
	const cJSON *gins = cJSON_GetObjectItemCaseSensitive(graph, "inputs");
	const cJSON *rins = cJSON_GetObjectItemCaseSensitive(rec, "inputs");
	const cJSON *consts = cJSON_GetObjectItemCaseSensitive(graph, "constants");
	const cJSON *nodes = cJSON_GetObjectItemCaseSensitive(graph, "nodes");
	const cJSON *gouts = cJSON_GetObjectItemCaseSensitive(graph, "outputs");
	struct strmap names = STRMAP_INIT;
	char where[96];
	const cJSON *c;
	int k = 0, r = -1;

	if (!cJSON_IsObject(graph))
		return bad(e, "graph: a record of kind graph needs a graph object");
	if (!cJSON_IsArray(gins) || !cJSON_IsArray(nodes) || !cJSON_IsArray(gouts) ||
	    (consts && !cJSON_IsArray(consts)))
		return bad(e, "graph: needs arrays inputs, nodes and outputs (and constants, if any)");
	if (!cJSON_IsArray(rins) || cJSON_GetArraySize(rins) != cJSON_GetArraySize(gins))
		return bad(e, "graph.inputs: not parallel to the record's inputs");
	cJSON_ArrayForEach(c, gins) {
		const cJSON *v = cJSON_GetArrayItem(rins, k);

		snprintf(where, sizeof(where), "graph.inputs[%d]", k++);
		if (name_tensor(&names, c, cJSON_GetObjectItemCaseSensitive(v, "tensor"), 0, where, e) < 0)
			goto out;
	}
	k = 0;
	cJSON_ArrayForEach(c, consts) {
		snprintf(where, sizeof(where), "graph.constants[%d]", k++);
		if (name_tensor(&names, cJSON_GetObjectItemCaseSensitive(c, "name"),
				cJSON_GetObjectItemCaseSensitive(c, "tensor"), 0, where, e) < 0)
			goto out;
	}
	k = 0;
	cJSON_ArrayForEach(c, nodes) {
		const cJSON *op = cJSON_GetObjectItemCaseSensitive(c, "op");
		const cJSON *ins = cJSON_GetObjectItemCaseSensitive(c, "inputs");
		const cJSON *outs = cJSON_GetObjectItemCaseSensitive(c, "outputs");
		const cJSON *types = cJSON_GetObjectItemCaseSensitive(c, "types");
		const cJSON *v;
		struct node *nd;
		size_t self = gr->n;
		int j = 0;

		if (!cJSON_IsString(op) || !*op->valuestring || !cJSON_IsArray(ins) || !cJSON_IsArray(outs)) {
			err_set(e, EXIT_INPUT, "graph.nodes[%d]: a node needs op, inputs and outputs", k);
			goto out;
		}
		nd = add_node(gr, op->valuestring, cJSON_GetObjectItemCaseSensitive(c, "params"));
		cJSON_ArrayForEach(v, ins) {
			const struct strmap_entry *en;

			if (!cJSON_IsString(v)) {
				err_set(e, EXIT_INPUT, "graph.nodes[%d].inputs[%d]: not a name", k, j);
				goto out;
			}
			j++;
			if (!*v->valuestring) {
				add_input_type(nd, "-", NULL);
				continue;
			}
			if (!(en = strmap_find(&names, v->valuestring))) {
				err_set(e, EXIT_INPUT, "graph.nodes[%d].inputs[%d]: no input, constant or earlier node "
					"makes '%s'", k, j - 1, v->valuestring);
				goto out;
			}
			nd->in_degree++;
			add_input_type(nd, NULL, en->ptr);
			if (en->count)
				add_edge(gr, en->count - 1, self);
		}
		j = 0;
		cJSON_ArrayForEach(v, outs) {
			snprintf(where, sizeof(where), "graph.nodes[%d].outputs[%d]", k, j);
			/* An omitted optional output ("") makes nothing. */
			if (cJSON_IsString(v) && !*v->valuestring) {
				j++;
				continue;
			}
			if (name_tensor(&names, v, cJSON_GetArrayItem(types, j++), self + 1, where, e) < 0)
				goto out;
		}
		k++;
	}
	k = 0;
	cJSON_ArrayForEach(c, gouts) {
		const struct strmap_entry *en = cJSON_IsString(c) ? strmap_find(&names, c->valuestring) : NULL;

		if (!en) {
			err_set(e, EXIT_INPUT, "graph.outputs[%d]: no input, constant or node makes it", k);
			goto out;
		}
		if (en->count)
			gr->nodes[en->count - 1].out_degree++;
		k++;
	}
	for (size_t i = 0; i < gr->nedges; i++)
		gr->nodes[gr->from[i]].out_degree++;
	r = 0;
out:
	strmap_release(&names);
	return r;
}

/* A value in a form that is the same for the same value whatever the order of its members. */
static void canonical(const cJSON *j, struct buf *out)
{
	const cJSON *c, **m;
	size_t n = 0, i = 0;

	if (cJSON_IsArray(j)) {
		buf_addc(out, '[');
		cJSON_ArrayForEach(c, j) {
			if (i++)
				buf_addc(out, ',');
			canonical(c, out);
		}
		buf_addc(out, ']');
		return;
	}
	if (!cJSON_IsObject(j)) {
		if (cJSON_IsNumber(j))
			json_add_double(out, j->valuedouble);
		else if (cJSON_IsString(j))
			buf_add_json_string(out, j->valuestring);
		else
			buf_adds(out, cJSON_IsTrue(j) ? "true" : cJSON_IsFalse(j) ? "false" : "null");
		return;
	}
	cJSON_ArrayForEach(c, j)
		n++;
	m = xcalloc(n ? n : 1, sizeof(*m));
	cJSON_ArrayForEach(c, j)
		m[i++] = c;
	/* Insertion sort by name: a node has a handful of attributes. */
	for (i = 1; i < n; i++)
		for (size_t k = i; k > 0 && strcmp(m[k - 1]->string, m[k]->string) > 0; k--) {
			const cJSON *t = m[k];

			m[k] = m[k - 1];
			m[k - 1] = t;
		}
	buf_addc(out, '{');
	for (i = 0; i < n; i++) {
		if (i)
			buf_addc(out, ',');
		buf_add_json_string(out, m[i]->string);
		buf_addc(out, ':');
		canonical(m[i], out);
	}
	buf_addc(out, '}');
	free(m);
}

/* Count key in the corpus-wide map and in the graph's own set; 1 when the graph had not seen it. */
static size_t put(struct strmap *corpus, struct strmap *own, const char *key)
{
	int created = 0;

	strmap_get(corpus, key, NULL)->count++;
	if (own)
		strmap_get(own, key, &created);
	return (size_t)created;
}

static void count_graph(struct graphcov *g, const struct graph *gr)
{
	struct strmap own = STRMAP_INIT;
	struct buf key = BUF_INIT;

	g->graphs++;
	g->operations += gr->n;
	for (size_t i = 0; i < gr->n; i++) {
		const struct node *nd = &gr->nodes[i];

		g->sum_types += put(&g->ops, &own, nd->op);
		buf_reset(&key);
		buf_addf(&key, "%s" SEP "%zu", nd->op, nd->in_degree);
		put(&g->in_degrees, NULL, key.data);
		buf_reset(&key);
		buf_addf(&key, "%s" SEP "%zu", nd->op, nd->out_degree);
		put(&g->out_degrees, NULL, key.data);
		buf_reset(&key);
		buf_addf(&key, "sig" SEP "%s" SEP "%s" SEP, nd->op, nd->inputs.data ? nd->inputs.data : "");
		if (nd->params)
			canonical(nd->params, &key);
		g->sum_signatures += put(&g->signatures, &own, key.data);
	}
	for (size_t i = 0; i < gr->nedges; i++) {
		size_t b = gr->from[i], c = gr->to[i];

		buf_reset(&key);
		buf_addf(&key, "edge" SEP "%s" SEP "%s", gr->nodes[b].op, gr->nodes[c].op);
		g->sum_edges += put(&g->edges, &own, key.data);
		/* Every edge a -> b into this edge's producer makes a path a -> b -> c. */
		for (size_t j = 0; j < gr->nedges; j++) {
			if (gr->to[j] != b)
				continue;
			buf_reset(&key);
			buf_addf(&key, "triple" SEP "%s" SEP "%s" SEP "%s", gr->nodes[gr->from[j]].op,
				 gr->nodes[b].op, gr->nodes[c].op);
			g->sum_triples += put(&g->triples, &own, key.data);
		}
	}
	buf_release(&key);
	strmap_release(&own);
}

int graphcov_add(struct graphcov *g, const cJSON *record, struct err *e)
{
	const cJSON *op = cJSON_GetObjectItemCaseSensitive(record, "op");
	const cJSON *kind = cJSON_GetObjectItemCaseSensitive(record, "kind");
	const cJSON *wrap = cJSON_GetObjectItemCaseSensitive(record, "wrap");
	const cJSON *status = cJSON_GetObjectItemCaseSensitive(wrap, "status");
	struct graph gr;
	int r = 0;

	memset(&gr, 0, sizeof(gr));
	if (!cJSON_IsObject(record) || !cJSON_IsString(op) || !*op->valuestring)
		return bad(e, "missing member 'op'");
	/* A wrapped.jsonl line the library rejected is no test. */
	if (cJSON_IsString(status) && strcmp(status->valuestring, "ok")) {
		g->invalid++;
		return 0;
	}
	if (cJSON_IsString(kind) && !strcmp(kind->valuestring, "graph"))
		r = read_graph_record(record, &gr, e);
	else
		read_node_record(record, op->valuestring, &gr);
	if (r == 0)
		count_graph(g, &gr);
	graph_release(&gr);
	return r;
}

void graphcov_means(const struct graphcov *g, struct graphcov_means *m)
{
	double n = g->graphs ? (double)g->graphs : 1.0;

	m->operations = (double)g->operations / n;
	m->types = (double)g->sum_types / n;
	m->edges = (double)g->sum_edges / n;
	m->triples = (double)g->sum_triples / n;
	m->signatures = (double)g->sum_signatures / n;
}
