/* cpp-int.h: what the files of the C++ harvester (extract/cpp/) share, and no other file sees: the
 * values the interpreter computes and the arena they live in, the interpreter's state over one file,
 * and the functions that one file of the folder calls in another. cpp.h is the harvester's API.
 *
 * Every value, string and token of one file's parse lives in that file's arena (struct run's) and is
 * freed at once when the file is done: nothing here is freed one by one. */
#ifndef FERRY_CPP_INT_H
#define FERRY_CPP_INT_H

#include <cjson/cJSON.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "clang.h"
#include "cpp.h"
#include "err.h"

#ifdef HAVE_LIBCLANG

/* How deep helper calls nest, how many times a range-for runs, how many elements a fill constructor
 * makes: beyond these, a value is "computed", not written in the test. */
#define MAX_DEPTH 12
#define MAX_ITER 4096
#define MAX_FILL (1 << 20)

/* --- an arena: every value of one file lives until the file is done ---------------------------- */

struct arena_block {
	struct arena_block *next;
	size_t used, size;
	max_align_t data[];
};

struct arena {
	struct arena_block *head;
};

/* --- values ------------------------------------------------------------------------------------- */

/* CV_TENSOR, CV_MODULE, CV_OPTS (an options builder) and CV_TOPTS (torch::TensorOptions, its dtype in
 * s) are libtorch's */
enum cv_kind {
	CV_UNKNOWN, CV_NUM, CV_BOOL, CV_STR, CV_LIST, CV_SYM, CV_TESTER, CV_CLOSURE, CV_ABSENT, CV_TENSOR,
	CV_MODULE, CV_OPTS, CV_TOPTS
};

struct tester;
struct frame;
struct ttensor;
struct tmod;
struct topts;

struct cval {
	enum cv_kind kind;
	int is_float;           /* CV_NUM: written as a floating literal */
	double d;               /* CV_NUM, CV_BOOL */
	long long i;            /* CV_NUM when !is_float */
	const char *s;          /* CV_STR, CV_SYM; CV_UNKNOWN: why */
	struct cval *items;     /* CV_LIST */
	size_t n;
	const char *ctype;      /* the C++ element type it was declared with, when known ("float") */
	int is_enum;            /* CV_SYM: an enumerator whose value is in i and d */
	struct tester *t;       /* CV_TESTER */
	CXCursor cur;           /* CV_CLOSURE: the lambda */
	struct frame *env;      /* CV_CLOSURE: where it was made */
	struct ttensor *tt;     /* CV_TENSOR */
	struct tmod *tm;        /* CV_MODULE */
	struct topts *to;       /* CV_OPTS */
};

static inline struct cval unknown(const char *why)
{
	struct cval v;

	memset(&v, 0, sizeof(v));
	v.kind = CV_UNKNOWN;
	v.s = why;
	return v;
}

static inline struct cval num_int(long long i)
{
	struct cval v;

	memset(&v, 0, sizeof(v));
	v.kind = CV_NUM;
	v.i = i;
	v.d = (double)i;
	return v;
}

static inline struct cval num_float(double d)
{
	struct cval v;

	memset(&v, 0, sizeof(v));
	v.kind = CV_NUM;
	v.is_float = 1;
	v.d = d;
	return v;
}

static inline struct cval boolean(int b)
{
	struct cval v;

	memset(&v, 0, sizeof(v));
	v.kind = CV_BOOL;
	v.d = b;
	v.i = b;
	return v;
}

static inline int is_number(const struct cval *v)
{
	return v->kind == CV_NUM || v->kind == CV_BOOL;
}

/* --- the interpreter's state -------------------------------------------------------------------- */

struct binding {
	const char *name;
	struct cval v;
	struct binding *next;
};

struct frame {
	struct binding *vars;
	struct binding *types;  /* template type parameters: name -> CV_STR type */
	struct frame *up;       /* a lambda's enclosing frame */
	struct cval ret;
	int returned;
	int depth;
};

struct port {                   /* one AddInput or AddOutput */
	const char *ctype;      /* NULL: an optional input or output left out */
	struct cval dims, values;
	unsigned line;
};

struct tester {
	struct cval op, opset, domain;
	const char *taint;      /* why this tester cannot become an instance, or NULL */
	unsigned line;
	const char **pnames;    /* AddAttribute, in order */
	struct cval *pvals;
	const char **ptypes;    /* the C++ type the attribute was given, or NULL */
	size_t np, pcap;
	struct port *in, *out;
	size_t nin, nout, incap, outcap;
	int runs;
};

struct tok {
	const char *s;
	CXTokenKind kind;
	unsigned offset, line;
};

struct fstruct {                /* a struct of the file, for aggregates */
	const char *name;
	const char **fields;
	size_t n;
};

struct run {
	const struct clang_api *api;
	const struct cpp_opts *o;
	CXTranslationUnit tu;
	struct arena arena;
	const char *file;       /* as recorded (relative to the checkout) */
	const char *commit;     /* NULL outside a git tree */
	const char *version;    /* the checkout's version (VERSION_NUMBER, version.txt), or NULL */
	const char *test;       /* "Suite.Name" */
	unsigned test_line;
	int loop;               /* inside a loop the harvester does not unroll */
	struct tok *blk;        /* the tokens of the block being run: what libclang left out of a statement */
	size_t nblk;
	struct fstruct *structs;
	struct fdef {           /* a function of the file that is not a test: a helper libtorch's tests call */
		const char *name;
		CXCursor c;
	} *fns;
	size_t nfns, fcap;
	size_t nstructs, scap;
	struct counts *counts;  /* count-tests: count instead of emitting */
	int (*on_run)(struct run *r, struct tester *t, int failure, const char *msg, struct err *e);
	struct err *e;
	int failed;
};

static inline void count(struct run *r, const char *key, long n)
{
	if (r->o->count)
		r->o->count(r->o->ctx, key, n);
}

static inline void not_recorded(struct run *r, const char *why)
{
	char key[256];

	snprintf(key, sizeof(key), "not recorded: %s", why);
	count(r, "calls not recorded", 1);
	count(r, key, 1);
}

/* The callee of a call, from its tokens: the object ("test" in test.AddInput<float>(...)) and the
 * method or function name, and the tokens of its template arguments. */
struct callee {
	const char *object, *name;
	struct tok *targs;
	size_t ntargs;
};

/* What a declared type holds, as ONNX Runtime's tests make testers: OpTester itself, a
 * std::unique_ptr<OpTester> (std::make_unique), or a class of the file derived from OpTester. A class
 * that only has OpTester in its name (QLinearConvOpTester, a helper that makes its own) is none. */
enum tkind { TK_NONE, TK_TESTER, TK_UNIQUE, TK_SUBCLASS };

/* --- what one file of the folder calls in another ---------------------------------------------- */

/* value.c: the arena (cpp_arena_take frees s, a string of xasprintf's, once copied), values and the
 * environment; strings returned are the arena's. */
void *cpp_arena_alloc(struct arena *a, size_t n);
char *cpp_arena_strndup(struct arena *a, const char *s, size_t n);
char *cpp_arena_strdup(struct arena *a, const char *s);
char *cpp_arena_take(struct arena *a, char *s);
void cpp_arena_release(struct arena *a);
const struct cval *cpp_first_unknown(const struct cval *v);
char *cpp_unescape(struct run *r, const char *lit);
struct cval cpp_list_of(struct run *r, size_t n);
int cpp_type_is_int(const char *t);
struct cval cpp_cast_to(struct cval v, const char *type);
void cpp_bind(struct run *r, struct frame *f, const char *name, struct cval v);
struct cval *cpp_lookup(struct frame *f, const char *name);
const char *cpp_type_param(struct frame *f, const char *name);
const char *cpp_type_text(struct run *r, struct frame *f, const struct tok *t, size_t n);

/* cursor.c: libclang's children and tokens of a cursor, in the arena; a call's arguments and callee. */
CXCursor *cpp_kids(struct run *r, CXCursor c, size_t *n);
unsigned cpp_offset_of(struct run *r, CXSourceLocation loc, unsigned *line);
unsigned cpp_line_of(struct run *r, CXCursor c);
struct tok *cpp_toks(struct run *r, CXCursor c, size_t *n);
size_t cpp_ntoks(struct run *r, CXCursor c);
int cpp_has_callee(struct run *r, CXCursor call, CXCursor *k, size_t nk);
CXCursor *cpp_call_args(struct run *r, CXCursor call, size_t *n);
CXCursor cpp_strip(struct run *r, CXCursor c);
void cpp_callee_of(struct run *r, CXCursor call, struct callee *ce);

/* eval.c: an expression's value. */
struct cval cpp_numeric_limit(struct run *r, struct frame *f, CXCursor c);
struct cval cpp_eval(struct run *r, struct frame *f, CXCursor c);

/* call.c: a call's value (as_stmt: the value is not used); a parameter's value in a call; what an
 * assignment or a callee writes. */
struct cval cpp_argument(struct run *r, struct frame *f, struct frame *g, CXCursor parm, CXCursor *args, size_t nargs,
			 size_t pi);
struct cval *cpp_lvalue(struct run *r, struct frame *f, CXCursor c);
struct cval *cpp_written_list(struct run *r, struct frame *f, CXCursor c);
struct cval cpp_call(struct run *r, struct frame *f, CXCursor c, int as_stmt);

/* tester.c: ONNX Runtime's testers. */
void cpp_gap_runs(struct run *r, struct frame *f, const struct tok *t, size_t from, size_t to);
struct tester *cpp_tester_new(struct run *r, struct frame *f, CXCursor ctor, unsigned line);
int cpp_tester_method(struct run *r, struct frame *f, struct tester *t, CXCursor c, const struct callee *ce);
enum tkind cpp_tester_type(struct run *r, CXCursor var);
struct tester *cpp_subclass_new(struct run *r, struct frame *f, CXCursor var, CXCursor init, unsigned line);
int cpp_is_make_tester(struct run *r, CXCursor c);

/* exec.c: a statement run; a variable's declaration bound in f. */
void cpp_exec_decl(struct run *r, struct frame *f, CXCursor var);
void cpp_exec(struct run *r, struct frame *f, CXCursor c);

/* files.c: the checkout a file is in (strings in the arena, NULL where there is none). */
int cpp_has_suffix(const char *s, const char *suf);
void cpp_git_of(struct run *r, const char *path, const char *vfile, const char **top, const char **commit,
		const char **version);

/* parse.c: one file parsed here and its tests interpreted, each Run reached handed to on_run (NULL:
 * libtorch's tests, read from their tokens). */
int cpp_harvest_here(const char *file, const char *stub, const struct cpp_opts *o, struct counts *counts,
		     int (*on_run)(struct run *, struct tester *, int, const char *, struct err *),
		     struct err *e);

/* onnx.c: a Run as an ONNX record (emitted), or counted for count-tests; a number in the records'
 * JSON. */
const char *cpp_dtype_of(const char *ctype);
cJSON *cpp_json_number(const struct cval *v, int as_float);
int cpp_onnx_run(struct run *r, struct tester *t, int failure, const char *msg, struct err *e);
int cpp_count_run(struct run *r, struct tester *t, int failure, const char *msg, struct err *e);

/* torch-parse.c: one libtorch TEST body, from its tokens. */
void cpp_torch_test(struct run *r, CXCursor body);

/* stub.c: ferry's header written into a new scratch directory *dir, at *path (the caller frees both,
 * and removes them). */
int cpp_write_stub(char **dir, char **path, struct err *e);

/* watch.c: each file parsed in a child of its own, what it gives replayed through o's hooks. */
int cpp_parse_files(char *const *files, size_t n, const struct cpp_opts *o, enum cpp_mode mode,
		    struct counts *counts, struct err *e);

/* libclang's strings, cursors and types, copied into the arena. */
static inline char *str(struct run *r, CXString s)
{
	const char *c = r->api->getCString(s);
	char *p = cpp_arena_strdup(&r->arena, c ? c : "");

	r->api->disposeString(s);
	return p;
}

static inline enum CXCursorKind kind(struct run *r, CXCursor c)
{
	return r->api->getCursorKind(c);
}

static inline const char *spelling(struct run *r, CXCursor c)
{
	return str(r, r->api->getCursorSpelling(c));
}

static inline const char *type_of(struct run *r, CXCursor c)
{
	return str(r, r->api->getTypeSpelling(r->api->getCursorType(c)));
}

#endif

#endif
