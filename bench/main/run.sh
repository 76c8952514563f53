#!/usr/bin/env bash
# Tests and unique bugs per CPU-hour of the main job (scripts/main), before and after: the main job
# of an earlier commit (BEFORE, default 5460cb6: before the speed-ups of issue 18) against this
# checkout's HEAD, each built in a worktree of its own under WORKDIR and run whole with the same
# samples (FERRY_IREE_SAMPLE, FERRY_TORCH_SAMPLE, FERRY_KERAS_SAMPLE: defaults 100, 100, 60 here, to
# keep a round under an hour or two on 2 cores; scripts/main's own defaults are 300, 300, 200).
#     bench/main/run.sh [WORKDIR]       (or: make bench-main; BEFORE=REV to compare another commit)
# The CPU time is that of the whole job and every process it waited for (harvest children, wrap and
# run workers, compilers): user + system, from /usr/bin/time, which a busy machine inflates less
# than the wall clock. Tests are the results rows of the job's three stores (a test on a frontend);
# unique bugs are counted by one ferry (HEAD's 'ferry bugs') for both stores, so that the grouping
# is the same. A side already measured at the same commit and samples is not run again; remove
# WORKDIR/SIDE.txt to run it again; BENCH_SIDES=before (or after) runs one side only. The two worktrees share this checkout's .venv (the pinned
# libraries are the same): nothing is installed.
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
work=$(mkdir -p "${1:-$top/work/bench-main}" && cd "${1:-$top/work/bench-main}" && pwd)
before=$(git -C "$top" rev-parse --short "${BEFORE:-5460cb6}")
after=$(git -C "$top" rev-parse --short HEAD)
export FERRY_IREE_SAMPLE=${FERRY_IREE_SAMPLE:-100} FERRY_TORCH_SAMPLE=${FERRY_TORCH_SAMPLE:-100}
export FERRY_KERAS_SAMPLE=${FERRY_KERAS_SAMPLE:-60}
# the libraries both sides run: the earlier commit's main job knows no Keras 2 (tf_keras)
export FERRY_LIBRARIES=${FERRY_LIBRARIES:-onnx torch keras}
samples="iree $FERRY_IREE_SAMPLE, torch $FERRY_TORCH_SAMPLE, keras $FERRY_KERAS_SAMPLE"

# measure SIDE REV: run REV's main job into WORKDIR/SIDE, its times into WORKDIR/SIDE.txt
measure() {
	local side=$1 rev=$2 out=$work/$1
	if [ -f "$work/$side.txt" ] && grep -qx "rev $rev samples $samples" "$work/$side.txt"; then
		echo "bench-main: $side ($rev) measured already"
		return
	fi
	"$top/bench/build-rev.sh" "$rev" "$work" >/dev/null
	rm -rf "$out" "$work/$side.txt"
	echo "bench-main: running the main job of $rev ($side) into $out ($(date -u +%H:%M), load $(cut -d' ' -f1-3 /proc/loadavg))"
	FERRY_WORK=$out /usr/bin/time -f '%e %U %S' -o "$work/$side.time" \
		"$work/src-$rev/scripts/main" >"$work/$side.log" 2>&1 || {
		echo "bench-main: the main job of $rev failed (see $work/$side.log)" >&2
		exit 1
	}
	{ echo "rev $rev samples $samples"; cat "$work/$side.time"; } > "$work/$side.txt"
}

for side in ${BENCH_SIDES:-before after}; do
	case $side in
	before) measure before "$before" ;;
	after) measure after "$after" ;;
	esac
done
[ -f "$work/before.txt" ] && [ -f "$work/after.txt" ] || exit 0

# count SIDE: "TESTS BUGS" of the side's three stores, counted by HEAD's ferry
count() {
	local ferry=$work/src-$after/ferry tests=0 bugs=0 lib n
	for lib in onnx torch keras; do
		cp "$work/$1/$lib/results.db" "$work/count.db"
		n=$("$top/.venv/bin/python" -c 'import sqlite3, sys
print(sqlite3.connect(sys.argv[1]).execute("SELECT count(*) FROM results").fetchone()[0])' "$work/count.db")
		tests=$((tests + n))
		n=$("$ferry" bugs "$work/count.db" --json | "$top/.venv/bin/python" -c 'import json, sys
print(len(json.load(sys.stdin)["bugs"]))')
		bugs=$((bugs + n))
	done
	rm -f "$work/count.db"*
	echo "$tests $bugs"
}
read -r tb bb < <(count before)
read -r ta ba < <(count after)
read -r _ ub sb < <(sed -n 2p "$work/before.txt")
read -r _ ua sa < <(sed -n 2p "$work/after.txt")
awk -v tb="$tb" -v bb="$bb" -v cb="$(echo "$ub + $sb" | bc)" -v ta="$ta" -v ba="$ba" -v ca="$(echo "$ua + $sa" | bc)" \
	-v before="$before" -v after="$after" -v samples="$samples" 'BEGIN {
	printf "the main job (samples: %s), 2 cores:\n", samples
	printf "  %-18s %7s %9s %12s %10s %14s\n", "", "tests", "bugs", "CPU hours", "tests/CPU-h", "bugs/CPU-h"
	printf "  before (%-8s) %7d %9d %12.3f %10.0f %14.1f\n", before, tb, bb, cb / 3600, tb / (cb / 3600), bb / (cb / 3600)
	printf "  after  (%-8s) %7d %9d %12.3f %10.0f %14.1f\n", after, ta, ba, ca / 3600, ta / (ca / 3600), ba / (ca / 3600)
	printf "  after against before: %.2fx the tests per CPU-hour, %.2fx the unique bugs per CPU-hour\n",
		(ta / ca) / (tb / cb), (bb ? (ba / ca) / (bb / cb) : 0)
}'
