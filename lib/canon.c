/* canon.c: the fast reader of canonical record lines (canon.h). */
#include "canon.h"
#include "xalloc.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <xxhash.h>

/* --- the arena ---------------------------------------------------------------------------------- */

/* One line's values live in chunks that are kept from line to line; after a line that needed more
 * than one, they are merged into one of the total size, so that the steady state is one chunk. */
struct canon_chunk {
	struct canon_chunk *next;
	size_t used, cap;
	max_align_t data[];
};

#define CHUNK_MIN (64u << 10)

static void arena_free(struct canon_chunk *k)
{
	while (k) {
		struct canon_chunk *next = k->next;

		free(k);
		k = next;
	}
}

static void arena_reset(struct canon *c)
{
	size_t total = 0;

	if (c->arena && c->arena->next) {
		for (struct canon_chunk *k = c->arena; k; k = k->next)
			total += k->cap;
		arena_free(c->arena);
		c->arena = NULL;
	}
	if (!c->arena) {
		if (total < CHUNK_MIN)
			total = CHUNK_MIN;
		c->arena = xmalloc(sizeof(*c->arena) + total);
		c->arena->next = NULL;
		c->arena->cap = total;
	}
	c->arena->used = 0;
}

static void *arena_alloc(struct canon *c, size_t n)
{
	struct canon_chunk *k = c->arena;
	size_t a = sizeof(max_align_t), at = (k->used + a - 1) / a * a;

	if (at + n > k->cap) {
		size_t cap = n > 2 * k->cap ? n : 2 * k->cap;

		k = xmalloc(sizeof(*k) + cap);
		k->next = c->arena;
		k->cap = cap;
		c->arena = k;
		at = 0;
	}
	k->used = at + n;
	return (char *)k->data + at;
}

static char *arena_str(struct canon *c, const char *s, size_t n)
{
	char *p = arena_alloc(c, n + 1);

	memcpy(p, s, n);
	p[n] = '\0';
	return p;
}

void canon_init(struct canon *c)
{
	memset(c, 0, sizeof(*c));
	record_init(&c->in);
	buf_init(&c->text);
	buf_init(&c->tmp);
}

void canon_release(struct canon *c)
{
	arena_free(c->arena);
	buf_release(&c->text);
	buf_release(&c->tmp);
	free(c->vstack);
	free(c->fstack);
	canon_init(c);
}

/* --- doubles ------------------------------------------------------------------------------------ */

static const uint64_t pow10_u64[18] = {
	1ULL, 10ULL, 100ULL, 1000ULL, 10000ULL, 100000ULL, 1000000ULL, 10000000ULL, 100000000ULL,
	1000000000ULL, 10000000000ULL, 100000000000ULL, 1000000000000ULL, 10000000000000ULL,
	100000000000000ULL, 1000000000000000ULL, 10000000000000000ULL, 100000000000000000ULL,
};

#define MAX_POW5 27

typedef unsigned __int128 u128;

/* %.{p}g of a value whose p digits are q (q < 10^p) and whose first digit has decimal exponent x. */
static int format_g(char *out, int neg, uint64_t q, int p, int x)
{
	char dig[24];
	int k = p, n = 0;

	for (int i = p - 1; i >= 0; i--) {
		dig[i] = (char)('0' + q % 10);
		q /= 10;
	}
	while (k > 1 && dig[k - 1] == '0')
		k--;
	if (neg)
		out[n++] = '-';
	if (x < -4 || x >= p) {
		int ax = x < 0 ? -x : x;

		out[n++] = dig[0];
		if (k > 1) {
			out[n++] = '.';
			memcpy(out + n, dig + 1, (size_t)k - 1);
			n += k - 1;
		}
		out[n++] = 'e';
		out[n++] = x < 0 ? '-' : '+';
		if (ax >= 100)
			out[n++] = (char)('0' + ax / 100);
		out[n++] = (char)('0' + ax / 10 % 10);
		out[n++] = (char)('0' + ax % 10);
	} else if (x >= 0) {
		for (int i = 0; i <= x; i++)
			out[n++] = i < k ? dig[i] : '0';
		if (k > x + 1) {
			out[n++] = '.';
			memcpy(out + n, dig + x + 1, (size_t)(k - x - 1));
			n += k - x - 1;
		}
	} else {
		out[n++] = '0';
		out[n++] = '.';
		for (int i = 0; i < -x - 1; i++)
			out[n++] = '0';
		memcpy(out + n, dig, (size_t)k);
		n += k;
	}
	out[n] = '\0';
	return n;
}

/* json_add_double's loop (the shortest of %.15g, %.16g, %.17g that reads back), or %.{fixed_p}g
 * alone, done exactly: d is
 * m 2^e2, scaled by 10^s so that its integer part N has 17 digits; the rounding of N to p digits and
 * whether that reads back (lies within half an ulp of d) are decided in 128-bit integers, everything
 * scaled by 2^K so that it is whole. -1 when d is outside the magnitudes this covers, or where a tie
 * would need the C library's own tie-breaking: the caller then asks the C library. */
static int double_fast(double d, int fixed_p, char *out)
{
	uint64_t bits, m;
	int e2, x, s, neg;

	memcpy(&bits, &d, sizeof(bits));
	neg = (int)(bits >> 63);
	e2 = (int)((bits >> 52) & 0x7ff);
	if (e2 == 0 || e2 == 0x7ff)
		return -1;
	m = (bits & ((1ULL << 52) - 1)) | (1ULL << 52);
	e2 -= 1075;
	/* log10(2) ~ 0.30103: the decimal exponent of the first digit, corrected below. */
	x = (int)floor((e2 + 52) * 0.30102999566398120);
	for (int tries = 0; tries < 3; tries++) {
		u128 D, N, frac, ulp, unit;
		int L, K;

		s = 16 - x;
		if (s < 0 || s > MAX_POW5)
			return -1;
		D = (u128)m;
		for (int i = 0; i < s; i++)
			D *= 5;
		L = s + e2;
		if (L >= 0) {
			if (L > 10)
				return -1;
			D <<= L;
			K = 0;
		} else {
			K = -L;
			if (K > 100)
				return -1;
		}
		N = D >> K;
		if (N >= (u128)pow10_u64[17]) {
			x++;
			continue;
		}
		if (N < (u128)pow10_u64[16]) {
			x--;
			continue;
		}
		frac = K ? D & (((u128)1 << K) - 1) : 0;
		unit = (u128)1 << K;
		ulp = 1;
		for (int i = 0; i < s; i++)
			ulp *= 5;
		if (L > 0)
			ulp <<= L;
		for (int p = fixed_p ? fixed_p : 15; p <= (fixed_p ? fixed_p : 17); p++) {
			uint64_t div = pow10_u64[17 - p];
			uint64_t q = (uint64_t)(N / div), r = (uint64_t)(N % div);
			u128 twice_rem = 2 * (((u128)r << K) + frac), cand, diff;
			int xr = x, below, rt;

			if (twice_rem == (u128)div * unit)
				return -1;
			if (twice_rem > (u128)div * unit)
				q++;
			cand = ((u128)q * div) << K;
			below = cand < D;
			diff = below ? D - cand : cand - D;
			/* Half an ulp either side, except below a power of two, where the next double down is
			 * half as far. */
			if (below && m == (1ULL << 52)) {
				if (4 * diff == ulp)
					return -1;
				rt = 4 * diff < ulp;
			} else {
				if (2 * diff == ulp)
					return -1;
				rt = 2 * diff < ulp;
			}
			if (!fixed_p && p < 17 && !rt)
				continue;
			if (q == pow10_u64[p]) {
				q = pow10_u64[p - 1];
				xr++;
			}
			return format_g(out, neg, q, p, xr);
		}
	}
	return -1;
}

int canon_double(double d, char out[48])
{
	struct buf b = BUF_INIT;
	int n;

	if (isnan(d) || isinf(d))
		return -1;
	if (d == floor(d) && fabs(d) < 1e15) {
		uint64_t u = (uint64_t)fabs(d);
		char dig[24];
		int k = 0;

		n = 0;
		if (signbit(d))
			out[n++] = '-';
		do {
			dig[k++] = (char)('0' + u % 10);
			u /= 10;
		} while (u);
		while (k)
			out[n++] = dig[--k];
		out[n] = '\0';
		return n;
	}
	if ((n = double_fast(d, 0, out)) >= 0)
		return n;
	json_add_double(&b, d);
	n = (int)b.len < 47 ? (int)b.len : 47;
	memcpy(out, b.data, (size_t)n);
	out[n] = '\0';
	buf_release(&b);
	return n;
}

int canon_double_g(double d, int prec, char out[48])
{
	int n;

	if (prec >= 1 && prec <= 17 && isfinite(d) && (n = double_fast(d, prec, out)) >= 0)
		return n;
	return snprintf(out, 48, "%.*g", prec, d);
}

/* --- the reader --------------------------------------------------------------------------------- */

struct cur {
	const char *p, *end;
	struct canon *c;
};

#define NOT (-1)

/* Inlined with a byte loop, which the compiler unrolls over a literal's constant length: memcmp
 * would be a call for all but the shortest (a measurable share of the parse). */
static inline __attribute__((always_inline)) int lit(struct cur *k, const char *s, size_t n)
{
	if ((size_t)(k->end - k->p) < n)
		return NOT;
	for (size_t i = 0; i < n; i++)
		if (k->p[i] != s[i])
			return NOT;
	k->p += n;
	return 0;
}

#define LIT(k, s) lit((k), (s), sizeof(s) - 1)

static int peek(const struct cur *k)
{
	return k->p < k->end ? (unsigned char)*k->p : -1;
}

static int push_depth(struct cur *k)
{
	/* As json_shape counts: every bracket; a line deeper than JSON_MAX_DEPTH is refused by the
	 * slow path, so it is not vouched for here. */
	return ++k->c->depth > JSON_MAX_DEPTH ? NOT : 0;
}

static int hexval(int ch)
{
	if (ch >= '0' && ch <= '9')
		return ch - '0';
	if (ch >= 'a' && ch <= 'f')
		return ch - 'a' + 10;
	return -1;
}

static int hexany(int ch)
{
	return ch >= 'A' && ch <= 'F' ? ch - 'A' + 10 : hexval(ch);
}

/* A string spelled as buf_add_json_string spells it; its bytes, unescaped, into the arena. */
static int str_canon(struct cur *k, char **out, size_t *outlen)
{
	const char *p = k->p, *e = k->end, *s;
	struct buf *t = &k->c->tmp;

	if (p >= e || *p != '"')
		return NOT;
	s = ++p;
	while (p < e && *p != '"' && *p != '\\' && (unsigned char)*p >= 0x20)
		p++;
	if (p < e && *p == '"') {
		*out = arena_str(k->c, s, (size_t)(p - s));
		*outlen = (size_t)(p - s);
		k->p = p + 1;
		return 0;
	}
	buf_reset(t);
	buf_add(t, s, (size_t)(p - s));
	for (;;) {
		unsigned char ch;

		if (p >= e)
			return NOT;
		ch = (unsigned char)*p;
		if (ch == '"')
			break;
		if (ch < 0x20)
			return NOT;
		if (ch != '\\') {
			buf_addc(t, (char)ch);
			p++;
			continue;
		}
		if (e - p < 2)
			return NOT;
		switch (p[1]) {
		case '"': ch = '"'; break;
		case '\\': ch = '\\'; break;
		case 'n': ch = '\n'; break;
		case 'r': ch = '\r'; break;
		case 't': ch = '\t'; break;
		case 'b': ch = '\b'; break;
		case 'f': ch = '\f'; break;
		case 'u': {
			int hi, lo;

			/* Only \u00XX for the control characters that have no short escape, lower-case hex,
			 * as buf_add_json_string writes them; never \u0000, which would end the C string. */
			if (e - p < 6 || p[2] != '0' || p[3] != '0' || (hi = hexval(p[4])) < 0 || hi > 1 ||
			    (lo = hexval(p[5])) < 0)
				return NOT;
			ch = (unsigned char)(hi * 16 + lo);
			if (!ch || ch == '\n' || ch == '\r' || ch == '\t' || ch == '\b' || ch == '\f')
				return NOT;
			buf_addc(t, (char)ch);
			p += 6;
			continue;
		}
		default:
			return NOT;
		}
		buf_addc(t, (char)ch);
		p += 2;
	}
	*out = arena_str(k->c, t->data, t->len);
	*outlen = t->len;
	k->p = p + 1;
	return 0;
}

/* The digits of an unsigned decimal integer without leading zeros (at most 19); the count, or 0. */
static int digits_u64(const char *p, const char *e, uint64_t *v)
{
	int n = 0;
	uint64_t x = 0;

	if (p >= e || *p < '0' || *p > '9')
		return 0;
	if (*p == '0')
		return (e - p > 1 && p[1] >= '0' && p[1] <= '9') ? 0 : (*v = 0, 1);
	while (p + n < e && p[n] >= '0' && p[n] <= '9') {
		if (n == 19)
			return 0;
		x = x * 10 + (uint64_t)(p[n] - '0');
		n++;
	}
	*v = x;
	return n;
}

#define EXACT_INT_MAX_U (1ULL << 53)

/* A JSON number in strict syntax, at most 40 characters (cJSON copies at most 63 before strtod); its
 * length, or 0. */
static size_t number_span(const char *p, const char *e)
{
	const char *s = p;

	if (p < e && *p == '-')
		p++;
	if (p >= e || *p < '0' || *p > '9')
		return 0;
	if (*p == '0')
		p++;
	else
		while (p < e && *p >= '0' && *p <= '9')
			p++;
	if (p < e && *p == '.') {
		if (++p >= e || *p < '0' || *p > '9')
			return 0;
		while (p < e && *p >= '0' && *p <= '9')
			p++;
	}
	if (p < e && (*p == 'e' || *p == 'E')) {
		p++;
		if (p < e && (*p == '+' || *p == '-'))
			p++;
		if (p >= e || *p < '0' || *p > '9')
			return 0;
		while (p < e && *p >= '0' && *p <= '9')
			p++;
	}
	return p - s <= 40 ? (size_t)(p - s) : 0;
}

static const double pow10_exact[23] = {
	1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17,
	1e18, 1e19, 1e20, 1e21, 1e22,
};

/* The value of a number in strict syntax, as strtod reads it (which is what cJSON calls). When the
 * digits make an integer up to 2^53 and the power of ten is at most 22, both are exact doubles and one
 * multiplication or division rounds correctly (Clinger's fast path); otherwise strtod itself. */
static double decimal_value(const char *num, size_t n)
{
	const char *p = num, *e = num + n;
	uint64_t m = 0;
	int digits = 0, exp10 = 0, neg = *p == '-';
	double d;

	if (neg)
		p++;
	for (; p < e && *p >= '0' && *p <= '9'; p++)
		if (m || *p != '0') {
			if (++digits > 19)
				return strtod(num, NULL);
			m = m * 10 + (uint64_t)(*p - '0');
		}
	if (p < e && *p == '.')
		for (p++; p < e && *p >= '0' && *p <= '9'; p++) {
			if (m || *p != '0') {
				if (++digits > 19)
					return strtod(num, NULL);
				m = m * 10 + (uint64_t)(*p - '0');
			}
			exp10--;
		}
	if (p < e) {
		int sign = 1, x = 0;

		if (*++p == '-' || *p == '+')
			sign = *p++ == '-' ? -1 : 1;
		for (; p < e; p++)
			if (x < 10000)
				x = x * 10 + (*p - '0');
		exp10 += sign * x;
	}
	if (m > (1ULL << 53) || exp10 < -22 || exp10 > 22)
		return strtod(num, NULL);
	d = (double)m;
	d = exp10 < 0 ? d / pow10_exact[-exp10] : d * pow10_exact[exp10];
	return neg ? -d : d;
}

/* A number as json_add_double writes it; its value. Safe even if decimal_value erred: what
 * json_add_double writes reads back to the double written, so the text can equal the writing of a
 * wrong value only if strtod reads it as that value. */
static int double_canon(struct cur *k, double *out)
{
	size_t n = number_span(k->p, k->end);
	char num[48], again[48];
	double d;
	int m;

	if (!n)
		return NOT;
	memcpy(num, k->p, n);
	num[n] = '\0';
	d = decimal_value(num, n);
	if ((m = canon_double(d, again)) < 0 || (size_t)m != n || memcmp(num, again, n))
		return NOT;
	*out = d;
	k->p += n;
	return 0;
}

/* A float: a canonical number, or "nan", "inf", "-inf". */
static int float_canon(struct cur *k, double *out)
{
	if (!LIT(k, "\"nan\"")) {
		*out = NAN;
		return 0;
	}
	if (!LIT(k, "\"inf\"")) {
		*out = INFINITY;
		return 0;
	}
	if (!LIT(k, "\"-inf\"")) {
		*out = -INFINITY;
		return 0;
	}
	return double_canon(k, out);
}

/* An integer as add_int writes it: a number up to 2^53 in magnitude, a decimal string beyond. */
static int int_canon(struct cur *k, int64_t *out)
{
	const char *p = k->p;
	int quoted = peek(k) == '"', neg, n;
	uint64_t v;

	if (quoted)
		p++;
	neg = p < k->end && *p == '-';
	if (neg)
		p++;
	if (!(n = digits_u64(p, k->end, &v)))
		return NOT;
	p += n;
	if (p < k->end && (*p == '.' || *p == 'e' || *p == 'E'))
		return NOT;
	if (quoted) {
		if (p >= k->end || *p != '"' || v <= EXACT_INT_MAX_U || v > (neg ? 1ULL << 63 : (uint64_t)INT64_MAX))
			return NOT;
		p++;
	} else if (v > EXACT_INT_MAX_U || (neg && v == 0)) {
		return NOT;
	}
	*out = neg ? (int64_t)(0 - v) : (int64_t)v;
	k->p = p;
	return 0;
}

static int value_canon(struct cur *k, struct value *v);

/* strcmp's order of two names that hold no NUL, inlined: names are short, a call costs more. */
static inline int name_before(const char *a, size_t al, const char *b, size_t bl)
{
	size_t n = al < bl ? al : bl;

	for (size_t i = 0; i < n; i++)
		if (a[i] != b[i])
			return (unsigned char)a[i] < (unsigned char)b[i];
	return al < bl;
}

/* A JSON object of name -> tagged value, names strictly increasing (as sorted and without
 * duplicates, which record_from_json requires). */
static int fields_canon(struct cur *k, struct field **out, size_t *nout)
{
	struct canon *c = k->c;
	size_t base = c->nf, n;
	const char *prev = NULL;
	size_t prevlen = 0;

	if (LIT(k, "{") || push_depth(k))
		return NOT;
	if (peek(k) != '}')
		for (;;) {
			struct field f;
			size_t len;

			if (str_canon(k, &f.name, &len) || LIT(k, ":"))
				return NOT;
			if (prev && !name_before(prev, prevlen, f.name, len))
				return NOT;
			prev = f.name;
			prevlen = len;
			f.value = arena_alloc(c, sizeof(*f.value));
			if (value_canon(k, f.value))
				return NOT;
			XGROW(c->fstack, c->fcap, c->nf + 1);
			c->fstack[c->nf++] = f;
			if (peek(k) != ',')
				break;
			k->p++;
		}
	if (LIT(k, "}"))
		return NOT;
	c->depth--;
	n = c->nf - base;
	*out = n ? arena_alloc(c, n * sizeof(**out)) : NULL;
	if (n)
		memcpy(*out, c->fstack + base, n * sizeof(**out));
	*nout = n;
	c->nf = base;
	return 0;
}

static int values_canon(struct cur *k, struct value **out, size_t *nout)
{
	struct canon *c = k->c;
	size_t base = c->nv, n;

	if (LIT(k, "[") || push_depth(k))
		return NOT;
	if (peek(k) != ']')
		for (;;) {
			struct value v;

			if (value_canon(k, &v))
				return NOT;
			XGROW(c->vstack, c->vcap, c->nv + 1);
			c->vstack[c->nv++] = v;
			if (peek(k) != ',')
				break;
			k->p++;
		}
	if (LIT(k, "]"))
		return NOT;
	c->depth--;
	n = c->nv - base;
	*out = n ? arena_alloc(c, n * sizeof(**out)) : NULL;
	if (n)
		memcpy(*out, c->vstack + base, n * sizeof(**out));
	*nout = n;
	c->nv = base;
	return 0;
}

static cJSON *raw_node(struct canon *c, int type)
{
	cJSON *j = arena_alloc(c, sizeof(*j));

	memset(j, 0, sizeof(*j));
	j->type = type;
	return j;
}

/* A tensor's values: a flat array of numbers, strings and booleans, as cJSON nodes in the arena. */
static int tensor_values(struct cur *k, cJSON **out)
{
	cJSON *arr = raw_node(k->c, cJSON_Array), *last = NULL;

	if (LIT(k, "[") || push_depth(k))
		return NOT;
	if (peek(k) != ']')
		for (;;) {
			cJSON *j;
			int ch = peek(k);

			if (ch == '"') {
				size_t len;

				j = raw_node(k->c, cJSON_String);
				if (str_canon(k, &j->valuestring, &len))
					return NOT;
			} else if (!LIT(k, "true")) {
				j = raw_node(k->c, cJSON_True);
			} else if (!LIT(k, "false")) {
				j = raw_node(k->c, cJSON_False);
			} else {
				j = raw_node(k->c, cJSON_Number);
				if (double_canon(k, &j->valuedouble))
					return NOT;
			}
			if (last) {
				last->next = j;
				j->prev = last;
			} else {
				arr->child = j;
			}
			last = j;
			if (peek(k) != ',')
				break;
			k->p++;
		}
	if (LIT(k, "]"))
		return NOT;
	k->c->depth--;
	if (arr->child)
		arr->child->prev = last;
	*out = arr;
	return 0;
}

#define MAX_RANK 64

/* {"dtype":...,"range":[lo,hi],"shape":[...],"values":[...]}, range and values optional. */
static int tensor_canon(struct cur *k, struct tensor *t)
{
	int64_t dims[MAX_RANK];
	size_t len;

	if (LIT(k, "{\"dtype\":") || push_depth(k) || str_canon(k, &t->dtype, &len) || !len)
		return NOT;
	if (!LIT(k, ",\"range\":[")) {
		if (push_depth(k) || float_canon(k, &t->range[0]) || LIT(k, ",") || float_canon(k, &t->range[1]) ||
		    LIT(k, "]"))
			return NOT;
		k->c->depth--;
		t->has_range = true;
	}
	if (LIT(k, ",\"shape\":[") || push_depth(k))
		return NOT;
	t->rank = 0;
	if (peek(k) != ']')
		for (;;) {
			uint64_t v;
			int n;

			if (t->rank == MAX_RANK)
				return NOT;
			if (!LIT(k, "null")) {
				dims[t->rank++] = TENSOR_DIM_UNKNOWN;
			} else {
				if (!(n = digits_u64(k->p, k->end, &v)) || v > EXACT_INT_MAX_U)
					return NOT;
				k->p += n;
				dims[t->rank++] = (int64_t)v;
			}
			if (peek(k) != ',')
				break;
			k->p++;
		}
	if (LIT(k, "]"))
		return NOT;
	k->c->depth--;
	t->shape = arena_alloc(k->c, (t->rank ? (size_t)t->rank : 1) * sizeof(*t->shape));
	memcpy(t->shape, dims, (size_t)t->rank * sizeof(*t->shape));
	if (!LIT(k, ",\"values\":") && tensor_values(k, &t->values))
		return NOT;
	if (LIT(k, "}"))
		return NOT;
	k->c->depth--;
	return 0;
}

static const struct {
	const char *name;
	size_t len;
	enum vtype type;
} tags[] = {
#define TAG(s, t) { s, sizeof(s) - 1, t }
	TAG("int", V_INT), TAG("float", V_FLOAT), TAG("str", V_STR), TAG("bool", V_BOOL),
	TAG("list", V_LIST), TAG("tuple", V_TUPLE), TAG("tensor", V_TENSOR), TAG("none", V_NONE),
	TAG("dtype", V_DTYPE), TAG("dict", V_DICT), TAG("callable", V_CALLABLE), TAG("opaque", V_OPAQUE),
	TAG("graph", V_GRAPH),
#undef TAG
};

/* A tagged value: {"TYPE":BODY}. */
static int value_canon(struct cur *k, struct value *v)
{
	const char *name = k->p + 2, *q;
	size_t i, len;

	memset(v, 0, sizeof(*v));
	if (k->end - k->p < 4 || k->p[0] != '{' || k->p[1] != '"')
		return NOT;
	for (q = name; q < k->end && q - name <= 8 && *q != '"'; q++)
		;
	if (k->end - q < 2 || q[0] != '"' || q[1] != ':')
		return NOT;
	len = (size_t)(q - name);
	for (i = 0; i < sizeof(tags) / sizeof(tags[0]); i++)
		if (tags[i].len == len && tags[i].name[0] == name[0] && !memcmp(name, tags[i].name, len))
			break;
	if (i == sizeof(tags) / sizeof(tags[0]) || push_depth(k))
		return NOT;
	k->p = q + 2;
	v->type = tags[i].type;
	switch (v->type) {
	case V_NONE:
		if (LIT(k, "null"))
			return NOT;
		break;
	case V_BOOL:
		if (!LIT(k, "true"))
			v->u.b = true;
		else if (!LIT(k, "false"))
			v->u.b = false;
		else
			return NOT;
		break;
	case V_INT:
		if (int_canon(k, &v->u.i))
			return NOT;
		break;
	case V_FLOAT:
		if (float_canon(k, &v->u.f))
			return NOT;
		break;
	case V_OPAQUE:
		k->c->opaque = true;
		/* fall through */
	case V_STR: case V_DTYPE: case V_CALLABLE:
		if (str_canon(k, &v->u.s, &len))
			return NOT;
		break;
	case V_LIST: case V_TUPLE:
		if (values_canon(k, &v->u.seq.items, &v->u.seq.n))
			return NOT;
		break;
	case V_DICT:
		if (fields_canon(k, &v->u.dict.fields, &v->u.dict.n))
			return NOT;
		break;
	case V_TENSOR:
		if (tensor_canon(k, &v->u.t))
			return NOT;
		break;
	case V_GRAPH:
		if (LIT(k, "{\"data\":") || push_depth(k) || str_canon(k, &v->u.graph.data, &len) ||
		    LIT(k, ",\"format\":") || str_canon(k, &v->u.graph.format, &len) || LIT(k, "}"))
			return NOT;
		k->c->depth--;
		break;
	}
	if (LIT(k, "}"))
		return NOT;
	k->c->depth--;
	return 0;
}

/* Plain JSON in json_canonical's form (the "graph" member): members sorted and distinct. */
static int json_canon(struct cur *k)
{
	int ch = peek(k);
	size_t len;
	char *s;
	double d;

	if (ch == '"')
		return str_canon(k, &s, &len);
	if (ch == '{') {
		const char *prev = NULL;
		size_t prevlen = 0;

		k->p++;
		if (push_depth(k))
			return NOT;
		if (peek(k) != '}')
			for (;;) {
				if (str_canon(k, &s, &len) || LIT(k, ":"))
					return NOT;
				if (prev && !name_before(prev, prevlen, s, len))
					return NOT;
				prev = s;
				prevlen = len;
				if (json_canon(k))
					return NOT;
				if (peek(k) != ',')
					break;
				k->p++;
			}
		if (LIT(k, "}"))
			return NOT;
		k->c->depth--;
		return 0;
	}
	if (ch == '[') {
		k->p++;
		if (push_depth(k))
			return NOT;
		if (peek(k) != ']')
			for (;;) {
				if (json_canon(k))
					return NOT;
				if (peek(k) != ',')
					break;
				k->p++;
			}
		if (LIT(k, "]"))
			return NOT;
		k->c->depth--;
		return 0;
	}
	if (!LIT(k, "true") || !LIT(k, "false") || !LIT(k, "null"))
		return 0;
	return double_canon(k, &d);
}

/* A string in strict JSON that cJSON reads as it is written: control characters refused, and \u
 * escapes only below the surrogates (cJSON refuses lone ones). Escapes set *esc. */
static int str_skip(struct cur *k, int *esc)
{
	const char *p = k->p, *e = k->end;

	*esc = 0;
	if (p >= e || *p != '"')
		return NOT;
	for (p++;; p++) {
		unsigned char ch;

		if (p >= e)
			return NOT;
		ch = (unsigned char)*p;
		if (ch == '"')
			break;
		if (ch < 0x20)
			return NOT;
		if (ch != '\\')
			continue;
		*esc = 1;
		if (e - p < 2)
			return NOT;
		p++;
		if (*p == 'u') {
			if (e - p < 5 || hexany(p[1]) < 0 || hexany(p[2]) < 0 || hexany(p[3]) < 0 || hexany(p[4]) < 0 ||
			    hexany(p[1]) == 0xd)
				return NOT;
			p += 4;
		} else if (!strchr("\"\\/bfnrt", *p) || !*p) {
			return NOT;
		}
	}
	k->p = p + 1;
	return 0;
}

/* Any JSON value (an annotation), in strict syntax without white space. */
static int json_skip(struct cur *k)
{
	int ch = peek(k), esc;

	if (ch == '"')
		return str_skip(k, &esc);
	if (ch == '{' || ch == '[') {
		int close = ch == '{' ? '}' : ']';

		k->p++;
		if (push_depth(k))
			return NOT;
		if (peek(k) != close)
			for (;;) {
				if (ch == '{' && (str_skip(k, &esc) || LIT(k, ":")))
					return NOT;
				if (json_skip(k))
					return NOT;
				if (peek(k) != ',')
					break;
				k->p++;
			}
		if (peek(k) != close)
			return NOT;
		k->p++;
		k->c->depth--;
		return 0;
	}
	if (!LIT(k, "true") || !LIT(k, "false") || !LIT(k, "null"))
		return 0;
	{
		size_t n = number_span(k->p, k->end);

		if (!n)
			return NOT;
		k->p += n;
	}
	return 0;
}

/* The "wrap" annotation: skipped, noting whether its first "status" is the string "invalid". A name
 * or that string spelled with escapes is left to the slow path, which decodes them as cJSON does. */
static int wrap_skip(struct cur *k)
{
	int first = 1, esc;

	if (peek(k) != '{')
		return json_skip(k);
	k->p++;
	if (push_depth(k))
		return NOT;
	if (peek(k) != '}')
		for (;;) {
			const char *name = k->p;

			if (str_skip(k, &esc) || esc || LIT(k, ":"))
				return NOT;
			if (first && k->p - name == sizeof("\"status\":") - 1 &&
			    !memcmp(name, "\"status\":", sizeof("\"status\":") - 1)) {
				const char *v = k->p;

				first = 0;
				if (peek(k) == '"') {
					if (str_skip(k, &esc) || esc)
						return NOT;
					k->c->wrap_invalid = k->p - v == sizeof("\"invalid\"") - 1 &&
						!memcmp(v, "\"invalid\"", sizeof("\"invalid\"") - 1);
				} else if (json_skip(k)) {
					return NOT;
				}
			} else if (json_skip(k)) {
				return NOT;
			}
			if (peek(k) != ',')
				break;
			k->p++;
		}
	if (LIT(k, "}"))
		return NOT;
	k->c->depth--;
	return 0;
}

static const char *const member_names[] = {
	"id", "library", "library_version", "op", "kind", "context", "params", "inputs", "outputs", "graph",
};

#define MAX_ANNOTATIONS 64

static int annotations(struct cur *k)
{
	const char *seen[MAX_ANNOTATIONS];
	size_t seenlen[MAX_ANNOTATIONS], nseen = 0;

	while (peek(k) == ',') {
		const char *name;
		size_t len;
		int esc;

		k->p++;
		name = k->p;
		if (str_skip(k, &esc) || esc || LIT(k, ":") || nseen == MAX_ANNOTATIONS)
			return NOT;
		name++;
		len = (size_t)(k->p - name) - 2;
		/* A member of the record twice, or an identity member out of its place: the slow path
		 * refuses the one and reorders the other. */
		for (size_t i = 0; i < sizeof(member_names) / sizeof(member_names[0]); i++)
			if (strlen(member_names[i]) == len && !memcmp(member_names[i], name, len))
				return NOT;
		for (size_t i = 0; i < nseen; i++)
			if (seenlen[i] == len && !memcmp(seen[i], name, len))
				return NOT;
		seen[nseen] = name;
		seenlen[nseen++] = len;
		if (len == 4 && !memcmp(name, "wrap", 4) ? wrap_skip(k) : json_skip(k))
			return NOT;
	}
	return 0;
}

static void id_hex(char *out, XXH128_hash_t h)
{
	static const char hex[] = "0123456789abcdef";

	for (int i = 0; i < 16; i++) {
		out[i] = hex[(h.high64 >> (60 - 4 * i)) & 15];
		out[16 + i] = hex[(h.low64 >> (60 - 4 * i)) & 15];
	}
	out[32] = '\0';
}

int canon_parse(struct canon *c, const char *line, size_t len)
{
	struct cur k = { line, line + len, c };
	struct instance *in = &c->in;
	const char *from, *to;
	size_t n;
	int esc;

	arena_reset(c);
	record_init(in);
	c->wrap_invalid = false;
	c->opaque = false;
	c->depth = 1;
	c->nv = c->nf = 0;
	/* The id that the line carries is not read: the slow path ignores it too, and hashes. */
	if (LIT(&k, "{\"id\":") || str_skip(&k, &esc))
		return NOT;
	from = k.p + 1;
	if (LIT(&k, ",\"context\":") || fields_canon(&k, &in->context, &in->ncontext))
		return NOT;
	if (!LIT(&k, ",\"graph\":")) {
		const char *g = k.p;

		if (peek(&k) != '{' || json_canon(&k))
			return NOT;
		in->graph = arena_str(c, g, (size_t)(k.p - g));
	}
	if (LIT(&k, ",\"inputs\":") || values_canon(&k, &in->inputs, &in->ninputs) ||
	    LIT(&k, ",\"kind\":") || str_canon(&k, &in->kind, &n) ||
	    LIT(&k, ",\"library\":") || str_canon(&k, &in->library, &n) || !n ||
	    LIT(&k, ",\"op\":") || str_canon(&k, &in->op, &n) || !n ||
	    LIT(&k, ",\"outputs\":") || values_canon(&k, &in->outputs, &in->noutputs) ||
	    LIT(&k, ",\"params\":") || fields_canon(&k, &in->params, &in->nparams))
		return NOT;
	to = k.p;
	if (!LIT(&k, ",\"library_version\":")) {
		const char *v = k.p;

		if (str_skip(&k, &esc))
			return NOT;
		/* Not hashed: kept only when plain, which is all that reading it for ranking needs. */
		in->library_version = esc ? NULL : arena_str(c, v + 1, (size_t)(k.p - v) - 2);
	}
	if (annotations(&k) || LIT(&k, "}") || k.p != k.end)
		return NOT;
	in->unmigratable = c->opaque;
	buf_reset(&c->text);
	buf_addc(&c->text, '{');
	buf_add(&c->text, from, (size_t)(to - from));
	buf_addc(&c->text, '}');
	id_hex(in->id, XXH3_128bits(c->text.data, c->text.len));
	return 0;
}
