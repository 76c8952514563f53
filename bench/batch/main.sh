#!/bin/sh
# main.sh: the main job (scripts/main) before and after batches, `make bench-batch-main` (on demand:
# twice the main job's time). The same command in the same environment twice, FERRY_BATCH=1 (each
# test alone, as before batches) and FERRY_BATCH=16 (scripts/main's default), each into a work
# directory of its own under BENCH_WORK (default work/bench-batch-main); prints the wall-clock and
# CPU seconds (ferry, its workers and every child: the shell's `times` after each run) of each and
# their ratios, and the unique bugs of each library's store. The job's form is scripts/main's own
# variables, taken from the environment (FERRY_LIBRARIES, FERRY_TORCH_SAMPLE, FERRY_OPS...); unset,
# it is the whole main job.
set -eu
top=$(cd "$(dirname "$0")/../.." && pwd)
w=${BENCH_WORK:-$top/work/bench-batch-main}
export FERRY="${FERRY:-$top/ferry}"
mkdir -p "$w"
run() { # run BATCH: the job into $w/batch-BATCH; prints "BATCH WALL CPU" on fd 3
	rm -rf "$w/batch-$1"
	start=$(date +%s)
	( FERRY_WORK="$w/batch-$1" FERRY_BATCH=$1 "$top/scripts/main" >"$w/batch-$1.log" 2>&1
	  times >"$w/batch-$1.times" )
	echo "$1 $(($(date +%s) - start))" >"$w/batch-$1.wall"
}
run 1
run 16
"${PYTHON:-$top/.venv/bin/python}" - "$w" "$FERRY" <<'PY'
import json, os, re, subprocess, sys
w, ferry = sys.argv[1], sys.argv[2]
def cpu(k):  # the second line of `times`: the children's user and system time, "1m2.5s 0m3.1s"
    line = open(f"{w}/batch-{k}.times").read().splitlines()[1]
    return sum(int(m) * 60 + float(s) for m, s in re.findall(r"(\d+)m([\d.]+)s", line))
def bugs(k):
    out = {}
    for lib in sorted(os.listdir(f"{w}/batch-{k}")):
        db = f"{w}/batch-{k}/{lib}/results.db"
        if os.path.exists(db):
            res = subprocess.run([ferry, "bugs", db, "--json"], capture_output=True, text=True, check=True)
            out[lib] = sum(b["kind"] == "bug" for b in json.loads(res.stdout)["bugs"])
    return out
rows = {k: (int(open(f"{w}/batch-{k}.wall").read().split()[1]), cpu(k), bugs(k)) for k in (1, 16)}
print("main job      wall s    CPU s   unique bugs per library")
for k, (wall, c, b) in rows.items():
    print(f"--batch {k:<4} {wall:8d} {c:8.0f}   {' '.join(f'{l}={n}' for l, n in b.items())}")
(w1, c1, _), (w16, c16, _) = rows[1], rows[16]
print(f"ratio (1 / 16): wall {w1 / max(w16, 1):.2f}x, CPU {c1 / max(c16, 1e-9):.2f}x")
PY
