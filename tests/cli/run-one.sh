#!/bin/sh
# ferry run --one TESTDIR -F NAME: one test directory (wrapped here from a tiny ONNX corpus) through
# one adapter in a watched worker, what happened printed and nothing stored: a pass through ORT, and
# the faults of the fault-injecting adapter (tests/data/adapters/adapter_fault.py: the operator
# picks the fault), each with how its outcome was decided and check's exit code.
. "${top_srcdir:-$(dirname "$0")/../..}/tests/setup"
need_python_module onnx
need_python_module onnxruntime
py=${FERRY_PYTHON:-$top_srcdir/.venv/bin/python}
plan 31

"$FERRY" harvest onnx -q -o corpus.jsonl -f test_relu -f test_exp -f test_floor -f test_ceil >/dev/null
"$FERRY" wrap corpus.jsonl -o wrapped -q >/dev/null
dir_of() { "$py" -c 'import json, sys
for line in open(sys.argv[1]):
    r = json.loads(line)
    if r["op"] == sys.argv[2] and r["wrap"]["status"] == "ok":
        print("wrapped/" + r["wrap"]["dir"]); break' wrapped/wrapped.jsonl "$1"; }
relu=$(dir_of Relu)
check "a Relu test directory ($relu)" -- test -f "$relu/model.onnx"

expect_exit 0 "a passing test exits 0" -- "$FERRY" run --one "$relu" -F ort
contains "it names the test and its operator" "$out" "test       $relu (Relu)"
contains "the frontend and its version" "$out" "frontend   ort 1."
contains "each stage with its time" "$out" "stages     load "
contains "... up to execute" "$out" ", execute "
contains "the outcome" "$out" "outcome    pass"
contains "decided by the value oracle" "$out" "decided    the outputs against the references"
contains "the outputs beside the references" "$out" "got float32 (3, 4, 5), reference float32 (3, 4, 5)"
contains "the tolerance" "$out" "tolerance: atol 0.001, rtol 0.001"
contains "the largest difference" "$out" "max |got - want|: 0"
check "nothing is stored" -- test -z "$(ls ./*.db 2>/dev/null)"

export FERRY_ADAPTERS="$top_srcdir/tests/data/adapters"
expect_exit 1 "an exception is a failure: exit 1" -- "$FERRY" run --one "$(dir_of Exp)" -F fault:onnx
contains "a crash in execute" "$out" "outcome    crash in stage execute"
contains "with the exception" "$out" "exception  RuntimeError: "
contains "and its innermost frame" "$out" "innermost  File \""
expect_exit 0 "an unsupported test exits 0" -- "$FERRY" run --one "$(dir_of Floor)" -F fault:onnx
contains "unsupported" "$out" "outcome    unsupported in stage execute"
contains "with the pattern that matched, its file and line" "$out" "adapters/unsupported/fault.txt:2: is not supported by this frontend"
expect_exit 1 "a wrong answer exits 1" -- "$FERRY" run --one "$(dir_of Ceil)" -F fault:onnx
contains "a mismatch, with what differs" "$out" "mismatch   output 0: "
expect_exit 1 "a worker's death exits 1" -- "$FERRY" run --one "$relu" -F fault:onnx
contains "a crash in compile" "$out" "outcome    crash in stage compile"
contains "the signal that ended the worker" "$out" "SIGSEGV"

# The test as the run takes it from its wrap: random outputs skip the value oracle, and a failure on
# inputs in the operator's undefined domain is no bug (the wrap's annotations say which).
annotate() { "$py" -c 'import json, sys
lines = []
for line in open("wrapped/wrapped.jsonl"):
    r = json.loads(line)
    if r["op"] == "Ceil":
        r["wrap"][sys.argv[1]] = json.loads(sys.argv[2])
    lines.append(json.dumps(r) + "\n")
open("wrapped/wrapped.jsonl", "w").writelines(lines)' "$@"; }
cp wrapped/wrapped.jsonl wrapped.jsonl.orig
annotate random true
expect_exit 0 "a test with random outputs skips the value oracle, as in a run" -- \
	"$FERRY" run --one "$(dir_of Ceil)" -F fault:onnx
contains "its wrong answer passes" "$out" "outcome    pass"
cp wrapped.jsonl.orig wrapped/wrapped.jsonl
annotate undefined '"division by zero"'
expect_exit 0 "a failure in the undefined domain is no failure, as in a run" -- \
	"$FERRY" run --one "$(dir_of Ceil)" -F fault:onnx
contains "it says so" "$out" "undefined  division by zero: a run records this mismatch as undefined, not as a failure"
cp wrapped.jsonl.orig wrapped/wrapped.jsonl

expect_exit 4 "a directory that is no test is bad input" -- "$FERRY" run --one wrapped -F ort
contains "the error names it" "$err" "'wrapped' is not a wrapped test directory"
expect_exit 2 "--one with a store is a usage error" -- "$FERRY" run --one "$relu" -F ort -o x.db
finish
