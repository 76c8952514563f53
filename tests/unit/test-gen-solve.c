/* test-gen-solve.c: the solver on small specs with results checked by hand: exact Conv shapes, the
 * Conv of gen/specs against the output-size formula on many seeds, where and ints filters, Python's
 * integer semantics, reuse with picking rate 1 and 0, the diversity option's effect on operator
 * counts, and records whose ids read back the same through lib/record.c. */
#include <stdlib.h>
#include <string.h>

#include "graph.h"
#include "record.h"
#include "solve.h"
#include "spec.h"
#include "tap.h"

static const struct solve_opts opts = { 0.97, 8, 65536, 0 };

static int load(struct spec_set *s, const char *text)
{
	struct err e = ERR_INIT;
	int r;

	spec_init(s);
	r = spec_load_text(s, "t.spec", text, strlen(text), &e);
	if (r < 0)
		diag("%s", e.msg);
	err_release(&e);
	return r;
}

static const struct solve_attr *attr(const struct solve_node *n, const char *name)
{
	for (int k = 0; k < n->nattrs; k++)
		if (!strcmp(n->attrs[k].name, name))
			return &n->attrs[k];
	return NULL;
}

static void exact_conv(void)
{
	static const char text[] =
		"op Conv\nopset 11\n"
		"input X: float32 shape [1, 3, 8, 8]\n"
		"ints kernel_shape len 2 in [3]\n"
		"ints pads len 4 in [1]\n"
		"ints strides len 2 in [2]\n"
		"attr kernel_shape = kernel_shape\nattr pads = pads\nattr strides = strides\n"
		"input W: float32 shape [4, X[1], ...kernel_shape] const\n"
		"output Y: float32 shape [X[0], 4, ...[(X[2 + j] + pads[j] + pads[j + 2] - kernel_shape[j]) / strides[j] + 1 "
		"for j in 0..1]]\n";
	struct spec_set s;
	struct solve_rng rng;
	struct solver sv;
	struct solve_node n;

	ok(load(&s, text) == 0, "an exact Conv spec loads");
	solve_rng_seed(&rng, 1);
	solve_init(&sv, &opts, &rng);
	is_int(solve_node(&sv, s.blocks[0], "Conv", NULL, &n), SOLVE_OK, "... solves");
	/* (8 + 1 + 1 - 3) / 2 + 1 = 4 */
	ok(n.nout == 1 && n.out[0].rank == 4 && n.out[0].dims[0] == 1 && n.out[0].dims[1] == 4
		&& n.out[0].dims[2] == 4 &&
	   n.out[0].dims[3] == 4, "... to Y [1, 4, 4, 4], as by hand");
	ok(n.nin == 2 && n.in[0].kind == IN_GRAPH && n.in[1].kind == IN_CONST && n.in[1].t.dims[0] == 4 &&
	   n.in[1].t.dims[1] == 3 && n.in[1].t.dims[2] == 3,
		"... with X a graph input and W a [4, 3, 3, 3] initializer");
	ok(attr(&n, "pads") && attr(&n, "pads")->v.n == 4, "... and pads of 4 values");
	solve_release(&sv);
	spec_release(&s);
}

/* gen/specs/conv.spec on many seeds: every output dim is the formula of the ONNX spec, computed
 * here from the node's own attributes and input shapes. */
static void conv_formula(void)
{
	struct spec_set s;
	struct err e = ERR_INIT;
	struct solve_rng rng;
	struct solver sv;
	struct solve_node n;
	const struct block *conv = NULL;
	int agree = 0, tried = 0, with_pads = 0;

	spec_init(&s);
	spec_load_file(&s, ABS_TOP_SRCDIR "/gen/specs/conv.spec", &e);
	for (size_t k = 0; k < s.nblocks; k++)
		if (!strcmp(s.blocks[k]->ops[0], "Conv"))
			conv = s.blocks[k];
	ok(conv != NULL, "gen/specs/conv.spec has Conv");
	solve_rng_seed(&rng, 42);
	solve_init(&sv, &opts, &rng);
	for (int t = 0; conv && t < 500; t++) {
		const struct gen_tensor *x, *w, *y;
		const struct solve_attr *ks, *pads, *st, *dl, *ap;
		int nsp, good = 1;

		if (solve_node(&sv, conv, "Conv", NULL, &n) != SOLVE_OK)
			continue;
		tried++;
		x = &n.in[0].t;
		w = &n.in[1].t;
		y = &n.out[0];
		nsp = x->rank - 2;
		ks = attr(&n, "kernel_shape");
		pads = attr(&n, "pads");
		st = attr(&n, "strides");
		dl = attr(&n, "dilations");
		ap = attr(&n, "auto_pad");
		good = y->rank == x->rank && y->dims[0] == x->dims[0] && y->dims[1] == w->dims[0];
		for (int j = 0; j < nsp; j++) {
			int64_t in = x->dims[2 + j], k = ks ? ks->v.u.items[j].u.i : w->dims[2 + j];
			int64_t s1 = st ? st->v.u.items[j].u.i : 1, d = dl ? dl->v.u.items[j].u.i : 1;
			int64_t pb = pads ? pads->v.u.items[j].u.i : 0, pe = pads ? pads->v.u.items[j + nsp].u.i : 0,
				want;

			if (ap && (!strcmp(ap->v.u.s, "SAME_UPPER") || !strcmp(ap->v.u.s, "SAME_LOWER")))
				want = (in + s1 - 1) / s1;
			else
				want = (in + pb + pe - ((k - 1) * d + 1)) / s1 + 1;
			with_pads += pb + pe > 0;
			good = good && y->dims[2 + j] == want && w->dims[2 + j] == k;
		}
		agree += good;
	}
	ok(tried > 400, "Conv solves on most seeds (%d of 500)", tried);
	is_int(agree, tried, "every Conv output shape is the formula's");
	ok(with_pads > 0, "... pads included");
	solve_release(&sv);
	spec_release(&s);
	err_release(&e);
}

static void filters_and_semantics(void)
{
	static const char text[] =
		"op F\nopset 1\n"
		"input X: float32 shape [2]\n"
		"int a in 0..30 where a % 3 == 0 and a > 0\n"
		"ints p len 5 in 0..4 where p[i] not in p[0:i]\n"
		"attr a = a\nattr p = p\n"
		"attr q = -7 / 2\nattr r = -7 % 3\nattr s = [x * 2 for x in 1..4 if x != 2]\nattr t = [1, ...[2, 3], 4][-1]\n"
		"attr u = 2 > 1 ? \"yes\" : \"no\"\nattr v = divisors(12)\nattr w = ceil_div(7, 2)\nattr z = [0] * 3 + [1]\n"
		"output Y: float32 shape X.shape\n";
	struct spec_set s;
	struct solve_rng rng;
	struct solver sv;
	struct solve_node n;
	int good_a = 1, good_p = 1;
	const struct solve_attr *x;

	ok(load(&s, text) == 0, "a spec of filters and expressions loads");
	solve_rng_seed(&rng, 7);
	solve_init(&sv, &opts, &rng);
	for (int t = 0; t < 200; t++) {
		int seen = 0;

		if (solve_node(&sv, s.blocks[0], "F", NULL, &n) != SOLVE_OK) {
			good_a = good_p = 0;
			break;
		}
		x = attr(&n, "a");
		good_a = good_a && x->v.u.i % 3 == 0 && x->v.u.i > 0 && x->v.u.i <= 30;
		x = attr(&n, "p");
		for (int k = 0; k < 5; k++)
			seen |= 1 << x->v.u.items[k].u.i;
		good_p = good_p && seen == 31;
	}
	ok(good_a, "int ... where keeps to the multiples of 3 in 1..30");
	ok(good_p, "ints ... where p[i] not in p[0:i] makes permutations");
	is_int(attr(&n, "q")->v.u.i, -4, "-7 / 2 is floor division");
	is_int(attr(&n, "r")->v.u.i, 2, "-7 %% 3 is floor modulo");
	x = attr(&n, "s");
	ok(x->v.n == 3 && x->v.u.items[0].u.i == 2 && x->v.u.items[1].u.i == 6 && x->v.u.items[2].u.i == 8,
	   "a comprehension with a condition");
	is_int(attr(&n, "t")->v.u.i, 4, "a splice and a negative index");
	is(attr(&n, "u")->v.u.s, "yes", "c ? a : b");
	x = attr(&n, "v");
	ok(x->v.n == 6 && x->v.u.items[0].u.i == 1 && x->v.u.items[2].u.i == 3 && x->v.u.items[5].u.i == 12,
	   "divisors(12) is [1, 2, 3, 4, 6, 12]");
	is_int(attr(&n, "w")->v.u.i, 4, "ceil_div(7, 2)");
	x = attr(&n, "z");
	ok(x->v.n == 4 && x->v.u.items[2].u.i == 0 && x->v.u.items[3].u.i == 1, "list repetition and concatenation");
	solve_release(&sv);
	spec_release(&s);
}

static void reuse(void)
{
	static const char text[] = "op R\nopset 1\ntype T in float32 int64\ninput X: T rank 0..5\noutput Y: T shape X.shape\n";
	struct gen_tensor t = { DT_FLOAT32, 2, 2, { 2, 3 } };
	struct solve_opts o = opts;
	struct spec_set s;
	struct solve_rng rng;
	struct solver sv;
	struct solve_pool pool;
	struct solve_node n;
	int reused[2] = { 0, 0 };

	ok(load(&s, text) == 0, "a spec of one input loads");
	solve_pool_init(&pool);
	solve_pool_add(&pool, &t, 17);
	for (int rate = 0; rate < 2; rate++) {
		o.pick_rate = rate;
		solve_rng_seed(&rng, 3);
		solve_init(&sv, &o, &rng);
		for (int k = 0; k < 100; k++)
			if (solve_node(&sv, s.blocks[0], "R", &pool, &n) == SOLVE_OK && n.in[0].kind == IN_REUSE &&
			    n.in[0].id == 17 && n.out[0].dtype == DT_FLOAT32 && n.out[0].dims[1] == 3)
				reused[rate]++;
		solve_release(&sv);
	}
	is_int(reused[1], 100, "picking rate 1: the fitting tensor is always reused (and binds T)");
	is_int(reused[0], 0, "picking rate 0: never");
	solve_pool_release(&pool);
	spec_release(&s);
}

static const char two_ops[] =
	"op Small\nopset 1\ninput X: float32 shape [1]\noutput Y: float32 shape X.shape\n"
	"op Big\nopset 1\ntype T in float32 float64 int32 int64\ninput X: T rank 0..5\n"
	"int a in 0..1000\nattr a = a\noutput Y: T shape X.shape\n";

static size_t small_nodes(const struct spec_set *s, int diversity, double p_reject)
{
	struct graph_opts o;
	struct graph_gen g;
	struct buf line = BUF_INIT;
	struct err e = ERR_INIT;
	size_t n = 0;

	memset(&o, 0, sizeof(o));
	o.min_nodes = o.max_nodes = 20;
	o.opset = 17;
	o.seed = 9;
	o.diversity = diversity;
	o.p_reject = p_reject;
	o.solve = opts;
	if (graph_gen_init(&g, s, NULL, 0, &o, &e) < 0)
		return 0;
	for (int k = 0; k < 100; k++) {
		buf_reset(&line);
		graph_generate(&g, (uint64_t)k, &line);
	}
	for (int k = 0; k < g.nops; k++)
		if (!strcmp(g.ops[k].name, "Small"))
			n = g.ops[k].nodes;
	graph_gen_release(&g);
	buf_release(&line);
	err_release(&e);
	return n;
}

static void diversity(void)
{
	struct spec_set s;
	size_t uniform, directed, rejecting;

	ok(load(&s, two_ops) == 0, "two operators, one with a single possible vertex");
	uniform = small_nodes(&s, 0, 0);
	directed = small_nodes(&s, 1, 0);
	rejecting = small_nodes(&s, 0, 1);
	ok(uniform > 700 && uniform < 1300, "uniform choice: about half of 2000 nodes are Small (%zu)", uniform);
	ok(directed < uniform / 2, "--diversity: Small, which brings nothing new, is chosen far less (%zu)", directed);
	ok(rejecting < uniform / 4, "--p-reject 1: a vertex seen before is rejected (%zu)", rejecting);
	spec_release(&s);
}

static void records(void)
{
	struct spec_set s;
	struct err e = ERR_INIT;
	struct graph_opts o;
	struct graph_gen g;
	struct buf line = BUF_INIT;
	int same = 0, graphs = 0, nodes = 0;

	spec_init(&s);
	spec_load_dir(&s, ABS_TOP_SRCDIR "/gen/specs", &e);
	memset(&o, 0, sizeof(o));
	o.min_nodes = 1;
	o.max_nodes = 12;
	o.opset = 17;
	o.seed = 5;
	o.solve = opts;
	o.library_version = "1.23.2";
	ok(graph_gen_init(&g, &s, NULL, 0, &o, &e) == 0, "a generator over all specs");
	for (int k = 0; k < 300; k++) {
		struct instance in;
		char id[33];
		int r;

		buf_reset(&line);
		r = graph_generate(&g, (uint64_t)k, &line);
		memcpy(id, line.data + 7, 32);
		id[32] = '\0';
		if (record_parse(&in, line.data, line.len, &e) == 0) {
			same += !strcmp(in.id, id);
			graphs += !strcmp(in.kind, "graph") && r > 1;
			nodes += !strcmp(in.kind, "node") && r == 1;
			record_release(&in);
		} else {
			diag("%s", e.msg);
		}
	}
	is_int(same, 300, "every record reads back through lib/record.c with the id it was written with");
	is_int(graphs + nodes, 300, "graphs of one node are node records, others graph records");
	ok(nodes > 0 && graphs > 0, "... both kinds were made (%d, %d)", nodes, graphs);
	graph_gen_release(&g);
	spec_release(&s);
	buf_release(&line);
	err_release(&e);
}

int main(void)
{
	plan(31);
	exact_conv();
	conv_formula();
	filters_and_semantics();
	reuse();
	diversity();
	records();
	return done();
}
