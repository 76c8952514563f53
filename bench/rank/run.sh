#!/bin/sh
# run.sh: the ranking benchmark, `make bench-rank` (bench/rank/README.md). Prints:
#   1. ranking alone (in memory: records -> ranking form -> rank_run), at 10k, 100k and 1M instances,
#      with the peak memory of each run;
#   2. the whole command, `ferry rank CORPUS -o QUEUE` on the same corpora written as JSON Lines
#      (parsing included), with its peak memory, and a check that its queue is the in-memory one;
#   3. the Python reference implementation (rank_ref.py) on the same files, and a check that its queue
#      is ferry's, line for line. The 1M run of Python takes minutes and gigabytes: it runs only with
#      BENCH_PY_1M=1.
# Environment: BENCH_SIZES (default "10000 100000 1000000"), BENCH_SEED, BENCH_DIR (scratch space,
# default a mktemp -d under TMPDIR, removed at the end), PYTHON (default python3).
set -eu
top_srcdir=${top_srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}
top_builddir=${top_builddir:-.}
bench=$top_builddir/bench/rank/bench-rank
ferry=$top_builddir/ferry
sizes=${BENCH_SIZES:-"10000 100000 1000000"}
seed=${BENCH_SEED:-20250}
py=${PYTHON:-python3}
own_dir=
if [ -z "${BENCH_DIR:-}" ]; then
	BENCH_DIR=$(mktemp -d "${TMPDIR:-/tmp}/ferry-bench-rank.XXXXXX")
	own_dir=$BENCH_DIR
fi
trap '[ -n "$own_dir" ] && rm -rf "$own_dir"' EXIT INT TERM

echo "== 1. ranking alone (in memory), seed $seed, $(nproc) cores"
"$bench" --sizes "$(echo $sizes | tr ' ' ',')" --seed "$seed"

echo
echo "== 2. the whole command: ferry rank CORPUS -o QUEUE (JSON parsing included)"
printf '%9s  %9s  %8s  %s\n' instances corpus_MB wall_s peak_MB
for n in $sizes; do
	corpus=$BENCH_DIR/corpus-$n.jsonl
	"$bench" --jsonl "$corpus" --size "$n" --seed "$seed"
	/usr/bin/time -f '%e %M' -o "$BENCH_DIR/time" "$ferry" rank "$corpus" -o "$BENCH_DIR/queue-$n.jsonl" -q
	read -r wall kb < "$BENCH_DIR/time"
	mb=$(du -m "$corpus" | cut -f1)
	printf '%9s  %9s  %8s  %s\n' "$n" "$mb" "$wall" "$(awk "BEGIN { printf \"%.1f\", $kb / 1024 }")"
done
last=$(echo $sizes | awk '{ print $NF }')
"$bench" --queue "$BENCH_DIR/memory-$last.jsonl" --size "$last" --seed "$seed"
if cmp -s "$BENCH_DIR/memory-$last.jsonl" "$BENCH_DIR/queue-$last.jsonl"; then
	echo "the queue of the command is the in-memory queue ($last instances)"
else
	echo "MISMATCH: the command's queue differs from the in-memory one" >&2
	exit 1
fi

echo
echo "== 3. the Python reference implementation (bench/rank/rank_ref.py) on the same files"
printf '%9s  %8s  %8s  %8s  %s\n' instances load_s rank_s peak_MB same_queue
for n in $sizes; do
	if [ "$n" -gt 100000 ] && [ "${BENCH_PY_1M:-0}" != 1 ]; then
		echo "    (skipping $n instances: set BENCH_PY_1M=1 to run it; it takes minutes)"
		continue
	fi
	corpus=$BENCH_DIR/corpus-$n.jsonl
	"$ferry" rank "$corpus" --strategy random -o "$BENCH_DIR/random-$n.jsonl" -q
	/usr/bin/time -f '%M' -o "$BENCH_DIR/time" "$py" "$top_srcdir/bench/rank/rank_ref.py" "$corpus" \
		"$BENCH_DIR/random-$n.jsonl" -o "$BENCH_DIR/py-$n.txt" 2> "$BENCH_DIR/py.err"
	kb=$(cat "$BENCH_DIR/time")
	set -- $(cat "$BENCH_DIR/py.err")
	sed 's/^{"rank":[0-9]*,"id":"\([^"]*\)".*/\1/' "$BENCH_DIR/queue-$n.jsonl" > "$BENCH_DIR/ids-$n.txt"
	same=no
	cmp -s "$BENCH_DIR/ids-$n.txt" "$BENCH_DIR/py-$n.txt" && same=yes
	printf '%9s  %8s  %8s  %8s  %s\n' "$n" "$2" "$4" "$(awk "BEGIN { printf \"%.1f\", $kb / 1024 }")" "$same"
	[ "$same" = yes ] || exit 1
done
