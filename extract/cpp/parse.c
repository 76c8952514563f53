/* parse.c: one file parsed with libclang and its tests interpreted: libclang's arguments, the
 * file's TESTs, structs and helpers, a TEST_F's fixture and a TYPED_TEST's types. */
#include <stdlib.h>
#include <string.h>

#include "counts.h"
#include "cpp-int.h"
#include "fsutil.h"
#include "xalloc.h"

#ifdef HAVE_LIBCLANG

/* libclang's arguments for one file: its compile command when the database has one, else C++17
 * with ferry's header, the file's own directory and the user's -I and -D. */
static char **parse_args(struct run *r, CXCompilationDatabase db, const char *file, const char *stub,
			 int *nargs, int *with_stub)
{
	char **v = cpp_arena_alloc(&r->arena, (r->o->nincludes + r->o->ndefines + 16) * sizeof(*v));
	int n = 0;

	*with_stub = 0;
	if (db) {
		char *abs = fs_abspath(file);
		CXCompileCommands cmds = r->api->CompilationDatabase_getCompileCommands(db, abs);

		free(abs);
		if (cmds && r->api->CompileCommands_getSize(cmds) > 0) {
			CXCompileCommand cmd = r->api->CompileCommands_getCommand(cmds, 0);
			unsigned na = r->api->CompileCommand_getNumArgs(cmd);
			const char *dir = str(r, r->api->CompileCommand_getDirectory(cmd));

			v = cpp_arena_alloc(&r->arena, (na + r->o->nincludes + r->o->ndefines + 8) * sizeof(*v));
			/* the compiler (first) and the source, output and -c arguments are libclang's own business */
			for (unsigned i = 1; i < na; i++) {
				const char *a = str(r, r->api->CompileCommand_getArg(cmd, i));

				if (!strcmp(a, "-o") || !strcmp(a, "-MF") || !strcmp(a, "-MT") || !strcmp(a, "-MQ")) {
					i++;
					continue;
				}
				if (!strcmp(a, "-c") || cpp_has_suffix(a, file) || !strncmp(a, "-M", 2))
					continue;
				if (!strncmp(a, "-I", 2) && a[2] && a[2] != '/')
					a = cpp_arena_take(&r->arena, xasprintf("-I%s/%s", dir, a + 2));
				v[n++] = (char *)a;
			}
			r->api->CompileCommands_dispose(cmds);
			goto user;
		}
		if (cmds)
			r->api->CompileCommands_dispose(cmds);
	}
	v[n++] = "-x";
	v[n++] = "c++";
	v[n++] = "-std=c++17";
	v[n++] = "-include";
	v[n++] = (char *)stub;
	*with_stub = 1;
	{
		char *dir = xstrdup(file), *slash = strrchr(dir, '/');

		if (slash) {
			*slash = 0;
			v[n++] = cpp_arena_take(&r->arena, xasprintf("-I%s", dir));
		}
		free(dir);
	}
user:
	for (size_t i = 0; i < r->o->nincludes; i++)
		v[n++] = cpp_arena_take(&r->arena, xasprintf("-I%s", r->o->includes[i]));
	for (size_t i = 0; i < r->o->ndefines; i++)
		v[n++] = cpp_arena_take(&r->arena, xasprintf("-D%s", r->o->defines[i]));
	v[n++] = "-fsyntax-only";
	v[n++] = "-Wno-everything";
	v[n++] = "-ferror-limit=0";
	*nargs = n;
	return v;
}

struct walker {
	struct run *r;
	CXCursor *tests;        /* the TEST bodies' functions */
	size_t ntests, cap;
	long constructions;
	CXCursor *aliases;      /* the file's using and typedef declarations, for TYPED_TEST's types */
	size_t naliases, acap;
};

/* The test's name, "Suite.Name", from the annotation ferry's TEST macros give it; else the function's. */
static const char *test_name(struct run *r, CXCursor fn)
{
	size_t nk;
	CXCursor *k = cpp_kids(r, fn, &nk);

	for (size_t i = 0; i < nk; i++)
		if (kind(r, k[i]) == CXCursor_AnnotateAttr) {
			const char *s = spelling(r, k[i]);

			if (!strncmp(s, "ferry-test ", 11))
				return s + 11;
		}
	return spelling(r, fn);
}

static int is_test(struct run *r, CXCursor fn)
{
	size_t nk;
	CXCursor *k = cpp_kids(r, fn, &nk);

	for (size_t i = 0; i < nk; i++)
		if (kind(r, k[i]) == CXCursor_AnnotateAttr && !strncmp(spelling(r, k[i]), "ferry-test ", 11))
			return 1;
	return 0;
}

static enum CXChildVisitResult find_tests(CXCursor c, CXCursor parent, CXClientData data)
{
	struct walker *w = data;
	struct run *r = w->r;
	enum CXCursorKind k = kind(r, c);
	CXSourceLocation loc = r->api->getCursorLocation(c);

	(void)parent;
	if (r->api->Location_isInSystemHeader(loc))
		return CXChildVisit_Continue;
	if (k == CXCursor_Namespace || k == CXCursor_LinkageSpec || k == CXCursor_StructDecl ||
	    k == CXCursor_ClassDecl || k == CXCursor_ClassTemplate)
		return CXChildVisit_Recurse;
	if (k == CXCursor_TypeAliasDecl || k == CXCursor_TypedefDecl) {
		XGROW(w->aliases, w->acap, w->naliases + 1);
		w->aliases[w->naliases++] = c;
		return CXChildVisit_Continue;
	}
	if (k == CXCursor_FieldDecl) {
		/* a struct of the file: its fields in order, for aggregates */
		CXCursor p = r->api->getCursorReferenced(parent);
		const char *pn = spelling(r, parent);
		struct fstruct *fs = NULL;

		(void)p;
		if (r->nstructs && r->structs[r->nstructs - 1].name == pn)
			fs = &r->structs[r->nstructs - 1];
		for (size_t i = 0; !fs && i < r->nstructs; i++)
			if (!strcmp(r->structs[i].name, pn))
				fs = &r->structs[i];
		if (!fs) {
			XGROW(r->structs, r->scap, r->nstructs + 1);
			fs = &r->structs[r->nstructs++];
			memset(fs, 0, sizeof(*fs));
			fs->name = pn;
		}
		{
			const char **nf = cpp_arena_alloc(&r->arena, (fs->n + 1) * sizeof(*nf));

			if (fs->n)
				memcpy(nf, fs->fields, fs->n * sizeof(*nf));
			nf[fs->n++] = spelling(r, c);
			fs->fields = nf;
		}
		return CXChildVisit_Continue;
	}
	if ((k == CXCursor_FunctionDecl || k == CXCursor_CXXMethod || k == CXCursor_FunctionTemplate) &&
	    r->api->isCursorDefinition(c)) {
		/* a TEST's function carries ferry's annotation: TEST_F's and TEST_P's bodies are methods
		 * defined outside their struct, at the top level, where only the annotation tells them */
		if (is_test(r, c)) {
			XGROW(w->tests, w->cap, w->ntests + 1);
			w->tests[w->ntests++] = c;
		} else if (k != CXCursor_CXXMethod) {
			XGROW(r->fns, r->fcap, r->nfns + 1);
			r->fns[r->nfns].name = spelling(r, c);
			r->fns[r->nfns++].c = c;
		}
	}
	if (k == CXCursor_StructDecl && strstr(spelling(r, c), "_ferry_"))
		return CXChildVisit_Recurse;
	return CXChildVisit_Continue;
}

/* Count the tester constructions written in the file: what a regex would find, the yardstick for
 * what the interpreter reaches. */
static enum CXChildVisitResult find_constructions(CXCursor c, CXCursor parent, CXClientData data)
{
	struct walker *w = data;
	struct run *r = w->r;

	(void)parent;
	if (r->api->Location_isInSystemHeader(r->api->getCursorLocation(c)))
		return CXChildVisit_Continue;
	if (kind(r, c) == CXCursor_VarDecl) {
		enum tkind tk = cpp_tester_type(r, c);

		if (tk == TK_TESTER || tk == TK_SUBCLASS)
			w->constructions++;
	} else if (kind(r, c) == CXCursor_CallExpr && !strcmp(spelling(r, c), "make_unique") &&
		   cpp_is_make_tester(r, c)) {
		w->constructions++;
	}
	return CXChildVisit_Recurse;
}

/* A TEST_F's fixture: its fields bound in f, each to the value its constructor's initializer list or
 * its own initializer gives it (a tester made in the constructor, a list of data), so that the body
 * can use them as ONNX Runtime's fixtures do. */
static void fixture_bind(struct run *r, struct frame *f, CXCursor test)
{
	CXCursor st = r->api->getCursorSemanticParent(test), fix;
	size_t nk, nf;
	CXCursor *k = cpp_kids(r, st, &nk), *fk;

	for (size_t i = 0; i < nk; i++) {
		if (kind(r, k[i]) != CXCursor_CXXBaseSpecifier)
			continue;
		fix = r->api->getTypeDeclaration(r->api->getCursorType(k[i]));
		if (r->api->Cursor_isNull(fix) || kind(r, fix) >= CXCursor_FirstInvalid)
			continue;
		fix = r->api->getCursorDefinition(fix);
		if (r->api->Cursor_isNull(fix) || kind(r, fix) >= CXCursor_FirstInvalid)
			continue;
		fk = cpp_kids(r, fix, &nf);
		/* the fields with an initializer of their own first, then the constructor's list */
		for (size_t j = 0; j < nf; j++)
			if (kind(r, fk[j]) == CXCursor_FieldDecl && cpp_tester_type(r, fk[j]) == TK_NONE)
				cpp_exec_decl(r, f, fk[j]);
		for (size_t j = 0; j < nf; j++) {
			size_t nc;
			CXCursor *ck;

			if (kind(r, fk[j]) != CXCursor_Constructor)
				continue;
			ck = cpp_kids(r, fk[j], &nc);
			for (size_t m = 0; m + 1 < nc; m++) {
				const char *name, *type;
				struct cval v;

				if (kind(r, ck[m]) != CXCursor_MemberRef || !r->api->isExpression(kind(r, ck[m + 1])))
					continue;
				name = spelling(r, ck[m]);
				type = type_of(r, r->api->getCursorReferenced(ck[m]));
				if (cpp_tester_type(r, r->api->getCursorReferenced(ck[m])) != TK_NONE) {
					memset(&v, 0, sizeof(v));
					v.kind = CV_TESTER;
					v.t = cpp_tester_new(r, f, cpp_strip(r, ck[m + 1]), cpp_line_of(r, ck[m]));
				} else {
					v = cpp_eval(r, f, ck[m + 1]);
					if (v.kind == CV_LIST && strstr(type, "vector<"))
						v.ctype = cpp_arena_strndup(&r->arena, strstr(type, "vector<") + 7,
									    strcspn(strstr(type, "vector<") + 7, ">"));
				}
				cpp_bind(r, f, name, v);
			}
			break;
		}
	}
}

/* The element types a TYPED_TEST runs with: the types of its suite's TYPED_TEST_SUITE (an alias
 * ferry's macro makes), read from the alias's canonical type, testing::Types<float, long>. Each
 * type's name in types, up to max; how many. */
static size_t typed_types(struct run *r, const struct walker *w, const char *suite, const char **types, size_t max)
{
	char *want = xasprintf("%s_ferry_types_", suite);
	const char *ty = NULL, *p;
	size_t found = 0, depth = 0, start;

	for (size_t k = 0; k < w->naliases && !ty; k++)
		if (!strcmp(spelling(r, w->aliases[k]), want))
			ty = str(r, r->api->getTypeSpelling(
					    r->api->getCanonicalType(r->api->getCursorType(w->aliases[k]))));
	free(want);
	if (!ty || !(p = strstr(ty, "Types<")))
		return 0;
	p += 6;
	start = 0;
	for (size_t j = 0; p[j] && found < max; j++) {
		if (p[j] == '<' || p[j] == '(') {
			depth++;
		} else if ((p[j] == '>' || p[j] == ')') && depth) {
			depth--;
		} else if ((p[j] == ',' || p[j] == '>') && !depth) {
			const char *a = p + start;
			size_t n = j - start;

			while (n && *a == ' ')
				a++, n--;
			while (n && a[n - 1] == ' ')
				n--;
			if (n > 13 && !strncmp(a, "onnxruntime::", 13))
				a += 13, n -= 13;
			if (n > 5 && !strncmp(a, "std::", 5))
				a += 5, n -= 5;
			types[found++] = cpp_arena_strndup(&r->arena, a, n);
			start = j + 1;
			if (p[j] == '>')
				break;
		}
	}
	return found;
}

/* A TYPED_TEST (its function's children k): its body once per type of its suite, TypeParam bound to
 * it. How many types it ran with (0: none found, the body is to be run as it is). */
static size_t run_typed(struct run *r, const struct walker *w, CXCursor *k, size_t nk)
{
	const char *types[32];
	size_t nty;
	char *suite = xstrdup(r->test);

	suite[strcspn(suite, ".")] = '\0';
	nty = typed_types(r, w, suite, types, 32);
	free(suite);
	for (size_t ty = 0; ty < nty && !r->failed; ty++) {
		struct binding *b = cpp_arena_alloc(&r->arena, sizeof(*b));
		struct frame f;

		memset(&f, 0, sizeof(f));
		memset(b, 0, sizeof(*b));
		b->name = "TypeParam";
		b->v.kind = CV_STR;
		b->v.s = types[ty];
		f.types = b;
		for (size_t j = 0; j < nk; j++)
			if (kind(r, k[j]) == CXCursor_CompoundStmt)
				cpp_exec(r, &f, k[j]);
	}
	return nty;
}

/* One TEST's body: interpreted (ONNX Runtime's: a TEST_F's with its fixture bound, a TYPED_TEST's
 * once per type), or read from its tokens (libtorch's). */
static void run_test(struct run *r, const struct walker *w, CXCursor fn)
{
	struct frame f;
	size_t nk;
	CXCursor *k = cpp_kids(r, fn, &nk);

	memset(&f, 0, sizeof(f));
	r->test = test_name(r, fn);
	r->test_line = cpp_line_of(r, fn);
	if (r->on_run && kind(r, fn) == CXCursor_CXXMethod)
		fixture_bind(r, &f, fn);
	if (r->on_run && kind(r, fn) == CXCursor_FunctionTemplate && run_typed(r, w, k, nk))
		return;
	for (size_t j = 0; j < nk; j++)
		if (kind(r, k[j]) == CXCursor_CompoundStmt) {
			if (r->on_run)
				cpp_exec(r, &f, k[j]);
			else
				cpp_torch_test(r, k[j]);
		}
}

/* Parse one file and interpret its tests: ONNX Runtime's through the syntax tree (r->on_run),
 * libtorch's through their tokens. */
static int harvest_file(struct run *r, CXIndex idx, CXCompilationDatabase db, const char *path,
			const char *stub, struct err *e)
{
	CXTranslationUnit tu = NULL;
	int nargs, with_stub, rc = 0;
	char **args = parse_args(r, db, path, stub, &nargs, &with_stub);
	enum CXErrorCode ec;
	struct walker w;
	const char *top;

	memset(&w, 0, sizeof(w));
	w.r = r;
	ec = r->api->parseTranslationUnit2(idx, path, (const char *const *)args, nargs, NULL, 0,
					   CXTranslationUnit_Incomplete | CXTranslationUnit_KeepGoing |
					   CXTranslationUnit_SkipFunctionBodies * 0, &tu);
	if (ec == CXError_Crashed && r->o->skip) {
		/* libclang's crash recovery caught a failure of its own: running out of memory, as a rule
		 * (the parent tells, from what LLVM printed) */
		r->o->skip(r->o->ctx, path, "libclang gave up parsing it (it crashed)");
		return 0;
	}
	if (ec != CXError_Success || !tu) {
		char *msg = xasprintf("cannot parse '%s' with libclang (error %d): skipped", path, (int)ec);

		if (r->o->warn)
			r->o->warn(r->o->ctx, msg);
		free(msg);
		count(r, "files libclang could not parse", 1);
		return 0;
	}
	r->tu = tu;
	cpp_git_of(r, path, r->on_run ? "VERSION_NUMBER" : "version.txt", &top, &r->commit, &r->version);
	{
		char *abs = fs_abspath(path);
		size_t tl = top ? strlen(top) : 0;

		/* relative to the checkout's top; a checkout at / has its files right under it */
		if (top && !strncmp(abs, top, tl) && (abs[tl] == '/' || tl == 1))
			r->file = cpp_arena_strdup(&r->arena, abs + tl + (tl > 1));
		else
			r->file = path;
		free(abs);
	}
	count(r, "files parsed", 1);
	r->api->visitChildren(r->api->getTranslationUnitCursor(tu), find_tests, &w);
	if (r->on_run) {
		r->api->visitChildren(r->api->getTranslationUnitCursor(tu), find_constructions, &w);
		count(r, "tester constructions written", w.constructions);
	}
	count(r, "tests read", (long)w.ntests);
	for (size_t i = 0; i < w.ntests && !r->failed; i++)
		run_test(r, &w, w.tests[i]);
	if (r->failed)
		rc = -1;
	free(w.tests);
	free(w.aliases);
	r->api->disposeTranslationUnit(tu);
	r->tu = NULL;
	(void)with_stub;
	(void)e;
	return rc;
}

/* Parse one file here, in this process (the child's side), and interpret its tests. */
int cpp_harvest_here(const char *file, const char *stub, const struct cpp_opts *o, struct counts *counts,
		     int (*on_run)(struct run *, struct tester *, int, const char *, struct err *),
		     struct err *e)
{
	struct clang_api api;
	struct run r;
	CXIndex idx = NULL;
	CXCompilationDatabase db = NULL;
	int rc = -1;

	if (clang_load(&api, e) < 0)
		return -1;
	memset(&r, 0, sizeof(r));
	r.api = &api;
	r.o = o;
	r.counts = counts;
	r.on_run = on_run;
	r.e = e;
	if (o->compile_commands) {
		CXCompilationDatabase_Error dberr;

		db = api.CompilationDatabase_fromDirectory(o->compile_commands, &dberr);
		if (dberr != CXCompilationDatabase_NoError || !db) {
			err_set(e, EXIT_INPUT, "cannot read '%s/compile_commands.json'", o->compile_commands);
			goto out;
		}
	}
	idx = api.createIndex(0, 0);
	if (harvest_file(&r, idx, db, file, stub, e) < 0)
		goto out;
	rc = 0;
out:
	if (idx)
		api.disposeIndex(idx);
	if (db)
		api.CompilationDatabase_dispose(db);
	cpp_arena_release(&r.arena);
	free(r.structs);
	free(r.fns);
	return rc;
}

#endif
