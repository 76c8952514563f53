#!/usr/bin/env bash
# Benchmark of ferry's runner (issue: per-test overhead over a bare loop, speed-up over one process
# per test, speed-up from 1 to 2 workers). Runs the same N valid ONNX tests against ONNX Runtime:
#   floor         one Python process, a bare loop over ferry.oracle.driver.run with the ORT adapter
#   ferry -j 1    ferry's runner with one worker: isolation, timeouts, the store, the oracles in C
#   ferry -j 2    the same with two workers
#   per-process   one fresh Python process per test (how OPERA ran), on the same tests
# usage: bench/runner/bench.sh [N]     (default 500; run from a built tree after scripts/setup)
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
n=${1:-500}
ferry=$top/ferry
py=${FERRY_PYTHON:-$top/.venv/bin/python}
work=${FERRY_BENCH_WORK:-$top/work/bench-runner}
mkdir -p "$work"
cd "$work"

[ -f corpus.jsonl ] || "$ferry" harvest onnx -q -o corpus.jsonl >/dev/null
[ -f wrapped/wrapped.jsonl ] || "$ferry" wrap corpus.jsonl -o wrapped -q >/dev/null
# N valid tests that ORT can load (unsupported ones fail before the interesting work), in wrap order.
if [ ! -f ids.txt ] || [ "$(wc -l < ids.txt)" -ne "$n" ]; then
	rm -f probe.db
	"$ferry" run wrapped -F ort -o probe.db -q >/dev/null
	"$py" -c 'import sqlite3, sys
ids = [r[0] for r in sqlite3.connect("probe.db").execute(
    "SELECT id FROM results WHERE frontend = ? AND outcome IN (?, ?) ORDER BY id", ("ort", "pass", "mismatch"))]
print("\n".join(ids[:int(sys.argv[1])]))' "$n" > ids.txt
fi
# A queue of those ids, so ferry runs exactly them.
sed 's/.*/{"id":"&"}/' ids.txt > queue.jsonl
export PYTHONPATH="$top/python"  # the build tree's ferry package (make)

now() { date +%s.%N; }
# ferry's time for a run of the queue's first K tests with J workers, in a fresh store.
ferry_time() {
	rm -f t.db*
	local t0 t1
	t0=$(now); "$ferry" run wrapped -F ort --queue queue.jsonl -o t.db -j "$2" -n "$1" -q >/dev/null; t1=$(now)
	rm -f t.db*
	echo "$t1 - $t0" | bc -l
}
t_floor=$("$py" "$top/bench/runner/floor.py" wrapped ids.txt | "$py" -c 'import json,sys; print(json.load(sys.stdin)["seconds"])')
t_j1=$(ferry_time "$n" 1)
t_j1_one=$(ferry_time 1 1)
t_j2=$(ferry_time "$n" 2)
t_j2_one=$(ferry_time 1 2)
t_proc=0
if [ -z "${FERRY_BENCH_SKIP_PROCESSES:-}" ]; then
	t0=$(now)
	while read -r id; do
		echo "$id" > one.txt
		"$py" "$top/bench/runner/floor.py" wrapped one.txt >/dev/null
	done < ids.txt
	t1=$(now)
	t_proc=$(echo "$t1 - $t0" | bc -l)
fi

"$py" - "$n" "$t_floor" "$t_j1" "$t_j1_one" "$t_j2" "$t_j2_one" "$t_proc" <<'PY'
import sys
n, floor, j1, j1_one, j2, j2_one, proc = int(sys.argv[1]), *map(float, sys.argv[2:])
per = lambda t, k=n: 1000 * t / k
# Marginal cost: the run of n tests less the run of one (start-up: load the wrap, open the store,
# start the workers and import the frontend), over the n - 1 tests that makes the difference.
m1, m2 = (j1 - j1_one) / (n - 1), (j2 - j2_one) / (n - 1)
print(f"tests: {n} valid ONNX node tests on ONNX Runtime (2 cores)")
print(f"  floor: bare loop in one process   {floor:7.2f} s   {per(floor):6.2f} ms/test (imports excluded)")
print(f"  ferry -j 1                        {j1:7.2f} s   {1000 * m1:6.2f} ms/test marginal, start-up {j1_one:.2f} s")
print(f"  ferry -j 2                        {j2:7.2f} s   {1000 * m2:6.2f} ms/test marginal, start-up {j2_one:.2f} s")
if proc:
    print(f"  one process per test              {proc:7.2f} s   {per(proc):6.2f} ms/test")
print(f"per-test overhead of ferry -j 1 over the floor: {100 * (1000 * m1 - per(floor)) / per(floor):+.1f}%")
if proc:
    print(f"speed-up of ferry -j 1 over one process per test: {proc / j1:.1f}x (whole commands)")
print(f"speed-up from 1 to 2 workers: {m1 / m2:.2f}x per test (marginal), {j1 / j2:.2f}x whole command")
PY
