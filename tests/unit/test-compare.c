/* test-compare.c: oracle/compare.c on hand-made arrays, one case per rule of the value oracle. */
#include "compare.h"
#include "tap.h"

#include <float.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static struct tolerance deflt = TOLERANCE_DEFAULT;

static struct array_view view(enum dtype t, int rank, const int64_t *shape, const void *data)
{
	struct array_view v = { t, rank, shape, NULL, data };

	return v;
}

/* Compare and describe; returns the outcome, or -1 when compare_arrays failed. */
static int cmp(const struct array_view *got, const struct array_view *want, const struct tolerance *tol,
	       struct compare_result *r, struct buf *desc)
{
	struct err e = ERR_INIT;
	int ret;

	if (compare_arrays(got, want, tol, r, &e) < 0) {
		diag("compare_arrays: %s", e.msg);
		err_release(&e);
		return -1;
	}
	buf_reset(desc);
	compare_describe(r, desc);
	ret = (int)r->outcome;
	return ret;
}

static void test_formats(void)
{
	static const struct { const char *fmt; int want; } cases[] = {
		{ "f", DTYPE_FLOAT32 }, { "d", DTYPE_FLOAT64 }, { "e", DTYPE_FLOAT16 }, { "?", DTYPE_BOOL },
		{ "b", DTYPE_INT8 }, { "B", DTYPE_UINT8 }, { "h", DTYPE_INT16 }, { "H", DTYPE_UINT16 },
		{ "i", DTYPE_INT32 }, { "I", DTYPE_UINT32 }, { "q", DTYPE_INT64 }, { "Q", DTYPE_UINT64 },
		{ "l", sizeof(long) == 8 ? DTYPE_INT64 : DTYPE_INT32 },
		{ "@L", sizeof(long) == 8 ? DTYPE_UINT64 : DTYPE_UINT32 },
		{ "<l", DTYPE_INT32 }, { "=L", DTYPE_UINT32 }, { "<q", DTYPE_INT64 }, { "<f", DTYPE_FLOAT32 },
		{ "=d", DTYPE_FLOAT64 }, { "<e", DTYPE_FLOAT16 }, { "@?", DTYPE_BOOL },
		{ "n", sizeof(size_t) == 8 ? DTYPE_INT64 : DTYPE_INT32 },
		{ ">f", -1 }, { "!i", -1 }, { "Zf", -1 }, { "g", -1 }, { "", -1 }, { "ff", -1 }, { "<n", -1 },
		{ "s", -1 },
	};
	struct err e = ERR_INIT;
	int bad = 0;

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		enum dtype t = DTYPE_BOOL;
		int r = compare_dtype_from_format(cases[i].fmt, &t, &e);
		int got = r < 0 ? -1 : (int)t;

		if (got != cases[i].want) {
			diag("format '%s': got %d, want %d", cases[i].fmt, got, cases[i].want);
			bad++;
		}
		if (r < 0 && !strstr(e.msg, cases[i].fmt))
			bad++;
		err_release(&e);
	}
	is_int(bad, 0, "buffer formats map to dtypes (%zu cases, errors name the format)",
	       sizeof(cases) / sizeof(cases[0]));

	bad = 0;
	for (int i = 0; i < DTYPE_COUNT; i++) {
		enum dtype t;

		if (compare_dtype_from_name(compare_dtype_name((enum dtype)i), &t, &e) < 0 || (int)t != i)
			bad++;
	}
	is_int(bad, 0, "every dtype name reads back as itself");
	ok(compare_dtype_from_name("float128", &(enum dtype){ 0 }, &e) < 0 && strstr(e.msg, "'float128'"),
	   "an unknown name is an error naming it: %s", e.msg);
	err_release(&e);
	ok(compare_dtype_size(DTYPE_FLOAT16) == 2 && compare_dtype_size(DTYPE_UINT64) == 8 &&
	   compare_dtype_size(DTYPE_BOOL) == 1, "dtype sizes");
}

static void test_equal_and_brief_example(void)
{
	int64_t shape[] = { 4, 16 };
	float got[64], want[64];
	struct compare_result r;
	struct buf d = BUF_INIT;
	struct array_view g, w;

	compare_result_init(&r);
	for (int i = 0; i < 64; i++)
		got[i] = want[i] = 1.0f;
	g = view(DTYPE_FLOAT32, 2, shape, got);
	w = view(DTYPE_FLOAT32, 2, shape, want);
	is_int(cmp(&g, &w, &deflt, &r, &d), COMPARE_OK, "equal arrays compare OK");
	ok(r.count == 64 && r.mismatches == 0 && r.max_abs == 0, "64 elements, distance 0");
	is(d.data, "max |got - want| = 0.0 at [0, 0] (got 1.0, want 1.0), all 64 elements within "
		   "atol 0.001 + rtol 0.001", "description of a pass");

	got[0] = 1.0005f;          /* within 0.001 + 0.001 * 1 */
	got[1 * 16 + 3] = 1.25f;   /* the worst */
	got[2 * 16 + 5] = 1.125f;
	got[3 * 16 + 15] = 0.9f;
	is_int(cmp(&g, &w, &deflt, &r, &d), COMPARE_VALUE, "three elements off: value mismatch");
	is_int((long long)r.mismatches, 3, "three mismatches counted");
	is_dbl(r.max_abs, 0.25, 0, "Chebyshev distance 0.25");
	ok(r.has_worst && r.worst_index[0] == 1 && r.worst_index[1] == 3, "worst element at [1, 3]");
	is(d.data, "max |got - want| = 0.25 at [1, 3] (got 1.25, want 1.0), 3 of 64 elements beyond "
		   "atol 0.001 + rtol 0.001", "description of a failure");
	compare_result_release(&r);
	buf_release(&d);
}

static void test_tolerance_edges(void)
{
	int64_t one[] = { 1 };
	double want = 1.0, got = 1.25, wneg = -2.0, gneg = -2.5, zero = 0.0, tiny = 1e-4;
	struct tolerance t = { 0.125, 0.125 }, t2 = { 0.25, 0.125 }, rel = { 0, 1 }, small = { 1e-5, 0 };
	struct array_view g = view(DTYPE_FLOAT64, 1, one, &got), w = view(DTYPE_FLOAT64, 1, one, &want);
	struct compare_result r;
	struct buf d = BUF_INIT;

	compare_result_init(&r);
	is_int(cmp(&g, &w, &t, &r, &d), COMPARE_OK, "|got - want| exactly atol + rtol*|want| passes");
	got = nextafter(1.25, 2.0);
	is_int(cmp(&g, &w, &t, &r, &d), COMPARE_VALUE, "one ulp beyond fails");
	got = nextafter(0.75, 0.0);
	is_int(cmp(&g, &w, &t, &r, &d), COMPARE_VALUE, "one ulp beyond on the other side fails");
	got = 0.75;
	is_int(cmp(&g, &w, &t, &r, &d), COMPARE_OK, "the lower bound passes too");
	got = 1e20;
	cmp(&g, &w, &small, &r, &d);
	is(d.data, "max |got - want| = 1e+20 at [0] (got 1e+20, want 1.0), 1 of 1 elements beyond "
		   "atol 1e-05 + rtol 0.0", "numbers are spelled as Python would");

	g.data = &gneg;
	w.data = &wneg;
	is_int(cmp(&g, &w, &t2, &r, &d), COMPARE_OK, "rtol scales with |want| for a negative want");

	g.data = &tiny;
	w.data = &zero;
	is_int(cmp(&g, &w, &rel, &r, &d), COMPARE_VALUE, "rtol is relative to want, not got (want 0)");
	g.data = &zero;
	w.data = &tiny;
	is_int(cmp(&g, &w, &rel, &r, &d), COMPARE_OK, "and passes the other way round");
	compare_result_release(&r);
	buf_release(&d);
}

static void test_nan_inf(void)
{
	int64_t s4[] = { 4 }, s5[] = { 5 };
	double wn[] = { 1, NAN, 3, NAN }, gn[] = { 1, NAN, NAN, 4 }, allnan[] = { NAN, NAN, NAN, NAN };
	double wi[] = { INFINITY, -INFINITY, 1, INFINITY, 2 }, gi[] = { INFINITY, INFINITY, INFINITY, 1e300, 2 };
	struct array_view g = view(DTYPE_FLOAT64, 1, s4, gn), w = view(DTYPE_FLOAT64, 1, s4, wn);
	struct tolerance huge = { 1e308, 1e308 };
	struct compare_result r;
	struct buf d = BUF_INIT;

	compare_result_init(&r);
	is_int(cmp(&g, &w, &deflt, &r, &d), COMPARE_VALUE, "NaN in different places: value mismatch");
	ok(r.nan_mismatches == 2 && r.mismatches == 0 && r.inf_mismatches == 0,
	   "two NaN mismatches, NaN in the same place is fine");
	ok(r.has_special && r.special_index[0] == 2, "the first NaN mismatch is at [2]");
	ok(strstr(d.data, "2 NaN mismatches (first at [2]: got nan, want 3.0)") != NULL, "described: %s", d.data);
	is_int(cmp(&g, &w, &huge, &r, &d), COMPARE_VALUE, "no tolerance excuses a NaN");

	g.data = allnan;
	w.data = allnan;
	is_int(cmp(&g, &w, &deflt, &r, &d), COMPARE_OK, "NaN everywhere on both sides is equal");
	ok(!r.has_worst, "with no finite pair there is no worst element");

	g = view(DTYPE_FLOAT64, 1, s5, gi);
	w = view(DTYPE_FLOAT64, 1, s5, wi);
	is_int(cmp(&g, &w, &huge, &r, &d), COMPARE_VALUE, "Inf mismatches fail under any tolerance");
	ok(r.inf_mismatches == 3 && r.nan_mismatches == 0 && r.mismatches == 0,
	   "inf vs -inf, inf vs 1, 1e300 vs inf: three Inf mismatches (%llu)",
	   (unsigned long long)r.inf_mismatches);
	ok(r.has_special && r.special_index[0] == 1 && strcmp(r.special_got, "inf") == 0 &&
	   strcmp(r.special_want, "-inf") == 0, "the first is the sign flip at [1]");
	ok(r.has_worst && r.worst_index[0] == 4 && r.max_abs == 0, "the distance covers finite pairs only");
	compare_result_release(&r);
	buf_release(&d);
}

static void test_integers(void)
{
	int64_t one[] = { 1 };
	int64_t gi = INT64_MAX - 1, wi = INT64_MAX;
	uint64_t gu = UINT64_MAX - 1, wu = UINT64_MAX;
	uint8_t g8 = 12, w8 = 10;
	int32_t g32 = 10001, w32 = 10000;
	struct array_view g = view(DTYPE_INT64, 1, one, &gi), w = view(DTYPE_INT64, 1, one, &wi);
	struct tolerance atol1 = { 1, 0 }, atol2 = { 2.5, 0 };
	struct compare_result r;
	struct buf d = BUF_INIT;

	compare_result_init(&r);
	ok((double)gi == (double)wi, "(as doubles, 2^63 - 2 and 2^63 - 1 are equal)");
	is_int(cmp(&g, &w, &deflt, &r, &d), COMPARE_VALUE, "int64 2^63 - 2 vs 2^63 - 1 differ");
	ok(r.max_abs_int == 1 && r.mismatches == 1, "by exactly 1");
	is(d.data, "max |got - want| = 1 at [0] (got 9223372036854775806, want 9223372036854775807), "
		   "1 of 1 elements differ", "described with exact integers");
	is_int(cmp(&g, &w, &atol1, &r, &d), COMPARE_OK, "atol 1 allows a difference of 1");

	gi = INT64_MIN;
	is_int(cmp(&g, &w, &atol1, &r, &d), COMPARE_VALUE, "INT64_MIN vs INT64_MAX");
	ok(r.max_abs_int == UINT64_MAX, "differ by 2^64 - 1, without overflow");

	g = view(DTYPE_UINT64, 1, one, &gu);
	w = view(DTYPE_UINT64, 1, one, &wu);
	is_int(cmp(&g, &w, &deflt, &r, &d), COMPARE_VALUE, "uint64 2^64 - 2 vs 2^64 - 1 differ");

	g = view(DTYPE_INT32, 1, one, &g32);
	w = view(DTYPE_INT32, 1, one, &w32);
	is_int(cmp(&g, &w, &deflt, &r, &d), COMPARE_VALUE, "rtol does not apply to integers (10001 vs 10000)");

	g = view(DTYPE_UINT8, 1, one, &g8);
	w = view(DTYPE_UINT8, 1, one, &w8);
	is_int(cmp(&g, &w, &atol2, &r, &d), COMPARE_OK, "uint8: 12 vs 10 within atol 2.5");
	g8 = 13;
	is_int(cmp(&g, &w, &atol2, &r, &d), COMPARE_VALUE, "13 vs 10 is not");
	ok(strstr(d.data, "1 of 1 elements beyond atol 2") != NULL, "described: %s", d.data);
	g8 = 7;
	is_int(cmp(&g, &w, &atol2, &r, &d), COMPARE_VALUE, "7 vs 10 is not either (unsigned difference)");
	ok(r.max_abs_int == 3, "distance 3");
	compare_result_release(&r);
	buf_release(&d);
}

static void test_bool(void)
{
	int64_t s3[] = { 3 };
	unsigned char g[] = { 1, 1, 2 }, w[] = { 1, 0, 1 };
	struct array_view gv = view(DTYPE_BOOL, 1, s3, g), wv = view(DTYPE_BOOL, 1, s3, w);
	struct tolerance loose = { 5, 5 };
	struct compare_result r;
	struct buf d = BUF_INIT;

	compare_result_init(&r);
	is_int(cmp(&gv, &wv, &loose, &r, &d), COMPARE_VALUE, "bools compare exactly, whatever the tolerance");
	ok(r.mismatches == 1 && r.worst_index[0] == 1, "one mismatch at [1] (2 reads as true)");
	is(d.data, "max |got - want| = 1 at [1] (got true, want false), 1 of 3 elements differ",
	   "described");
	compare_result_release(&r);
	buf_release(&d);
}

static void test_float16(void)
{
	int64_t s6[] = { 6 }, s2[] = { 2 };
	/* 1.0, 1.5, 65504 (largest), 3 * 2^-24 (three subnormal steps: beyond the 2 ulps), NaN, -2.0 */
	uint16_t w[] = { 0x3c00, 0x3e00, 0x7bff, 0x0003, 0x7e00, 0xc000 };
	uint16_t g[] = { 0x3c00, 0x3e00, 0x7bff, 0x0000, 0x7e01, 0xc000 };
	uint16_t wi[] = { 0xfc00, 0x3c00 }, gi[] = { 0x7c00, 0x3c00 };
	uint16_t bw[] = { 0x3f80, 0x4049 }, bg[] = { 0x3f80, 0x4046 };
	struct tolerance exact = { 0, 0 };
	struct array_view gv = view(DTYPE_FLOAT16, 1, s6, g), wv = view(DTYPE_FLOAT16, 1, s6, w);
	struct compare_result r;
	struct buf d = BUF_INIT;

	compare_result_init(&r);
	is_int(cmp(&gv, &wv, &exact, &r, &d), COMPARE_VALUE, "float16: the subnormal differs");
	ok(r.mismatches == 1 && r.nan_mismatches == 0 && r.worst_index[0] == 3,
	   "only at [3]: the decoded largest value, NaN payloads and -2.0 match");
	is_dbl(r.max_abs, 3 * ldexp(1, -24), 0, "by exactly 3 * 2^-24");
	ok(strcmp(r.worst_got, "0.0") == 0 && strcmp(r.worst_want, "1.7881393e-07") == 0,
	   "values printed (%s, %s)", r.worst_got, r.worst_want);

	gv = view(DTYPE_FLOAT16, 1, s2, gi);
	wv = view(DTYPE_FLOAT16, 1, s2, wi);
	is_int(cmp(&gv, &wv, &deflt, &r, &d), COMPARE_VALUE, "float16 inf vs -inf");
	ok(r.inf_mismatches == 1 && strcmp(r.special_got, "inf") == 0 && strcmp(r.special_want, "-inf") == 0,
	   "is an Inf mismatch");

	gv = view(DTYPE_BFLOAT16, 1, s2, bg);
	wv = view(DTYPE_BFLOAT16, 1, s2, bw);
	is_int(cmp(&gv, &wv, &deflt, &r, &d), COMPARE_VALUE, "bfloat16: 3.09375 vs 3.140625, 3 ulps");
	ok(r.worst_index[0] == 1 && r.max_abs == 0.046875 && strcmp(r.worst_want, "3.140625") == 0,
	   "decoded exactly (%s, %s)", r.worst_got, r.worst_want);
	compare_result_release(&r);
	buf_release(&d);
}

/* Half precision: COMPARE_HALF_ULPS ulps of want pass, one more does not. */
static void test_half_ulps(void)
{
	int64_t s3[] = { 3 };
	/* float16: 8.0 vs 8.015625 (2 ulp: 0.0078125 each, beyond atol + rtol = 0.009), -9.1171875 vs
	 * -9.125 (1 ulp: poisson_nll_loss's float16 "mismatch" in a real store), 2^-24 vs 0 */
	uint16_t w[] = { 0x4800, 0xc88f, 0x0001 }, g[] = { 0x4802, 0xc890, 0x0000 };
	uint16_t w3[] = { 0x4800, 0x4800, 0x4800 }, g3[] = { 0x4803, 0x4800, 0x4800 };
	/* bfloat16 widened to float32 for storage: 3.140625 and 3.171875 (2 ulps of 2^-6 apart) */
	float fw[] = { 3.140625f, 1.0f, 1.0f }, fg[] = { 3.171875f, 1.0f, 1.0f };
	float fg3[] = { 3.1875f, 1.0f, 1.0f };
	struct tolerance exact = { 0, 0 };
	struct array_view gv = view(DTYPE_FLOAT16, 1, s3, g), wv = view(DTYPE_FLOAT16, 1, s3, w);
	struct compare_result r;
	struct buf d = BUF_INIT;
	struct err e = ERR_INIT;

	compare_result_init(&r);
	is_int(cmp(&gv, &wv, &deflt, &r, &d), COMPARE_OK, "float16 values 2 ulp and 1 ulp apart pass: %s", d.data);
	ok(strstr(d.data, "or 2 ulp of float16") != NULL, "the description names the ulp term");
	is_int(cmp(&gv, &wv, &exact, &r, &d), COMPARE_OK, "even with atol and rtol 0");
	gv = view(DTYPE_FLOAT16, 1, s3, g3);
	wv = view(DTYPE_FLOAT16, 1, s3, w3);
	is_int(cmp(&gv, &wv, &deflt, &r, &d), COMPARE_VALUE, "3 ulps apart is a mismatch");

	gv = view(DTYPE_FLOAT32, 1, s3, fg);
	wv = view(DTYPE_FLOAT32, 1, s3, fw);
	is_int(cmp(&gv, &wv, &deflt, &r, &d), COMPARE_VALUE, "float32 has no ulp term (3.171875 vs 3.140625)");
	ok(compare_arrays_as(&gv, &wv, DTYPE_BFLOAT16, &deflt, &r, &e) == 0 && r.outcome == COMPARE_OK,
	   "the same values as bfloat16 widened to float32: 2 ulps pass");
	gv = view(DTYPE_FLOAT32, 1, s3, fg3);
	ok(compare_arrays_as(&gv, &wv, DTYPE_BFLOAT16, &deflt, &r, &e) == 0 && r.outcome == COMPARE_VALUE,
	   "3 ulps of bfloat16 do not");
	ok(compare_arrays_as(&gv, &wv, DTYPE_INT64, &deflt, &r, &e) == 0 && r.outcome == COMPARE_VALUE && !r.ulps,
	   "a real dtype that is no half type adds nothing");
	compare_result_release(&r);
	buf_release(&d);
	err_release(&e);
}

/* Untie an indices output against data; returns the number untied, -1 when not applicable. The
 * fixed copy must equal want exactly where untied. */
static long untie(const struct array_view *g, const struct array_view *w, const struct array_view *data,
		  struct compare_result *r)
{
	struct err e = ERR_INIT;
	void *fixed = NULL;
	uint64_t n = 0;
	long ret = -1;

	if (compare_untie(g, w, data, &fixed, &n) == 1) {
		struct array_view f = *g;

		f.data = fixed;
		ret = compare_arrays(&f, w, &deflt, r, &e) == 0 && r->outcome == COMPARE_OK ? (long)n : -2 - (long)n;
	}
	free(fixed);
	err_release(&e);
	return ret;
}

static void test_ties(void)
{
	/* topk(k=2, dim=1) of [[3, 1, 1, 0], [5, 5, 2, 7]]: values [[3, 1], [7, 5]]; the reference's
	 * indices [[0, 1], [3, 0]]; a frontend's [[0, 2], [3, 1]] picks the other 1 and the other 5. */
	int64_t sd[] = { 2, 4 }, si[] = { 2, 2 }, s1[] = { 2 }, s0[] = { 1 };
	float data[] = { 3, 1, 1, 0, 5, 5, 2, 7 };
	int64_t want[] = { 0, 1, 3, 0 }, tie[] = { 0, 2, 3, 1 }, wrong[] = { 0, 3, 3, 0 };
	int64_t oob[] = { 0, 9, 3, 0 };
	/* argmax(dim=1) keepdim=False: [0, 0] against [0, 1] (row 1: 5 at 0 and 1) */
	int64_t am_want[] = { 0, 0 }, am_got[] = { 0, 1 };
	/* argmax over all: a single index into the flattened data; 4 and 5 are both 5 */
	int64_t flat_want[] = { 7 }, flat_tie[] = { 7 }, flat_wrong[] = { 4 };
	int32_t i32[] = { 0, 2, 3, 1 };
	struct array_view d = view(DTYPE_FLOAT32, 2, sd, data), w = view(DTYPE_INT64, 2, si, want);
	struct array_view g = view(DTYPE_INT64, 2, si, tie);
	struct compare_result r;

	compare_result_init(&r);
	ok(compare_tie_output("torch.topk", 1, 2) && compare_tie_output("torch.Tensor.topk", 1, 2) &&
	   compare_tie_output("TopK", 1, 2) && compare_tie_output("ArgMax", 0, 1) &&
	   compare_tie_output("torch.Tensor.sort", 1, 2) && compare_tie_output("torch.max", 1, 2),
	   "topk, TopK, ArgMax, sort and max with dim name their indices output");
	ok(!compare_tie_output("torch.topk", 0, 2) && !compare_tie_output("torch.max", 0, 1) &&
	   !compare_tie_output("torch.add", 0, 1) && !compare_tie_output("torch.nn.functional.max_pool2d", 1, 2) &&
	   !compare_tie_output(NULL, 0, 1),
	   "values outputs, max without dim, other operators: no tie rule");
	is_int((int)untie(&g, &w, &d, &r), 2, "indices at ties (the other 1, the other 5) are accepted");
	g = view(DTYPE_INT64, 2, si, wrong);
	is_int((int)untie(&g, &w, &d, &r), -2, "an index pointing at a different value (0 for 1) is not");
	is_int(r.outcome, COMPARE_VALUE, "and stays a mismatch");
	g = view(DTYPE_INT64, 2, si, oob);
	is_int((int)untie(&g, &w, &d, &r), -2, "an index out of range is not a tie");
	g = view(DTYPE_INT32, 2, si, i32);
	is_int((int)untie(&g, &w, &d, &r), -1, "other dtypes than the reference's: not applicable");
	g = view(DTYPE_INT64, 1, s1, am_got);
	w = view(DTYPE_INT64, 1, s1, am_want);
	is_int((int)untie(&g, &w, &d, &r), 1, "argmax along a removed axis: the tie in row 1 is accepted");
	g = view(DTYPE_INT64, 1, s0, flat_tie);
	w = view(DTYPE_INT64, 1, s0, flat_want);
	is_int((int)untie(&g, &w, &d, &r), 0, "a flat argmax that agrees: nothing to untie");
	flat_want[0] = 5;
	g = view(DTYPE_INT64, 1, s0, flat_wrong);
	is_int((int)untie(&g, &w, &d, &r), 1, "a flat argmax at the other 5 (index 4 for 5) is accepted");
	flat_wrong[0] = 7;
	is_int((int)untie(&g, &w, &d, &r), -2, "index 7 (the value 7) for 5 is not");
	compare_result_release(&r);
}

static void test_shape_dtype(void)
{
	int64_t s23[] = { 2, 3 }, s32[] = { 3, 2 }, s6[] = { 6 }, s1[] = { 1 };
	float f[6] = { 0 };
	double dd[6] = { 0 };
	struct array_view g = view(DTYPE_FLOAT32, 2, s23, f), w = view(DTYPE_FLOAT32, 2, s32, f);
	struct compare_result r;
	struct buf d = BUF_INIT;

	compare_result_init(&r);
	is_int(cmp(&g, &w, &deflt, &r, &d), COMPARE_SHAPE, "[2, 3] vs [3, 2]: shape mismatch");
	is(d.data, "shape mismatch: got [2, 3], want [3, 2]", "described with both shapes");
	w = view(DTYPE_FLOAT32, 1, s6, f);
	is_int(cmp(&g, &w, &deflt, &r, &d), COMPARE_SHAPE, "same size, other rank: shape mismatch");
	g = view(DTYPE_FLOAT32, 0, NULL, f);
	w = view(DTYPE_FLOAT32, 1, s1, f);
	is_int(cmp(&g, &w, &deflt, &r, &d), COMPARE_SHAPE, "a scalar is not a [1]");
	is(d.data, "shape mismatch: got [], want [1]", "described");

	g = view(DTYPE_FLOAT32, 2, s23, f);
	w = view(DTYPE_FLOAT64, 2, s23, dd);
	is_int(cmp(&g, &w, &deflt, &r, &d), COMPARE_DTYPE, "float32 vs float64: dtype mismatch");
	is(d.data, "dtype mismatch: got float32, want float64", "described with both dtypes");
	w = view(DTYPE_FLOAT64, 2, s32, dd);
	is_int(cmp(&g, &w, &deflt, &r, &d), COMPARE_SHAPE, "shape is checked before dtype");
	compare_result_release(&r);
	buf_release(&d);
}

static void test_empty_scalar_strided(void)
{
	int64_t s03[] = { 0, 3 }, s0[] = { 0 }, s23[] = { 2, 3 }, st[] = { 4, 8 };
	float a = 0.1f, b = 0.1f;
	/* got is the transpose of a 3x2 buffer: got[i][j] = buf[j][i] */
	float buf32[6] = { 0, 3, 1, 4, 2, 5 }, want[6] = { 0, 1, 2, 3, 4, 5 };
	unsigned char raw[1 + 2 * sizeof(double)];
	double two[2] = { 1.5, -2.25 };
	int64_t s2[] = { 2 };
	struct array_view g = view(DTYPE_FLOAT32, 2, s03, NULL), w = view(DTYPE_FLOAT32, 2, s03, NULL);
	struct compare_result r;
	struct buf d = BUF_INIT;

	compare_result_init(&r);
	is_int(cmp(&g, &w, &deflt, &r, &d), COMPARE_OK, "empty tensors [0, 3] compare OK");
	ok(r.count == 0 && !r.has_worst, "with no elements");
	is(d.data, "no elements to compare: shape [0, 3]", "described");
	w = view(DTYPE_FLOAT32, 1, s0, NULL);
	is_int(cmp(&g, &w, &deflt, &r, &d), COMPARE_SHAPE, "[0, 3] vs [0]: shape mismatch");

	g = view(DTYPE_FLOAT32, 0, NULL, &a);
	w = view(DTYPE_FLOAT32, 0, NULL, &b);
	is_int(cmp(&g, &w, &deflt, &r, &d), COMPARE_OK, "scalars compare");
	a = 0.5f;
	is_int(cmp(&g, &w, &deflt, &r, &d), COMPARE_VALUE, "and differ");
	is(d.data, "max |got - want| = 0.3999999985098839 at [] (got 0.5, want 0.1), 1 of 1 elements "
		   "beyond atol 0.001 + rtol 0.001", "float32 values print short, the distance in full");

	g = view(DTYPE_FLOAT32, 2, s23, buf32);
	g.strides = st;
	w = view(DTYPE_FLOAT32, 2, s23, want);
	is_int(cmp(&g, &w, &deflt, &r, &d), COMPARE_OK, "a transposed view compares through its strides");
	buf32[1] = 40; /* buf[0][1], that is got[1][0] */
	is_int(cmp(&g, &w, &deflt, &r, &d), COMPARE_VALUE, "a change in the underlying buffer shows");
	ok(r.worst_index[0] == 1 && r.worst_index[1] == 0 && strcmp(r.worst_got, "40.0") == 0,
	   "at the transposed index [1, 0]");

	/* Unaligned doubles: UBSan would flag a direct load. */
	memcpy(raw + 1, two, sizeof(two));
	g = view(DTYPE_FLOAT64, 1, s2, raw + 1);
	w = view(DTYPE_FLOAT64, 1, s2, two);
	is_int(cmp(&g, &w, &deflt, &r, &d), COMPARE_OK, "unaligned data compares");
	compare_result_release(&r);
	buf_release(&d);
}

static void test_worst_and_errors(void)
{
	int64_t s3[] = { 3 }, neg[] = { -1 };
	double g[] = { 1.5, 1, 3.5 }, w[] = { 1, 1, 3 };
	struct array_view gv = view(DTYPE_FLOAT64, 1, s3, g), wv = view(DTYPE_FLOAT64, 1, s3, w);
	struct tolerance bad = { -1, 0 }, nan_tol = { 0, NAN };
	struct compare_result r;
	struct buf d = BUF_INIT;
	struct err e = ERR_INIT;

	compare_result_init(&r);
	cmp(&gv, &wv, &deflt, &r, &d);
	ok(r.worst_index[0] == 0 && r.mismatches == 2, "of two equal distances the first is the worst");

	ok(compare_arrays(&gv, &wv, &bad, &r, &e) < 0 && strstr(e.msg, "tolerance"), "negative atol: %s", e.msg);
	err_release(&e);
	ok(compare_arrays(&gv, &wv, &nan_tol, &r, &e) < 0, "NaN rtol is an error");
	err_release(&e);
	gv.shape = neg;
	ok(compare_arrays(&gv, &wv, &deflt, &r, &e) < 0 && strstr(e.msg, "negative dimension"),
	   "a negative dimension: %s", e.msg);
	err_release(&e);
	gv.shape = s3;
	gv.data = NULL;
	ok(compare_arrays(&gv, &wv, &deflt, &r, &e) < 0 && strstr(e.msg, "no data"), "no data: %s", e.msg);
	err_release(&e);
	gv.data = g;
	gv.dtype = (enum dtype)99;
	ok(compare_arrays(&gv, &wv, &deflt, &r, &e) < 0, "an unknown dtype: %s", e.msg);
	err_release(&e);
	compare_result_release(&r);
	buf_release(&d);
}

int main(void)
{
	plan(100);
	test_formats();
	test_equal_and_brief_example();
	test_tolerance_edges();
	test_nan_inf();
	test_integers();
	test_bool();
	test_float16();
	test_half_ulps();
	test_ties();
	test_shape_dtype();
	test_empty_scalar_strided();
	test_worst_and_errors();
	return done();
}
