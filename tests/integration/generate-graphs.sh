#!/bin/sh
# Graph records (kind "graph", as ferry generate writes them) through the pipeline unchanged:
# wrap (each model passes the checker; a node's wrong claim is named; non-finite graphs are marked),
# rank, run on ONNX Runtime with the outcomes asserted, failures on graphs grouped into bugs like
# any others (through the fault-injecting frontend), a reproducer, and their coverage.
# The graphs are written by hand: tests/data/gen-graphs/graphs.jsonl.
. "${top_srcdir:-$(dirname "$0")/../..}/tests/setup"
need_python_module onnx
need_python_module onnxruntime
py=${FERRY_PYTHON:-$top_srcdir/.venv/bin/python}
plan 24
sql() { "$py" -c 'import sqlite3, sys; print("\n".join("|".join(map(str, r)) for r in sqlite3.connect(sys.argv[1]).execute(sys.argv[2])))' "$@"; }
graphs="$top_srcdir/tests/data/gen-graphs/graphs.jsonl"
# The wrap annotation of the graph named NAME in its source.
annotation() { "$py" -c 'import json, sys
for line in open(sys.argv[1]):
    r = json.loads(line)
    if r["source"]["test"] == sys.argv[2]:
        print(json.dumps(r["wrap"], sort_keys=True))' wrapped/wrapped.jsonl "$1"; }

expect_exit 0 "wrap the graphs" -- "$FERRY" wrap "$graphs" -o wrapped -j 2
contains "... 12 valid" "$out" "valid              12"
contains "... 1 invalid, the wrong claim named by its node and operator" "$out" \
	"SpecDisagrees: spec disagrees with ONNX shape inference: node 3 (MaxPool) output 0: spec [1,4,2,2], onnx [1,4,3,3]"
got=$(annotation wrong-maxpool-claim)
contains "... in wrapped.jsonl too" "$got" '"status": "invalid"'
checked=$("$py" -c 'import glob, sys, onnx
n = 0
for path in glob.glob("wrapped/tests/*/*/model.onnx"):
    onnx.checker.check_model(onnx.load(path), full_check=True)
    n += 1
print(n)' 2>&1)
check "every model written passes the checker with strict shape inference ($checked)" -- [ "$checked" = 12 ]
got=$(annotation exp-neg-log-nan)
contains "a graph NaN for every input is marked undefined" "$got" '"undefined": "the reference is NaN everywhere"'
got=$(annotation reciprocal-of-zero-inf)
contains "a graph Inf for every input is marked undefined" "$got" '"undefined": "the reference is not finite'
got=$(annotation sqrt-log-needs-positive)
contains "a graph finite on other inputs is not marked" "$got" '"status": "ok"'
check "... its inputs drawn from a range that makes it finite" -- \
	grep -q '"bounds": \[' $(ls -d wrapped/tests/*/* | while read -r d; do grep -l '"Sqrt"' "$d/meta.json"; done)

expect_exit 0 "rank the graphs" -- "$FERRY" rank wrapped/wrapped.jsonl -o queue.jsonl
n=$(wc -l < queue.jsonl)
check "... every graph is in the queue ($n)" -- [ "$n" -eq 13 ]

expect_exit 0 "run them on ONNX Runtime" -- "$FERRY" run wrapped -F ort -o results.db --queue queue.jsonl -j 2
outcomes=$(sql results.db "SELECT outcome, count(*) FROM results WHERE frontend = 'ort' GROUP BY outcome ORDER BY outcome" | tr '\n' ' ')
check "11 pass, the integer division by zero is undefined (got $outcomes)" -- [ "$outcomes" = "pass|11 undefined|1 " ]
msg=$(sql results.db "SELECT message FROM results WHERE outcome = 'undefined'")
contains "... said by node" "$msg" "node 1 (Div): integer division by zero"
op=$(sql results.db "SELECT DISTINCT op FROM instances")
check "the store keeps them as graphs (got $op)" -- [ "$op" = graph ]

# Crashes on graphs group as any do: the fault-injecting frontend dies with SIGSEGV on a model whose
# first node is a Relu (three graphs: one here, two of the coverage test's).
"$FERRY" wrap "$top_srcdir/tests/data/coverage/graphs.jsonl" -o wrapped -q >/dev/null
"$py" -c 'import json, sys
for line in open(sys.argv[1]):
    r = json.loads(line)
    if r["wrap"]["status"] == "ok" and r["graph"]["nodes"][0]["op"] == "Relu":
        print(json.dumps({"id": r["id"]}))' wrapped/wrapped.jsonl > relu.jsonl
check "three graphs begin with a Relu" -- [ "$(wc -l < relu.jsonl)" -eq 3 ]
export FERRY_ADAPTERS="$top_srcdir/tests/data/adapters"
expect_exit 0 "a faulty frontend crashes on them" -- \
	"$FERRY" run wrapped -F fault:onnx -o faults.db --queue relu.jsonl -j 1 --no-probe -q
expect_exit 0 "their failures group into bugs" -- "$FERRY" bugs faults.db
contains "... one bug of three failures" "$out" "1 unique bug from 3 failures"
# A graph whose reference is not finite has its values in question, not its conversion: the
# frontend raising on it (its first node is an Exp) is still a crash.
"$py" -c 'import json, sys
for line in open(sys.argv[1]):
    r = json.loads(line)
    if r.get("source", {}).get("test") == "exp-neg-log-nan" and r["wrap"]["status"] == "ok":
        print(json.dumps({"id": r["id"]}))' wrapped/wrapped.jsonl > nan.jsonl
expect_exit 0 "the faulty frontend on the NaN graph" -- \
	"$FERRY" run wrapped -F fault:onnx -o nan.db --queue nan.jsonl -j 1 --no-probe -q
got=$(sql nan.db "SELECT outcome FROM results")
check "... a crash on a graph whose reference is not finite stays a crash (got $got)" -- [ "$got" = crash ]

# A reproducer of a graph test, standalone: it rebuilds the graph and agrees with ORT.
rec=$(grep '"test":"split-two-outputs"' wrapped/wrapped.jsonl)
dir=wrapped/$(printf '%s' "$rec" | "$py" -c 'import json, sys; print(json.load(sys.stdin)["wrap"]["dir"])')
printf '%s' "$rec" | PYTHONPATH="$top_builddir/python" "$py" -c 'import sys
from ferry.oracle import reproducer
open("repro.py", "w").write(reproducer.reproducer("onnx", sys.stdin.read(), sys.argv[1], "ort"))' "$dir"
set +e; env -i "$py" repro.py > repro.out 2>&1; rc=$?; set -e
check "a graph's reproducer runs without ferry and agrees with ORT (exit $rc)" -- \
	sh -c "[ $rc -eq 0 ] && grep -q 'no bug: ort agrees' repro.out"

expect_exit 0 "the coverage of the wrapped graphs" -- "$FERRY" coverage --json wrapped/wrapped.jsonl
contains "... 14 valid graphs of 43 nodes, the invalid one left out" "$out" '"graphs":14,"invalid":1,"bad_lines":0,"operations":43,'
finish
