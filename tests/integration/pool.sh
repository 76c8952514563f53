#!/bin/sh
# Frontends side by side on one pool of workers (ferry run -F A,B -j N): the same outcome per
# (frontend, test) as running them one after another; each frontend's results in its queue's order;
# a frontend that hangs or crashes does not hold up the others; an interrupted run resumes; and each
# result says where its time went (the frontend's stages, ferry's share), within the run's wall time.
. "${top_srcdir:-$(dirname "$0")/../..}/tests/setup"
need_python_module onnx
need_python_module onnxruntime
py=${FERRY_PYTHON:-$top_srcdir/.venv/bin/python}
plan 15
sql() { "$py" -c 'import sqlite3, sys; print("\n".join("|".join(map(str, r)) for r in sqlite3.connect(sys.argv[1]).execute(sys.argv[2])))' "$@"; }
outcomes() { sql "$1" "SELECT frontend, id, outcome, coalesce(stage, '-') FROM results ORDER BY frontend, id"; }

"$FERRY" harvest onnx -q -o corpus.jsonl -f test_relu -f test_sqrt -f test_abs -f test_neg -f test_sigmoid \
	-f test_exp -f test_floor -f test_ceil -f test_add >/dev/null
"$FERRY" wrap corpus.jsonl -o wrapped -q >/dev/null
export FERRY_ADAPTERS="$top_srcdir/tests/data/adapters"
# A queue in an order of its own (by id, reversed), and without the test that allocates without
# bound: its memory limit is faults.sh's business, and here it would only slow a loaded machine.
"$py" -c 'import json, sys
rs = [json.loads(line) for line in open(sys.argv[1])]
for r in sorted(rs, key=lambda r: r["id"], reverse=True):
    if r["op"] != "Neg":
        print(json.dumps({"id": r["id"]}))' wrapped/wrapped.jsonl > queue.jsonl
n=$(wc -l < queue.jsonl)

# One after another (-j 2 each), then side by side on two workers in all.
expect_exit 0 "ort alone" -- "$FERRY" run wrapped -F ort -o seq.db -j 2 --timeout 4 -q --queue queue.jsonl
expect_exit 0 "the faulty frontend alone" -- \
	"$FERRY" run wrapped -F fault:onnx -o seq.db -j 2 --timeout 4 -q --queue queue.jsonl
t0=$("$py" -c 'import time; print(time.time())')
expect_exit 0 "both side by side, one of them hanging on a test" -- \
	"$FERRY" run wrapped -F fault:onnx,ort -o shared.db -j 2 --timeout 4 -q --queue queue.jsonl
t1=$("$py" -c 'import time; print(time.time())')
check "the same outcome per frontend and test as one after another" -- \
	test "$(outcomes shared.db)" = "$(outcomes seq.db)"
got=$(sql shared.db "SELECT count(*) || ' ' || sum(outcome = 'pass') FROM results WHERE frontend = 'ort'")
check "the hang did not stop ort: all $n of its tests ran and passed ($got)" -- test "$got" = "$n $n"
got=$(sql shared.db "SELECT outcome || ' ' || stage FROM results r JOIN instances i USING(id) WHERE i.op = 'Abs' AND frontend = 'fault'")
contains "and the hang is a timeout of its own" "$got" "timeout compile"
# The order results came in (rowid): ort, with one worker while the other frontend has work (the
# hang outlasts its tests), in its queue's order.
ids=$("$py" -c 'import json, sys; print("\n".join(json.loads(l)["id"] for l in open(sys.argv[1])))' queue.jsonl)
check "ort's results in its queue's order" -- \
	test "$(sql shared.db "SELECT id FROM results WHERE frontend = 'ort' ORDER BY rowid")" = "$ids"

# Where the time went: every answered test is timed, ferry's share is never negative, and no test's
# parts add up to more than the run took.
got=$(sql shared.db "SELECT count(*) FROM results WHERE frontend = 'ort' AND load_seconds IS NOT NULL AND compile_seconds IS NOT NULL AND execute_seconds IS NOT NULL AND ferry_seconds >= 0")
check "every ort result has its stages' seconds and ferry's ($got of $n)" -- test "$got" -eq "$n"
got=$(sql shared.db "SELECT count(*) FROM results WHERE outcome = 'timeout' AND ferry_seconds IS NULL")
check "a timeout has no split of its time (the worker never said)" -- test "$got" -eq 1
wall=$("$py" -c 'import sys; print(float(sys.argv[2]) - float(sys.argv[1]))' "$t0" "$t1")
sum=$(sql shared.db "SELECT max(load_seconds + compile_seconds + execute_seconds + ferry_seconds) FROM results")
check "a test's timed parts ($sum s) fit in the run's wall time ($wall s)" -- \
	"$py" -c 'import sys; sys.exit(not float(sys.argv[1]) <= float(sys.argv[2]))' "$sum" "$wall"
t0=$("$py" -c 'import time; print(time.time())')
expect_exit 0 "one worker for both" -- "$FERRY" run wrapped -F ort,fault:onnx -o one.db -j 1 --timeout 4 --queue queue.jsonl
t1=$("$py" -c 'import time; print(time.time())')
wall=$("$py" -c 'import sys; print(float(sys.argv[2]) - float(sys.argv[1]))' "$t0" "$t1")
check "with one worker, each frontend in turn, each in its queue's order" -- \
	test "$(sql one.db "SELECT id FROM results ORDER BY rowid")" = "$(printf '%s\n%s' "$ids" "$ids")"
sum=$(sql one.db "SELECT sum(load_seconds + compile_seconds + execute_seconds + ferry_seconds) FROM results")
check "with one worker, all tests' timed parts ($sum s) fit in the run's wall time" -- \
	"$py" -c 'import sys; sys.exit(not float(sys.argv[1]) <= float(sys.argv[2]))' "$sum" "$wall"
contains "the durations summary names each frontend with its tests" "$out" "durations (seconds"

# Interrupted while both run, then resumed: the same results as the uninterrupted run.
rm -f int.db*
"$FERRY" run wrapped -F fault:onnx,ort -o int.db -j 2 --timeout 4 -q --queue queue.jsonl &
pid=$!
sleep 4
kill -INT "$pid" 2>/dev/null || true
code=0; wait "$pid" || code=$?
"$FERRY" run wrapped -F fault:onnx,ort -o int.db -j 2 --timeout 4 -q --queue queue.jsonl >/dev/null 2>&1 || true
check "interrupted ($code) and resumed, the same outcomes as one run" -- test "$(outcomes int.db)" = "$(outcomes shared.db)"
finish
