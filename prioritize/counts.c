/* counts.c: compiler-test operator counts: the file format, and the scanner for C++ OpTester tests. */
#include "counts.h"
#include "fsutil.h"
#include "xalloc.h"

#include <cjson/cJSON.h>
#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

void counts_init(struct counts *c)
{
	struct counts zero = COUNTS_INIT;

	*c = zero;
}

void counts_release(struct counts *c)
{
	intern_release(&c->ops);
	free(c->count);
	free(c->library);
	free(c->frontend);
	free(c->compiler);
	free(c->compiler_version);
	free(c->made_by);
	for (size_t i = 0; i < c->nsources; i++)
		free(c->sources[i]);
	free(c->sources);
	counts_init(c);
}

void counts_add(struct counts *c, const char *op, uint64_t n)
{
	int added;
	uint32_t id = intern_add(&c->ops, 0, op, strlen(op), &added);

	if (added) {
		XGROW(c->count, c->cap, (size_t)id + 1);
		c->count[id] = 0;
	}
	c->count[id] += n;
}

uint64_t counts_get(const struct counts *c, const char *op)
{
	uint32_t id = intern_find(&c->ops, 0, op, strlen(op));

	return id == UINT32_MAX ? 0 : c->count[id];
}

size_t counts_size(const struct counts *c)
{
	return c->ops.n;
}

const char *counts_name(const struct counts *c, size_t i)
{
	return intern_str(&c->ops, (uint32_t)i);
}

uint64_t counts_value(const struct counts *c, size_t i)
{
	return c->count[i];
}

/* An optional string member; a member of another type is an error. */
static int opt_string(const cJSON *root, const char *key, char **out, const char *name, struct err *e)
{
	const cJSON *j = cJSON_GetObjectItemCaseSensitive(root, key);

	if (!j || cJSON_IsNull(j))
		return 0;
	if (!cJSON_IsString(j))
		return err_set(e, EXIT_INPUT, "%s: %s: expected a string", name, key);
	*out = xstrdup(j->valuestring);
	return 0;
}

int counts_parse(struct counts *c, const char *text, size_t len, const char *name, struct err *e)
{
	cJSON *root = cJSON_ParseWithLength(text, len);
	const cJSON *fmt, *counts, *sources, *it;
	int r = -1;

	if (!root) {
		err_set(e, EXIT_INPUT, "%s: not a JSON document (a counts file is one JSON object; see "
			"'ferry count-tests')", name);
		goto out;
	}
	fmt = cJSON_GetObjectItemCaseSensitive(root, "format");
	if (!cJSON_IsObject(root) || !cJSON_IsString(fmt) || strcmp(fmt->valuestring, COUNTS_FORMAT)) {
		err_set(e, EXIT_INPUT, "%s: not a counts file (expected \"format\": \"%s\")", name, COUNTS_FORMAT);
		goto out;
	}
	if (opt_string(root, "library", &c->library, name, e) < 0 ||
	    opt_string(root, "frontend", &c->frontend, name, e) < 0 ||
	    opt_string(root, "compiler", &c->compiler, name, e) < 0 ||
	    opt_string(root, "compiler_version", &c->compiler_version, name, e) < 0 ||
	    opt_string(root, "made_by", &c->made_by, name, e) < 0)
		goto out;
	sources = cJSON_GetObjectItemCaseSensitive(root, "sources");
	if (cJSON_IsArray(sources)) {
		cJSON_ArrayForEach(it, sources) {
			if (!cJSON_IsString(it)) {
				err_set(e, EXIT_INPUT, "%s: sources: expected strings", name);
				goto out;
			}
			c->sources = xrealloc(c->sources, (c->nsources + 1) * sizeof(*c->sources));
			c->sources[c->nsources++] = xstrdup(it->valuestring);
		}
	}
	counts = cJSON_GetObjectItemCaseSensitive(root, "counts");
	if (!cJSON_IsObject(counts)) {
		err_set(e, EXIT_INPUT, "%s: counts: expected an object of operator -> count", name);
		goto out;
	}
	cJSON_ArrayForEach(it, counts) {
		double d = it->valuedouble;

		if (!*it->string) {
			err_set(e, EXIT_INPUT, "%s: counts: an operator name is empty", name);
			goto out;
		}
		if (!cJSON_IsNumber(it) || d < 0 || d != floor(d) || d > 9007199254740992.0) {
			err_set(e, EXIT_INPUT, "%s: counts.%s: expected a count (a whole number, 0 or more)", name,
				it->string);
			goto out;
		}
		if (intern_find(&c->ops, 0, it->string, strlen(it->string)) != UINT32_MAX) {
			err_set(e, EXIT_INPUT, "%s: counts.%s: appears twice", name, it->string);
			goto out;
		}
		counts_add(c, it->string, (uint64_t)d);
	}
	r = 0;
out:
	cJSON_Delete(root);
	return r;
}

int counts_load(struct counts *c, const char *path, struct err *e)
{
	struct buf b = BUF_INIT;
	int r = -1;

	if (fs_read(path, &b, e) < 0)
		goto out;
	r = counts_parse(c, b.data, b.len, path, e);
out:
	buf_release(&b);
	return r;
}

static int name_cmp(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static void add_member(struct buf *out, const char *key, const char *val, int *first)
{
	if (!val)
		return;
	buf_adds(out, *first ? "{" : ",\n ");
	*first = 0;
	buf_add_json_string(out, key);
	buf_adds(out, ": ");
	buf_add_json_string(out, val);
}

void counts_write(const struct counts *c, struct buf *out)
{
	size_t n = counts_size(c);
	const char **names = xmalloc((n ? n : 1) * sizeof(*names));
	int first = 1;

	add_member(out, "format", COUNTS_FORMAT, &first);
	add_member(out, "library", c->library, &first);
	add_member(out, "frontend", c->frontend, &first);
	add_member(out, "compiler", c->compiler, &first);
	add_member(out, "compiler_version", c->compiler_version, &first);
	add_member(out, "made_by", c->made_by, &first);
	if (c->nsources) {
		buf_adds(out, ",\n \"sources\": [");
		for (size_t i = 0; i < c->nsources; i++) {
			buf_adds(out, i ? ",\n  " : "\n  ");
			buf_add_json_string(out, c->sources[i]);
		}
		buf_adds(out, "]");
	}
	for (size_t i = 0; i < n; i++)
		names[i] = counts_name(c, i);
	qsort(names, n, sizeof(*names), name_cmp);
	buf_adds(out, ",\n \"counts\": {");
	for (size_t i = 0; i < n; i++) {
		buf_adds(out, i ? ",\n  " : "\n  ");
		buf_add_json_string(out, names[i]);
		buf_addf(out, ": %llu", (unsigned long long)counts_get(c, names[i]));
	}
	buf_adds(out, n ? "\n }}\n" : "}}\n");
	free(names);
}

/* --- C++ OpTester scanner ------------------------------------------------------------------------ */

struct scan {
	const char *p, *end;
};

/* Skip white space and comments. */
static void skip_space(struct scan *s)
{
	while (s->p < s->end) {
		if (isspace((unsigned char)*s->p)) {
			s->p++;
		} else if (s->p + 1 < s->end && s->p[0] == '/' && s->p[1] == '/') {
			while (s->p < s->end && *s->p != '\n')
				s->p++;
		} else if (s->p + 1 < s->end && s->p[0] == '/' && s->p[1] == '*') {
			s->p += 2;
			while (s->p + 1 < s->end && !(s->p[0] == '*' && s->p[1] == '/'))
				s->p++;
			s->p = s->p + 2 < s->end ? s->p + 2 : s->end;
		} else {
			break;
		}
	}
}

/* At a '"' or '\'': skip the literal; with out, copy an ordinary string literal's text to it. */
static void skip_literal(struct scan *s, struct buf *out)
{
	char q = *s->p++;

	while (s->p < s->end && *s->p != q && *s->p != '\n') {
		if (*s->p == '\\' && s->p + 1 < s->end) {
			if (out)
				buf_add(out, s->p, 2);
			s->p += 2;
			continue;
		}
		if (out)
			buf_addc(out, *s->p);
		s->p++;
	}
	if (s->p < s->end)
		s->p++;
}

/* At R"delim( ... )delim": skip a raw string literal. */
static void skip_raw(struct scan *s)
{
	const char *d = ++s->p; /* after the quote */
	size_t dlen;

	while (s->p < s->end && *s->p != '(')
		s->p++;
	dlen = (size_t)(s->p - d);
	while (s->p < s->end) {
		if (*s->p == ')' && (size_t)(s->end - s->p) >= dlen + 2 && !memcmp(s->p + 1, d, dlen) &&
		    s->p[1 + dlen] == '"') {
			s->p += dlen + 2;
			return;
		}
		s->p++;
	}
}

static int ident_char(char c)
{
	return isalnum((unsigned char)c) || c == '_';
}

/* After the word OpTester: [>] [name] ( or { then a string literal: the operator. */
static void optester_call(struct counts *c, struct scan *s)
{
	struct buf name = BUF_INIT;

	skip_space(s);
	if (s->p < s->end && *s->p == '>') {
		s->p++;
		skip_space(s);
	}
	if (s->p < s->end && (isalpha((unsigned char)*s->p) || *s->p == '_')) {
		while (s->p < s->end && ident_char(*s->p))
			s->p++;
		skip_space(s);
	}
	if (s->p >= s->end || (*s->p != '(' && *s->p != '{'))
		return;
	s->p++;
	skip_space(s);
	if (s->p >= s->end || *s->p != '"')
		return;
	skip_literal(s, &name);
	if (name.len && !strchr(name.data, '\\'))
		counts_add(c, name.data, 1);
	buf_release(&name);
}

void counts_scan_cpp(struct counts *c, const char *text, size_t len)
{
	struct scan s = { text, text + len };

	while (s.p < s.end) {
		skip_space(&s);
		if (s.p >= s.end)
			break;
		if (*s.p == 'R' && s.p + 1 < s.end && s.p[1] == '"' && (s.p == text || !ident_char(s.p[-1]))) {
			s.p++;
			skip_raw(&s);
		} else if (*s.p == '"' || *s.p == '\'') {
			skip_literal(&s, NULL);
		} else if (ident_char(*s.p)) {
			const char *w = s.p;

			while (s.p < s.end && ident_char(*s.p))
				s.p++;
			if (s.p - w == 8 && !memcmp(w, "OpTester", 8))
				optester_call(c, &s);
		} else {
			s.p++;
		}
	}
}

/* --- MLIR torch.operator scanner ---------------------------------------------------------------- */

void counts_scan_mlir(struct counts *c, const char *text, size_t len)
{
	static const char word[] = "torch.operator \"onnx.";
	const size_t wlen = sizeof(word) - 1;
	const char *p = text, *end = text + len;

	while (p + wlen < end) {
		const char *hit = memchr(p, 't', (size_t)(end - p)), *q;

		if (!hit || hit + wlen >= end)
			break;
		p = hit + 1;
		if (memcmp(hit, word, wlen))
			continue;
		p = hit + wlen;
		/* A line comment holding the words is not an operation. */
		for (q = hit; q > text && q[-1] != '\n'; q--)
			;
		while (q < hit && isspace((unsigned char)*q))
			q++;
		if (hit > text && (ident_char(hit[-1]) || hit[-1] == '.'))
			continue;
		if (q + 1 < hit && q[0] == '/' && q[1] == '/')
			continue;
		for (q = p; q < end && ident_char(*q); q++)
			;
		/* Only a plain ONNX-domain name: "onnx.Add", not a quoted name with a domain of its own. */
		if (q > p && q < end && *q == '"') {
			char *name = xstrndup(p, (size_t)(q - p));

			counts_add(c, name, 1);
			free(name);
		}
	}
}
