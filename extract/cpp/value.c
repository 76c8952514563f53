/* value.c: the arena every value of one file lives in, the values the interpreter computes (struct
 * cval, cpp-int.h), and the environment that binds names to them. */
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "cpp-int.h"
#include "xalloc.h"

#ifdef HAVE_LIBCLANG

/* --- an arena: every value of one file lives until the file is done ---------------------------- */

void *cpp_arena_alloc(struct arena *a, size_t n)
{
	struct arena_block *b = a->head;

	n = (n + sizeof(max_align_t) - 1) / sizeof(max_align_t) * sizeof(max_align_t);
	if (!b || b->used + n > b->size) {
		size_t size = n > (1u << 20) ? n : (1u << 20);

		b = xmalloc(sizeof(*b) + size);
		b->size = size;
		b->used = 0;
		b->next = a->head;
		a->head = b;
	}
	b->used += n;
	return memset((char *)b->data + b->used - n, 0, n);
}

char *cpp_arena_strndup(struct arena *a, const char *s, size_t n)
{
	char *p = cpp_arena_alloc(a, n + 1);

	memcpy(p, s, n);
	p[n] = 0;
	return p;
}

char *cpp_arena_strdup(struct arena *a, const char *s)
{
	return cpp_arena_strndup(a, s, strlen(s));
}

/* s, a string the caller owns (xasprintf's), moved into the arena. */
char *cpp_arena_take(struct arena *a, char *s)
{
	char *copy = cpp_arena_strdup(a, s);

	free(s);
	return copy;
}

void cpp_arena_release(struct arena *a)
{
	while (a->head) {
		struct arena_block *b = a->head;

		a->head = b->next;
		free(b);
	}
}

/* --- values ------------------------------------------------------------------------------------- */

/* The first unknown value within v (a list's items included), or NULL. */
const struct cval *cpp_first_unknown(const struct cval *v)
{
	if (v->kind == CV_UNKNOWN)
		return v;
	if (v->kind == CV_LIST)
		for (size_t i = 0; i < v->n; i++) {
			const struct cval *u = cpp_first_unknown(&v->items[i]);

			if (u)
				return u;
		}
	return NULL;
}

char *cpp_unescape(struct run *r, const char *lit)
{
	struct buf b = BUF_INIT;
	const char *p = strchr(lit, '"');
	char *out;

	if (p && p > lit && p[-1] == 'R') {
		/* a raw string: R"delim(...)delim" */
		const char *open = strchr(p, '('), *close = strrchr(lit, ')');

		if (open && close && close > open)
			buf_add(&b, open + 1, (size_t)(close - open - 1));
	} else {
		for (p = p ? p + 1 : lit; *p && *p != '"'; p++) {
			if (*p != '\\' || !p[1]) {
				buf_addc(&b, *p);
				continue;
			}
			p++;
			switch (*p) {
			case 'n': buf_addc(&b, '\n'); break;
			case 't': buf_addc(&b, '\t'); break;
			case 'r': buf_addc(&b, '\r'); break;
			case '0': buf_addc(&b, '\0'); break;
			default: buf_addc(&b, *p); break;
			}
		}
	}
	out = cpp_arena_strndup(&r->arena, b.data ? b.data : "", b.len);
	buf_release(&b);
	return out;
}

struct cval cpp_list_of(struct run *r, size_t n)
{
	struct cval v;

	memset(&v, 0, sizeof(v));
	v.kind = CV_LIST;
	v.items = cpp_arena_alloc(&r->arena, (n + 1) * sizeof(*v.items));
	v.n = n;
	return v;
}

int cpp_type_is_int(const char *t)
{
	return strstr(t, "int") || strstr(t, "long") || strstr(t, "size_t") || strstr(t, "short") ||
	       strstr(t, "char");
}

struct cval cpp_cast_to(struct cval v, const char *type)
{
	if (v.kind == CV_SYM && v.is_enum && cpp_type_is_int(type))
		return num_int(v.i);
	if (v.kind != CV_NUM)
		return v;
	if (strstr(type, "float") || strstr(type, "double") || strstr(type, "Float16"))
		return v.is_float ? v : num_float(v.d);
	if (strstr(type, "bool"))
		return boolean(v.d != 0);
	if (cpp_type_is_int(type))
		return v.is_float ? num_int((long long)v.d) : v;
	return v;
}

/* --- the environment ---------------------------------------------------------------------------- */

void cpp_bind(struct run *r, struct frame *f, const char *name, struct cval v)
{
	struct binding *b = cpp_arena_alloc(&r->arena, sizeof(*b));

	b->name = name;
	b->v = v;
	b->next = f->vars;
	f->vars = b;
}

struct cval *cpp_lookup(struct frame *f, const char *name)
{
	for (; f; f = f->up)
		for (struct binding *b = f->vars; b; b = b->next)
			if (!strcmp(b->name, name))
				return &b->v;
	return NULL;
}

const char *cpp_type_param(struct frame *f, const char *name)
{
	for (; f; f = f->up)
		for (struct binding *b = f->types; b; b = b->next)
			if (!strcmp(b->name, name))
				return b->v.s;
	return NULL;
}

/* A C++ type written as tokens, with template parameters replaced by their arguments and the
 * qualifiers that do not change an element type left out: "std::string", "float", "MLFloat16". */
const char *cpp_type_text(struct run *r, struct frame *f, const struct tok *t, size_t n)
{
	struct buf b = BUF_INIT;
	const char *out;

	for (size_t i = 0; i < n; i++) {
		const char *s = t[i].s, *p;

		if (!strcmp(s, "const") || !strcmp(s, "&") || !strcmp(s, "typename"))
			continue;
		if (!strcmp(s, "onnxruntime") || !strcmp(s, "std")) {
			if (i + 1 < n && !strcmp(t[i + 1].s, "::"))
				i++;
			continue;
		}
		if (t[i].kind == CXToken_Identifier && (p = cpp_type_param(f, s)))
			s = p;
		buf_adds(&b, s);
	}
	out = cpp_arena_strdup(&r->arena, b.data ? b.data : "");
	buf_release(&b);
	return out;
}
#endif
