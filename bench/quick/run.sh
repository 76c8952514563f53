#!/bin/sh
# run.sh: the first run's promise, `make bench-quick` (on demand, never in make check): scripts/main
# --quick on the build at hand (no set-up), into a directory of its own made anew (BENCH_WORK,
# default a temporary one, removed after), so that nothing of an earlier run is skipped; then its
# time, its unique bugs per frontend and its page. The quick form is meant to show real bugs well
# within two minutes of a built ferry: the time printed is the whole command's, harvest to page.
set -eu
top=$(cd "$(dirname "$0")/../.." && pwd)
work=${BENCH_WORK:-}
if [ -z "$work" ]; then
	work=$(mktemp -d)
	trap 'rm -rf "$work"' EXIT
fi
rm -rf "$work/quick"
start=$(date +%s.%N)
FERRY_SKIP_SETUP=1 FERRY_WORK="$work" "$top/scripts/main" --quick > "$work/quick.log" 2>&1 || {
	tail -n 20 "$work/quick.log" >&2
	echo "bench-quick: scripts/main --quick failed (its output: $work/quick.log)" >&2
	exit 1
}
end=$(date +%s.%N)
bugs=$work/quick/onnx/bugs.txt
# bugs.txt's first line: "N unique bugs from M failures in STORE (...)"; its rows name the frontend.
n=$(sed -n '1s/^\([0-9]*\) unique bug.*/\1/p' "$bugs")
printf 'bench-quick: %.0fs, %s unique bugs; by frontend:\n' "$(awk -v a="$start" -v b="$end" 'BEGIN { print b - a }')" \
	"${n:-0}"
# A bug's row: its 12-digit id, then its frontend; what is no frontend bug comes after the first "Not".
awk '/^Not a frontend bug/ { exit } length($1) == 12 && $1 ~ /^[0-9a-f]+$/ { n[$2]++ }
	END { for (f in n) printf "  %-14s %d\n", f, n[f] }' "$bugs" | sort
tail -n 1 "$work/quick.log"
