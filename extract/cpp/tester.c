/* tester.c: ONNX Runtime's testers as the interpreter follows them: made (OpTester, a
 * std::unique_ptr, a subclass of the file), given inputs, outputs and attributes, and run; a Run is
 * handed to r->on_run (onnx.c). */
#include <string.h>

#include "cpp-int.h"

#ifdef HAVE_LIBCLANG

static void tester_run(struct run *r, struct frame *f, struct tester *t, int failure, const char *msg)
{
	(void)f;
	t->runs++;
	if (r->failed)
		return;
	if (r->on_run(r, t, failure, msg, r->e) < 0)
		r->failed = 1;
}

/* Runs that libclang dropped with the statement around them (an argument naming something of a
 * header it did not have): found in the tokens between the statements it kept. */
void cpp_gap_runs(struct run *r, struct frame *f, const struct tok *t, size_t from, size_t to)
{
	for (size_t i = from; i + 3 < to; i++) {
		struct cval *v;
		int failure = 0;
		const char *msg = "";
		size_t j, depth = 0;

		if (t[i].kind != CXToken_Identifier || (strcmp(t[i + 1].s, ".") && strcmp(t[i + 1].s, "->")) ||
		    (strcmp(t[i + 3].s, "(") && strcmp(t[i + 3].s, "<")) || !(v = cpp_lookup(f, t[i].s)) ||
		    v->kind != CV_TESTER)
			continue;
		if (!strncmp(t[i + 2].s, "Add", 3)) {
			/* an input, output or attribute libclang dropped: the tester would miss it */
			if (!v->t->taint)
				v->t->taint =
					"a call libclang could not resolve (a type of a header ferry does not have)";
			continue;
		}
		if ((strcmp(t[i + 2].s, "Run") && strcmp(t[i + 2].s, "RunWithConfig")) || strcmp(t[i + 3].s, "("))
			continue;
		for (j = i + 3; j < to; j++) {
			depth += !strcmp(t[j].s, "(") - !strcmp(t[j].s, ")");
			if (!strcmp(t[j].s, "kExpectFailure"))
				failure = 1;
			else if (failure && !*msg && t[j].kind == CXToken_Literal && t[j].s[0] == '"')
				msg = cpp_unescape(r, t[j].s);
			if (!depth)
				break;
		}
		count(r, "Runs read from tokens (a call libclang could not resolve)", 1);
		tester_run(r, f, v->t, failure, msg);
		i = j;
	}
}

struct tester *cpp_tester_new(struct run *r, struct frame *f, CXCursor ctor, unsigned line)
{
	struct tester *t = cpp_arena_alloc(&r->arena, sizeof(*t));
	size_t nargs;
	CXCursor *a = cpp_call_args(r, ctor, &nargs);

	t->line = line;
	t->op = nargs > 0 ? cpp_eval(r, f, a[0]) : unknown("no operator name");
	t->opset = nargs > 1 ? cpp_eval(r, f, a[1]) : num_int(7);       /* OpTester's default */
	t->domain = nargs > 2 ? cpp_eval(r, f, a[2]) : (struct cval){ .kind = CV_STR, .s = "" };
	if (r->loop)
		t->taint = "a tester built in a loop";
	count(r, "testers reached from a TEST", 1);
	return t;
}

static void port_add(struct run *r, struct port **v, size_t *n, size_t *cap, const struct port *p)
{
	if (*n == *cap) {
		size_t ncap = *cap ? 2 * *cap : 4;
		struct port *nv = cpp_arena_alloc(&r->arena, ncap * sizeof(*nv));

		if (*n)
			memcpy(nv, *v, *n * sizeof(*nv));
		*v = nv;
		*cap = ncap;
	}
	(*v)[(*n)++] = *p;
}

int cpp_tester_method(struct run *r, struct frame *f, struct tester *t, CXCursor c, const struct callee *ce)
{
	size_t nargs;
	CXCursor *a = cpp_call_args(r, c, &nargs);
	const char *m = ce->name;
	const char *ctype = ce->ntargs ? cpp_type_text(r, f, ce->targs, ce->ntargs) : NULL;

	if (!strcmp(m, "AddInput") || !strcmp(m, "AddOutput")) {
		struct port p;

		memset(&p, 0, sizeof(p));
		p.line = cpp_line_of(r, c);
		if (nargs < 3) {
			t->taint = "an input or output given other than as name, dims and values";
			return 0;
		}
		p.dims = cpp_eval(r, f, a[1]);
		p.values = cpp_eval(r, f, a[2]);
		p.ctype = ctype ? ctype : p.values.ctype;
		if (!p.ctype) {
			/* no template argument written: the element type of the values' declared type */
			const char *vt = type_of(r, a[2]), *lt = strchr(vt, '<');

			p.ctype = lt ? cpp_arena_strndup(&r->arena, lt + 1, strcspn(lt + 1, ">")) : "";
		}
		if (r->loop && !t->taint)
			t->taint = "an input or output added in a loop";
		if (!strcmp(m, "AddInput"))
			port_add(r, &t->in, &t->nin, &t->incap, &p);
		else
			port_add(r, &t->out, &t->nout, &t->outcap, &p);
	} else if (!strcmp(m, "AddOptionalInputEdge") || !strcmp(m, "AddOptionalOutputEdge")) {
		struct port p;

		memset(&p, 0, sizeof(p));
		p.line = cpp_line_of(r, c);
		if (m[11] == 'I')
			port_add(r, &t->in, &t->nin, &t->incap, &p);
		else
			port_add(r, &t->out, &t->nout, &t->outcap, &p);
	} else if (!strcmp(m, "AddAttribute")) {
		if (nargs < 2)
			return 0;
		if (t->np == t->pcap) {
			size_t ncap = t->pcap ? 2 * t->pcap : 8;
			const char **nn = cpp_arena_alloc(&r->arena, ncap * sizeof(*nn));
			const char **nt = cpp_arena_alloc(&r->arena, ncap * sizeof(*nt));
			struct cval *nv = cpp_arena_alloc(&r->arena, ncap * sizeof(*nv));

			if (t->np) {
				memcpy(nn, t->pnames, t->np * sizeof(*nn));
				memcpy(nt, t->ptypes, t->np * sizeof(*nt));
				memcpy(nv, t->pvals, t->np * sizeof(*nv));
			}
			t->pnames = nn;
			t->ptypes = nt;
			t->pvals = nv;
			t->pcap = ncap;
		}
		{
			struct cval name = cpp_eval(r, f, a[0]);

			if (name.kind != CV_STR) {
				t->taint = "an attribute whose name is computed";
				return 0;
			}
			t->pnames[t->np] = name.s;
		}
		t->pvals[t->np] = cpp_eval(r, f, a[1]);
		t->ptypes[t->np] = ctype ? ctype : type_of(r, cpp_strip(r, a[1]));
		t->np++;
	} else if (!strcmp(m, "Run") || !strcmp(m, "RunWithConfig")) {
		int failure = 0;
		const char *msg = "";

		if (nargs >= 1) {
			struct cval er = cpp_eval(r, f, a[0]);
			size_t nt;
			struct tok *tk = cpp_toks(r, a[0], &nt);

			failure = er.kind == CV_SYM ? !strcmp(er.s, "kExpectFailure") :
				  nt && !strcmp(tk[nt - 1].s, "kExpectFailure");
			if (nargs >= 2) {
				struct cval mv = cpp_eval(r, f, a[1]);

				if (mv.kind == CV_STR)
					msg = mv.s;
			}
		}
		tester_run(r, f, t, failure, msg);
	} else if (!strcmp(m, "AddSeqInput") || !strcmp(m, "AddSeqOutput") || !strncmp(m, "AddSparse", 9) ||
		   !strcmp(m, "AddReferenceOutputs") || !strcmp(m, "AddCustomOpRegistry") ||
		   !strcmp(m, "AddMapInput")) {
		t->taint = !strcmp(m, "AddReferenceOutputs") ? "expected outputs read from a file" :
			   "a sequence, map or sparse tensor";
	}
	return 0;
}

static int derives_from_tester(struct run *r, CXCursor decl, int depth)
{
	size_t nk;
	CXCursor *k;

	if (depth > 8 || r->api->Cursor_isNull(decl) || kind(r, decl) >= CXCursor_FirstInvalid)
		return 0;
	decl = r->api->getCursorDefinition(decl);
	if (r->api->Cursor_isNull(decl) || kind(r, decl) >= CXCursor_FirstInvalid)
		return 0;
	k = cpp_kids(r, decl, &nk);
	for (size_t i = 0; i < nk; i++) {
		const char *bt;

		if (kind(r, k[i]) != CXCursor_CXXBaseSpecifier)
			continue;
		bt = type_of(r, k[i]);
		if (!strcmp(bt, "OpTester") || cpp_has_suffix(bt, "::OpTester") ||
		    derives_from_tester(r, r->api->getTypeDeclaration(r->api->getCursorType(k[i])), depth + 1))
			return 1;
	}
	return 0;
}

enum tkind cpp_tester_type(struct run *r, CXCursor var)
{
	const char *type = type_of(r, var), *lt;

	if (!strncmp(type, "const ", 6))
		type += 6;
	if (strchr(type, '*') || strchr(type, '&'))
		return TK_NONE;
	if (!strcmp(type, "OpTester") || cpp_has_suffix(type, "::OpTester"))
		return TK_TESTER;
	if ((lt = strstr(type, "unique_ptr<"))) {
		/* its first template argument (auto spells the deleter too) */
		size_t n = strcspn(lt + 11, ",>");

		if ((n == 8 && !strncmp(lt + 11, "OpTester", 8)) ||
		    (n > 10 && !strncmp(lt + 11 + n - 10, "::OpTester", 10)))
			return TK_UNIQUE;
	}
	if (derives_from_tester(r, r->api->getTypeDeclaration(r->api->getCursorType(var)), 0))
		return TK_SUBCLASS;
	return TK_NONE;
}

/* A tester of a class derived from OpTester: its operator, opset and domain are the arguments its
 * constructor gives OpTester's, evaluated with the constructor's parameters bound to the call's
 * arguments. A subclass that adds nodes of its own (a subgraph, a second operator) tests more than
 * one operator: kept out. */
struct tester *cpp_subclass_new(struct run *r, struct frame *f, CXCursor var, CXCursor init, unsigned line)
{
	CXCursor cls = r->api->getCursorDefinition(r->api->getTypeDeclaration(r->api->getCursorType(var)));
	CXCursor ctor = r->api->getCursorReferenced(init), def;
	size_t nk, nargs = 0;
	CXCursor *k, *args = NULL;
	struct frame g;
	struct tester *t = NULL;

	memset(&g, 0, sizeof(g));
	g.depth = f->depth + 1;
	if (kind(r, init) == CXCursor_CallExpr)
		args = cpp_call_args(r, init, &nargs);
	def = r->api->Cursor_isNull(ctor) ? ctor : r->api->getCursorDefinition(ctor);
	if (r->api->Cursor_isNull(def) || kind(r, def) != CXCursor_Constructor) {
		/* no call written (a default constructor): the class's constructor without parameters */
		k = cpp_kids(r, cls, &nk);
		for (size_t i = 0; i < nk; i++)
			if (kind(r, k[i]) == CXCursor_Constructor && r->api->isCursorDefinition(k[i])) {
				size_t np = 0, nc;
				CXCursor *c = cpp_kids(r, k[i], &nc);

				for (size_t j = 0; j < nc; j++)
					np += kind(r, c[j]) == CXCursor_ParmDecl;
				if (np >= nargs) {
					def = k[i];
					break;
				}
			}
	}
	if (!r->api->Cursor_isNull(def) && kind(r, def) == CXCursor_Constructor) {
		size_t pi = 0;

		k = cpp_kids(r, def, &nk);
		for (size_t i = 0; i < nk; i++) {
			if (kind(r, k[i]) == CXCursor_ParmDecl) {
				cpp_bind(r, &g, spelling(r, k[i]), cpp_argument(r, f, &g, k[i], args, nargs, pi));
				pi++;
			} else if (kind(r, k[i]) == CXCursor_TypeRef && i + 1 < nk &&
				   strstr(spelling(r, k[i]), "OpTester") && r->api->isExpression(kind(r, k[i + 1]))) {
				t = cpp_tester_new(r, &g, cpp_strip(r, k[i + 1]), line);
				break;
			}
		}
	}
	if (!t) {
		t = cpp_tester_new(r, f, var, line);
		t->op = unknown("a tester subclass whose operator the harvester cannot find");
	}
	k = cpp_kids(r, cls, &nk);
	for (size_t i = 0; i < nk; i++) {
		size_t nt;
		struct tok *tk;

		if (kind(r, k[i]) != CXCursor_CXXMethod || strcmp(spelling(r, k[i]), "AddNodes"))
			continue;
		tk = cpp_toks(r, k[i], &nt);
		for (size_t j = 0; j + 1 < nt; j++)
			if ((!strcmp(tk[j].s, "AddNode") || !strcmp(tk[j].s, "AddInitializedTensor")) &&
			    !strcmp(tk[j + 1].s, "(") && !t->taint)
				t->taint = "a tester subclass that adds nodes of its own (AddNodes)";
	}
	return t;
}

/* std::make_unique<OpTester>(...): the call that makes a tester a unique_ptr holds. */
int cpp_is_make_tester(struct run *r, CXCursor c)
{
	size_t n;
	struct tok *t = cpp_toks(r, c, &n);

	for (size_t i = 0; i + 2 < n && strcmp(t[i].s, "("); i++)
		if (!strcmp(t[i].s, "make_unique") && !strcmp(t[i + 1].s, "<") && !strcmp(t[i + 2].s, "OpTester"))
			return 1;
	return 0;
}

#endif
