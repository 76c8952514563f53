// OpTester test("Commented"); must not count
namespace onnxruntime {
namespace test {

TEST(MathOpTest, Add) {
  OpTester test("Add");
  test.Run();
  OpTester test2("Add", 14);
  test2.Run();
  OpTester mul("Mul", 7);
  mul.Run();
  OpTester tester{"Cast", 13};
  tester.Run();
  const char *s = "OpTester test(\"InAString\")";
  /* OpTester x("BlockComment"); */
  const char *raw = R"(OpTester r("InRaw"))";
}

}  // namespace test
}  // namespace onnxruntime
