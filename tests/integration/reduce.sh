#!/bin/sh
# ferry reduce on real runs: multi-node ONNX graphs (tests/data/graphs/graphs.py) through ONNX
# Runtime, where nothing fails and nothing is reduced, and through a frontend with a fault in one
# place of a graph (tests/data/adapters/adapter_graphfault.py): a crash only where a Relu is fed by a
# MaxPool, reduced from 7 nodes to exactly those 2, and wrong values from every Tanh, reduced from 6
# nodes to that 1. Then show, bugs and report say so, and the reduced reproducer shows the bug.
. "${top_srcdir:-$(dirname "$0")/../..}/tests/setup"
need_python_module onnx
need_python_module onnxruntime
py=${FERRY_PYTHON:-$top_srcdir/.venv/bin/python}
plan 29
sql() { "$py" -c 'import sqlite3, sys; print("\n".join("|".join(map(str, r)) for r in sqlite3.connect(sys.argv[1]).execute(sys.argv[2])))' "$@"; }
nodes() { "$py" -c 'import onnx, sys; print(",".join(n.op_type + ":" + n.name for n in onnx.load(sys.argv[1] + "/model.onnx").graph.node))' "$1"; }

"$py" "$top_srcdir/tests/data/graphs/graphs.py" corpus corpus.jsonl
"$FERRY" wrap corpus.jsonl -o wrapped -q >/dev/null 2>&1 || true
"$py" "$top_srcdir/tests/data/graphs/graphs.py" fill wrapped
id_of() { "$py" -c 'import json, sys
for line in open("wrapped/wrapped.jsonl"):
    r = json.loads(line)
    if r["source"]["test"] == sys.argv[1]:
        print(r["id"])' "$1"; }
poolrelu=$(id_of pool-relu)
tanh=$(id_of tanh)

expect_exit 0 "the graphs pass through ONNX Runtime" -- "$FERRY" run wrapped -F ort -o ort.db -j 2 -q
contains "all three" "$out" "pass               3"
expect_exit 0 "where nothing fails, reduce reduces nothing" -- "$FERRY" reduce ort.db
contains "and says so" "$out" "0 reduced, 0 not reducible, of 0 multi-node failures taken"
check "and records nothing" -- test "$(sql ort.db 'SELECT count(*) FROM reductions')" -eq 0

export FERRY_ADAPTERS="$top_srcdir/tests/data/adapters"
expect_exit 0 "the graphs run through the faulty frontend" -- "$FERRY" run wrapped -F graphfault -o r.db -j 2 -q
check "one crash, one mismatch, one pass" -- test "$(sql r.db 'SELECT group_concat(outcome) FROM (SELECT outcome FROM results ORDER BY outcome)')" = "crash,mismatch,pass"
expect_exit 0 "reduce runs the candidates, one worker" -- "$FERRY" reduce r.db -j 1
contains "the crash is reduced to the two nodes that decide" "$out" "graphfault $poolrelu: reduced from 7 to 2 nodes (MaxPool,Relu) in 10 candidates"
contains "the mismatch to the one" "$out" "graphfault $tanh: reduced from 6 to 1 nodes (Tanh) in 3 candidates"
got=$(nodes "r.db.reduced/graphfault/$poolrelu")
check "the reduced crash is exactly MaxPool and Relu, named as in the graph ($got)" -- test "$got" = "MaxPool:n2,Relu:n3"
got=$(nodes "r.db.reduced/graphfault/$tanh")
check "the reduced mismatch is exactly the Tanh ($got)" -- test "$got" = "Tanh:n2"
check "the candidates are gone" -- test -z "$(ls -d r.db.reduced/graphfault/*.tmp 2>/dev/null)"
got=$(sql r.db "SELECT status, nodes_before, nodes_after, candidates, ops FROM reductions WHERE id = '$poolrelu'")
check "the store keeps the reduction ($got)" -- test "$got" = "reduced|7|2|10|MaxPool,Relu"
expect_exit 0 "a second reduce does nothing again" -- "$FERRY" reduce r.db
contains "and says why" "$out" "2 reduced before (--again reduces them again)"
expect_exit 0 "--again with several workers finds the same" -- "$FERRY" reduce r.db --again -j 2
contains "the same two nodes" "$out" "reduced from 7 to 2 nodes (MaxPool,Relu)"

expect_exit 0 "bugs lists them" -- "$FERRY" bugs r.db
contains "with the decisive operators of the crash" "$out" "reduced from 7 to 2 nodes: MaxPool,Relu"
contains "and the decisive operator of the mismatch" "$out" "reduced from 6 to 1 node: Tanh (the decisive operator)"
got=$(sql r.db "SELECT ops FROM bugs ORDER BY ops" | tr '\n' ' ')
check "the bugs group by what decides them, not as 'graph' (got $got)" -- test "$got" = "graph:MaxPool,Relu graph:Tanh "
expect_exit 0 "report lists them" -- "$FERRY" report r.db
contains "under each failure" "$out" "reduced from 6 to 1 node: Tanh"
bug=$(sql r.db "SELECT bug_id FROM bugs WHERE outcome = 'crash'")
expect_exit 0 "show prints the crash's bug" -- "$FERRY" show r.db "$bug" -o bug
contains "reduced, with its subgraph" "$out" "reduced from 7 to 2 nodes (MaxPool,Relu): $PWD/r.db.reduced/graphfault/$poolrelu"
check "its ONNX test is the reduced model" -- test "$(nodes "bug/test_MaxPool_Relu_$(printf %.12s "$poolrelu")")" = "MaxPool:n2,Relu:n3"
expect_exit 1 "the reduced reproducer shows the bug" -- "$py" bug/reproducer.py
contains "the frontend raises on the subgraph" "$out" "BUG: graphfault raised"
finish
