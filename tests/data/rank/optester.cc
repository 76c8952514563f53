// OpTester test("Commented"); must not count
TEST(MathOpTest, Add) {
  OpTester test("Add");
  OpTester test2("Add", 14);
  auto t = std::make_unique<OpTester>("Mul", 7);
  OpTester tester{"Cast", 13};
  const char *s = "OpTester test(\"InAString\")";
  /* OpTester x("BlockComment"); */
  std::string raw = R"(OpTester r("InRaw"))";
  OpTester(kernel_name);  // not a literal: skipped
}
