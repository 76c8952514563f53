#!/bin/sh
# The C++ harvester's records through the real pipeline: ferry's ONNX Runtime-style test file
# (tests/data/cpp/ort/) harvested with libclang, wrapped (the C++ test's expected outputs checked
# against onnx's reference evaluator as a second reference) and run through ONNX Runtime.
. "${top_srcdir:-$(dirname "$0")/../..}/tests/setup"
"$FERRY" --version 2>&1 | grep -q 'libclang' || skip_all "ferry was built without libclang"
need_python_module onnx
need_python_module onnxruntime
py=${FERRY_PYTHON:-$top_srcdir/.venv/bin/python}
plan 13

cp "$top_srcdir/tests/data/cpp/ort/ops_test.cc" .
expect_exit 0 "harvest onnx --cpp" -- "$FERRY" harvest onnx --cpp ops_test.cc -q -o corpus.jsonl
expect_exit 0 "wrap the harvested instances" -- "$FERRY" wrap corpus.jsonl -o w -j 2 -q
contains "every instance is valid" "$out" "valid              10"
# Each instance whose C++ test wrote its expected outputs carries the comparison in its meta.json.
"$py" - w <<'PY' > expected.txt
import glob, json, sys
n = agree = 0
for m in glob.glob(sys.argv[1] + "/tests/*/*/meta.json"):
    e = json.load(open(m)).get("expected")
    if e:
        n += 1
        agree += e["agrees"]
print(n, agree)
PY
check "the 9 instances with expected outputs are compared with the reference" -- grep -qx "9 9" expected.txt
# A test expectation that contradicts the reference is marked, not trusted: flip one expected value.
sed 's/"values":\[0,0,2.5\]/"values":[0,1,2.5]/' corpus.jsonl | grep '"op":"Relu"' > bad.jsonl
expect_exit 0 "wrap an instance whose expected output is wrong" -- "$FERRY" wrap bad.jsonl -o wb -j 1 -q
check "its meta marks the disagreement with the reference" -- \
	"$py" -c 'import glob, json, sys; e = json.load(open(glob.glob("wb/tests/*/*/meta.json")[0]))["expected"]; sys.exit(e["agrees"] or e["disagree"][0]["where"] != "element 1")'
expect_exit 0 "run them through ONNX Runtime" -- "$FERRY" run w --frontend ort -o store.db -j 2 -q
expect_exit 0 "run the instance whose expected output is wrong" -- "$FERRY" run wb --frontend ort -o bad.db -j 1 -q
check "the report shows it as a spec question" -- sh -c '"$1" report bad.db | grep -A1 "^spec questions: 1 of the 1 instances" | grep -q "Relu .* element 1"' sh "$FERRY"
# The other ways ONNX Runtime's tests make testers (tests/data/cpp/ort/testers_test.cc): every record
# wraps into a valid model and ONNX Runtime passes each.
cp "$top_srcdir/tests/data/cpp/ort/testers_test.cc" .
expect_exit 0 "harvest the file of testers" -- "$FERRY" harvest onnx --cpp testers_test.cc -q -o testers.jsonl
expect_exit 0 "wrap them" -- "$FERRY" wrap testers.jsonl -o wt -j 2 -q
contains "every one is valid" "$out" "valid              15"
expect_exit 0 "run them through ONNX Runtime" -- sh -c '"$1" run wt --frontend ort -o t.db -j 2 -q | grep -q "pass               15"' sh "$FERRY"
finish
