#!/bin/sh
# ferry's own errors are never the compiler's bugs: a test directory that lost its model is outcome
# error, not a crash; it stays out of ferry bugs and baselines, still fails ferry check (said as
# ferry's), and the same run command run again retries it.
. "${top_srcdir:-$(dirname "$0")/../..}/tests/setup"
need_python_module onnx
need_python_module onnxruntime
py=${FERRY_PYTHON:-$top_srcdir/.venv/bin/python}
plan 10
sql() { "$py" -c 'import sqlite3, sys; print("\n".join("|".join(map(str, r)) for r in sqlite3.connect(sys.argv[1]).execute(sys.argv[2])))' "$@"; }

"$FERRY" harvest onnx -q -o corpus.jsonl -f test_relu -f test_abs >/dev/null
"$FERRY" wrap corpus.jsonl -o wrapped -q >/dev/null
relu=wrapped/$("$py" -c 'import json, sys
print(next(r["wrap"]["dir"] for r in map(json.loads, open(sys.argv[1])) if r["op"] == "Relu"))' wrapped/wrapped.jsonl)
mv "$relu/model.onnx" model.saved

expect_exit 1 "a test that lost its model fails the check" -- "$FERRY" check wrapped -F ort -o a.db -q
contains "said as ferry's error, not the frontend's" "$out" "FERRY  error"
contains "and why the check failed" "$out" "ferry could not run 1 test"
outcomes=$(sql a.db "SELECT r.outcome FROM results r JOIN instances i USING(id) WHERE i.op = 'Relu'")
contains "the missing model is ferry's error, not a crash" "$outcomes" "error"
expect_exit 0 "ferry bugs" -- "$FERRY" bugs a.db
check "lists no bug for it" -- sh -c "! printf '%s' \"\$1\" | grep -q Relu" _ "$out"
expect_exit 0 "ferry baseline" -- "$FERRY" baseline a.db -o known.txt
check "leaves it out" -- sh -c "! grep -q Relu known.txt"

mv model.saved "$relu/model.onnx"
expect_exit 0 "run again with the model back: the error is retried, and passes" -- \
	"$FERRY" check wrapped -F ort -o a.db -q
outcomes=$(sql a.db "SELECT group_concat(DISTINCT r.outcome) FROM results r JOIN instances i USING(id) WHERE i.op = 'Relu'")
contains "its result is now a pass" "$outcomes" "pass"
