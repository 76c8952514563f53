#!/bin/sh
# Frontends against each other (the differential oracle): ONNX Runtime and a frontend whose Tanh is
# off by one (tests/data/adapters/adapter_graphfault.py) on multi-node graphs
# (tests/data/graphs/graphs.py) disagree exactly on the graph with the Tanh, and the disagreement
# says that ONNX Runtime agrees with the reference; a graph both get right is a pass of the pair, one
# the faulty frontend crashes on has no pair. Node tests pay nothing unless asked (--differential).
. "${top_srcdir:-$(dirname "$0")/../..}/tests/setup"
need_python_module onnx
need_python_module onnxruntime
py=${FERRY_PYTHON:-$top_srcdir/.venv/bin/python}
plan 14
sql() { "$py" -c 'import sqlite3, sys; print("\n".join("|".join(map(str, r)) for r in sqlite3.connect(sys.argv[1]).execute(sys.argv[2])))' "$@"; }

"$py" "$top_srcdir/tests/data/graphs/graphs.py" corpus corpus.jsonl
"$FERRY" wrap corpus.jsonl -o wrapped -q >/dev/null 2>&1 || true
"$py" "$top_srcdir/tests/data/graphs/graphs.py" fill wrapped
id_of() { "$py" -c 'import json, sys
for line in open("wrapped/wrapped.jsonl"):
    r = json.loads(line)
    if r["source"]["test"] == sys.argv[1]:
        print(r["id"])' "$1"; }
tanh=$(id_of tanh)
plain=$(id_of plain)

export FERRY_ADAPTERS="$top_srcdir/tests/data/adapters"
expect_exit 0 "two frontends run the graphs" -- "$FERRY" run wrapped -F ort,graphfault -o r.db -j 2 -q
got=$(sql r.db "SELECT id || ' ' || outcome || ' ' || exc_type FROM results WHERE frontend = 'ort~graphfault' AND outcome = 'mismatch'")
check "exactly one disagreement, on the Tanh graph, ONNX Runtime agreeing with the reference ($got)" -- \
	test "$got" = "$tanh mismatch agrees: ort"
msg=$(sql r.db "SELECT message FROM results WHERE frontend = 'ort~graphfault' AND outcome = 'mismatch'")
contains "it names both, and whose bug it is" "$msg" "graphfault against ort: output 0: "
contains "... the one that disagrees with the reference" "$msg" "ort agrees with the reference: graphfault's bug"
got=$(sql r.db "SELECT outcome FROM results WHERE frontend = 'ort~graphfault' AND id = '$plain'")
check "a graph both get right is a pass of the pair ($got)" -- test "$got" = pass
check "a graph the faulty frontend crashes on has no pair" -- \
	test "$(sql r.db "SELECT count(*) FROM results WHERE frontend = 'ort~graphfault'")" -eq 2
check "each frontend kept its outputs beside the store" -- test -f "r.db.outputs/ort/$tanh/out_0.npy"

expect_exit 0 "bugs groups the disagreement" -- "$FERRY" bugs r.db
contains "as a bug of the pair" "$out" "ort~graphfault mismatch"
bug=$(sql r.db "SELECT bug_id FROM bugs WHERE frontend = 'ort~graphfault'")
# (its exit status is the reproducer's: a graph record's comes from the ONNX template's graph support)
out=$("$FERRY" show r.db "$bug" 2>&1 || true)
contains "show prints it" "$out" "bug $bug: ort~graphfault mismatch"
contains "with the frontend whose bug it is" "$out" "frontends against each other: the reproducer runs graphfault"

"$FERRY" harvest onnx -q -o nodes.jsonl -f test_tanh >/dev/null
"$FERRY" wrap nodes.jsonl -o nodes -q >/dev/null
"$FERRY" run nodes -F ort,graphfault -o n.db -j 2 -q >/dev/null
check "node tests are not compared by default" -- \
	test "$(sql n.db "SELECT count(*) FROM results WHERE frontend LIKE '%~%'")" -eq 0
check "... and keep no outputs" -- test ! -e n.db.outputs
"$FERRY" run nodes -F ort,graphfault -o n2.db -j 2 -q --differential >/dev/null
got=$(sql n2.db "SELECT count(*) FROM results WHERE frontend = 'ort~graphfault' AND outcome = 'mismatch' AND exc_type = 'agrees: ort'")
check "--differential compares them too ($got disagreements)" -- test "$got" -gt 0
finish
