#!/bin/sh
# The metamorphic oracle end to end: ONNX Runtime on a few ONNX node tests (m and m' agree, every
# mutation valid), then a fault-injecting frontend (tests/data/adapters/adapter_meta.py) that is
# wrong only where mutations 1 and 3 are both present: the inconsistency is found, reduced to those
# two and their dependencies without junk, grouped, and shown with a reproducer that exits 1; a
# frontend that crashes on m' alone, and one that dies while a reduction runs, cost no more than that.
. "${top_srcdir:-$(dirname "$0")/../..}/tests/setup"
need_python_module onnx
need_python_module onnxruntime
py=${FERRY_PYTHON:-$top_srcdir/.venv/bin/python}
plan 25
sql() { "$py" -c 'import sqlite3, sys; print("\n".join("|".join(map(str, r)) for r in sqlite3.connect(sys.argv[1]).execute(sys.argv[2])))' "$@"; }

"$FERRY" harvest onnx -q -o corpus.jsonl -f test_relu -f test_add -f test_sigmoid -f test_matmul_2d \
	-f test_softmax_example -f test_conv_with_strides_padding -f test_and2d >/dev/null
"$FERRY" wrap corpus.jsonl -o wrapped -q >/dev/null
n=$(grep -c '"status":"ok"' wrapped/wrapped.jsonl)

expect_exit 0 "ONNX Runtime under the metamorphic oracle" -- \
	"$FERRY" run wrapped -F ort --oracle metamorphic -k 3 --seed 1 -o ort.db -q -j 2
got=$(sql ort.db "SELECT outcome, count(*) FROM results GROUP BY outcome")
contains "every test passes: ONNX Runtime computes m and m' alike ($n tests)" "$got" "pass|$n"
got=$(sql ort.db "SELECT count(*) FROM mutations WHERE json_extract(stats, '\$.applied') = 3 AND nodes > original_nodes")
check "the float tests are mutated three times each ($got of $n)" -- [ "$got" -ge $((n - 1)) ]
got=$(sql ort.db "SELECT sum(json_extract(stats, '\$.dropped')), sum(json_extract(stats, '\$.applied')) FROM mutations")
contains "every mutation made was valid: none dropped" "$got" "0|"
got=$(sql ort.db "SELECT message FROM results JOIN instances USING(id) WHERE op = 'And'")
contains "a model of booleans only is run unmutated, and says why" "$got" "not mutated"
expect_exit 0 "the same command again has nothing left to do" -- \
	"$FERRY" run wrapped -F ort --oracle metamorphic -k 3 --seed 1 -o ort.db -q
expect_exit 2 "the reference oracle's results do not go into its store" -- "$FERRY" run wrapped -F ort -o ort.db -q
contains "and it says why" "$err" "holds the metamorphic oracle's results"

export FERRY_ADAPTERS="$top_srcdir/tests/data/adapters"
FERRY_META_FAULT=pair:1,3; export FERRY_META_FAULT
expect_exit 0 "a frontend wrong where mutations 1 and 3 meet: the run completes" -- \
	"$FERRY" run wrapped -F meta --oracle metamorphic -k 5 -o pair.db -q -j 2
bad=$(sql pair.db "SELECT count(*) FROM results WHERE outcome = 'inconsistent'")
check "it is inconsistent on the tests with four mutations or more ($bad)" -- [ "$bad" -ge 3 ]
contains "and each inconsistency was reduced" "$out" "reduced now          $bad of $bad"
# What a reduction must keep: mutations 1 and 3 and what they depend on, none of their junk.
"$py" - pair.db >reduced.txt <<'PY'
import json, sqlite3, sys
db = sqlite3.connect(sys.argv[1])
for chain, reduced in db.execute("SELECT chain, reduced FROM mutations WHERE status != 'none'"):
    chain, reduced = json.loads(chain), json.loads(reduced)
    want, todo = set(), [1, 3]
    while todo:
        q = todo.pop()
        if q not in want:
            want.add(q)
            todo += chain[q]["depends"]
    junk = sorted(q for q in want if chain[q]["junk"])
    print(reduced["status"], reduced["keep"] == sorted(want), reduced["no_junk"] == junk,
          reduced["reduced_nodes"] < reduced["first_nodes"])
PY
got=$(sort -u reduced.txt)
contains "each reduces to mutations 1 and 3 and their dependencies, junk removed, smaller" "$got" "reduced True True True"
check "and only so" -- [ "$(sort -u reduced.txt | wc -l)" -eq 1 ]
expect_exit 0 "ferry bugs groups them" -- "$FERRY" bugs pair.db
contains "by the minimal mutation" "$out" "inconsistent"
bug=$(sql pair.db "SELECT bug_id FROM bugs LIMIT 1")
expect_exit 0 "ferry show writes the reproducer" -- "$FERRY" show pair.db "$bug" -o bug
check "beside both models, the inputs and both outputs" -- \
	test -s bug/original.onnx -a -s bug/mutated.onnx -a -s bug/input_0.npy -a -s bug/output_m_0.npy -a -s bug/output_mutated_0.npy
expect_exit 1 "the reproducer shows the bug (exit 1)" -- "$py" bug/reproducer.py
contains "and prints the difference" "$out" "max |m' - m|"
expect_exit 0 "and passes where the frontend is right" -- env FERRY_META_FAULT= "$py" bug/reproducer.py
expect_exit 1 "ferry check fails on the inconsistencies" -- \
	"$FERRY" check wrapped -F meta --oracle metamorphic -k 5 -o check.db -q -j 2

expect_exit 0 "a frontend that cannot compile a mutated model" -- \
	env FERRY_META_FAULT=crash "$FERRY" run wrapped -F meta --oracle metamorphic -o crash.db -q -j 2
got=$(sql crash.db "SELECT outcome, stage, message FROM results WHERE outcome = 'crash' LIMIT 1")
contains "crashes on m' alone, in its stage, said of the mutated model" "$got" "crash|compile|the mutated model (m')"
expect_exit 0 "a frontend that dies while a reduction runs: the run goes on" -- \
	env FERRY_META_FAULT=pair:1,3:segv "$FERRY" run wrapped -F meta --oracle metamorphic -k 5 -o segv.db -q -j 2
got=$(sql segv.db "SELECT r.outcome, m.status, m.message FROM results r JOIN mutations m USING(frontend, id) WHERE m.status != 'none' LIMIT 1")
contains "the test stays inconsistent, its reduction failed with the signal" "$got" "inconsistent|failed|killed by signal 11 (SIGSEGV)"
finish
