#!/bin/sh
# run.sh: batches against single tests, `make bench-batch` (on demand, never in make check).
# On BENCH_N (default 200) of ONNX's node tests (harvested and wrapped into BENCH_WORK, default
# work/bench-batch; a seeded random sample, BENCH_SEED, default 1), per ONNX frontend
# (BENCH_FRONTENDS, default "ort tvm-onnx openvino-onnx iree-onnx"; one not installed is left out),
# ferry run (probes included) at each of BENCH_BATCHES (default "1 8 32"), each into a store of
# its own, and bench.py prints in one table: the tests per CPU-second of the whole command (ferry
# and its workers, their start-up included), its ratio to --batch 1's, the wall time, and how many
# tests had the same outcome as with --batch 1, each difference listed. BENCH_JOBS workers
# (default 1: CPU time is what is compared, and one worker keeps the machine's other load out of
# it). Then the same for PyTorch's compiling frontends on OpInfo samples, and the unsupported share
# of generated graphs, blind and knowing the frontend (bench/generate/support.py).
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
# Then PyTorch: BENCH_TORCH_N tests (default 200; 0 leaves this out), a seeded random sample of
# OpInfo's samples (harvested once into BENCH_WORK/torch), at most two of an operator, on
# BENCH_TORCH_FRONTENDS (default "inductor torch-onnx-ort tvm-pytorch").
tn=${BENCH_TORCH_N:-200}
if [ "$tn" -gt 0 ] && "$py" -c 'import torch' 2>/dev/null; then
	t=$w/torch
	mkdir -p "$t"
	[ -s "$t/corpus.jsonl" ] || "$ferry" harvest torch -s opinfo -q -o "$t/corpus.jsonl" >/dev/null
	if [ ! -s "$t/wrapped/wrapped.jsonl" ]; then
		"$ferry" rank "$t/corpus.jsonl" --strategy random --seed "${BENCH_SEED:-1}" -o "$t/ranked.jsonl" >/dev/null
		"$py" - "$t/ranked.jsonl" "$tn" "$t/corpus.jsonl" >"$t/sample.jsonl" <<'PY'
import collections, json, sys
per, n, take = collections.Counter(), int(sys.argv[2]), set()
for line in open(sys.argv[1]):  # the queue: ids and operators, in the seeded order
    entry = json.loads(line)
    if entry.get("status") is None and per[entry["op"]] < 2 and len(take) < n:
        per[entry["op"]] += 1
        take.add(entry["id"])
for line in open(sys.argv[3]):  # their records, from the corpus
    if json.loads(line)["id"] in take:
        sys.stdout.write(line)
PY
		"$ferry" wrap "$t/sample.jsonl" -o "$t/wrapped" -q >/dev/null
	fi
	"$ferry" rank "$t/wrapped/wrapped.jsonl" --strategy random --seed "${BENCH_SEED:-1}" -o "$t/queue.jsonl" >/dev/null
	echo
	"$py" "$top/bench/batch/bench.py" --ferry "$ferry" --wrapped "$t/wrapped" --queue "$t/queue.jsonl" \
		--work "$t" -n "$tn" -j "${BENCH_JOBS:-1}" --batches "${BENCH_BATCHES:-1 8 32}" \
		--frontends "${BENCH_TORCH_FRONTENDS:-inductor torch-onnx-ort tvm-pytorch}"
fi
# Then generated graphs, blind against knowing what each frontend lacks (bench/generate/support.py):
# BENCH_GENERATE graphs each (default 300; 0 leaves this out).
[ "${BENCH_GENERATE:-300}" -eq 0 ] && exit 0
echo
exec "$py" "$top/bench/generate/support.py" --ferry "$ferry" --work "$w/generate" -n "${BENCH_GENERATE:-300}" \
	-j "${BENCH_JOBS:-1}" --frontends "${BENCH_FRONTENDS:-ort tvm-onnx openvino-onnx iree-onnx}"
