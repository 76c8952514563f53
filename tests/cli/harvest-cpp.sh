#!/bin/sh
# ferry harvest onnx --cpp: ferry's own test file in ONNX Runtime's style (tests/data/cpp/ort/), read
# with libclang into exactly the expected records; what it cannot follow counted by reason; count-tests
# through the same front end; the errors of the options.
. "${top_srcdir:-$(dirname "$0")/../..}/tests/setup"
"$FERRY" --version 2>&1 | grep -q 'libclang' || skip_all "ferry was built without libclang"
data=$top_srcdir/tests/data/cpp
plan 33

cp "$data/ort/ops_test.cc" .
expect_exit 0 "harvest onnx --cpp reads the file" -- "$FERRY" harvest onnx --cpp ops_test.cc -q -o corpus.jsonl
check "the records are exactly the expected ones" -- cmp corpus.jsonl "$data/ort/expected.jsonl"
contains "a tester built in a loop is counted, not recorded" "$out" "1  a tester built in a loop"
contains "the expected failure is counted, not recorded" "$out" "1  an expected failure (ExpectResult::kExpectFailure)"
contains "every helper call site reaches its Run" "$out" "Runs reached                        12"
check "the helper with an attributes struct gives transA only where it is set" -- \
	grep -q '"params":{"alpha":{"float":2},"beta":{"float":0},"transA":{"int":1},"transB":{"int":0}}' corpus.jsonl
check "the template is instantiated per element type" -- grep -q '"dtype":"int32","shape":\[3\],"values":\[1,2,3\]' corpus.jsonl
check "a TEST_F reaches the tester and the data its fixture holds" -- \
	grep -q '"op":"Flatten".*"params":{"axis":{"int":2}},"source":{"suite":"ort-cpp","test":"FerryFixtureTest.FlattenAxis2"' corpus.jsonl
check "the provenance names the TEST and the AddInput lines" -- \
	grep -q '"test":"FerryStyleTest.TransposeLiterals","file":"ops_test.cc","line":68,"tester_line":69,"input_lines":\[73\]' corpus.jsonl

# The other ways ONNX Runtime's tests make testers, and what libclang cannot resolve without the
# checkout's headers (tests/data/cpp/ort/testers_test.cc).
cp "$data/ort/testers_test.cc" .
expect_exit 0 "harvest the file of testers" -- "$FERRY" harvest onnx --cpp testers_test.cc -q -o testers.jsonl
check "its records are exactly the expected ones" -- cmp testers.jsonl "$data/ort/testers-expected.jsonl"
contains "a tester made with std::make_unique, declared or assigned, reaches its Run" "$out" "testers reached from a TEST         21"
check "auto = std::make_unique<OpTester> is followed through ->" -- grep -q '"op":"Softplus"' testers.jsonl
check "a subclass of OpTester takes its operator and opset from the base's initializer" -- \
	grep -q '"opset":{"int":18}},"inputs".*"op":"ReduceMax".*"params":{"keepdims":{"int":0}}' testers.jsonl
contains "a subclass that adds nodes of its own is counted" "$out" "1  a tester subclass that adds nodes of its own (AddNodes)"
contains "a helper class that only has OpTester in its name is not a tester, and is counted" "$out" \
	"1  a tester made by a method of a helper class"
check "onnx's protobuf names give attribute values" -- grep -q '"op":"Cast".*"params":{"to":{"int":6}}' testers.jsonl
check "an operator of the ML domain is named with its domain" -- grep -q '"op":"ai.onnx.ml.Binarizer"' testers.jsonl
contains "a statement libclang dropped taints its tester" "$out" \
	"1  a call libclang could not resolve (a type of a header ferry does not have)"
check "a false condition leaves its variable alone: the next condition on it adds the input" -- \
	grep -q '"inputs":\[{"tensor":{"dtype":"float32","shape":\[3\],"values":\[1,3,2\]}},{"tensor":{"dtype":"int64","shape":\[1\],"values":\[1\]}}\],"kind":"node","library":"onnx","op":"TopK"' testers.jsonl
check "utils::ToTensorProtoElementType<T>() and narrow give the type's number and the sizes" -- \
	grep -q '"opset":{"int":19}},"inputs":\[{"tensor":{"dtype":"float32","shape":\[2\].*"op":"Cast".*"params":{"to":{"int":7}}' testers.jsonl
contains "a TensorProto attribute is counted, not a list" "$out" "1  an object the harvester cannot follow (a TensorProto, a map)"
contains "outputs only in branches on TYPED_TEST's type are counted" "$out" "1  a tester without an output the harvester could follow"
check "an attribute passed by pointer is read through it, and left out for nullptr" -- \
	sh -c 'grep "\"op\":\"Transpose\",.*\"test\":\"FerryTesterTest.Pointers\"" testers.jsonl | grep -c "\"params\":{\"perm\":{\"list\":\[{\"int\":1},{\"int\":0}\]}}\|\"params\":{}" | grep -qx 2'
check "a vector written element by element or through an iterator is kept as a shape, not its old values" -- \
	grep -q '"inputs":\[{"tensor":{"dtype":"float32","shape":\[3\]}}\],"kind":"node","library":"onnx","op":"Softsign","outputs":\[{"tensor":{"dtype":"float32","shape":\[3\]}}\]' testers.jsonl
check "a TYPED_TEST runs once per type of its suite, through a lambda, to a chained RunWithConfig" -- \
	sh -c 'grep "\"op\":\"Abs\"" testers.jsonl | grep -c "\"dtype\":\"\(float32\|int32\)\",\"shape\":\[2\],\"values\":\[-2,3\]" | grep -qx 2'
check "an element type the call does not write is deduced from the argument" -- \
	grep -q '"dtype":"int8","shape":\[2\],"values":\[-3,-3\]' testers.jsonl

expect_exit 0 "count-tests reads ONNX Runtime's C++ with libclang" -- "$FERRY" count-tests --library onnx ops_test.cc -o counts.json
check "each helper call site counts for its operator" -- grep -q '"Add": 3' counts.json
check "the tester in a loop still counts once" -- grep -q '"Sigmoid": 1' counts.json

expect_exit 2 "--cpp is for onnx and torch" -- "$FERRY" harvest keras --cpp ops_test.cc -o x.jsonl
expect_exit 4 "a missing --cpp path is bad input" -- "$FERRY" harvest onnx --cpp missing.cc -o x.jsonl
expect_exit 2 "-I goes with --cpp" -- "$FERRY" harvest onnx -I inc -o x.jsonl
finish
