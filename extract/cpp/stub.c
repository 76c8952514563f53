/* stub.c: the header ferry injects into each parse (cpp.h says why), and the scratch file it is
 * written to. */
#include <stdlib.h>
#include <unistd.h>

#include "cpp-int.h"
#include "fsutil.h"
#include "xalloc.h"

#ifdef HAVE_LIBCLANG

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

/* Write ferry's header into a scratch directory; its path in *path (the caller removes it). */
int cpp_write_stub(char **dir, char **path, struct err *e)
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

#endif
