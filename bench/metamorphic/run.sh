#!/bin/sh
# run.sh: the metamorphic oracle's numbers, `make bench-metamorphic` (on demand, never in make check).
# On a wrapped ONNX corpus (BENCH_WRAPPED, a directory of ferry wrap; by default the ONNX node tests,
# harvested and wrapped into BENCH_WORK/wrapped), per ONNX frontend (BENCH_FRONTENDS, default
# "ort openvino-onnx tvm-onnx iree-onnx"), into BENCH_WORK (default work/bench-metamorphic):
#   1. ferry run --oracle metamorphic -k BENCH_K (default 3) --seed BENCH_SEED (default 0) for
#      BENCH_BUDGET seconds (default 300; the tests in a seeded random order, so that the budget
#      samples the corpus), each inconsistency reduced as the run finds it;
#   2. ferry run with the reference oracle on exactly the tests the first run took (the unmutated
#      tests, for the time ratio; measured in the same invocation, on the same machine);
#   3. summary.py: mutated models, validity (mutations that held / mutations made), inconsistencies,
#      unique bugs (ferry bugs), reduction ratio (nodes in the first failing m' over the reduced
#      one's), and seconds per mutated test over seconds per unmutated test.
# A frontend that is not installed is reported unavailable and left out. BENCH_JOBS (default: cores).
set -eu
top=$(cd "$(dirname "$0")/../.." && pwd)
ferry=${FERRY:-$top/ferry}
py=${PYTHON:-$top/.venv/bin/python}
w=${BENCH_WORK:-$top/work/bench-metamorphic}
frontends=${BENCH_FRONTENDS:-"ort openvino-onnx tvm-onnx iree-onnx"}
budget=${BENCH_BUDGET:-300}
k=${BENCH_K:-3}
seed=${BENCH_SEED:-0}
jobs=${BENCH_JOBS:-$(nproc)}
mkdir -p "$w"
wrapped=${BENCH_WRAPPED:-}
if [ -z "$wrapped" ]; then
	wrapped=$w/wrapped
	[ -s "$w/corpus.jsonl" ] || "$ferry" harvest onnx -q -o "$w/corpus.jsonl" >/dev/null
	"$ferry" wrap "$w/corpus.jsonl" -o "$wrapped" -q -j "$jobs" >/dev/null
fi
# A seeded random order of the wrapped tests: the budget takes a sample, not the alphabet's start.
"$ferry" rank "$wrapped/wrapped.jsonl" --strategy random --seed "$seed" -o "$w/queue.jsonl" >/dev/null

for fe in $frontends; do
	meta=$w/$fe-metamorphic.db ref=$w/$fe-reference.db
	rm -f "$meta" "$meta-wal" "$meta-shm" "$ref" "$ref-wal" "$ref-shm"
	echo "== $fe: metamorphic oracle, k=$k, $budget s" >&2
	if ! "$ferry" run "$wrapped" -F "$fe" --oracle metamorphic -k "$k" --seed "$seed" -o "$meta" -q \
		-j "$jobs" --queue "$w/queue.jsonl" --budget "$budget" >"$w/$fe-metamorphic.txt"; then
		echo "$fe: unavailable or failed (see $w/$fe-metamorphic.txt)" >&2
		continue
	fi
	"$py" -c 'import json, sqlite3, sys
for (i,) in sqlite3.connect(sys.argv[1]).execute("SELECT id FROM results"):
    print(json.dumps({"id": i}))' "$meta" >"$w/$fe-ran.jsonl"
	echo "== $fe: the same tests, reference oracle" >&2
	"$ferry" run "$wrapped" -F "$fe" -o "$ref" -q -j "$jobs" --queue "$w/$fe-ran.jsonl" >"$w/$fe-reference.txt" || true
	"$ferry" bugs "$meta" >"$w/$fe-bugs.txt" || true
done
"$py" "$top/bench/metamorphic/summary.py" "$w" $frontends
