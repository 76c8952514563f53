#!/bin/sh
# The real pipeline on a slice of ONNX's node tests against the real ONNX Runtime: harvest, wrap,
# run, report, resume after kill -9, and a reproducer that shows the same outcome without ferry.
. "${top_srcdir:-$(dirname "$0")/../..}/tests/setup"
need_python_module onnx
need_python_module onnxruntime
py=${FERRY_PYTHON:-$top_srcdir/.venv/bin/python}
plan 30
sql() { "$py" -c 'import sqlite3, sys; print("\n".join("|".join(map(str, r)) for r in sqlite3.connect(sys.argv[1]).execute(sys.argv[2])))' "$@"; }

# Slices chosen for what they exercise: kept integer values (Slice, Gather, Reshape, Tile), out of
# bounds ends, attributes of every kind, multi-node *_expanded graphs, a usage ORT rejects (ConvInteger
# with a per-channel zero point), and one it gets wrong (Resize, linear, align_corners, downsampling).
expect_exit 0 "harvest a slice of the onnx node tests" -- "$FERRY" harvest onnx -q -o corpus.jsonl \
	-f 'test_slice*' -f 'test_gather_*' -f 'test_reshape_*' -f 'test_tile*' -f 'test_conv*' \
	-f 'test_relu*' -f 'test_softmax_*' -f 'test_layer_normalization_2d*' -f 'test_clip*' \
	-f 'test_resize_downsample_scales_linear_align_corners'
instances=$(wc -l < corpus.jsonl)
check "at least 80 instances harvested (got $instances)" -- [ "$instances" -ge 80 ]
contains "the summary counts distinct operators" "$out" "distinct operators"
check "Slice keeps the values of its starts and ends" -- grep -q '"values":\[1000\].*"op":"Slice"' corpus.jsonl
ids=$(cut -c1-45 corpus.jsonl | sort | uniq -d | wc -l)
check "identical usages are merged: every id is unique" -- [ "$ids" -eq 0 ]

# Two harvests give the same corpus, even of tests whose data comes from unseeded random generators
# (test_greater's inputs; the values test_bernoulli_expanded's random node feeds the nodes after it).
"$FERRY" harvest onnx -q -o r1.jsonl -f 'test_greater' -f 'test_bernoulli*' >/dev/null
"$FERRY" harvest onnx -q -o r2.jsonl -f 'test_greater' -f 'test_bernoulli*' >/dev/null
check "two harvests are identical" -- cmp -s r1.jsonl r2.jsonl

expect_exit 0 "wrap the slice" -- "$FERRY" wrap corpus.jsonl -o wrapped -q
valid=$(grep -c '"status":"ok"' wrapped/wrapped.jsonl)
check "at least 80 valid models (got $valid)" -- [ "$valid" -ge 80 ]
check "a test directory holds model.onnx" -- [ -f "$(ls -d wrapped/tests/*/* | head -1)/model.onnx" ]

# kill -9 the runner halfway (one worker, so it is slow enough to catch), then resume. Waits for
# results, not for a time: however busy the machine, as long as the runner lives.
"$FERRY" run wrapped --frontend ort -o results.db -j 1 -q >/dev/null 2>&1 &
pid=$!
n=0
while kill -0 $pid 2>/dev/null; do
	n=$(sql results.db "SELECT count(*) FROM results" 2>/dev/null || echo 0)
	case $n in '' | *[!0-9]*) n=0 ;; esac
	[ "$n" -ge 10 ] && break
	sleep 0.1
done
kill -9 $pid 2>/dev/null; wait $pid 2>/dev/null || true
check "the runner was killed halfway ($n of $valid done)" -- test "${n:-0}" -ge 10 -a "${n:-0}" -lt "$valid"
expect_exit 0 "the same command resumes" -- "$FERRY" run wrapped --frontend ort -o results.db -q
contains "the resumed run skips what is done" "$out" "already in the store"
total=$(sql results.db "SELECT count(*), count(DISTINCT id) FROM results WHERE frontend = 'ort'")
check "the store holds each valid test exactly once ($total, want $valid|$valid)" -- [ "$total" = "$valid|$valid" ]
errors=$(sql results.db "SELECT count(*) FROM results WHERE outcome = 'error'")
check "ferry itself failed on no test" -- [ "$errors" -eq 0 ]

relu=$(sql results.db "SELECT DISTINCT r.outcome FROM results r JOIN instances i USING(id) WHERE i.op = 'Relu'")
check "Relu passes on ORT (got '$relu')" -- [ "$relu" = "pass" ]
slice=$(sql results.db "SELECT count(*) FROM results r JOIN instances i USING(id) WHERE i.op = 'Slice' AND outcome = 'pass'")
check "Slice usages with kept starts/ends pass ($slice)" -- [ "$slice" -ge 5 ]
conv=$(sql results.db "SELECT r.outcome || ' ' || r.stage FROM results r JOIN instances i USING(id) WHERE i.op = 'ConvInteger' AND r.message LIKE '%per-tensor%'")
check "ORT's per-channel ConvInteger rejection is unsupported, in execute (got '$conv')" -- [ "$conv" = "unsupported execute" ]

expect_exit 0 "run again: nothing left" -- "$FERRY" run wrapped --frontend ort -o results.db -q
contains "nothing is run twice" "$out" "ran now              0"

expect_exit 0 "report with reproducers" -- "$FERRY" report results.db -o repro
contains "the report has per-outcome counts" "$out" "mismatch"
repro=$(ls repro/ort/Resize-*.py 2>/dev/null | head -1)
check "the report wrote a reproducer for the Resize mismatch" -- test -n "$repro"
set +e; env -i "$py" "$repro" >repro.out 2>&1; rc=$?; set -e
check "the reproducer, run with plain python and no ferry, shows the mismatch (exit $rc)" -- test "$rc" -eq 1
contains "the reproducer says what differs" "$(cat repro.out)" "BUG: output 0"

expect_exit 0 "bugs groups the failures" -- "$FERRY" bugs results.db
bug=$(printf '%s\n' "$out" | awk '$2 == "ort" && $3 == "mismatch" && $6 == "Resize" { print $1 }')
check "the Resize mismatch is a unique bug" -- test -n "$bug"
expect_exit 0 "show the bug and export it" -- "$FERRY" show results.db "$bug" -o bug
check "the export is an ONNX backend test directory" -- test -f bug/test_Resize_*/test_data_set_0/output_0.pb

# How early orders find the store's bugs.
"$FERRY" rank wrapped/wrapped.jsonl -q -o opera.jsonl
"$FERRY" rank wrapped/wrapped.jsonl -q --strategy random -o random.jsonl
expect_exit 0 "apfd reads the unique bugs from the store" -- "$FERRY" apfd --bugs results.db opera=opera.jsonl random=random.jsonl
row=$(printf '%s\n' "$out" | awk '$1 == "opera" { print $3 }')
check "the opera queue finds the store's bugs (found: $row)" -- test "${row:-0}" -ge 1
finish
