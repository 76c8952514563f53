/* torch-parse.c: the parser over one TEST body's tokens (torch.c says why tokens): statements,
 * declarations, loops, conditions and expressions by precedence climbing; calls go to torch.c, and
 * helper functions of the file are read as a test's body. */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "torch-int.h"

#ifdef HAVE_LIBCLANG

static struct cval tx_expr(struct tp *p, int prec, struct cval **lv);
static void tx_stmt(struct tp *p);

static int tx_accept(struct tp *p, const char *s)
{
	if (!tx_at(p, s))
		return 0;
	p->i++;
	return 1;
}

/* The index just past the bracket that closes the one at i (or n). */
static size_t tx_close(const struct tp *p, size_t i)
{
	int depth = 0;

	for (; i < p->n; i++) {
		const char *s = p->t[i].s;

		depth += (!strcmp(s, "(") || !strcmp(s, "[") || !strcmp(s, "{")) -
			 (!strcmp(s, ")") || !strcmp(s, "]") || !strcmp(s, "}"));
		if (!depth)
			return i + 1;
	}
	return p->n;
}

/* Whether the "<" at i opens template arguments: a ">" closes it before anything that is not part of
 * a type (an operator, a semicolon), and a call, a brace, "::" or ">" follows. */
static size_t tx_targs_end(const struct tp *p, size_t i)
{
	int depth = 0;

	for (; i < p->n; i++) {
		const char *s = p->t[i].s;

		if (!strcmp(s, "<"))
			depth++;
		else if (!strcmp(s, ">") || !strcmp(s, ">>")) {
			depth -= s[1] ? 2 : 1;
			if (depth <= 0)
				break;
		} else if (p->t[i].kind == CXToken_Punctuation && strcmp(s, "::") && strcmp(s, ",") &&
			   strcmp(s, "*") && strcmp(s, "&"))
			return 0;
	}
	if (i + 1 >= p->n || depth < 0)
		return 0;
	{
		const char *nx = p->t[i + 1].s;

		return !strcmp(nx, "(") || !strcmp(nx, "{") || !strcmp(nx, "::") || !strcmp(nx, ">") ? i + 1 : 0;
	}
}

/* The arguments of a call, at "(" or "{": each evaluated. */
struct cval *cpp_tx_args(struct tp *p, size_t *n)
{
	const char *close = tx_at(p, "(") ? ")" : "}";
	size_t end = tx_close(p, p->i), cap = 4, m = 0;
	struct cval *v = cpp_arena_alloc(&p->r->arena, cap * sizeof(*v));

	p->i++;
	while (p->i < end - 1 && !tx_at(p, close)) {
		size_t start = p->i;

		if (m == cap) {
			struct cval *nv = cpp_arena_alloc(&p->r->arena, 2 * cap * sizeof(*nv));

			memcpy(nv, v, m * sizeof(*v));
			v = nv;
			cap *= 2;
		}
		v[m++] = tx_expr(p, 0, NULL);
		if (!tx_accept(p, ",") && !tx_at(p, close))
			p->i = end - 1;   /* what the parser cannot read: the rest of the arguments */
		if (p->i == start)
			p->i++;
	}
	p->i = end;
	*n = m;
	return v;
}

/* A helper function of the file (BidirectionalGRUReverseForward(false)): its body read as a test's,
 * its parameters bound to the call's arguments (the defaults where the call has fewer), the modules
 * it makes counted with the test's. */
struct cval cpp_tx_helper(struct tp *p, CXCursor fn, struct cval *a, size_t n)
{
	struct run *r = p->r;
	size_t nk, pi = 0, nt, m = 0;
	CXCursor *k = cpp_kids(r, fn, &nk);
	struct frame g;
	struct tp q;
	struct tok *t = NULL, *v;

	if (p->f->depth >= MAX_DEPTH)
		return unknown("helpers nested too deep");
	memset(&g, 0, sizeof(g));
	g.depth = p->f->depth + 1;
	g.ret = unknown("a helper that returns nothing the harvester can follow");
	for (size_t i = 0; i < nk; i++) {
		if (kind(r, k[i]) == CXCursor_ParmDecl) {
			const char *name = spelling(r, k[i]);

			if (pi < n) {
				cpp_bind(r, &g, name, a[pi]);
			} else {
				/* a default argument: its tokens after "=" */
				struct tok *d = cpp_toks(r, k[i], &nt);
				size_t e = 0;

				while (e < nt && strcmp(d[e].s, "="))
					e++;
				if (e < nt) {
					struct tp dq = { .r = r, .t = d + e + 1, .n = nt - e - 1, .f = &g };

					cpp_bind(r, &g, name, tx_expr(&dq, 0, NULL));
				} else {
					cpp_bind(r, &g, name, unknown("a missing argument"));
				}
			}
			pi++;
		} else if (kind(r, k[i]) == CXCursor_CompoundStmt) {
			t = cpp_toks(r, k[i], &nt);
		}
	}
	if (!t)
		return unknown("a function without a body in the file");
	v = cpp_arena_alloc(&r->arena, (nt + 1) * sizeof(*v));
	for (size_t i = 0; i < nt; i++)
		if (t[i].kind != CXToken_Comment)
			v[m++] = t[i];
	memset(&q, 0, sizeof(q));
	q.r = r;
	q.t = v;
	q.n = m;
	q.f = &g;
	q.mods = p->mods;
	q.failing = p->failing;
	count(r, "helper calls followed", 1);
	tx_stmt(&q);
	p->mods = q.mods;
	return g.ret;
}

static struct cval tx_number(const char *s)
{
	int fl = !strncmp(s, "0x", 2) || !strncmp(s, "0X", 2) ? 0 :
		 strpbrk(s, ".eE") != NULL || ((s[strlen(s) - 1] == 'f' || s[strlen(s) - 1] == 'F'));

	return fl ? num_float(strtod(s, NULL)) : num_int((long long)strtoull(s, NULL, 0));
}

/* A literal: strings written one after the other joined, a character, a number. */
static struct cval tx_literal(struct tp *p)
{
	struct run *r = p->r;
	const struct tok *t = &p->t[p->i++];
	struct cval v;

	if (t->s[0] == '"' || strchr(t->s, '"')) {
		struct buf b = BUF_INIT;

		buf_adds(&b, cpp_unescape(r, t->s));
		while (p->i < p->n && p->t[p->i].kind == CXToken_Literal && strchr(p->t[p->i].s, '"'))
			buf_adds(&b, cpp_unescape(r, p->t[p->i++].s));
		memset(&v, 0, sizeof(v));
		v.kind = CV_STR;
		v.s = cpp_arena_strdup(&r->arena, b.data ? b.data : "");
		buf_release(&b);
	} else if (t->s[0] == '\'') {
		v = num_int((unsigned char)t->s[1]);
	} else {
		v = tx_number(t->s);
	}
	return v;
}

/* A qualified name, with template arguments: a variable (*lv its binding), a call, nullptr or this,
 * or a symbol (torch::kFloat). 1 with its value in *v; 0 with *v unknown when no name is there. */
static int tx_name(struct tp *p, struct cval *v, struct cval **lv)
{
	struct run *r = p->r;
	struct buf ns = BUF_INIT;
	const char *base = NULL, *targs = NULL;
	unsigned line = p->t[p->i].line;

	for (;;) {
		size_t te;

		if (tx_accept(p, "::"))
			continue;
		if (p->i >= p->n || (p->t[p->i].kind != CXToken_Identifier && p->t[p->i].kind != CXToken_Keyword))
			break;
		if (base)
			buf_addf(&ns, "%s%s", ns.len ? "::" : "", base);
		base = p->t[p->i++].s;
		if (tx_at(p, "<") && (te = tx_targs_end(p, p->i))) {
			targs = cpp_type_text(r, p->f, p->t + p->i + 1, te - p->i - 2);
			p->i = te;
		}
		if (!tx_at(p, "::"))
			break;
		p->i++;
	}
	if (!base) {
		buf_release(&ns);
		p->i++;
		*v = unknown("an expression the harvester cannot read");
		return 0;
	}
	if (!ns.len && (*lv = cpp_lookup(p->f, base))) {
		*v = **lv;
	} else if (tx_at(p, "(") || (tx_at(p, "{") && (ns.len || isupper((unsigned char)base[0])))) {
		*v = cpp_tx_call(p, ns.data ? ns.data : "", base, targs, line);
	} else if (!strcmp(base, "nullptr") || !strcmp(base, "this")) {
		*v = unknown("a pointer");
	} else {
		*v = cpp_tx_sym(base);
	}
	buf_release(&ns);
	return 1;
}

/* A primary expression: a literal, a parenthesised expression, a braced list, a lambda (skipped) or
 * a name. 1 with its value in *v (*lv: the variable it is, or NULL); 0 when nothing the parser can
 * read is there, *v saying so. */
static int tx_primary(struct tp *p, struct cval *v, struct cval **lv)
{
	struct run *r = p->r;
	const struct tok *t;

	*lv = NULL;
	if (p->i >= p->n) {
		*v = unknown("an expression the harvester cannot read");
		return 0;
	}
	t = &p->t[p->i];
	if (t->kind == CXToken_Literal) {
		*v = tx_literal(p);
	} else if (!strcmp(t->s, "true") || !strcmp(t->s, "false")) {
		p->i++;
		*v = boolean(t->s[0] == 't');
	} else if (!strcmp(t->s, "(")) {
		size_t end = tx_close(p, p->i);

		p->i++;
		*v = tx_expr(p, 0, lv);
		p->i = end;
	} else if (!strcmp(t->s, "{")) {
		size_t n;
		struct cval *a = cpp_tx_args(p, &n);

		*v = cpp_list_of(r, n);
		if (n)
			memcpy(v->items, a, n * sizeof(*a));
	} else if (!strcmp(t->s, "[")) {
		/* a lambda: [captures](params) -> type { body } */
		p->i = tx_close(p, p->i);
		if (tx_at(p, "("))
			p->i = tx_close(p, p->i);
		while (p->i < p->n && !tx_at(p, "{") && !tx_at(p, ";"))
			p->i++;
		if (tx_at(p, "{"))
			p->i = tx_close(p, p->i);
		*v = unknown("a lambda");
	} else if (t->kind == CXToken_Identifier || t->kind == CXToken_Keyword || !strcmp(t->s, "::")) {
		return tx_name(p, v, lv);
	} else {
		p->i++;
		*v = unknown("an expression the harvester cannot read");
		return 0;
	}
	return 1;
}

/* A primary expression and what follows it (members, calls, subscripts). */
static struct cval tx_postfix(struct tp *p, struct cval **lvp)
{
	struct cval v, *lv;

	if (!tx_primary(p, &v, &lv))
		return v;
	for (;;) {
		if (tx_at(p, ".") || tx_at(p, "->")) {
			int arrow = p->t[p->i].s[0] == '-';
			unsigned line;
			const char *name;

			p->i++;
			tx_accept(p, "template");
			if (p->i >= p->n)
				break;
			line = p->t[p->i].line;
			name = p->t[p->i++].s;
			if (tx_at(p, "<")) {
				size_t te = tx_targs_end(p, p->i);

				if (te)
					p->i = te;
			}
			v = cpp_tx_method(p, v, lv, name, arrow, line);
			lv = NULL;
		} else if (tx_at(p, "[")) {
			size_t end = tx_close(p, p->i);
			struct cval idx;

			p->i++;
			idx = tx_expr(p, 0, NULL);
			p->i = end;
			if (v.kind == CV_LIST && idx.kind == CV_NUM && !idx.is_float && idx.i >= 0 &&
			    (size_t)idx.i < v.n)
				v = v.items[idx.i];
			else if (v.kind != CV_UNKNOWN)
				v = unknown("a value computed at run time");
			lv = NULL;
		} else if (tx_at(p, "(")) {
			unsigned line = p->t[p->i].line;
			size_t n;
			struct cval *a = cpp_tx_args(p, &n);

			if (v.kind == CV_MODULE) {
				cpp_tx_module_call(p, v.tm, a, n, line);
				v = unknown("the result of a module");
			} else {
				v = v.kind == CV_UNKNOWN ? v : unknown("a value computed by a call");
			}
			lv = NULL;
		} else if (tx_at(p, "++") || tx_at(p, "--")) {
			p->i++;
			if (lv)
				*lv = unknown("a value computed at run time");
			v = unknown("a value computed at run time");
		} else {
			break;
		}
	}
	if (lvp)
		*lvp = lv;
	return v;
}

static struct cval tx_unary(struct tp *p, struct cval **lv)
{
	struct cval v;

	if (tx_accept(p, "-")) {
		v = tx_unary(p, NULL);
		return v.kind == CV_NUM ? (v.is_float ? num_float(-v.d) : num_int(-v.i)) :
		       v.kind == CV_UNKNOWN ? v : unknown("a value computed at run time");
	}
	if (tx_accept(p, "+"))
		return tx_unary(p, NULL);
	if (tx_accept(p, "!")) {
		v = tx_unary(p, NULL);
		return is_number(&v) ? boolean(v.d == 0) : v.kind == CV_UNKNOWN ? v :
		       unknown("a value computed at run time");
	}
	if (tx_accept(p, "*") || tx_accept(p, "&") || tx_accept(p, "~") || tx_accept(p, "++") || tx_accept(p, "--"))
		return (tx_unary(p, NULL), unknown("a value computed at run time"));
	return tx_postfix(p, lv);
}

static int tx_prec(const char *op)
{
	static const struct { const char *op; int prec; } ops[] = {
		{ "||", 1 }, { "&&", 2 }, { "|", 3 }, { "^", 4 }, { "&", 5 }, { "==", 6 }, { "!=", 6 },
		{ "<", 7 }, { ">", 7 }, { "<=", 7 }, { ">=", 7 }, { "<<", 8 }, { ">>", 8 }, { "+", 9 }, { "-", 9 },
		{ "*", 10 }, { "/", 10 }, { "%", 10 },
	};

	for (size_t i = 0; i < sizeof(ops) / sizeof(ops[0]); i++)
		if (!strcmp(op, ops[i].op))
			return ops[i].prec;
	return 0;
}

/* An expression whose operators bind tighter than prec (precedence climbing); *lv, when the
 * expression is a variable, its binding. */
static struct cval tx_expr(struct tp *p, int prec, struct cval **lv)
{
	struct cval a = tx_unary(p, lv);

	for (;;) {
		const char *op;
		int q;
		struct cval b;

		if (p->i >= p->n)
			break;
		op = p->t[p->i].s;
		if (!strcmp(op, "?") && prec == 0) {
			struct cval x, y;

			p->i++;
			x = tx_expr(p, 0, NULL);
			if (!tx_accept(p, ":"))
				return unknown("an expression the harvester cannot read");
			y = tx_expr(p, 0, NULL);
			a = is_number(&a) ? (a.d != 0 ? x : y) : a.kind == CV_UNKNOWN ? a :
			    unknown("a value computed at run time");
			continue;
		}
		if (!(q = tx_prec(op)) || q <= prec)
			break;
		p->i++;
		if (lv)
			*lv = NULL;
		b = tx_expr(p, q, NULL);
		if (!is_number(&a) || !is_number(&b)) {
			a = a.kind == CV_UNKNOWN ? a : b.kind == CV_UNKNOWN ? b :
			    a.kind == CV_TENSOR || b.kind == CV_TENSOR ? unknown("a tensor computed by arithmetic") :
			    unknown("a value computed at run time");
			continue;
		}
		if (!strcmp(op, "==")) a = boolean(a.d == b.d);
		else if (!strcmp(op, "!=")) a = boolean(a.d != b.d);
		else if (!strcmp(op, "<")) a = boolean(a.d < b.d);
		else if (!strcmp(op, ">")) a = boolean(a.d > b.d);
		else if (!strcmp(op, "<=")) a = boolean(a.d <= b.d);
		else if (!strcmp(op, ">=")) a = boolean(a.d >= b.d);
		else if (!strcmp(op, "&&")) a = boolean(a.d != 0 && b.d != 0);
		else if (!strcmp(op, "||")) a = boolean(a.d != 0 || b.d != 0);
		else if (a.is_float || b.is_float)
			a = !strcmp(op, "+") ? num_float(a.d + b.d) : !strcmp(op, "-") ? num_float(a.d - b.d) :
			    !strcmp(op, "*") ? num_float(a.d * b.d) : !strcmp(op, "/") ? num_float(a.d / b.d) :
			    unknown("a value computed at run time");
		else
			a = !strcmp(op, "+") ? num_int(a.i + b.i) : !strcmp(op, "-") ? num_int(a.i - b.i) :
			    !strcmp(op, "*") ? num_int(a.i * b.i) : !strcmp(op, "/") && b.i ? num_int(a.i / b.i) :
			    !strcmp(op, "%") && b.i ? num_int(a.i % b.i) : unknown("a value computed at run time");
	}
	return a;
}

/* The index past the statement that starts at i, without reading it. */
static size_t tx_skip(const struct tp *p, size_t i)
{
	const char *s;

	if (i >= p->n)
		return p->n;
	s = p->t[i].s;
	if (!strcmp(s, "{"))
		return tx_close(p, i);
	if (!strcmp(s, "if") || !strcmp(s, "for") || !strcmp(s, "while") || !strcmp(s, "switch")) {
		size_t j = i + 1;

		if (j < p->n && !strcmp(p->t[j].s, "constexpr"))
			j++;
		j = tx_skip(p, tx_close(p, j));
		if (!strcmp(s, "if") && j < p->n && !strcmp(p->t[j].s, "else"))
			j = tx_skip(p, j + 1);
		return j;
	}
	if (!strcmp(s, "do")) {
		size_t j = tx_skip(p, i + 1);

		while (j < p->n && strcmp(p->t[j].s, ";"))
			j++;
		return j + 1;
	}
	for (; i < p->n; i++) {
		s = p->t[i].s;
		if (!strcmp(s, "(") || !strcmp(s, "[") || !strcmp(s, "{"))
			i = tx_close(p, i) - 1;
		else if (!strcmp(s, ";"))
			return i + 1;
		else if (!strcmp(s, "}"))
			return i;
	}
	return p->n;
}

/* Whether the statement at p->i declares variables: a type (qualifiers, a qualified name with
 * template arguments, & and *) followed by a name. The index of the first name, or 0. */
static size_t tx_decl(const struct tp *p)
{
	size_t i = p->i;
	int named = 0;

	while (i < p->n && (!strcmp(p->t[i].s, "const") || !strcmp(p->t[i].s, "static") ||
			    !strcmp(p->t[i].s, "constexpr") || !strcmp(p->t[i].s, "unsigned")))
		i++;
	while (i < p->n) {
		if (!strcmp(p->t[i].s, "::")) {
			i++;
			continue;
		}
		if (p->t[i].kind != CXToken_Identifier && p->t[i].kind != CXToken_Keyword)
			return 0;
		i++;
		named = 1;
		if (i < p->n && !strcmp(p->t[i].s, "<")) {
			size_t te = tx_targs_end(p, i);
			size_t j = i + 1;
			int depth = 1;

			/* template arguments followed by a name: find the ">" by depth */
			for (; !te && j < p->n && depth; j++)
				depth += !strcmp(p->t[j].s, "<") - !strcmp(p->t[j].s, ">") -
					 2 * !strcmp(p->t[j].s, ">>");
			i = te ? te : depth ? p->n : j;
		}
		if (i < p->n && !strcmp(p->t[i].s, "::"))
			continue;
		break;
	}
	while (i < p->n && (!strcmp(p->t[i].s, "&") || !strcmp(p->t[i].s, "*") || !strcmp(p->t[i].s, "&&") ||
			    !strcmp(p->t[i].s, "const")))
		i++;
	if (!named || i + 1 >= p->n || p->t[i].kind != CXToken_Identifier)
		return 0;
	{
		const char *nx = p->t[i + 1].s;

		return !strcmp(nx, "=") || !strcmp(nx, "(") || !strcmp(nx, "{") || !strcmp(nx, ";") ||
		       !strcmp(nx, ",") || !strcmp(nx, "[") || !strcmp(nx, ":") ? i : 0;
	}
}

static void tx_bind(struct tp *p, const char *name, struct cval v)
{
	cpp_bind(p->r, p->f, name, v);
}

/* A declaration: TYPE a = expr, b(args), c{args}, d; each name bound to its value. */
static void tx_declaration(struct tp *p, size_t name_at)
{
	size_t type_start = p->i, type_end = name_at;
	const char *type = "";

	/* the type's last name, for T x(args) and T x: a module or an options builder made */
	for (size_t j = type_start; j < type_end; j++)
		if (p->t[j].kind == CXToken_Identifier)
			type = p->t[j].s;
	p->i = name_at;
	while (p->i < p->n) {
		const char *name = p->t[p->i++].s;
		struct cval v;
		unsigned line = p->t[p->i - 1].line;

		if (tx_at(p, "=")) {
			p->i++;
			v = tx_expr(p, 0, NULL);
		} else if (tx_at(p, "(") || tx_at(p, "{") || tx_at(p, ";") || tx_at(p, ",")) {
			/* T x(args): read as T(args) */
			struct tok *tt = cpp_arena_alloc(&p->r->arena, (p->n - p->i + 2) * sizeof(*tt));
			struct tp q = *p;

			tt[0] = p->t[type_end - 1];
			tt[0].s = type;
			tt[0].line = line;
			tt[0].kind = CXToken_Identifier;
			if (tx_at(p, "(") || tx_at(p, "{")) {
				size_t end = tx_close(p, p->i);

				memcpy(tt + 1, p->t + p->i, (end - p->i) * sizeof(*tt));
				q.n = 1 + end - p->i;
				p->i = end;
			} else {
				tt[1].s = "(";
				tt[2].s = ")";
				tt[1].kind = tt[2].kind = CXToken_Punctuation;
				q.n = 3;
			}
			q.t = tt;
			q.i = 0;
			if (cpp_tx_is_module(type) || cpp_has_suffix(type, "Options") || q.n > 3 ||
			    !strcmp(type, "vector"))
				v = tx_postfix(&q, NULL);
			else
				v = unknown("a variable declared without a value");
			p->mods = q.mods;
		} else {
			v = unknown("a declaration the harvester cannot read");
		}
		tx_bind(p, name, v);
		if (!tx_accept(p, ","))
			break;
		/* the next declarator may repeat & or * */
		while (tx_accept(p, "&") || tx_accept(p, "*"))
			;
		if (p->i >= p->n || p->t[p->i].kind != CXToken_Identifier)
			break;
	}
	p->i = tx_skip(p, p->i);
}

/* for (...) body */
static void tx_for(struct tp *p)
{
	size_t open = p->i, close = tx_close(p, open), colon = 0, body = close, after;
	int depth = 0;

	for (size_t j = open + 1; j < close - 1; j++) {
		const char *s = p->t[j].s;

		depth += (!strcmp(s, "(") || !strcmp(s, "{") || !strcmp(s, "[")) -
			 (!strcmp(s, ")") || !strcmp(s, "}") || !strcmp(s, "]"));
		if (!depth && !strcmp(s, ":")) {
			colon = j;
			break;
		}
	}
	after = tx_skip(p, body);
	if (colon) {
		/* for (decl name : range): unrolled over a literal list */
		struct tp q = *p;
		struct cval range;
		const char *name = p->t[colon - 1].s;

		q.i = colon + 1;
		q.n = close - 1;
		range = tx_expr(&q, 0, NULL);
		p->mods = q.mods;
		if (range.kind == CV_LIST && range.n <= MAX_ITER && !p->r->loop) {
			for (size_t k = 0; k < range.n && !p->f->returned && !p->r->failed; k++) {
				tx_bind(p, name, range.items[k]);
				p->i = body;
				tx_stmt(p);
			}
			p->i = after;
			return;
		}
		tx_bind(p, name, range.kind == CV_UNKNOWN ? range : unknown("a loop variable"));
	} else {
		/* the names declared in the loop's first clause are unknown */
		for (size_t j = open + 1; j + 1 < close && strcmp(p->t[j].s, ";"); j++)
			if (p->t[j].kind == CXToken_Identifier && !strcmp(p->t[j + 1].s, "="))
				tx_bind(p, p->t[j].s, unknown("a loop variable"));
	}
	count(p->r, "loops the harvester does not unroll", 1);
	p->r->loop++;
	p->i = body;
	tx_stmt(p);
	p->r->loop--;
	p->i = after;
}

/* { ... }: its statements in a frame of their own, whose declarations end with the block. */
static void tx_block(struct tp *p)
{
	size_t end = tx_close(p, p->i);
	struct frame g, *up = p->f;

	memset(&g, 0, sizeof(g));
	g.up = up;
	g.depth = up->depth;
	p->f = &g;
	p->i++;
	while (p->i < end - 1 && !g.returned && !p->r->failed) {
		size_t start = p->i;

		tx_stmt(p);
		if (p->i == start)
			p->i++;
	}
	if (g.returned)
		up->ret = g.ret;
	up->returned |= g.returned;
	p->f = up;
	p->i = end;
}

/* while and do loops, read once with their variables unknown; switch and try, skipped. */
static void tx_other(struct tp *p, const char *s)
{
	size_t after = tx_skip(p, p->i);

	if (!strcmp(s, "while") || !strcmp(s, "do")) {
		count(p->r, "loops the harvester does not unroll", 1);
		p->r->loop++;
		p->i = s[0] == 'w' ? tx_close(p, p->i + 1) : p->i + 1;
		tx_stmt(p);
		p->r->loop--;
	}
	p->i = after;
}

/* if (cond) then else: the branch the condition takes; the else branch when it is false or a
 * condition on the machine. */
static void tx_if(struct tp *p)
{
	size_t open = p->i + 1, close, then_end;
	struct tp q = *p;
	struct cval c;

	if (open < p->n && !strcmp(p->t[open].s, "constexpr"))
		open++;
	close = tx_close(p, open);
	then_end = tx_skip(p, close);
	q.i = open + 1;
	q.n = close - 1;
	c = tx_expr(&q, 0, NULL);
	p->mods = q.mods;
	if (is_number(&c) && c.d != 0) {
		p->i = close;
		tx_stmt(p);
		p->i = then_end;
		if (then_end < p->n && !strcmp(p->t[then_end].s, "else"))
			p->i = tx_skip(p, then_end + 1);
	} else {
		p->i = then_end;
		if (tx_accept(p, "else"))
			tx_stmt(p);
	}
}

/* An expression as a statement: an assignment to a variable, or a call. */
static void tx_expr_stmt(struct tp *p)
{
	size_t after = tx_skip(p, p->i);
	struct cval *lv = NULL, v;

	v = tx_expr(p, 0, &lv);
	if (tx_at(p, "=")) {
		p->i++;
		v = tx_expr(p, 0, NULL);
		if (lv)
			*lv = v;
	} else if (p->i < p->n && p->t[p->i].kind == CXToken_Punctuation && strchr("+-*/%|&^", p->t[p->i].s[0]) &&
		   cpp_has_suffix(p->t[p->i].s, "=")) {
		p->i++;
		tx_expr(p, 0, NULL);
		if (lv)
			*lv = unknown("a value computed at run time");
	}
	p->i = after;
}

static void tx_stmt(struct tp *p)
{
	const char *s;
	size_t d;

	if (p->i >= p->n || p->f->returned || p->r->failed)
		return;
	s = p->t[p->i].s;
	if (!strcmp(s, "{")) {
		tx_block(p);
	} else if (!strcmp(s, ";")) {
		p->i++;
	} else if (!strcmp(s, "for")) {
		p->i++;
		tx_for(p);
	} else if (!strcmp(s, "while") || !strcmp(s, "do") || !strcmp(s, "switch") || !strcmp(s, "try")) {
		tx_other(p, s);
	} else if (!strcmp(s, "if")) {
		tx_if(p);
	} else if (!strcmp(s, "return")) {
		size_t start = p->i++;

		/* a helper's result: what its caller's expression goes on with */
		if (!tx_at(p, ";"))
			p->f->ret = tx_expr(p, 0, NULL);
		p->i = tx_skip(p, start);
		p->f->returned = 1;
	} else if (!strcmp(s, "using") || !strcmp(s, "namespace") || !strcmp(s, "struct") || !strcmp(s, "class") ||
		   !strcmp(s, "typedef") || !strcmp(s, "break") || !strcmp(s, "continue")) {
		p->i = tx_skip(p, p->i);
	} else if ((d = tx_decl(p))) {
		tx_declaration(p, d);
	} else {
		tx_expr_stmt(p);
	}
}

/* One TEST body, from its tokens. */
void cpp_torch_test(struct run *r, CXCursor body)
{
	size_t n, m = 0;
	struct tok *t = cpp_toks(r, body, &n), *v = cpp_arena_alloc(&r->arena, (n + 1) * sizeof(*v));
	struct frame f;
	struct tp p;

	/* comments are no part of the code */
	for (size_t i = 0; i < n; i++)
		if (t[i].kind != CXToken_Comment)
			v[m++] = t[i];
	memset(&f, 0, sizeof(f));
	memset(&p, 0, sizeof(p));
	p.r = r;
	p.t = v;
	p.n = m;
	p.f = &f;
	tx_stmt(&p);
	for (struct tmod *mod = p.mods; mod; mod = mod->next)
		if (!mod->called)
			not_recorded(r, "a module constructed but never called on a tensor");
}

#endif
