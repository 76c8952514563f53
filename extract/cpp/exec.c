/* exec.c: the statements of a test, run over libclang's syntax tree: blocks, declarations,
 * conditions, loops (range-for over literal data unrolled, the others read once), assignments and
 * calls. */
#include <stdint.h>
#include <string.h>

#include "cpp-int.h"

#ifdef HAVE_LIBCLANG

/* A declaration of a tester (OpTester, a std::unique_ptr of one, a subclass): 1 with the tester bound
 * to its name; 0 when var holds something else. k[last] is var's initializer (last SIZE_MAX: none). */
static int decl_tester(struct run *r, struct frame *f, CXCursor var, const char *name, CXCursor *k, size_t last)
{
	struct cval v;
	enum tkind tt = cpp_tester_type(r, var);

	if (tt == TK_NONE && last != SIZE_MAX && cpp_is_make_tester(r, k[last]))
		tt = TK_UNIQUE;         /* auto, which libclang leaves undeduced when make_unique fails it */
	switch (tt) {
	case TK_TESTER:
		memset(&v, 0, sizeof(v));
		v.kind = CV_TESTER;
		v.t = cpp_tester_new(r, f, last == SIZE_MAX ? var : cpp_strip(r, k[last]), cpp_line_of(r, var));
		break;
	case TK_SUBCLASS:
		memset(&v, 0, sizeof(v));
		v.kind = CV_TESTER;
		v.t = cpp_subclass_new(r, f, var, last == SIZE_MAX ? var : cpp_strip(r, k[last]), cpp_line_of(r, var));
		break;
	case TK_UNIQUE:
		if (last != SIZE_MAX && cpp_is_make_tester(r, k[last])) {
			memset(&v, 0, sizeof(v));
			v.kind = CV_TESTER;
			v.t = cpp_tester_new(r, f, cpp_strip(r, k[last]), cpp_line_of(r, var));
		} else {
			/* made later: an assignment of std::make_unique<OpTester> binds it */
			v = unknown("a tester the harvester cannot follow");
		}
		break;
	default:
		return 0;
	}
	cpp_bind(r, f, name, v);
	return 1;
}

/* An object of a helper class of the file (QLinearConvOpTester) whose methods make and run a tester
 * from the object's state: not followed, but counted, once per object. */
static void count_helper_class(struct run *r, CXCursor var)
{
	CXCursor cls = r->api->getTypeDeclaration(r->api->getCursorType(var));
	CXCursor pat = r->api->getSpecializedCursorTemplate(cls);
	size_t nt;
	struct tok *tk;

	if (!r->api->Cursor_isNull(pat) && kind(r, pat) < CXCursor_FirstInvalid)
		cls = pat;
	if (r->api->Cursor_isNull(cls) || kind(r, cls) >= CXCursor_FirstInvalid ||
	    r->api->Location_isInSystemHeader(r->api->getCursorLocation(cls)))
		return;
	tk = cpp_toks(r, cls, &nt);
	for (size_t i = 0; i + 2 < nt; i++)
		if (!strcmp(tk[i].s, "OpTester") && tk[i + 1].kind == CXToken_Identifier && !strcmp(tk[i + 2].s, "(")) {
			count(r, "Runs reached", 1);
			not_recorded(r, "a tester made by a method of a helper class");
			break;
		}
}

/* Whether an initializer was written that libclang dropped (a call of a header it does not have):
 * that leaves an implicit default construction, not an empty vector. The tokens after the name say
 * whether one was written, read from the block's when the declaration ends at its name. */
static int initializer_dropped(struct run *r, CXCursor var, const char *name, CXCursor *k, size_t last)
{
	size_t nt, at = 0, ni;
	struct tok *tk = cpp_toks(r, var, &nt), *it;

	while (at < nt && strcmp(tk[at].s, name))
		at++;
	if (at + 1 >= nt && at < nt)
		for (size_t b = 0; b + 1 < r->nblk; b++)
			if (r->blk[b].offset == tk[at].offset) {
				tk = r->blk + b;
				nt = r->nblk - b;
				at = 0;
				break;
			}
	return at + 1 < nt && (!strcmp(tk[at + 1].s, "=") || !strcmp(tk[at + 1].s, "(") ||
			       (!strcmp(tk[at + 1].s, "{") && (at + 2 >= nt || strcmp(tk[at + 2].s, "}")))) &&
	       (last == SIZE_MAX || ((it = cpp_toks(r, k[last], &ni)), ni == 1 && it[0].offset == tk[at].offset));
}

void cpp_exec_decl(struct run *r, struct frame *f, CXCursor var)
{
	const char *name = spelling(r, var), *type = type_of(r, var);
	size_t nk, last = SIZE_MAX;
	CXCursor *k = cpp_kids(r, var, &nk);
	struct cval v;

	for (size_t i = 0; i < nk; i++)
		if (r->api->isExpression(kind(r, k[i])))
			last = i;
	if (decl_tester(r, f, var, name, k, last))
		return;
	count_helper_class(r, var);
	if (initializer_dropped(r, var, name, k, last)) {
		cpp_bind(r, f, name, unknown("a value computed by a call the harvester cannot resolve"));
		return;
	}
	if (last == SIZE_MAX) {
		v = strstr(type, "vector") ? cpp_list_of(r, 0) : unknown("a variable declared without a value");
	} else {
		v = cpp_eval(r, f, k[last]);
		if (r->loop && v.kind != CV_CLOSURE)
			v = unknown("a value computed in a loop");
	}
	if (v.kind == CV_LIST || v.kind == CV_NUM) {
		/* the element type it was declared with, for a tester that is not told */
		const char *lt = strstr(type, "vector<");

		if (v.kind == CV_NUM && !strchr(type, '<'))
			v = cpp_cast_to(v, type);
		if (lt && !strstr(lt + 7, "vector<"))
			v.ctype = cpp_arena_strndup(&r->arena, lt + 7, strcspn(lt + 7, ">"));
	}
	cpp_bind(r, f, name, v);
}

static void exec_loop(struct run *r, struct frame *f, CXCursor c)
{
	size_t nk;
	CXCursor *k = cpp_kids(r, c, &nk);

	count(r, "loops the harvester does not unroll", 1);
	r->loop++;
	for (size_t i = 0; i < nk; i++)
		if (kind(r, k[i]) == CXCursor_DeclStmt) {
			size_t nv;
			CXCursor *v = cpp_kids(r, k[i], &nv);

			for (size_t j = 0; j < nv; j++)
				cpp_bind(r, f, spelling(r, v[j]), unknown("a loop variable"));
		} else if (kind(r, k[i]) == CXCursor_VarDecl) {
			cpp_bind(r, f, spelling(r, k[i]), unknown("a loop variable"));
		} else if (kind(r, k[i]) == CXCursor_CompoundStmt || i == nk - 1) {
			cpp_exec(r, f, k[i]);
		}
	r->loop--;
}

static void exec_range_for(struct run *r, struct frame *f, CXCursor c)
{
	size_t nk;
	CXCursor *k = cpp_kids(r, c, &nk);
	struct cval range;

	if (nk < 3 || kind(r, k[0]) != CXCursor_VarDecl) {
		exec_loop(r, f, c);
		return;
	}
	range = cpp_eval(r, f, k[1]);
	if (range.kind != CV_LIST || range.n > MAX_ITER || r->loop) {
		r->loop++;
		cpp_bind(r, f, spelling(r, k[0]), range.kind == CV_UNKNOWN ? range : unknown("a loop variable"));
		count(r, "loops the harvester does not unroll", 1);
		cpp_exec(r, f, k[nk - 1]);
		r->loop--;
		return;
	}
	for (size_t i = 0; i < range.n && !f->returned && !r->failed; i++) {
		cpp_bind(r, f, spelling(r, k[0]), range.items[i]);
		cpp_exec(r, f, k[nk - 1]);
	}
}

static void exec_assign(struct run *r, struct frame *f, CXCursor c)
{
	size_t nk, nt;
	CXCursor *k = cpp_kids(r, c, &nk);
	struct tok *t = cpp_toks(r, c, &nt);
	struct cval *lv;
	const char *op;

	if (nk != 2)
		return;
	lv = cpp_lvalue(r, f, k[0]);
	if (!lv && cpp_ntoks(r, k[0]) < nt && (kind(r, cpp_strip(r, k[0])) == CXCursor_ArraySubscriptExpr ||
						!strcmp(spelling(r, cpp_strip(r, k[0])), "operator[]")) &&
	    strchr(t[cpp_ntoks(r, k[0])].s, '=') && strcmp(t[cpp_ntoks(r, k[0])].s, "==") &&
	    strcmp(t[cpp_ntoks(r, k[0])].s, "!=")) {
		/* x[i] = v */
		if ((lv = cpp_written_list(r, f, k[0])))
			*lv = unknown(r->loop ? "a vector filled in a loop" : "a vector changed after its declaration");
		return;
	}
	if (!lv || cpp_ntoks(r, k[0]) >= nt)
		return;
	op = t[cpp_ntoks(r, k[0])].s;
	/* a comparison or other operator written as a statement changes nothing */
	if (!strcmp(op, "=") && !r->loop)
		*lv = cpp_eval(r, f, k[1]);
	else if (!strcmp(op, "=") || (strlen(op) >= 2 && op[strlen(op) - 1] == '=' && strcmp(op, "==") &&
				      strcmp(op, "!=") && strcmp(op, "<=") && strcmp(op, ">=")))
		*lv = unknown("a value computed at run time");
}

/* A block: its statements in order, and the Runs libclang dropped between them (cpp_gap_runs), read
 * from the block's tokens, which r->blk holds while it runs. */
static void exec_block(struct run *r, struct frame *f, CXCursor c)
{
	size_t nk, nt, ti = 0, onblk = r->nblk;
	struct tok *t = cpp_toks(r, c, &nt), *oblk = r->blk;
	CXCursor *ch;

	r->blk = t;
	r->nblk = nt;
	ch = cpp_kids(r, c, &nk);
	for (size_t i = 0; i < nk && !f->returned && !r->failed; i++) {
		CXSourceRange ext = r->api->getCursorExtent(ch[i]);
		unsigned start = cpp_offset_of(r, r->api->getRangeStart(ext), NULL);
		unsigned end = cpp_offset_of(r, r->api->getRangeEnd(ext), NULL);
		size_t from = ti;

		while (ti < nt && t[ti].offset < start)
			ti++;
		cpp_gap_runs(r, f, t, from, ti);
		cpp_exec(r, f, ch[i]);
		while (ti < nt && t[ti].offset < end)
			ti++;
	}
	if (!f->returned)
		cpp_gap_runs(r, f, t, ti, nt);
	r->blk = oblk;
	r->nblk = onblk;
}

/* if (cond) then else: the branch the condition takes. */
static void exec_if(struct run *r, struct frame *f, CXCursor c)
{
	size_t nk;
	CXCursor *ch = cpp_kids(r, c, &nk);
	struct cval cond;

	if (nk < 2)
		return;
	cond = cpp_eval(r, f, ch[0]);
	if (cond.kind == CV_ABSENT)
		cond = boolean(0);
	else if (cond.kind == CV_LIST || cond.kind == CV_TESTER)
		cond = boolean(1);      /* if (p_perm): a pointer to a known object */
	if (is_number(&cond)) {
		if (cond.d != 0)
			cpp_exec(r, f, ch[1]);
		else if (nk > 2)
			cpp_exec(r, f, ch[2]);
	} else if (nk > 2) {
		/* a condition on the machine (a provider, a GPU): the portable branch */
		cpp_exec(r, f, ch[2]);
	}
}

void cpp_exec(struct run *r, struct frame *f, CXCursor c)
{
	enum CXCursorKind k = kind(r, c);
	size_t nk;
	CXCursor *ch;

	if (f->returned || r->failed)
		return;
	switch (k) {
	case CXCursor_CompoundStmt:
		exec_block(r, f, c);
		return;
	case CXCursor_DeclStmt:
		ch = cpp_kids(r, c, &nk);
		for (size_t i = 0; i < nk; i++)
			if (kind(r, ch[i]) == CXCursor_VarDecl)
				cpp_exec_decl(r, f, ch[i]);
		return;
	case CXCursor_IfStmt:
		exec_if(r, f, c);
		return;
	case CXCursor_ForStmt:
	case CXCursor_WhileStmt:
	case CXCursor_DoStmt:
		exec_loop(r, f, c);
		return;
	case CXCursor_CXXForRangeStmt:
		exec_range_for(r, f, c);
		return;
	case CXCursor_ReturnStmt:
		ch = cpp_kids(r, c, &nk);
		f->ret = nk ? cpp_eval(r, f, ch[0]) : unknown("nothing returned");
		f->returned = 1;
		return;
	case CXCursor_BinaryOperator:
	case CXCursor_CompoundAssignOperator:
		exec_assign(r, f, c);
		return;
	case CXCursor_CallExpr:
		cpp_call(r, f, c, 1);
		return;
	case CXCursor_UnexposedExpr:
	case CXCursor_UnexposedStmt:
	case CXCursor_ParenExpr: {
		int calls = 0;

		ch = cpp_kids(r, c, &nk);
		for (size_t i = 0; i < nk; i++)
			calls |= kind(r, ch[i]) == CXCursor_CallExpr || kind(r, ch[i]) == CXCursor_UnexposedExpr ||
				 kind(r, ch[i]) == CXCursor_BinaryOperator;
		if (!calls && nk) {
			/* a call libclang could not resolve, kept as the pieces of an invalid expression */
			size_t nt;
			struct tok *t = cpp_toks(r, c, &nt);

			cpp_gap_runs(r, f, t, 0, nt);
			return;
		}
		for (size_t i = 0; i < nk; i++)
			cpp_exec(r, f, ch[i]);
		return;
	}
	default:
		return;
	}
}

#endif
