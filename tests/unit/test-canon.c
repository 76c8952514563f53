/* test-canon.c: the canonical-line reader (lib/canon.h) against the slow path (record_parse).
 *
 *   1. canon_double writes every double as json_add_double does: random bit patterns over the usual
 *      magnitudes and beyond, short decimals, powers of two and ten and their neighbours, ties.
 *   2. Records: every line of the corpora in tests/data, plus handmade records with what is rare in a
 *      corpus (escapes, raw unicode, nested tensors, big integers, nan and inf, opaque values, graphs,
 *      wrap statuses, annotations). Each is written by record_write, which the reader must take, and
 *      mutated into hostile lines (re-spaced, re-spelled numbers and escapes, reordered, duplicated,
 *      truncated, bytes flipped). For every line the reader takes, record_parse must take it too and
 *      give the same id, canonical form, unmigratable flag, tier and subspace codes.
 *   3. The corpus of all those lines is ranked by every strategy after a load with the canonical
 *      reader and after a load with cJSON only: the queues and the bad-line messages are the same,
 *      byte for byte.
 *
 * With "--write DIR" it writes that corpus (DIR/hostile.jsonl) and coverage for it (DIR/coverage.jsonl)
 * for tests/cli/rank-reader.sh, which compares the two readers through the ferry command. */
#include <cjson/cJSON.h>
#include <glob.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "canon.h"
#include "counts.h"
#include "jsonl.h"
#include "rank.h"
#include "record.h"
#include "subspace.h"
#include "tap.h"
#include "xalloc.h"

static uint64_t rng = 20250;

static uint64_t rnd(void)
{
	rng += 0x9e3779b97f4a7c15ULL;
	return intern_mix(rng);
}

/* --- 1. doubles --------------------------------------------------------------------------------- */

static size_t dbl_checked, dbl_bad;

static void check_double(double d)
{
	struct buf b = BUF_INIT;
	char out[48];
	int n = canon_double(d, out);

	dbl_checked++;
	json_add_double(&b, d);
	if (isnan(d) || isinf(d)) {
		if (n != -1 && dbl_bad++ < 5)
			diag("canon_double(%g) wrote '%s'", d, out);
	} else if (n < 0 || strcmp(out, b.data)) {
		if (dbl_bad++ < 5)
			diag("canon_double(%.17g) = '%s', json_add_double = '%s'", d, n < 0 ? "(none)" : out, b.data);
	}
	buf_release(&b);
}

/* canon_double_g against printf, at the queue's precision (6) and others. */
static void test_double_g(void)
{
	static const int precs[] = { 1, 2, 6, 10, 15, 16, 17 };
	size_t checked = 0, bad = 0;
	char want[64], got[48];

	for (int i = 0; i < 300000; i++) {
		double d;
		int p = precs[i % 7];

		if (i % 3 == 0) {
			uint64_t bits = rnd();

			memcpy(&d, &bits, sizeof(d));
		} else if (i % 3 == 1) {
			d = ((double)(rnd() >> 11) / 9007199254740992.0) * pow(10, (int)(rnd() % 30) - 15);
		} else {
			/* Short decimals and halves, where rounding ties. */
			d = (double)(rnd() % 2000001) / (double)(1ULL << (rnd() % 12)) * pow(10, (int)(rnd() % 9) - 4);
		}
		checked++;
		snprintf(want, sizeof(want), "%.*g", p, d);
		canon_double_g(d, p, got);
		if (strcmp(want, got) && bad++ < 5)
			diag("%%.%dg of %.17g: printf '%s', canon_double_g '%s'", p, d, want, got);
	}
	ok(bad == 0, "canon_double_g writes %zu doubles at precisions 1 to 17 as printf does (%zu differ)", checked, bad);
}

static void test_doubles(void)
{
	static const double fixed[] = {
		0.0, -0.0, 0.1, 0.5, 1.5, 0.3, 2.5, 1e-5, 1e-4, 1e15, 1e16, 1e17, 1e22, 1e23, 123456.789,
		999999999999999.9, 1e15 + 0.5, 4503599627370495.5, 9007199254740993.0, 0.1 + 0.2, 1.0 / 3,
		2.0 / 3, 5e-324, 2.2250738585072014e-308, 1.7976931348623157e308, 4.852362914575788,
		-8.39624274806686, 9.5, 0.95, 0.095, 1e-11, 1e-12, 9.999999999999999e-12, 3.14159,
		1.1920928955078125e-07, 5.9604644775390625e-08, 0.000244140625,
	};
	char text[64];

	for (size_t i = 0; i < sizeof(fixed) / sizeof(fixed[0]); i++) {
		check_double(fixed[i]);
		check_double(-fixed[i]);
		check_double(nextafter(fixed[i], INFINITY));
		check_double(nextafter(fixed[i], 0));
	}
	check_double(NAN);
	check_double(INFINITY);
	for (int e = -1074; e < 1024; e++) {
		double p = ldexp(1, e);

		check_double(p);
		check_double(nextafter(p, 0));
		check_double(nextafter(p, INFINITY));
		check_double(p * 3);
	}
	for (int e = -320; e <= 308; e++) {
		double p;

		snprintf(text, sizeof(text), "1e%d", e);
		p = strtod(text, NULL);
		check_double(p);
		check_double(nextafter(p, 0));
		check_double(nextafter(p, INFINITY));
	}
	/* Random doubles in the magnitudes the fast path covers, and anywhere. */
	for (int i = 0; i < 200000; i++) {
		double u = (double)(rnd() >> 11) / 9007199254740992.0;
		int e = (int)(rnd() % 40) - 20;

		check_double((u - 0.5) * pow(10, e));
	}
	for (int i = 0; i < 50000; i++) {
		uint64_t bits = rnd();
		double d;

		memcpy(&d, &bits, sizeof(d));
		check_double(d);
	}
	/* Short decimals, as tests write them: 1 to 17 digits, exponents around the usual. */
	for (int i = 0; i < 100000; i++) {
		int digits = 1 + (int)(rnd() % 17), e = (int)(rnd() % 30) - 15;
		uint64_t m = rnd() % 100000000000000000ULL;

		while (m >= 10 && m >= (uint64_t)pow(10, digits))
			m /= 10;
		snprintf(text, sizeof(text), "%llue%d", (unsigned long long)m, e);
		check_double(strtod(text, NULL));
	}
	ok(dbl_bad == 0, "canon_double writes %zu doubles as json_add_double does (%zu differ)", dbl_checked,
	   dbl_bad);
	test_double_g();
}

/* --- 2. records --------------------------------------------------------------------------------- */

/* Everything the ranking reads of a record, as text, from either path. */
static void summary(const struct instance *in, const struct buf *canonical, enum rank_tier tier, struct buf *out)
{
	struct subspace_row row;

	subspace_row_init(&row);
	subspace_row_fill(&row, in);
	buf_reset(out);
	buf_addf(out, "id=%s op=%s lib=%s tier=%d unmig=%d canon=%s\n", in->id, in->op, in->library, (int)tier,
		 (int)in->unmigratable, canonical->data);
	for (size_t i = 0; i < row.n; i++)
		buf_addf(out, "  %.*s=%016llx\n", (int)row.p[i].len, row.p[i].name, (unsigned long long)row.p[i].code);
	subspace_row_release(&row);
}

struct tally {
	size_t lines, fast, fast_wrong, canonical, canonical_refused, slow_bad;
};

static struct canon cn;

/* One line through both readers. 1 when the canonical reader took it. */
static int check_line(const char *line, size_t len, struct tally *t)
{
	struct instance in;
	struct err e = ERR_INIT;
	struct buf a = BUF_INIT, b = BUF_INIT, canon_slow = BUF_INIT, canon_view = BUF_INIT;
	int fast = canon_parse(&cn, line, len) == 0, slow;

	t->lines++;
	slow = record_parse(&in, line, len, &e) == 0;
	t->slow_bad += !slow;
	if (!fast)
		goto out;
	t->fast++;
	if (!slow) {
		if (t->fast_wrong++ < 5)
			diag("taken by the canonical reader, refused by record_parse (%s): %.*s", e.msg, (int)len, line);
		goto out;
	}
	record_canonical(&in, &canon_slow);
	/* The view's own canonical form must be the text it hashed. */
	record_canonical(&cn.in, &canon_view);
	summary(&cn.in, &cn.text, cn.in.unmigratable ? RANK_TIER_UNMIGRATABLE :
		cn.wrap_invalid ? RANK_TIER_INVALID : RANK_TIER_OK, &a);
	summary(&in, &canon_slow, rank_tier_of(&in), &b);
	if (strcmp(a.data, b.data) || strcmp(canon_view.data, cn.text.data)) {
		if (t->fast_wrong++ < 5)
			diag("the readers differ on %.*s\n# canonical reader:\n%s# record_parse:\n%s# view: %s", (int)len,
			     line, a.data, b.data, canon_view.data);
	}
out:
	if (slow)
		record_release(&in);
	err_release(&e);
	buf_release(&a);
	buf_release(&b);
	buf_release(&canon_slow);
	buf_release(&canon_view);
	return fast;
}

/* Records with what corpora rarely hold. */
static const char *const handmade[] = {
	"{\"library\":\"onnx\",\"op\":\"Pad\",\"params\":{\"mode\":{\"str\":\"caf\xc3\xa9 \xe6\x97\xa5\xe6\x9c\xac \xf0\x9f\x98\x80\"},"
	"\"q\\\"uote\":{\"str\":\"a\\\\b\\\"c\\/d\\n\\t\\r\\b\\f\\u0001\\u001f\\u007f\\u00e9\"}},"
	"\"inputs\":[{\"tensor\":{\"dtype\":\"float32\",\"shape\":[2,null,0]}}],\"source\":{\"test\":\"\\u00e9\\ud83d\\ude00\"}}",
	"{\"library\":\"torch\",\"op\":\"torch.cat\",\"kind\":\"function\",\"params\":{\"tensors\":{\"list\":["
	"{\"tensor\":{\"dtype\":\"int64\",\"shape\":[3],\"values\":[1,-2,9007199254740992]}},"
	"{\"tuple\":[{\"tensor\":{\"dtype\":\"float32\",\"shape\":[2],\"values\":[0.5,\"nan\",\"-inf\",1e300,-0.0,true]}},"
	"{\"dict\":{\"b\":{\"none\":null},\"a\":{\"tensor\":{\"dtype\":\"bool\",\"shape\":[],\"values\":[false]}}}}]}]}},"
	"\"inputs\":[{\"tensor\":{\"dtype\":\"float64\",\"shape\":[4,4],\"range\":[\"-inf\",1.5]}}],"
	"\"outputs\":[{\"tensor\":{\"dtype\":\"float64\",\"shape\":[8,4],\"range\":[0.1,\"nan\"]}}]}",
	"{\"library\":\"onnx\",\"op\":\"Constant\",\"context\":{\"opset\":{\"int\":17}},\"params\":{"
	"\"big\":{\"int\":\"9223372036854775807\"},\"small\":{\"int\":\"-9223372036854775808\"},\"edge\":{\"int\":-9007199254740992},"
	"\"f\":{\"float\":1e-7},\"g\":{\"float\":123456.789},\"h\":{\"float\":\"inf\"},\"i\":{\"float\":-0.0},"
	"\"j\":{\"float\":5e-324},\"k\":{\"float\":1.7976931348623157e308},\"l\":{\"float\":0.30000000000000004},"
	"\"m\":{\"bool\":true},\"n\":{\"none\":null},\"o\":{\"dtype\":\"bfloat16\"},\"p\":{\"callable\":\"torch.relu\"}},"
	"\"inputs\":[],\"seen\":3}",
	"{\"library\":\"torch\",\"op\":\"torch.nn.Module\",\"params\":{\"fn\":{\"opaque\":\"<lambda at 0x7f>\"}},"
	"\"inputs\":[{\"tensor\":{\"dtype\":\"float32\",\"shape\":[1]}}],\"wrap\":{\"status\":\"ok\"}}",
	"{\"library\":\"onnx\",\"op\":\"Relu\",\"inputs\":[{\"tensor\":{\"dtype\":\"float32\",\"shape\":[1,2,3,4,5,6,7]}}],"
	"\"wrap\":{\"status\":\"invalid\",\"status2\":1,\"why\":[1,{\"x\":null}]}}",
	"{\"library\":\"onnx\",\"op\":\"Relu\",\"inputs\":[{\"tensor\":{\"dtype\":\"float32\",\"shape\":[9]}}],"
	"\"wrap\":[\"status\",\"invalid\"]}",
	"{\"library\":\"onnx\",\"op\":\"Relu\",\"inputs\":[{\"tensor\":{\"dtype\":\"float32\",\"shape\":[10]}}],"
	"\"wrap\":{\"status\":{\"status\":\"invalid\"}}}",
	"{\"library\":\"onnx\",\"op\":\"Model\",\"params\":{\"m\":{\"graph\":{\"format\":\"onnx\",\"data\":\"AAEC\"}}},"
	"\"inputs\":[{\"tensor\":{\"dtype\":\"float32\",\"shape\":[1]}}]}",
	"{\"library\":\"onnx\",\"op\":\"graph\",\"kind\":\"graph\",\"inputs\":[],\"graph\":{\"nodes\":[{\"op\":\"Relu\","
	"\"x\":0.25,\"y\":[1,2.5,\"s\\n\"],\"z\":{}}],\"a\":true,\"b\":null}}",
	"{\"library\":\"x\\u0001\",\"op\":\"\\t\",\"kind\":\"\",\"params\":{\"\\u0002\":{\"int\":0},\"\\u0001\":{\"int\":-1}}}",
};

static struct buf corpus = BUF_INIT;

static void add_line(const char *s, size_t n, struct tally *t)
{
	check_line(s, n, t);
	buf_add(&corpus, s, n);
	buf_addc(&corpus, '\n');
}

/* Replace the first occurrence of from in line by to; 0 when absent. */
static int replaced(const char *line, const char *from, const char *to, struct buf *out)
{
	const char *at = strstr(line, from);

	if (!at)
		return 0;
	buf_reset(out);
	buf_add(out, line, (size_t)(at - line));
	buf_adds(out, to);
	buf_adds(out, at + strlen(from));
	return 1;
}

static const char *const respell[][2] = {
	{ ":", ": " }, { ",", ", " }, { "{", "{ " }, { "\"int\":1", "\"int\":1.0" }, { "\"int\":0", "\"int\":-0" },
	{ "\"int\":3", "\"int\":3e0" }, { "\"int\":1", "\"int\":\"1\"" }, { "0.5", "0.50" }, { "0.5", "5e-1" },
	{ ".5", ".5000000000000001" }, { "\"nan\"", "\"NaN\"" }, { "\\n", "\\u000a" }, { "\\u0001", "\\u0001\\/" },
	{ "\xc3\xa9", "\\u00e9" }, { "\"shape\":[", "\"shape\": [" }, { "\"dtype\":", "\"dtype\" :" },
	{ "\"kind\":", "\"kind\":\"x\",\"kind\":" }, { "}}", "}, \"seen\":1}" }, { "\"params\":{", "\"params\":{\"a\":{\"int\":1},\"a\":{\"int\":2}," },
	{ "\"context\":{}", "\"context\":{},\"context\":{}" }, { "\"library\":\"", "\"library\":\"\\u0000" },
	{ "\"id\":\"", "\"id\": \"" }, { "\"status\":\"invalid\"", "\"stat\\u0075s\":\"invalid\"" },
	{ "\"wrap\"", "\"wr\\u0061p\"" }, { "\"float\":", "\"float\":1e400,\"x\":" }, { "\"float\":", "\"float\":1e999}" },
	{ "true", "True" }, { "]", ",]" }, { "\"op\":\"", "\"op\":\"\\ud800" },
};

static void test_records(void)
{
	struct tally t = { 0 }, tc = { 0 };
	glob_t g;
	struct buf w = BUF_INIT, m = BUF_INIT;
	size_t nrec = 0;

	memset(&g, 0, sizeof(g));
	glob(ABS_TOP_SRCDIR "/tests/data/*/*.jsonl", 0, NULL, &g);
	glob(ABS_TOP_SRCDIR "/tests/data/*/*/*.jsonl", GLOB_APPEND, NULL, &g);
	glob(ABS_TOP_SRCDIR "/tests/fuzz/corpus-record/*.jsonl", GLOB_APPEND, NULL, &g);
	for (size_t f = 0; f <= g.gl_pathc; f++) {
		FILE *fp = f < g.gl_pathc ? fopen(g.gl_pathv[f], "r") : NULL;
		char *line = NULL;
		size_t cap = 0, hm = 0;
		ssize_t n;

		if (f < g.gl_pathc && !fp)
			continue;
		for (;;) {
			struct instance in;
			struct err e = ERR_INIT;

			if (fp) {
				if ((n = getline(&line, &cap, fp)) < 0)
					break;
				while (n > 0 && (line[n - 1] == '\n' || line[n - 1] == '\r'))
					line[--n] = '\0';
			} else {
				if (hm == sizeof(handmade) / sizeof(handmade[0]))
					break;
				free(line);
				line = xstrdup(handmade[hm++]);
				n = (ssize_t)strlen(line);
			}
			/* The line as it is (hand-written, mostly: the slow path's), then as ferry writes it. */
			add_line(line, (size_t)n, &t);
			if (record_parse(&in, line, (size_t)n, &e) < 0) {
				if (!fp)
					diag("handmade record %zu does not parse: %s", hm, e.msg);
				err_release(&e);
				continue;
			}
			nrec++;
			buf_reset(&w);
			record_write(&in, &w);
			record_release(&in);
			tc.canonical++;
			if (!check_line(w.data, w.len, &tc)) {
				if (tc.canonical_refused++ < 5)
					diag("a line record_write wrote is not taken: %s", w.data);
			}
			buf_add(&corpus, w.data, w.len);
			buf_addc(&corpus, '\n');
			/* Hostile spellings of it. */
			for (size_t r = 0; r < sizeof(respell) / sizeof(respell[0]); r++)
				if (replaced(w.data, respell[r][0], respell[r][1], &m))
					add_line(m.data, m.len, &t);
			for (int cut = 0; cut < 3; cut++) {
				size_t at = (size_t)(rnd() % w.len);

				add_line(w.data, at, &t);
			}
			for (int flip = 0; flip < 20; flip++) {
				/* sizeof counts the terminating NUL: a NUL byte in a line is one of the flips. */
				static const char flips[] = "\"{}[],:\\0123456789.e-+tnu\x01\xff ";

				buf_reset(&m);
				buf_add(&m, w.data, w.len);
				m.data[rnd() % m.len] = flips[rnd() % sizeof(flips)];
				if (memchr(m.data, '\n', m.len))
					continue;
				add_line(m.data, m.len, &t);
			}
		}
		free(line);
		if (fp)
			fclose(fp);
	}
	globfree(&g);
	diag("%zu records; %zu hostile lines, of which the canonical reader took %zu and record_parse refused %zu",
	     nrec, t.lines, t.fast, t.slow_bad);
	ok(nrec >= 100, "at least 100 records from tests/data and the handmade ones (%zu)", nrec);
	ok(tc.canonical_refused == 0, "the canonical reader takes every line that record_write writes (%zu of %zu)",
	   tc.fast, tc.canonical);
	ok(tc.fast_wrong == 0, "and reads each as record_parse does: id, canonical form, tier, subspace codes");
	ok(t.fast_wrong == 0, "every hostile line it takes, record_parse takes and reads the same way (%zu taken)",
	   t.fast);
	ok(t.fast < t.lines - t.slow_bad, "it leaves the re-spelled ones to record_parse");
	buf_release(&w);
	buf_release(&m);
}

static void test_specific(void)
{
	static const char good[] = "{\"id\":\"x\",\"context\":{},\"inputs\":[],\"kind\":\"\",\"library\":\"a\",\"op\":\"b\","
		"\"outputs\":[],\"params\":{}}";
	struct instance in;
	struct err e = ERR_INIT;

	ok(canon_parse(&cn, good, strlen(good)) == 0, "the smallest canonical line is taken");
	ok(record_parse(&in, good, strlen(good), &e) == 0 && !strcmp(in.id, cn.in.id), "with the slow path's id");
	record_release(&in);
	ok(canon_parse(&cn, good, strlen(good) - 1) == -1, "a line cut short is not");
	ok(canon_parse(&cn, " ", 1) == -1 && canon_parse(&cn, "", 0) == -1, "nor a blank one");
}

/* --- 3. the queues ------------------------------------------------------------------------------ */

struct bad_log {
	struct buf text;
};

static void log_bad(void *ctx, const struct err *e)
{
	struct bad_log *b = ctx;

	buf_adds(&b->text, e->msg);
	buf_addc(&b->text, '\n');
}

static int load(struct rank_set *s, const char *path, enum rank_reader reader, int want_sig, struct buf *bad)
{
	struct bad_log bl;
	struct err e = ERR_INIT;
	size_t nbad;
	int r;

	bl.text = *bad;
	rank_set_init(s);
	s->reader = reader;
	s->want_sig = want_sig;
	r = rank_set_load(s, path, log_bad, &bl, &nbad, &e);
	*bad = bl.text;
	if (r < 0)
		diag("load: %s", e.msg);
	err_release(&e);
	return r;
}

static size_t count_lines(const struct buf *b)
{
	size_t n = 0;

	for (size_t i = 0; i < b->len; i++)
		n += b->data[i] == '\n';
	return n;
}

static void queue_text(const struct rank_set *s, const struct rank_queue *q, struct buf *out)
{
	for (size_t k = 0; k < q->n; k++) {
		rank_queue_line(s, q, k, out);
		buf_addc(out, '\n');
	}
}

static void write_coverage(const struct rank_set *s, const char *path)
{
	FILE *fp = fopen(path, "w");

	for (uint32_t i = 0; fp && i < s->n; i++) {
		uint64_t h = intern_mix(s->id_hash[i]);

		fprintf(fp, "{\"id\":\"%s\",\"covered\":[\"a.py:%u\",\"b.py:%u\",\"c.py:%u\"]}\n", rank_set_id(s, i),
			(unsigned)(h % 7), (unsigned)(h >> 8) % 5, (unsigned)(h >> 16) % 11);
	}
	if (fp)
		fclose(fp);
}

static void test_queues(const char *dir)
{
	char path[4096], cov[4096];
	FILE *fp;
	struct counts c;
	struct err e = ERR_INIT;
	static const enum rank_strategy strategies[] = { RANK_OPERA, RANK_OPERA, RANK_RANDOM, RANK_FAST, RANK_TOTAL,
							 RANK_ADDITIONAL };

	snprintf(path, sizeof(path), "%s/hostile.jsonl", dir);
	snprintf(cov, sizeof(cov), "%s/coverage.jsonl", dir);
	fp = fopen(path, "w");
	if (!fp || fwrite(corpus.data, 1, corpus.len, fp) != corpus.len || fclose(fp)) {
		ok(0, "cannot write '%s'", path);
		return;
	}
	counts_init(&c);
	if (counts_load(&c, ABS_TOP_SRCDIR "/tests/data/rank/counts.json", &e) < 0)
		diag("counts: %s", e.msg);
	for (size_t k = 0; k < sizeof(strategies) / sizeof(strategies[0]); k++) {
		struct rank_set a, b;
		struct rank_queue qa = RANK_QUEUE_INIT, qb = RANK_QUEUE_INIT;
		struct rank_opts o = RANK_OPTS_INIT;
		struct buf ta = BUF_INIT, tb = BUF_INIT, ba = BUF_INIT, bb = BUF_INIT;
		int want_sig = strategies[k] == RANK_FAST, same;
		size_t unknown;

		o.strategy = strategies[k];
		o.seed = 7;
		o.counts = k == 1 ? &c : NULL;
		if (load(&a, path, RANK_READER_AUTO, want_sig, &ba) < 0 || load(&b, path, RANK_READER_CJSON, want_sig, &bb) < 0) {
			ok(0, "load the hostile corpus");
			continue;
		}
		if (k == 0)
			write_coverage(&a, cov);
		if (o.strategy == RANK_TOTAL || o.strategy == RANK_ADDITIONAL) {
			if (rank_set_load_coverage(&a, cov, &unknown, &e) < 0 ||
			    rank_set_load_coverage(&b, cov, &unknown, &e) < 0)
				diag("coverage: %s", e.msg);
		}
		if (rank_run(&a, &o, &qa, NULL, &e) < 0 || rank_run(&b, &o, &qb, NULL, &e) < 0)
			diag("rank: %s", e.msg);
		queue_text(&a, &qa, &ta);
		queue_text(&b, &qb, &tb);
		same = ta.len > 0 && !strcmp(ta.data, tb.data) && !strcmp(ba.data, bb.data) && a.n == b.n;
		ok(same, "%s%s: the queue of %zu instances and the %zu bad-line messages are the same from both readers",
		   rank_strategy_name(o.strategy), o.counts ? " with counts" : "", a.n, count_lines(&ba));
		if (!same) {
			size_t at = 0;

			while (at < ta.len && at < tb.len && ta.data[at] == tb.data[at])
				at++;
			diag("first difference at byte %zu: '%.80s' / '%.80s'", at, ta.data + at, tb.data + at);
		}
		rank_queue_release(&qa);
		rank_queue_release(&qb);
		rank_set_release(&a);
		rank_set_release(&b);
		buf_release(&ta);
		buf_release(&tb);
		buf_release(&ba);
		buf_release(&bb);
	}
	counts_release(&c);
	err_release(&e);
}

int main(int argc, char **argv)
{
	char dir[] = "/tmp/ferry-test-canon.XXXXXX";
	const char *out = argc == 3 && !strcmp(argv[1], "--write") ? argv[2] : NULL;

	canon_init(&cn);
	if (out) {
		/* The corpus and its coverage for tests/cli/rank-reader.sh; the checks run too, quietly. */
		if (!freopen("/dev/null", "w", stdout))
			return 1;
		test_records();
		test_queues(out);
		canon_release(&cn);
		buf_release(&corpus);
		return 0;
	}
	plan(2 + 5 + 4 + 6);
	test_doubles();
	test_records();
	test_specific();
	if (!mkdtemp(dir)) {
		ok(0, "mkdtemp");
		return done();
	}
	test_queues(dir);
	{
		char p[4200];

		snprintf(p, sizeof(p), "%s/hostile.jsonl", dir);
		unlink(p);
		snprintf(p, sizeof(p), "%s/coverage.jsonl", dir);
		unlink(p);
		rmdir(dir);
	}
	canon_release(&cn);
	buf_release(&corpus);
	return done();
}
