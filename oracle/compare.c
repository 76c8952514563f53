/* compare.c: the value oracle (see compare.h). One pass over the elements in row-major order, with
 * the offsets of got and want computed from their strides, so that a transposed or sliced output
 * compares without a copy. */
#include "compare.h"
#include "xalloc.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const struct {
	const char *name;
	size_t size;
} dtypes[DTYPE_COUNT] = {
	[DTYPE_BOOL] = { "bool", 1 },
	[DTYPE_INT8] = { "int8", 1 }, [DTYPE_INT16] = { "int16", 2 },
	[DTYPE_INT32] = { "int32", 4 }, [DTYPE_INT64] = { "int64", 8 },
	[DTYPE_UINT8] = { "uint8", 1 }, [DTYPE_UINT16] = { "uint16", 2 },
	[DTYPE_UINT32] = { "uint32", 4 }, [DTYPE_UINT64] = { "uint64", 8 },
	[DTYPE_FLOAT16] = { "float16", 2 }, [DTYPE_BFLOAT16] = { "bfloat16", 2 },
	[DTYPE_FLOAT32] = { "float32", 4 }, [DTYPE_FLOAT64] = { "float64", 8 },
};

static bool dtype_valid(enum dtype t)
{
	return (unsigned)t < DTYPE_COUNT;
}

const char *compare_dtype_name(enum dtype t)
{
	return dtype_valid(t) ? dtypes[t].name : "?";
}

size_t compare_dtype_size(enum dtype t)
{
	return dtype_valid(t) ? dtypes[t].size : 0;
}

int compare_dtype_from_name(const char *name, enum dtype *t, struct err *e)
{
	for (int i = 0; i < DTYPE_COUNT; i++) {
		if (strcmp(name, dtypes[i].name) == 0) {
			*t = (enum dtype)i;
			return 0;
		}
	}
	return err_set(e, EXIT_INPUT, "unknown dtype '%s'", name);
}

static bool is_float(enum dtype t)
{
	return t == DTYPE_FLOAT16 || t == DTYPE_BFLOAT16 || t == DTYPE_FLOAT32 || t == DTYPE_FLOAT64;
}

static bool is_signed_int(enum dtype t)
{
	return t == DTYPE_INT8 || t == DTYPE_INT16 || t == DTYPE_INT32 || t == DTYPE_INT64;
}

static enum dtype int_dtype(size_t size, bool is_signed)
{
	switch (size) {
	case 1: return is_signed ? DTYPE_INT8 : DTYPE_UINT8;
	case 2: return is_signed ? DTYPE_INT16 : DTYPE_UINT16;
	case 4: return is_signed ? DTYPE_INT32 : DTYPE_UINT32;
	default: return is_signed ? DTYPE_INT64 : DTYPE_UINT64;
	}
}

int compare_dtype_from_format(const char *format, enum dtype *t, struct err *e)
{
	const char *f = format;
	bool native = true;
	size_t size;

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
	const char foreign[] = "<";
#else
	const char foreign[] = ">!";
#endif
	if (*f && strchr(foreign, *f))
		return err_set(e, EXIT_INPUT, "buffer format '%s': byte order other than the machine's",
			       format);
	if (*f == '@') {
		f++;
	} else if (*f && strchr("=<>!", *f)) {
		native = false;
		f++;
	}
	if (!f[0] || f[1])
		goto unsupported;
	switch (f[0]) {
	case '?': *t = DTYPE_BOOL; return 0;
	case 'e': *t = DTYPE_FLOAT16; return 0;
	case 'f': *t = DTYPE_FLOAT32; return 0;
	case 'd': *t = DTYPE_FLOAT64; return 0;
	case 'b': case 'B': size = 1; break;
	case 'h': case 'H': size = 2; break;
	case 'i': case 'I': size = 4; break;
	case 'q': case 'Q': size = 8; break;
	/* In the struct module's standard sizes a long is 4 bytes; natively it is a C long. */
	case 'l': case 'L': size = native ? sizeof(long) : 4; break;
	case 'n': case 'N':
		if (!native)
			goto unsupported;
		size = sizeof(size_t);
		break;
	default:
		goto unsupported;
	}
	*t = int_dtype(size, f[0] >= 'a');
	return 0;
unsupported:
	return err_set(e, EXIT_INPUT, "unsupported buffer format '%s'", format);
}

void compare_result_init(struct compare_result *r)
{
	memset(r, 0, sizeof(*r));
	r->outcome = COMPARE_OK;
}

void compare_result_release(struct compare_result *r)
{
	free(r->got_shape);
	free(r->want_shape);
	free(r->worst_index);
	free(r->special_index);
	compare_result_init(r);
}

static double half_to_double(uint16_t h)
{
	int exp = (h >> 10) & 0x1f;
	int mant = h & 0x3ff;
	double v;

	if (exp == 0)
		v = ldexp(mant, -24);
	else if (exp == 31)
		v = mant ? NAN : INFINITY;
	else
		v = ldexp(mant + 1024, exp - 25);
	return (h & 0x8000) ? -v : v;
}

static double bfloat16_to_double(uint16_t h)
{
	uint32_t bits = (uint32_t)h << 16;
	float f;

	memcpy(&f, &bits, sizeof(f));
	return f;
}

/* One element, read with memcpy because a buffer need not be aligned. */
struct elem {
	double f;    /* floating types */
	int64_t i;   /* signed integers */
	uint64_t u;  /* unsigned integers and bool */
};

static struct elem load(enum dtype t, const unsigned char *p)
{
	struct elem v = { 0, 0, 0 };

	switch (t) {
	case DTYPE_BOOL: v.u = *p != 0; break;
	case DTYPE_INT8: { int8_t x; memcpy(&x, p, 1); v.i = x; break; }
	case DTYPE_INT16: { int16_t x; memcpy(&x, p, 2); v.i = x; break; }
	case DTYPE_INT32: { int32_t x; memcpy(&x, p, 4); v.i = x; break; }
	case DTYPE_INT64: memcpy(&v.i, p, 8); break;
	case DTYPE_UINT8: v.u = *p; break;
	case DTYPE_UINT16: { uint16_t x; memcpy(&x, p, 2); v.u = x; break; }
	case DTYPE_UINT32: { uint32_t x; memcpy(&x, p, 4); v.u = x; break; }
	case DTYPE_UINT64: memcpy(&v.u, p, 8); break;
	case DTYPE_FLOAT16: { uint16_t x; memcpy(&x, p, 2); v.f = half_to_double(x); break; }
	case DTYPE_BFLOAT16: { uint16_t x; memcpy(&x, p, 2); v.f = bfloat16_to_double(x); break; }
	case DTYPE_FLOAT32: { float x; memcpy(&x, p, 4); v.f = x; break; }
	case DTYPE_FLOAT64: memcpy(&v.f, p, 8); break;
	}
	return v;
}

/* The shortest decimal that reads back as v in its own precision, spelled as Python's repr would
 * ("1.0", "40.0", "1e-05"), so that a report shows 0.1f as 0.1 and not 0.10000000149011612. */
static void format_double(double v, bool single, char *out, size_t n)
{
	char sci[40];
	int prec, exp10;

	if (isnan(v)) {
		snprintf(out, n, "nan");
		return;
	}
	if (isinf(v)) {
		snprintf(out, n, v < 0 ? "-inf" : "inf");
		return;
	}
	for (prec = 1; prec < 17; prec++) {
		double back;

		snprintf(sci, sizeof(sci), "%.*e", prec - 1, v);
		back = strtod(sci, NULL);
		if (single ? (float)back == (float)v : back == v)
			break;
	}
	snprintf(sci, sizeof(sci), "%.*e", prec - 1, v);
	exp10 = atoi(strchr(sci, 'e') + 1);
	/* Python switches to exponent notation at the same bounds. */
	if (exp10 < -4 || exp10 >= 16) {
		snprintf(out, n, "%s", sci);
		return;
	}
	snprintf(out, n, "%.*f", prec - 1 - exp10 > 0 ? prec - 1 - exp10 : 0, v);
	if (!strchr(out, '.'))
		snprintf(out + strlen(out), n - strlen(out), ".0");
}

static void format_elem(enum dtype t, const unsigned char *p, char *out, size_t n)
{
	struct elem v = load(t, p);

	if (t == DTYPE_BOOL)
		snprintf(out, n, "%s", v.u ? "true" : "false");
	else if (is_signed_int(t))
		snprintf(out, n, "%lld", (long long)v.i);
	else if (!is_float(t))
		snprintf(out, n, "%llu", (unsigned long long)v.u);
	else
		format_double(v.f, t != DTYPE_FLOAT64, out, n);
}

static bool same_shape(const struct array_view *a, const struct array_view *b)
{
	if (a->rank != b->rank)
		return false;
	for (int k = 0; k < a->rank; k++) {
		if (a->shape[k] != b->shape[k])
			return false;
	}
	return true;
}

static int64_t *copy_shape(const struct array_view *v)
{
	int64_t *s = xcalloc((size_t)v->rank + 1, sizeof(*s));

	if (v->rank)
		memcpy(s, v->shape, (size_t)v->rank * sizeof(*s));
	return s;
}

/* Check a view; count its elements. */
static int check_view(const struct array_view *v, const char *which, uint64_t *count, struct err *e)
{
	uint64_t n = 1;
	bool empty = false;

	if (!dtype_valid(v->dtype))
		return err_set(e, EXIT_INPUT, "%s: unknown dtype %d", which, (int)v->dtype);
	if (v->rank < 0 || (v->rank > 0 && !v->shape))
		return err_set(e, EXIT_INPUT, "%s: bad rank %d", which, v->rank);
	for (int k = 0; k < v->rank; k++) {
		if (v->shape[k] < 0)
			return err_set(e, EXIT_INPUT, "%s: negative dimension %lld", which,
				       (long long)v->shape[k]);
		if (v->shape[k] == 0)
			empty = true;
	}
	for (int k = 0; k < v->rank && !empty; k++) {
		if ((uint64_t)v->shape[k] > UINT64_MAX / n)
			return err_set(e, EXIT_INPUT, "%s: too many elements", which);
		n *= (uint64_t)v->shape[k];
	}
	*count = empty ? 0 : n;
	if (*count && !v->data)
		return err_set(e, EXIT_INPUT, "%s: no data", which);
	return 0;
}

/* Byte strides of v: its own, or those of a C-contiguous array. Owned by the caller. */
static int64_t *strides_of(const struct array_view *v)
{
	int64_t *s = xcalloc((size_t)v->rank + 1, sizeof(*s));
	int64_t step = (int64_t)dtypes[v->dtype].size;

	for (int k = v->rank - 1; k >= 0; k--) {
		s[k] = v->strides ? v->strides[k] : step;
		step *= v->shape[k] ? v->shape[k] : 1;
	}
	return s;
}

static void add_shape(struct buf *b, const int64_t *shape, int rank)
{
	buf_addc(b, '[');
	for (int k = 0; k < rank; k++)
		buf_addf(b, "%s%lld", k ? ", " : "", (long long)shape[k]);
	buf_addc(b, ']');
}

/* The integer difference allowed by atol: an integer difference d passes when d <= atol, that is
 * when d <= floor(atol). */
static uint64_t int_limit(double atol)
{
	if (atol >= 18446744073709551616.0)
		return UINT64_MAX;
	return (uint64_t)floor(atol);
}

double compare_half_ulp(double w, enum dtype t)
{
	int bits = t == DTYPE_FLOAT16 ? 10 : 7, emin = t == DTYPE_FLOAT16 ? -14 : -126, e2 = emin + 1;

	if (w != 0)
		frexp(w, &e2); /* w = m * 2^e2, 0.5 <= |m| < 1: floor(log2 |w|) = e2 - 1 */
	return ldexp(1, (e2 - 1 > emin ? e2 - 1 : emin) - bits);
}

static bool is_half(enum dtype t)
{
	return t == DTYPE_FLOAT16 || t == DTYPE_BFLOAT16;
}

/* One element of got (a) against its reference (b): the counts of r it adds to, the largest
 * difference so far (*worse: this element's is it) and *special: a NaN or Inf out of place. */
static void compare_elem(struct elem a, struct elem b, enum dtype t, const struct tolerance *tol, uint64_t limit,
			 struct compare_result *r, bool *worse, bool *special)
{
	if (is_float(t)) {
		if (isnan(a.f) || isnan(b.f)) {
			if (!(isnan(a.f) && isnan(b.f))) {
				r->nan_mismatches++;
				*special = true;
			}
		} else if (isinf(a.f) || isinf(b.f)) {
			if (a.f != b.f) {
				r->inf_mismatches++;
				*special = true;
			}
		} else {
			double d = fabs(a.f - b.f);

			*worse = !r->has_worst || d > r->max_abs;
			if (*worse)
				r->max_abs = d;
			double allowed = tol->atol + tol->rtol * fabs(b.f);

			if (r->ulps && r->ulps * compare_half_ulp(b.f, r->precision) > allowed)
				allowed = r->ulps * compare_half_ulp(b.f, r->precision);
			if (!(d <= allowed))
				r->mismatches++;
		}
	} else {
		/* In integer arithmetic: the difference of two int64 fits in a uint64. */
		uint64_t d;

		if (is_signed_int(t))
			d = a.i >= b.i ? (uint64_t)a.i - (uint64_t)b.i : (uint64_t)b.i - (uint64_t)a.i;
		else
			d = a.u >= b.u ? a.u - b.u : b.u - a.u;
		*worse = !r->has_worst || d > r->max_abs_int;
		if (*worse) {
			r->max_abs_int = d;
			r->max_abs = (double)d;
		}
		if (d > limit)
			r->mismatches++;
	}
}

int compare_arrays(const struct array_view *got, const struct array_view *want,
		   const struct tolerance *tol, struct compare_result *r, struct err *e)
{
	return compare_arrays_as(got, want, want->dtype, tol, r, e);
}

int compare_arrays_as(const struct array_view *got, const struct array_view *want, enum dtype real,
		      const struct tolerance *tol, struct compare_result *r, struct err *e)
{
	const unsigned char *gbase = got->data, *wbase = want->data;
	int64_t *gstr = NULL, *wstr = NULL, *idx = NULL;
	const unsigned char *worst_g = NULL, *worst_w = NULL, *special_g = NULL, *special_w = NULL;
	uint64_t gcount, wcount, limit;
	enum dtype t = want->dtype;
	int rank = want->rank, ret = -1;

	compare_result_release(r);
	if (check_view(got, "got", &gcount, e) < 0 || check_view(want, "want", &wcount, e) < 0)
		goto out;
	if (!(tol->atol >= 0) || !(tol->rtol >= 0)) {
		err_set(e, EXIT_INPUT, "bad tolerance: atol %g, rtol %g", tol->atol, tol->rtol);
		goto out;
	}
	r->tol = *tol;
	/* The ulp term only for floating values whose real precision is half: float16 values, or
	 * bfloat16 values widened to float32 for storage. */
	r->precision = is_half(real) && is_float(want->dtype) ? real : want->dtype;
	r->ulps = is_half(r->precision) ? COMPARE_HALF_ULPS : 0;
	r->got_dtype = got->dtype;
	r->want_dtype = want->dtype;
	r->got_rank = got->rank;
	r->want_rank = want->rank;
	r->got_shape = copy_shape(got);
	r->want_shape = copy_shape(want);
	if (!same_shape(got, want)) {
		r->outcome = COMPARE_SHAPE;
		ret = 0;
		goto out;
	}
	if (got->dtype != want->dtype) {
		r->outcome = COMPARE_DTYPE;
		ret = 0;
		goto out;
	}

	gstr = strides_of(got);
	wstr = strides_of(want);
	idx = xcalloc((size_t)rank + 1, sizeof(*idx));
	r->worst_index = xcalloc((size_t)rank + 1, sizeof(*r->worst_index));
	r->special_index = xcalloc((size_t)rank + 1, sizeof(*r->special_index));
	r->count = wcount;
	limit = t == DTYPE_BOOL ? 0 : int_limit(tol->atol);

	for (uint64_t n = 0; n < wcount; n++) {
		const unsigned char *gp = gbase, *wp = wbase;
		bool special = false, worse = false;

		for (int k = 0; k < rank; k++) {
			gp += idx[k] * gstr[k];
			wp += idx[k] * wstr[k];
		}
		compare_elem(load(t, gp), load(t, wp), t, tol, limit, r, &worse, &special);
		if (worse) {
			r->has_worst = true;
			worst_g = gp;
			worst_w = wp;
			memcpy(r->worst_index, idx, (size_t)rank * sizeof(*idx));
		}
		if (special && !r->has_special) {
			r->has_special = true;
			special_g = gp;
			special_w = wp;
			memcpy(r->special_index, idx, (size_t)rank * sizeof(*idx));
		}
		for (int k = rank - 1; k >= 0; k--) {
			if (++idx[k] < want->shape[k])
				break;
			idx[k] = 0;
		}
	}
	/* Formatted once at the end: the worst element may change at every step. */
	if (r->has_worst) {
		format_elem(t, worst_g, r->worst_got, sizeof(r->worst_got));
		format_elem(t, worst_w, r->worst_want, sizeof(r->worst_want));
	}
	if (r->has_special) {
		format_elem(t, special_g, r->special_got, sizeof(r->special_got));
		format_elem(t, special_w, r->special_want, sizeof(r->special_want));
	}
	r->outcome = r->mismatches || r->nan_mismatches || r->inf_mismatches ? COMPARE_VALUE : COMPARE_OK;
	ret = 0;
out:
	free(gstr);
	free(wstr);
	free(idx);
	return ret;
}

static void add_double(struct buf *b, double v)
{
	char s[40];

	format_double(v, false, s, sizeof(s));
	buf_adds(b, s);
}

static void add_count(struct buf *b, uint64_t n, const char *what)
{
	buf_addf(b, "%llu %s mismatch%s", (unsigned long long)n, what, n == 1 ? "" : "es");
}

void compare_describe(const struct compare_result *r, struct buf *out)
{
	bool ints = !is_float(r->want_dtype);

	switch (r->outcome) {
	case COMPARE_SHAPE:
		buf_adds(out, "shape mismatch: got ");
		add_shape(out, r->got_shape, r->got_rank);
		buf_adds(out, ", want ");
		add_shape(out, r->want_shape, r->want_rank);
		return;
	case COMPARE_DTYPE:
		buf_addf(out, "dtype mismatch: got %s, want %s", compare_dtype_name(r->got_dtype),
			 compare_dtype_name(r->want_dtype));
		return;
	case COMPARE_OK:
	case COMPARE_VALUE:
		break;
	}
	if (!r->count) {
		buf_adds(out, "no elements to compare: shape ");
		add_shape(out, r->want_shape, r->want_rank);
		return;
	}
	if (r->has_worst) {
		buf_adds(out, "max |got - want| = ");
		if (ints)
			buf_addf(out, "%llu", (unsigned long long)r->max_abs_int);
		else
			add_double(out, r->max_abs);
		buf_adds(out, " at ");
		add_shape(out, r->worst_index, r->want_rank);
		buf_addf(out, " (got %s, want %s), ", r->worst_got, r->worst_want);
	}
	if (r->mismatches || r->outcome == COMPARE_VALUE)
		buf_addf(out, "%llu of %llu elements ", (unsigned long long)r->mismatches,
			 (unsigned long long)r->count);
	else
		buf_addf(out, "all %llu elements ", (unsigned long long)r->count);
	if (r->want_dtype == DTYPE_BOOL || (ints && r->tol.atol < 1))
		buf_adds(out, r->mismatches || r->outcome == COMPARE_VALUE ? "differ" : "equal");
	else if (ints)
		buf_addf(out, "%s atol %llu", r->mismatches || r->outcome == COMPARE_VALUE ? "beyond" : "within",
			 (unsigned long long)int_limit(r->tol.atol));
	else {
		buf_adds(out, r->mismatches || r->outcome == COMPARE_VALUE ? "beyond atol " : "within atol ");
		add_double(out, r->tol.atol);
		buf_adds(out, " + rtol ");
		add_double(out, r->tol.rtol);
		if (r->ulps)
			buf_addf(out, " or %d ulp of %s", r->ulps, compare_dtype_name(r->precision));
	}
	if (r->nan_mismatches || r->inf_mismatches) {
		buf_adds(out, ", ");
		if (r->nan_mismatches)
			add_count(out, r->nan_mismatches, "NaN");
		if (r->nan_mismatches && r->inf_mismatches)
			buf_adds(out, " and ");
		if (r->inf_mismatches)
			add_count(out, r->inf_mismatches, "Inf");
		buf_adds(out, " (first at ");
		add_shape(out, r->special_index, r->want_rank);
		buf_addf(out, ": got %s, want %s)", r->special_got, r->special_want);
	}
}

/* The operators whose outputs include indices of selected elements of their first input, and which
 * output that is. Matched on the name's last component, so that torch.topk, torch.Tensor.topk and
 * keras.ops.top_k are one entry each; n_out says how many outputs the operator has when the entry
 * applies (torch.max(x) alone returns one value, no indices). ONNX TopK, ArgMax and ArgMin are the
 * same operators under ONNX's names. templates/runtime_compare.py holds the same table. */
static const struct {
	const char *name;
	int index_output, n_out;
} tie_ops[] = {
	{ "topk", 1, 2 }, { "top_k", 1, 2 }, { "TopK", 1, 2 },
	{ "sort", 1, 2 },                     /* torch.sort: (values, indices) */
	{ "argsort", 0, 1 },
	{ "kthvalue", 1, 2 }, { "mode", 1, 2 },
	{ "max", 1, 2 }, { "min", 1, 2 },     /* with dim: (values, indices) */
	{ "median", 1, 2 }, { "nanmedian", 1, 2 },
	{ "argmax", 0, 1 }, { "argmin", 0, 1 }, { "ArgMax", 0, 1 }, { "ArgMin", 0, 1 },
};

bool compare_tie_output(const char *op, int k, int n)
{
	const char *dot = op ? strrchr(op, '.') : NULL;
	const char *name = dot ? dot + 1 : op;

	for (size_t i = 0; name && i < sizeof(tie_ops) / sizeof(tie_ops[0]); i++)
		if (!strcmp(name, tie_ops[i].name))
			return tie_ops[i].index_output == k && tie_ops[i].n_out == n;
	return false;
}

static bool is_int(enum dtype t)
{
	return dtype_valid(t) && t != DTYPE_BOOL && !is_float(t);
}

static int64_t load_index(enum dtype t, const unsigned char *p)
{
	struct elem v = load(t, p);

	return is_signed_int(t) ? v.i : (int64_t)v.u;
}

/* Whether two elements of data are equal, NaN to NaN included. */
static bool same_elem(enum dtype t, const unsigned char *a, const unsigned char *b)
{
	struct elem x = load(t, a), y = load(t, b);

	if (is_float(t))
		return x.f == y.f || (isnan(x.f) && isnan(y.f));
	return x.i == y.i && x.u == y.u;
}

/* The element of data at position pos (of the indices output) with index i on axis a: the output
 * has data's rank (insert = false) or one less (insert = true, the axis removed); a == -1: i is
 * into the flattened data. NULL when i is out of range. */
static const unsigned char *data_at(const struct array_view *data, const int64_t *dstr, const int64_t *pos,
				    int a, bool insert, int64_t i)
{
	const unsigned char *p = data->data;
	int src = 0;

	if (a < 0) {
		for (int k = data->rank - 1; k >= 0; k--) {
			int64_t n = data->shape[k];

			p += (i % n) * dstr[k];
			i /= n;
		}
		return p;
	}
	if (i < 0 || i >= data->shape[a])
		return NULL;
	for (int k = 0; k < data->rank; k++) {
		if (k == a) {
			p += i * dstr[k];
			if (!insert)
				src++;
		} else {
			p += pos[src++] * dstr[k];
		}
	}
	return p;
}

int compare_untie(const struct array_view *got, const struct array_view *want, const struct array_view *data,
		  void **fixed, uint64_t *untied)
{
	struct err ignored = ERR_INIT;
	uint64_t gcount, wcount, dcount;
	int64_t *gstr = NULL, *wstr = NULL, *dstr = NULL, *idx = NULL;
	int axes[65], naxes = 0, r = 0;
	bool insert = got->rank + 1 == data->rank;
	size_t size = compare_dtype_size(got->dtype);
	unsigned char *out = NULL;

	*fixed = NULL;
	*untied = 0;
	if (check_view(got, "got", &gcount, &ignored) < 0 || check_view(want, "want", &wcount, &ignored) < 0 ||
	    check_view(data, "data", &dcount, &ignored) < 0 || !same_shape(got, want) ||
	    got->dtype != want->dtype || !is_int(got->dtype) || !dcount || data->rank > 64)
		goto out;
	/* The axes along which got's shape can come from data's. */
	if (got->rank == data->rank || insert) {
		for (int a = 0; a < data->rank; a++) {
			bool fits = true;

			for (int k = 0, src = 0; k < data->rank && fits; k++) {
				if (k == a) {
					fits = insert || got->shape[src] <= data->shape[k];
					src += !insert;
				} else {
					fits = got->shape[src++] == data->shape[k];
				}
			}
			if (fits)
				axes[naxes++] = a;
		}
	}
	if (!naxes && gcount == 1)
		axes[naxes++] = -1;
	if (!naxes)
		goto out;

	gstr = strides_of(got);
	wstr = strides_of(want);
	dstr = strides_of(data);
	idx = xcalloc((size_t)got->rank + 1, sizeof(*idx));
	out = xmalloc(gcount * size + 1);
	for (uint64_t n = 0; n < gcount; n++) {
		const unsigned char *gp = got->data, *wp = want->data;
		int64_t gi, wi;

		for (int k = 0; k < got->rank; k++) {
			gp += idx[k] * gstr[k];
			wp += idx[k] * wstr[k];
		}
		memcpy(out + n * size, gp, size);
		gi = load_index(got->dtype, gp);
		wi = load_index(want->dtype, wp);
		for (int j = 0; j < naxes && gi != wi; j++) {
			const unsigned char *a, *b;

			if (axes[j] < 0 && (gi < 0 || (uint64_t)gi >= dcount || wi < 0 || (uint64_t)wi >= dcount))
				continue;
			a = data_at(data, dstr, idx, axes[j], insert, gi);
			b = data_at(data, dstr, idx, axes[j], insert, wi);
			if (a && b && same_elem(data->dtype, a, b)) {
				memcpy(out + n * size, wp, size);
				(*untied)++;
				break;
			}
		}
		for (int k = got->rank - 1; k >= 0; k--) {
			if (++idx[k] < got->shape[k])
				break;
			idx[k] = 0;
		}
	}
	*fixed = out;
	out = NULL;
	r = 1;
out:
	free(out);
	free(gstr);
	free(wstr);
	free(dstr);
	free(idx);
	err_release(&ignored);
	return r;
}
