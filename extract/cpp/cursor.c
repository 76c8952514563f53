/* cursor.c: libclang's cursors and tokens as the interpreter reads them: children, tokens and
 * lines, in the arena; the arguments a call writes and its callee. */
#include <stdlib.h>
#include <string.h>

#include "cpp-int.h"
#include "xalloc.h"

#ifdef HAVE_LIBCLANG

struct kids {
	CXCursor *v;
	size_t n, cap;
};

static enum CXChildVisitResult kid_visit(CXCursor c, CXCursor parent, CXClientData data)
{
	struct kids *k = data;

	(void)parent;
	XGROW(k->v, k->cap, k->n + 1);
	k->v[k->n++] = c;
	return CXChildVisit_Continue;
}

/* The children of c, in the arena. */
CXCursor *cpp_kids(struct run *r, CXCursor c, size_t *n)
{
	struct kids k = { NULL, 0, 0 };
	CXCursor *v;

	r->api->visitChildren(c, kid_visit, &k);
	v = cpp_arena_alloc(&r->arena, (k.n + 1) * sizeof(*v));
	if (k.n)
		memcpy(v, k.v, k.n * sizeof(*v));
	free(k.v);
	*n = k.n;
	return v;
}

unsigned cpp_offset_of(struct run *r, CXSourceLocation loc, unsigned *line)
{
	CXFile f;
	unsigned l, col, off;

	r->api->getExpansionLocation(loc, &f, &l, &col, &off);
	if (line)
		*line = l;
	return off;
}

unsigned cpp_line_of(struct run *r, CXCursor c)
{
	unsigned line;

	cpp_offset_of(r, r->api->getCursorLocation(c), &line);
	return line;
}

/* The tokens of c's extent, in the arena. */
struct tok *cpp_toks(struct run *r, CXCursor c, size_t *n)
{
	CXToken *t = NULL;
	unsigned nt = 0;
	struct tok *v;

	r->api->tokenize(r->tu, r->api->getCursorExtent(c), &t, &nt);
	v = cpp_arena_alloc(&r->arena, (nt + 1) * sizeof(*v));
	for (unsigned i = 0; i < nt; i++) {
		v[i].s = str(r, r->api->getTokenSpelling(r->tu, t[i]));
		v[i].kind = r->api->getTokenKind(t[i]);
		v[i].offset = cpp_offset_of(r, r->api->getTokenLocation(r->tu, t[i]), &v[i].line);
	}
	if (t)
		r->api->disposeTokens(r->tu, t, nt);
	*n = nt;
	return v;
}

size_t cpp_ntoks(struct run *r, CXCursor c)
{
	size_t n;

	cpp_toks(r, c, &n);
	return n;
}

/* Whether c is an argument written in the call (a default argument has no tokens). */
static int written(struct run *r, CXCursor c)
{
	enum CXCursorKind k = kind(r, c);

	return r->api->isExpression(k) && cpp_ntoks(r, c) > 0;
}

/* The arguments written in a call: its expression children but the callee, the child that starts
 * where the call starts and is followed by "(" or "<" (a constructor call has no callee child). */
int cpp_has_callee(struct run *r, CXCursor call, CXCursor *k, size_t nk)
{
	size_t nt, nc;
	struct tok *t, *c;

	if (!nk || !r->api->isExpression(kind(r, k[0])))
		return 0;
	t = cpp_toks(r, call, &nt);
	c = cpp_toks(r, k[0], &nc);
	return nc && nt > nc && c[0].offset == t[0].offset && (!strcmp(t[nc].s, "(") || !strcmp(t[nc].s, "<"));
}

CXCursor *cpp_call_args(struct run *r, CXCursor call, size_t *n)
{
	size_t nk, m = 0, first;
	CXCursor *k = cpp_kids(r, call, &nk), *v = cpp_arena_alloc(&r->arena, (nk + 1) * sizeof(*v));

	first = (size_t)cpp_has_callee(r, call, k, nk);
	for (size_t i = first; i < nk; i++)
		if (written(r, k[i]))
			v[m++] = k[i];
	*n = m;
	return v;
}

/* The innermost expression beneath implicit wrappers (UnexposedExpr, ExprWithCleanups...). */
CXCursor cpp_strip(struct run *r, CXCursor c)
{
	for (;;) {
		enum CXCursorKind k = kind(r, c);
		size_t n;
		CXCursor *ch;

		if (k != CXCursor_UnexposedExpr && k != CXCursor_ParenExpr)
			return c;
		ch = cpp_kids(r, c, &n);
		if (n != 1)
			return c;
		c = ch[0];
	}
}

void cpp_callee_of(struct run *r, CXCursor call, struct callee *ce)
{
	size_t n, i, depth = 0;
	struct tok *t = cpp_toks(r, call, &n);

	memset(ce, 0, sizeof(*ce));
	for (i = 0; i < n; i++) {
		if (!strcmp(t[i].s, "(") && !depth) {
			size_t j = i + 1, d = 1;

			/* a chained call (test.Config(...).RunWithConfig()): the callee is the last one */
			for (; j < n && d; j++)
				d += !strcmp(t[j].s, "(") - !strcmp(t[j].s, ")");
			if (d || j >= n || (strcmp(t[j].s, ".") && strcmp(t[j].s, "->")))
				break;
			memset(ce, 0, sizeof(*ce));
			i = j - 1;
			continue;
		}
		if (!strcmp(t[i].s, "<") && i && t[i - 1].kind == CXToken_Identifier && !depth) {
			size_t j = i + 1, d = 1;

			for (; j < n && d; j++)
				d += !strcmp(t[j].s, "<") - !strcmp(t[j].s, ">") - 2 * !strcmp(t[j].s, ">>");
			if (!d) {
				ce->targs = t + i + 1;
				ce->ntargs = j - i - 2;
				i = j - 1;
				continue;
			}
		}
		if (t[i].kind == CXToken_Identifier) {
			if (i + 1 < n && (!strcmp(t[i + 1].s, ".") || !strcmp(t[i + 1].s, "->")) && !ce->name)
				ce->object = t[i].s;
			ce->name = t[i].s;
			if (!ce->object || strcmp(ce->object, t[i].s))
				ce->targs = NULL, ce->ntargs = 0;
		}
	}
	if (!ce->name)
		ce->name = "";
}

#endif
