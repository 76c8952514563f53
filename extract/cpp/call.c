/* call.c: a call in a test: a method of a tester or of a list, a helper function or function
 * template of the file (run with its parameters bound), a lambda, a constructor or a converter. */
#include <stdint.h>
#include <string.h>

#include "cpp-int.h"

#ifdef HAVE_LIBCLANG

static const char *const converters[] = {
	"ToFloat16", "FloatsToMLFloat16s", "MakeMLFloat16", "FloatsToBFloat16s", "MakeBFloat16", "ToBFloat16",
	"AsSpan", "make_span", "MLFloat16", "BFloat16", "basic_string", "initializer_list", "string", "move",
	"Float8E4M3FN", "Float8E5M2", "Float8E4M3FNUZ", "Float8E5M2FNUZ", "c_str", "narrow", "narrow_cast",
};

static int is_converter(const char *name)
{
	for (size_t i = 0; i < sizeof(converters) / sizeof(converters[0]); i++)
		if (!strcmp(name, converters[i]))
			return 1;
	return 0;
}

/* A template type parameter the call does not write (RunTypedTest(TensorProto::INT8, int8_t(8))):
 * deduced from the argument of a parameter declared as T, const T &, or a vector or initializer
 * list of T. */
static void deduce(struct run *r, struct frame *g, CXCursor *k, size_t parm, CXCursor arg)
{
	size_t nt, n;
	struct tok *t = cpp_toks(r, k[parm], &nt);
	const char *pname = spelling(r, k[parm]), *at;

	/* the parameter's declared type: its tokens before its name, without const and & */
	for (n = 0; n < nt && strcmp(t[n].s, pname); n++)
		;
	for (size_t j = 0; j < parm; j++) {
		const char *tp;
		size_t m = 0, first = SIZE_MAX, cnt = 0;
		char *a;

		if (kind(r, k[j]) != CXCursor_TemplateTypeParameter)
			continue;
		tp = spelling(r, k[j]);
		if (cpp_type_param(g, tp))
			continue;
		for (m = 0; m < n; m++)
			if (!strcmp(t[m].s, "const") || !strcmp(t[m].s, "&") || !strcmp(t[m].s, "&&"))
				continue;
			else if (cnt++, !strcmp(t[m].s, tp) && first == SIZE_MAX)
				first = m;
		if (first == SIZE_MAX)
			continue;
		at = type_of(r, cpp_strip(r, arg));
		if (!strncmp(at, "const ", 6))
			at += 6;
		if (cnt > 1) {
			/* vector<T>, initializer_list<T>: the argument's element type */
			const char *lt = strchr(at, '<');

			if (!lt || !(strstr(at, "vector<") || strstr(at, "initializer_list<")))
				continue;
			a = cpp_arena_strndup(&r->arena, lt + 1, strcspn(lt + 1, ",>"));
		} else {
			a = cpp_arena_strndup(&r->arena, at, strcspn(at, "&"));
			for (size_t e = strlen(a); e && a[e - 1] == ' ';)
				a[--e] = '\0';
		}
		if (!strncmp(a, "std::", 5))
			a += 5;
		if (*a && !strchr(a, '<') && !strstr(a, "dependent")) {
			struct binding *b = cpp_arena_alloc(&r->arena, sizeof(*b));

			memset(b, 0, sizeof(*b));
			b->name = tp;
			b->v.kind = CV_STR;
			b->v.s = a;
			b->next = g->types;
			g->types = b;
		}
	}
}

/* The value a parameter (parm) takes in a call: the call's argument pi, evaluated in the caller's
 * frame f, else the parameter's default, evaluated in the callee's frame g. */
struct cval cpp_argument(struct run *r, struct frame *f, struct frame *g, CXCursor parm, CXCursor *args, size_t nargs,
			 size_t pi)
{
	size_t nd, last = SIZE_MAX;
	CXCursor *d;

	if (pi < nargs)
		return cpp_eval(r, f, args[pi]);
	d = cpp_kids(r, parm, &nd);
	for (size_t j = 0; j < nd; j++)
		if (r->api->isExpression(kind(r, d[j])))
			last = j;
	return last == SIZE_MAX ? unknown("a missing argument") : cpp_eval(r, g, d[last]);
}

/* Run a function (or lambda) body with its parameters bound to the call's arguments. */
static struct cval invoke(struct run *r, struct frame *f, CXCursor fn, CXCursor *args, size_t nargs,
			  const struct callee *ce, struct frame *up)
{
	struct frame g;
	size_t nk, pi = 0, ti = 0;
	CXCursor *k = cpp_kids(r, fn, &nk), body;
	int has_body = 0;

	if (f->depth >= MAX_DEPTH)
		return unknown("helpers nested too deep");
	memset(&g, 0, sizeof(g));
	g.depth = f->depth + 1;
	g.up = up;
	g.ret = unknown("a function that returns nothing the harvester can follow");
	memset(&body, 0, sizeof(body));
	for (size_t i = 0; i < nk; i++) {
		enum CXCursorKind kk = kind(r, k[i]);

		if (kk == CXCursor_TemplateTypeParameter) {
			/* its argument: the call's explicit template argument, one token list per comma */
			struct cval v;
			size_t start = 0, idx = 0, j;

			memset(&v, 0, sizeof(v));
			v.kind = CV_STR;
			v.s = NULL;
			for (j = 0; ce && j <= ce->ntargs; j++)
				if (j == ce->ntargs || !strcmp(ce->targs[j].s, ",")) {
					if (idx == ti) {
						v.s = cpp_type_text(r, f, ce->targs + start, j - start);
						break;
					}
					idx++;
					start = j + 1;
				}
			if (v.s && *v.s) {
				struct binding *b = cpp_arena_alloc(&r->arena, sizeof(*b));

				b->name = spelling(r, k[i]);
				b->v = v;
				b->next = g.types;
				g.types = b;
			}
			ti++;
		} else if (kk == CXCursor_ParmDecl) {
			if (pi < nargs)
				deduce(r, &g, k, i, args[pi]);
			cpp_bind(r, &g, spelling(r, k[i]), cpp_argument(r, f, &g, k[i], args, nargs, pi));
			pi++;
		} else if (kk == CXCursor_CompoundStmt) {
			body = k[i];
			has_body = 1;
		}
	}
	if (!has_body)
		return unknown("a function without a body in the file");
	cpp_exec(r, &g, body);
	return g.ret;
}

struct cval *cpp_lvalue(struct run *r, struct frame *f, CXCursor c)
{
	size_t nk;

	c = cpp_strip(r, c);
	if (kind(r, c) == CXCursor_CallExpr &&
	    (!strcmp(spelling(r, c), "operator->") || !strcmp(spelling(r, c), "operator*"))) {
		/* tester->AddInput(...) through a std::unique_ptr: the pointer's variable */
		CXCursor *k = cpp_kids(r, c, &nk);

		for (size_t i = nk; i-- > 0;)
			if (r->api->isExpression(kind(r, k[i])) && cpp_ntoks(r, k[i]) &&
			    strcmp(spelling(r, k[i]), spelling(r, c)))
				return cpp_lvalue(r, f, k[i]);
		return NULL;
	}
	if (kind(r, c) == CXCursor_DeclRefExpr)
		return cpp_lookup(f, spelling(r, c));
	/* a member of the TEST_F's fixture (this->test_), bound by fixture_bind */
	if (kind(r, c) == CXCursor_MemberRefExpr && (cpp_kids(r, c, &nk), !nk))
		return cpp_lookup(f, spelling(r, c));
	return NULL;
}

/* The variable an element write or an iterator reaches (x[i] = v, x.begin(), x.data(), &x[0]): the
 * first name among c's tokens that is bound to a list, or NULL. */
struct cval *cpp_written_list(struct run *r, struct frame *f, CXCursor c)
{
	size_t n;
	struct tok *t = cpp_toks(r, c, &n);

	for (size_t i = 0; i < n; i++) {
		struct cval *v;

		if (t[i].kind != CXToken_Identifier)
			continue;
		v = cpp_lookup(f, t[i].s);
		if (v && (v->kind == CV_LIST || v->kind == CV_STR))
			return v;
		if (v)
			return NULL;
	}
	return NULL;
}

/* Whether an argument hands a container to the callee to write: x.begin(), x.data(), &x[0]. */
static int hands_out(struct run *r, CXCursor arg)
{
	size_t n;
	struct tok *t = cpp_toks(r, arg, &n);

	for (size_t i = 0; i + 1 < n; i++)
		if ((!strcmp(t[i].s, ".") || !strcmp(t[i].s, "->")) &&
		    (!strcmp(t[i + 1].s, "begin") || !strcmp(t[i + 1].s, "data") || !strcmp(t[i + 1].s, "rbegin") ||
		     !strcmp(t[i + 1].s, "end")))
			return 1;
	return n > 1 && !strcmp(t[0].s, "&");
}

/* An overloaded operator of a library type (op, after "operator"): its operands are the first and
 * last arguments. A lambda held in a variable is called through operator(). */
static struct cval call_operator(struct run *r, struct frame *f, CXCursor c, const char *op, CXCursor *k, size_t nk,
				 CXCursor *args, size_t nargs, int as_stmt)
{
	struct cval a, b;

	if (!strcmp(op, "()") && nk) {
		/* a lambda held in a variable, called: run_test(false); the variable is the callee */
		struct cval *cl = cpp_lvalue(r, f, k[0]);

		if (cl && cl->kind == CV_CLOSURE)
			return invoke(r, f, cl->cur, args, nargs, NULL, cl->env);
	}
	if (nargs < 2)
		return unknown("a value computed at run time");
	if (!strcmp(op, "=") && as_stmt) {
		struct cval *lv = cpp_lvalue(r, f, args[0]);

		if (lv && cpp_is_make_tester(r, args[nargs - 1])) {
			memset(lv, 0, sizeof(*lv));
			lv->kind = CV_TESTER;
			lv->t = cpp_tester_new(r, f, cpp_strip(r, args[nargs - 1]), cpp_line_of(r, c));
		} else if (lv) {
			*lv = r->loop ? unknown("a value computed in a loop") : cpp_eval(r, f, args[nargs - 1]);
		} else if ((lv = cpp_written_list(r, f, args[0]))) {
			/* x[i] = v: the vector is no longer what its declaration wrote */
			*lv = unknown(r->loop ? "a vector filled in a loop" :
				      "a vector changed after its declaration");
		}
		return unknown("an assignment");
	}
	a = cpp_eval(r, f, args[0]);
	b = cpp_eval(r, f, args[nargs - 1]);
	if (!strcmp(op, "[]")) {
		if (a.kind == CV_LIST && b.kind == CV_NUM && !b.is_float && b.i >= 0 && (size_t)b.i < a.n)
			return a.items[b.i];
		return a.kind == CV_UNKNOWN ? a : b.kind == CV_UNKNOWN ? b :
		       unknown("a value computed at run time");
	}
	if ((!strcmp(op, "==") || !strcmp(op, "!=")) && a.kind == CV_STR && b.kind == CV_STR)
		return boolean(!strcmp(a.s, b.s) == !strcmp(op, "=="));
	if (as_stmt) {
		struct cval *lv = cpp_lvalue(r, f, args[0]);

		if (!lv && strlen(op) >= 2 && op[strlen(op) - 1] == '=' && strcmp(op, "==") && strcmp(op, "!="))
			lv = cpp_written_list(r, f, args[0]);       /* x[i] += v */
		if (lv)
			*lv = unknown("a value computed at run time");
	}
	return unknown("a value computed at run time");
}

/* The object a method is called on (x in x.size()): its variable, or a tester, list or string it
 * evaluates to; NULL otherwise. */
static struct cval *call_receiver(struct run *r, struct frame *f, CXCursor c, CXCursor *k, size_t nk)
{
	struct cval *obj = NULL;

	if (nk && kind(r, k[0]) == CXCursor_MemberRefExpr && cpp_has_callee(r, c, k, nk)) {
		size_t nb;
		CXCursor *b = cpp_kids(r, k[0], &nb);

		if (nb && (obj = cpp_lvalue(r, f, b[0])) == NULL) {
			struct cval bv = cpp_eval(r, f, b[0]);

			if (bv.kind == CV_TESTER) {
				obj = cpp_arena_alloc(&r->arena, sizeof(*obj));
				*obj = bv;
			} else if (bv.kind == CV_LIST || bv.kind == CV_STR) {
				obj = cpp_arena_alloc(&r->arena, sizeof(*obj));
				*obj = bv;
			}
		}
	}
	return obj;
}

/* A method of a list or a string (size, push_back, front...): 1 with its value in *v, or 0 when the
 * method is none the harvester follows. A method that changes it as a statement makes it unknown. */
static int list_method(struct run *r, struct frame *f, struct cval *obj, const struct callee *ce, CXCursor *args,
		       size_t nargs, int as_stmt, struct cval *v)
{
	if (!strcmp(ce->name, "size")) {
		*v = obj->kind == CV_LIST ? num_int((long long)obj->n) : obj->kind == CV_STR ?
		     num_int((long long)strlen(obj->s)) : *obj;
		return 1;
	}
	if (!strcmp(ce->name, "empty")) {
		*v = obj->kind == CV_LIST ? boolean(!obj->n) : obj->kind == CV_STR ? boolean(!*obj->s) : *obj;
		return 1;
	}
	if (!strcmp(ce->name, "c_str") || !strcmp(ce->name, "data")) {
		*v = *obj;
		return 1;
	}
	if ((!strcmp(ce->name, "push_back") || !strcmp(ce->name, "emplace_back")) && nargs == 1) {
		struct cval x = cpp_eval(r, f, args[0]), l;

		if (obj->kind != CV_LIST) {
			*v = *obj;
			return 1;
		}
		if (r->loop) {
			*obj = unknown("a vector filled in a loop");
			*v = *obj;
			return 1;
		}
		l = cpp_list_of(r, obj->n + 1);
		if (obj->n)
			memcpy(l.items, obj->items, obj->n * sizeof(*l.items));
		l.items[obj->n] = x;
		l.ctype = obj->ctype;
		*obj = l;
		*v = *obj;
		return 1;
	}
	if (!strcmp(ce->name, "front") && obj->kind == CV_LIST && obj->n) {
		*v = obj->items[0];
		return 1;
	}
	if (!strcmp(ce->name, "back") && obj->kind == CV_LIST && obj->n) {
		*v = obj->items[obj->n - 1];
		return 1;
	}
	if (as_stmt) {
		*obj = unknown("a vector changed after its declaration");
		*v = *obj;
		return 1;
	}
	return 0;
}

/* utils::ToTensorProtoElementType<T>(): onnx's number for the element type */
static struct cval element_type_number(struct run *r, struct frame *f, const struct callee *ce)
{
	static const char *const onnx_types[] = {
		"", "float32", "uint8", "int8", "uint16", "int16", "int32", "int64", "string", "bool",
		"float16", "float64", "uint32", "uint64", "", "", "bfloat16", "float8e4m3fn",
		"float8e4m3fnuz", "float8e5m2", "float8e5m2fnuz",
	};
	const char *dt = cpp_dtype_of(cpp_type_text(r, f, ce->targs, ce->ntargs));

	for (size_t i = 1; dt && i < sizeof(onnx_types) / sizeof(onnx_types[0]); i++)
		if (!strcmp(dt, onnx_types[i]))
			return num_int((long long)i);
	return unknown("an element type the harvester cannot tell");
}

/* A function or function template ref refers to: its body run when the file defines it (an
 * instantiation's template, whose body is the one written). */
static struct cval call_function(struct run *r, struct frame *f, CXCursor ref, const struct callee *ce,
				 CXCursor *args, size_t nargs)
{
	CXCursor def = r->api->getSpecializedCursorTemplate(ref);
	CXSourceLocation loc;

	if (r->api->Cursor_isNull(def) || kind(r, def) >= CXCursor_FirstInvalid)
		def = ref;
	def = r->api->getCursorDefinition(def);
	if (r->api->Cursor_isNull(def) || kind(r, def) >= CXCursor_FirstInvalid)
		def = ref;
	loc = r->api->getCursorLocation(def);
	if (!r->api->Location_isInSystemHeader(loc) && r->api->isCursorDefinition(def))
		return invoke(r, f, def, args, nargs, ce, NULL);
	return unknown("a value computed by a call");
}

/* A call of a function template in a dependent context: finding it by name among the children of
 * the translation unit is too costly; the overloaded reference names it. 1 with its definition in
 * *def when the file defines it. */
static int overloaded_definition(struct run *r, CXCursor c, CXCursor *def)
{
	size_t nc;
	CXCursor *cc = cpp_kids(r, c, &nc);

	for (size_t i = 0; i < nc; i++) {
		CXCursor rr = r->api->getCursorReferenced(cc[i]);

		if (kind(r, cc[i]) == CXCursor_DeclRefExpr &&
		    (kind(r, rr) == CXCursor_FunctionTemplate || kind(r, rr) == CXCursor_FunctionDecl) &&
		    r->api->isCursorDefinition(rr) &&
		    !r->api->Location_isInSystemHeader(r->api->getCursorLocation(rr))) {
			*def = rr;
			return 1;
		}
	}
	return 0;
}

/* std::fill(x.begin(), ...), std::iota, ConvertFloatToMLFloat16(x.data(), y.data(), n): what the
 * callee writes through an iterator or pointer is no longer what the test wrote. */
static void forget_handed_out(struct run *r, struct frame *f, CXCursor *args, size_t nargs)
{
	for (size_t i = 0; i < nargs; i++) {
		struct cval *lv;

		if (hands_out(r, args[i]) && (lv = cpp_written_list(r, f, args[i])))
			*lv = unknown(r->loop ? "a vector filled in a loop" : "a vector changed after its declaration");
	}
}

/* Constructors and converters: the value of their one argument, a fill constructor, an empty
 * container; any other call is a value computed by a call. */
static struct cval construct(struct run *r, struct frame *f, CXCursor c, const struct callee *ce,
			     enum CXCursorKind rk, CXCursor *args, size_t nargs)
{
	int vector = !strcmp(ce->name, "vector") || !strcmp(spelling(r, c), "vector");

	if (nargs == 1 && (is_converter(ce->name) || rk == CXCursor_Constructor || vector))
		return cpp_eval(r, f, args[0]);
	if (nargs == 0 && vector)
		return cpp_list_of(r, 0);
	if (nargs == 2 && vector) {
		struct cval cnt = cpp_eval(r, f, args[0]), v = cpp_eval(r, f, args[1]), l;

		if (cnt.kind == CV_NUM && !cnt.is_float && cnt.i >= 0 && cnt.i <= MAX_FILL && v.kind != CV_LIST &&
		    v.kind != CV_UNKNOWN) {
			l = cpp_list_of(r, (size_t)cnt.i);
			for (long long i = 0; i < cnt.i; i++)
				l.items[i] = v;
			return l;
		}
		return cnt.kind == CV_UNKNOWN ? cnt : unknown("a value computed at run time");
	}
	if (rk == CXCursor_Constructor && nargs == 0) {
		/* an empty container; any other object (a TensorProto filled by its methods) is not a list */
		const char *ty = type_of(r, c);

		if (strstr(ty, "vector") || strstr(ty, "initializer_list") || strstr(ty, "array") ||
		    strstr(ty, "basic_string"))
			return cpp_list_of(r, 0);
		return unknown("an object the harvester cannot follow (a TensorProto, a map)");
	}
	return unknown("a value computed by a call");
}

/* A call: a member function of a tester or of a list, a helper of the file, a lambda, a
 * constructor or converter. as_stmt: the value is not used. */
struct cval cpp_call(struct run *r, struct frame *f, CXCursor c, int as_stmt)
{
	struct callee ce;
	size_t nargs, nk;
	CXCursor *args = cpp_call_args(r, c, &nargs), *k = cpp_kids(r, c, &nk);
	CXCursor ref = r->api->getCursorReferenced(c), def;
	enum CXCursorKind rk = kind(r, ref);
	struct cval *obj, *cl, v;

	cpp_callee_of(r, c, &ce);
	if (!strncmp(spelling(r, c), "operator", 8))
		return call_operator(r, f, c, spelling(r, c) + 8, k, nk, args, nargs, as_stmt);
	obj = call_receiver(r, f, c, k, nk);
	if (obj && obj->kind == CV_TESTER) {
		cpp_tester_method(r, f, obj->t, c, &ce);
		return *obj;
	}
	if (obj && (obj->kind == CV_LIST || obj->kind == CV_STR || obj->kind == CV_UNKNOWN) &&
	    list_method(r, f, obj, &ce, args, nargs, as_stmt, &v))
		return v;
	if (!strcmp(ce.name, "ToTensorProtoElementType") && ce.ntargs)
		return element_type_number(r, f, &ce);
	if (strstr(ce.name, "andom") || strstr(ce.name, "rand"))
		return unknown("random data");
	if (!strcmp(ce.name, "infinity") || !strcmp(ce.name, "quiet_NaN") || !strcmp(ce.name, "max") ||
	    !strcmp(ce.name, "min") || !strcmp(ce.name, "lowest") || !strcmp(ce.name, "epsilon"))
		return cpp_numeric_limit(r, f, c);
	/* a lambda held in a variable */
	if ((cl = cpp_lookup(f, ce.name)) && cl->kind == CV_CLOSURE)
		return invoke(r, f, cl->cur, args, nargs, NULL, cl->env);
	if ((rk == CXCursor_FunctionDecl || rk == CXCursor_FunctionTemplate) && !is_converter(ce.name))
		return call_function(r, f, ref, &ce, args, nargs);
	if ((kind(r, ref) == CXCursor_OverloadedDeclRef || (r->api->Cursor_isNull(ref) && *ce.name && !obj)) &&
	    overloaded_definition(r, c, &def))
		return invoke(r, f, def, args, nargs, &ce, NULL);
	if (!obj && !is_converter(ce.name))
		forget_handed_out(r, f, args, nargs);
	return construct(r, f, c, &ce, rk, args, nargs);
}

#endif
