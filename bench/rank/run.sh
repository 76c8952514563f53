#!/bin/sh
# run.sh: the ranking benchmark, `make bench-rank` (bench/rank/README.md). Prints:
#   1. ranking alone (in memory: records -> ranking form -> rank_run), at 10k, 100k and 1M instances,
#      with the peak memory of each run;
#   2. the whole command, `ferry rank CORPUS -o QUEUE` on the same corpora written as JSON Lines
#      (parsing included): wall and cpu time and peak memory, with the canonical reader (lib/canon.c)
#      and with the old cJSON path (FERRY_RANK_READER=cjson), alternated in one run; the speed-up,
#      the growth against n log n, and checks that the two queues, and the in-memory one, are equal;
#   3. the Python reference implementation (rank_ref.py) on the same files, and a check that its queue
#      is ferry's, line for line. The 1M run of Python takes minutes and gigabytes: it runs only with
#      BENCH_PY_1M=1.
# Environment: BENCH_SIZES (default "10000 100000 1000000"), BENCH_SEED, BENCH_REPEAT (runs of each
# path per size in part 2, default 3), BENCH_PY (0: skip part 3), BENCH_DIR (scratch space,
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
echo "== 2. the whole command: ferry rank CORPUS -o QUEUE (reading included), new reader against old"
# The new path reads ferry's own canonical lines with lib/canon.c; FERRY_RANK_READER=cjson is the old
# path (every line through cJSON and record_from_json). Runs alternate new, old, new, old, ... so that
# a change in the machine's load falls on both. Each cell is the best (min) of $repeat runs and, for
# wall time, the median too; cpu is user + system time; rss the peak resident memory (/usr/bin/time).
repeat=${BENCH_REPEAT:-3}
load() { cut -d' ' -f1-3 /proc/loadavg; }
echo "load average before: $(load) ($(nproc) cores)"
printf '%9s %7s | %8s %8s %6s %7s | %8s %6s %7s | %7s %7s | %s\n' instances corpusMB \
	new_wall new_med new_cpu new_MB old_wall old_cpu old_MB x_wall x_cpu same_queue
: > "$BENCH_DIR/growth"
for n in $sizes; do
	corpus=$BENCH_DIR/corpus-$n.jsonl
	"$bench" --jsonl "$corpus" --size "$n" --seed "$seed"
	: > "$BENCH_DIR/t-new"
	: > "$BENCH_DIR/t-old"
	for r in $(seq "$repeat"); do
		/usr/bin/time -f '%e %U %S %M' -a -o "$BENCH_DIR/t-new" \
			"$ferry" rank "$corpus" -o "$BENCH_DIR/queue-$n.jsonl" -q
		FERRY_RANK_READER=cjson /usr/bin/time -f '%e %U %S %M' -a -o "$BENCH_DIR/t-old" \
			"$ferry" rank "$corpus" -o "$BENCH_DIR/queue-old-$n.jsonl" -q
	done
	same=no
	cmp -s "$BENCH_DIR/queue-$n.jsonl" "$BENCH_DIR/queue-old-$n.jsonl" && same=yes
	mb=$(du -m "$corpus" | cut -f1)
	# min wall, median wall, min cpu, max rss (MB)
	stats() { sort -n "$1" | awk '{ w[NR] = $1; c = $2 + $3; if (NR == 1 || c < mc) mc = c; if ($4 > m) m = $4 }
		END { printf "%.2f %.2f %.2f %.1f", w[1], w[int((NR + 1) / 2)], mc, m / 1024 }'; }
	set -- $(stats "$BENCH_DIR/t-new") $(stats "$BENCH_DIR/t-old")
	printf '%9s %7s | %8s %8s %6s %7s | %8s %6s %7s | %7s %7s | %s\n' "$n" "$mb" "$1" "$2" "$3" "$4" "$5" "$7" "$8" \
		"$(awk "BEGIN { printf \"%.1fx\", $5 / $1 }")" "$(awk "BEGIN { printf \"%.1fx\", $7 / $3 }")" "$same"
	echo "$n $1 $3" >> "$BENCH_DIR/growth"
	rm -f "$BENCH_DIR/queue-old-$n.jsonl"
	[ "$same" = yes ] || { echo "MISMATCH: the new reader's queue differs from the old one's ($n)" >&2; exit 1; }
done
echo "load average after: $(load)"
echo "growth of the new path against n log n (a ratio near 1 is n log n; the fixed start-up cost of"
echo "the binary, about 0.03 s, flattens the smallest size):"
awk 'NR > 1 { nl = ($1 * log($1)) / (p * log(p)); printf "  %8d -> %8d: n log n x%.1f, wall x%.1f (ratio %.2f), cpu x%.1f (ratio %.2f)\n", p, $1, nl, $2 / pw, ($2 / pw) / nl, $3 / pc, ($3 / pc) / nl }
	{ p = $1; pw = $2; pc = $3 }' "$BENCH_DIR/growth"
last=$(echo $sizes | awk '{ print $NF }')
"$bench" --queue "$BENCH_DIR/memory-$last.jsonl" --size "$last" --seed "$seed"
if cmp -s "$BENCH_DIR/memory-$last.jsonl" "$BENCH_DIR/queue-$last.jsonl"; then
	echo "the queue of the command is the in-memory queue ($last instances)"
else
	echo "MISMATCH: the command's queue differs from the in-memory one" >&2
	exit 1
fi

echo
if [ "${BENCH_PY:-1}" = 0 ]; then
	exit 0
fi
echo "== 3. the Python reference implementation (bench/rank/rank_ref.py) on the same files"
printf '%9s  %8s  %8s  %8s  %s\n' instances load_s rank_s peak_MB same_queue
for n in $sizes; do
	if [ "$n" -gt 100000 ] && [ "${BENCH_PY_1M:-0}" != 1 ]; then
		echo "    (skipping $n instances: set BENCH_PY_1M=1 to run it; it takes minutes)"
		continue
	fi
	corpus=$BENCH_DIR/corpus-$n.jsonl
	"$bench" --order "$BENCH_DIR/seeded-$n.jsonl" --size "$n" --seed "$seed"
	/usr/bin/time -f '%M' -o "$BENCH_DIR/time" "$py" "$top_srcdir/bench/rank/rank_ref.py" "$corpus" \
		"$BENCH_DIR/seeded-$n.jsonl" -o "$BENCH_DIR/py-$n.txt" 2> "$BENCH_DIR/py.err"
	kb=$(cat "$BENCH_DIR/time")
	set -- $(cat "$BENCH_DIR/py.err")
	sed 's/^{"rank":[0-9]*,"id":"\([^"]*\)".*/\1/' "$BENCH_DIR/queue-$n.jsonl" > "$BENCH_DIR/ids-$n.txt"
	same=no
	cmp -s "$BENCH_DIR/ids-$n.txt" "$BENCH_DIR/py-$n.txt" && same=yes
	printf '%9s  %8s  %8s  %8s  %s\n' "$n" "$2" "$4" "$(awk "BEGIN { printf \"%.1f\", $kb / 1024 }")" "$same"
	[ "$same" = yes ] || exit 1
done
