// ferry's own test file in the style of libtorch's C++ API tests (test/cpp/api/): modules built from
// their options builders, functionals with their FuncOptions, tensors from literals and factories.
// It is read by ferry harvest torch --cpp, never compiled.
#include <gtest/gtest.h>

#include <torch/torch.h>

namespace F = torch::nn::functional;

using namespace torch::nn;

struct FerryApiTest : torch::test::SeedingFixture {};

TEST_F(FerryApiTest, Conv2dOptions) {
  Conv2d model(Conv2dOptions(3, 2, {3, 2}).stride(2).padding(1).bias(false));
  auto x = torch::randn({1, 3, 6, 5});
  auto y = model(x);
  ASSERT_EQ(y.ndimension(), 4);
  Conv1d unused(Conv1dOptions(1, 1, 1));
}

TEST(FerryApiTest, LinearPositional) {
  Linear model(4, 2);
  model->eval();
  auto y = model->forward(torch::ones({2, 4}));
  ASSERT_EQ(y.size(1), 2);
}

TEST_F(FerryApiTest, Functionals) {
  auto x = torch::tensor({{1.0, -2.0}, {3.0, -4.0}});
  auto y = F::softmax(x, F::SoftmaxFuncOptions(1));
  y = F::leaky_relu(x, F::LeakyReLUFuncOptions().negative_slope(0.5));
  auto z = torch::arange(6., torch::kFloat).view({1, 2, 3});
  y = F::pad(z, F::PadFuncOptions({1, 1}).mode(torch::kReflect));
  y = F::mse_loss(torch::ones({2, 2}), torch::zeros({2, 2}), F::MSELossFuncOptions(torch::kSum));
  ASSERT_THROWS_WITH(F::softmax(x, 5), "Dimension out of range");
}

TEST_F(FerryApiTest, Loops) {
  const auto x = torch::linspace(-1.0, 1.0, 4);
  for (const auto lambda : {0.5, 1.0}) {
    auto y = F::hardshrink(x, F::HardshrinkFuncOptions().lambda(lambda));
    ASSERT_EQ(y.size(0), 4);
  }
  for (int i = 0; i < 3; i++) {
    auto y = F::dropout(torch::randn({i + 1, 2}), F::DropoutFuncOptions().p(0.1));
  }
  auto w = F::relu(torch::randn({2}) * 2);
}

TEST_F(FerryApiTest, Embedding) {
  const int64_t dict_size = 10;
  Embedding emb(EmbeddingOptions(dict_size, 3).padding_idx(0));
  auto y = emb(torch::tensor({{1, 2}, {0, dict_size - 1}}));
  BatchNorm bn(5);
  bn(torch::ones({2, 5}));
  LogSigmoid model;
  auto z = model(torch::ones({3}, torch::kDouble));
}

// a helper of the file, called with and without its default argument: followed into its body
torch::Tensor softplus_of(const torch::Tensor& x, double beta = 2.0) {
  auto y = F::softplus(x, F::SoftplusFuncOptions().beta(beta));
  return y;
}

TEST_F(FerryApiTest, Helper) {
  auto x = torch::tensor({0.0, 1.0});
  auto y = softplus_of(x);
  auto z = softplus_of(x, 0.5);
}
