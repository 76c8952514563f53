#!/bin/sh
# The full PyTorch harvest and what its instrumentation costs. Run from the top of a built tree:
#     bench/torch/run.sh [OUTDIR]
# 1. ferry harvest torch, the real command (all shipped suites), timed: the corpus and its summary
#    (per-suite instances, operators, merged duplicates, unmigratable with reasons) go to OUTDIR.
# 2. bench_harvest.py: the same suites in-process with and without the instrumentation (and, when
#    BEFORE names a git revision, with that revision's instrumentation too: make bench-harvest).
set -eu
top=$(cd "$(dirname "$0")/../.." && pwd)
out=${1:-$top/work/bench-torch}
mkdir -p "$out"
py=${FERRY_PYTHON:-$top/.venv/bin/python}
start=$(date +%s)
"$top/ferry" harvest torch -q -o "$out/corpus.jsonl" | tee "$out/summary.txt"
end=$(date +%s)
echo "full harvest: $((end - start)) s (ferry harvest torch, wall clock)" | tee -a "$out/summary.txt"
"$py" "$top/bench/torch/bench_harvest.py" ${BEFORE:+--before "$BEFORE"} | tee "$out/slowdown.txt"
