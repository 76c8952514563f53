#!/bin/sh
# run.sh: batches against single tests, `make bench-batch` (on demand, never in make check).
# On BENCH_N (default 200) of ONNX's node tests (harvested and wrapped into BENCH_WORK, default
# work/bench-batch; a seeded random sample, BENCH_SEED, default 1), per ONNX frontend
# (BENCH_FRONTENDS, default "ort tvm-onnx openvino-onnx iree-onnx"; one not installed is left out),
# ferry run --no-probe at each of BENCH_BATCHES (default "1 8 32"), each into a store of its own, and
# bench.py prints in one table: the tests per CPU-second of the whole command (ferry and its workers,
# their start-up included), its ratio to --batch 1's, the wall time, and how many tests had the same
# outcome as with --batch 1, each difference listed. BENCH_JOBS workers (default 1: CPU time is
# what is compared, and one worker keeps the machine's other load out of it). Then the unsupported
# share of generated graphs, blind and knowing the frontend (bench/generate/support.py).
set -eu
top=$(cd "$(dirname "$0")/../.." && pwd)
ferry=${FERRY:-$top/ferry}
py=${PYTHON:-$top/.venv/bin/python}
w=${BENCH_WORK:-$top/work/bench-batch}
mkdir -p "$w"
[ -s "$w/corpus.jsonl" ] || "$ferry" harvest onnx -q -o "$w/corpus.jsonl" >/dev/null
[ -s "$w/wrapped/wrapped.jsonl" ] || "$ferry" wrap "$w/corpus.jsonl" -o "$w/wrapped" -q >/dev/null
# A seeded random order: the sample is spread over the operators, not the alphabet's first.
"$ferry" rank "$w/wrapped/wrapped.jsonl" --strategy random --seed "${BENCH_SEED:-1}" -o "$w/queue.jsonl" >/dev/null
"$py" "$top/bench/batch/bench.py" --ferry "$ferry" --wrapped "$w/wrapped" --queue "$w/queue.jsonl" \
	--work "$w" -n "${BENCH_N:-200}" -j "${BENCH_JOBS:-1}" --batches "${BENCH_BATCHES:-1 8 32}" \
	--frontends "${BENCH_FRONTENDS:-ort tvm-onnx openvino-onnx iree-onnx}"
# Then generated graphs, blind against knowing what each frontend lacks (bench/generate/support.py):
# BENCH_GENERATE graphs each (default 300; 0 leaves this out).
[ "${BENCH_GENERATE:-300}" -eq 0 ] && exit 0
echo
exec "$py" "$top/bench/generate/support.py" --ferry "$ferry" --work "$w/generate" -n "${BENCH_GENERATE:-300}" \
	-j "${BENCH_JOBS:-1}" --frontends "${BENCH_FRONTENDS:-ort tvm-onnx openvino-onnx iree-onnx}"
