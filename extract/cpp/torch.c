/* torch.c: libtorch's C++ API tests (test/cpp/api/): what their calls mean (tensors, options
 * builders, modules, functionals) and the records they become (suite "libtorch-cpp"). The parser
 * over their tokens is torch-parse.c. */
#include <cjson/cJSON.h>
#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "torch-int.h"
#include "xalloc.h"

#ifdef HAVE_LIBCLANG

/* libtorch's headers are not there, and its options builders (Conv2dOptions(3, 2, 3).stride(2)) call
 * setters that no header ferry could inject declares: libclang turns such expressions into invalid
 * pieces. So libclang finds the TEST bodies and gives their tokens, and a small parser here reads
 * the statements and expressions from the tokens: declarations, assignments, blocks, range-for loops
 * over literal lists (unrolled), other loops (read once, their variables unknown), ifs whose condition
 * it can tell. Tensors come from the factories (torch::tensor, ones, zeros, full, arange, linspace,
 * randn, rand, empty and their _like forms, with view, reshape and resize_); a module's call or a
 * functional's call is an instance. */

/* A torch.nn module or functional: its C++ name and the names of the Python parameters that its
 * options' constructor arguments stand for, in order (libtorch keeps Python's order). */
struct tname {
	const char *name, *params;
};

static const struct tname tmodules[] = {
	{ "Linear", "in_features out_features" }, { "Bilinear", "in1_features in2_features out_features" },
	{ "Identity", "" }, { "Flatten", "" }, { "Unflatten", "dim unflattened_size" },
	{ "Conv1d", "in_channels out_channels kernel_size" }, { "Conv2d", "in_channels out_channels kernel_size" },
	{ "Conv3d", "in_channels out_channels kernel_size" },
	{ "ConvTranspose1d", "in_channels out_channels kernel_size" },
	{ "ConvTranspose2d", "in_channels out_channels kernel_size" },
	{ "ConvTranspose3d", "in_channels out_channels kernel_size" },
	{ "MaxPool1d", "kernel_size" }, { "MaxPool2d", "kernel_size" }, { "MaxPool3d", "kernel_size" },
	{ "AvgPool1d", "kernel_size" }, { "AvgPool2d", "kernel_size" }, { "AvgPool3d", "kernel_size" },
	{ "MaxUnpool1d", "kernel_size" }, { "MaxUnpool2d", "kernel_size" }, { "MaxUnpool3d", "kernel_size" },
	{ "FractionalMaxPool2d", "kernel_size" }, { "FractionalMaxPool3d", "kernel_size" },
	{ "LPPool1d", "norm_type kernel_size" }, { "LPPool2d", "norm_type kernel_size" },
	{ "LPPool3d", "norm_type kernel_size" },
	{ "AdaptiveMaxPool1d", "output_size" }, { "AdaptiveMaxPool2d", "output_size" },
	{ "AdaptiveMaxPool3d", "output_size" }, { "AdaptiveAvgPool1d", "output_size" },
	{ "AdaptiveAvgPool2d", "output_size" }, { "AdaptiveAvgPool3d", "output_size" },
	{ "Fold", "output_size kernel_size" }, { "Unfold", "kernel_size" },
	{ "Embedding", "num_embeddings embedding_dim" }, { "EmbeddingBag", "num_embeddings embedding_dim" },
	{ "Dropout", "p" }, { "Dropout2d", "p" }, { "Dropout3d", "p" }, { "AlphaDropout", "p" },
	{ "FeatureAlphaDropout", "p" },
	{ "BatchNorm1d", "num_features" }, { "BatchNorm2d", "num_features" }, { "BatchNorm3d", "num_features" },
	{ "InstanceNorm1d", "num_features" }, { "InstanceNorm2d", "num_features" },
	{ "InstanceNorm3d", "num_features" }, { "LayerNorm", "normalized_shape" },
	{ "GroupNorm", "num_groups num_channels" }, { "LocalResponseNorm", "size" }, { "CrossMapLRN2d", "size" },
	{ "ELU", "" }, { "CELU", "" }, { "SELU", "" }, { "GELU", "" }, { "GLU", "dim" }, { "Hardshrink", "" },
	{ "Hardtanh", "" }, { "LeakyReLU", "" }, { "LogSigmoid", "" }, { "PReLU", "" }, { "ReLU", "" },
	{ "ReLU6", "" }, { "RReLU", "" }, { "SiLU", "" }, { "Mish", "" }, { "Sigmoid", "" }, { "Softplus", "" },
	{ "Softshrink", "" }, { "Softsign", "" }, { "Tanh", "" }, { "Tanhshrink", "" },
	{ "Threshold", "threshold value" }, { "Softmax", "dim" }, { "Softmin", "dim" }, { "LogSoftmax", "dim" },
	{ "Softmax2d", "" }, { "MultiheadAttention", "embed_dim num_heads" },
	{ "ReflectionPad1d", "padding" }, { "ReflectionPad2d", "padding" }, { "ReflectionPad3d", "padding" },
	{ "ReplicationPad1d", "padding" }, { "ReplicationPad2d", "padding" }, { "ReplicationPad3d", "padding" },
	{ "ZeroPad1d", "padding" }, { "ZeroPad2d", "padding" }, { "ZeroPad3d", "padding" },
	{ "ConstantPad1d", "padding value" }, { "ConstantPad2d", "padding value" },
	{ "ConstantPad3d", "padding value" },
	{ "PixelShuffle", "upscale_factor" }, { "PixelUnshuffle", "downscale_factor" }, { "Upsample", "" },
	{ "CosineSimilarity", "" }, { "PairwiseDistance", "" },
	{ "RNN", "input_size hidden_size" }, { "LSTM", "input_size hidden_size" }, { "GRU", "input_size hidden_size" },
	{ "RNNCell", "input_size hidden_size" }, { "LSTMCell", "input_size hidden_size" },
	{ "GRUCell", "input_size hidden_size" },
	{ "TransformerEncoderLayer", "d_model nhead" }, { "TransformerDecoderLayer", "d_model nhead" },
	/* losses: an options constructor argument is the reduction */
	{ "L1Loss", "reduction" }, { "MSELoss", "reduction" }, { "BCELoss", "reduction" },
	{ "BCEWithLogitsLoss", "reduction" }, { "CrossEntropyLoss", "reduction" }, { "NLLLoss", "reduction" },
	{ "KLDivLoss", "reduction" }, { "HuberLoss", "reduction" }, { "SmoothL1Loss", "reduction" },
	{ "SoftMarginLoss", "reduction" }, { "MultiLabelMarginLoss", "reduction" },
	{ "MultiLabelSoftMarginLoss", "reduction" }, { "MultiMarginLoss", "reduction" },
	{ "HingeEmbeddingLoss", "reduction" }, { "CosineEmbeddingLoss", "reduction" },
	{ "MarginRankingLoss", "reduction" }, { "TripletMarginLoss", "reduction" },
	{ "PoissonNLLLoss", "reduction" }, { "GaussianNLLLoss", "reduction" }, { "CTCLoss", "reduction" },
};

/* libtorch's modules with no torch.nn counterpart: containers, and the modules of its first API. */
static const char *const tcpp_only[] = {
	"BatchNorm", "FeatureDropout", "Functional", "Sequential", "ModuleList", "ModuleDict", "ParameterList",
	"ParameterDict", "SimpleContainer", "AnyModule",
};

/* functionals whose options' constructor takes arguments: the Python parameters they stand for */
static const struct tname tfunctionals[] = {
	{ "max_pool1d", "kernel_size" }, { "max_pool2d", "kernel_size" }, { "max_pool3d", "kernel_size" },
	{ "avg_pool1d", "kernel_size" }, { "avg_pool2d", "kernel_size" }, { "avg_pool3d", "kernel_size" },
	{ "max_unpool1d", "kernel_size" }, { "max_unpool2d", "kernel_size" }, { "max_unpool3d", "kernel_size" },
	{ "fractional_max_pool2d", "kernel_size" }, { "fractional_max_pool3d", "kernel_size" },
	{ "lp_pool1d", "norm_type kernel_size" }, { "lp_pool2d", "norm_type kernel_size" },
	{ "lp_pool3d", "norm_type kernel_size" },
	{ "adaptive_max_pool1d", "output_size" }, { "adaptive_max_pool2d", "output_size" },
	{ "adaptive_max_pool3d", "output_size" }, { "adaptive_avg_pool1d", "output_size" },
	{ "adaptive_avg_pool2d", "output_size" }, { "adaptive_avg_pool3d", "output_size" },
	{ "fold", "output_size kernel_size" }, { "unfold", "kernel_size" },
	{ "softmax", "dim" }, { "softmin", "dim" }, { "log_softmax", "dim" }, { "glu", "dim" },
	{ "pad", "pad" }, { "threshold", "threshold value" }, { "pixel_shuffle", "upscale_factor" },
	{ "pixel_unshuffle", "downscale_factor" }, { "local_response_norm", "size" },
	{ "layer_norm", "normalized_shape" }, { "group_norm", "num_groups" }, { "pairwise_distance", "p" },
	{ "l1_loss", "reduction" }, { "mse_loss", "reduction" }, { "binary_cross_entropy", "reduction" },
	{ "binary_cross_entropy_with_logits", "reduction" }, { "cross_entropy", "reduction" },
	{ "nll_loss", "reduction" }, { "kl_div", "reduction" }, { "huber_loss", "reduction" },
	{ "smooth_l1_loss", "reduction" }, { "soft_margin_loss", "reduction" },
	{ "multilabel_margin_loss", "reduction" }, { "multilabel_soft_margin_loss", "reduction" },
	{ "multi_margin_loss", "reduction" }, { "hinge_embedding_loss", "reduction" },
	{ "cosine_embedding_loss", "reduction" }, { "margin_ranking_loss", "reduction" },
	{ "triplet_margin_loss", "reduction" }, { "poisson_nll_loss", "reduction" },
	{ "gaussian_nll_loss", "reduction" }, { "ctc_loss", "reduction" },
};

/* Options whose C++ name is not Python's keyword; and those with none. */
static const char *const trenamed[][2] = { { "lambda", "lambd" }, { "with_bias", "bias" } };
static const char *const tunmapped[] = { "stateful", "transposed", "input_channels", "output_channels" };

static const struct { const char *k, *dtype; } tdtypes[] = {
	{ "kFloat", "float32" }, { "kFloat32", "float32" }, { "kDouble", "float64" }, { "kFloat64", "float64" },
	{ "kHalf", "float16" }, { "kFloat16", "float16" }, { "kBFloat16", "bfloat16" }, { "kLong", "int64" },
	{ "kInt64", "int64" }, { "kInt", "int32" }, { "kInt32", "int32" }, { "kShort", "int16" },
	{ "kInt16", "int16" }, { "kChar", "int8" }, { "kInt8", "int8" }, { "kByte", "uint8" }, { "kUInt8", "uint8" },
	{ "kBool", "bool" },
};

static const char *tdtype_of(const char *sym)
{
	for (size_t i = 0; sym && i < sizeof(tdtypes) / sizeof(tdtypes[0]); i++)
		if (!strcmp(sym, tdtypes[i].k))
			return tdtypes[i].dtype;
	return NULL;
}

static const struct tname *tname_find(const struct tname *v, size_t n, const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(v[i].name, name))
			return &v[i];
	return NULL;
}

/* The k-th word of a table's parameter names, in the arena; NULL past the last. */
static const char *tparam_name(struct run *r, const char *params, size_t k)
{
	const char *p = params;

	for (;;) {
		size_t len;

		p += strspn(p, " ");
		if (!*p)
			return NULL;
		len = strcspn(p, " ");
		if (!k--)
			return cpp_arena_strndup(&r->arena, p, len);
		p += len;
	}
}

struct cval cpp_tx_sym(const char *s)
{
	struct cval v;

	memset(&v, 0, sizeof(v));
	v.kind = CV_SYM;
	v.s = s;
	return v;
}

static struct cval tx_tensor_val(struct run *r, const char *dtype, struct cval shape, struct cval values)
{
	struct cval v;

	memset(&v, 0, sizeof(v));
	v.kind = CV_TENSOR;
	v.tt = cpp_arena_alloc(&r->arena, sizeof(*v.tt));
	v.tt->dtype = dtype;
	v.tt->shape = shape;
	v.tt->values = values;
	return v;
}

static long long tx_numel(const struct cval *shape)
{
	long long n = 1;

	if (shape->kind != CV_LIST)
		return -1;
	for (size_t i = 0; i < shape->n; i++) {
		if (shape->items[i].kind != CV_NUM || shape->items[i].is_float || shape->items[i].i < 0)
			return -1;
		n *= shape->items[i].i;
		if (n > MAX_FILL)
			return -1;
	}
	return n;
}

/* A shape argument: a list of sizes, or one size (torch::ones(5)). */
static struct cval tx_shape(struct run *r, struct cval v)
{
	if (v.kind == CV_NUM && !v.is_float) {
		struct cval l = cpp_list_of(r, 1);

		l.items[0] = v;
		return l;
	}
	return v;
}

/* A nested literal list, flattened into *flat with its shape in *shape; 0, or -1 when ragged. */
static int tx_flatten(struct run *r, const struct cval *v, int depth, struct cval *shape, struct buf *flat)
{
	if (v->kind != CV_LIST) {
		if (depth != (int)shape->n)
			return -1;
		buf_add(flat, v, sizeof(*v));
		return 0;
	}
	if (depth == (int)shape->n) {
		struct cval l = cpp_list_of(r, shape->n + 1);

		if (shape->n)
			memcpy(l.items, shape->items, shape->n * sizeof(*l.items));
		l.items[shape->n] = num_int((long long)v->n);
		*shape = l;
	} else if (depth > (int)shape->n || shape->items[depth].i != (long long)v->n) {
		return -1;
	}
	for (size_t i = 0; i < v->n; i++)
		if (tx_flatten(r, &v->items[i], depth + 1, shape, flat) < 0)
			return -1;
	return 0;
}

/* The dtype the options arguments name (torch::kFloat, torch::dtype(torch::kLong), TensorOptions()
 * .dtype(...)), or dflt. */
static const char *tx_dtype_arg(const struct cval *args, size_t n, size_t from, const char *dflt)
{
	for (size_t i = from; i < n; i++)
		if ((args[i].kind == CV_SYM || args[i].kind == CV_TOPTS) && tdtype_of(args[i].s))
			return tdtype_of(args[i].s);
	return dflt;
}

static struct cval tx_fill(struct run *r, struct cval shape, struct cval x)
{
	long long n = tx_numel(&shape);
	struct cval l;

	if (n < 0 || n > MAX_ITER)
		return unknown("a tensor too large to write out");
	l = cpp_list_of(r, (size_t)n);
	for (long long i = 0; i < n; i++)
		l.items[i] = x;
	return l;
}

/* torch::tensor(literal, options): the literal's shape and values, its dtype as libtorch infers it
 * (floating literals the default dtype, integers int64, bools bool) unless the options name one. */
static struct cval tx_tensor_literal(struct run *r, struct cval *a, size_t n)
{
	struct cval shape;
	const char *dtype;
	struct buf flat = BUF_INIT;
	struct cval l;
	const struct cval *u;
	int fl = 0, all_bool = 1;

	if (!n)
		return unknown("a tensor computed at run time");
	if ((u = cpp_first_unknown(&a[0])))
		return *u;
	memset(&shape, 0, sizeof(shape));
	shape = cpp_list_of(r, 0);
	if (tx_flatten(r, &a[0], 0, &shape, &flat) < 0) {
		buf_release(&flat);
		return unknown("a ragged tensor literal");
	}
	l = cpp_list_of(r, flat.len / sizeof(struct cval));
	if (l.n)
		memcpy(l.items, flat.data, flat.len);
	buf_release(&flat);
	for (size_t i = 0; i < l.n; i++) {
		if (!is_number(&l.items[i]))
			return unknown("a tensor literal of values that are not numbers");
		fl |= l.items[i].is_float;
		all_bool &= l.items[i].kind == CV_BOOL;
	}
	/* libtorch's inference: floating literals the default dtype, integers int64, bools bool */
	dtype = tx_dtype_arg(a, n, 1, fl ? "float32" : all_bool && l.n ? "bool" : "int64");
	for (size_t i = 0; i < l.n; i++)
		l.items[i] = cpp_cast_to(l.items[i], !strcmp(dtype, "bool") ? "bool" :
					 !strncmp(dtype, "float", 5) || !strcmp(dtype, "bfloat16") ? "float" :
					 "int");
	return tx_tensor_val(r, dtype, shape, l);
}

/* torch::arange(end), arange(start, end, step) and linspace(start, end, steps): their values. */
static struct cval tx_range(struct run *r, const char *base, struct cval *a, size_t n)
{
	struct cval shape, values;
	const char *dtype;
	double lo = 0, hi, step = 1;
	size_t nn = 0;
	int fl = 0;

	while (nn < n && a[nn].kind == CV_NUM)
		fl |= a[nn++].is_float;
	if (!nn)
		return unknown("a tensor computed at run time");
	dtype = tx_dtype_arg(a, n, nn, fl || base[0] == 'l' ? "float32" : "int64");
	if (base[0] == 'l') {
		long long cnt = nn >= 3 ? a[2].i : -1;

		if (nn < 3 || cnt < 0 || cnt > MAX_ITER)
			return unknown("a tensor too large to write out");
		values = cpp_list_of(r, (size_t)cnt);
		for (long long i = 0; i < cnt; i++)
			values.items[i] = num_float(cnt > 1 ? a[0].d + (a[1].d - a[0].d) * (double)i /
						    (double)(cnt - 1) : a[0].d);
	} else {
		long long cnt;

		hi = a[nn > 1 ? 1 : 0].d;
		if (nn > 1)
			lo = a[0].d;
		if (nn > 2)
			step = a[2].d;
		if (step == 0 || (cnt = (long long)ceil((hi - lo) / step)) < 0 || cnt > MAX_ITER)
			return unknown("a tensor too large to write out");
		values = cpp_list_of(r, (size_t)cnt);
		for (long long i = 0; i < cnt; i++)
			values.items[i] = num_float(lo + step * (double)i);
	}
	for (size_t i = 0; i < values.n; i++)
		values.items[i] = cpp_cast_to(values.items[i], strncmp(dtype, "float", 5) ? "int" : "float");
	shape = cpp_list_of(r, 1);
	shape.items[0] = num_int((long long)values.n);
	return tx_tensor_val(r, dtype, shape, values);
}

/* torch::tensor, ones, zeros, full, arange, linspace, randn, rand, empty and the _like forms. */
static struct cval tx_factory(struct tp *p, const char *base, struct cval *a, size_t n)
{
	struct run *r = p->r;
	const char *like = strstr(base, "_like");
	struct cval shape, values;
	const char *dtype = "float32", *elem;

	for (size_t i = 0; i < n; i++)
		if (a[i].kind == CV_UNKNOWN && strcmp(base, "tensor"))
			return a[i];
	if (like) {
		if (!n || a[0].kind != CV_TENSOR)
			return n ? (a[0].kind == CV_UNKNOWN ? a[0] : unknown("a tensor computed at run time")) :
			       unknown("a tensor computed at run time");
		shape = a[0].tt->shape;
		dtype = tx_dtype_arg(a, n, 1, a[0].tt->dtype);
		base = cpp_arena_strndup(&r->arena, base, (size_t)(like - base));
		if (!strcmp(base, "full"))
			return tx_tensor_val(r, dtype, shape, n > 1 ? tx_fill(r, shape, cpp_cast_to(a[1], dtype)) :
					     unknown("a missing argument"));
	} else if (!strcmp(base, "tensor")) {
		return tx_tensor_literal(r, a, n);
	} else if (!strcmp(base, "arange") || !strcmp(base, "linspace")) {
		return tx_range(r, base, a, n);
	} else {
		if (!n)
			return unknown("a tensor computed at run time");
		shape = tx_shape(r, a[0]);
		dtype = tx_dtype_arg(a, n, 1, "float32");
	}
	if (cpp_first_unknown(&shape))
		return *cpp_first_unknown(&shape);
	if (tx_numel(&shape) < 0)
		return unknown("a shape that is not a list of sizes");
	elem = strncmp(dtype, "float", 5) && strcmp(dtype, "bfloat16") ? "int" : "float";
	if (!strcmp(base, "ones") || !strcmp(base, "zeros"))
		values = tx_fill(r, shape, cpp_cast_to(num_int(base[0] == 'o'), elem));
	else if (!strcmp(base, "full"))
		values = n > 1 && is_number(&a[1]) ? tx_fill(r, shape, cpp_cast_to(a[1], elem)) :
			 unknown("a fill value computed at run time");
	else if (!strcmp(base, "empty"))
		values = unknown("an uninitialised tensor (torch::empty)");
	else
		values = unknown("random data");
	return tx_tensor_val(r, dtype, shape, values);
}

static struct cval tx_opts_new(struct run *r, const char *name, struct cval *a, size_t n)
{
	struct cval v;

	memset(&v, 0, sizeof(v));
	v.kind = CV_OPTS;
	v.to = cpp_arena_alloc(&r->arena, sizeof(*v.to));
	v.to->name = name;
	v.to->args = a;
	v.to->nargs = n;
	return v;
}

/* An options builder with one more setter: a new builder (the first may be used again). */
static struct cval tx_opts_set(struct run *r, struct cval o, const char *name, struct cval x)
{
	struct topts *t = cpp_arena_alloc(&r->arena, sizeof(*t));

	*t = *o.to;
	t->snames = cpp_arena_alloc(&r->arena, (t->ns + 1) * sizeof(*t->snames));
	t->svals = cpp_arena_alloc(&r->arena, (t->ns + 1) * sizeof(*t->svals));
	if (t->ns) {
		memcpy(t->snames, o.to->snames, t->ns * sizeof(*t->snames));
		memcpy(t->svals, o.to->svals, t->ns * sizeof(*t->svals));
	}
	t->snames[t->ns] = name;
	t->svals[t->ns++] = x;
	o.to = t;
	return o;
}

/* The Python keyword arguments of an options builder: its constructor's arguments named by params
 * (a table's), then its setters under their Python names. 0, or -1 with *why. */
static int tx_kwargs(struct run *r, const struct topts *o, const char *params, const char ***names,
		     struct cval **vals, size_t *n, const char **why)
{
	size_t cap = o->nargs + o->ns + 1, m = 0;

	*names = cpp_arena_alloc(&r->arena, cap * sizeof(**names));
	*vals = cpp_arena_alloc(&r->arena, cap * sizeof(**vals));
	for (size_t i = 0; i < o->nargs; i++) {
		const char *pn = params ? tparam_name(r, params, i) : NULL;

		if (!pn) {
			*why = "an options constructor argument the harvester cannot name";
			return -1;
		}
		(*names)[m] = pn;
		(*vals)[m++] = o->args[i];
	}
	for (size_t i = 0; i < o->ns; i++) {
		const char *pn = o->snames[i];

		for (size_t j = 0; j < sizeof(tunmapped) / sizeof(tunmapped[0]); j++)
			if (!strcmp(pn, tunmapped[j])) {
				*why = "an option with no counterpart in Python (stateful, transposed)";
				return -1;
			}
		for (size_t j = 0; j < sizeof(trenamed) / sizeof(trenamed[0]); j++)
			if (!strcmp(pn, trenamed[j][0]))
				pn = trenamed[j][1];
		/* a setter given twice: the last one counts */
		for (size_t j = 0; j < m; j++)
			if (!strcmp((*names)[j], pn)) {
				memmove(*names + j, *names + j + 1, (m - j - 1) * sizeof(**names));
				memmove(*vals + j, *vals + j + 1, (m - j - 1) * sizeof(**vals));
				m--;
				break;
			}
		(*names)[m] = pn;
		(*vals)[m++] = o->svals[i];
	}
	*n = m;
	return 0;
}

static int tx_cpp_only(const char *name)
{
	for (size_t i = 0; i < sizeof(tcpp_only) / sizeof(tcpp_only[0]); i++)
		if (!strcmp(name, tcpp_only[i]))
			return 1;
	return 0;
}

/* Whether name is a module's: torch.nn's, or libtorch's own. */
int cpp_tx_is_module(const char *name)
{
	return tname_find(tmodules, sizeof(tmodules) / sizeof(tmodules[0]), name) || tx_cpp_only(name);
}

/* torch::nn::X(args): a module, its Python constructor's keyword arguments from its options. */
static struct cval tx_module(struct tp *p, const char *name, struct cval *a, size_t n)
{
	struct run *r = p->r;
	const struct tname *tn = tname_find(tmodules, sizeof(tmodules) / sizeof(tmodules[0]), name);
	struct tmod *m = cpp_arena_alloc(&r->arena, sizeof(*m));
	struct cval v;

	count(r, "module constructions read", 1);
	m->cname = name;
	m->training = 1;
	m->next = p->mods;
	p->mods = m;
	if (!tn) {
		m->why = "a C++ module with no torch.nn counterpart (a container, BatchNorm, FeatureDropout)";
	} else {
		struct topts o;
		char *op = xasprintf("torch.nn.%s", name);

		m->op = cpp_arena_strdup(&r->arena, op);
		free(op);
		if (n == 1 && a[0].kind == CV_OPTS) {
			o = *a[0].to;
		} else {
			memset(&o, 0, sizeof(o));
			o.args = a;
			o.nargs = n;
		}
		if (tx_kwargs(r, &o, tn->params, &m->pnames, &m->pvals, &m->np, &m->why) < 0)
			m->pnames = NULL;
	}
	memset(&v, 0, sizeof(v));
	v.kind = CV_MODULE;
	v.tm = m;
	return v;
}

/* A value in the record's tagged form, or NULL with *why. */
static cJSON *tx_json(const struct cval *v, const char **why)
{
	cJSON *o = cJSON_CreateObject();

	switch (v->kind) {
	case CV_NUM:
		if (v->is_float)
			cJSON_AddItemToObject(o, "float", cpp_json_number(v, 1));
		else
			cJSON_AddItemToObject(o, "int", cpp_json_number(v, 0));
		return o;
	case CV_BOOL:
		cJSON_AddBoolToObject(o, "bool", v->i != 0);
		return o;
	case CV_STR:
		cJSON_AddStringToObject(o, "str", v->s);
		return o;
	case CV_SYM: {
		char low[64];
		size_t k = 0;

		if (tdtype_of(v->s)) {
			cJSON_AddStringToObject(o, "dtype", tdtype_of(v->s));
			return o;
		}
		if (!strcmp(v->s, "nullopt") || !strcmp(v->s, "None")) {
			cJSON_AddNullToObject(o, "none");
			return o;
		}
		if (v->s[0] != 'k' || !isupper((unsigned char)v->s[1]) || strlen(v->s) >= sizeof(low))
			break;
		/* torch::kNearestExact is the string "nearest-exact", torch::kMean "mean" */
		for (const char *s = v->s + 1; *s; s++) {
			if (isupper((unsigned char)*s) && s > v->s + 1 && islower((unsigned char)s[-1]))
				low[k++] = strcmp(v->s, "kNearestExact") ? '_' : '-';
			low[k++] = (char)tolower((unsigned char)*s);
		}
		low[k] = 0;
		cJSON_AddStringToObject(o, "str", low);
		return o;
	}
	case CV_LIST: {
		/* a C++ IntArrayRef, ExpandingArray or vector is a Python tuple: what torch.nn's options
		 * take (Upsample's scale_factor takes nothing else) */
		cJSON *l = cJSON_AddArrayToObject(o, "tuple");

		for (size_t i = 0; i < v->n; i++) {
			cJSON *x = tx_json(&v->items[i], why);

			if (!x) {
				cJSON_Delete(o);
				return NULL;
			}
			cJSON_AddItemToArray(l, x);
		}
		return o;
	}
	case CV_TENSOR: {
		cJSON *t = cJSON_AddObjectToObject(o, "tensor"), *sh;
		const struct cval *u;
		long long cnt = tx_numel(&v->tt->shape);
		int fl = !strncmp(v->tt->dtype, "float", 5) || !strcmp(v->tt->dtype, "bfloat16");

		if ((u = cpp_first_unknown(&v->tt->shape)) || cnt < 0) {
			*why = u ? u->s : "a shape that is not a list of sizes";
			break;
		}
		cJSON_AddStringToObject(t, "dtype", v->tt->dtype);
		sh = cJSON_AddArrayToObject(t, "shape");
		for (size_t i = 0; i < v->tt->shape.n; i++)
			cJSON_AddItemToArray(sh, cJSON_CreateNumber((double)v->tt->shape.items[i].i));
		if (v->tt->values.kind == CV_LIST && (long long)v->tt->values.n == cnt) {
			cJSON *vals = cJSON_AddArrayToObject(t, "values");

			for (size_t i = 0; i < v->tt->values.n; i++)
				cJSON_AddItemToArray(vals, !strcmp(v->tt->dtype, "bool") ?
						     cJSON_CreateBool(v->tt->values.items[i].d != 0) :
						     cpp_json_number(&v->tt->values.items[i], fl));
		} else if (!fl) {
			/* integer and boolean inputs are indices, targets, masks: their values matter */
			*why = v->tt->values.kind == CV_UNKNOWN ? v->tt->values.s : "values that are not a list";
			break;
		}
		return o;
	}
	case CV_UNKNOWN:
		*why = v->s;
		cJSON_Delete(o);
		return NULL;
	default:
		break;
	}
	if (!*why)
		*why = v->kind == CV_MODULE ? "a module passed as an argument" :
		       v->kind == CV_CLOSURE ? "a function passed as an argument" :
		       "an argument of a kind the harvester does not map";
	cJSON_Delete(o);
	return NULL;
}

/* One instance: a module's call or a functional's. */
static void tx_instance(struct tp *p, const char *kind_, const char *op, const char **pnames,
			const struct cval *pvals, size_t np, const struct cval *in, size_t nin,
			const struct tmod *m, unsigned line, const char *why)
{
	struct run *r = p->r;
	cJSON *rec = NULL, *params, *inputs, *src, *ctx;
	char *text = NULL;

	count(r, "calls reached", 1);
	if (p->failing)
		why = "an expected failure (ASSERT_THROWS_WITH)";
	if (r->loop && !why)
		count(r, "calls in loops the harvester does not unroll", 1);
	if (why)
		goto drop;
	rec = cJSON_CreateObject();
	cJSON_AddStringToObject(rec, "library", "torch");
	if (r->version)
		cJSON_AddStringToObject(rec, "library_version", r->version);
	cJSON_AddStringToObject(rec, "op", op);
	cJSON_AddStringToObject(rec, "kind", kind_);
	ctx = cJSON_AddObjectToObject(rec, "context");
	if (m) {
		cJSON_AddBoolToObject(cJSON_AddObjectToObject(ctx, "training"), "bool", m->training);
		if (m->dtype)
			cJSON_AddStringToObject(cJSON_AddObjectToObject(ctx, "dtype"), "dtype", m->dtype);
	}
	params = cJSON_AddObjectToObject(rec, "params");
	for (size_t i = 0; i < np; i++) {
		cJSON *x = tx_json(&pvals[i], &why);

		if (!x)
			goto drop;
		cJSON_AddItemToObject(params, pnames[i], x);
	}
	inputs = cJSON_AddArrayToObject(rec, "inputs");
	for (size_t i = 0; i < nin; i++) {
		cJSON *x = tx_json(&in[i], &why);

		if (!x)
			goto drop;
		cJSON_AddItemToArray(inputs, x);
	}
	cJSON_AddArrayToObject(rec, "outputs");
	src = cJSON_AddObjectToObject(rec, "source");
	cJSON_AddStringToObject(src, "suite", "libtorch-cpp");
	cJSON_AddStringToObject(src, "test", r->test);
	cJSON_AddStringToObject(src, "file", r->file);
	cJSON_AddNumberToObject(src, "line", r->test_line);
	cJSON_AddNumberToObject(src, "call_line", line);
	if (r->commit)
		cJSON_AddStringToObject(src, "commit", r->commit);
	if (!(text = cJSON_PrintUnformatted(rec))) {
		err_set(r->e, EXIT_ENV, "cannot print a record");
		r->failed = 1;
	} else if (r->o->emit(r->o->ctx, text, strlen(text), r->e) < 0) {
		r->failed = 1;
	}
	goto out;
drop:
	not_recorded(r, why);
out:
	free(text);
	cJSON_Delete(rec);
}

void cpp_tx_module_call(struct tp *p, struct tmod *m, const struct cval *a, size_t n, unsigned line)
{
	m->called = 1;
	tx_instance(p, "module", m->op, m->pnames, m->pvals, m->np, a, n, m, line, m->why);
}

/* F::x(tensors..., F::XFuncOptions()...): the functional torch.nn.functional.x, its positional
 * arguments the inputs, its options the keyword arguments. */
static void tx_functional(struct tp *p, const char *name, struct cval *a, size_t n, unsigned line)
{
	struct run *r = p->r;
	const struct tname *tn = tname_find(tfunctionals, sizeof(tfunctionals) / sizeof(tfunctionals[0]), name);
	const char **pnames = NULL, *why = NULL;
	struct cval *pvals = NULL;
	size_t np = 0, nin = n;
	char *op = xasprintf("torch.nn.functional.%s", name);

	count(r, "functional calls read", 1);
	for (size_t i = 0; i < n; i++)
		if (a[i].kind == CV_OPTS) {
			if (i + 1 < n)
				why = "a positional argument after the options, which the harvester cannot name";
			else if (tx_kwargs(r, a[i].to, tn ? tn->params : NULL, &pnames, &pvals, &np, &why) < 0)
				np = 0;
			nin = i;
			break;
		}
	tx_instance(p, "function", cpp_arena_strdup(&r->arena, op), pnames, pvals, np, a, nin, NULL, line, why);
	free(op);
}

static int tx_throws(const char *name)
{
	return strstr(name, "THROW") != NULL;
}
/* A call of a name: tensors, options, modules, functionals, lists; what else a test calls is a value
 * computed at run time. */
struct cval cpp_tx_call(struct tp *p, const char *ns, const char *base, const char *targs, unsigned line)
{
	struct run *r = p->r;
	int fn = !strcmp(ns, "F") || cpp_has_suffix(ns, "functional");
	int throws = tx_throws(base);
	struct cval *a, v;
	size_t n;

	p->failing += throws;
	a = cpp_tx_args(p, &n);
	p->failing -= throws;
	if (fn && !cpp_has_suffix(base, "Options")) {
		tx_functional(p, base, a, n, line);
		return unknown("the result of a functional");
	}
	if (cpp_has_suffix(base, "Options") && strcmp(base, "TensorOptions")) {
		size_t len = strlen(base) - (cpp_has_suffix(base, "FuncOptions") ? 11 : 7);

		return tx_opts_new(r, cpp_arena_strndup(&r->arena, base, len), a, n);
	}
	if ((!strcmp(ns, "torch") || !strcmp(ns, "at")) &&
	    (!strcmp(base, "tensor") || !strcmp(base, "ones") || !strcmp(base, "zeros") || !strcmp(base, "full") ||
	     !strcmp(base, "empty") || !strcmp(base, "randn") || !strcmp(base, "rand") || !strcmp(base, "arange") ||
	     !strcmp(base, "linspace") || cpp_has_suffix(base, "_like")))
		return tx_factory(p, base, a, n);
	if (!strcmp(base, "TensorOptions") || !strcmp(base, "dtype") || !strcmp(base, "requires_grad") ||
	    !strcmp(base, "device")) {
		memset(&v, 0, sizeof(v));
		v.kind = CV_TOPTS;
		v.s = !strcmp(base, "dtype") && n && a[0].kind == CV_SYM ? a[0].s : "";
		return v;
	}
	if ((!*ns || !strcmp(ns, "torch::nn") || !strcmp(ns, "nn")) && cpp_tx_is_module(base))
		return tx_module(p, base, a, n);
	if (!strcmp(base, "IntArrayRef") || !strcmp(base, "ArrayRef") || !strcmp(base, "vector") ||
	    !strcmp(base, "ExpandingArray") || !strcmp(base, "initializer_list") || !strcmp(base, "array")) {
		if (n == 1 && a[0].kind == CV_LIST)
			return a[0];
		if (!n)
			return cpp_list_of(r, 0);
		if (n == 2 && !strcmp(base, "vector"))
			return tx_fill(r, tx_shape(r, a[0]), a[1]);
		if (!strcmp(base, "ExpandingArray") || !strcmp(base, "IntArrayRef"))
			return n == 1 ? a[0] : unknown("a value computed by a call");
		v = cpp_list_of(r, n);
		memcpy(v.items, a, n * sizeof(*a));
		return v;
	}
	if ((!strcmp(base, "static_cast") || !strcmp(base, "int64_t") || !strcmp(base, "double") ||
	     !strcmp(base, "float") || !strcmp(base, "int")) && n == 1)
		return cpp_cast_to(a[0], targs && *targs ? targs : base);
	if (!strcmp(base, "optional") && n == 1)
		return a[0];
	if (!*ns)
		for (size_t i = 0; i < r->nfns; i++)
			if (!strcmp(r->fns[i].name, base))
				return cpp_tx_helper(p, r->fns[i].c, a, n);
	return unknown("a value computed by a call");
}

/* .name(args) or ->name(args) on a value. */
struct cval cpp_tx_method(struct tp *p, struct cval v, struct cval *lv, const char *name, int arrow,
			  unsigned line)
{
	struct run *r = p->r;
	struct cval *a = NULL;
	size_t n = 0;
	int called = tx_at(p, "(");

	if (called)
		a = cpp_tx_args(p, &n);
	if (v.kind == CV_OPTS && called && !arrow)
		return n == 1 ? tx_opts_set(r, v, name, a[0]) :
		       tx_opts_set(r, v, name, n ? unknown("a setter of several arguments") : boolean(1));
	if (v.kind == CV_MODULE && called) {
		if (!strcmp(name, "forward")) {
			cpp_tx_module_call(p, v.tm, a, n, line);
			return unknown("the result of a module");
		}
		if (!strcmp(name, "eval") || !strcmp(name, "train")) {
			v.tm->training = name[0] == 't' && (!n || (is_number(&a[0]) && a[0].d != 0));
			return v;
		}
		if (!strcmp(name, "to")) {
			if (n && a[0].kind == CV_SYM && tdtype_of(a[0].s))
				v.tm->dtype = tdtype_of(a[0].s);
			return v;
		}
		if (!arrow && n == 1 && v.tm->pnames) {
			/* libtorch's first API: setters on the module (Embedding(10, 2).padding_idx(3)) */
			struct topts o;

			memset(&o, 0, sizeof(o));
			o.snames = &name;
			o.svals = a;
			o.ns = 1;
			{
				const char **nn;
				struct cval *nv;
				size_t k;

				if (tx_kwargs(r, &o, NULL, &nn, &nv, &k, &v.tm->why) == 0) {
					const char **pn = cpp_arena_alloc(&r->arena, (v.tm->np + 1) * sizeof(*pn));
					struct cval *pv = cpp_arena_alloc(&r->arena, (v.tm->np + 1) * sizeof(*pv));

					memcpy(pn, v.tm->pnames, v.tm->np * sizeof(*pn));
					memcpy(pv, v.tm->pvals, v.tm->np * sizeof(*pv));
					pn[v.tm->np] = nn[0];
					pv[v.tm->np] = nv[0];
					v.tm->pnames = pn;
					v.tm->pvals = pv;
					v.tm->np++;
				}
			}
			return v;
		}
		return unknown("a value computed by a module");
	}
	if (v.kind == CV_TOPTS && called) {
		if (!strcmp(name, "dtype") && n && a[0].kind == CV_SYM)
			v.s = a[0].s;
		return v;
	}
	if (v.kind == CV_TENSOR && called) {
		if (!strcmp(name, "view") || !strcmp(name, "reshape") || !strcmp(name, "resize_")) {
			struct cval sh = n == 1 ? tx_shape(r, a[0]) : cpp_list_of(r, n);
			long long cnt;

			if (n != 1)
				memcpy(sh.items, a, n * sizeof(*a));
			cnt = tx_numel(&sh);
			if (cnt < 0 || cnt != tx_numel(&v.tt->shape))
				return unknown("a tensor reshaped to a size the harvester cannot tell");
			v = tx_tensor_val(r, v.tt->dtype, sh, v.tt->values);
			if (name[0] == 'r' && name[1] == 'e' && name[2] == 's' && name[3] == 'i' && lv)
				*lv = v;
			return v;
		}
		if (!strcmp(name, "to") || !strcmp(name, "toType")) {
			const char *dt = tx_dtype_arg(a, n, 0, NULL);

			return dt ? tx_tensor_val(r, dt, v.tt->shape, v.tt->values) :
			       unknown("a tensor moved where the harvester cannot follow");
		}
		if (!strcmp(name, "clone") || !strcmp(name, "contiguous") || !strcmp(name, "detach") ||
		    !strcmp(name, "set_requires_grad") || !strcmp(name, "requires_grad_"))
			return v;
		return unknown("a tensor computed at run time");
	}
	if (v.kind == CV_LIST && called) {
		if (!strcmp(name, "vec"))
			return v;
		if (!strcmp(name, "size"))
			return num_int((long long)v.n);
	}
	if (v.kind == CV_UNKNOWN)
		return v;
	return unknown(called ? "a value computed by a call" : "a member the harvester cannot follow");
}

int cpp_harvest_torch(char *const *files, size_t n, const struct cpp_opts *o, struct err *e)
{
	return cpp_parse_files(files, n, o, CPP_TORCH, NULL, e);
}

#else

int cpp_harvest_torch(char *const *files, size_t n, const struct cpp_opts *o, struct err *e)
{
	(void)files, (void)n, (void)o;
	return err_set(e, EXIT_ENV, "ferry was built without libclang (configure --without-libclang)");
}
#endif
