// ferry's own test file in the style of ONNX Runtime's operator tests (onnxruntime/test/providers/cpu/):
// helpers with an attributes struct, templates per element type, an operator name passed as a
// string, a lambda computing expected outputs, a loop of random data, an expected failure.
#include "gtest/gtest.h"
#include "test/providers/provider_test_utils.h"

namespace onnxruntime {
namespace test {

namespace {
struct GemmAttributes {
  float alpha;
  float beta;
  int64_t trans_a;
  int64_t trans_b;
};

constexpr int64_t kRows = 2;

void RunGemm(const GemmAttributes& attrs, const std::vector<float>& a, const std::vector<float>& b,
             std::initializer_list<float> expected) {
  OpTester test("Gemm", 13);
  test.AddAttribute("alpha", attrs.alpha);
  test.AddAttribute("beta", attrs.beta);
  if (attrs.trans_a != 0) {
    test.AddAttribute("transA", attrs.trans_a);
  }
  test.AddAttribute("transB", attrs.trans_b);
  test.AddInput<float>("A", {kRows, 2}, a);
  test.AddInput<float>("B", {2, 2}, b);
  test.AddOutput<float>("Y", {kRows, 2}, expected);
  test.Run();
}

template <typename T>
void RunAdd(const std::vector<T>& x, const std::vector<T>& y, const std::vector<T>& z) {
  OpTester test("Add", 14);
  test.AddInput<T>("A", {3}, x);
  test.AddInput<T>("B", {3}, y);
  test.AddOutput<T>("C", {3}, z);
  test.Run();
}

void RunUnary(const char* op, std::vector<float> x, std::vector<float> y, int opset = 14) {
  OpTester test(op, opset);
  test.AddInput<float>("X", {static_cast<int64_t>(x.size())}, x);
  test.AddOutput<float>("Y", {static_cast<int64_t>(y.size())}, y);
  test.Run();
}
}  // namespace

TEST(FerryStyleTest, GemmStruct) {
  RunGemm({1.0f, 0.0f, 0, 1}, {1.0f, 2.0f, 3.0f, 4.0f}, {1.0f, 0.0f, 0.0f, 1.0f}, {1.0f, 2.0f, 3.0f, 4.0f});
  RunGemm({2.0f, 0.0f, 1, 0}, {1.0f, 2.0f, 3.0f, 4.0f}, {1.0f, 0.0f, 0.0f, 1.0f}, {2.0f, 6.0f, 4.0f, 8.0f});
}

TEST(FerryStyleTest, AddPerType) {
  RunAdd<float>({1.5f, 2.0f, -1.0f}, {0.5f, 1.0f, 1.0f}, {2.0f, 3.0f, 0.0f});
  RunAdd<int32_t>({1, 2, 3}, {4, 5, 6}, {5, 7, 9});
  RunAdd<int64_t>({-1, 0, 1}, {1, 1, 1}, {0, 1, 2});
}

TEST(FerryStyleTest, UnaryByName) {
  RunUnary("Relu", {-1.0f, 0.0f, 2.5f}, {0.0f, 0.0f, 2.5f});
  RunUnary("Neg", {-1.0f, 0.0f, 2.5f}, {1.0f, 0.0f, -2.5f}, 13);
}

TEST(FerryStyleTest, TransposeLiterals) {
  OpTester test("Transpose", 13);
  std::vector<int64_t> perm = {1, 0};
  test.AddAttribute("perm", perm);
  std::vector<int64_t> dims{2, 3};
  test.AddInput<float>("X", dims, {1.0f, 2.0f, 3.0f, 4.0f, 5.0f, 6.0f});
  test.AddOutput<float>("Y", {3, 2}, {1.0f, 4.0f, 2.0f, 5.0f, 3.0f, 6.0f});
  test.Run();
}

TEST(FerryStyleTest, LeakyReluLambda) {
  const float alpha = 0.5f;
  auto expected = [&](const std::vector<float>& x) {
    std::vector<float> y;
    for (float v : x) y.push_back(v > 0 ? v : alpha * v);
    return y;
  };
  std::vector<float> x = {-2.0f, 1.0f};
  OpTester test("LeakyRelu", 16);
  test.AddAttribute("alpha", alpha);
  test.AddInput<float>("X", {2}, x);
  test.AddOutput<float>("Y", {2}, expected(x));
  test.Run();
}

TEST(FerryStyleTest, RandomLoop) {
  for (int i = 0; i < 3; i++) {
    OpTester test("Sigmoid", 13);
    std::vector<float> x(4);
    test.AddInput<float>("X", {4}, x);
    test.AddOutput<float>("Y", {4}, x);
    test.Run();
  }
}

TEST(FerryStyleTest, ReshapeExpectFailure) {
  OpTester test("Reshape", 14);
  test.AddInput<float>("data", {2, 2}, {1.0f, 2.0f, 3.0f, 4.0f});
  test.AddInput<int64_t>("shape", {1}, {3});
  test.AddOutput<float>("reshaped", {3}, {1.0f, 2.0f, 3.0f});
  test.Run(OpTester::ExpectResult::kExpectFailure, "cannot reshape");
}

// a fixture holding the tester and its data, as ONNX Runtime's Flatten tests do
class FerryFixtureTest : public testing::Test {
 public:
  FerryFixtureTest() : test_("Flatten", 13), data_(6, 2.0f) {}

 protected:
  OpTester test_;
  const std::vector<float> data_;
};

TEST_F(FerryFixtureTest, FlattenAxis2) {
  test_.AddAttribute<int64_t>("axis", 2L);
  test_.AddInput<float>("data", {1L, 2L, 3L}, data_);
  test_.AddOutput<float>("output", {2L, 3L}, data_);
  test_.Run();
}

}  // namespace test
}  // namespace onnxruntime
