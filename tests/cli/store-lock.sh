#!/bin/sh
# One store, one writer: a second run on a store that a live run holds is refused (exit 3) with a
# message naming the first run's process; a reader (report) goes on meanwhile; the lock ends with
# the run, even one killed with SIGKILL. The slow frontend is a fault adapter written here: ONNX
# Runtime, after a pause in compile.
. "${top_srcdir:-$(dirname "$0")/../..}/tests/setup"
need_python_module onnx
need_python_module onnxruntime
py=${FERRY_PYTHON:-$top_srcdir/.venv/bin/python}
plan 11

mkdir adapters
cat > adapters/adapter_slow.py <<'PY'
"""A fault-injecting frontend for ferry's store-lock tests: ONNX Runtime, slowed down in compile so
that a run stays alive while a second one tries the same store."""
import time

from ferry.oracle.adapters import ort

NAME = "slow"
LIBRARY = "onnx"
FORMAT = "onnx"
PACKAGE = "onnxruntime"
REPRODUCE = ort.REPRODUCE
version = ort.version
load = ort.load
execute = ort.execute


def compile(loaded):
    time.sleep(2)
    return ort.compile(loaded)
PY
export FERRY_ADAPTERS="$work/adapters"
"$FERRY" harvest onnx -q -o corpus.jsonl -f test_relu -f test_abs -f test_neg >/dev/null
"$FERRY" wrap corpus.jsonl -o wrapped -q >/dev/null

# wait_writer STORE: until a run has taken the store (its note is in meta), at most 60 s.
wait_writer() {
	n=0
	while [ $n -lt 300 ]; do
		"$py" -c 'import sqlite3, sys
c = sqlite3.connect("file:" + sys.argv[1] + "?mode=ro", uri=True)
sys.exit(0 if c.execute("SELECT 1 FROM meta WHERE key = ?", ("writer",)).fetchone() else 1)' "$1" 2>/dev/null && return 0
		sleep 0.2
		n=$((n + 1))
	done
	return 1
}

"$FERRY" run wrapped -F slow:onnx -o r.db -j 1 -q > first.out 2>&1 &
first=$!
check "the first run takes the store" -- wait_writer r.db
expect_exit 3 "a second run on the same store is refused" -- "$FERRY" run wrapped -F slow:onnx -o r.db -j 1 -q
contains "naming the first run's process" "$err" "is being written by another ferry (pid $first, 'ferry run "
expect_exit 3 "so is a check" -- "$FERRY" check wrapped -F slow:onnx -o r.db -j 1 -q
expect_exit 0 "a reader goes on meanwhile" -- "$FERRY" report r.db
set +e; wait $first; code=$?; set -e
ok $code "the first run finishes (exit $code)"
n=$("$py" -c 'import sqlite3; print(sqlite3.connect("r.db").execute("SELECT count(*) FROM runs").fetchone()[0])')
check "only the first run ran on the store ($n runs recorded)" -- [ "$n" -eq 1 ]
expect_exit 0 "after it, the store is free again" -- "$FERRY" run wrapped -F slow:onnx -o r.db -j 1 -q

# A run killed outright leaves no stale lock: the kernel drops it with the process.
"$FERRY" run wrapped -F slow:onnx -o k.db -j 1 -q >/dev/null 2>&1 &
victim=$!
check "a run takes a fresh store" -- wait_writer k.db
kill -KILL $victim
wait $victim 2>/dev/null || true
expect_exit 0 "after a SIGKILL, the next run takes the store and resumes" -- "$FERRY" run wrapped -F slow:onnx -o k.db -j 1 -q
contains "and runs what the killed run left" "$out" "ran now"
finish
