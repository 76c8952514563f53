// ferry's own test file in the style of ONNX Runtime's operator tests: the ways its tests make a
// tester besides a plain OpTester (std::make_unique, a class derived from OpTester, a helper class
// that only has OpTester in its name), element types and attributes written with onnx's protobuf
// names, scalars in braces, an operator of the ai.onnx.ml domain, and statements that name types of
// headers ferry does not have.
#include "gtest/gtest.h"
#include "test/common/quantization_test_utils.h"
#include "test/providers/provider_test_utils.h"

using namespace ONNX_NAMESPACE;

namespace onnxruntime {
namespace test {

namespace {
// made through a pointer, and assigned in a branch, as ONNX Runtime's conv tests do
void RunSoftsign(bool fused, int opset) {
  std::unique_ptr<OpTester> tester;
  if (fused) {
    tester = std::make_unique<OpTester>("FusedSoftsign", 1, onnxruntime::kMSDomain);
  } else {
    tester = std::make_unique<OpTester>("Softsign", opset);
  }
  tester->AddInput<float>("X", {2}, {1.0f, -3.0f});
  tester->AddOutput<float>("Y", {2}, {0.5f, -0.75f});
  tester->Run();
}

// a subclass that only changes how the graph's inputs are fed: its operator is the base's
class ReduceMaxTester : public OpTester {
 public:
  explicit ReduceMaxTester(int opset, bool keep = true) : OpTester("ReduceMax", opset), keep_(keep) {}

 protected:
  void AddNodes(onnxruntime::Graph& graph, std::vector<onnxruntime::NodeArg*>& inputs,
                std::vector<onnxruntime::NodeArg*>& outputs,
                std::vector<std::function<void(onnxruntime::Node& node)>>& funcs) override {
    OpTester::AddNodes(graph, inputs, outputs, funcs);
    graph.SetInputs({graph.GetNodeArg(inputs[0]->Name())});
  }

 private:
  bool keep_;
};

// a subclass that adds a second node: a test of more than one operator
class AbsThenNegTester : public OpTester {
 public:
  AbsThenNegTester() : OpTester("Abs", 13) {}

 protected:
  void AddNodes(onnxruntime::Graph& graph, std::vector<onnxruntime::NodeArg*>& inputs,
                std::vector<onnxruntime::NodeArg*>& outputs,
                std::vector<std::function<void(onnxruntime::Node& node)>>& funcs) override {
    OpTester::AddNodes(graph, inputs, outputs, funcs);
    graph.AddNode("neg", "Neg", "", outputs, outputs);
  }
};

// a helper class that makes its own tester from random data: not a tester itself
class RandomTanhOpTester {
 public:
  void Generate(int64_t n) {
    n_ = n;
  }
  void Run() {
    OpTester test("Tanh", 13);
    std::vector<float> x(n_);
    test.AddInput<float>("X", {n_}, x);
    test.AddOutput<float>("Y", {n_}, x);
    test.Run();
  }

 private:
  int64_t n_ = 0;
};

// a template whose element type the call does not write: deduced from an argument
template <typename T>
void RunIdentity(T value, int opset) {
  OpTester test("Identity", opset);
  test.AddInput<T>("input", {2}, {value, value});
  test.AddOutput<T>("output", {2}, {value, value});
  test.Run();
}

// an input added under a condition on a parameter, after a condition that is false
void RunTopK(int opset, int64_t k) {
  OpTester test("TopK", opset);
  if (opset <= 9)
    test.AddAttribute("k", k);
  test.AddInput<float>("X", {3}, {1.0f, 3.0f, 2.0f});
  if (opset >= 10)
    test.AddInput<int64_t>("K", {1}, {k});
  test.AddOutput<float>("Values", {1}, {3.0f});
  test.AddOutput<int64_t>("Indices", {1}, {1});
  test.Run();
}

// an element type named through ONNX Runtime's utilities, a size narrowed
template <typename T>
void RunCastTo(const std::initializer_list<float>& x, const std::initializer_list<T>& y) {
  OpTester test("Cast", 19);
  test.AddAttribute<int64_t>("to", utils::ToTensorProtoElementType<T>());
  test.AddInput<float>("input", {onnxruntime::narrow<int64_t>(x.size())}, x);
  test.AddOutput<T>("output", {gsl::narrow_cast<int64_t>(y.size())}, y);
  test.Run();
}

// an attribute passed by pointer, left out when the pointer is null
void RunTranspose(const std::vector<int64_t>* p_perm, const std::vector<int64_t>& out_shape) {
  OpTester test("Transpose", 13);
  if (nullptr != p_perm)
    test.AddAttribute("perm", *p_perm);
  test.AddInput<float>("X", {1, 2}, {1.0f, 2.0f});
  test.AddOutput<float>("Y", out_shape, {1.0f, 2.0f});
  test.Run();
}
}  // namespace

TEST(FerryTesterTest, Pointers) {
  std::vector<int64_t> perm = {1, 0};
  RunTranspose(&perm, {2, 1});
  RunTranspose(nullptr, {2, 1});
}

TEST(FerryTesterTest, ElementWrites) {
  // values written element by element in a loop are computed: kept as shapes, never as the zeros
  // the vector was declared with
  std::vector<float> x(3, 0.0f);
  float v = 0.5f;
  for (size_t i = 0; i < x.size(); ++i) {
    x[i] = v;
    v += 0.5f;
  }
  std::vector<float> y(3, 0.0f);
  std::fill(y.begin(), y.end(), 1.0f);
  OpTester test("Softsign", 13);
  test.AddInput<float>("input", {3}, x);
  test.AddOutput<float>("output", {3}, y);
  test.Run();
}

TEST(FerryTesterTest, Conditions) {
  RunTopK(11, 1);
  RunCastTo<int64_t>({2.0f, -1.0f}, {2, -1});
}

TEST(FerryTesterTest, TensorAttribute) {
  // a TensorProto filled by its methods is not a list of values
  OpTester test("ConstantOfShape", 9);
  TensorProto value;
  value.set_data_type(TensorProto_DataType_INT32);
  value.add_int32_data(7);
  test.AddAttribute("value", value);
  test.AddInput<int64_t>("input", {1}, {2});
  test.AddOutput<int32_t>("output", {2}, {7, 7});
  test.Run();
}

template <typename T>
class FerryTypedTest : public ::testing::Test {};
TYPED_TEST_SUITE(FerryTypedTest, float);

TYPED_TEST(FerryTypedTest, BranchOnType) {
  // which branch runs depends on TypeParam: no output can be followed
  OpTester test("Neg", 13);
  if constexpr (std::is_same<TypeParam, float>::value) {
    test.AddInput<float>("X", {1}, {1.0f});
    test.AddOutput<float>("Y", {1}, {-1.0f});
  } else if constexpr (std::is_same<TypeParam, double>::value) {
    test.AddInput<double>("X", {1}, {1.0});
    test.AddOutput<double>("Y", {1}, {-1.0});
  }
  test.Run();
}

// a typed suite: its body runs once per type, through a lambda, to a chained RunWithConfig
template <typename T>
class FerryTypedAbs : public ::testing::Test {};
using FerryAbsTypes = ::testing::Types<float, int32_t>;
TYPED_TEST_SUITE(FerryTypedAbs, FerryAbsTypes);

TYPED_TEST(FerryTypedAbs, PerType) {
  auto run_test = [](bool is_initializer) {
    OpTester test("Abs", 13);
    test.AddInput<TypeParam>("X", {2}, {static_cast<TypeParam>(-2), static_cast<TypeParam>(3)}, is_initializer);
    test.AddOutput<TypeParam>("Y", {2}, {static_cast<TypeParam>(2), static_cast<TypeParam>(3)});
    test.Config(nullptr)
        .RunWithConfig();
  };
  run_test(false);
}

TEST(FerryTesterTest, Deduced) {
  RunIdentity(int8_t(-3), 16);
  RunIdentity(2.5f, 16);
}

TEST(FerryTesterTest, MakeUnique) {
  RunSoftsign(false, 13);
  RunSoftsign(true, 1);
  auto direct = std::make_unique<OpTester>("Softplus", 13);
  direct->AddInput<float>("X", {1}, {0.0f});
  direct->AddOutput<float>("Y", {1}, {0.6931472f});
  direct->Run();
}

TEST(FerryTesterTest, Subclasses) {
  ReduceMaxTester test(18);
  test.AddAttribute("keepdims", int64_t{0});
  test.AddInput<float>("data", {2, 2}, {1.0f, 4.0f, 3.0f, 2.0f});
  test.AddOutput<float>("reduced", {}, {4.0f});
  test.Run();

  AbsThenNegTester two;
  two.AddInput<float>("X", {1}, {-2.0f});
  two.AddOutput<float>("Y", {1}, {-2.0f});
  two.Run();
}

TEST(FerryTesterTest, HelperClass) {
  RandomTanhOpTester test;
  test.Generate(8);
  test.Run();
}

TEST(FerryTesterTest, ProtobufNames) {
  OpTester test("Cast", 13);
  test.AddAttribute("to", int64_t{TensorProto_DataType_INT32});
  test.AddInput<float>("input", {3}, {1.5f, -2.0f, 0.0f});
  test.AddOutput<int32_t>("output", {3}, {1, -2, 0});
  test.Run();

  OpTester eye("EyeLike", 9);
  eye.AddAttribute<int64_t>("dtype", TensorProto::DOUBLE);
  eye.AddInput<float>("T1", {2, 2}, {0.0f, 0.0f, 0.0f, 0.0f});
  eye.AddOutput<double>("T2", {2, 2}, {1.0, 0.0, 0.0, 1.0});
  eye.Run();
}

TEST(FerryTesterTest, MlDomain) {
  OpTester test("Binarizer", 1, onnxruntime::kMLDomain);
  test.AddAttribute("threshold", 0.5f);
  test.AddInput<float>("X", {3}, {0.25f, 0.5f, 0.75f});
  test.AddOutput<float>("Y", {3}, {0.0f, 0.0f, 1.0f});
  test.Run();
}

TEST(FerryTesterTest, UnresolvedStatements) {
  // a sequence of a header ferry does not have: the tester misses an input, so it is counted
  OpTester test("SequenceLength", 11);
  SeqTensors<float> seq;
  seq.AddTensor({1}, {1.0f});
  test.AddSeqInput("S", seq);
  test.AddOutput<int64_t>("len", {}, {1});
  test.Run();

  // a vector from a helper of such a header is computed, not empty
  OpTester mm("MatMulInteger", 10);
  std::vector<uint8_t> a = ToVector<uint8_t>(RandomMatrix(2, 2).data(), 4);
  mm.AddInput<uint8_t>("A", {2, 2}, a);
  mm.AddInput<uint8_t>("B", {2, 1}, {1, 1});
  mm.AddOutput<int32_t>("Y", {2, 1}, {0, 0});
  mm.Run();
}

}  // namespace test
}  // namespace onnxruntime
