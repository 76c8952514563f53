#!/bin/sh
# The runner under a hostile frontend, one that attacks its own worker rather than crashing like a
# compiler (tests/data/adapters/adapter_hostile.py: the operator picks the attack): garbage on every
# stream, closed descriptors, setsid children and daemons, SIGSTOP, sys.exit, os._exit, signals it
# sends itself, and a worker that exits between tests. Each test is recorded with what really
# happened, in the stage it happened in; none is blamed for ferry's own signals or for a death
# before it started; nothing the frontend spawned outlives the run.
. "${top_srcdir:-$(dirname "$0")/../..}/tests/setup"
need_python_module onnx
need_python_module onnxruntime
py=${FERRY_PYTHON:-$top_srcdir/.venv/bin/python}
plan 24

"$FERRY" harvest onnx -q -o corpus.jsonl -f test_tanh -f test_sin -f test_selu -f test_cos -f test_log \
	-f test_reciprocal -f test_softsign -f test_sign -f test_erf -f test_identity -f test_softplus \
	-f test_atan -f test_add >/dev/null
"$FERRY" wrap corpus.jsonl -o wrapped -q >/dev/null
export FERRY_ADAPTERS="$top_srcdir/tests/data/adapters" HOSTILE_PIDS="$work/pids"
mkdir pids
# Three queues: the attacks that end quickly; the two that wait on a (short) timeout; and the worker
# that exits between tests, which needs one worker and Atan before Add.
"$py" -c 'import json, sys
ids = {}
for line in open(sys.argv[1]):
    r = json.loads(line)
    ids[r["op"]] = r["id"]
queues = {"short": ["Selu", "Reciprocal"], "between": ["Atan", "Add"]}
queues["main"] = [op for op in ids if all(op not in q for q in queues.values())]
for name, ops in queues.items():
    with open(name + ".jsonl", "w") as f:
        f.writelines(json.dumps({"id": ids[op]}) + "\n" for op in ops)' wrapped/wrapped.jsonl

run() { "$FERRY" run wrapped --frontend hostile:onnx -o results.db -q "$@"; }
expect_exit 0 "a run through a hostile frontend completes" -- run -j 2 --timeout 120 --queue main.jsonl
alive=
for f in pids/Cos pids/Log; do
	[ -s "$f" ] && kill -0 "$(cat "$f")" 2>/dev/null && alive="$alive ${f#pids/}:$(cat "$f")"
done
check "no setsid child or daemon of a worker outlives the run (alive:${alive:-none})" -- [ -z "$alive" ]
check "both were started" -- [ -s pids/Cos -a -s pids/Log ]
expect_exit 0 "the attacks that wait on the timeout complete" -- run -j 1 --timeout 5 --queue short.jsonl
expect_exit 0 "a worker that exits between tests does not stop the run" -- run -j 1 --timeout 120 --queue between.jsonl

report=$("$FERRY" report results.db --all)
failure() { printf '%s\n' "$report" | grep "^  [a-z][a-z]* *$1 " || true; }
contains "garbage on stdout and the protocol stream does not fail a test" "[$(failure Tanh)]" "[]"
contains "closing every descriptor is a crash in that stage, with the worker's exit" \
	"$(failure Sin)" "crash     Sin                  "
contains "  ... described as such" "$(failure Sin)" "[compile] the worker exit status 3 during compile"
contains "closing the protocol stream and hanging is a timeout, not ferry's SIGTERM" "$(failure Selu)" \
	"[compile] no result after 5s in stage compile"
# The line itself in the name: a CI log that shows only the summary then says what happened.
contains "a setsid child does not fail its test [$(failure Cos)]" "[$(failure Cos)]" "[]"
contains "a daemon does not fail its test [$(failure Log)]" "[$(failure Log)]" "[]"
contains "SIGSTOP is a crash in its stage, with the stop signal, before the timeout" "$(failure Reciprocal)" \
	"[compile] the worker stopped by signal 19 (SIGSTOP) during compile"
contains "sys.exit(0) in load is a crash in load" "$(failure Softsign)" \
	"crash     Softsign             "
contains "  ... that says SystemExit" "$(failure Softsign)" "[load] SystemExit: the frontend called sys.exit(0)"
contains "sys.exit(3) in execute is a crash in execute that says SystemExit" "$(failure Sign)" \
	"[execute] SystemExit: the frontend called sys.exit(3)"
contains "os._exit(0) in compile is a crash in compile" "$(failure Erf)" \
	"[compile] the worker exit status 0 during compile"
contains "a SIGTERM the frontend sent itself says it was not ferry's" "$(failure Identity)" \
	"[execute] the worker killed by signal 15 (SIGTERM, not sent by ferry) during execute"
contains "a child killing its parent's group: SIGKILL, not ferry's" "$(failure Softplus)" \
	"[compile] the worker killed by signal 9 (SIGKILL, not sent by ferry) during compile"
contains "the test before a worker's exit between tests passes" "[$(failure Atan)]" "[]"
contains "the test after it is not blamed: a fresh worker runs it" "[$(failure Add)]" "[]"
contains "5 tests pass: Tanh, Cos, Log, Atan, Add" "$report" "  pass              5"
contains "every test has one result" "$report" "  total            13"

# Workers that all die before taking a test cannot run the frontend: the run stops, and no test is
# recorded for a death it had no part in.
HOSTILE_UNTAKEN=1 expect_exit 3 "workers that always exit before taking a test stop the run" -- \
	"$FERRY" run wrapped --frontend hostile:onnx -o untaken.db -q -j 1 --queue between.jsonl
contains "  ... saying so" "$err" "3 workers in a row ended before they took a test"
finish
