/* cpp.c: the C++ harvester (see cpp.h): libclang's syntax tree of a test file, interpreted. */
#include "cpp.h"

#include <cjson/cJSON.h>
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
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
#include "proc.h"
#include "protocol.h"
#include "xalloc.h"

int cpp_mode_parse(const char *name, enum cpp_mode *mode)
{
	if (!strcmp(name, "onnx"))
		*mode = CPP_ONNX;
	else if (!strcmp(name, "torch"))
		*mode = CPP_TORCH;
	else if (!strcmp(name, "count"))
		*mode = CPP_COUNT;
	else
		return -1;
	return 0;
}

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
	/* a typed suite's types, kept as an alias ferry finds by the suite's name */
	"#define TYPED_TEST_SUITE(s, ...) using s##_ferry_types_ = __VA_ARGS__\n"
	"#define INSTANTIATE_TEST_SUITE_P(...)\n#define GTEST_SKIP() return\n"
	"#define ORT_ENFORCE(...)\n#define ORT_THROW(...)\n#define ASSERT_TRUE(...)\n#define ASSERT_FALSE(...)\n"
	"#define EXPECT_TRUE(...)\n#define EXPECT_FALSE(...)\n#define ASSERT_EQ(...)\n#define EXPECT_EQ(...)\n"
	"#define ASSERT_NE(...)\n#define EXPECT_NE(...)\n#define ASSERT_STATUS_OK(...)\n#define ASSERT_NEAR(...)\n"
	"#define EXPECT_NEAR(...)\n#define ASSERT_THROW(...)\n#define EXPECT_THROW(...)\n#define ORT_UNU"
	"SED_PARAMETER(x)\n"
	"namespace testing { struct Test { virtual void SetUp() {} virtual ~Test() {} }; "
	"template <typename... T> struct Types {}; "
	"template <typename T> struct TestWithParam : Test { const T &GetParam() const; }; }\n"
	/* onnx's element types by their protobuf names: attributes such as Cast's "to" are written so */
	"#define ONNX_NAMESPACE onnx\n"
	"namespace onnx { enum TensorProto_DataType : int { "
#define DT(n, v) "TensorProto_DataType_" #n " = " #v ", "
	DT(UNDEFINED, 0) DT(FLOAT, 1) DT(UINT8, 2) DT(INT8, 3) DT(UINT16, 4) DT(INT16, 5) DT(INT32, 6) DT(INT64, 7)
	DT(STRING, 8) DT(BOOL, 9) DT(FLOAT16, 10) DT(DOUBLE, 11) DT(UINT32, 12) DT(UINT64, 13) DT(COMPLEX64, 14)
	DT(COMPLEX128, 15) DT(BFLOAT16, 16) DT(FLOAT8E4M3FN, 17) DT(FLOAT8E4M3FNUZ, 18) DT(FLOAT8E5M2, 19)
	DT(FLOAT8E5M2FNUZ, 20) DT(UINT4, 21) DT(INT4, 22) DT(FLOAT4E2M1, 23)
#undef DT
	"};\nstruct TensorProto { typedef TensorProto_DataType DataType; "
#define DT(n) "static constexpr DataType " #n " = TensorProto_DataType_" #n "; "
	DT(UNDEFINED) DT(FLOAT) DT(UINT8) DT(INT8) DT(UINT16) DT(INT16) DT(INT32) DT(INT64) DT(STRING) DT(BOOL)
	DT(FLOAT16) DT(DOUBLE) DT(UINT32) DT(UINT64) DT(COMPLEX64) DT(COMPLEX128) DT(BFLOAT16) DT(FLOAT8E4M3FN)
	DT(FLOAT8E4M3FNUZ) DT(FLOAT8E5M2) DT(FLOAT8E5M2FNUZ) DT(UINT4) DT(INT4) DT(FLOAT4E2M1)
#undef DT
	"}; }\n"
	"namespace gsl { template <typename T, typename U> constexpr T narrow(U); "
	"template <typename T, typename U> constexpr T narrow_cast(U); }\n"
	"namespace onnxruntime {\nusing namespace onnx;\ntemplate <typename T, typename U> constexpr T narrow(U);\n"
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
	"namespace utils { template <typename T> constexpr int32_t ToTensorProtoElementType(); }\n"
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
	/* the form with a pointer and a count (bool data, which std::vector<bool> cannot hold) */
	"  template <typename T> void AddInput(const char *, std::vector<int64_t>, const T *, size_t, bool "
	"= false, const std::vector<std::string> * = nullptr);\n"
	"  template <typename T> void AddOutput(const char *, std::vector<int64_t>, const T *, size_t, bool "
	"= false, float = 0, float = 0);\n"
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

/* s, a string the caller owns (xasprintf's), moved into the arena. */
static char *arena_take(struct arena *a, char *s)
{
	char *copy = arena_strdup(a, s);

	free(s);
	return copy;
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
static int has_suffix(const char *s, const char *suf);
static const char *dtype_of(const char *ctype);
static int is_make_tester(struct run *r, CXCursor c);
static struct tester *tester_new(struct run *r, struct frame *f, CXCursor ctor, unsigned line);
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
	if (v.kind == CV_SYM && v.is_enum && type_is_int(type))
		return num_int(v.i);
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
		if (k != CXCursor_ParenExpr && k != CXCursor_UnexposedExpr) {
			const char *ty = type_of(r, c);

			/* int64_t{0}: a scalar written in braces is the scalar, not a list of one */
			if (v.kind == CV_LIST && v.n == 1 && !strchr(ty, '<') && !strchr(ty, '['))
				v = v.items[0];
			v = cast_to(v, ty);
		}
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
		if (!nk) {
			struct cval *b = lookup(f, spelling(r, c));

			return b ? *b : unknown("a member of the test fixture");
		}
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
	case CXCursor_CXXNullPtrLiteralExpr: {
		struct cval v;

		memset(&v, 0, sizeof(v));
		v.kind = CV_ABSENT;
		return v;
	}
	default:
		return clang_eval(r, c);
	}
}

/* --- calls -------------------------------------------------------------------------------------- */

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
	struct tok *t = toks(r, k[parm], &nt);
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
		if (type_param(g, tp))
			continue;
		for (m = 0; m < n; m++)
			if (!strcmp(t[m].s, "const") || !strcmp(t[m].s, "&") || !strcmp(t[m].s, "&&"))
				continue;
			else if (cnt++, !strcmp(t[m].s, tp) && first == SIZE_MAX)
				first = m;
		if (first == SIZE_MAX)
			continue;
		at = type_of(r, strip(r, arg));
		if (!strncmp(at, "const ", 6))
			at += 6;
		if (cnt > 1) {
			/* vector<T>, initializer_list<T>: the argument's element type */
			const char *lt = strchr(at, '<');

			if (!lt || !(strstr(at, "vector<") || strstr(at, "initializer_list<")))
				continue;
			a = arena_strndup(&r->arena, lt + 1, strcspn(lt + 1, ",>"));
		} else {
			a = arena_strndup(&r->arena, at, strcspn(at, "&"));
			for (size_t e = strlen(a); e && a[e - 1] == ' ';)
				a[--e] = '\0';
		}
		if (!strncmp(a, "std::", 5))
			a += 5;
		if (*a && !strchr(a, '<') && !strstr(a, "dependent")) {
			struct binding *b = arena_alloc(&r->arena, sizeof(*b));

			memset(b, 0, sizeof(*b));
			b->name = tp;
			b->v.kind = CV_STR;
			b->v.s = a;
			b->next = g->types;
			g->types = b;
		}
	}
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
			if (v.s && *v.s) {
				struct binding *b = arena_alloc(&r->arena, sizeof(*b));

				b->name = spelling(r, k[i]);
				b->v = v;
				b->next = g.types;
				g.types = b;
			}
			ti++;
		} else if (kk == CXCursor_ParmDecl) {
			struct cval v;

			if (pi < nargs)
				deduce(r, &g, k, i, args[pi]);
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
	size_t nk;

	c = strip(r, c);
	if (kind(r, c) == CXCursor_CallExpr &&
	    (!strcmp(spelling(r, c), "operator->") || !strcmp(spelling(r, c), "operator*"))) {
		/* tester->AddInput(...) through a std::unique_ptr: the pointer's variable */
		CXCursor *k = kids(r, c, &nk);

		for (size_t i = nk; i-- > 0;)
			if (r->api->isExpression(kind(r, k[i])) && ntoks(r, k[i]) &&
			    strcmp(spelling(r, k[i]), spelling(r, c)))
				return lvalue(r, f, k[i]);
		return NULL;
	}
	if (kind(r, c) == CXCursor_DeclRefExpr)
		return lookup(f, spelling(r, c));
	/* a member of the TEST_F's fixture (this->test_), bound by fixture_bind */
	if (kind(r, c) == CXCursor_MemberRefExpr && (kids(r, c, &nk), !nk))
		return lookup(f, spelling(r, c));
	return NULL;
}

static int tester_method(struct run *r, struct frame *f, struct tester *t, CXCursor c, const struct callee *ce);

/* The variable an element write or an iterator reaches (x[i] = v, x.begin(), x.data(), &x[0]): the
 * first name among c's tokens that is bound to a list, or NULL. */
static struct cval *written_list(struct run *r, struct frame *f, CXCursor c)
{
	size_t n;
	struct tok *t = toks(r, c, &n);

	for (size_t i = 0; i < n; i++) {
		struct cval *v;

		if (t[i].kind != CXToken_Identifier)
			continue;
		v = lookup(f, t[i].s);
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
	struct tok *t = toks(r, arg, &n);

	for (size_t i = 0; i + 1 < n; i++)
		if ((!strcmp(t[i].s, ".") || !strcmp(t[i].s, "->")) &&
		    (!strcmp(t[i + 1].s, "begin") || !strcmp(t[i + 1].s, "data") || !strcmp(t[i + 1].s, "rbegin") ||
		     !strcmp(t[i + 1].s, "end")))
			return 1;
	return n > 1 && !strcmp(t[0].s, "&");
}

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

		if (!strcmp(op, "()") && nk) {
			/* a lambda held in a variable, called: run_test(false); the variable is the callee */
			struct cval *cl = lvalue(r, f, k[0]);

			if (cl && cl->kind == CV_CLOSURE)
				return invoke(r, f, cl->cur, args, nargs, NULL, cl->env);
		}
		if (nargs < 2)
			return unknown("a value computed at run time");
		if (!strcmp(op, "=") && as_stmt) {
			struct cval *lv = lvalue(r, f, args[0]);

			if (lv && is_make_tester(r, args[nargs - 1])) {
				memset(lv, 0, sizeof(*lv));
				lv->kind = CV_TESTER;
				lv->t = tester_new(r, f, strip(r, args[nargs - 1]), line_of(r, c));
			} else if (lv) {
				*lv = r->loop ? unknown("a value computed in a loop") : eval(r, f, args[nargs - 1]);
			} else if ((lv = written_list(r, f, args[0]))) {
				/* x[i] = v: the vector is no longer what its declaration wrote */
				*lv = unknown(r->loop ? "a vector filled in a loop" :
					      "a vector changed after its declaration");
			}
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

			if (!lv && strlen(op) >= 2 && op[strlen(op) - 1] == '=' && strcmp(op, "==") && strcmp(op, "!="))
				lv = written_list(r, f, args[0]);       /* x[i] += v */
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
	if (!strcmp(ce.name, "ToTensorProtoElementType") && ce.ntargs) {
		/* utils::ToTensorProtoElementType<T>(): onnx's number for the element type */
		static const char *const onnx_types[] = {
			"", "float32", "uint8", "int8", "uint16", "int16", "int32", "int64", "string", "bool",
			"float16", "float64", "uint32", "uint64", "", "", "bfloat16", "float8e4m3fn",
			"float8e4m3fnuz", "float8e5m2", "float8e5m2fnuz",
		};
		const char *dt = dtype_of(type_text(r, f, ce.targs, ce.ntargs));

		for (size_t i = 1; dt && i < sizeof(onnx_types) / sizeof(onnx_types[0]); i++)
			if (!strcmp(dt, onnx_types[i]))
				return num_int((long long)i);
		return unknown("an element type the harvester cannot tell");
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
	if (!obj && !is_converter(ce.name))
		/* std::fill(x.begin(), ...), std::iota, ConvertFloatToMLFloat16(x.data(), y.data(), n): what
		 * the callee writes through an iterator or pointer is no longer what the test wrote */
		for (size_t i = 0; i < nargs; i++) {
			struct cval *lv;

			if (hands_out(r, args[i]) && (lv = written_list(r, f, args[i])))
				*lv = unknown(r->loop ? "a vector filled in a loop" :
					      "a vector changed after its declaration");
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
	if (rk == CXCursor_Constructor && nargs == 0) {
		/* an empty container; any other object (a TensorProto filled by its methods) is not a list */
		const char *ty = type_of(r, c);

		if (strstr(ty, "vector") || strstr(ty, "initializer_list") || strstr(ty, "array") ||
		    strstr(ty, "basic_string"))
			return list_of(r, 0);
		return unknown("an object the harvester cannot follow (a TensorProto, a map)");
	}
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

		if (t[i].kind != CXToken_Identifier || (strcmp(t[i + 1].s, ".") && strcmp(t[i + 1].s, "->")) ||
		    (strcmp(t[i + 3].s, "(") && strcmp(t[i + 3].s, "<")) || !(v = lookup(f, t[i].s)) ||
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

/* What a declared type holds, as ONNX Runtime's tests make testers: OpTester itself, a
 * std::unique_ptr<OpTester> (std::make_unique), or a class of the file derived from OpTester. A class
 * that only has OpTester in its name (QLinearConvOpTester, a helper that makes its own) is none. */
enum tkind { TK_NONE, TK_TESTER, TK_UNIQUE, TK_SUBCLASS };

static int derives_from_tester(struct run *r, CXCursor decl, int depth)
{
	size_t nk;
	CXCursor *k;

	if (depth > 8 || r->api->Cursor_isNull(decl) || kind(r, decl) >= CXCursor_FirstInvalid)
		return 0;
	decl = r->api->getCursorDefinition(decl);
	if (r->api->Cursor_isNull(decl) || kind(r, decl) >= CXCursor_FirstInvalid)
		return 0;
	k = kids(r, decl, &nk);
	for (size_t i = 0; i < nk; i++) {
		const char *bt;

		if (kind(r, k[i]) != CXCursor_CXXBaseSpecifier)
			continue;
		bt = type_of(r, k[i]);
		if (!strcmp(bt, "OpTester") || has_suffix(bt, "::OpTester") ||
		    derives_from_tester(r, r->api->getTypeDeclaration(r->api->getCursorType(k[i])), depth + 1))
			return 1;
	}
	return 0;
}

static enum tkind tester_type(struct run *r, CXCursor var)
{
	const char *type = type_of(r, var), *lt;

	if (!strncmp(type, "const ", 6))
		type += 6;
	if (strchr(type, '*') || strchr(type, '&'))
		return TK_NONE;
	if (!strcmp(type, "OpTester") || has_suffix(type, "::OpTester"))
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
static struct tester *subclass_new(struct run *r, struct frame *f, CXCursor var, CXCursor init, unsigned line)
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
		args = call_args(r, init, &nargs);
	def = r->api->Cursor_isNull(ctor) ? ctor : r->api->getCursorDefinition(ctor);
	if (r->api->Cursor_isNull(def) || kind(r, def) != CXCursor_Constructor) {
		/* no call written (a default constructor): the class's constructor without parameters */
		k = kids(r, cls, &nk);
		for (size_t i = 0; i < nk; i++)
			if (kind(r, k[i]) == CXCursor_Constructor && r->api->isCursorDefinition(k[i])) {
				size_t np = 0, nc;
				CXCursor *c = kids(r, k[i], &nc);

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

		k = kids(r, def, &nk);
		for (size_t i = 0; i < nk; i++) {
			if (kind(r, k[i]) == CXCursor_ParmDecl) {
				struct cval v;

				if (pi < nargs) {
					v = eval(r, f, args[pi]);
				} else {
					size_t nd, last = SIZE_MAX;
					CXCursor *d = kids(r, k[i], &nd);

					for (size_t j = 0; j < nd; j++)
						if (r->api->isExpression(kind(r, d[j])))
							last = j;
					v = last == SIZE_MAX ? unknown("a missing argument") : eval(r, &g, d[last]);
				}
				bind(r, &g, spelling(r, k[i]), v);
				pi++;
			} else if (kind(r, k[i]) == CXCursor_TypeRef && i + 1 < nk &&
				   strstr(spelling(r, k[i]), "OpTester") && r->api->isExpression(kind(r, k[i + 1]))) {
				t = tester_new(r, &g, strip(r, k[i + 1]), line);
				break;
			}
		}
	}
	if (!t) {
		t = tester_new(r, f, var, line);
		t->op = unknown("a tester subclass whose operator the harvester cannot find");
	}
	k = kids(r, cls, &nk);
	for (size_t i = 0; i < nk; i++) {
		size_t nt;
		struct tok *tk;

		if (kind(r, k[i]) != CXCursor_CXXMethod || strcmp(spelling(r, k[i]), "AddNodes"))
			continue;
		tk = toks(r, k[i], &nt);
		for (size_t j = 0; j + 1 < nt; j++)
			if ((!strcmp(tk[j].s, "AddNode") || !strcmp(tk[j].s, "AddInitializedTensor")) &&
			    !strcmp(tk[j + 1].s, "(") && !t->taint)
				t->taint = "a tester subclass that adds nodes of its own (AddNodes)";
	}
	return t;
}

/* std::make_unique<OpTester>(...): the call that makes a tester a unique_ptr holds. */
static int is_make_tester(struct run *r, CXCursor c)
{
	size_t n;
	struct tok *t = toks(r, c, &n);

	for (size_t i = 0; i + 2 < n && strcmp(t[i].s, "("); i++)
		if (!strcmp(t[i].s, "make_unique") && !strcmp(t[i + 1].s, "<") && !strcmp(t[i + 2].s, "OpTester"))
			return 1;
	return 0;
}

static void exec_decl(struct run *r, struct frame *f, CXCursor var)
{
	const char *name = spelling(r, var), *type = type_of(r, var);
	size_t nk, last = SIZE_MAX;
	CXCursor *k = kids(r, var, &nk);
	struct cval v;
	enum tkind tt;

	for (size_t i = 0; i < nk; i++)
		if (r->api->isExpression(kind(r, k[i])))
			last = i;
	tt = tester_type(r, var);
	if (tt == TK_NONE && last != SIZE_MAX && is_make_tester(r, k[last]))
		tt = TK_UNIQUE;         /* auto, which libclang leaves undeduced when make_unique fails it */
	switch (tt) {
	case TK_TESTER:
		memset(&v, 0, sizeof(v));
		v.kind = CV_TESTER;
		v.t = tester_new(r, f, last == SIZE_MAX ? var : strip(r, k[last]), line_of(r, var));
		bind(r, f, name, v);
		return;
	case TK_SUBCLASS:
		memset(&v, 0, sizeof(v));
		v.kind = CV_TESTER;
		v.t = subclass_new(r, f, var, last == SIZE_MAX ? var : strip(r, k[last]), line_of(r, var));
		bind(r, f, name, v);
		return;
	case TK_UNIQUE:
		if (last != SIZE_MAX && is_make_tester(r, k[last])) {
			memset(&v, 0, sizeof(v));
			v.kind = CV_TESTER;
			v.t = tester_new(r, f, strip(r, k[last]), line_of(r, var));
		} else {
			/* made later: an assignment of std::make_unique<OpTester> binds it */
			v = unknown("a tester the harvester cannot follow");
		}
		bind(r, f, name, v);
		return;
	case TK_NONE:
		break;
	}
	{
		/* an object of a helper class of the file (QLinearConvOpTester) whose methods make and
		 * run a tester from the object's state: not followed, but counted, once per object */
		CXCursor cls = r->api->getTypeDeclaration(r->api->getCursorType(var));
		CXCursor pat = r->api->getSpecializedCursorTemplate(cls);
		size_t nt;
		struct tok *tk;

		if (!r->api->Cursor_isNull(pat) && kind(r, pat) < CXCursor_FirstInvalid)
			cls = pat;
		if (!r->api->Cursor_isNull(cls) && kind(r, cls) < CXCursor_FirstInvalid &&
		    !r->api->Location_isInSystemHeader(r->api->getCursorLocation(cls))) {
			tk = toks(r, cls, &nt);
			for (size_t i = 0; i + 2 < nt; i++)
				if (!strcmp(tk[i].s, "OpTester") && tk[i + 1].kind == CXToken_Identifier &&
				    !strcmp(tk[i + 2].s, "(")) {
					count(r, "Runs reached", 1);
					not_recorded(r, "a tester made by a method of a helper class");
					break;
				}
		}
	}
	{
		size_t nt, at = 0, ni;
		struct tok *tk = toks(r, var, &nt), *it;

		/* an initializer libclang dropped (a call of a header it does not have) leaves an
		 * implicit default construction, not an empty vector: the tokens after the name say
		 * whether one was written, read from the block's when the declaration ends at its name */
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
		if (at + 1 < nt && (!strcmp(tk[at + 1].s, "=") || !strcmp(tk[at + 1].s, "(") ||
				    (!strcmp(tk[at + 1].s, "{") && (at + 2 >= nt || strcmp(tk[at + 2].s, "}")))) &&
		    (last == SIZE_MAX || ((it = toks(r, k[last], &ni)), ni == 1 && it[0].offset == tk[at].offset))) {
			bind(r, f, name, unknown("a value computed by a call the harvester cannot resolve"));
			return;
		}
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
	const char *op;

	if (nk != 2)
		return;
	lv = lvalue(r, f, k[0]);
	if (!lv && ntoks(r, k[0]) < nt && (kind(r, strip(r, k[0])) == CXCursor_ArraySubscriptExpr ||
					    !strcmp(spelling(r, strip(r, k[0])), "operator[]")) &&
	    strchr(t[ntoks(r, k[0])].s, '=') && strcmp(t[ntoks(r, k[0])].s, "==") &&
	    strcmp(t[ntoks(r, k[0])].s, "!=")) {
		/* x[i] = v */
		if ((lv = written_list(r, f, k[0])))
			*lv = unknown(r->loop ? "a vector filled in a loop" : "a vector changed after its declaration");
		return;
	}
	if (!lv || ntoks(r, k[0]) >= nt)
		return;
	op = t[ntoks(r, k[0])].s;
	/* a comparison or other operator written as a statement changes nothing */
	if (!strcmp(op, "=") && !r->loop)
		*lv = eval(r, f, k[1]);
	else if (!strcmp(op, "=") || (strlen(op) >= 2 && op[strlen(op) - 1] == '=' && strcmp(op, "==") &&
				      strcmp(op, "!=") && strcmp(op, "<=") && strcmp(op, ">=")))
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
		size_t nt, ti = 0, onblk = r->nblk;
		struct tok *t = toks(r, c, &nt), *oblk = r->blk;

		r->blk = t;
		r->nblk = nt;
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
		r->blk = oblk;
		r->nblk = onblk;
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
		if (cond.kind == CV_ABSENT)
			cond = boolean(0);
		else if (cond.kind == CV_LIST || cond.kind == CV_TESTER)
			cond = boolean(1);      /* if (p_perm): a pointer to a known object */
		if (is_number(&cond)) {
			if (cond.d != 0)
				exec(r, f, ch[1]);
			else if (nk > 2)
				exec(r, f, ch[2]);
		}
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

/* The first line of a small file, in the arena; NULL when it cannot be read. */
static const char *first_line(struct run *r, const char *path)
{
	struct buf b = BUF_INIT;
	struct err e = ERR_INIT;
	const char *line = NULL;

	if (fs_read(path, &b, &e) == 0 && b.len && b.len < 65536)
		line = arena_strndup(&r->arena, b.data, strcspn(b.data, "\r\n"));
	buf_release(&b);
	err_release(&e);
	return line;
}

/* The commit a ref names in a git directory: its loose file, else its line in packed-refs. */
static const char *git_ref(struct run *r, const char *gitdir, const char *ref)
{
	char *path = xasprintf("%s/%s", gitdir, ref);
	const char *c = first_line(r, path), *hit = NULL;

	free(path);
	if (!c || strlen(c) < 40) {
		path = xasprintf("%s/packed-refs", gitdir);
		{
			struct buf pk = BUF_INIT;
			struct err e = ERR_INIT;
			size_t len = strlen(ref);

			/* a line "<40 hex> refs/heads/main" */
			if (fs_read(path, &pk, &e) == 0)
				for (const char *q = pk.data; q && (q = strstr(q, ref)); q += len)
					if (q - pk.data >= 41 && q[-1] == ' ' && (q[len] == '\n' || !q[len])) {
						hit = arena_strndup(&r->arena, q - 41, 40);
						break;
					}
			buf_release(&pk);
			err_release(&e);
		}
		free(path);
		return hit;
	}
	return arena_strndup(&r->arena, c, 40);
}

/* The checkout a file is in: its top directory (the nearest holding .git: a directory, or in a
 * worktree or a submodule a file "gitdir: PATH"), HEAD's commit read from the git directory's files
 * rather than by running git, and the version its version file (vfile, at the top or above the
 * file) names. */
static void git_of(struct run *r, const char *path, const char *vfile, const char **top, const char **commit,
		   const char **version)
{
	char *abs = fs_abspath(path), *p;

	*top = *commit = *version = NULL;
	while ((p = strrchr(abs, '/'))) {
		char *dotgit, *v;
		const char *gitdir = NULL, *head;
		struct stat st;

		*p = 0;
		v = xasprintf("%s/%s", abs, vfile);
		if (!*version && vfile && fs_exists(v))
			*version = first_line(r, v);
		free(v);
		if (*top)
			continue;
		dotgit = xasprintf("%s/.git", abs);
		if (stat(dotgit, &st) == 0 && S_ISDIR(st.st_mode)) {
			gitdir = arena_strdup(&r->arena, dotgit);
		} else if (stat(dotgit, &st) == 0 && S_ISREG(st.st_mode)) {
			const char *line = first_line(r, dotgit);

			if (line && !strncmp(line, "gitdir: ", 8)) {
				char *g = line[8] == '/' ? xstrdup(line + 8) : xasprintf("%s/%s", abs, line + 8);

				gitdir = arena_strdup(&r->arena, g);
				free(g);
			}
		}
		free(dotgit);
		if (!gitdir)
			continue;
		*top = arena_strdup(&r->arena, *abs ? abs : "/");
		{
			char *hp = xasprintf("%s/HEAD", gitdir);

			head = first_line(r, hp);
			free(hp);
		}
		if (head && !strncmp(head, "ref: ", 5)) {
			/* a worktree's branches live in the common git directory its commondir names */
			char *cd = xasprintf("%s/commondir", gitdir);
			const char *common = first_line(r, cd);

			free(cd);
			*commit = git_ref(r, gitdir, head + 5);
			if (!*commit && common) {
				char *c = common[0] == '/' ? xstrdup(common) : xasprintf("%s/%s", gitdir, common);

				*commit = git_ref(r, arena_strdup(&r->arena, c), head + 5);
				free(c);
			}
		} else if (head && strlen(head) >= 40) {
			*commit = arena_strndup(&r->arena, head, 40);
		}
	}
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
					a = arena_take(&r->arena, xasprintf("-I%s/%s", dir, a + 2));
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
			v[n++] = arena_take(&r->arena, xasprintf("-I%s", dir));
		}
		free(dir);
	}
user:
	for (size_t i = 0; i < r->o->nincludes; i++)
		v[n++] = arena_take(&r->arena, xasprintf("-I%s", r->o->includes[i]));
	for (size_t i = 0; i < r->o->ndefines; i++)
		v[n++] = arena_take(&r->arena, xasprintf("-D%s", r->o->defines[i]));
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
	CXCursor *k = kids(r, fn, &nk);

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
	CXCursor *k = kids(r, fn, &nk);

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
		enum tkind tk = tester_type(r, c);

		if (tk == TK_TESTER || tk == TK_SUBCLASS)
			w->constructions++;
	} else if (kind(r, c) == CXCursor_CallExpr && !strcmp(spelling(r, c), "make_unique") &&
		   is_make_tester(r, c)) {
		w->constructions++;
	}
	return CXChildVisit_Recurse;
}

static void torch_test(struct run *r, CXCursor body);

/* A TEST_F's fixture: its fields bound in f, each to the value its constructor's initializer list or
 * its own initializer gives it (a tester made in the constructor, a list of data), so that the body
 * can use them as ONNX Runtime's fixtures do. */
static void fixture_bind(struct run *r, struct frame *f, CXCursor test)
{
	CXCursor st = r->api->getCursorSemanticParent(test), fix;
	size_t nk, nf;
	CXCursor *k = kids(r, st, &nk), *fk;

	for (size_t i = 0; i < nk; i++) {
		if (kind(r, k[i]) != CXCursor_CXXBaseSpecifier)
			continue;
		fix = r->api->getTypeDeclaration(r->api->getCursorType(k[i]));
		if (r->api->Cursor_isNull(fix) || kind(r, fix) >= CXCursor_FirstInvalid)
			continue;
		fix = r->api->getCursorDefinition(fix);
		if (r->api->Cursor_isNull(fix) || kind(r, fix) >= CXCursor_FirstInvalid)
			continue;
		fk = kids(r, fix, &nf);
		/* the fields with an initializer of their own first, then the constructor's list */
		for (size_t j = 0; j < nf; j++)
			if (kind(r, fk[j]) == CXCursor_FieldDecl && tester_type(r, fk[j]) == TK_NONE)
				exec_decl(r, f, fk[j]);
		for (size_t j = 0; j < nf; j++) {
			size_t nc;
			CXCursor *ck;

			if (kind(r, fk[j]) != CXCursor_Constructor)
				continue;
			ck = kids(r, fk[j], &nc);
			for (size_t m = 0; m + 1 < nc; m++) {
				const char *name, *type;
				struct cval v;

				if (kind(r, ck[m]) != CXCursor_MemberRef || !r->api->isExpression(kind(r, ck[m + 1])))
					continue;
				name = spelling(r, ck[m]);
				type = type_of(r, r->api->getCursorReferenced(ck[m]));
				if (tester_type(r, r->api->getCursorReferenced(ck[m])) != TK_NONE) {
					memset(&v, 0, sizeof(v));
					v.kind = CV_TESTER;
					v.t = tester_new(r, f, strip(r, ck[m + 1]), line_of(r, ck[m]));
				} else {
					v = eval(r, f, ck[m + 1]);
					if (v.kind == CV_LIST && strstr(type, "vector<"))
						v.ctype = arena_strndup(&r->arena, strstr(type, "vector<") + 7,
									strcspn(strstr(type, "vector<") + 7, ">"));
				}
				bind(r, f, name, v);
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
			types[found++] = arena_strndup(&r->arena, a, n);
			start = j + 1;
			if (p[j] == '>')
				break;
		}
	}
	return found;
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
	git_of(r, path, r->on_run ? "VERSION_NUMBER" : "version.txt", &top, &r->commit, &r->version);
	{
		char *abs = fs_abspath(path);
		size_t tl = top ? strlen(top) : 0;

		/* relative to the checkout's top; a checkout at / has its files right under it */
		if (top && !strncmp(abs, top, tl) && (abs[tl] == '/' || tl == 1))
			r->file = arena_strdup(&r->arena, abs + tl + (tl > 1));
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
	for (size_t i = 0; i < w.ntests && !r->failed; i++) {
		struct frame f;
		size_t nk;
		CXCursor *k = kids(r, w.tests[i], &nk);

		memset(&f, 0, sizeof(f));
		r->test = test_name(r, w.tests[i]);
		r->test_line = line_of(r, w.tests[i]);
		if (r->on_run && kind(r, w.tests[i]) == CXCursor_CXXMethod)
			fixture_bind(r, &f, w.tests[i]);
		if (r->on_run && kind(r, w.tests[i]) == CXCursor_FunctionTemplate) {
			/* a TYPED_TEST: its body once per type of its suite, TypeParam bound to it */
			const char *types[32];
			size_t nty;
			char *suite = xstrdup(r->test);

			suite[strcspn(suite, ".")] = '\0';
			nty = typed_types(r, &w, suite, types, 32);
			free(suite);
			for (size_t ty = 0; ty < nty && !r->failed; ty++) {
				struct binding *b = arena_alloc(&r->arena, sizeof(*b));

				memset(&f, 0, sizeof(f));
				memset(b, 0, sizeof(*b));
				b->name = "TypeParam";
				b->v.kind = CV_STR;
				b->v.s = types[ty];
				f.types = b;
				for (size_t j = 0; j < nk; j++)
					if (kind(r, k[j]) == CXCursor_CompoundStmt)
						exec(r, &f, k[j]);
			}
			if (nty)
				continue;
		}
		for (size_t j = 0; j < nk; j++)
			if (kind(r, k[j]) == CXCursor_CompoundStmt) {
				if (r->on_run)
					exec(r, &f, k[j]);
				else
					torch_test(r, k[j]);
			}
	}
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

/* Parse one file here, in this process (the child's side), and interpret its tests. */
static int harvest_here(const char *file, const char *stub, const struct cpp_opts *o, struct counts *counts,
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
	arena_release(&r.arena);
	free(r.structs);
	free(r.fns);
	return rc;
}

static int parse_files(char *const *files, size_t n, const struct cpp_opts *o, enum cpp_mode mode,
		       struct counts *counts, struct err *e);

/* --- ONNX records ------------------------------------------------------------------------------- */

static const struct { const char *c, *dtype; } dtypes[] = {
	{ "float", "float32" }, { "double", "float64" }, { "MLFloat16", "float16" }, { "BFloat16", "bfloat16" },
	{ "int8_t", "int8" }, { "uint8_t", "uint8" }, { "int16_t", "int16" }, { "uint16_t", "uint16" },
	{ "int32_t", "int32" }, { "uint32_t", "uint32" }, { "int64_t", "int64" }, { "uint64_t", "uint64" },
	{ "bool", "bool" }, { "string", "string" }, { "int", "int32" }, { "int8", "int8" },
	{ "Float8E4M3FN", "float8e4m3fn" }, { "Float8E5M2", "float8e5m2" }, { "Float8E4M3FNUZ", "float8e4m3fnuz" },
	{ "Float8E5M2FNUZ", "float8e5m2fnuz" },
	/* the builtin names a deduced type is spelled with */
	{ "signed char", "int8" }, { "unsigned char", "uint8" }, { "short", "int16" }, { "unsigned short", "uint16" },
	{ "unsigned int", "uint32" }, { "long", "int64" }, { "long long", "int64" }, { "unsigned long", "uint64" },
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
	} else if (v->kind == CV_SYM && v->is_enum) {
		cJSON_AddNumberToObject(o, "int", (double)v->i);
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
	if (r->version)
		cJSON_AddStringToObject(rec, "library_version", r->version);
	cJSON_AddStringToObject(rec, "kind", "node");
	if (*domain && strcmp(domain, "ai.onnx")) {
		/* an operator of another domain is named with it, as the ONNX template expects */
		char *q = xasprintf("%s.%s", domain, t->op.s);

		cJSON_AddStringToObject(rec, "op", q);
		free(q);
	} else {
		cJSON_AddStringToObject(rec, "op", t->op.s);
	}
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
	if (!t->nout) {
		/* every AddOutput sat in a branch the harvester could not decide (on TYPED_TEST's type) */
		cJSON_Delete(lines);
		why = "a tester without an output the harvester could follow";
		goto drop;
	}
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
	return parse_files(files, n, o, CPP_ONNX, NULL, e);
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
	return parse_files(files, n, o, CPP_COUNT, c, e);
}

/* --- libtorch: the C++ API tests, read from their tokens ----------------------------------------- */

/* libtorch's headers are not there, and its options builders (Conv2dOptions(3, 2, 3).stride(2)) call
 * setters that no header ferry could inject declares: libclang turns such expressions into invalid
 * pieces. So libclang finds the TEST bodies and gives their tokens, and a small parser here reads
 * the statements and expressions from the tokens: declarations, assignments, blocks, range-for loops
 * over literal lists (unrolled), other loops (read once, their variables unknown), ifs whose condition
 * it can tell. Tensors come from the factories (torch::tensor, ones, zeros, full, arange, linspace,
 * randn, rand, empty and their _like forms, with view, reshape and resize_); a module's call or a
 * functional's call is an instance. */

struct ttensor {
	const char *dtype;      /* "float32" */
	struct cval shape;      /* a CV_LIST of sizes, or unknown */
	struct cval values;     /* flat, row-major; unknown when not written (random, empty) */
};

struct tmod {                   /* a torch::nn module, shared by every copy of its value */
	const char *cname, *op; /* "Conv2d", "torch.nn.Conv2d" */
	const char *why;        /* why its calls cannot be instances, or NULL */
	const char **pnames;
	struct cval *pvals;
	size_t np;
	int training, called;
	const char *dtype;      /* after ->to(torch::kDouble) */
	struct tmod *next;      /* the modules of one test */
};

struct topts {                  /* an options builder: XOptions(args).a(v).b(w) */
	const char *name;       /* "Conv2d" of Conv2dOptions and of F::Conv2dFuncOptions */
	struct cval *args;
	size_t nargs;
	const char **snames;
	struct cval *svals;
	size_t ns;
};

/* A torch.nn module or functional: its C++ name and the names of the Python parameters that its
 * options' constructor arguments stand for, in order (libtorch keeps Python's order). */
struct tname {
	const char *name, *params;
};

static const struct tname tmodules[] = {
	{ "Linear", "in_features out_features" }, { "Bilinear", "in1_features in2_features out_features" },
	{ "Identity", "" }, { "Flatten", "" }, { "Unflatten", "dim unflattened_size" },
	{ "Conv1d", "in_channels out_channels kernel_size" }, { "Conv2d", "in_channels out_channels kernel_size" },
	{ "Conv3d", "in_channels out_channels kernel_size" },
	{ "ConvTranspose1d", "in_channels out_channels kernel_size" },
	{ "ConvTranspose2d", "in_channels out_channels kernel_size" },
	{ "ConvTranspose3d", "in_channels out_channels kernel_size" },
	{ "MaxPool1d", "kernel_size" }, { "MaxPool2d", "kernel_size" }, { "MaxPool3d", "kernel_size" },
	{ "AvgPool1d", "kernel_size" }, { "AvgPool2d", "kernel_size" }, { "AvgPool3d", "kernel_size" },
	{ "MaxUnpool1d", "kernel_size" }, { "MaxUnpool2d", "kernel_size" }, { "MaxUnpool3d", "kernel_size" },
	{ "FractionalMaxPool2d", "kernel_size" }, { "FractionalMaxPool3d", "kernel_size" },
	{ "LPPool1d", "norm_type kernel_size" }, { "LPPool2d", "norm_type kernel_size" },
	{ "LPPool3d", "norm_type kernel_size" },
	{ "AdaptiveMaxPool1d", "output_size" }, { "AdaptiveMaxPool2d", "output_size" },
	{ "AdaptiveMaxPool3d", "output_size" }, { "AdaptiveAvgPool1d", "output_size" },
	{ "AdaptiveAvgPool2d", "output_size" }, { "AdaptiveAvgPool3d", "output_size" },
	{ "Fold", "output_size kernel_size" }, { "Unfold", "kernel_size" },
	{ "Embedding", "num_embeddings embedding_dim" }, { "EmbeddingBag", "num_embeddings embedding_dim" },
	{ "Dropout", "p" }, { "Dropout2d", "p" }, { "Dropout3d", "p" }, { "AlphaDropout", "p" },
	{ "FeatureAlphaDropout", "p" },
	{ "BatchNorm1d", "num_features" }, { "BatchNorm2d", "num_features" }, { "BatchNorm3d", "num_features" },
	{ "InstanceNorm1d", "num_features" }, { "InstanceNorm2d", "num_features" },
	{ "InstanceNorm3d", "num_features" }, { "LayerNorm", "normalized_shape" },
	{ "GroupNorm", "num_groups num_channels" }, { "LocalResponseNorm", "size" }, { "CrossMapLRN2d", "size" },
	{ "ELU", "" }, { "CELU", "" }, { "SELU", "" }, { "GELU", "" }, { "GLU", "dim" }, { "Hardshrink", "" },
	{ "Hardtanh", "" }, { "LeakyReLU", "" }, { "LogSigmoid", "" }, { "PReLU", "" }, { "ReLU", "" },
	{ "ReLU6", "" }, { "RReLU", "" }, { "SiLU", "" }, { "Mish", "" }, { "Sigmoid", "" }, { "Softplus", "" },
	{ "Softshrink", "" }, { "Softsign", "" }, { "Tanh", "" }, { "Tanhshrink", "" },
	{ "Threshold", "threshold value" }, { "Softmax", "dim" }, { "Softmin", "dim" }, { "LogSoftmax", "dim" },
	{ "Softmax2d", "" }, { "MultiheadAttention", "embed_dim num_heads" },
	{ "ReflectionPad1d", "padding" }, { "ReflectionPad2d", "padding" }, { "ReflectionPad3d", "padding" },
	{ "ReplicationPad1d", "padding" }, { "ReplicationPad2d", "padding" }, { "ReplicationPad3d", "padding" },
	{ "ZeroPad1d", "padding" }, { "ZeroPad2d", "padding" }, { "ZeroPad3d", "padding" },
	{ "ConstantPad1d", "padding value" }, { "ConstantPad2d", "padding value" },
	{ "ConstantPad3d", "padding value" },
	{ "PixelShuffle", "upscale_factor" }, { "PixelUnshuffle", "downscale_factor" }, { "Upsample", "" },
	{ "CosineSimilarity", "" }, { "PairwiseDistance", "" },
	{ "RNN", "input_size hidden_size" }, { "LSTM", "input_size hidden_size" }, { "GRU", "input_size hidden_size" },
	{ "RNNCell", "input_size hidden_size" }, { "LSTMCell", "input_size hidden_size" },
	{ "GRUCell", "input_size hidden_size" },
	{ "TransformerEncoderLayer", "d_model nhead" }, { "TransformerDecoderLayer", "d_model nhead" },
	/* losses: an options constructor argument is the reduction */
	{ "L1Loss", "reduction" }, { "MSELoss", "reduction" }, { "BCELoss", "reduction" },
	{ "BCEWithLogitsLoss", "reduction" }, { "CrossEntropyLoss", "reduction" }, { "NLLLoss", "reduction" },
	{ "KLDivLoss", "reduction" }, { "HuberLoss", "reduction" }, { "SmoothL1Loss", "reduction" },
	{ "SoftMarginLoss", "reduction" }, { "MultiLabelMarginLoss", "reduction" },
	{ "MultiLabelSoftMarginLoss", "reduction" }, { "MultiMarginLoss", "reduction" },
	{ "HingeEmbeddingLoss", "reduction" }, { "CosineEmbeddingLoss", "reduction" },
	{ "MarginRankingLoss", "reduction" }, { "TripletMarginLoss", "reduction" },
	{ "PoissonNLLLoss", "reduction" }, { "GaussianNLLLoss", "reduction" }, { "CTCLoss", "reduction" },
};

/* libtorch's modules with no torch.nn counterpart: containers, and the modules of its first API. */
static const char *const tcpp_only[] = {
	"BatchNorm", "FeatureDropout", "Functional", "Sequential", "ModuleList", "ModuleDict", "ParameterList",
	"ParameterDict", "SimpleContainer", "AnyModule",
};

/* functionals whose options' constructor takes arguments: the Python parameters they stand for */
static const struct tname tfunctionals[] = {
	{ "max_pool1d", "kernel_size" }, { "max_pool2d", "kernel_size" }, { "max_pool3d", "kernel_size" },
	{ "avg_pool1d", "kernel_size" }, { "avg_pool2d", "kernel_size" }, { "avg_pool3d", "kernel_size" },
	{ "max_unpool1d", "kernel_size" }, { "max_unpool2d", "kernel_size" }, { "max_unpool3d", "kernel_size" },
	{ "fractional_max_pool2d", "kernel_size" }, { "fractional_max_pool3d", "kernel_size" },
	{ "lp_pool1d", "norm_type kernel_size" }, { "lp_pool2d", "norm_type kernel_size" },
	{ "lp_pool3d", "norm_type kernel_size" },
	{ "adaptive_max_pool1d", "output_size" }, { "adaptive_max_pool2d", "output_size" },
	{ "adaptive_max_pool3d", "output_size" }, { "adaptive_avg_pool1d", "output_size" },
	{ "adaptive_avg_pool2d", "output_size" }, { "adaptive_avg_pool3d", "output_size" },
	{ "fold", "output_size kernel_size" }, { "unfold", "kernel_size" },
	{ "softmax", "dim" }, { "softmin", "dim" }, { "log_softmax", "dim" }, { "glu", "dim" },
	{ "pad", "pad" }, { "threshold", "threshold value" }, { "pixel_shuffle", "upscale_factor" },
	{ "pixel_unshuffle", "downscale_factor" }, { "local_response_norm", "size" },
	{ "layer_norm", "normalized_shape" }, { "group_norm", "num_groups" }, { "pairwise_distance", "p" },
	{ "l1_loss", "reduction" }, { "mse_loss", "reduction" }, { "binary_cross_entropy", "reduction" },
	{ "binary_cross_entropy_with_logits", "reduction" }, { "cross_entropy", "reduction" },
	{ "nll_loss", "reduction" }, { "kl_div", "reduction" }, { "huber_loss", "reduction" },
	{ "smooth_l1_loss", "reduction" }, { "soft_margin_loss", "reduction" },
	{ "multilabel_margin_loss", "reduction" }, { "multilabel_soft_margin_loss", "reduction" },
	{ "multi_margin_loss", "reduction" }, { "hinge_embedding_loss", "reduction" },
	{ "cosine_embedding_loss", "reduction" }, { "margin_ranking_loss", "reduction" },
	{ "triplet_margin_loss", "reduction" }, { "poisson_nll_loss", "reduction" },
	{ "gaussian_nll_loss", "reduction" }, { "ctc_loss", "reduction" },
};

/* Options whose C++ name is not Python's keyword; and those with none. */
static const char *const trenamed[][2] = { { "lambda", "lambd" }, { "with_bias", "bias" } };
static const char *const tunmapped[] = { "stateful", "transposed", "input_channels", "output_channels" };

static const struct { const char *k, *dtype; } tdtypes[] = {
	{ "kFloat", "float32" }, { "kFloat32", "float32" }, { "kDouble", "float64" }, { "kFloat64", "float64" },
	{ "kHalf", "float16" }, { "kFloat16", "float16" }, { "kBFloat16", "bfloat16" }, { "kLong", "int64" },
	{ "kInt64", "int64" }, { "kInt", "int32" }, { "kInt32", "int32" }, { "kShort", "int16" },
	{ "kInt16", "int16" }, { "kChar", "int8" }, { "kInt8", "int8" }, { "kByte", "uint8" }, { "kUInt8", "uint8" },
	{ "kBool", "bool" },
};

static const char *tdtype_of(const char *sym)
{
	for (size_t i = 0; sym && i < sizeof(tdtypes) / sizeof(tdtypes[0]); i++)
		if (!strcmp(sym, tdtypes[i].k))
			return tdtypes[i].dtype;
	return NULL;
}

static const struct tname *tname_find(const struct tname *v, size_t n, const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(v[i].name, name))
			return &v[i];
	return NULL;
}

/* The k-th word of a table's parameter names, in the arena; NULL past the last. */
static const char *tparam_name(struct run *r, const char *params, size_t k)
{
	const char *p = params;

	for (;;) {
		size_t len;

		p += strspn(p, " ");
		if (!*p)
			return NULL;
		len = strcspn(p, " ");
		if (!k--)
			return arena_strndup(&r->arena, p, len);
		p += len;
	}
}

struct tp {                     /* the parser over one TEST body's tokens */
	struct run *r;
	const struct tok *t;
	size_t n, i;
	struct frame *f;
	struct tmod *mods;      /* the modules this test made */
	int failing;            /* inside ASSERT_THROWS_WITH and its kind: the calls are meant to fail */
};

static struct cval tx_expr(struct tp *p, int prec, struct cval **lv);
static void tx_stmt(struct tp *p);

static int tx_at(const struct tp *p, const char *s)
{
	return p->i < p->n && !strcmp(p->t[p->i].s, s);
}

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

static struct cval tx_sym(const char *s)
{
	struct cval v;

	memset(&v, 0, sizeof(v));
	v.kind = CV_SYM;
	v.s = s;
	return v;
}

static struct cval tx_tensor_val(struct run *r, const char *dtype, struct cval shape, struct cval values)
{
	struct cval v;

	memset(&v, 0, sizeof(v));
	v.kind = CV_TENSOR;
	v.tt = arena_alloc(&r->arena, sizeof(*v.tt));
	v.tt->dtype = dtype;
	v.tt->shape = shape;
	v.tt->values = values;
	return v;
}

static long long tx_numel(const struct cval *shape)
{
	long long n = 1;

	if (shape->kind != CV_LIST)
		return -1;
	for (size_t i = 0; i < shape->n; i++) {
		if (shape->items[i].kind != CV_NUM || shape->items[i].is_float || shape->items[i].i < 0)
			return -1;
		n *= shape->items[i].i;
		if (n > MAX_FILL)
			return -1;
	}
	return n;
}

/* A shape argument: a list of sizes, or one size (torch::ones(5)). */
static struct cval tx_shape(struct run *r, struct cval v)
{
	if (v.kind == CV_NUM && !v.is_float) {
		struct cval l = list_of(r, 1);

		l.items[0] = v;
		return l;
	}
	return v;
}

/* A nested literal list, flattened into *flat with its shape in *shape; 0, or -1 when ragged. */
static int tx_flatten(struct run *r, const struct cval *v, int depth, struct cval *shape, struct buf *flat)
{
	if (v->kind != CV_LIST) {
		if (depth != (int)shape->n)
			return -1;
		buf_add(flat, v, sizeof(*v));
		return 0;
	}
	if (depth == (int)shape->n) {
		struct cval l = list_of(r, shape->n + 1);

		if (shape->n)
			memcpy(l.items, shape->items, shape->n * sizeof(*l.items));
		l.items[shape->n] = num_int((long long)v->n);
		*shape = l;
	} else if (depth > (int)shape->n || shape->items[depth].i != (long long)v->n) {
		return -1;
	}
	for (size_t i = 0; i < v->n; i++)
		if (tx_flatten(r, &v->items[i], depth + 1, shape, flat) < 0)
			return -1;
	return 0;
}

/* The dtype the options arguments name (torch::kFloat, torch::dtype(torch::kLong), TensorOptions()
 * .dtype(...)), or dflt. */
static const char *tx_dtype_arg(const struct cval *args, size_t n, size_t from, const char *dflt)
{
	for (size_t i = from; i < n; i++)
		if ((args[i].kind == CV_SYM || args[i].kind == CV_TOPTS) && tdtype_of(args[i].s))
			return tdtype_of(args[i].s);
	return dflt;
}

static struct cval tx_fill(struct run *r, struct cval shape, struct cval x)
{
	long long n = tx_numel(&shape);
	struct cval l;

	if (n < 0 || n > MAX_ITER)
		return unknown("a tensor too large to write out");
	l = list_of(r, (size_t)n);
	for (long long i = 0; i < n; i++)
		l.items[i] = x;
	return l;
}

/* torch::tensor, ones, zeros, full, arange, linspace, randn, rand, empty and the _like forms. */
static struct cval tx_factory(struct tp *p, const char *base, struct cval *a, size_t n)
{
	struct run *r = p->r;
	const char *like = strstr(base, "_like");
	struct cval shape, values;
	const char *dtype = "float32", *elem;

	for (size_t i = 0; i < n; i++)
		if (a[i].kind == CV_UNKNOWN && strcmp(base, "tensor"))
			return a[i];
	if (like) {
		if (!n || a[0].kind != CV_TENSOR)
			return n ? (a[0].kind == CV_UNKNOWN ? a[0] : unknown("a tensor computed at run time")) :
			       unknown("a tensor computed at run time");
		shape = a[0].tt->shape;
		dtype = tx_dtype_arg(a, n, 1, a[0].tt->dtype);
		base = arena_strndup(&r->arena, base, (size_t)(like - base));
		if (!strcmp(base, "full"))
			return tx_tensor_val(r, dtype, shape, n > 1 ? tx_fill(r, shape, cast_to(a[1], dtype)) :
					     unknown("a missing argument"));
	} else if (!strcmp(base, "tensor")) {
		struct buf flat = BUF_INIT;
		struct cval l;
		const struct cval *u;
		int fl = 0, all_bool = 1;

		if (!n)
			return unknown("a tensor computed at run time");
		if ((u = first_unknown(&a[0])))
			return *u;
		memset(&shape, 0, sizeof(shape));
		shape = list_of(r, 0);
		if (tx_flatten(r, &a[0], 0, &shape, &flat) < 0) {
			buf_release(&flat);
			return unknown("a ragged tensor literal");
		}
		l = list_of(r, flat.len / sizeof(struct cval));
		if (l.n)
			memcpy(l.items, flat.data, flat.len);
		buf_release(&flat);
		for (size_t i = 0; i < l.n; i++) {
			if (!is_number(&l.items[i]))
				return unknown("a tensor literal of values that are not numbers");
			fl |= l.items[i].is_float;
			all_bool &= l.items[i].kind == CV_BOOL;
		}
		/* libtorch's inference: floating literals the default dtype, integers int64, bools bool */
		dtype = tx_dtype_arg(a, n, 1, fl ? "float32" : all_bool && l.n ? "bool" : "int64");
		for (size_t i = 0; i < l.n; i++)
			l.items[i] = cast_to(l.items[i], !strcmp(dtype, "bool") ? "bool" :
					     !strncmp(dtype, "float", 5) || !strcmp(dtype, "bfloat16") ? "float" :
					     "int");
		return tx_tensor_val(r, dtype, shape, l);
	} else if (!strcmp(base, "arange") || !strcmp(base, "linspace")) {
		double lo = 0, hi, step = 1;
		size_t nn = 0;
		int fl = 0;

		while (nn < n && a[nn].kind == CV_NUM)
			fl |= a[nn++].is_float;
		if (!nn)
			return unknown("a tensor computed at run time");
		dtype = tx_dtype_arg(a, n, nn, fl || base[0] == 'l' ? "float32" : "int64");
		if (base[0] == 'l') {
			long long cnt = nn >= 3 ? a[2].i : -1;

			if (nn < 3 || cnt < 0 || cnt > MAX_ITER)
				return unknown("a tensor too large to write out");
			values = list_of(r, (size_t)cnt);
			for (long long i = 0; i < cnt; i++)
				values.items[i] = num_float(cnt > 1 ? a[0].d + (a[1].d - a[0].d) * (double)i /
							    (double)(cnt - 1) : a[0].d);
		} else {
			long long cnt;

			hi = a[nn > 1 ? 1 : 0].d;
			if (nn > 1)
				lo = a[0].d;
			if (nn > 2)
				step = a[2].d;
			if (step == 0 || (cnt = (long long)ceil((hi - lo) / step)) < 0 || cnt > MAX_ITER)
				return unknown("a tensor too large to write out");
			values = list_of(r, (size_t)cnt);
			for (long long i = 0; i < cnt; i++)
				values.items[i] = num_float(lo + step * (double)i);
		}
		for (size_t i = 0; i < values.n; i++)
			values.items[i] = cast_to(values.items[i], strncmp(dtype, "float", 5) ? "int" : "float");
		shape = list_of(r, 1);
		shape.items[0] = num_int((long long)values.n);
		return tx_tensor_val(r, dtype, shape, values);
	} else {
		if (!n)
			return unknown("a tensor computed at run time");
		shape = tx_shape(r, a[0]);
		dtype = tx_dtype_arg(a, n, 1, "float32");
	}
	if (first_unknown(&shape))
		return *first_unknown(&shape);
	if (tx_numel(&shape) < 0)
		return unknown("a shape that is not a list of sizes");
	elem = strncmp(dtype, "float", 5) && strcmp(dtype, "bfloat16") ? "int" : "float";
	if (!strcmp(base, "ones") || !strcmp(base, "zeros"))
		values = tx_fill(r, shape, cast_to(num_int(base[0] == 'o'), elem));
	else if (!strcmp(base, "full"))
		values = n > 1 && is_number(&a[1]) ? tx_fill(r, shape, cast_to(a[1], elem)) :
			 unknown("a fill value computed at run time");
	else if (!strcmp(base, "empty"))
		values = unknown("an uninitialised tensor (torch::empty)");
	else
		values = unknown("random data");
	return tx_tensor_val(r, dtype, shape, values);
}

static struct cval tx_opts_new(struct run *r, const char *name, struct cval *a, size_t n)
{
	struct cval v;

	memset(&v, 0, sizeof(v));
	v.kind = CV_OPTS;
	v.to = arena_alloc(&r->arena, sizeof(*v.to));
	v.to->name = name;
	v.to->args = a;
	v.to->nargs = n;
	return v;
}

/* An options builder with one more setter: a new builder (the first may be used again). */
static struct cval tx_opts_set(struct run *r, struct cval o, const char *name, struct cval x)
{
	struct topts *t = arena_alloc(&r->arena, sizeof(*t));

	*t = *o.to;
	t->snames = arena_alloc(&r->arena, (t->ns + 1) * sizeof(*t->snames));
	t->svals = arena_alloc(&r->arena, (t->ns + 1) * sizeof(*t->svals));
	if (t->ns) {
		memcpy(t->snames, o.to->snames, t->ns * sizeof(*t->snames));
		memcpy(t->svals, o.to->svals, t->ns * sizeof(*t->svals));
	}
	t->snames[t->ns] = name;
	t->svals[t->ns++] = x;
	o.to = t;
	return o;
}

/* The Python keyword arguments of an options builder: its constructor's arguments named by params
 * (a table's), then its setters under their Python names. 0, or -1 with *why. */
static int tx_kwargs(struct run *r, const struct topts *o, const char *params, const char ***names,
		     struct cval **vals, size_t *n, const char **why)
{
	size_t cap = o->nargs + o->ns + 1, m = 0;

	*names = arena_alloc(&r->arena, cap * sizeof(**names));
	*vals = arena_alloc(&r->arena, cap * sizeof(**vals));
	for (size_t i = 0; i < o->nargs; i++) {
		const char *pn = params ? tparam_name(r, params, i) : NULL;

		if (!pn) {
			*why = "an options constructor argument the harvester cannot name";
			return -1;
		}
		(*names)[m] = pn;
		(*vals)[m++] = o->args[i];
	}
	for (size_t i = 0; i < o->ns; i++) {
		const char *pn = o->snames[i];

		for (size_t j = 0; j < sizeof(tunmapped) / sizeof(tunmapped[0]); j++)
			if (!strcmp(pn, tunmapped[j])) {
				*why = "an option with no counterpart in Python (stateful, transposed)";
				return -1;
			}
		for (size_t j = 0; j < sizeof(trenamed) / sizeof(trenamed[0]); j++)
			if (!strcmp(pn, trenamed[j][0]))
				pn = trenamed[j][1];
		/* a setter given twice: the last one counts */
		for (size_t j = 0; j < m; j++)
			if (!strcmp((*names)[j], pn)) {
				memmove(*names + j, *names + j + 1, (m - j - 1) * sizeof(**names));
				memmove(*vals + j, *vals + j + 1, (m - j - 1) * sizeof(**vals));
				m--;
				break;
			}
		(*names)[m] = pn;
		(*vals)[m++] = o->svals[i];
	}
	*n = m;
	return 0;
}

static int tx_cpp_only(const char *name)
{
	for (size_t i = 0; i < sizeof(tcpp_only) / sizeof(tcpp_only[0]); i++)
		if (!strcmp(name, tcpp_only[i]))
			return 1;
	return 0;
}

/* torch::nn::X(args): a module, its Python constructor's keyword arguments from its options. */
static struct cval tx_module(struct tp *p, const char *name, struct cval *a, size_t n)
{
	struct run *r = p->r;
	const struct tname *tn = tname_find(tmodules, sizeof(tmodules) / sizeof(tmodules[0]), name);
	struct tmod *m = arena_alloc(&r->arena, sizeof(*m));
	struct cval v;

	count(r, "module constructions read", 1);
	m->cname = name;
	m->training = 1;
	m->next = p->mods;
	p->mods = m;
	if (!tn) {
		m->why = "a C++ module with no torch.nn counterpart (a container, BatchNorm, FeatureDropout)";
	} else {
		struct topts o;
		char *op = xasprintf("torch.nn.%s", name);

		m->op = arena_strdup(&r->arena, op);
		free(op);
		if (n == 1 && a[0].kind == CV_OPTS) {
			o = *a[0].to;
		} else {
			memset(&o, 0, sizeof(o));
			o.args = a;
			o.nargs = n;
		}
		if (tx_kwargs(r, &o, tn->params, &m->pnames, &m->pvals, &m->np, &m->why) < 0)
			m->pnames = NULL;
	}
	memset(&v, 0, sizeof(v));
	v.kind = CV_MODULE;
	v.tm = m;
	return v;
}

/* A value in the record's tagged form, or NULL with *why. */
static cJSON *tx_json(const struct cval *v, const char **why)
{
	cJSON *o = cJSON_CreateObject();

	switch (v->kind) {
	case CV_NUM:
		if (v->is_float)
			cJSON_AddItemToObject(o, "float", json_number(v, 1));
		else
			cJSON_AddItemToObject(o, "int", json_number(v, 0));
		return o;
	case CV_BOOL:
		cJSON_AddBoolToObject(o, "bool", v->i != 0);
		return o;
	case CV_STR:
		cJSON_AddStringToObject(o, "str", v->s);
		return o;
	case CV_SYM: {
		char low[64];
		size_t k = 0;

		if (tdtype_of(v->s)) {
			cJSON_AddStringToObject(o, "dtype", tdtype_of(v->s));
			return o;
		}
		if (!strcmp(v->s, "nullopt") || !strcmp(v->s, "None")) {
			cJSON_AddNullToObject(o, "none");
			return o;
		}
		if (v->s[0] != 'k' || !isupper((unsigned char)v->s[1]) || strlen(v->s) >= sizeof(low))
			break;
		/* torch::kNearestExact is the string "nearest-exact", torch::kMean "mean" */
		for (const char *s = v->s + 1; *s; s++) {
			if (isupper((unsigned char)*s) && s > v->s + 1 && islower((unsigned char)s[-1]))
				low[k++] = strcmp(v->s, "kNearestExact") ? '_' : '-';
			low[k++] = (char)tolower((unsigned char)*s);
		}
		low[k] = 0;
		cJSON_AddStringToObject(o, "str", low);
		return o;
	}
	case CV_LIST: {
		/* a C++ IntArrayRef, ExpandingArray or vector is a Python tuple: what torch.nn's options
		 * take (Upsample's scale_factor takes nothing else) */
		cJSON *l = cJSON_AddArrayToObject(o, "tuple");

		for (size_t i = 0; i < v->n; i++) {
			cJSON *x = tx_json(&v->items[i], why);

			if (!x) {
				cJSON_Delete(o);
				return NULL;
			}
			cJSON_AddItemToArray(l, x);
		}
		return o;
	}
	case CV_TENSOR: {
		cJSON *t = cJSON_AddObjectToObject(o, "tensor"), *sh;
		const struct cval *u;
		long long cnt = tx_numel(&v->tt->shape);
		int fl = !strncmp(v->tt->dtype, "float", 5) || !strcmp(v->tt->dtype, "bfloat16");

		if ((u = first_unknown(&v->tt->shape)) || cnt < 0) {
			*why = u ? u->s : "a shape that is not a list of sizes";
			break;
		}
		cJSON_AddStringToObject(t, "dtype", v->tt->dtype);
		sh = cJSON_AddArrayToObject(t, "shape");
		for (size_t i = 0; i < v->tt->shape.n; i++)
			cJSON_AddItemToArray(sh, cJSON_CreateNumber((double)v->tt->shape.items[i].i));
		if (v->tt->values.kind == CV_LIST && (long long)v->tt->values.n == cnt) {
			cJSON *vals = cJSON_AddArrayToObject(t, "values");

			for (size_t i = 0; i < v->tt->values.n; i++)
				cJSON_AddItemToArray(vals, !strcmp(v->tt->dtype, "bool") ?
						     cJSON_CreateBool(v->tt->values.items[i].d != 0) :
						     json_number(&v->tt->values.items[i], fl));
		} else if (!fl) {
			/* integer and boolean inputs are indices, targets, masks: their values matter */
			*why = v->tt->values.kind == CV_UNKNOWN ? v->tt->values.s : "values that are not a list";
			break;
		}
		return o;
	}
	case CV_UNKNOWN:
		*why = v->s;
		cJSON_Delete(o);
		return NULL;
	default:
		break;
	}
	if (!*why)
		*why = v->kind == CV_MODULE ? "a module passed as an argument" :
		       v->kind == CV_CLOSURE ? "a function passed as an argument" :
		       "an argument of a kind the harvester does not map";
	cJSON_Delete(o);
	return NULL;
}

/* One instance: a module's call or a functional's. */
static void tx_instance(struct tp *p, const char *kind_, const char *op, const char **pnames,
			const struct cval *pvals, size_t np, const struct cval *in, size_t nin,
			const struct tmod *m, unsigned line, const char *why)
{
	struct run *r = p->r;
	cJSON *rec = NULL, *params, *inputs, *src, *ctx;
	char *text = NULL;

	count(r, "calls reached", 1);
	if (p->failing)
		why = "an expected failure (ASSERT_THROWS_WITH)";
	if (r->loop && !why)
		count(r, "calls in loops the harvester does not unroll", 1);
	if (why)
		goto drop;
	rec = cJSON_CreateObject();
	cJSON_AddStringToObject(rec, "library", "torch");
	if (r->version)
		cJSON_AddStringToObject(rec, "library_version", r->version);
	cJSON_AddStringToObject(rec, "op", op);
	cJSON_AddStringToObject(rec, "kind", kind_);
	ctx = cJSON_AddObjectToObject(rec, "context");
	if (m) {
		cJSON_AddBoolToObject(cJSON_AddObjectToObject(ctx, "training"), "bool", m->training);
		if (m->dtype)
			cJSON_AddStringToObject(cJSON_AddObjectToObject(ctx, "dtype"), "dtype", m->dtype);
	}
	params = cJSON_AddObjectToObject(rec, "params");
	for (size_t i = 0; i < np; i++) {
		cJSON *x = tx_json(&pvals[i], &why);

		if (!x)
			goto drop;
		cJSON_AddItemToObject(params, pnames[i], x);
	}
	inputs = cJSON_AddArrayToObject(rec, "inputs");
	for (size_t i = 0; i < nin; i++) {
		cJSON *x = tx_json(&in[i], &why);

		if (!x)
			goto drop;
		cJSON_AddItemToArray(inputs, x);
	}
	cJSON_AddArrayToObject(rec, "outputs");
	src = cJSON_AddObjectToObject(rec, "source");
	cJSON_AddStringToObject(src, "suite", "libtorch-cpp");
	cJSON_AddStringToObject(src, "test", r->test);
	cJSON_AddStringToObject(src, "file", r->file);
	cJSON_AddNumberToObject(src, "line", r->test_line);
	cJSON_AddNumberToObject(src, "call_line", line);
	if (r->commit)
		cJSON_AddStringToObject(src, "commit", r->commit);
	if (!(text = cJSON_PrintUnformatted(rec))) {
		err_set(r->e, EXIT_ENV, "cannot print a record");
		r->failed = 1;
	} else if (r->o->emit(r->o->ctx, text, strlen(text), r->e) < 0) {
		r->failed = 1;
	}
	goto out;
drop:
	not_recorded(r, why);
out:
	free(text);
	cJSON_Delete(rec);
}

static void tx_module_call(struct tp *p, struct tmod *m, const struct cval *a, size_t n, unsigned line)
{
	m->called = 1;
	tx_instance(p, "module", m->op, m->pnames, m->pvals, m->np, a, n, m, line, m->why);
}

/* F::x(tensors..., F::XFuncOptions()...): the functional torch.nn.functional.x, its positional
 * arguments the inputs, its options the keyword arguments. */
static void tx_functional(struct tp *p, const char *name, struct cval *a, size_t n, unsigned line)
{
	struct run *r = p->r;
	const struct tname *tn = tname_find(tfunctionals, sizeof(tfunctionals) / sizeof(tfunctionals[0]), name);
	const char **pnames = NULL, *why = NULL;
	struct cval *pvals = NULL;
	size_t np = 0, nin = n;
	char *op = xasprintf("torch.nn.functional.%s", name);

	count(r, "functional calls read", 1);
	for (size_t i = 0; i < n; i++)
		if (a[i].kind == CV_OPTS) {
			if (i + 1 < n)
				why = "a positional argument after the options, which the harvester cannot name";
			else if (tx_kwargs(r, a[i].to, tn ? tn->params : NULL, &pnames, &pvals, &np, &why) < 0)
				np = 0;
			nin = i;
			break;
		}
	tx_instance(p, "function", arena_strdup(&r->arena, op), pnames, pvals, np, a, nin, NULL, line, why);
	free(op);
}

/* The arguments of a call, at "(" or "{": each evaluated. */
static struct cval *tx_args(struct tp *p, size_t *n)
{
	const char *close = tx_at(p, "(") ? ")" : "}";
	size_t end = tx_close(p, p->i), cap = 4, m = 0;
	struct cval *v = arena_alloc(&p->r->arena, cap * sizeof(*v));

	p->i++;
	while (p->i < end - 1 && !tx_at(p, close)) {
		size_t start = p->i;

		if (m == cap) {
			struct cval *nv = arena_alloc(&p->r->arena, 2 * cap * sizeof(*nv));

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

static int tx_throws(const char *name)
{
	return strstr(name, "THROW") != NULL;
}

/* A call of a name: tensors, options, modules, functionals, lists; what else a test calls is a value
 * computed at run time. */
/* A helper function of the file (BidirectionalGRUReverseForward(false)): its body read as a test's,
 * its parameters bound to the call's arguments (the defaults where the call has fewer), the modules
 * it makes counted with the test's. */
static struct cval tx_helper(struct tp *p, CXCursor fn, struct cval *a, size_t n)
{
	struct run *r = p->r;
	size_t nk, pi = 0, nt, m = 0;
	CXCursor *k = kids(r, fn, &nk);
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
				bind(r, &g, name, a[pi]);
			} else {
				/* a default argument: its tokens after "=" */
				struct tok *d = toks(r, k[i], &nt);
				size_t e = 0;

				while (e < nt && strcmp(d[e].s, "="))
					e++;
				if (e < nt) {
					struct tp dq = { .r = r, .t = d + e + 1, .n = nt - e - 1, .f = &g };

					bind(r, &g, name, tx_expr(&dq, 0, NULL));
				} else {
					bind(r, &g, name, unknown("a missing argument"));
				}
			}
			pi++;
		} else if (kind(r, k[i]) == CXCursor_CompoundStmt) {
			t = toks(r, k[i], &nt);
		}
	}
	if (!t)
		return unknown("a function without a body in the file");
	v = arena_alloc(&r->arena, (nt + 1) * sizeof(*v));
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

static struct cval tx_call(struct tp *p, const char *ns, const char *base, const char *targs, unsigned line)
{
	struct run *r = p->r;
	int fn = !strcmp(ns, "F") || has_suffix(ns, "functional");
	int throws = tx_throws(base);
	struct cval *a, v;
	size_t n;

	p->failing += throws;
	a = tx_args(p, &n);
	p->failing -= throws;
	if (fn && !has_suffix(base, "Options")) {
		tx_functional(p, base, a, n, line);
		return unknown("the result of a functional");
	}
	if (has_suffix(base, "Options") && strcmp(base, "TensorOptions")) {
		size_t len = strlen(base) - (has_suffix(base, "FuncOptions") ? 11 : 7);

		return tx_opts_new(r, arena_strndup(&r->arena, base, len), a, n);
	}
	if ((!strcmp(ns, "torch") || !strcmp(ns, "at")) &&
	    (!strcmp(base, "tensor") || !strcmp(base, "ones") || !strcmp(base, "zeros") || !strcmp(base, "full") ||
	     !strcmp(base, "empty") || !strcmp(base, "randn") || !strcmp(base, "rand") || !strcmp(base, "arange") ||
	     !strcmp(base, "linspace") || has_suffix(base, "_like")))
		return tx_factory(p, base, a, n);
	if (!strcmp(base, "TensorOptions") || !strcmp(base, "dtype") || !strcmp(base, "requires_grad") ||
	    !strcmp(base, "device")) {
		memset(&v, 0, sizeof(v));
		v.kind = CV_TOPTS;
		v.s = !strcmp(base, "dtype") && n && a[0].kind == CV_SYM ? a[0].s : "";
		return v;
	}
	if ((!*ns || !strcmp(ns, "torch::nn") || !strcmp(ns, "nn")) &&
	    (tname_find(tmodules, sizeof(tmodules) / sizeof(tmodules[0]), base) || tx_cpp_only(base)))
		return tx_module(p, base, a, n);
	if (!strcmp(base, "IntArrayRef") || !strcmp(base, "ArrayRef") || !strcmp(base, "vector") ||
	    !strcmp(base, "ExpandingArray") || !strcmp(base, "initializer_list") || !strcmp(base, "array")) {
		if (n == 1 && a[0].kind == CV_LIST)
			return a[0];
		if (!n)
			return list_of(r, 0);
		if (n == 2 && !strcmp(base, "vector"))
			return tx_fill(r, tx_shape(r, a[0]), a[1]);
		if (!strcmp(base, "ExpandingArray") || !strcmp(base, "IntArrayRef"))
			return n == 1 ? a[0] : unknown("a value computed by a call");
		v = list_of(r, n);
		memcpy(v.items, a, n * sizeof(*a));
		return v;
	}
	if ((!strcmp(base, "static_cast") || !strcmp(base, "int64_t") || !strcmp(base, "double") ||
	     !strcmp(base, "float") || !strcmp(base, "int")) && n == 1)
		return cast_to(a[0], targs && *targs ? targs : base);
	if (!strcmp(base, "optional") && n == 1)
		return a[0];
	if (!*ns)
		for (size_t i = 0; i < r->nfns; i++)
			if (!strcmp(r->fns[i].name, base))
				return tx_helper(p, r->fns[i].c, a, n);
	return unknown("a value computed by a call");
}

/* .name(args) or ->name(args) on a value. */
static struct cval tx_method(struct tp *p, struct cval v, struct cval *lv, const char *name, int arrow,
			     unsigned line)
{
	struct run *r = p->r;
	struct cval *a = NULL;
	size_t n = 0;
	int called = tx_at(p, "(");

	if (called)
		a = tx_args(p, &n);
	if (v.kind == CV_OPTS && called && !arrow)
		return n == 1 ? tx_opts_set(r, v, name, a[0]) :
		       tx_opts_set(r, v, name, n ? unknown("a setter of several arguments") : boolean(1));
	if (v.kind == CV_MODULE && called) {
		if (!strcmp(name, "forward")) {
			tx_module_call(p, v.tm, a, n, line);
			return unknown("the result of a module");
		}
		if (!strcmp(name, "eval") || !strcmp(name, "train")) {
			v.tm->training = name[0] == 't' && (!n || (is_number(&a[0]) && a[0].d != 0));
			return v;
		}
		if (!strcmp(name, "to")) {
			if (n && a[0].kind == CV_SYM && tdtype_of(a[0].s))
				v.tm->dtype = tdtype_of(a[0].s);
			return v;
		}
		if (!arrow && n == 1 && v.tm->pnames) {
			/* libtorch's first API: setters on the module (Embedding(10, 2).padding_idx(3)) */
			struct topts o;

			memset(&o, 0, sizeof(o));
			o.snames = &name;
			o.svals = a;
			o.ns = 1;
			{
				const char **nn;
				struct cval *nv;
				size_t k;

				if (tx_kwargs(r, &o, NULL, &nn, &nv, &k, &v.tm->why) == 0) {
					const char **pn = arena_alloc(&r->arena, (v.tm->np + 1) * sizeof(*pn));
					struct cval *pv = arena_alloc(&r->arena, (v.tm->np + 1) * sizeof(*pv));

					memcpy(pn, v.tm->pnames, v.tm->np * sizeof(*pn));
					memcpy(pv, v.tm->pvals, v.tm->np * sizeof(*pv));
					pn[v.tm->np] = nn[0];
					pv[v.tm->np] = nv[0];
					v.tm->pnames = pn;
					v.tm->pvals = pv;
					v.tm->np++;
				}
			}
			return v;
		}
		return unknown("a value computed by a module");
	}
	if (v.kind == CV_TOPTS && called) {
		if (!strcmp(name, "dtype") && n && a[0].kind == CV_SYM)
			v.s = a[0].s;
		return v;
	}
	if (v.kind == CV_TENSOR && called) {
		if (!strcmp(name, "view") || !strcmp(name, "reshape") || !strcmp(name, "resize_")) {
			struct cval sh = n == 1 ? tx_shape(r, a[0]) : list_of(r, n);
			long long cnt;

			if (n != 1)
				memcpy(sh.items, a, n * sizeof(*a));
			cnt = tx_numel(&sh);
			if (cnt < 0 || cnt != tx_numel(&v.tt->shape))
				return unknown("a tensor reshaped to a size the harvester cannot tell");
			v = tx_tensor_val(r, v.tt->dtype, sh, v.tt->values);
			if (name[0] == 'r' && name[1] == 'e' && name[2] == 's' && name[3] == 'i' && lv)
				*lv = v;
			return v;
		}
		if (!strcmp(name, "to") || !strcmp(name, "toType")) {
			const char *dt = tx_dtype_arg(a, n, 0, NULL);

			return dt ? tx_tensor_val(r, dt, v.tt->shape, v.tt->values) :
			       unknown("a tensor moved where the harvester cannot follow");
		}
		if (!strcmp(name, "clone") || !strcmp(name, "contiguous") || !strcmp(name, "detach") ||
		    !strcmp(name, "set_requires_grad") || !strcmp(name, "requires_grad_"))
			return v;
		return unknown("a tensor computed at run time");
	}
	if (v.kind == CV_LIST && called) {
		if (!strcmp(name, "vec"))
			return v;
		if (!strcmp(name, "size"))
			return num_int((long long)v.n);
	}
	if (v.kind == CV_UNKNOWN)
		return v;
	return unknown(called ? "a value computed by a call" : "a member the harvester cannot follow");
}

static struct cval tx_number(const char *s)
{
	int fl = !strncmp(s, "0x", 2) || !strncmp(s, "0X", 2) ? 0 :
		 strpbrk(s, ".eE") != NULL || ((s[strlen(s) - 1] == 'f' || s[strlen(s) - 1] == 'F'));

	return fl ? num_float(strtod(s, NULL)) : num_int((long long)strtoull(s, NULL, 0));
}

/* A primary expression and what follows it (members, calls, subscripts). */
static struct cval tx_postfix(struct tp *p, struct cval **lvp)
{
	struct run *r = p->r;
	struct cval v, *lv = NULL;
	const struct tok *t;

	if (p->i >= p->n)
		return unknown("an expression the harvester cannot read");
	t = &p->t[p->i];
	if (t->kind == CXToken_Literal) {
		p->i++;
		if (t->s[0] == '"' || strchr(t->s, '"')) {
			struct buf b = BUF_INIT;

			buf_adds(&b, unescape(r, t->s));
			while (p->i < p->n && p->t[p->i].kind == CXToken_Literal && strchr(p->t[p->i].s, '"'))
				buf_adds(&b, unescape(r, p->t[p->i++].s));
			memset(&v, 0, sizeof(v));
			v.kind = CV_STR;
			v.s = arena_strdup(&r->arena, b.data ? b.data : "");
			buf_release(&b);
		} else if (t->s[0] == '\'') {
			v = num_int((unsigned char)t->s[1]);
		} else {
			v = tx_number(t->s);
		}
	} else if (!strcmp(t->s, "true") || !strcmp(t->s, "false")) {
		p->i++;
		v = boolean(t->s[0] == 't');
	} else if (!strcmp(t->s, "(")) {
		size_t end = tx_close(p, p->i);

		p->i++;
		v = tx_expr(p, 0, &lv);
		p->i = end;
	} else if (!strcmp(t->s, "{")) {
		size_t n;
		struct cval *a = tx_args(p, &n);

		v = list_of(r, n);
		if (n)
			memcpy(v.items, a, n * sizeof(*a));
	} else if (!strcmp(t->s, "[")) {
		/* a lambda: [captures](params) -> type { body } */
		p->i = tx_close(p, p->i);
		if (tx_at(p, "("))
			p->i = tx_close(p, p->i);
		while (p->i < p->n && !tx_at(p, "{") && !tx_at(p, ";"))
			p->i++;
		if (tx_at(p, "{"))
			p->i = tx_close(p, p->i);
		v = unknown("a lambda");
	} else if (t->kind == CXToken_Identifier || t->kind == CXToken_Keyword || !strcmp(t->s, "::")) {
		/* a qualified name, with template arguments */
		struct buf ns = BUF_INIT;
		const char *base = NULL, *targs = NULL;
		unsigned line = t->line;

		for (;;) {
			size_t te;

			if (tx_accept(p, "::"))
				continue;
			if (p->i >= p->n ||
			    (p->t[p->i].kind != CXToken_Identifier && p->t[p->i].kind != CXToken_Keyword))
				break;
			if (base)
				buf_addf(&ns, "%s%s", ns.len ? "::" : "", base);
			base = p->t[p->i++].s;
			if (tx_at(p, "<") && (te = tx_targs_end(p, p->i))) {
				targs = type_text(r, p->f, p->t + p->i + 1, te - p->i - 2);
				p->i = te;
			}
			if (!tx_at(p, "::"))
				break;
			p->i++;
		}
		if (!base) {
			buf_release(&ns);
			p->i++;
			return unknown("an expression the harvester cannot read");
		}
		if (!ns.len && (lv = lookup(p->f, base))) {
			v = *lv;
		} else if (tx_at(p, "(") || (tx_at(p, "{") && (ns.len || isupper((unsigned char)base[0])))) {
			v = tx_call(p, ns.data ? ns.data : "", base, targs, line);
		} else if (!strcmp(base, "nullptr") || !strcmp(base, "this")) {
			v = unknown("a pointer");
		} else {
			v = tx_sym(base);
		}
		buf_release(&ns);
	} else {
		p->i++;
		return unknown("an expression the harvester cannot read");
	}
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
			v = tx_method(p, v, lv, name, arrow, line);
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
			struct cval *a = tx_args(p, &n);

			if (v.kind == CV_MODULE) {
				tx_module_call(p, v.tm, a, n, line);
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
	bind(p->r, p->f, name, v);
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
			struct tok *tt = arena_alloc(&p->r->arena, (p->n - p->i + 2) * sizeof(*tt));
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
			if (tname_find(tmodules, sizeof(tmodules) / sizeof(tmodules[0]), type) || tx_cpp_only(type) ||
			    has_suffix(type, "Options") || q.n > 3 || !strcmp(type, "vector"))
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

static void tx_stmt(struct tp *p)
{
	const char *s;
	size_t d;

	if (p->i >= p->n || p->f->returned || p->r->failed)
		return;
	s = p->t[p->i].s;
	if (!strcmp(s, "{")) {
		size_t end = tx_close(p, p->i);
		struct frame g, *up = p->f;

		/* a block: its declarations end with it */
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
		return;
	}
	if (!strcmp(s, ";")) {
		p->i++;
		return;
	}
	if (!strcmp(s, "for")) {
		p->i++;
		tx_for(p);
		return;
	}
	if (!strcmp(s, "while") || !strcmp(s, "do") || !strcmp(s, "switch") || !strcmp(s, "try")) {
		size_t after = tx_skip(p, p->i);

		if (!strcmp(s, "while") || !strcmp(s, "do")) {
			count(p->r, "loops the harvester does not unroll", 1);
			p->r->loop++;
			p->i = s[0] == 'w' ? tx_close(p, p->i + 1) : p->i + 1;
			tx_stmt(p);
			p->r->loop--;
		}
		p->i = after;
		return;
	}
	if (!strcmp(s, "if")) {
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
			/* false, or a condition on the machine: the else branch */
			p->i = then_end;
			if (tx_accept(p, "else"))
				tx_stmt(p);
		}
		return;
	}
	if (!strcmp(s, "return")) {
		size_t start = p->i++;

		/* a helper's result: what its caller's expression goes on with */
		if (!tx_at(p, ";"))
			p->f->ret = tx_expr(p, 0, NULL);
		p->i = tx_skip(p, start);
		p->f->returned = 1;
		return;
	}
	if (!strcmp(s, "using") || !strcmp(s, "namespace") || !strcmp(s, "struct") || !strcmp(s, "class") ||
	    !strcmp(s, "typedef") || !strcmp(s, "break") || !strcmp(s, "continue")) {
		p->i = tx_skip(p, p->i);
		return;
	}
	if ((d = tx_decl(p))) {
		tx_declaration(p, d);
		return;
	}
	{
		/* an expression: an assignment to a variable, or a call */
		size_t after = tx_skip(p, p->i);
		struct cval *lv = NULL, v;

		v = tx_expr(p, 0, &lv);
		if (tx_at(p, "=")) {
			p->i++;
			v = tx_expr(p, 0, NULL);
			if (lv)
				*lv = v;
		} else if (p->i < p->n && p->t[p->i].kind == CXToken_Punctuation &&
			   strchr("+-*/%|&^", p->t[p->i].s[0]) && has_suffix(p->t[p->i].s, "=")) {
			p->i++;
			tx_expr(p, 0, NULL);
			if (lv)
				*lv = unknown("a value computed at run time");
		}
		p->i = after;
	}
}

/* One TEST body, from its tokens. */
static void torch_test(struct run *r, CXCursor body)
{
	size_t n, m = 0;
	struct tok *t = toks(r, body, &n), *v = arena_alloc(&r->arena, (n + 1) * sizeof(*v));
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

int cpp_harvest_torch(char *const *files, size_t n, const struct cpp_opts *o, struct err *e)
{
	return parse_files(files, n, o, CPP_TORCH, NULL, e);
}

/* --- one file per child process ----------------------------------------------------------------- */

/* The child's hooks: each event one line of the channel (oracle/protocol.h). */
static void channel_json(FILE *fp, const char *word, cJSON *v)
{
	char *text = cJSON_PrintUnformatted(v);

	fprintf(fp, "%s %s\n", word, text ? text : "null");
	cJSON_free(text);
	cJSON_Delete(v);
}

static int child_emit(void *ctx, const char *json, size_t len, struct err *e)
{
	FILE *fp = ctx;

	fputs(PROTO_CPP_EMIT " ", fp);
	fwrite(json, 1, len, fp);
	if (fputc('\n', fp) == EOF)
		return err_errno(e, EXIT_ENV, "cannot write to ferry harvest");
	return 0;
}

static void child_count(void *ctx, const char *key, long n)
{
	cJSON *a = cJSON_CreateArray();

	cJSON_AddItemToArray(a, cJSON_CreateNumber((double)n));
	cJSON_AddItemToArray(a, cJSON_CreateString(key));
	channel_json(ctx, PROTO_CPP_COUNT, a);
}

static void child_warn(void *ctx, const char *msg)
{
	channel_json(ctx, PROTO_CPP_WARN, cJSON_CreateString(msg));
}

static void child_skip(void *ctx, const char *file, const char *why)
{
	(void)file;
	channel_json(ctx, PROTO_CPP_SKIP, cJSON_CreateString(why));
}

int cpp_child_run(int fd, enum cpp_mode mode, const char *file, const char *stub, const struct cpp_opts *o,
		  struct err *e)
{
	FILE *fp = fdopen(fd, "w");
	struct cpp_opts co = *o;
	struct counts counts;
	int rc;

	if (!fp)
		return err_errno(e, EXIT_ENV, "cannot open the channel to ferry harvest");
	co.ctx = fp;
	co.emit = child_emit;
	co.count = child_count;
	co.warn = child_warn;
	co.skip = child_skip;
	co.progress = NULL;
	counts_init(&counts);
	rc = harvest_here(file, stub, &co, mode == CPP_COUNT ? &counts : NULL,
			  mode == CPP_ONNX ? onnx_run : mode == CPP_COUNT ? count_run : NULL, e);
	if (rc == 0) {
		for (size_t i = 0; i < counts_size(&counts); i++) {
			cJSON *a = cJSON_CreateArray();

			cJSON_AddItemToArray(a, cJSON_CreateString(counts_name(&counts, i)));
			cJSON_AddItemToArray(a, cJSON_CreateNumber((double)counts_value(&counts, i)));
			channel_json(fp, PROTO_CPP_OP, a);
		}
		fputs(PROTO_CPP_DONE "\n", fp);
	} else {
		cJSON *a = cJSON_CreateArray();

		cJSON_AddItemToArray(a, cJSON_CreateNumber(e->code ? (double)e->code : EXIT_ENV));
		cJSON_AddItemToArray(a, cJSON_CreateString(e->msg));
		channel_json(fp, PROTO_CPP_FAIL, a);
	}
	if ((fflush(fp) != 0 || ferror(fp)) && rc == 0)
		rc = err_errno(e, EXIT_ENV, "cannot write to ferry harvest");
	fclose(fp);
	counts_release(&counts);
	return rc;
}

/* The parent's side: one child per file, watched. */

/* What one file's child may write in all: its records and counts, kept until it is done. */
#define CHILD_OUTPUT_MAX (256u << 20)
/* The tail of its stderr kept for the reason it died (LLVM's last words). */
#define CHILD_STDERR_CAP 4096
/* How often its resident memory is looked at. */
#define WATCH_MS 50

/* Whether this ferry (and so each child) runs under AddressSanitizer: gcc says it one way, clang
 * another. */
#if defined(__SANITIZE_ADDRESS__)
#define UNDER_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define UNDER_ASAN 1
#endif
#endif

static volatile sig_atomic_t interrupted;

static void on_signal(int sig)
{
	interrupted = sig;
}

static double mono(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static const char *const mode_names[] = { "onnx", "torch", "count" };

/* "2 GiB", "512 MiB", "1000000 bytes" */
static void add_size(struct buf *b, uint64_t n)
{
	if (n >= (1ull << 30) && !(n % (1ull << 30)))
		buf_addf(b, "%llu GiB", (unsigned long long)(n >> 30));
	else if (n >= (1ull << 20) && !(n % (1ull << 20)))
		buf_addf(b, "%llu MiB", (unsigned long long)(n >> 20));
	else
		buf_addf(b, "%llu bytes", (unsigned long long)n);
}

/* Whether what the child printed last says that memory ran out (under RLIMIT_AS an allocation fails
 * and LLVM says so before it gives up: "LLVM ERROR: out of memory"). */
static int said_oom(const char *err)
{
	return err && (strstr(err, "out of memory") || strstr(err, "bad_alloc") ||
		       strstr(err, "Cannot allocate memory"));
}

/* The last line of text that is not empty, for a message. */
static void add_last_line(struct buf *b, const char *text)
{
	size_t n = text ? strlen(text) : 0, end;

	while (n && (text[n - 1] == '\n' || text[n - 1] == ' '))
		n--;
	end = n;
	while (n && text[n - 1] != '\n')
		n--;
	if (end > n)
		buf_addf(b, " (%.*s)", (int)(end - n > 200 ? 200 : end - n), text + n);
}

struct limits {
	uint64_t mem;
	double seconds;
};

/* Replay the channel of a child that is done through o's hooks (and counts). 0, or -1 with e filled
 * when a hook fails. */
static int replay(const struct buf *out, const struct cpp_opts *o, struct counts *counts, struct err *e)
{
	const char *p = out->data, *end = out->data + out->len;

	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p)), *sp;
		size_t len = nl ? (size_t)(nl - p) : (size_t)(end - p);
		const char *v;
		size_t vlen;
		cJSON *j = NULL;
		int rc = 0;

		sp = memchr(p, ' ', len);
		v = sp ? sp + 1 : p + len;
		vlen = (size_t)(p + len - v);
#define IS(word) ((size_t)((sp ? sp : p + len) - p) == strlen(word) && !memcmp(p, word, strlen(word)))
		if (IS(PROTO_CPP_EMIT)) {
			rc = o->emit ? o->emit(o->ctx, v, vlen, e) : 0;
		} else if (IS(PROTO_CPP_COUNT) || IS(PROTO_CPP_WARN) || IS(PROTO_CPP_OP)) {
			j = cJSON_ParseWithLength(v, vlen);
			if (IS(PROTO_CPP_WARN) && cJSON_IsString(j) && o->warn) {
				o->warn(o->ctx, j->valuestring);
			} else if (cJSON_GetArraySize(j) == 2) {
				const cJSON *a = cJSON_GetArrayItem(j, 0), *b = cJSON_GetArrayItem(j, 1);

				if (IS(PROTO_CPP_COUNT) && cJSON_IsNumber(a) && cJSON_IsString(b) && o->count)
					o->count(o->ctx, b->valuestring, (long)a->valuedouble);
				if (IS(PROTO_CPP_OP) && cJSON_IsString(a) && cJSON_IsNumber(b) && counts)
					counts_add(counts, a->valuestring, (uint64_t)b->valuedouble);
			}
		}
#undef IS
		cJSON_Delete(j);
		if (rc < 0)
			return -1;
		p += len + (nl != NULL);
	}
	return 0;
}

/* The value of the channel's first line whose word is word (borrowed: it runs to the end of its
 * line, *vlen bytes), or NULL when there is none. */
static const char *find_line(const struct buf *out, const char *word, size_t *vlen)
{
	size_t wl = strlen(word);

	for (const char *p = out->data; p && p < out->data + out->len;) {
		const char *nl = memchr(p, '\n', (size_t)(out->data + out->len - p));

		if (!strncmp(p, word, wl) && (p[wl] == ' ' || p[wl] == '\n' || !p[wl])) {
			const char *v = p[wl] == ' ' ? p + wl + 1 : p + wl;

			*vlen = nl ? (size_t)(nl - v) : strlen(v);
			return v;
		}
		p = nl ? nl + 1 : NULL;
	}
	return NULL;
}

/* Whether the channel ends with PROTO_CPP_DONE, the child's last word. */
static int ends_done(const struct buf *out)
{
	static const char last[] = "\n" PROTO_CPP_DONE "\n";
	size_t n = sizeof(last) - 1;

	return (out->len >= n && !memcmp(out->data + out->len - n, last, n)) ||
	       (out->len == n - 1 && !memcmp(out->data, last + 1, n - 1));
}

/* Parse file in a child: its records through o's hooks, or, when the child passes a limit or dies,
 * the file skipped with the reason. 0, or -1 with e filled when the harvest must stop (a hook
 * failed, ferry's own failure in the child, an interruption). */
static int parse_one(const char *self, const char *file, enum cpp_mode mode, const char *stub,
		     const struct cpp_opts *o, const struct limits *lim, struct counts *counts, struct err *e)
{
	struct child_process cp = PROC_INIT;
	struct proc_capture err;
	struct proc_status st;
	struct buf out = BUF_INIT, why = BUF_INIT;
	struct err ignored = ERR_INIT;
	const char **argv = xcalloc(12 + 2 * (o->nincludes + o->ndefines), sizeof(*argv));
	char cpu[32];
	size_t n = 0, vlen;
	double deadline, next_watch = 0;
	const char *v;
	int rc = -1, ended = 0;

	proc_capture_init(&err, CHILD_STDERR_CAP);
	err.tail = true;
	snprintf(cpu, sizeof(cpu), "%g", lim->seconds);
	argv[n++] = self;
	argv[n++] = "harvest-cpp-child";
	argv[n++] = mode_names[mode];
	argv[n++] = "--stub";
	argv[n++] = stub;
	argv[n++] = "--cpu";
	argv[n++] = cpu;
	for (size_t i = 0; i < o->nincludes; i++) {
		argv[n++] = "-I";
		argv[n++] = o->includes[i];
	}
	for (size_t i = 0; i < o->ndefines; i++) {
		argv[n++] = "-D";
		argv[n++] = o->defines[i];
	}
	if (o->compile_commands) {
		argv[n++] = "--compile-commands";
		argv[n++] = o->compile_commands;
	}
	argv[n++] = "--";
	argv[n++] = file;
	cp.argv = argv;
	cp.in = PROC_NULL;
	cp.out = PROC_PIPE;
	cp.err = PROC_PIPE;
#ifndef UNDER_ASAN
	/* Under AddressSanitizer the child maps terabytes of shadow memory and cannot live under
	 * RLIMIT_AS at all: the watch on its resident memory below is then the limit. */
	cp.mem_limit = lim->mem;
#endif
	if (proc_start(&cp, e) < 0)
		goto out;
	deadline = mono() + lim->seconds;
	while (cp.fd_out >= 0 || cp.fd_err >= 0) {
		struct pollfd pfd[2];
		int np = 0, wait;
		double now = mono();

		if (interrupted) {
			err_set(e, EXIT_INTERRUPTED, "interrupted");
			goto out;
		}
		if (now >= deadline) {
			buf_addf(&why, "over the %g s time limit", lim->seconds);
			break;
		}
		if (now >= next_watch) {
			uint64_t rss = 0;

			/* the child alone: libclang starts no process, and a scan of every process for
			 * the members of its group, twenty times a second, would cost more than the parse */
			if (proc_rss(cp.pid, &rss, &ignored) == 0 && rss > lim->mem) {
				buf_adds(&why, "over the ");
				add_size(&why, lim->mem);
				buf_adds(&why, " memory limit");
				break;
			}
			err_release(&ignored);
			next_watch = now + WATCH_MS / 1000.0;
		}
		if (cp.fd_out >= 0)
			pfd[np++] = (struct pollfd){ cp.fd_out, POLLIN, 0 };
		if (cp.fd_err >= 0)
			pfd[np++] = (struct pollfd){ cp.fd_err, POLLIN, 0 };
		wait = (int)((deadline - now) * 1000) + 1;
		if (wait > WATCH_MS)
			wait = WATCH_MS;
		if (poll(pfd, (nfds_t)np, wait) < 0 && errno != EINTR) {
			err_errno(e, EXIT_ENV, "cannot wait for the parse of '%s'", file);
			goto out;
		}
		for (int i = 0; i < np; i++) {
			if (!pfd[i].revents)
				continue;
			if (pfd[i].fd == cp.fd_out) {
				char chunk[65536];
				ssize_t got = read(cp.fd_out, chunk, sizeof(chunk));

				if (got < 0 && errno != EINTR && errno != EAGAIN) {
					err_errno(e, EXIT_ENV, "cannot read the parse of '%s'", file);
					goto out;
				}
				if (got == 0) {
					close(cp.fd_out);
					cp.fd_out = -1;
				} else if (got > 0) {
					buf_add(&out, chunk, (size_t)got);
				}
			} else {
				if (proc_capture_read(&err, cp.fd_err, &ignored) < 0 || err.eof) {
					close(cp.fd_err);
					cp.fd_err = -1;
				}
				err_release(&ignored);
			}
		}
		if (out.len > CHILD_OUTPUT_MAX) {
			buf_adds(&why, "what it gives passed ");
			add_size(&why, CHILD_OUTPUT_MAX);
			break;
		}
	}
	/* Both streams closed: the child is exiting (a sanitizer's report may take a moment). */
	while (!why.len && !ended) {
		struct timespec nap = { 0, 10 * 1000 * 1000 };

		if ((ended = proc_try_wait(&cp, &st, e)) < 0)
			goto out;
		if (interrupted) {
			err_set(e, EXIT_INTERRUPTED, "interrupted");
			goto out;
		}
		if (!ended && mono() >= deadline)
			buf_addf(&why, "over the %g s time limit", lim->seconds);
		else if (!ended)
			nanosleep(&nap, NULL);
	}
	if (!ended && proc_kill(&cp, 200, &st, e) < 0)
		goto out;
	if ((v = find_line(&out, PROTO_CPP_FAIL, &vlen))) {
		/* ferry's own failure in the child (libclang missing, a compile_commands.json it cannot
		 * read): the harvest stops, as it would have in this process */
		cJSON *j = cJSON_ParseWithLength(v, vlen);
		const cJSON *c = cJSON_GetArrayItem(j, 0), *m = cJSON_GetArrayItem(j, 1);

		err_set(e, cJSON_IsNumber(c) && c->valuedouble > 0 ? (enum ferry_exit)c->valuedouble : EXIT_ENV, "%s",
			cJSON_IsString(m) ? m->valuestring : "the parse failed");
		cJSON_Delete(j);
		goto out;
	}
	if (!why.len && !ends_done(&out)) {
		if (st.signaled && st.sig == SIGXCPU) {
			buf_addf(&why, "over the %g s time limit", lim->seconds);
		} else if (said_oom(err.buf.data)) {
			buf_adds(&why, "over the ");
			add_size(&why, lim->mem);
			buf_adds(&why, " memory limit");
		} else {
			buf_adds(&why, "its parse ended early: ");
			proc_status_describe(&st, &why);
			add_last_line(&why, err.buf.data);
		}
	}
	if (!why.len && (v = find_line(&out, PROTO_CPP_SKIP, &vlen))) {
		if (said_oom(err.buf.data)) {
			buf_adds(&why, "over the ");
			add_size(&why, lim->mem);
			buf_adds(&why, " memory limit");
		} else {
			cJSON *j = cJSON_ParseWithLength(v, vlen);

			buf_adds(&why, cJSON_IsString(j) ? j->valuestring : "libclang gave up parsing it");
			cJSON_Delete(j);
		}
	}
	if (why.len) {
		if (o->skip) {
			o->skip(o->ctx, file, why.data);
		} else if (o->warn) {
			char *msg = xasprintf("skipped '%s': %s", file, why.data);

			o->warn(o->ctx, msg);
			free(msg);
		}
		rc = 0;
		goto out;
	}
	if (st.code != 0) {
		/* it said it was done and then failed: ferry's own bug (a sanitizer's report at exit) */
		struct buf d = BUF_INIT;

		proc_status_describe(&st, &d);
		err_set(e, EXIT_ENV, "the parse of '%s' ended with %s after it was done", file, d.data);
		if (err.buf.len)
			err_set_detail(e, xstrdup(err.buf.data));
		buf_release(&d);
		goto out;
	}
	rc = replay(&out, o, counts, e);
out:
	proc_release(&cp);
	proc_capture_release(&err);
	buf_release(&out);
	buf_release(&why);
	err_release(&ignored);
	free(argv);
	return rc;
}

static int parse_files(char *const *files, size_t n, const struct cpp_opts *o, enum cpp_mode mode,
		       struct counts *counts, struct err *e)
{
	struct limits lim = { o->mem_limit ? o->mem_limit : CPP_DEFAULT_MEMORY,
			      o->timeout > 0 ? o->timeout : CPP_DEFAULT_TIMEOUT };
	struct proc_signals saved;
	char *self = fs_self_exe(), *dir = NULL, *stub = NULL;
	int rc = -1;

	if (!self)
		return err_set(e, EXIT_ENV, "cannot find ferry's own executable (/proc/self/exe)");
	interrupted = 0;
	proc_catch_signals(on_signal, &saved);
	if (write_stub(&dir, &stub, e) < 0)
		goto out;
	for (size_t i = 0; i < n; i++) {
		if (o->progress)
			o->progress(o->ctx, (long)i, (long)n, files[i]);
		if (parse_one(self, files[i], mode, stub, o, &lim, counts, e) < 0)
			goto out;
	}
	if (o->progress)
		o->progress(o->ctx, (long)n, (long)n, "");
	rc = 0;
out:
	proc_restore_signals(&saved, 0);
	if (stub)
		unlink(stub);
	if (dir)
		rmdir(dir);
	free(stub);
	free(dir);
	free(self);
	return rc;
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

int cpp_child_run(int fd, enum cpp_mode mode, const char *file, const char *stub, const struct cpp_opts *o,
		  struct err *e)
{
	(void)fd, (void)mode, (void)file, (void)stub, (void)o;
	return err_set(e, EXIT_ENV, "ferry was built without libclang (configure --without-libclang)");
}
#endif
