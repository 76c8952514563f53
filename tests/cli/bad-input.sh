#!/bin/sh
# Bad input gets a clear error naming the file and line, and the rest of the input still runs.
. "${top_srcdir:-$(dirname "$0")/../..}/tests/setup"
need_python_module onnx
plan 24

# A corpus with a good record, a truncated line, a wrong type, an unknown operator, and a second good one.
cat > corpus.jsonl <<'JSON'
{"library":"onnx","op":"Relu","kind":"node","context":{"opset":{"int":14}},"params":{},"inputs":[{"tensor":{"dtype":"float32","shape":[2,3]}}],"outputs":[{"tensor":{"dtype":"float32","shape":[2,3]}}]}
{"library":"onnx","op":"Abs","kind":"node","context":{"opset":{"int":13}},"params":{},"inputs":[{"tensor":{"dtype":"float32","shape":[2
{"library":"onnx","op":"Transpose","kind":"node","context":{"opset":{"int":13}},"params":{"perm":{"list":[{"int":1},{"float":"zero"}]}},"inputs":[{"tensor":{"dtype":"float32","shape":[2,3]}}]}
{"library":"onnx","op":"NoSuchOperator","kind":"node","context":{"opset":{"int":13}},"params":{},"inputs":[{"tensor":{"dtype":"float32","shape":[2,3]}}],"outputs":[{"tensor":{"dtype":"float32","shape":[2,3]}}]}
{"library":"onnx","op":"Neg","kind":"node","context":{"opset":{"int":13}},"params":{},"inputs":[{"tensor":{"dtype":"float32","shape":[4]}}],"outputs":[{"tensor":{"dtype":"float32","shape":[4]}}]}
JSON

expect_exit 0 "wrap goes on past bad lines" -- "$FERRY" wrap corpus.jsonl -o wrapped -j 1 -q
contains "a truncated line is named by file and line" "$err" "corpus.jsonl:2: truncated JSON"
contains "a wrong type is named by file, line and member" "$err" "corpus.jsonl:3: params.perm[1]: 'zero' is not a float"
contains "an unknown operator is named by file and line" "$err" "corpus.jsonl:4: NoSuchOperator is invalid"
contains "the summary counts the bad lines" "$out" "bad corpus lines     2"
lines=$(wc -l < wrapped/wrapped.jsonl)
check "the three parsable records are wrapped (got $lines)" -- [ "$lines" -eq 3 ]
valid=$(grep -c '"status":"ok"' wrapped/wrapped.jsonl || true)
check "the two good ones are valid (got $valid)" -- [ "$valid" -eq 2 ]

expect_exit 0 "a second wrap resumes" -- "$FERRY" wrap corpus.jsonl -o wrapped -j 1 -q
contains "nothing is wrapped twice" "$out" "already wrapped      3"
lines=$(wc -l < wrapped/wrapped.jsonl)
check "wrapped.jsonl still has one line per instance" -- [ "$lines" -eq 3 ]

expect_exit 4 "a missing corpus is bad input" -- "$FERRY" wrap nosuch.jsonl -o w2
contains "a missing corpus is named" "$err" "cannot open 'nosuch.jsonl': No such file or directory"
expect_exit 4 "a missing store is bad input" -- "$FERRY" report nosuch.db

# A check that would judge nothing is a misconfigured CI job, not a passing one (exit 4), and it is
# refused before the store is made.
expect_exit 4 "a frontend of another library judges nothing" -- "$FERRY" check wrapped -F inductor -o c1.db -q
contains "and says why" "$err" "frontend 'inductor' takes torch models, and 'wrapped' has none"
printf 'junk\n{"no":"id"}\n' > junk.jsonl
expect_exit 4 "a junk queue judges nothing" -- "$FERRY" check wrapped -F ort -o c2.db -q --queue junk.jsonl
contains "and says why" "$err" "the queue 'junk.jsonl' names none of the wrapped models"
expect_exit 4 "run refuses a junk queue too" -- "$FERRY" run wrapped -F ort -o c4.db -q --queue junk.jsonl
check "none of them made a store" -- [ ! -e c1.db -a ! -e c2.db -a ! -e c4.db ]
if "${FERRY_PYTHON:-$top_srcdir/.venv/bin/python}" -c 'import onnxruntime' 2>/dev/null; then
	expect_exit 4 "a limit that leaves every test out judges nothing" -- "$FERRY" check wrapped -F ort -o c5.db -q --limit 0
	contains "and says so" "$err" "check judged no tests on frontend 'ort'"
	expect_exit 0 "the same check with tests to judge passes" -- "$FERRY" check wrapped -F ort -o c5.db -q
	contains "having judged them" "$out" "check ort: 2 tests judged"
else
	for i in 1 2 3 4; do ok 0 "# SKIP onnxruntime is not installed"; done
fi
expect_exit 4 "a wrap directory without wrapped models is bad input" -- "$FERRY" run w2 -F ort -o c6.db -q
finish
