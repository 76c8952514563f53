#!/bin/sh
# The runner under faults: a frontend that segfaults, aborts, hangs, allocates without bound, floods
# stderr, raises, says "unsupported" or answers wrong. The run goes on, and each test is recorded
# with its cause (tests/data/adapters/adapter_fault.py: the operator picks the fault).
. "${top_srcdir:-$(dirname "$0")/../..}/tests/setup"
need_python_module onnx
need_python_module onnxruntime
py=${FERRY_PYTHON:-$top_srcdir/.venv/bin/python}
plan 16
sql() { "$py" -c 'import sqlite3, sys; print("\n".join("|".join(map(str, r)) for r in sqlite3.connect(sys.argv[1]).execute(sys.argv[2])))' "$@"; }
outcome() { sql results.db "SELECT r.outcome || ' ' || coalesce(r.stage, '-') || ' ' || coalesce(r.exc_type, '-') FROM results r JOIN instances i USING(id) WHERE i.op = '$1' LIMIT 1"; }

"$FERRY" harvest onnx -q -o corpus.jsonl -f test_relu -f test_sqrt -f test_abs -f test_neg -f test_sigmoid \
	-f test_exp -f test_floor -f test_ceil -f test_add >/dev/null
"$FERRY" wrap corpus.jsonl -o wrapped -q >/dev/null
export FERRY_ADAPTERS="$top_srcdir/tests/data/adapters"
# The hang gets a short timeout of its own; everything else ample time, so that a slow, loaded
# machine still sees the allocation reach the memory limit before any timeout.
"$py" -c 'import json, sys
for line in open(sys.argv[1]):
    r = json.loads(line)
    print(json.dumps({"id": r["id"]}), file=open(sys.argv[2 if r["op"] == "Abs" else 3], "a"))' \
	wrapped/wrapped.jsonl hang.jsonl rest.jsonl
mkdir tmp
expect_exit 0 "a run through a faulty frontend completes" -- \
	env TMPDIR="$PWD/tmp" "$FERRY" run wrapped --frontend fault:onnx -o results.db -j 2 --timeout 120 --memory 1G -q --queue rest.jsonl
expect_exit 0 "a hanging test is stopped by its timeout" -- \
	"$FERRY" run wrapped --frontend fault:onnx -o results.db -j 2 --timeout 3 -q --queue hang.jsonl

left=$(ls tmp)
check "a worker killed in a test leaves nothing in TMPDIR (${left:-nothing})" -- [ -z "$left" ]
got=$(outcome Relu); contains "a segfault is a crash in compile with its signal" "$got" "crash compile signal 11"
got=$(outcome Sqrt); contains "an abort is a crash with SIGABRT" "$got" "crash compile signal 6"
got=$(outcome Abs); contains "a hang is a timeout, in compile" "$got" "timeout compile"
got=$(outcome Neg); contains "unbounded allocation is oom" "$got" "oom compile"
got=$(outcome Exp); contains "an exception is a crash in execute with its type" "$got" "crash execute RuntimeError"
got=$(outcome Floor); contains "a 'not supported' message is unsupported" "$got" "unsupported execute"
got=$(outcome Ceil); contains "a wrong answer is a mismatch" "$got" "mismatch"
got=$(outcome Sigmoid); contains "8 MB of stderr does not stop a test passing" "$got" "pass"
got=$(outcome Add); contains "tests after the faults still run and pass" "$got" "pass"
detail=$(sql results.db "SELECT length(detail) FROM results r JOIN instances i USING(id) WHERE i.op = 'Sigmoid'")
check "a flood of stderr is capped (kept $detail bytes)" -- [ "${detail:-0}" -le 65536 ]
msg=$(sql results.db "SELECT message FROM results r JOIN instances i USING(id) WHERE i.op = 'Relu'")
contains "a signal death is described" "$msg" "SIGSEGV"
n=$(sql results.db "SELECT count(*) FROM results")
v=$(grep -c '"status":"ok"' wrapped/wrapped.jsonl)
check "every test has a result ($n of $v)" -- [ "$n" -eq "$v" ]
expect_exit 2 "a frontend of one's own needs its library" -- "$FERRY" run wrapped --frontend nosuch -o x.db
finish
