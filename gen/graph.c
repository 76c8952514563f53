/* graph.c: a graph grown vertex by vertex from operator specs, written as one corpus record
 * (graph.h). */
#include "graph.h"

#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <xxhash.h>

#include "record.h"
#include "select.h"
#include "xalloc.h"

enum { GT_INPUT, GT_CONST, GT_OUTPUT };

struct graph_tensor {
	int kind;
	int num;                   /* x<num>, c<num>, t<num> */
	struct gen_tensor t;
	int has_range;
	double range[2];
	size_t voff, vlen;         /* exact values (canonical JSON array) in text; vlen 0: none */
	int consumers;
	int producer;              /* the node that made it (GT_OUTPUT) */
	int out_index;
};

struct graph_node {
	const struct graph_op *op;
	const char *domain;
	size_t in_off, out_off;    /* in ints: tensor numbers (-1: absent) */
	int nin, nout;
	size_t poff, plen;         /* params (canonical JSON object) in text */
};

/* --- signatures --------------------------------------------------------------------------------- */

/* Add h; 1 if it is new. */
static int sigs_add(struct graph_sigs *s, uint64_t h)
{
	size_t k;

	if (!h)
		h = 1;
	if (2 * (s->len + 1) > s->cap) {
		struct graph_sigs bigger = { NULL, s->cap ? 2 * s->cap : 1024, 0 };

		bigger.slot = xcalloc(bigger.cap, sizeof(uint64_t));
		for (size_t i = 0; i < s->cap; i++)
			if (s->slot[i])
				sigs_add(&bigger, s->slot[i]);
		free(s->slot);
		*s = bigger;
	}
	for (k = h & (s->cap - 1); s->slot[k]; k = (k + 1) & (s->cap - 1))
		if (s->slot[k] == h)
			return 0;
	s->slot[k] = h;
	s->len++;
	return 1;
}

static int sigs_has(const struct graph_sigs *s, uint64_t h)
{
	if (!h)
		h = 1;
	if (!s->cap)
		return 0;
	for (size_t k = h & (s->cap - 1); s->slot[k]; k = (k + 1) & (s->cap - 1))
		if (s->slot[k] == h)
			return 1;
	return 0;
}

/* --- canonical JSON of what a node holds -------------------------------------------------------- */

#define EXACT_INT_MAX (INT64_C(1) << 53)

/* As lib/record.c writes integers: beyond 2^53 as decimal strings. */
static void add_int(struct buf *b, int64_t i)
{
	if (i > EXACT_INT_MAX || i < -EXACT_INT_MAX)
		buf_addf(b, "\"%lld\"", (long long)i);
	else
		buf_addf(b, "%lld", (long long)i);
}

static void add_tagged(struct buf *b, const struct val *v, int as_float)
{
	switch (v->kind) {
	case VAL_INT:
		if (as_float) {
			buf_adds(b, "{\"float\":");
			json_add_double(b, (double)v->u.i);
		} else {
			buf_adds(b, "{\"int\":");
			add_int(b, v->u.i);
		}
		break;
	case VAL_FLOAT:
		buf_adds(b, "{\"float\":");
		json_add_double(b, v->u.f);
		break;
	case VAL_STR:
		buf_adds(b, "{\"str\":");
		buf_add_json_string(b, v->u.s);
		break;
	case VAL_DTYPE:
		buf_addf(b, "{\"int\":%d", expr_dtype_onnx((int)v->u.i));
		break;
	case VAL_LIST: {
		int floats = 0;

		for (int k = 0; k < v->n; k++)
			floats |= v->u.items[k].kind == VAL_FLOAT;
		buf_adds(b, "{\"list\":[");
		for (int k = 0; k < v->n; k++) {
			if (k)
				buf_addc(b, ',');
			add_tagged(b, &v->u.items[k], floats);
		}
		buf_addc(b, ']');
		break;
	}
	default:
		buf_adds(b, "{\"none\":null");
	}
	buf_addc(b, '}');
}

static void add_params(struct buf *b, const struct solve_node *n)
{
	buf_addc(b, '{');
	for (int k = 0; k < n->nattrs; k++) {
		if (k)
			buf_addc(b, ',');
		buf_add_json_string(b, n->attrs[k].name);
		buf_addc(b, ':');
		add_tagged(b, &n->attrs[k].v, 0);
	}
	buf_addc(b, '}');
}

static void add_values(struct buf *b, const struct val *l, int dtype)
{
	buf_addc(b, '[');
	for (int k = 0; k < l->n; k++) {
		const struct val *v = &l->u.items[k];

		if (k)
			buf_addc(b, ',');
		if (dtype == DT_BOOL)
			buf_adds(b, (v->kind == VAL_INT ? v->u.i != 0 : v->u.f != 0) ? "true" : "false");
		else if (v->kind == VAL_INT)
			add_int(b, v->u.i);
		else
			json_add_double(b, v->u.f);
	}
	buf_addc(b, ']');
}

/* {"dtype":...,"range":...,"shape":...,"values":...}: a tensor's body in canonical key order. */
static void add_tensor_body(const struct graph_gen *g, struct buf *b, const struct graph_tensor *t, int with_data)
{
	buf_adds(b, "{\"dtype\":\"");
	buf_adds(b, expr_dtype_name(t->t.dtype));
	buf_addc(b, '"');
	if (with_data && t->has_range) {
		buf_adds(b, ",\"range\":[");
		json_add_double(b, t->range[0]);
		buf_addc(b, ',');
		json_add_double(b, t->range[1]);
		buf_addc(b, ']');
	}
	buf_adds(b, ",\"shape\":[");
	for (int k = 0; k < t->t.rank; k++)
		buf_addf(b, k ? ",%lld" : "%lld", (long long)t->t.dims[k]);
	buf_addc(b, ']');
	if (with_data && t->vlen) {
		buf_adds(b, ",\"values\":");
		buf_add(b, g->text.data + t->voff, t->vlen);
	}
	buf_addc(b, '}');
}

static void add_name(struct buf *b, const struct graph_tensor *t)
{
	buf_addf(b, "\"%c%d\"", t->kind == GT_INPUT ? 'x' : t->kind == GT_CONST ? 'c' : 't', t->num);
}

/* --- the graph being built ---------------------------------------------------------------------- */

static int new_tensor(struct graph_gen *g, int kind, const struct gen_tensor *t)
{
	size_t cap = (size_t)g->capt;
	struct graph_tensor *gt;

	g->t = xgrow(g->t, &cap, (size_t)g->nt + 1, sizeof(*g->t));
	g->capt = (int)cap;
	gt = &g->t[g->nt];
	memset(gt, 0, sizeof(*gt));
	gt->kind = kind;
	gt->num = kind == GT_INPUT ? g->ninputs++ : kind == GT_CONST ? g->nconsts++ : g->nouts++;
	gt->t = *t;
	gt->producer = -1;
	return g->nt++;
}

static void push_int(struct graph_gen *g, int v)
{
	XGROW(g->ints, g->capints, g->nints + 1);
	g->ints[g->nints++] = v;
}

static uint64_t vertex_signature(const struct graph_gen *g, const struct solve_node *n, struct buf *tmp)
{
	buf_reset(tmp);
	buf_adds(tmp, n->op);
	add_params(tmp, n);
	for (int k = 0; k < n->nin; k++) {
		const struct gen_tensor *t = &n->in[k].t;

		if (n->in[k].kind == IN_ABSENT) {
			buf_adds(tmp, "|-");
			continue;
		}
		buf_addf(tmp, "|%d:", t->dtype);
		for (int d = 0; d < t->rank; d++)
			buf_addf(tmp, "%lld,", (long long)t->dims[d]);
	}
	(void)g;
	return XXH3_64bits(tmp->data, tmp->len);
}

/* Keep vertex n: its new tensors join the graph (and the pool, but for initializers). Returns
 * whether it brought a new edge signature. */
static int commit(struct graph_gen *g, const struct solve_node *n, const struct graph_op *op)
{
	struct graph_node *gn;
	size_t cap = (size_t)g->capnodes;
	int node = g->nnodes, new_edge = 0;

	g->nodes = xgrow(g->nodes, &cap, (size_t)g->nnodes + 1, sizeof(*g->nodes));
	g->capnodes = (int)cap;
	gn = &g->nodes[g->nnodes++];
	gn->op = op;
	gn->domain = n->b->domain;
	gn->nin = n->nin;
	gn->in_off = g->nints;
	for (int k = 0; k < n->nin; k++) {
		const struct solve_input *in = &n->in[k];
		int id = -1;

		if (in->kind == IN_REUSE) {
			id = in->id;
		} else if (in->kind == IN_GRAPH || in->kind == IN_CONST) {
			id = new_tensor(g, in->kind == IN_GRAPH ? GT_INPUT : GT_CONST, &in->t);
			g->t[id].has_range = in->has_range;
			g->t[id].range[0] = in->range[0];
			g->t[id].range[1] = in->range[1];
			if (in->values) {
				g->t[id].voff = g->text.len;
				add_values(&g->text, in->values, in->t.dtype);
				g->t[id].vlen = g->text.len - g->t[id].voff;
			}
			if (in->kind == IN_GRAPH)
				solve_pool_add(&g->pool, &in->t, id);
		}
		push_int(g, id);
		if (id >= 0) {
			struct graph_tensor *t = &g->t[id];
			char sig[256];

			t->consumers++;
			if (t->kind == GT_OUTPUT) {
				int len = snprintf(sig, sizeof(sig), "%s:%d>%s:%d:%d:%d",
					g->nodes[t->producer].op->name, t->out_index,
						   op->name, k, t->t.dtype, t->t.rank);

				new_edge |= sigs_add(&g->edge_sigs, XXH3_64bits(sig, (size_t)len));
			}
		}
	}
	gn->poff = g->text.len;
	add_params(&g->text, n);
	gn->plen = g->text.len - gn->poff;
	gn->nout = n->nout;
	gn->out_off = g->nints;
	for (int k = 0; k < n->nout; k++) {
		int id = new_tensor(g, GT_OUTPUT, &n->out[k]);

		g->t[id].producer = node;
		g->t[id].out_index = k;
		solve_pool_add(&g->pool, &n->out[k], id);
		push_int(g, id);
	}
	return new_edge;
}

static void reset_graph(struct graph_gen *g)
{
	g->nt = g->nnodes = 0;
	g->nints = 0;
	g->ninputs = g->nconsts = g->nouts = 0;
	buf_reset(&g->text);
	solve_pool_reset(&g->pool);
}

/* --- choosing operators ------------------------------------------------------------------------ */

static int choose_op(struct graph_gen *g)
{
	double total = 0, x;

	if (!g->o.diversity)
		return (int)solve_rng_below(&g->rng, (uint64_t)g->nops);
	/* GenCoG: operators whose recent vertices were new (by vertex or edge signature) weigh more,
	 * so generation moves on from operators whose space it has covered. */
	for (int k = 0; k < g->nops; k++)
		total += 0.05 + g->ops[k].novelty;
	x = solve_rng_double(&g->rng) * total;
	for (int k = 0; k < g->nops; k++) {
		x -= 0.05 + g->ops[k].novelty;
		if (x < 0)
			return k;
	}
	return g->nops - 1;
}

static int op_cmp(const void *a, const void *b)
{
	return strcmp(((const struct graph_op *)a)->name, ((const struct graph_op *)b)->name);
}

int graph_gen_init(struct graph_gen *g, const struct spec_set *s, const char *const *globs, size_t nglobs,
		   const struct graph_opts *o, struct err *e)
{
	int cap = 0;

	memset(g, 0, sizeof(*g));
	g->o = *o;
	for (size_t k = 0; k < s->nblocks; k++) {
		const struct block *b = s->blocks[k];

		if (o->opset < b->opset_lo || o->opset > b->opset_hi)
			continue;
		for (int j = 0; j < b->nops; j++) {
			const char *name = b->ops[j];
			struct graph_op *op = NULL;
			int match = nglobs == 0;

			for (size_t m = 0; m < nglobs && !match; m++)
				match = select_op_matches(globs[m], name);
			if (!match)
				continue;
			for (int q = 0; q < g->nops && !op; q++)
				if (g->ops[q].name == name)
					op = &g->ops[q];
			if (!op) {
				if (g->nops == cap) {
					cap = cap ? 2 * cap : 64;
					g->ops = xrealloc(g->ops, (size_t)cap * sizeof(*g->ops));
				}
				op = &g->ops[g->nops++];
				memset(op, 0, sizeof(*op));
				op->name = name;
				op->novelty = 1;
			}
			op->blocks = xrealloc(op->blocks, (size_t)(op->nblocks + 1) * sizeof(*op->blocks));
			op->blocks[op->nblocks++] = b;
		}
	}
	for (size_t m = 0; m < nglobs; m++) {
		int any = 0;

		for (int q = 0; q < g->nops && !any; q++)
			any = select_op_matches(globs[m], g->ops[q].name);
		if (!any) {
			graph_gen_release(g);
			return err_set(e, EXIT_USAGE,
				"no operator spec matches '%s' at opset %d (ferry generate --list shows "
				       "them)", globs[m], o->opset);
		}
	}
	if (!g->nops) {
		graph_gen_release(g);
		return err_set(e, EXIT_INPUT, "no operator spec holds at opset %d", o->opset);
	}
	/* The order of the specs' files must not decide which operator a draw picks. */
	qsort(g->ops, (size_t)g->nops, sizeof(*g->ops), op_cmp);
	solve_init(&g->sv, &g->o.solve, &g->rng);
	solve_pool_init(&g->pool);
	g->nodes_min = (size_t)-1;
	return 0;
}

void graph_gen_release(struct graph_gen *g)
{
	for (int k = 0; k < g->nops; k++)
		free(g->ops[k].blocks);
	free(g->ops);
	solve_release(&g->sv);
	solve_pool_release(&g->pool);
	free(g->t);
	free(g->nodes);
	free(g->ints);
	buf_release(&g->text);
	free(g->vertex_sigs.slot);
	free(g->edge_sigs.slot);
	strmap_release(&g->bugs);
	memset(g, 0, sizeof(*g));
}

/* --- records ----------------------------------------------------------------------------------- */

static cJSON *source(const struct graph_gen *g, uint64_t index)
{
	cJSON *s = cJSON_CreateObject();

	cJSON_AddStringToObject(s, "suite", "generate");
	cJSON_AddNumberToObject(s, "seed", (double)g->o.seed);
	cJSON_AddNumberToObject(s, "index", (double)index);
	cJSON_AddStringToObject(s, "generator", "ferry generate");
	cJSON_AddNumberToObject(s, "opset", g->o.opset);
	/* A probe of what a frontend supports (graph_probes), drawn from a stream of its own. */
	if (g->probing)
		cJSON_AddBoolToObject(s, "probe", 1);
	return s;
}

static void tensor_value(const struct graph_gen *g, const struct graph_tensor *t, int with_data, struct value *v)
{
	memset(v, 0, sizeof(*v));
	v->type = V_TENSOR;
	v->u.t.dtype = xstrdup(expr_dtype_name(t->t.dtype));
	v->u.t.rank = t->t.rank;
	v->u.t.shape = xcalloc((size_t)(t->t.rank ? t->t.rank : 1), sizeof(int64_t));
	memcpy(v->u.t.shape, t->t.dims, (size_t)t->t.rank * sizeof(int64_t));
	if (with_data && t->has_range) {
		v->u.t.has_range = true;
		v->u.t.range[0] = t->range[0];
		v->u.t.range[1] = t->range[1];
	}
	if (with_data && t->vlen) {
		char *text = xstrndup(g->text.data + t->voff, t->vlen);

		v->u.t.values = cJSON_Parse(text);
		free(text);
	}
}

static struct field *one_field(const char *name, struct value *v)
{
	struct field *f = xcalloc(1, sizeof(*f));

	f->name = xstrdup(name);
	f->value = v;
	return f;
}

static void instance_common(const struct graph_gen *g, struct instance *in, uint64_t index, const char *kind,
			    const char *op, const char *domain)
{
	struct value *opset = xcalloc(1, sizeof(*opset));

	in->library = xstrdup("onnx");
	in->library_version = g->o.library_version ? xstrdup(g->o.library_version) : NULL;
	in->kind = xstrdup(kind);
	opset->type = V_INT;
	opset->u.i = g->o.opset;
	if (domain && *domain) {
		struct value *d = xcalloc(1, sizeof(*d));

		in->op = xasprintf("%s.%s", domain, op);
		d->type = V_STR;
		d->u.s = xstrdup(domain);
		in->context = xcalloc(2, sizeof(*in->context));
		in->context[0].name = xstrdup("domain");
		in->context[0].value = d;
		in->context[1].name = xstrdup("opset");
		in->context[1].value = opset;
		in->ncontext = 2;
	} else {
		in->op = xstrdup(op);
		in->context = one_field("opset", opset);
		in->ncontext = 1;
	}
	in->extra = cJSON_CreateObject();
	cJSON_AddItemToObject(in->extra, "source", source(g, index));
}

/* A graph of one node: an ordinary node record. Its params come from the canonical text through
 * the record reader, which is what a node record's params are. */
static void write_node_record(struct graph_gen *g, uint64_t index, struct buf *line)
{
	const struct graph_node *n = &g->nodes[0];
	struct instance in = INSTANCE_INIT;
	struct buf text = BUF_INIT;
	struct err e = ERR_INIT;
	struct instance parsed;

	instance_common(g, &in, index, "node", n->op->name, n->domain);
	in.ninputs = (size_t)n->nin;
	in.inputs = xcalloc((size_t)(n->nin ? n->nin : 1), sizeof(*in.inputs));
	for (int k = 0; k < n->nin; k++) {
		int id = g->ints[n->in_off + (size_t)k];

		if (id < 0)
			in.inputs[k].type = V_NONE;
		else
			tensor_value(g, &g->t[id], 1, &in.inputs[k]);
	}
	in.noutputs = (size_t)n->nout;
	in.outputs = xcalloc((size_t)n->nout, sizeof(*in.outputs));
	for (int k = 0; k < n->nout; k++)
		tensor_value(g, &g->t[g->ints[n->out_off + (size_t)k]], 0, &in.outputs[k]);
	/* params: through the reader of records, from {"params": <canonical text>}. */
	buf_adds(&text, "{\"library\":\"onnx\",\"op\":\"x\",\"params\":");
	buf_add(&text, g->text.data + n->poff, n->plen);
	buf_addc(&text, '}');
	if (record_parse(&parsed, text.data, text.len, &e) == 0) {
		in.params = parsed.params;
		in.nparams = parsed.nparams;
		parsed.params = NULL;
		parsed.nparams = 0;
		record_release(&parsed);
	}
	record_hash(&in);
	record_write(&in, line);
	record_release(&in);
	buf_release(&text);
	err_release(&e);
}

static int name_cmp(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static void write_graph_record(struct graph_gen *g, uint64_t index, struct buf *line)
{
	struct instance in = INSTANCE_INIT;
	struct buf gt = BUF_INIT;
	const char **ops = xcalloc((size_t)g->nnodes, sizeof(*ops));
	struct value *nodes = xcalloc(1, sizeof(*nodes)), *oplist = xcalloc(1, sizeof(*oplist));
	int nops = 0, first;
	size_t k;

	instance_common(g, &in, index, "graph", "graph", NULL);
	/* params: the operator types, sorted and unique, and the node count (for the ranker). */
	for (int j = 0; j < g->nnodes; j++)
		ops[j] = g->nodes[j].op->name;
	qsort(ops, (size_t)g->nnodes, sizeof(*ops), name_cmp);
	oplist->type = V_LIST;
	oplist->u.seq.items = xcalloc((size_t)g->nnodes, sizeof(struct value));
	for (int j = 0; j < g->nnodes; j++)
		if (!j || strcmp(ops[j], ops[j - 1])) {
			oplist->u.seq.items[nops].type = V_STR;
			oplist->u.seq.items[nops++].u.s = xstrdup(ops[j]);
		}
	oplist->u.seq.n = (size_t)nops;
	nodes->type = V_INT;
	nodes->u.i = g->nnodes;
	in.params = xcalloc(2, sizeof(*in.params));
	in.params[0].name = xstrdup("nodes");
	in.params[0].value = nodes;
	in.params[1].name = xstrdup("ops");
	in.params[1].value = oplist;
	in.nparams = 2;
	/* inputs and outputs of the record: the graph's, in order */
	in.inputs = xcalloc((size_t)(g->ninputs ? g->ninputs : 1), sizeof(*in.inputs));
	in.outputs = xcalloc((size_t)g->nt, sizeof(*in.outputs));
	for (int j = 0; j < g->nt; j++) {
		if (g->t[j].kind == GT_INPUT)
			tensor_value(g, &g->t[j], 1, &in.inputs[in.ninputs++]);
		else if (g->t[j].kind == GT_OUTPUT && !g->t[j].consumers)
			tensor_value(g, &g->t[j], 0, &in.outputs[in.noutputs++]);
	}
	/* The graph member, in canonical form: keys sorted at every level. */
	buf_adds(&gt, "{\"constants\":[");
	first = 1;
	for (int j = 0; j < g->nt; j++)
		if (g->t[j].kind == GT_CONST) {
			if (!first)
				buf_addc(&gt, ',');
			first = 0;
			buf_adds(&gt, "{\"name\":");
			add_name(&gt, &g->t[j]);
			buf_adds(&gt, ",\"tensor\":");
			add_tensor_body(g, &gt, &g->t[j], 1);
			buf_addc(&gt, '}');
		}
	buf_adds(&gt, "],\"inputs\":[");
	first = 1;
	for (int j = 0; j < g->nt; j++)
		if (g->t[j].kind == GT_INPUT) {
			if (!first)
				buf_addc(&gt, ',');
			first = 0;
			add_name(&gt, &g->t[j]);
		}
	buf_adds(&gt, "],\"nodes\":[");
	for (int j = 0; j < g->nnodes; j++) {
		const struct graph_node *n = &g->nodes[j];

		buf_adds(&gt, j ? ",{" : "{");
		if (*n->domain) {
			buf_adds(&gt, "\"domain\":");
			buf_add_json_string(&gt, n->domain);
			buf_addc(&gt, ',');
		}
		buf_adds(&gt, "\"inputs\":[");
		for (int q = 0; q < n->nin; q++) {
			int id = g->ints[n->in_off + (size_t)q];

			if (q)
				buf_addc(&gt, ',');
			if (id < 0)
				buf_adds(&gt, "\"\"");
			else
				add_name(&gt, &g->t[id]);
		}
		buf_adds(&gt, "],\"op\":");
		buf_add_json_string(&gt, n->op->name);
		buf_adds(&gt, ",\"outputs\":[");
		for (int q = 0; q < n->nout; q++) {
			if (q)
				buf_addc(&gt, ',');
			add_name(&gt, &g->t[g->ints[n->out_off + (size_t)q]]);
		}
		buf_adds(&gt, "],\"params\":");
		buf_add(&gt, g->text.data + n->poff, n->plen);
		buf_adds(&gt, ",\"types\":[");
		for (int q = 0; q < n->nout; q++) {
			if (q)
				buf_addc(&gt, ',');
			add_tensor_body(g, &gt, &g->t[g->ints[n->out_off + (size_t)q]], 0);
		}
		buf_adds(&gt, "]}");
	}
	buf_adds(&gt, "],\"outputs\":[");
	first = 1;
	for (k = 0; k < (size_t)g->nt; k++)
		if (g->t[k].kind == GT_OUTPUT && !g->t[k].consumers) {
			if (!first)
				buf_addc(&gt, ',');
			first = 0;
			add_name(&gt, &g->t[k]);
		}
	buf_adds(&gt, "]}");
	in.graph = buf_detach(&gt);
	record_hash(&in);
	record_write(&in, line);
	record_release(&in);
	free(ops);
}

/* --- generation --------------------------------------------------------------------------------- */

/* The type signature of vertex n as oracle/probe.h's probe_signature reads it from the node record:
 * its first output's dtype (else its first input's), then every input's ("-" when absent), into sig. */
static void vertex_types(const struct solve_node *n, struct buf *sig)
{
	int lead = -1;

	if (n->nout)
		lead = n->out[0].dtype;
	for (int k = 0; k < n->nin && lead < 0; k++)
		if (n->in[k].kind != IN_ABSENT)
			lead = n->in[k].t.dtype;
	buf_reset(sig);
	buf_addf(sig, "%s(", lead < 0 ? "-" : expr_dtype_name(lead));
	for (int k = 0; k < n->nin; k++)
		buf_addf(sig, "%s%s", k ? "," : "",
			 n->in[k].kind == IN_ABSENT ? "-" : expr_dtype_name(n->in[k].t.dtype));
	buf_addc(sig, ')');
}

/* Vertex n (of operator op) as the frontend's support names it: its record's operator name (with
 * its domain outside ai.onnx) into name, its type signature into types. */
static void vertex_support_key(const struct solve_node *n, const char *op, struct buf *name, struct buf *types)
{
	const char *domain = n->b->domain;

	buf_reset(name);
	if (domain && *domain)
		buf_addf(name, "%s.", domain);
	buf_adds(name, op);
	vertex_types(n, types);
}

int graph_generate(struct graph_gen *g, uint64_t index, struct buf *line)
{
	struct solve_node n;
	struct buf sig = BUF_INIT, name = BUF_INIT, types = BUF_INIT;
	int target, attempts = 0, limit;

	/* Each graph from its own stream: graph N is the same whatever came before it in the run but
	 * for the diversity state, which is itself a function of the seed. */
	solve_rng_seed(&g->rng, g->o.seed * 0x9e3779b97f4a7c15ULL + index);
	reset_graph(g);
	target = g->o.min_nodes + (int)solve_rng_below(&g->rng, (uint64_t)(g->o.max_nodes - g->o.min_nodes + 1));
	limit = 20 * target + 100;
	while (g->nnodes < target && attempts++ < limit) {
		struct graph_op *op = &g->ops[choose_op(g)];
		const struct block *b = op->blocks[op->nblocks == 1 ? 0 : solve_rng_below(&g->rng,
			(uint64_t)op->nblocks)];
		enum solve_status st = solve_node(&g->sv, b, op->name, &g->pool, &n);
		uint64_t vsig;
		int new_vertex, new_edge;

		if (st == SOLVE_TOO_LARGE) {
			g->drop_large++;
			continue;
		}
		if (st == SOLVE_TOO_DEEP) {
			g->drop_rank++;
			continue;
		}
		if (st == SOLVE_SPEC_BUG) {
			char key[600];

			snprintf(key, sizeof(key), "%s:%d:%d: %s", b->file, n.bug_line, n.bug_col, n.bug);
			strmap_get(&g->bugs, key, NULL)->count++;
			g->drop_bug++;
			continue;
		}
		if (g->o.lacks || g->o.drawn)
			vertex_support_key(&n, op->name, &name, &types);
		if (g->o.lacks && g->o.lacks(g->o.lacks_ctx, name.data, types.data)) {
			g->drop_lacks++;
			op->lacked++;
			continue;
		}
		vsig = vertex_signature(g, &n, &sig);
		if (g->o.p_reject > 0 && sigs_has(&g->vertex_sigs, vsig) && solve_rng_double(&g->rng) < g->o.p_reject) {
			g->rejected++;
			op->novelty *= 0.9;
			continue;
		}
		if (g->o.drawn)
			g->o.drawn(g->o.lacks_ctx, name.data, types.data);
		new_vertex = sigs_add(&g->vertex_sigs, vsig);
		new_edge = commit(g, &n, op);
		op->novelty = 0.9 * op->novelty + 0.1 * (new_vertex || new_edge);
		op->nodes++;
	}
	buf_release(&sig);
	buf_release(&name);
	buf_release(&types);
	if (!g->nnodes)
		return 0;
	if (g->nnodes < target)
		g->short_graphs++;
	if (g->nnodes == 1)
		write_node_record(g, index, line);
	else
		write_graph_record(g, index, line);
	g->graphs++;
	g->nodes_total += (size_t)g->nnodes;
	if ((size_t)g->nnodes < g->nodes_min)
		g->nodes_min = (size_t)g->nnodes;
	if ((size_t)g->nnodes > g->nodes_max)
		g->nodes_max = (size_t)g->nnodes;
	return g->nnodes;
}

/* --- probes ------------------------------------------------------------------------------------- */

/* The input elements of vertex n: a probe is its group's smallest. */
static uint64_t vertex_elements(const struct solve_node *n)
{
	uint64_t total = 0;

	for (int k = 0; k < n->nin; k++) {
		uint64_t e = 1;

		if (n->in[k].kind == IN_ABSENT)
			continue;
		for (int d = 0; d < n->in[k].t.rank; d++)
			e *= (uint64_t)n->in[k].t.dims[d];
		total += e;
	}
	return total;
}

/* The stream of draw `try` of block j of operator k: probes are the same whatever else was drawn. */
static uint64_t probe_stream(const struct graph_gen *g, int k, int j, int try)
{
	return (g->o.seed * 0x9e3779b97f4a7c15ULL) ^ (0xd1b54a32d192ed03ULL * (uint64_t)(k + 1)) ^
	       ((uint64_t)j << 40) ^ (uint64_t)try;
}

struct probe_best {
	uint64_t elements;
	int block, try;
};

size_t graph_probes(struct graph_gen *g, int tries, struct buf *out)
{
	struct strmap best = STRMAP_INIT;
	struct solve_node n;
	struct buf line = BUF_INIT, sig = BUF_INIT;
	size_t written = 0;

	g->probing = 1;
	for (int k = 0; k < g->nops; k++) {
		const struct graph_op *op = &g->ops[k];
		struct strmap_entry **sorted;

		for (int j = 0; j < op->nblocks; j++)
			for (int t = 0; t < tries; t++) {
				struct strmap_entry *ent;
				struct probe_best *b;
				uint64_t el;
				int created;

				solve_rng_seed(&g->rng, probe_stream(g, k, j, t));
				reset_graph(g);
				if (solve_node(&g->sv, op->blocks[j], op->name, &g->pool, &n) != SOLVE_OK)
					continue;
				vertex_types(&n, &sig);
				el = vertex_elements(&n);
				ent = strmap_get(&best, sig.data, &created);
				if (created)
					ent->ptr = xcalloc(1, sizeof(struct probe_best));
				b = ent->ptr;
				if (created || el < b->elements) {
					b->elements = el;
					b->block = j;
					b->try = t;
				}
			}
		/* strmap_sorted orders by count, all 0 here, then by signature. */
		sorted = strmap_sorted(&best);
		for (size_t m = 0; sorted[m]; m++) {
			const struct probe_best *b = sorted[m]->ptr;

			/* Drawn again from its stream: the same vertex, now kept and written. */
			solve_rng_seed(&g->rng, probe_stream(g, k, b->block, b->try));
			reset_graph(g);
			if (solve_node(&g->sv, op->blocks[b->block], op->name, &g->pool, &n) != SOLVE_OK)
				continue;
			commit(g, &n, op);
			buf_reset(&line);
			write_node_record(g, probe_stream(g, k, b->block, b->try) >> 11, &line);
			buf_add(out, line.data, line.len);
			buf_addc(out, '\n');
			written++;
		}
		free(sorted);
		for (size_t m = 0; m < best.cap; m++)
			if (best.slots[m].key)
				free(best.slots[m].ptr);
		strmap_release(&best);
		strmap_init(&best);
	}
	reset_graph(g);
	g->probing = 0;
	buf_release(&line);
	buf_release(&sig);
	return written;
}
