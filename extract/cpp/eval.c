/* eval.c: the value of an expression of a test, from libclang's syntax tree: literals, operators,
 * casts, initializer lists, names (the frame's bindings, the file's constants and enumerators),
 * members, subscripts, lambdas and calls (call.c). */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "cpp-int.h"

#ifdef HAVE_LIBCLANG

/* libclang's own evaluator, for what the cases below do not cover (sizeof, constexpr names, macros). */
static struct cval clang_eval(struct run *r, CXCursor c)
{
	CXEvalResult ev = r->api->Cursor_Evaluate(c);
	struct cval v = unknown("a value computed at run time");

	if (!ev)
		return v;
	switch (r->api->EvalResult_getKind(ev)) {
	case CXEval_Int:
		v = num_int(r->api->EvalResult_getAsLongLong(ev));
		break;
	case CXEval_Float:
		v = num_float(r->api->EvalResult_getAsDouble(ev));
		break;
	case CXEval_StrLiteral:
		v.kind = CV_STR;
		v.s = cpp_arena_strdup(&r->arena, r->api->EvalResult_getAsStr(ev));
		break;
	default:
		break;
	}
	r->api->EvalResult_dispose(ev);
	return v;
}

static struct cval binary(struct run *r, struct frame *f, CXCursor c)
{
	size_t nk, nl;
	CXCursor *k = cpp_kids(r, c, &nk);
	struct tok *t = cpp_toks(r, c, &nl);
	struct cval a, b;
	const char *op;
	size_t ln;

	if (nk != 2)
		return unknown("a value computed at run time");
	ln = cpp_ntoks(r, k[0]);
	if (ln >= nl)
		return clang_eval(r, c);
	op = t[ln].s;
	a = cpp_eval(r, f, k[0]);
	if (!strcmp(op, "&&") && a.kind == CV_BOOL && !a.i)
		return boolean(0);
	if (!strcmp(op, "||") && a.kind == CV_BOOL && a.i)
		return boolean(1);
	b = cpp_eval(r, f, k[1]);
	if ((a.kind == CV_ABSENT || b.kind == CV_ABSENT) && a.kind != CV_UNKNOWN && b.kind != CV_UNKNOWN &&
	    (!strcmp(op, "==") || !strcmp(op, "!="))) {
		/* a pointer against nullptr: p_perm != nullptr */
		return boolean((a.kind == b.kind) == !strcmp(op, "=="));
	}
	if ((a.kind == CV_STR && b.kind == CV_STR) || (a.kind == CV_SYM && b.kind == CV_SYM)) {
		if (!strcmp(op, "=="))
			return boolean(!strcmp(a.s, b.s));
		if (!strcmp(op, "!="))
			return boolean(!!strcmp(a.s, b.s));
	}
	if (!is_number(&a) || !is_number(&b))
		return a.kind == CV_UNKNOWN ? a : b.kind == CV_UNKNOWN ? b : unknown("a value computed at run time");
	if (!strcmp(op, "==")) return boolean(a.d == b.d);
	if (!strcmp(op, "!=")) return boolean(a.d != b.d);
	if (!strcmp(op, "<")) return boolean(a.d < b.d);
	if (!strcmp(op, ">")) return boolean(a.d > b.d);
	if (!strcmp(op, "<=")) return boolean(a.d <= b.d);
	if (!strcmp(op, ">=")) return boolean(a.d >= b.d);
	if (!strcmp(op, "&&")) return boolean(a.d != 0 && b.d != 0);
	if (!strcmp(op, "||")) return boolean(a.d != 0 || b.d != 0);
	if (a.is_float || b.is_float) {
		if (!strcmp(op, "+")) return num_float(a.d + b.d);
		if (!strcmp(op, "-")) return num_float(a.d - b.d);
		if (!strcmp(op, "*")) return num_float(a.d * b.d);
		if (!strcmp(op, "/")) return num_float(a.d / b.d);
	} else {
		if (!strcmp(op, "+")) return num_int(a.i + b.i);
		if (!strcmp(op, "-")) return num_int(a.i - b.i);
		if (!strcmp(op, "*")) return num_int(a.i * b.i);
		if (!strcmp(op, "/") && b.i) return num_int(a.i / b.i);
		if (!strcmp(op, "%") && b.i) return num_int(a.i % b.i);
		if (!strcmp(op, "<<") && b.i >= 0 && b.i < 63) return num_int(a.i << b.i);
	}
	return unknown("a value computed at run time");
}

/* A field of a struct value (an aggregate kept as a list): its index from the declaration of the
 * base's type, else from the one struct of the file that has a field of that name. */
static struct cval field(struct run *r, CXCursor base, const struct cval *v, const char *name)
{
	CXType bt = r->api->getCursorType(base);
	CXCursor decl;
	size_t nk;

	if (bt.kind == CXType_LValueReference || bt.kind == CXType_RValueReference)
		bt = r->api->getPointeeType(bt);
	decl = r->api->getTypeDeclaration(bt);

	if (v->kind != CV_LIST)
		return v->kind == CV_UNKNOWN ? *v : unknown("a member of an object the harvester cannot follow");
	if (!r->api->Cursor_isNull(decl) && kind(r, decl) != CXCursor_NoDeclFound) {
		CXCursor *k = cpp_kids(r, decl, &nk);
		size_t idx = 0;

		for (size_t i = 0; i < nk; i++) {
			if (kind(r, k[i]) != CXCursor_FieldDecl)
				continue;
			if (!strcmp(spelling(r, k[i]), name))
				return idx < v->n ? v->items[idx] : unknown("a default member value");
			idx++;
		}
	}
	for (size_t s = 0; s < r->nstructs; s++)
		for (size_t i = 0; i < r->structs[s].n; i++)
			if (!strcmp(r->structs[s].fields[i], name) && r->structs[s].n >= v->n)
				return i < v->n ? v->items[i] : unknown("a default member value");
	return unknown("a member of an object the harvester cannot follow");
}

struct cval cpp_numeric_limit(struct run *r, struct frame *f, CXCursor c)
{
	size_t n, i;
	struct tok *t = cpp_toks(r, c, &n);
	const char *type = NULL, *what = NULL;

	for (i = 0; i + 2 < n; i++)
		if (!strcmp(t[i].s, "numeric_limits") && !strcmp(t[i + 1].s, "<")) {
			size_t j = i + 2;

			while (j < n && strcmp(t[j].s, ">"))
				j++;
			type = cpp_type_text(r, f, t + i + 2, j - i - 2);
			if (j + 2 < n)
				what = t[j + 2].s;
			break;
		}
	if (!type || !what)
		return unknown("a value computed at run time");
	if (!strcmp(what, "infinity"))
		return num_float(INFINITY);
	if (!strcmp(what, "quiet_NaN") || !strcmp(what, "signaling_NaN"))
		return num_float(NAN);
	if (!strcmp(type, "float"))
		return num_float(!strcmp(what, "max") ? 3.4028234663852886e38 : !strcmp(what, "lowest") ?
				 -3.4028234663852886e38 : !strcmp(what, "min") ? 1.1754943508222875e-38 :
				 !strcmp(what, "epsilon") ? 1.1920928955078125e-07 : NAN);
	if (!strcmp(type, "double"))
		return num_float(!strcmp(what, "max") ? 1.7976931348623157e308 : !strcmp(what, "lowest") ?
				 -1.7976931348623157e308 : !strcmp(what, "min") ? 2.2250738585072014e-308 :
				 !strcmp(what, "epsilon") ? 2.220446049250313e-16 : NAN);
	{
		static const struct { const char *t; long long lo, hi; } ints[] = {
			{ "int8_t", INT8_MIN, INT8_MAX }, { "uint8_t", 0, UINT8_MAX },
			{ "int16_t", INT16_MIN, INT16_MAX }, { "uint16_t", 0, UINT16_MAX },
			{ "int32_t", INT32_MIN, INT32_MAX }, { "int", INT32_MIN, INT32_MAX },
			{ "uint32_t", 0, UINT32_MAX }, { "int64_t", INT64_MIN, INT64_MAX },
		};

		for (i = 0; i < sizeof(ints) / sizeof(ints[0]); i++)
			if (!strcmp(type, ints[i].t) && (!strcmp(what, "max") || !strcmp(what, "min") ||
							 !strcmp(what, "lowest")))
				return num_int(!strcmp(what, "max") ? ints[i].hi : ints[i].lo);
	}
	return unknown("a value computed at run time");
}

/* A string literal: its pieces ("a" "b") unescaped and joined. */
static struct cval eval_string(struct run *r, CXCursor c)
{
	struct buf b = BUF_INIT;
	struct cval v;
	size_t n;
	struct tok *t = cpp_toks(r, c, &n);

	for (size_t i = 0; i < n; i++)
		buf_adds(&b, cpp_unescape(r, t[i].s));
	memset(&v, 0, sizeof(v));
	v.kind = CV_STR;
	v.s = cpp_arena_strdup(&r->arena, b.data ? b.data : "");
	buf_release(&b);
	return v;
}

static struct cval eval_unary(struct run *r, struct frame *f, CXCursor c)
{
	struct cval v;
	size_t n, nk;
	struct tok *t = cpp_toks(r, c, &n);
	CXCursor *ch = cpp_kids(r, c, &nk);

	if (!n || nk != 1)
		return unknown("a value computed at run time");
	v = cpp_eval(r, f, ch[0]);
	/* &x and *p: a pointer is the value it points to (nullptr is CV_ABSENT) */
	if (!strcmp(t[0].s, "&") || !strcmp(t[0].s, "*"))
		return v;
	if (!strcmp(t[0].s, "!") && v.kind == CV_ABSENT)
		return boolean(1);
	if (!strcmp(t[0].s, "-") && v.kind == CV_NUM)
		return v.is_float ? num_float(-v.d) : num_int(-v.i);
	if (!strcmp(t[0].s, "+") && v.kind == CV_NUM)
		return v;
	if (!strcmp(t[0].s, "!") && is_number(&v))
		return boolean(v.d == 0);
	return v.kind == CV_UNKNOWN ? v : unknown("a value computed at run time");
}

/* cond ? a : b */
static struct cval eval_conditional(struct run *r, struct frame *f, CXCursor c)
{
	struct cval cond;
	size_t nk;
	CXCursor *ch = cpp_kids(r, c, &nk);

	if (nk != 3)
		return unknown("a value computed at run time");
	cond = cpp_eval(r, f, ch[0]);
	if (!is_number(&cond))
		return cond.kind == CV_UNKNOWN ? cond : unknown("a value computed at run time");
	return cpp_eval(r, f, ch[cond.d != 0 ? 1 : 2]);
}

/* Parentheses, an implicit wrapper or a cast (k): the value of the expression within, cast. */
static struct cval eval_cast(struct run *r, struct frame *f, CXCursor c, enum CXCursorKind k)
{
	struct cval v;
	size_t nk, n, last = SIZE_MAX;
	CXCursor *ch = cpp_kids(r, c, &nk);
	struct tok *t;

	for (size_t i = 0; i < nk; i++)
		if (r->api->isExpression(kind(r, ch[i])))
			last = i;
	if (last == SIZE_MAX) {
		if (k == CXCursor_UnexposedExpr && cpp_ntoks(r, c) > 0) {
			/* an initializer list libclang did not type ("{1, 2}" passed to a template) */
			t = cpp_toks(r, c, &n);
			if (n >= 2 && !strcmp(t[0].s, "{") && !strcmp(t[n - 1].s, "}") && n == 2)
				return cpp_list_of(r, 0);
			return clang_eval(r, c);
		}
		return unknown("a default argument");
	}
	v = cpp_eval(r, f, ch[last]);
	if (k != CXCursor_ParenExpr && k != CXCursor_UnexposedExpr) {
		const char *ty = type_of(r, c);

		/* int64_t{0}: a scalar written in braces is the scalar, not a list of one */
		if (v.kind == CV_LIST && v.n == 1 && !strchr(ty, '<') && !strchr(ty, '['))
			v = v.items[0];
		v = cpp_cast_to(v, ty);
	}
	return v;
}

/* A name: a binding of the frame, an enumerator, a constant of the file or of a namespace, or what
 * libclang can evaluate. */
static struct cval eval_name(struct run *r, struct frame *f, CXCursor c)
{
	const char *name = spelling(r, c);
	struct cval *b = cpp_lookup(f, name);
	CXCursor ref;
	enum CXCursorKind rk;

	if (b)
		return *b;
	ref = r->api->getCursorReferenced(c);
	rk = kind(r, ref);
	if (rk == CXCursor_EnumConstantDecl) {
		struct cval v, e = clang_eval(r, c);

		memset(&v, 0, sizeof(v));
		v.kind = CV_SYM;
		v.s = name;
		if (e.kind == CV_NUM && !e.is_float) {
			/* TensorProto_DataType_FLOAT: an attribute's value as well as a name */
			v.is_enum = 1;
			v.i = e.i;
			v.d = e.d;
		}
		return v;
	}
	if (rk == CXCursor_VarDecl && f->depth < MAX_DEPTH) {
		/* a constant of the file or of a namespace: its initializer, in a frame of its own */
		struct frame g;
		size_t nk, last = SIZE_MAX;
		CXCursor *ch = cpp_kids(r, ref, &nk);

		for (size_t i = 0; i < nk; i++)
			if (r->api->isExpression(kind(r, ch[i])))
				last = i;
		if (last == SIZE_MAX)
			return unknown("a variable without an initializer");
		memset(&g, 0, sizeof(g));
		g.depth = f->depth + 1;
		return cpp_eval(r, &g, ch[last]);
	}
	if (r->api->Cursor_isNull(ref) || (rk >= CXCursor_FirstInvalid && rk <= CXCursor_LastInvalid))
		return unknown("a name declared in a header the harvester does not have");
	return clang_eval(r, c);
}

/* x.field, or a member of the TEST_F's fixture (bound by fixture_bind). */
static struct cval eval_member(struct run *r, struct frame *f, CXCursor c)
{
	struct cval base;
	size_t n, nk;
	CXCursor *ch = cpp_kids(r, c, &nk);
	struct tok *t;

	if (!nk) {
		struct cval *b = cpp_lookup(f, spelling(r, c));

		return b ? *b : unknown("a member of the test fixture");
	}
	base = cpp_eval(r, f, ch[0]);
	t = cpp_toks(r, c, &n);
	return field(r, ch[0], &base, n ? t[n - 1].s : spelling(r, c));
}

static struct cval eval_subscript(struct run *r, struct frame *f, CXCursor c)
{
	struct cval base, idx;
	size_t nk;
	CXCursor *ch = cpp_kids(r, c, &nk);

	if (nk != 2)
		return unknown("a value computed at run time");
	base = cpp_eval(r, f, ch[0]);
	idx = cpp_eval(r, f, ch[1]);
	if (base.kind == CV_LIST && idx.kind == CV_NUM && !idx.is_float && idx.i >= 0 && (size_t)idx.i < base.n)
		return base.items[idx.i];
	return base.kind == CV_UNKNOWN ? base : idx.kind == CV_UNKNOWN ? idx :
	       unknown("a value computed at run time");
}

struct cval cpp_eval(struct run *r, struct frame *f, CXCursor c)
{
	enum CXCursorKind k = kind(r, c);
	size_t n, nk;
	struct tok *t;
	CXCursor *ch;
	struct cval v;

	switch (k) {
	case CXCursor_IntegerLiteral:
		t = cpp_toks(r, c, &n);
		if (n)
			return num_int((long long)strtoull(t[0].s, NULL, 0));
		return clang_eval(r, c);
	case CXCursor_FloatingLiteral:
		t = cpp_toks(r, c, &n);
		if (n)
			return num_float(strtod(t[0].s, NULL));
		return clang_eval(r, c);
	case CXCursor_CharacterLiteral:
		return clang_eval(r, c);
	case CXCursor_StringLiteral:
		return eval_string(r, c);
	case CXCursor_CXXBoolLiteralExpr:
		t = cpp_toks(r, c, &n);
		return boolean(n && !strcmp(t[0].s, "true"));
	case CXCursor_UnaryOperator:
		return eval_unary(r, f, c);
	case CXCursor_BinaryOperator:
		return binary(r, f, c);
	case CXCursor_ConditionalOperator:
		return eval_conditional(r, f, c);
	case CXCursor_ParenExpr:
	case CXCursor_UnexposedExpr:
	case CXCursor_CStyleCastExpr:
	case CXCursor_CXXFunctionalCastExpr:
	case CXCursor_CXXStaticCastExpr:
	case CXCursor_CXXConstCastExpr:
		return eval_cast(r, f, c, k);
	case CXCursor_InitListExpr:
		ch = cpp_kids(r, c, &nk);
		v = cpp_list_of(r, nk);
		for (size_t i = 0; i < nk; i++)
			v.items[i] = cpp_eval(r, f, ch[i]);
		return v;
	case CXCursor_DeclRefExpr:
		return eval_name(r, f, c);
	case CXCursor_MemberRefExpr:
		return eval_member(r, f, c);
	case CXCursor_ArraySubscriptExpr:
		return eval_subscript(r, f, c);
	case CXCursor_LambdaExpr:
		memset(&v, 0, sizeof(v));
		v.kind = CV_CLOSURE;
		v.cur = c;
		v.env = f;
		return v;
	case CXCursor_CallExpr:
		return cpp_call(r, f, c, 0);
	case CXCursor_CXXNullPtrLiteralExpr:
		memset(&v, 0, sizeof(v));
		v.kind = CV_ABSENT;
		return v;
	default:
		return clang_eval(r, c);
	}
}

#endif
