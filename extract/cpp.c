/* cpp.c: the C++ harvester (see cpp.h): libclang's syntax tree of a test file, interpreted. */
#include "cpp.h"

#include <cjson/cJSON.h>
#include <ctype.h>
#include <dirent.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "buf.h"
#include "clang.h"
#include "counts.h"
#include "fsutil.h"
#include "xalloc.h"

#ifdef HAVE_LIBCLANG

/* How deep helper calls nest, how many times a range-for runs, how many elements a fill constructor
 * makes: beyond these, a value is "computed", not written in the test. */
#define MAX_DEPTH 12
#define MAX_ITER 4096
#define MAX_FILL (1 << 20)

/* The header ferry injects when the checkout's own are not given: just enough of OpTester, gtest and
 * ONNX Runtime's names that libclang can resolve the calls a test makes. */
static const char stub_header[] =
	"#include <cstdint>\n#include <cfloat>\n#include <cmath>\n#include <limits>\n#include <string>\n"
	"#include <vector>\n#include <initializer_list>\n#include <functional>\n#include <memory>\n"
	"#include <unordered_map>\n#include <unordered_set>\n#include <map>\n#include <utility>\n"
	"#include <array>\n#include <algorithm>\n#include <numeric>\n#include <random>\n"
	/* each test carries its name in an annotation, which libclang shows as a child of the function */
	"#define FERRY_NAME_(s, n) __attribute__((annotate(\"ferry-test \" #s \".\" #n)))\n"
	"#define TEST(s, n) FERRY_NAME_(s, n) void s##_##n##_ferry_test_()\n"
	"#define TEST_F(s, n) struct s##_##n##_ferry_f_ : s { void body(); }; FERRY_NAME_(s, n) void s##"
	"_##n##_ferry_f_::body()\n"
	"#define TEST_P(s, n) struct s##_##n##_ferry_p_ : s { void body(); }; FERRY_NAME_(s, n) void s##"
	"_##n##_ferry_p_::body()\n"
	"#define TYPED_TEST(s, n) template <typename TypeParam> FERRY_NAME_(s, n) void s##_##n##_ferry_typed_()\n"
	"#define TYPED_TEST_SUITE(...)\n#define INSTANTIATE_TEST_SUITE_P(...)\n#define GTEST_SKIP() return\n"
	"#define ORT_ENFORCE(...)\n#define ORT_THROW(...)\n#define ASSERT_TRUE(...)\n#define ASSERT_FALSE(...)\n"
	"#define EXPECT_TRUE(...)\n#define EXPECT_FALSE(...)\n#define ASSERT_EQ(...)\n#define EXPECT_EQ(...)\n"
	"#define ASSERT_NE(...)\n#define EXPECT_NE(...)\n#define ASSERT_STATUS_OK(...)\n#define ASSERT_NEAR(...)\n"
	"#define EXPECT_NEAR(...)\n#define ASSERT_THROW(...)\n#define EXPECT_THROW(...)\n#define ORT_UNU"
	"SED_PARAMETER(x)\n"
	"namespace testing { struct Test { virtual void SetUp() {} virtual ~Test() {} }; "
	"template <typename T> struct TestWithParam : Test { const T &GetParam() const; }; }\n"
	"namespace onnxruntime {\n"
	"constexpr const char *kOnnxDomain = \"\";\nconstexpr const char *kMLDomain = \"ai.onnx.ml\";\n"
	"constexpr const char *kMSDomain = \"com.microsoft\";\nconstexpr const char *kMSInternalNHWCDomain = "
	"\"com.ms.internal.nhwc\";\n"
#define EP(n) "constexpr const char *k" #n "ExecutionProvider = \"" #n "\";\n"
	EP(Cpu) EP(Cuda) EP(CudaNHWC) EP(Tensorrt) EP(NGraph) EP(OpenVINO) EP(Dnnl) EP(Qnn) EP(CoreML) EP(Nnapi)
	EP(Dml) EP(Rocm) EP(MIGraphX) EP(Xnnpack) EP(WebGpu) EP(Js) EP(Acl) EP(ArmNN) EP(VitisAI) EP(Cann)
	EP(Azure) EP(Snpe) EP(Rknpu) EP(Nuphar) EP(Tvm)
#undef EP
	"struct IExecutionProvider {};\n"
	"struct MLFloat16 { MLFloat16(); MLFloat16(float); static MLFloat16 FromBits(uint16_t); float To"
	"Float() const; };\n"
	"struct BFloat16 { BFloat16(); BFloat16(float); float ToFloat() const; };\n"
	"struct Float8E4M3FN { Float8E4M3FN(float, bool = true); };\nstruct Float8E5M2 { Float8E5M2(floa"
	"t, bool = true); };\n"
	"struct Float8E4M3FNUZ { Float8E4M3FNUZ(float, bool = true); };\n"
	"struct Float8E5M2FNUZ { Float8E5M2FNUZ(float, bool = true); };\n"
	"struct Int4x2 { Int4x2(); Int4x2(int, int); };\nstruct UInt4x2 { UInt4x2(); UInt4x2(int, int); };\n"
	"struct SessionOptions {};\nstruct RunOptions {};\n"
	"namespace test {\n"
	"template <typename... A> std::unique_ptr<IExecutionProvider> DefaultCpuExecutionProvider(A...);\n"
	"template <typename... A> std::unique_ptr<IExecutionProvider> DefaultCudaExecutionProvider(A...);\n"
	"template <typename... A> std::unique_ptr<IExecutionProvider> DefaultDmlExecutionProvider(A...);\n"
	"template <typename... A> std::unique_ptr<IExecutionProvider> DefaultTensorrtExecutionProvider(A...);\n"
	"template <typename... A> std::unique_ptr<IExecutionProvider> DefaultRocmExecutionProvider(A...);\n"
	"template <typename... A> std::unique_ptr<IExecutionProvider> DefaultDnnlExecutionProvider(A...);\n"
	"template <typename... A> std::unique_ptr<IExecutionProvider> DefaultOpenVINOExecutionProvider(A...);\n"
	"template <typename... A> std::unique_ptr<IExecutionProvider> DefaultWebGpuExecutionProvider(A...);\n"
	"template <typename... A> std::unique_ptr<IExecutionProvider> DefaultCoreMLExecutionProvider(A...);\n"
	"template <typename... A> bool HasCudaEnvironment(A...);\n"
	"template <typename T> std::vector<MLFloat16> ToFloat16(const std::vector<T> &);\n"
	"template <typename T> std::vector<MLFloat16> FloatsToMLFloat16s(const std::vector<T> &);\n"
	"template <typename T> std::vector<MLFloat16> MakeMLFloat16(const std::initializer_list<T> &);\n"
	"template <typename T> std::vector<BFloat16> FloatsToBFloat16s(const std::vector<T> &);\n"
	"template <typename T> std::vector<BFloat16> MakeBFloat16(const std::initializer_list<T> &);\n"
	"class OpTester {\npublic:\n"
	"  enum class ExpectResult { kExpectSuccess, kExpectFailure };\n"
	"  OpTester(const char *op, int opset = 7, const char *domain = kOnnxDomain, bool verify = true);\n"
	"  OpTester(const std::string &op, int opset = 7, const char *domain = kOnnxDomain, bool verify = true);\n"
	"  template <typename T> void AddInput(const char *, std::vector<int64_t>, std::initializer_list"
	"<T>, bool = false, const std::vector<std::string> * = nullptr);\n"
	"  template <typename T> void AddInput(const char *, std::vector<int64_t>, const std::vector<T> "
	"&, bool = false, const std::vector<std::string> * = nullptr);\n"
	"  template <typename T> void AddInput(const std::string &, std::vector<int64_t>, std::initializ"
	"er_list<T>, bool = false, const std::vector<std::string> * = nullptr);\n"
	"  template <typename T> void AddInput(const std::string &, std::vector<int64_t>, const std::vec"
	"tor<T> &, bool = false, const std::vector<std::string> * = nullptr);\n"
	"  template <typename T> void AddOutput(const char *, std::vector<int64_t>, std::initializer_lis"
	"t<T>, bool = false, float = 0, float = 0);\n"
	"  template <typename T> void AddOutput(const char *, std::vector<int64_t>, const std::vector<T>"
	" &, bool = false, float = 0, float = 0);\n"
	"  template <typename T> void AddOutput(const std::string &, std::vector<int64_t>, std::initiali"
	"zer_list<T>, bool = false, float = 0, float = 0);\n"
	"  template <typename T> void AddOutput(const std::string &, std::vector<int64_t>, const std::ve"
	"ctor<T> &, bool = false, float = 0, float = 0);\n"
	"  template <typename T> void AddAttribute(std::string, T);\n"
	"  template <typename T> void AddAttribute(std::string, std::initializer_list<T>);\n"
	"  template <typename T> void AddOptionalInputEdge();\n  template <typename T> void AddOptionalOutputEdge();\n"
	"  template <typename... A> void AddSeqInput(A &&...);\n  template <typename... A> void AddSeqOu"
	"tput(A &&...);\n"
	"  template <typename... A> void AddReferenceOutputs(A &&...);\n"
	"  void Run(ExpectResult = ExpectResult::kExpectSuccess, const std::string & = \"\", "
	"const std::unordered_set<std::string> & = {}, const RunOptions * = nullptr, "
	"std::vector<std::unique_ptr<IExecutionProvider>> * = nullptr, ...);\n"
	"  template <typename... A> void RunWithConfig(A &&...);\n"
	"  template <typename... A> OpTester &Config(A &&...);\n  template <typename... A> OpTester &Con"
	"figEp(A &&...);\n"
	"  template <typename... A> OpTester &ConfigEps(A &&...);\n  template <typename... A> OpTester &"
	"ConfigExcludeEps(A &&...);\n"
	"  template <typename... A> void SetOutputAbsErr(A &&...);\n  template <typename... A> void SetO"
	"utputRelErr(A &&...);\n"
	"  template <typename... A> void SetOutputTolerance(A &&...);\n  template <typename... A> void A"
	"ddShapeToTensorData(A &&...);\n"
	"};\n"
	"}\n}\n"
	/* libtorch: the names its tests use, as templates that accept anything. */
	"namespace at { struct Tensor { template <typename... A> Tensor operator()(A...); }; }\n"
	"namespace c10 { enum ScalarType { Float }; }\n"
	"namespace torch { using at::Tensor; struct Options { template <typename... A> Options dtype(A...); "
	"template <typename... A> Options requires_grad(A...); };\n"
	"constexpr c10::ScalarType kFloat = c10::Float, kDouble = c10::Float, kLong = c10::Float, kInt = c10::Float, "
	"kBool = c10::Float, kHalf = c10::Float, kBFloat16 = c10::Float, kUInt8 = c10::Float, kInt8 = c10::Float;\n"
	"}\n";

/* --- an arena: every value of one file lives until the file is done ---------------------------- */

struct arena_block {
	struct arena_block *next;
	size_t used, size;
	max_align_t data[];
};

struct arena {
	struct arena_block *head;
};

static void *arena_alloc(struct arena *a, size_t n)
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

static char *arena_strndup(struct arena *a, const char *s, size_t n)
{
	char *p = arena_alloc(a, n + 1);

	memcpy(p, s, n);
	p[n] = 0;
	return p;
}

static char *arena_strdup(struct arena *a, const char *s)
{
	return arena_strndup(a, s, strlen(s));
}

static void arena_release(struct arena *a)
{
	while (a->head) {
		struct arena_block *b = a->head;

		a->head = b->next;
		free(b);
	}
}

/* --- values ------------------------------------------------------------------------------------- */

enum cv_kind { CV_UNKNOWN, CV_NUM, CV_BOOL, CV_STR, CV_LIST, CV_SYM, CV_TESTER, CV_CLOSURE, CV_ABSENT };

struct tester;
struct frame;

struct cval {
	enum cv_kind kind;
	int is_float;           /* CV_NUM: written as a floating literal */
	double d;               /* CV_NUM, CV_BOOL */
	long long i;            /* CV_NUM when !is_float */
	const char *s;          /* CV_STR, CV_SYM; CV_UNKNOWN: why */
	struct cval *items;     /* CV_LIST */
	size_t n;
	const char *ctype;      /* the C++ element type it was declared with, when known ("float") */
	struct tester *t;       /* CV_TESTER */
	CXCursor cur;           /* CV_CLOSURE: the lambda */
	struct frame *env;      /* CV_CLOSURE: where it was made */
};

static struct cval unknown(const char *why)
{
	struct cval v;

	memset(&v, 0, sizeof(v));
	v.kind = CV_UNKNOWN;
	v.s = why;
	return v;
}

static struct cval num_int(long long i)
{
	struct cval v;

	memset(&v, 0, sizeof(v));
	v.kind = CV_NUM;
	v.i = i;
	v.d = (double)i;
	return v;
}

static struct cval num_float(double d)
{
	struct cval v;

	memset(&v, 0, sizeof(v));
	v.kind = CV_NUM;
	v.is_float = 1;
	v.d = d;
	return v;
}

static struct cval boolean(int b)
{
	struct cval v;

	memset(&v, 0, sizeof(v));
	v.kind = CV_BOOL;
	v.d = b;
	v.i = b;
	return v;
}

static int is_number(const struct cval *v)
{
	return v->kind == CV_NUM || v->kind == CV_BOOL;
}

/* The first unknown value within v (a list's items included), or NULL. */
static const struct cval *first_unknown(const struct cval *v)
{
	if (v->kind == CV_UNKNOWN)
		return v;
	if (v->kind == CV_LIST)
		for (size_t i = 0; i < v->n; i++) {
			const struct cval *u = first_unknown(&v->items[i]);

			if (u)
				return u;
		}
	return NULL;
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
	const char *test;       /* "Suite.Name" */
	unsigned test_line;
	int loop;               /* inside a loop the harvester does not unroll */
	struct fstruct *structs;
	size_t nstructs, scap;
	struct counts *counts;  /* count-tests: count instead of emitting */
	int (*on_run)(struct run *r, struct tester *t, int failure, const char *msg, struct err *e);
	struct err *e;
	int failed;
};

static void count(struct run *r, const char *key, long n)
{
	if (r->o->count)
		r->o->count(r->o->ctx, key, n);
}

static void not_recorded(struct run *r, const char *why)
{
	char key[256];

	snprintf(key, sizeof(key), "not recorded: %s", why);
	count(r, "calls not recorded", 1);
	count(r, key, 1);
}

/* --- libclang helpers --------------------------------------------------------------------------- */

static char *str(struct run *r, CXString s)
{
	const char *c = r->api->getCString(s);
	char *p = arena_strdup(&r->arena, c ? c : "");

	r->api->disposeString(s);
	return p;
}

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
static CXCursor *kids(struct run *r, CXCursor c, size_t *n)
{
	struct kids k = { NULL, 0, 0 };
	CXCursor *v;

	r->api->visitChildren(c, kid_visit, &k);
	v = arena_alloc(&r->arena, (k.n + 1) * sizeof(*v));
	if (k.n)
		memcpy(v, k.v, k.n * sizeof(*v));
	free(k.v);
	*n = k.n;
	return v;
}

static unsigned offset_of(struct run *r, CXSourceLocation loc, unsigned *line)
{
	CXFile f;
	unsigned l, col, off;

	r->api->getExpansionLocation(loc, &f, &l, &col, &off);
	if (line)
		*line = l;
	return off;
}

static unsigned line_of(struct run *r, CXCursor c)
{
	unsigned line;

	offset_of(r, r->api->getCursorLocation(c), &line);
	return line;
}

/* The tokens of c's extent, in the arena. */
static struct tok *toks(struct run *r, CXCursor c, size_t *n)
{
	CXToken *t = NULL;
	unsigned nt = 0;
	struct tok *v;

	r->api->tokenize(r->tu, r->api->getCursorExtent(c), &t, &nt);
	v = arena_alloc(&r->arena, (nt + 1) * sizeof(*v));
	for (unsigned i = 0; i < nt; i++) {
		v[i].s = str(r, r->api->getTokenSpelling(r->tu, t[i]));
		v[i].kind = r->api->getTokenKind(t[i]);
		v[i].offset = offset_of(r, r->api->getTokenLocation(r->tu, t[i]), &v[i].line);
	}
	if (t)
		r->api->disposeTokens(r->tu, t, nt);
	*n = nt;
	return v;
}

static size_t ntoks(struct run *r, CXCursor c)
{
	size_t n;

	toks(r, c, &n);
	return n;
}

static enum CXCursorKind kind(struct run *r, CXCursor c)
{
	return r->api->getCursorKind(c);
}

static const char *spelling(struct run *r, CXCursor c)
{
	return str(r, r->api->getCursorSpelling(c));
}

static const char *type_of(struct run *r, CXCursor c)
{
	return str(r, r->api->getTypeSpelling(r->api->getCursorType(c)));
}

/* Whether c is an argument written in the call (a default argument has no tokens). */
static int written(struct run *r, CXCursor c)
{
	enum CXCursorKind k = kind(r, c);

	return r->api->isExpression(k) && ntoks(r, c) > 0;
}

/* The arguments written in a call: its expression children but the callee, the child that starts
 * where the call starts and is followed by "(" or "<" (a constructor call has no callee child). */
static int has_callee(struct run *r, CXCursor call, CXCursor *k, size_t nk)
{
	size_t nt, nc;
	struct tok *t, *c;

	if (!nk || !r->api->isExpression(kind(r, k[0])))
		return 0;
	t = toks(r, call, &nt);
	c = toks(r, k[0], &nc);
	return nc && nt > nc && c[0].offset == t[0].offset && (!strcmp(t[nc].s, "(") || !strcmp(t[nc].s, "<"));
}

static CXCursor *call_args(struct run *r, CXCursor call, size_t *n)
{
	size_t nk, m = 0, first;
	CXCursor *k = kids(r, call, &nk), *v = arena_alloc(&r->arena, (nk + 1) * sizeof(*v));

	first = (size_t)has_callee(r, call, k, nk);
	for (size_t i = first; i < nk; i++)
		if (written(r, k[i]))
			v[m++] = k[i];
	*n = m;
	return v;
}

/* The innermost expression beneath implicit wrappers (UnexposedExpr, ExprWithCleanups...). */
static CXCursor strip(struct run *r, CXCursor c)
{
	for (;;) {
		enum CXCursorKind k = kind(r, c);
		size_t n;
		CXCursor *ch;

		if (k != CXCursor_UnexposedExpr && k != CXCursor_ParenExpr)
			return c;
		ch = kids(r, c, &n);
		if (n != 1)
			return c;
		c = ch[0];
	}
}

/* The callee of a call, from its tokens: the object ("test" in test.AddInput<float>(...)) and the
 * method or function name, and the tokens of its template arguments. */
struct callee {
	const char *object, *name;
	struct tok *targs;
	size_t ntargs;
};

static void callee_of(struct run *r, CXCursor call, struct callee *ce)
{
	size_t n, i, depth = 0;
	struct tok *t = toks(r, call, &n);

	memset(ce, 0, sizeof(*ce));
	for (i = 0; i < n; i++) {
		if (!strcmp(t[i].s, "(") && !depth)
			break;
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

/* --- the environment ---------------------------------------------------------------------------- */

static void bind(struct run *r, struct frame *f, const char *name, struct cval v)
{
	struct binding *b = arena_alloc(&r->arena, sizeof(*b));

	b->name = name;
	b->v = v;
	b->next = f->vars;
	f->vars = b;
}

static struct cval *lookup(struct frame *f, const char *name)
{
	for (; f; f = f->up)
		for (struct binding *b = f->vars; b; b = b->next)
			if (!strcmp(b->name, name))
				return &b->v;
	return NULL;
}

static const char *type_param(struct frame *f, const char *name)
{
	for (; f; f = f->up)
		for (struct binding *b = f->types; b; b = b->next)
			if (!strcmp(b->name, name))
				return b->v.s;
	return NULL;
}

/* A C++ type written as tokens, with template parameters replaced by their arguments and the
 * qualifiers that do not change an element type left out: "std::string", "float", "MLFloat16". */
static const char *type_text(struct run *r, struct frame *f, const struct tok *t, size_t n)
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
		if (t[i].kind == CXToken_Identifier && (p = type_param(f, s)))
			s = p;
		buf_adds(&b, s);
	}
	out = arena_strdup(&r->arena, b.data ? b.data : "");
	buf_release(&b);
	return out;
}

/* --- evaluation --------------------------------------------------------------------------------- */

static struct cval eval(struct run *r, struct frame *f, CXCursor c);
static void exec(struct run *r, struct frame *f, CXCursor c);
static struct cval call(struct run *r, struct frame *f, CXCursor c, int as_stmt);

static char *unescape(struct run *r, const char *lit)
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
	out = arena_strndup(&r->arena, b.data ? b.data : "", b.len);
	buf_release(&b);
	return out;
}

static struct cval list_of(struct run *r, size_t n)
{
	struct cval v;

	memset(&v, 0, sizeof(v));
	v.kind = CV_LIST;
	v.items = arena_alloc(&r->arena, (n + 1) * sizeof(*v.items));
	v.n = n;
	return v;
}

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
		v.s = arena_strdup(&r->arena, r->api->EvalResult_getAsStr(ev));
		break;
	default:
		break;
	}
	r->api->EvalResult_dispose(ev);
	return v;
}

static int type_is_int(const char *t)
{
	return strstr(t, "int") || strstr(t, "long") || strstr(t, "size_t") || strstr(t, "short") ||
	       strstr(t, "char");
}

static struct cval cast_to(struct cval v, const char *type)
{
	if (v.kind != CV_NUM)
		return v;
	if (strstr(type, "float") || strstr(type, "double") || strstr(type, "Float16"))
		return v.is_float ? v : num_float(v.d);
	if (strstr(type, "bool"))
		return boolean(v.d != 0);
	if (type_is_int(type))
		return v.is_float ? num_int((long long)v.d) : v;
	return v;
}

static struct cval binary(struct run *r, struct frame *f, CXCursor c)
{
	size_t nk, nl;
	CXCursor *k = kids(r, c, &nk);
	struct tok *t = toks(r, c, &nl);
	struct cval a, b;
	const char *op;
	size_t ln;

	if (nk != 2)
		return unknown("a value computed at run time");
	ln = ntoks(r, k[0]);
	if (ln >= nl)
		return clang_eval(r, c);
	op = t[ln].s;
	a = eval(r, f, k[0]);
	if (!strcmp(op, "&&") && a.kind == CV_BOOL && !a.i)
		return boolean(0);
	if (!strcmp(op, "||") && a.kind == CV_BOOL && a.i)
		return boolean(1);
	b = eval(r, f, k[1]);
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
		CXCursor *k = kids(r, decl, &nk);
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

static struct cval numeric_limit(struct run *r, struct frame *f, CXCursor c)
{
	size_t n, i;
	struct tok *t = toks(r, c, &n);
	const char *type = NULL, *what = NULL;

	for (i = 0; i + 2 < n; i++)
		if (!strcmp(t[i].s, "numeric_limits") && !strcmp(t[i + 1].s, "<")) {
			size_t j = i + 2;

			while (j < n && strcmp(t[j].s, ">"))
				j++;
			type = type_text(r, f, t + i + 2, j - i - 2);
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

static struct cval eval(struct run *r, struct frame *f, CXCursor c)
{
	enum CXCursorKind k = kind(r, c);
	size_t n, nk;
	struct tok *t;
	CXCursor *ch;

	switch (k) {
	case CXCursor_IntegerLiteral:
		t = toks(r, c, &n);
		if (n)
			return num_int((long long)strtoull(t[0].s, NULL, 0));
		return clang_eval(r, c);
	case CXCursor_FloatingLiteral:
		t = toks(r, c, &n);
		if (n)
			return num_float(strtod(t[0].s, NULL));
		return clang_eval(r, c);
	case CXCursor_CharacterLiteral:
		return clang_eval(r, c);
	case CXCursor_StringLiteral: {
		struct buf b = BUF_INIT;
		struct cval v;

		t = toks(r, c, &n);
		for (size_t i = 0; i < n; i++)
			buf_adds(&b, unescape(r, t[i].s));
		memset(&v, 0, sizeof(v));
		v.kind = CV_STR;
		v.s = arena_strdup(&r->arena, b.data ? b.data : "");
		buf_release(&b);
		return v;
	}
	case CXCursor_CXXBoolLiteralExpr:
		t = toks(r, c, &n);
		return boolean(n && !strcmp(t[0].s, "true"));
	case CXCursor_UnaryOperator: {
		struct cval v;

		t = toks(r, c, &n);
		ch = kids(r, c, &nk);
		if (!n || nk != 1)
			return unknown("a value computed at run time");
		v = eval(r, f, ch[0]);
		if (!strcmp(t[0].s, "-") && v.kind == CV_NUM)
			return v.is_float ? num_float(-v.d) : num_int(-v.i);
		if (!strcmp(t[0].s, "+") && v.kind == CV_NUM)
			return v;
		if (!strcmp(t[0].s, "!") && is_number(&v))
			return boolean(v.d == 0);
		return v.kind == CV_UNKNOWN ? v : unknown("a value computed at run time");
	}
	case CXCursor_BinaryOperator:
		return binary(r, f, c);
	case CXCursor_ConditionalOperator: {
		struct cval cond;

		ch = kids(r, c, &nk);
		if (nk != 3)
			return unknown("a value computed at run time");
		cond = eval(r, f, ch[0]);
		if (!is_number(&cond))
			return cond.kind == CV_UNKNOWN ? cond : unknown("a value computed at run time");
		return eval(r, f, ch[cond.d != 0 ? 1 : 2]);
	}
	case CXCursor_ParenExpr:
	case CXCursor_UnexposedExpr:
	case CXCursor_CStyleCastExpr:
	case CXCursor_CXXFunctionalCastExpr:
	case CXCursor_CXXStaticCastExpr:
	case CXCursor_CXXConstCastExpr: {
		struct cval v;
		size_t last = SIZE_MAX;

		ch = kids(r, c, &nk);
		for (size_t i = 0; i < nk; i++)
			if (r->api->isExpression(kind(r, ch[i])))
				last = i;
		if (last == SIZE_MAX) {
			if (k == CXCursor_UnexposedExpr && ntoks(r, c) > 0) {
				/* an initializer list libclang did not type ("{1, 2}" passed to a template) */
				t = toks(r, c, &n);
				if (n >= 2 && !strcmp(t[0].s, "{") && !strcmp(t[n - 1].s, "}") && n == 2)
					return list_of(r, 0);
				return clang_eval(r, c);
			}
			return unknown("a default argument");
		}
		v = eval(r, f, ch[last]);
		if (k != CXCursor_ParenExpr && k != CXCursor_UnexposedExpr)
			v = cast_to(v, type_of(r, c));
		return v;
	}
	case CXCursor_InitListExpr: {
		struct cval v;

		ch = kids(r, c, &nk);
		v = list_of(r, nk);
		for (size_t i = 0; i < nk; i++)
			v.items[i] = eval(r, f, ch[i]);
		return v;
	}
	case CXCursor_DeclRefExpr: {
		const char *name = spelling(r, c);
		struct cval *b = lookup(f, name);
		CXCursor ref;
		enum CXCursorKind rk;

		if (b)
			return *b;
		ref = r->api->getCursorReferenced(c);
		rk = kind(r, ref);
		if (rk == CXCursor_EnumConstantDecl) {
			struct cval v;

			memset(&v, 0, sizeof(v));
			v.kind = CV_SYM;
			v.s = name;
			return v;
		}
		if (rk == CXCursor_VarDecl && f->depth < MAX_DEPTH) {
			/* a constant of the file or of a namespace: its initializer, in a frame of its own */
			struct frame g;
			size_t last = SIZE_MAX;

			ch = kids(r, ref, &nk);
			for (size_t i = 0; i < nk; i++)
				if (r->api->isExpression(kind(r, ch[i])))
					last = i;
			if (last == SIZE_MAX)
				return unknown("a variable without an initializer");
			memset(&g, 0, sizeof(g));
			g.depth = f->depth + 1;
			return eval(r, &g, ch[last]);
		}
		if (r->api->Cursor_isNull(ref) || (rk >= CXCursor_FirstInvalid && rk <= CXCursor_LastInvalid))
			return unknown("a name declared in a header the harvester does not have");
		return clang_eval(r, c);
	}
	case CXCursor_MemberRefExpr: {
		struct cval base;

		ch = kids(r, c, &nk);
		if (!nk)
			return unknown("a member of the test fixture");
		base = eval(r, f, ch[0]);
		t = toks(r, c, &n);
		return field(r, ch[0], &base, n ? t[n - 1].s : spelling(r, c));
	}
	case CXCursor_ArraySubscriptExpr: {
		struct cval base, idx;

		ch = kids(r, c, &nk);
		if (nk != 2)
			return unknown("a value computed at run time");
		base = eval(r, f, ch[0]);
		idx = eval(r, f, ch[1]);
		if (base.kind == CV_LIST && idx.kind == CV_NUM && !idx.is_float && idx.i >= 0 && (size_t)idx.i < base.n)
			return base.items[idx.i];
		return base.kind == CV_UNKNOWN ? base : idx.kind == CV_UNKNOWN ? idx :
		       unknown("a value computed at run time");
	}
	case CXCursor_LambdaExpr: {
		struct cval v;

		memset(&v, 0, sizeof(v));
		v.kind = CV_CLOSURE;
		v.cur = c;
		v.env = f;
		return v;
	}
	case CXCursor_CallExpr:
		return call(r, f, c, 0);
	case CXCursor_CXXNullPtrLiteralExpr:
		return unknown("a null pointer");
	default:
		return clang_eval(r, c);
	}
}

/* --- calls -------------------------------------------------------------------------------------- */

static const char *const converters[] = {
	"ToFloat16", "FloatsToMLFloat16s", "MakeMLFloat16", "FloatsToBFloat16s", "MakeBFloat16", "ToBFloat16",
	"AsSpan", "make_span", "MLFloat16", "BFloat16", "basic_string", "initializer_list", "string", "move",
	"Float8E4M3FN", "Float8E5M2", "Float8E4M3FNUZ", "Float8E5M2FNUZ", "c_str",
};

static int is_converter(const char *name)
{
	for (size_t i = 0; i < sizeof(converters) / sizeof(converters[0]); i++)
		if (!strcmp(name, converters[i]))
			return 1;
	return 0;
}

/* Run a function (or lambda) body with its parameters bound to the call's arguments. */
static struct cval invoke(struct run *r, struct frame *f, CXCursor fn, CXCursor *args, size_t nargs,
			  const struct callee *ce, struct frame *up)
{
	struct frame g;
	size_t nk, pi = 0, ti = 0;
	CXCursor *k = kids(r, fn, &nk), body;
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
						v.s = type_text(r, f, ce->targs + start, j - start);
						break;
					}
					idx++;
					start = j + 1;
				}
			if (v.s) {
				struct binding *b = arena_alloc(&r->arena, sizeof(*b));

				b->name = spelling(r, k[i]);
				b->v = v;
				b->next = g.types;
				g.types = b;
			}
			ti++;
		} else if (kk == CXCursor_ParmDecl) {
			struct cval v;

			if (pi < nargs) {
				v = eval(r, f, args[pi]);
			} else {
				/* the default: the ParmDecl's initializer */
				size_t nd, last = SIZE_MAX;
				CXCursor *d = kids(r, k[i], &nd);

				for (size_t j = 0; j < nd; j++)
					if (r->api->isExpression(kind(r, d[j])))
						last = j;
				v = last == SIZE_MAX ? unknown("a missing argument") : eval(r, &g, d[last]);
			}
			bind(r, &g, spelling(r, k[i]), v);
			pi++;
		} else if (kk == CXCursor_CompoundStmt) {
			body = k[i];
			has_body = 1;
		}
	}
	if (!has_body)
		return unknown("a function without a body in the file");
	exec(r, &g, body);
	return g.ret;
}

static struct cval *lvalue(struct run *r, struct frame *f, CXCursor c)
{
	c = strip(r, c);
	if (kind(r, c) == CXCursor_DeclRefExpr)
		return lookup(f, spelling(r, c));
	return NULL;
}

static int tester_method(struct run *r, struct frame *f, struct tester *t, CXCursor c, const struct callee *ce);

/* A call: a member function of a tester or of a list, a helper of the file, a lambda, a
 * constructor or converter. as_stmt: the value is not used. */
static struct cval call(struct run *r, struct frame *f, CXCursor c, int as_stmt)
{
	struct callee ce;
	size_t nargs, nk;
	CXCursor *args = call_args(r, c, &nargs), *k = kids(r, c, &nk);
	CXCursor ref = r->api->getCursorReferenced(c);
	enum CXCursorKind rk = kind(r, ref);
	struct cval *obj = NULL;

	callee_of(r, c, &ce);
	if (!strncmp(spelling(r, c), "operator", 8)) {
		/* an overloaded operator of a library type: its operands are the first and last arguments */
		const char *op = spelling(r, c) + 8;
		struct cval a, b;

		if (nargs < 2)
			return unknown("a value computed at run time");
		if (!strcmp(op, "=") && as_stmt) {
			struct cval *lv = lvalue(r, f, args[0]);

			if (lv)
				*lv = r->loop ? unknown("a value computed in a loop") : eval(r, f, args[nargs - 1]);
			return unknown("an assignment");
		}
		a = eval(r, f, args[0]);
		b = eval(r, f, args[nargs - 1]);
		if (!strcmp(op, "[]")) {
			if (a.kind == CV_LIST && b.kind == CV_NUM && !b.is_float && b.i >= 0 && (size_t)b.i < a.n)
				return a.items[b.i];
			return a.kind == CV_UNKNOWN ? a : b.kind == CV_UNKNOWN ? b :
			       unknown("a value computed at run time");
		}
		if ((!strcmp(op, "==") || !strcmp(op, "!=")) && a.kind == CV_STR && b.kind == CV_STR)
			return boolean(!strcmp(a.s, b.s) == !strcmp(op, "=="));
		if (as_stmt) {
			struct cval *lv = lvalue(r, f, args[0]);

			if (lv)
				*lv = unknown("a value computed at run time");
		}
		return unknown("a value computed at run time");
	}
	if (nk && kind(r, k[0]) == CXCursor_MemberRefExpr && has_callee(r, c, k, nk)) {
		size_t nb;
		CXCursor *b = kids(r, k[0], &nb);

		if (nb && (obj = lvalue(r, f, b[0])) == NULL) {
			struct cval bv = eval(r, f, b[0]);

			if (bv.kind == CV_TESTER) {
				obj = arena_alloc(&r->arena, sizeof(*obj));
				*obj = bv;
			} else if (bv.kind == CV_LIST || bv.kind == CV_STR) {
				obj = arena_alloc(&r->arena, sizeof(*obj));
				*obj = bv;
			}
		}
	}
	if (obj && obj->kind == CV_TESTER) {
		tester_method(r, f, obj->t, c, &ce);
		return *obj;
	}
	if (obj && (obj->kind == CV_LIST || obj->kind == CV_STR || obj->kind == CV_UNKNOWN)) {
		if (!strcmp(ce.name, "size"))
			return obj->kind == CV_LIST ? num_int((long long)obj->n) : obj->kind == CV_STR ?
			       num_int((long long)strlen(obj->s)) : *obj;
		if (!strcmp(ce.name, "empty"))
			return obj->kind == CV_LIST ? boolean(!obj->n) : obj->kind == CV_STR ? boolean(!*obj->s) : *obj;
		if (!strcmp(ce.name, "c_str") || !strcmp(ce.name, "data"))
			return *obj;
		if ((!strcmp(ce.name, "push_back") || !strcmp(ce.name, "emplace_back")) && nargs == 1) {
			struct cval v = eval(r, f, args[0]), l;

			if (obj->kind != CV_LIST)
				return *obj;
			if (r->loop) {
				*obj = unknown("a vector filled in a loop");
				return *obj;
			}
			l = list_of(r, obj->n + 1);
			if (obj->n)
				memcpy(l.items, obj->items, obj->n * sizeof(*l.items));
			l.items[obj->n] = v;
			l.ctype = obj->ctype;
			*obj = l;
			return *obj;
		}
		if (!strcmp(ce.name, "front") && obj->kind == CV_LIST && obj->n)
			return obj->items[0];
		if (!strcmp(ce.name, "back") && obj->kind == CV_LIST && obj->n)
			return obj->items[obj->n - 1];
		if (as_stmt) {
			*obj = unknown("a vector changed after its declaration");
			return *obj;
		}
	}
	if (strstr(ce.name, "andom") || strstr(ce.name, "rand"))
		return unknown("random data");
	if (!strcmp(ce.name, "infinity") || !strcmp(ce.name, "quiet_NaN") || !strcmp(ce.name, "max") ||
	    !strcmp(ce.name, "min") || !strcmp(ce.name, "lowest") || !strcmp(ce.name, "epsilon"))
		return numeric_limit(r, f, c);
	{
		/* a lambda held in a variable */
		struct cval *cl = lookup(f, ce.name);

		if (cl && cl->kind == CV_CLOSURE)
			return invoke(r, f, cl->cur, args, nargs, NULL, cl->env);
	}
	if ((rk == CXCursor_FunctionDecl || rk == CXCursor_FunctionTemplate) && !is_converter(ce.name)) {
		CXCursor def = r->api->getSpecializedCursorTemplate(ref);
		CXSourceLocation loc;

		/* an instantiation of a function template: the template, whose body is the one written */
		if (r->api->Cursor_isNull(def) || kind(r, def) >= CXCursor_FirstInvalid)
			def = ref;
		def = r->api->getCursorDefinition(def);
		if (r->api->Cursor_isNull(def) || kind(r, def) >= CXCursor_FirstInvalid)
			def = ref;
		loc = r->api->getCursorLocation(def);
		if (!r->api->Location_isInSystemHeader(loc) && r->api->isCursorDefinition(def))
			return invoke(r, f, def, args, nargs, &ce, NULL);
		return unknown("a value computed by a call");
	}
	if (kind(r, ref) == CXCursor_OverloadedDeclRef || (r->api->Cursor_isNull(ref) && *ce.name && !obj)) {
		/* a call of a function template in a dependent context: find it by name among the children
		 * of the translation unit is too costly; the overloaded reference names it */
		size_t nc;
		CXCursor *cc = kids(r, c, &nc);

		for (size_t i = 0; i < nc; i++) {
			CXCursor rr = r->api->getCursorReferenced(cc[i]);

			if (kind(r, cc[i]) == CXCursor_DeclRefExpr &&
			    (kind(r, rr) == CXCursor_FunctionTemplate || kind(r, rr) == CXCursor_FunctionDecl) &&
			    r->api->isCursorDefinition(rr) &&
			    !r->api->Location_isInSystemHeader(r->api->getCursorLocation(rr)))
				return invoke(r, f, rr, args, nargs, &ce, NULL);
		}
	}
	/* constructors and converters: the value of their one argument, or a fill constructor */
	if (nargs == 1 && (is_converter(ce.name) || rk == CXCursor_Constructor || !strcmp(ce.name, "vector") ||
			   !strcmp(spelling(r, c), "vector")))
		return eval(r, f, args[0]);
	if (nargs == 0 && (!strcmp(ce.name, "vector") || !strcmp(spelling(r, c), "vector")))
		return list_of(r, 0);
	if (nargs == 2 && (!strcmp(ce.name, "vector") || !strcmp(spelling(r, c), "vector"))) {
		struct cval cnt = eval(r, f, args[0]), v = eval(r, f, args[1]), l;

		if (cnt.kind == CV_NUM && !cnt.is_float && cnt.i >= 0 && cnt.i <= MAX_FILL && v.kind != CV_LIST &&
		    v.kind != CV_UNKNOWN) {
			l = list_of(r, (size_t)cnt.i);
			for (long long i = 0; i < cnt.i; i++)
				l.items[i] = v;
			return l;
		}
		return cnt.kind == CV_UNKNOWN ? cnt : unknown("a value computed at run time");
	}
	if (rk == CXCursor_Constructor && nargs == 0)
		return list_of(r, 0);
	return unknown("a value computed by a call");
}

/* --- statements --------------------------------------------------------------------------------- */

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
static void gap_runs(struct run *r, struct frame *f, const struct tok *t, size_t from, size_t to)
{
	for (size_t i = from; i + 3 < to; i++) {
		struct cval *v;
		int failure = 0;
		const char *msg = "";
		size_t j, depth = 0;

		if (t[i].kind != CXToken_Identifier || strcmp(t[i + 1].s, ".") ||
		    (strcmp(t[i + 2].s, "Run") && strcmp(t[i + 2].s, "RunWithConfig")) || strcmp(t[i + 3].s, "("))
			continue;
		if (!(v = lookup(f, t[i].s)) || v->kind != CV_TESTER)
			continue;
		for (j = i + 3; j < to; j++) {
			depth += !strcmp(t[j].s, "(") - !strcmp(t[j].s, ")");
			if (!strcmp(t[j].s, "kExpectFailure"))
				failure = 1;
			else if (failure && !*msg && t[j].kind == CXToken_Literal && t[j].s[0] == '"')
				msg = unescape(r, t[j].s);
			if (!depth)
				break;
		}
		count(r, "Runs read from tokens (a call libclang could not resolve)", 1);
		tester_run(r, f, v->t, failure, msg);
		i = j;
	}
}

static struct tester *tester_new(struct run *r, struct frame *f, CXCursor ctor, unsigned line)
{
	struct tester *t = arena_alloc(&r->arena, sizeof(*t));
	size_t nargs;
	CXCursor *a = call_args(r, ctor, &nargs);

	t->line = line;
	t->op = nargs > 0 ? eval(r, f, a[0]) : unknown("no operator name");
	t->opset = nargs > 1 ? eval(r, f, a[1]) : num_int(7);       /* OpTester's default */
	t->domain = nargs > 2 ? eval(r, f, a[2]) : (struct cval){ .kind = CV_STR, .s = "" };
	if (r->loop)
		t->taint = "a tester built in a loop";
	count(r, "testers reached from a TEST", 1);
	return t;
}

static void port_add(struct run *r, struct port **v, size_t *n, size_t *cap, const struct port *p)
{
	if (*n == *cap) {
		size_t ncap = *cap ? 2 * *cap : 4;
		struct port *nv = arena_alloc(&r->arena, ncap * sizeof(*nv));

		if (*n)
			memcpy(nv, *v, *n * sizeof(*nv));
		*v = nv;
		*cap = ncap;
	}
	(*v)[(*n)++] = *p;
}

static int tester_method(struct run *r, struct frame *f, struct tester *t, CXCursor c, const struct callee *ce)
{
	size_t nargs;
	CXCursor *a = call_args(r, c, &nargs);
	const char *m = ce->name;
	const char *ctype = ce->ntargs ? type_text(r, f, ce->targs, ce->ntargs) : NULL;

	if (!strcmp(m, "AddInput") || !strcmp(m, "AddOutput")) {
		struct port p;

		memset(&p, 0, sizeof(p));
		p.line = line_of(r, c);
		if (nargs < 3) {
			t->taint = "an input or output given other than as name, dims and values";
			return 0;
		}
		p.dims = eval(r, f, a[1]);
		p.values = eval(r, f, a[2]);
		p.ctype = ctype ? ctype : p.values.ctype;
		if (!p.ctype) {
			/* no template argument written: the element type of the values' declared type */
			const char *vt = type_of(r, a[2]), *lt = strchr(vt, '<');

			p.ctype = lt ? arena_strndup(&r->arena, lt + 1, strcspn(lt + 1, ">")) : "";
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
		p.line = line_of(r, c);
		if (m[11] == 'I')
			port_add(r, &t->in, &t->nin, &t->incap, &p);
		else
			port_add(r, &t->out, &t->nout, &t->outcap, &p);
	} else if (!strcmp(m, "AddAttribute")) {
		if (nargs < 2)
			return 0;
		if (t->np == t->pcap) {
			size_t ncap = t->pcap ? 2 * t->pcap : 8;
			const char **nn = arena_alloc(&r->arena, ncap * sizeof(*nn));
			const char **nt = arena_alloc(&r->arena, ncap * sizeof(*nt));
			struct cval *nv = arena_alloc(&r->arena, ncap * sizeof(*nv));

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
			struct cval name = eval(r, f, a[0]);

			if (name.kind != CV_STR) {
				t->taint = "an attribute whose name is computed";
				return 0;
			}
			t->pnames[t->np] = name.s;
		}
		t->pvals[t->np] = eval(r, f, a[1]);
		t->ptypes[t->np] = ctype ? ctype : type_of(r, strip(r, a[1]));
		t->np++;
	} else if (!strcmp(m, "Run") || !strcmp(m, "RunWithConfig")) {
		int failure = 0;
		const char *msg = "";

		if (nargs >= 1) {
			struct cval er = eval(r, f, a[0]);
			size_t nt;
			struct tok *tk = toks(r, a[0], &nt);

			failure = er.kind == CV_SYM ? !strcmp(er.s, "kExpectFailure") :
				  nt && !strcmp(tk[nt - 1].s, "kExpectFailure");
			if (nargs >= 2) {
				struct cval mv = eval(r, f, a[1]);

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

static void exec_decl(struct run *r, struct frame *f, CXCursor var)
{
	const char *name = spelling(r, var), *type = type_of(r, var);
	size_t nk, last = SIZE_MAX;
	CXCursor *k = kids(r, var, &nk);
	struct cval v;

	for (size_t i = 0; i < nk; i++)
		if (r->api->isExpression(kind(r, k[i])))
			last = i;
	if (strstr(type, "OpTester") && !strchr(type, '*') && !strchr(type, '&')) {
		CXCursor ctor = last == SIZE_MAX ? var : strip(r, k[last]);

		memset(&v, 0, sizeof(v));
		v.kind = CV_TESTER;
		v.t = tester_new(r, f, ctor, line_of(r, var));
		bind(r, f, name, v);
		return;
	}
	if (last == SIZE_MAX) {
		v = strstr(type, "vector") ? list_of(r, 0) : unknown("a variable declared without a value");
	} else {
		v = eval(r, f, k[last]);
		if (r->loop && v.kind != CV_CLOSURE)
			v = unknown("a value computed in a loop");
	}
	if (v.kind == CV_LIST || v.kind == CV_NUM) {
		/* the element type it was declared with, for a tester that is not told */
		const char *lt = strstr(type, "vector<");

		if (v.kind == CV_NUM && !strchr(type, '<'))
			v = cast_to(v, type);
		if (lt && !strstr(lt + 7, "vector<"))
			v.ctype = arena_strndup(&r->arena, lt + 7, strcspn(lt + 7, ">"));
	}
	bind(r, f, name, v);
}

static void exec_loop(struct run *r, struct frame *f, CXCursor c)
{
	size_t nk;
	CXCursor *k = kids(r, c, &nk);

	count(r, "loops the harvester does not unroll", 1);
	r->loop++;
	for (size_t i = 0; i < nk; i++)
		if (kind(r, k[i]) == CXCursor_DeclStmt) {
			size_t nv;
			CXCursor *v = kids(r, k[i], &nv);

			for (size_t j = 0; j < nv; j++)
				bind(r, f, spelling(r, v[j]), unknown("a loop variable"));
		} else if (kind(r, k[i]) == CXCursor_VarDecl) {
			bind(r, f, spelling(r, k[i]), unknown("a loop variable"));
		} else if (kind(r, k[i]) == CXCursor_CompoundStmt || i == nk - 1) {
			exec(r, f, k[i]);
		}
	r->loop--;
}

static void exec_range_for(struct run *r, struct frame *f, CXCursor c)
{
	size_t nk;
	CXCursor *k = kids(r, c, &nk);
	struct cval range;

	if (nk < 3 || kind(r, k[0]) != CXCursor_VarDecl) {
		exec_loop(r, f, c);
		return;
	}
	range = eval(r, f, k[1]);
	if (range.kind != CV_LIST || range.n > MAX_ITER || r->loop) {
		r->loop++;
		bind(r, f, spelling(r, k[0]), range.kind == CV_UNKNOWN ? range : unknown("a loop variable"));
		count(r, "loops the harvester does not unroll", 1);
		exec(r, f, k[nk - 1]);
		r->loop--;
		return;
	}
	for (size_t i = 0; i < range.n && !f->returned && !r->failed; i++) {
		bind(r, f, spelling(r, k[0]), range.items[i]);
		exec(r, f, k[nk - 1]);
	}
}

static void exec_assign(struct run *r, struct frame *f, CXCursor c)
{
	size_t nk, nt;
	CXCursor *k = kids(r, c, &nk);
	struct tok *t = toks(r, c, &nt);
	struct cval *lv;

	if (nk != 2)
		return;
	lv = lvalue(r, f, k[0]);
	if (!lv)
		return;
	if (ntoks(r, k[0]) < nt && !strcmp(t[ntoks(r, k[0])].s, "=") && !r->loop)
		*lv = eval(r, f, k[1]);
	else
		*lv = unknown("a value computed at run time");
}

static void exec(struct run *r, struct frame *f, CXCursor c)
{
	enum CXCursorKind k = kind(r, c);
	size_t nk;
	CXCursor *ch;

	if (f->returned || r->failed)
		return;
	switch (k) {
	case CXCursor_CompoundStmt: {
		size_t nt, ti = 0;
		struct tok *t = toks(r, c, &nt);

		ch = kids(r, c, &nk);
		for (size_t i = 0; i < nk && !f->returned && !r->failed; i++) {
			CXSourceRange ext = r->api->getCursorExtent(ch[i]);
			unsigned start = offset_of(r, r->api->getRangeStart(ext), NULL);
			unsigned end = offset_of(r, r->api->getRangeEnd(ext), NULL);
			size_t from = ti;

			while (ti < nt && t[ti].offset < start)
				ti++;
			gap_runs(r, f, t, from, ti);
			exec(r, f, ch[i]);
			while (ti < nt && t[ti].offset < end)
				ti++;
		}
		if (!f->returned)
			gap_runs(r, f, t, ti, nt);
		return;
	}
	case CXCursor_DeclStmt:
		ch = kids(r, c, &nk);
		for (size_t i = 0; i < nk; i++)
			if (kind(r, ch[i]) == CXCursor_VarDecl)
				exec_decl(r, f, ch[i]);
		return;
	case CXCursor_IfStmt: {
		struct cval cond;

		ch = kids(r, c, &nk);
		if (nk < 2)
			return;
		cond = eval(r, f, ch[0]);
		if (is_number(&cond))
			exec(r, f, cond.d != 0 ? ch[1] : nk > 2 ? ch[2] : ch[0]);
		else if (nk > 2)
			exec(r, f, ch[2]);   /* a condition on the machine (a provider, a GPU): the portable branch */
		return;
	}
	case CXCursor_ForStmt:
	case CXCursor_WhileStmt:
	case CXCursor_DoStmt:
		exec_loop(r, f, c);
		return;
	case CXCursor_CXXForRangeStmt:
		exec_range_for(r, f, c);
		return;
	case CXCursor_ReturnStmt:
		ch = kids(r, c, &nk);
		f->ret = nk ? eval(r, f, ch[0]) : unknown("nothing returned");
		f->returned = 1;
		return;
	case CXCursor_BinaryOperator:
	case CXCursor_CompoundAssignOperator:
		exec_assign(r, f, c);
		return;
	case CXCursor_CallExpr:
		call(r, f, c, 1);
		return;
	case CXCursor_UnexposedExpr:
	case CXCursor_UnexposedStmt:
	case CXCursor_ParenExpr: {
		int calls = 0;

		ch = kids(r, c, &nk);
		for (size_t i = 0; i < nk; i++)
			calls |= kind(r, ch[i]) == CXCursor_CallExpr || kind(r, ch[i]) == CXCursor_UnexposedExpr ||
				 kind(r, ch[i]) == CXCursor_BinaryOperator;
		if (!calls && nk) {
			/* a call libclang could not resolve, kept as the pieces of an invalid expression */
			size_t nt;
			struct tok *t = toks(r, c, &nt);

			gap_runs(r, f, t, 0, nt);
			return;
		}
		for (size_t i = 0; i < nk; i++)
			exec(r, f, ch[i]);
		return;
	}
	default:
		return;
	}
}

/* --- files -------------------------------------------------------------------------------------- */

static int has_suffix(const char *s, const char *suf)
{
	size_t n = strlen(s), m = strlen(suf);

	return n >= m && !strcmp(s + n - m, suf);
}

static int is_cpp(const char *name, int headers)
{
	static const char *const src[] = { ".cc", ".cpp", ".cxx" }, *const hdr[] = { ".h", ".hpp", ".inc" };

	for (size_t i = 0; i < 3; i++)
		if (has_suffix(name, src[i]) || (headers && has_suffix(name, hdr[i])))
			return 1;
	return 0;
}

struct flist {
	char **v;
	size_t n, cap;
};

static int walk(struct flist *l, const char *path, int top, int headers, struct err *e)
{
	struct stat st;
	DIR *d;
	struct dirent *de;

	if (stat(path, &st) < 0)
		return err_errno(e, EXIT_INPUT, "cannot read '%s'", path);
	if (!S_ISDIR(st.st_mode)) {
		if (top || is_cpp(path, headers)) {
			XGROW(l->v, l->cap, l->n + 1);
			l->v[l->n++] = xstrdup(path);
		}
		return 0;
	}
	if (!(d = opendir(path)))
		return err_errno(e, EXIT_INPUT, "cannot read '%s'", path);
	while ((de = readdir(d))) {
		char *sub;
		int rc;

		if (de->d_name[0] == '.')
			continue;
		sub = xasprintf("%s/%s", path, de->d_name);
		rc = walk(l, sub, 0, headers, e);
		free(sub);
		if (rc < 0) {
			closedir(d);
			return -1;
		}
	}
	closedir(d);
	return 0;
}

static int str_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

int cpp_files(const char *const *paths, size_t n, int headers, char ***files, size_t *nfiles, struct err *e)
{
	struct flist l = { NULL, 0, 0 };

	for (size_t i = 0; i < n; i++)
		if (walk(&l, paths[i], 1, headers, e) < 0) {
			for (size_t j = 0; j < l.n; j++)
				free(l.v[j]);
			free(l.v);
			return -1;
		}
	if (l.n)
		qsort(l.v, l.n, sizeof(*l.v), str_cmp);
	*files = l.v;
	*nfiles = l.n;
	return 0;
}

/* The checkout a file is in: its top directory (the one holding .git) and HEAD's commit, read from
 * the git directory's files rather than by running git. */
static void git_of(struct run *r, const char *path, const char **top, const char **commit)
{
	char *abs = fs_abspath(path), *p;
	struct buf head = BUF_INIT;
	struct err e = ERR_INIT;

	*top = NULL;
	*commit = NULL;
	while ((p = strrchr(abs, '/'))) {
		char *git;

		*p = 0;
		git = xasprintf("%s/.git/HEAD", *abs ? abs : "");
		if (fs_exists(git)) {
			*top = arena_strdup(&r->arena, abs);
			if (fs_read(git, &head, &e) == 0 && head.len >= 40) {
				if (!strncmp(head.data, "ref: ", 5)) {
					char *ref = xasprintf("%s/.git/%.*s", abs, (int)strcspn(head.data + 5, "\n"),
							      head.data + 5);
					struct buf h = BUF_INIT;

					if (fs_read(ref, &h, &e) == 0 && h.len >= 40)
						*commit = arena_strndup(&r->arena, h.data, 40);
					else {
						/* a packed ref */
						char *packed = xasprintf("%s/.git/packed-refs", abs);
						struct buf pk = BUF_INIT;
						const char *name = ref + strlen(abs) + 6, *hit;

						err_release(&e);
						if (fs_read(packed, &pk, &e) == 0 && (hit = strstr(pk.data, name)) &&
						    hit - pk.data >= 41)
							*commit = arena_strndup(&r->arena, hit - 41, 40);
						buf_release(&pk);
						free(packed);
					}
					buf_release(&h);
					free(ref);
				} else {
					*commit = arena_strndup(&r->arena, head.data, 40);
				}
			}
			free(git);
			break;
		}
		free(git);
	}
	err_release(&e);
	buf_release(&head);
	free(abs);
}

/* libclang's arguments for one file: its compile command when the database has one, else C++17
 * with ferry's header, the file's own directory and the user's -I and -D. */
static char **parse_args(struct run *r, CXCompilationDatabase db, const char *file, const char *stub,
			 int *nargs, int *with_stub)
{
	char **v = arena_alloc(&r->arena, (r->o->nincludes + r->o->ndefines + 16) * sizeof(*v));
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

			v = arena_alloc(&r->arena, (na + r->o->nincludes + r->o->ndefines + 8) * sizeof(*v));
			/* the compiler (first) and the source, output and -c arguments are libclang's own business */
			for (unsigned i = 1; i < na; i++) {
				const char *a = str(r, r->api->CompileCommand_getArg(cmd, i));

				if (!strcmp(a, "-o") || !strcmp(a, "-MF") || !strcmp(a, "-MT") || !strcmp(a, "-MQ")) {
					i++;
					continue;
				}
				if (!strcmp(a, "-c") || has_suffix(a, file) || !strncmp(a, "-M", 2))
					continue;
				if (!strncmp(a, "-I", 2) && a[2] && a[2] != '/')
					a = arena_strdup(&r->arena, xasprintf("-I%s/%s", dir, a + 2));
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
			v[n++] = arena_strdup(&r->arena, xasprintf("-I%s", dir));
		}
		free(dir);
	}
user:
	for (size_t i = 0; i < r->o->nincludes; i++)
		v[n++] = arena_strdup(&r->arena, xasprintf("-I%s", r->o->includes[i]));
	for (size_t i = 0; i < r->o->ndefines; i++)
		v[n++] = arena_strdup(&r->arena, xasprintf("-D%s", r->o->defines[i]));
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
};

/* The test's name, "Suite.Name", from the annotation ferry's TEST macros give it; else the function's. */
static const char *test_name(struct run *r, CXCursor fn)
{
	size_t nk;
	CXCursor *k = kids(r, fn, &nk);

	for (size_t i = 0; i < nk; i++)
		if (kind(r, k[i]) == CXCursor_AnnotateAttr) {
			const char *s = spelling(r, k[i]);

			if (!strncmp(s, "ferry-test ", 11))
				return s + 11;
		}
	return spelling(r, fn);
}

static enum CXChildVisitResult find_tests(CXCursor c, CXCursor parent, CXClientData data)
{
	struct walker *w = data;
	struct run *r = w->r;
	enum CXCursorKind k = kind(r, c);
	CXSourceLocation loc = r->api->getCursorLocation(c);
	const char *s;

	(void)parent;
	if (r->api->Location_isInSystemHeader(loc))
		return CXChildVisit_Continue;
	if (k == CXCursor_Namespace || k == CXCursor_LinkageSpec || k == CXCursor_StructDecl ||
	    k == CXCursor_ClassDecl || k == CXCursor_ClassTemplate)
		return CXChildVisit_Recurse;
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
			const char **nf = arena_alloc(&r->arena, (fs->n + 1) * sizeof(*nf));

			if (fs->n)
				memcpy(nf, fs->fields, fs->n * sizeof(*nf));
			nf[fs->n++] = spelling(r, c);
			fs->fields = nf;
		}
		return CXChildVisit_Continue;
	}
	if ((k == CXCursor_FunctionDecl || k == CXCursor_CXXMethod || k == CXCursor_FunctionTemplate) &&
	    r->api->isCursorDefinition(c)) {
		s = spelling(r, c);
		if (strstr(s, "_ferry_test_") || strstr(s, "_ferry_typed_") ||
		    (!strcmp(s, "body") && strstr(spelling(r, parent), "_ferry_"))) {
			XGROW(w->tests, w->cap, w->ntests + 1);
			w->tests[w->ntests++] = c;
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
		const char *type = type_of(r, c);

		if (strstr(type, "OpTester") && !strchr(type, '*') && !strchr(type, '&'))
			w->constructions++;
	}
	return CXChildVisit_Recurse;
}

/* Parse one file and interpret its tests. */
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
	if (ec != CXError_Success || !tu) {
		char *msg = xasprintf("cannot parse '%s' with libclang (error %d): skipped", path, (int)ec);

		if (r->o->warn)
			r->o->warn(r->o->ctx, msg);
		free(msg);
		count(r, "files libclang could not parse", 1);
		return 0;
	}
	r->tu = tu;
	git_of(r, path, &top, &r->commit);
	r->file = top && !strncmp(fs_abspath(path), top, strlen(top)) ?
		  arena_strdup(&r->arena, fs_abspath(path) + strlen(top) + 1) : path;
	count(r, "files parsed", 1);
	r->api->visitChildren(r->api->getTranslationUnitCursor(tu), find_tests, &w);
	r->api->visitChildren(r->api->getTranslationUnitCursor(tu), find_constructions, &w);
	count(r, "tester constructions written", w.constructions);
	count(r, "tests read", (long)w.ntests);
	for (size_t i = 0; i < w.ntests && !r->failed; i++) {
		struct frame f;
		size_t nk;
		CXCursor *k = kids(r, w.tests[i], &nk);

		memset(&f, 0, sizeof(f));
		r->test = test_name(r, w.tests[i]);
		r->test_line = line_of(r, w.tests[i]);
		for (size_t j = 0; j < nk; j++)
			if (kind(r, k[j]) == CXCursor_CompoundStmt)
				exec(r, &f, k[j]);
	}
	if (r->failed)
		rc = -1;
	free(w.tests);
	r->api->disposeTranslationUnit(tu);
	r->tu = NULL;
	(void)with_stub;
	(void)e;
	return rc;
}

/* Write ferry's header into a scratch directory; its path in *path (the caller removes it). */
static int write_stub(char **dir, char **path, struct err *e)
{
	char tmpl[] = "/tmp/ferry-cpp-XXXXXX";
	const char *tmp = getenv("TMPDIR");
	char *d;

	if (tmp && *tmp) {
		d = xasprintf("%s/ferry-cpp-XXXXXX", tmp);
	} else {
		d = xstrdup(tmpl);
	}
	if (!mkdtemp(d)) {
		err_errno(e, EXIT_ENV, "cannot create a scratch directory '%s'", d);
		free(d);
		return -1;
	}
	*dir = d;
	*path = xasprintf("%s/ferry-stub.h", d);
	return fs_write_atomic(*path, stub_header, sizeof(stub_header) - 1, e);
}

static int harvest_files(char *const *files, size_t n, const struct cpp_opts *o, struct counts *counts,
			 int (*on_run)(struct run *, struct tester *, int, const char *, struct err *),
			 struct err *e)
{
	struct clang_api api;
	struct run r;
	CXIndex idx = NULL;
	CXCompilationDatabase db = NULL;
	char *dir = NULL, *stub = NULL;
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
	if (write_stub(&dir, &stub, e) < 0)
		goto out;
	idx = api.createIndex(0, 0);
	for (size_t i = 0; i < n; i++) {
		if (o->progress)
			o->progress(o->ctx, (long)i, (long)n, files[i]);
		if (harvest_file(&r, idx, db, files[i], stub, e) < 0)
			goto out;
		arena_release(&r.arena);
		free(r.structs);
		r.structs = NULL;
		r.nstructs = r.scap = 0;
	}
	if (o->progress)
		o->progress(o->ctx, (long)n, (long)n, "");
	rc = 0;
out:
	if (idx)
		api.disposeIndex(idx);
	if (db)
		api.CompilationDatabase_dispose(db);
	if (stub)
		unlink(stub);
	if (dir)
		rmdir(dir);
	free(stub);
	free(dir);
	arena_release(&r.arena);
	free(r.structs);
	return rc;
}

/* --- ONNX records ------------------------------------------------------------------------------- */

static const struct { const char *c, *dtype; } dtypes[] = {
	{ "float", "float32" }, { "double", "float64" }, { "MLFloat16", "float16" }, { "BFloat16", "bfloat16" },
	{ "int8_t", "int8" }, { "uint8_t", "uint8" }, { "int16_t", "int16" }, { "uint16_t", "uint16" },
	{ "int32_t", "int32" }, { "uint32_t", "uint32" }, { "int64_t", "int64" }, { "uint64_t", "uint64" },
	{ "bool", "bool" }, { "string", "string" }, { "int", "int32" }, { "int8", "int8" },
	{ "Float8E4M3FN", "float8e4m3fn" }, { "Float8E5M2", "float8e5m2" }, { "Float8E4M3FNUZ", "float8e4m3fnuz" },
	{ "Float8E5M2FNUZ", "float8e5m2fnuz" },
};

static const char *dtype_of(const char *ctype)
{
	for (size_t i = 0; ctype && i < sizeof(dtypes) / sizeof(dtypes[0]); i++)
		if (!strcmp(ctype, dtypes[i].c))
			return dtypes[i].dtype;
	return NULL;
}

static cJSON *json_number(const struct cval *v, int as_float)
{
	if (v->kind == CV_BOOL)
		return cJSON_CreateBool(v->i != 0);
	if (as_float || v->is_float) {
		if (isnan(v->d))
			return cJSON_CreateString("nan");
		if (isinf(v->d))
			return cJSON_CreateString(v->d > 0 ? "inf" : "-inf");
		return cJSON_CreateNumber(v->d);
	}
	if (v->i > (1LL << 53) || v->i < -(1LL << 53)) {
		char s[32];

		snprintf(s, sizeof(s), "%lld", v->i);
		return cJSON_CreateString(s);
	}
	return cJSON_CreateNumber((double)v->i);
}

/* An attribute as a typed value: the C++ type it was given says int, float or string. */
static cJSON *attr_json(const struct cval *v, const char *ctype, const char **why)
{
	cJSON *o = cJSON_CreateObject();
	int want_float = ctype && (strstr(ctype, "float") || strstr(ctype, "double"));
	int want_int = ctype && !want_float && type_is_int(ctype) && !strstr(ctype, "char*") &&
		       !strstr(ctype, "char *") && !strstr(ctype, "string");

	if (v->kind == CV_STR) {
		cJSON_AddStringToObject(o, "str", v->s);
	} else if (v->kind == CV_NUM || v->kind == CV_BOOL) {
		int fl = want_float || (!want_int && v->is_float);

		if (fl)
			cJSON_AddItemToObject(o, "float", json_number(v, 1));
		else
			cJSON_AddNumberToObject(o, "int", v->kind == CV_BOOL ? (double)v->i : (double)v->i);
	} else if (v->kind == CV_LIST) {
		cJSON *l = cJSON_AddArrayToObject(o, "list");
		int fl = want_float;

		for (size_t i = 0; i < v->n && !want_int; i++)
			if (v->items[i].kind == CV_NUM && v->items[i].is_float)
				fl = 1;
		for (size_t i = 0; i < v->n; i++) {
			const struct cval *it = &v->items[i];
			cJSON *x = cJSON_CreateObject();

			if (it->kind == CV_STR)
				cJSON_AddStringToObject(x, "str", it->s);
			else if (is_number(it) && fl)
				cJSON_AddItemToObject(x, "float", json_number(it, 1));
			else if (is_number(it))
				cJSON_AddNumberToObject(x, "int", (double)it->i);
			else {
				*why = it->kind == CV_UNKNOWN ? it->s :
				       "an attribute of a kind the harvester does not map";
				cJSON_Delete(x);
				cJSON_Delete(o);
				return NULL;
			}
			cJSON_AddItemToArray(l, x);
		}
	} else {
		*why = v->kind == CV_UNKNOWN ? v->s : "a tensor or graph attribute";
		cJSON_Delete(o);
		return NULL;
	}
	return o;
}

static int essential(const char *dtype)
{
	/* integer, boolean and string inputs are indices, shapes, axes, masks: their values matter */
	return strncmp(dtype, "float", 5) && strcmp(dtype, "bfloat16");
}

/* One port as a tensor value; NULL with *why when it cannot be one. values_ok: whether to keep its
 * values (an output's expected values only when every input's values are known). */
static cJSON *port_json(const struct port *p, int is_input, int values_ok, int *has_values, const char **why)
{
	const char *dtype = dtype_of(p->ctype);
	cJSON *o, *t, *shape;
	const struct cval *u;
	size_t total = 1;

	*has_values = 0;
	if (!p->ctype) {
		o = cJSON_CreateObject();
		cJSON_AddNullToObject(o, "none");
		return o;
	}
	if (!dtype) {
		*why = (strstr(p->ctype, "Int4") || strstr(p->ctype, "int4")) ? "a packed 4-bit element type" :
		       !*p->ctype ? "an element type the harvester cannot tell" :
		       strchr(p->ctype, '<') || !strcmp(p->ctype, "T") || !strcmp(p->ctype, "TypeParam") ?
		       "an element type from a template the test instantiates elsewhere" :
		       "an element type the harvester does not map";
		return NULL;
	}
	if ((u = first_unknown(&p->dims)) || p->dims.kind != CV_LIST) {
		*why = u ? u->s : "a shape that is not a list";
		return NULL;
	}
	o = cJSON_CreateObject();
	t = cJSON_AddObjectToObject(o, "tensor");
	cJSON_AddStringToObject(t, "dtype", dtype);
	shape = cJSON_AddArrayToObject(t, "shape");
	for (size_t i = 0; i < p->dims.n; i++) {
		if (p->dims.items[i].kind != CV_NUM || p->dims.items[i].i < 0) {
			cJSON_Delete(o);
			*why = "a shape that is not a list of sizes";
			return NULL;
		}
		cJSON_AddItemToArray(shape, cJSON_CreateNumber((double)p->dims.items[i].i));
		total *= (size_t)p->dims.items[i].i;
	}
	u = first_unknown(&p->values);
	if (!u && p->values.kind == CV_LIST && p->values.n == total) {
		int fl = !strncmp(dtype, "float", 5) || !strcmp(dtype, "bfloat16");
		cJSON *vals;

		if (!values_ok)
			return o;
		vals = cJSON_AddArrayToObject(t, "values");
		for (size_t i = 0; i < total; i++) {
			const struct cval *it = &p->values.items[i];

			if (!strcmp(dtype, "string") ? it->kind != CV_STR : !is_number(it)) {
				cJSON_Delete(o);
				*why = "values of another kind than the element type";
				return NULL;
			}
			if (it->kind == CV_STR)
				cJSON_AddItemToArray(vals, cJSON_CreateString(it->s));
			else if (!strcmp(dtype, "bool"))
				cJSON_AddItemToArray(vals, cJSON_CreateBool(it->d != 0));
			else
				cJSON_AddItemToArray(vals, json_number(it, fl));
		}
		*has_values = 1;
		return o;
	}
	if (!u && p->values.kind == CV_LIST) {
		cJSON_Delete(o);
		*why = "as many values as the shape does not hold";
		return NULL;
	}
	if (is_input && essential(dtype)) {
		cJSON_Delete(o);
		*why = u ? u->s : "values that are not a list";
		return NULL;
	}
	return o;
}

static int onnx_run(struct run *r, struct tester *t, int failure, const char *msg, struct err *e)
{
	cJSON *rec = NULL, *ctx, *params, *inputs, *outputs, *src, *lines;
	const char *why = NULL, *domain = "";
	char *text = NULL;
	int all_inputs = 1, rc = 0;

	count(r, "Runs reached", 1);
	(void)msg;
	if (failure) {
		why = "an expected failure (ExpectResult::kExpectFailure)";
		goto drop;
	}
	if (t->taint) {
		why = t->taint;
		goto drop;
	}
	if (t->op.kind != CV_STR) {
		why = t->op.kind == CV_UNKNOWN ? t->op.s : "an operator name that is not a string";
		goto drop;
	}
	if (t->opset.kind != CV_NUM || t->opset.i <= 0) {
		why = t->opset.kind == CV_UNKNOWN ? t->opset.s : "opset -1 (the latest ONNX Runtime knows)";
		goto drop;
	}
	if (t->domain.kind == CV_STR)
		domain = t->domain.s;
	else if (t->domain.kind != CV_ABSENT) {
		why = "a domain the harvester cannot tell";
		goto drop;
	}
	if (*domain && strcmp(domain, "ai.onnx") && strcmp(domain, "ai.onnx.ml")) {
		why = "an operator of another domain than ONNX's (com.microsoft, ...)";
		goto drop;
	}
	rec = cJSON_CreateObject();
	cJSON_AddStringToObject(rec, "library", "onnx");
	cJSON_AddStringToObject(rec, "kind", "node");
	cJSON_AddStringToObject(rec, "op", t->op.s);
	ctx = cJSON_AddObjectToObject(rec, "context");
	cJSON_AddNumberToObject(cJSON_AddObjectToObject(ctx, "opset"), "int", (double)t->opset.i);
	if (*domain && strcmp(domain, "ai.onnx"))
		cJSON_AddStringToObject(cJSON_AddObjectToObject(ctx, "domain"), "str", domain);
	params = cJSON_AddObjectToObject(rec, "params");
	for (size_t i = 0; i < t->np; i++) {
		cJSON *a = attr_json(&t->pvals[i], t->ptypes[i], &why);

		if (!a)
			goto drop;
		cJSON_DeleteItemFromObjectCaseSensitive(params, t->pnames[i]);
		cJSON_AddItemToObject(params, t->pnames[i], a);
	}
	inputs = cJSON_AddArrayToObject(rec, "inputs");
	lines = cJSON_CreateArray();
	for (size_t i = 0; i < t->nin; i++) {
		int has;
		cJSON *p = port_json(&t->in[i], 1, 1, &has, &why);

		if (!p) {
			cJSON_Delete(lines);
			goto drop;
		}
		all_inputs &= has || !t->in[i].ctype;
		cJSON_AddItemToArray(inputs, p);
		cJSON_AddItemToArray(lines, cJSON_CreateNumber(t->in[i].line));
	}
	/* trailing optional outputs are outputs the node does not have */
	while (t->nout && !t->out[t->nout - 1].ctype)
		t->nout--;
	outputs = cJSON_AddArrayToObject(rec, "outputs");
	for (size_t i = 0; i < t->nout; i++) {
		int has;
		cJSON *p = port_json(&t->out[i], 0, all_inputs, &has, &why);

		if (!p) {
			cJSON_Delete(lines);
			goto drop;
		}
		if (has)
			count(r, "instances with expected outputs", 1);
		cJSON_AddItemToArray(outputs, p);
	}
	if (all_inputs && t->nin)
		count(r, "instances with every input's values", 1);
	src = cJSON_AddObjectToObject(rec, "source");
	cJSON_AddStringToObject(src, "suite", "ort-cpp");
	cJSON_AddStringToObject(src, "test", r->test);
	cJSON_AddStringToObject(src, "file", r->file);
	cJSON_AddNumberToObject(src, "line", r->test_line);
	cJSON_AddNumberToObject(src, "tester_line", t->line);
	cJSON_AddItemToObject(src, "input_lines", lines);
	if (r->commit)
		cJSON_AddStringToObject(src, "commit", r->commit);
	if (!(text = cJSON_PrintUnformatted(rec))) {
		rc = err_set(e, EXIT_ENV, "cannot print a record");
		goto out;
	}
	rc = r->o->emit(r->o->ctx, text, strlen(text), e);
	goto out;
drop:
	not_recorded(r, why);
out:
	free(text);
	cJSON_Delete(rec);
	return rc;
}

int cpp_harvest_onnx(char *const *files, size_t n, const struct cpp_opts *o, struct err *e)
{
	return harvest_files(files, n, o, NULL, onnx_run, e);
}

static int count_run(struct run *r, struct tester *t, int failure, const char *msg, struct err *e)
{
	(void)failure;
	(void)msg;
	(void)e;
	/* a tester counts once, at its first Run */
	if (t->runs == 1 && t->op.kind == CV_STR)
		counts_add(r->counts, t->op.s, 1);
	return 0;
}

int cpp_count_onnx(struct counts *c, char *const *files, size_t n, const struct cpp_opts *o, struct err *e)
{
	return harvest_files(files, n, o, c, count_run, e);
}

int cpp_harvest_torch(char *const *files, size_t n, const struct cpp_opts *o, struct err *e)
{
	(void)files, (void)n, (void)o;
	return err_set(e, EXIT_USAGE, "not yet");
}

#else

int cpp_files(const char *const *paths, size_t n, int headers, char ***files, size_t *nfiles, struct err *e)
{
	(void)paths, (void)n, (void)headers, (void)files, (void)nfiles;
	return err_set(e, EXIT_ENV, "ferry was built without libclang (configure --without-libclang)");
}

int cpp_harvest_onnx(char *const *files, size_t n, const struct cpp_opts *o, struct err *e)
{
	(void)files, (void)n, (void)o;
	return err_set(e, EXIT_ENV, "ferry was built without libclang (configure --without-libclang)");
}

int cpp_harvest_torch(char *const *files, size_t n, const struct cpp_opts *o, struct err *e)
{
	(void)files, (void)n, (void)o;
	return err_set(e, EXIT_ENV, "ferry was built without libclang (configure --without-libclang)");
}

int cpp_count_onnx(struct counts *c, char *const *files, size_t n, const struct cpp_opts *o, struct err *e)
{
	(void)c, (void)files, (void)n, (void)o;
	return err_set(e, EXIT_ENV, "ferry was built without libclang (configure --without-libclang)");
}
#endif
