#!/bin/sh
# ferry's own errors are never the compiler's bugs: a test directory that lost its model is outcome
# error, not a crash; it stays out of ferry bugs and baselines, still fails ferry check (said as
# ferry's), and the same run command run again retries it. A test whose model wrap could not make in
# the frontend's format is error too, but stage "wrap": the check says it was not built and passes.
. "${top_srcdir:-$(dirname "$0")/../..}/tests/setup"
need_python_module onnx
need_python_module onnxruntime
need_python_module torch
need_python_module openvino
py=${FERRY_PYTHON:-$top_srcdir/.venv/bin/python}
plan 15
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

# The template recorded at wrap that it could not make the TorchScript (as when tracing fails): no run
# can fix that, and it says nothing of OpenVINO.
head -n 1 "$top_srcdir/tests/data/torch/models.jsonl" >torch.jsonl
"$FERRY" wrap torch.jsonl -o tw -q >/dev/null
meta=tw/$("$py" -c 'import json, sys
print(json.loads(open(sys.argv[1]).readline())["wrap"]["dir"])' tw/wrapped.jsonl)/meta.json
"$py" -c 'import json, sys
m = json.load(open(sys.argv[1])); m.pop("torchscript", None); m["torchscript_error"] = "tracing failed (injected)"
json.dump(m, open(sys.argv[1], "w"))' "$meta"
expect_exit 0 "a test not built in the frontend's format does not fail the check" -- \
	"$FERRY" check tw -F openvino-pytorch -o t.db -q
contains "it is said not built" "$out" "1 not built in its format"
outcomes=$(sql t.db "SELECT r.outcome || ' ' || r.stage FROM results r")
contains "stored as ferry's error at stage wrap" "$outcomes" "error wrap"
expect_exit 0 "ferry bugs on it" -- "$FERRY" bugs t.db
check "lists no bug" -- sh -c "! printf '%s' \"\$1\" | grep -q conv2d" _ "$out"
