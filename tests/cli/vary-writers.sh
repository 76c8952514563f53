#!/bin/sh
# ferry vary as a writer: the same corpus, seed and options make the same variants and log byte for
# byte whatever -j; a torn last line of the variants or of the log (a vary killed while writing it)
# is cut off by the next run, which then ends with the same files as one never stopped; a second
# vary onto an output a live one writes is refused (exit 3), naming the first; a full disk stops the
# vary (exit 3) and the same command finishes it once space is freed (a tmpfs in a mount namespace
# of its own); a parent of 200,000 inputs gets its candidates in seconds, not hours, and SIGTERM
# stops the vary promptly, keeping what it did.
. "${top_srcdir:-$(dirname "$0")/../..}/tests/setup"
need_python_module onnx
py="${FERRY_PYTHON:-$top_srcdir/.venv/bin/python}"
if ! PYTHONPATH="$top_builddir/python" "$py" -c 'import ferry.templates.onnx as t; t.validate' 2>/dev/null; then
	skip_all "the ONNX template has no validate()"
fi
corpus="$top_srcdir/tests/data/onnx-frontends/corpus.jsonl"
plan 27

# whole FILE: lines that are not whole JSON objects (0 for a file of whole lines).
whole() {
	"$py" - "$1" <<'PY'
import json, sys
data = open(sys.argv[1], "rb").read()
bad = 0 if data.endswith(b"\n") or not data else 1
for line in data.split(b"\n")[:-1]:
    try:
        bad += not isinstance(json.loads(line), dict)
    except ValueError:
        bad += 1
print(bad)
PY
}

# --- the same bytes whatever -j ------------------------------------------------------------------
vary() { "$FERRY" vary "$corpus" -q --per-instance 3 "$@"; }
vary -o j1.jsonl -j 1 >/dev/null
vary -o j2a.jsonl -j 2 >/dev/null
vary -o j2b.jsonl -j 2 >/dev/null
vary -o j4.jsonl -j 4 >/dev/null
check "vary keeps variants" -- test -s j1.jsonl
check "-j 2 twice: the same variants, byte for byte" -- cmp j2a.jsonl j2b.jsonl
check "... as -j 1" -- cmp j1.jsonl j2a.jsonl
check "... and -j 4" -- cmp j1.jsonl j4.jsonl
check "... and the same log" -- sh -c 'cmp j1.jsonl.log j2a.jsonl.log && cmp j1.jsonl.log j2b.jsonl.log && cmp j1.jsonl.log j4.jsonl.log'
vary -o b.jsonl -j 2 --budget 20 >/dev/null
vary -o b.jsonl -j 2 >/dev/null
check "a budgeted vary that the same command finishes makes the same files" -- \
	sh -c 'cmp j1.jsonl b.jsonl && cmp j1.jsonl.log b.jsonl.log'

# --- torn last lines -----------------------------------------------------------------------------
# A vary stopped in the middle of a variant's line: the line torn, its log line never written.
"$py" - j1.jsonl j1.jsonl.log tv.jsonl tv.jsonl.log <<'PY'
import json, sys
out = open(sys.argv[1], "rb").read().split(b"\n")[:-1]
log = open(sys.argv[2], "rb").read().split(b"\n")[:-1]
last = max(i for i, l in enumerate(log) if json.loads(l)["status"] == "kept")
open(sys.argv[3], "wb").write(b"\n".join(out[:-1] + [b""]) + out[-1][:len(out[-1]) // 2])
open(sys.argv[4], "wb").write(b"\n".join(log[:last] + [b""]))
PY
expect_exit 0 "a vary goes on after a torn variant" -- "$FERRY" vary "$corpus" -q --per-instance 3 -o tv.jsonl -j 2
contains "... saying that it cut it off" "$err" "cut a torn last line of"
check "... and ends with the files of a vary never stopped" -- sh -c 'cmp j1.jsonl tv.jsonl && cmp j1.jsonl.log tv.jsonl.log'
# Stopped in the middle of the log line after a kept variant: the variant is kept, not written twice.
"$py" - j1.jsonl j1.jsonl.log tl.jsonl tl.jsonl.log <<'PY'
import json, sys
out = open(sys.argv[1], "rb").read().split(b"\n")[:-1]
log = open(sys.argv[2], "rb").read().split(b"\n")[:-1]
last = max(i for i, l in enumerate(log) if json.loads(l)["status"] == "kept")
open(sys.argv[3], "wb").write(b"\n".join(out + [b""]))
open(sys.argv[4], "wb").write(b"\n".join(log[:last] + [b""]) + log[last][:20])
PY
expect_exit 0 "a vary goes on after a torn log line" -- "$FERRY" vary "$corpus" -q --per-instance 3 -o tl.jsonl -j 2
check "... and ends with the files of a vary never stopped" -- sh -c 'cmp j1.jsonl tl.jsonl && cmp j1.jsonl.log tl.jsonl.log'

# --- two writers ---------------------------------------------------------------------------------
"$FERRY" vary "$corpus" -q --per-instance 8 -o two.jsonl -j 1 >first.out 2>&1 &
first=$!
# Once the first has begun (it has its lock, or, without one, has tried a candidate), it is stopped
# while the second runs, so that the second meets it however fast either goes.
n=0
while [ ! -s two.jsonl.lock ] && [ ! -s two.jsonl.log ] && [ $n -lt 600 ]; do sleep 0.05; n=$((n + 1)); done
kill -STOP $first 2>/dev/null || true
check "the first vary holds its output" -- test -s two.jsonl.lock
expect_exit 3 "a second vary onto it is refused" -- "$FERRY" vary "$corpus" -q --per-instance 8 -o two.jsonl -j 1
contains "... naming the first" "$err" "is being written by another ferry (pid $first, 'ferry vary "
kill -CONT $first 2>/dev/null || true
set +e; wait $first; code=$?; set -e
ok $code "the first vary finishes (exit $code)"
dups=$(sort two.jsonl | uniq -d | wc -l)
check "no variant is written twice ($dups)" -- [ "$dups" -eq 0 ]
check "the lock goes with the vary" -- test ! -e two.jsonl.lock

# --- a full disk ---------------------------------------------------------------------------------
if [ "$(id -u)" = 0 ] && unshare -m true 2>/dev/null; then
	mkdir small
	# A tmpfs of 16 KiB in a mount namespace of its own (the variants and log need about 60), then
	# a larger one with the same files.
	unshare -m sh -c '
		mount -t tmpfs -o size=16k tmpfs small || exit 99
		"$1" vary "$2" -q --per-instance 3 -o small/v.jsonl -j 2 >full.out 2>full.err; echo $? >full.code
		cp small/v.jsonl full.jsonl; cp small/v.jsonl.log full.jsonl.log
		mount -o remount,size=1m small
		"$1" vary "$2" -q --per-instance 3 -o small/v.jsonl -j 2 >again.out 2>again.err; echo $? >again.code
		cp small/v.jsonl again.jsonl; cp small/v.jsonl.log again.jsonl.log' sh "$FERRY" "$corpus"
	code=$(cat full.code)
	check "a full disk stops the vary with exit 3 (got $code)" -- [ "$code" = 3 ]
	contains "... saying so" "$(cat full.err)" "No space left on device"
	got="$(whole full.jsonl) $(whole full.jsonl.log)"
	check "... leaving whole lines only ($got lines are not)" -- [ "$got" = "0 0" ]
	code=$(cat again.code)
	check "once space is freed, the same command finishes (exit $code)" -- [ "$code" = 0 ]
	check "... with the files of a vary never stopped" -- sh -c 'cmp j1.jsonl again.jsonl && cmp j1.jsonl.log again.jsonl.log'
else
	for i in 1 2 3 4 5; do echo "ok $((tap_n + i)) # SKIP mount namespaces need root and unshare"; done
	tap_n=$((tap_n + 5))
fi

# --- a parent of 200,000 inputs -------------------------------------------------------------------
"$py" - <<'PY'
import json
n = 200000
rec = {"library": "onnx", "op": "Concat", "kind": "node", "context": {"opset": {"int": 13}},
       "params": {"axis": {"int": 0}},
       "inputs": [{"tensor": {"dtype": "float32", "shape": [1], "range": [-1, 1]}}] * n,
       "outputs": [{"tensor": {"dtype": "float32", "shape": [n]}}]}
open("concat.jsonl", "w").write(json.dumps(rec, separators=(",", ":")) + "\n")
PY
# Bounded here in memory (ulimit; not under AddressSanitizer, whose shadow memory takes terabytes
# of address space) and time: a watchdog kills what outlives 150 s.
limit=8000000
[ -z "${ASAN_OPTIONS:-}" ] || limit=unlimited
(ulimit -v $limit; exec "$FERRY" vary concat.jsonl -q -o c.jsonl -j 1) >c.out 2>c.err &
pid=$!
(sleep 150; kill -KILL $pid 2>/dev/null) >/dev/null 2>&1 &
dog=$!
n=0
while ! pgrep -P $pid >/dev/null 2>&1 && kill -0 $pid 2>/dev/null && [ $n -lt 1200 ]; do sleep 0.1; n=$((n + 1)); done
check "its candidates are made, and one handed to a worker, within 120 s (took $((n / 10)) s)" -- \
	pgrep -P $pid
kill -TERM $pid 2>/dev/null || true
n=0
while kill -0 $pid 2>/dev/null && [ $n -lt 200 ]; do sleep 0.1; n=$((n + 1)); done
check "SIGTERM stops it within 20 s (took $n tenths)" -- sh -c "! kill -0 $pid 2>/dev/null"
set +e; wait $pid; code=$?; set -e
check "... with exit 130 (got $code)" -- [ "$code" = 130 ]
contains "... keeping what it did" "$(cat c.err)" "run the same command to go on"
# SIGTERM while its candidates are being made: no more made.
(ulimit -v $limit; exec "$FERRY" vary concat.jsonl -q -o c2.jsonl -j 1) >c2.out 2>c2.err &
pid=$!
sleep 8
kill -TERM $pid 2>/dev/null || true
n=0
while kill -0 $pid 2>/dev/null && [ $n -lt 200 ]; do sleep 0.1; n=$((n + 1)); done
check "SIGTERM while candidates are being made stops it within 20 s (took $n tenths)" -- \
	sh -c "! kill -0 $pid 2>/dev/null"
kill -KILL $pid $dog 2>/dev/null || true
wait $pid 2>/dev/null || true
finish
