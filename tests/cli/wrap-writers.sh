#!/bin/sh
# ferry wrap as a writer that cannot be torn or doubled: a torn last line of wrapped.jsonl (a wrap
# killed while writing it) is cut off by the next wrap, never joined to the next record; a second
# wrap into a directory that a live one writes is refused (exit 3), naming the first; a full disk
# stops the wrap (exit 3) recording nothing for the instance it failed on, and the same command
# wraps every instance once space is freed (a tmpfs in a mount namespace of its own); a corpus line
# beyond 64 MiB is a bad line, and the line after it is wrapped.
. "${top_srcdir:-$(dirname "$0")/../..}/tests/setup"
need_python_module onnx
py="${FERRY_PYTHON:-$top_srcdir/.venv/bin/python}"
corpus="$top_srcdir/tests/data/onnx-frontends/corpus.jsonl"
total=$(grep -c . "$corpus")
plan 25

# lines FILE: "LINES IDS REPEATED BAD INVALID" of a wrapped.jsonl: its lines, the distinct ids of
# its records, ids on more than one line, lines that are no JSON object with an id and a wrap
# annotation, and records marked invalid.
lines() {
	"$py" - "$1" <<'PY'
import json, sys
lines = open(sys.argv[1], "rb").read().split(b"\n")
if lines and lines[-1] == b"":
    lines.pop()
ids, bad, invalid = [], 0, 0
for line in lines:
    try:
        rec = json.loads(line)
        ids.append(rec["id"])
        invalid += rec["wrap"]["status"] != "ok"
    except (ValueError, KeyError, TypeError):
        bad += 1
print(len(lines), len(set(ids)), len(ids) - len(set(ids)), bad, invalid)
PY
}

# --- a torn last line ---------------------------------------------------------------------------
"$FERRY" wrap "$corpus" -o torn -q -j 1 >/dev/null
# The last record loses its second half and its newline, as a wrap killed in its write leaves it.
"$py" - torn/wrapped.jsonl <<'PY'
import sys
path = sys.argv[1]
data = open(path, "rb").read()
last = data.rstrip(b"\n").rfind(b"\n") + 1
open(path, "wb").write(data[:last] + data[last:last + (len(data) - last) // 2])
PY
expect_exit 0 "a wrap goes on after a torn last line" -- "$FERRY" wrap "$corpus" -o torn -q -j 1
contains "... saying that it cut it off" "$err" "cut a torn last line of"
contains "... and counting it" "$out" "torn line cut"
contains "... and wraps its instance again" "$out" "wrapped now          1"
got=$(lines torn/wrapped.jsonl)
check "every instance is one whole line, none joined to another ($got)" -- [ "$got" = "$total $total 0 0 0" ]

# --- two writers --------------------------------------------------------------------------------
"$FERRY" wrap "$corpus" -o two -q -j 1 >first.out 2>&1 &
first=$!
# Once the first has begun (it has its lock, or, without one, has wrapped an instance), it is
# stopped while the second runs, so that the second meets it however fast either goes.
n=0
while [ ! -s two/wrapped.jsonl.lock ] && [ ! -s two/wrapped.jsonl ] && [ $n -lt 600 ]; do
	sleep 0.05
	n=$((n + 1))
done
kill -STOP $first 2>/dev/null || true
check "the first wrap holds the directory" -- test -s two/wrapped.jsonl.lock
expect_exit 3 "a second wrap into it is refused" -- "$FERRY" wrap "$corpus" -o two -q -j 1
contains "... naming the first" "$err" "is being written by another ferry (pid $first, 'ferry wrap "
kill -CONT $first 2>/dev/null || true
set +e; wait $first; code=$?; set -e
ok $code "the first wrap finishes (exit $code)"
got=$(lines two/wrapped.jsonl)
check "each instance is wrapped once ($got)" -- [ "$got" = "$total $total 0 0 0" ]
check "the lock goes with the wrap" -- test ! -e two/wrapped.jsonl.lock
expect_exit 0 "the next wrap takes the directory" -- "$FERRY" wrap "$corpus" -o two -q -j 1
contains "... with nothing left to wrap" "$out" "already wrapped      $total"

# --- a full disk --------------------------------------------------------------------------------
if [ "$(id -u)" = 0 ] && unshare -m true 2>/dev/null; then
	mkdir small
	# In a mount namespace of its own, a tmpfs of 96 KiB (the wrap needs about 400) over small/:
	# wrap until the disk is full, free space (a larger tmpfs, the same files), wrap again.
	unshare -m sh -c '
		mount -t tmpfs -o size=96k tmpfs small || exit 99
		"$1" wrap "$2" -o small/W -q -j 1 >full.out 2>full.err; echo $? >full.code
		cp small/W/wrapped.jsonl full.jsonl
		mount -o remount,size=16m small
		"$1" wrap "$2" -o small/W -q -j 1 >again.out 2>again.err; echo $? >again.code
		cp small/W/wrapped.jsonl again.jsonl' sh "$FERRY" "$corpus"
	code=$(cat full.code)
	check "a full disk stops the wrap with exit 3 (got $code)" -- [ "$code" = 3 ]
	contains "... saying so" "$(cat full.err)" "No space left on device"
	got=$(lines full.jsonl)
	kept=${got%% *}
	check "what it wrote is whole lines, no instance invalid for want of space ($got)" -- \
		[ "$got" = "$kept $kept 0 0 0" -a "$kept" -lt "$total" ]
	code=$(cat again.code)
	check "once space is freed, the same command goes on (exit $code)" -- [ "$code" = 0 ]
	got=$(lines again.jsonl)
	check "... and every instance is wrapped once, valid ($got)" -- [ "$got" = "$total $total 0 0 0" ]
else
	for i in 1 2 3 4 5; do echo "ok $((tap_n + i)) # SKIP mount namespaces need root and unshare"; done
	tap_n=$((tap_n + 5))
fi

# --- a line beyond 64 MiB ------------------------------------------------------------------------
# 65 MiB of spaces in a string of a record, then a record of the corpus: bounded here in time and
# memory, as a stalled wrap would take minutes and gigabytes (a line of a gigabyte did).
{
	printf '{"library":"onnx","op":"Relu","kind":"node","params":{},"inputs":[],"outputs":[],"source":{"test":"'
	head -c 68157440 /dev/zero | tr '\0' ' '
	printf '"}}\n'
	sed -n 1p "$corpus"
} >long.jsonl
limit=4000000
[ -z "${ASAN_OPTIONS:-}" ] || limit=unlimited  # AddressSanitizer's shadow memory needs terabytes
expect_exit 0 "a corpus with a line beyond 64 MiB wraps" -- \
	sh -c 'ulimit -v $2; exec timeout 120 "$1" wrap long.jsonl -o long -q -j 1' sh "$FERRY" $limit
contains "... naming it by file and line" "$err" "long.jsonl:1: line longer than 64 MiB"
contains "... counting it" "$out" "bad corpus lines     1"
got=$(lines long/wrapped.jsonl)
check "... and the line after it is wrapped ($got)" -- [ "$got" = "1 1 0 0 0" ]
# ferry rank reads corpora with a reader of its own.
expect_exit 0 "rank takes the corpus too" -- \
	sh -c 'ulimit -v $2; exec timeout 120 "$1" rank long.jsonl -o queue.jsonl' sh "$FERRY" $limit
contains "... the long line a bad line" "$err" "long.jsonl:1: line longer than 64 MiB"
check "... and the next one ranked" -- [ "$(wc -l < queue.jsonl)" -eq 1 ]
finish
