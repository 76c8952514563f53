#!/bin/sh
# The generator's benchmark (make bench-generate; never part of make check): 10,000 graphs of 1 to
# 200 nodes (mean about 100) on one core, against Isra's 320 s for the same count. Prints the time,
# graphs per second, the mean node count, the peak resident memory, and the ratio to Isra.
set -eu
FERRY=${FERRY:-ferry}
COUNT=${COUNT:-10000}
out=$(mktemp -d "${TMPDIR:-/tmp}/ferry-bench-generate.XXXXXX")
trap 'rm -rf "$out"' EXIT
# One core: the generator is single-threaded; taskset keeps the machine's other work off it when
# it can.
pin=""
command -v taskset >/dev/null 2>&1 && pin="taskset -c 0"
if [ -x /usr/bin/time ]; then
	$pin /usr/bin/time -v "$FERRY" generate -o "$out/corpus.jsonl" -n "$COUNT" --nodes 1:200 --seed 1 -q \
		>"$out/summary" 2>"$out/time"
	secs=$(awk -F': ' '/Elapsed \(wall clock\)/ { n = split($2, p, ":"); s = 0;
		for (i = 1; i <= n; i++) s = s * 60 + p[i]; print s }' "$out/time")
	rss=$(awk -F': ' '/Maximum resident set size/ { print $2 }' "$out/time")
else
	start=$(date +%s.%N)
	$pin "$FERRY" generate -o "$out/corpus.jsonl" -n "$COUNT" --nodes 1:200 --seed 1 -q >"$out/summary"
	secs=$(echo "$(date +%s.%N) - $start" | bc)
	rss="(unknown: no /usr/bin/time)"
fi
mean=$(sed -n 's/.*nodes  *[0-9]*: mean \([0-9.]*\).*/\1/p' "$out/summary")
size=$(wc -c < "$out/corpus.jsonl")
awk -v n="$COUNT" -v s="$secs" -v m="$mean" -v r="$rss" -v b="$size" 'BEGIN {
	printf "graphs          %d of 1..200 nodes (mean %s)\n", n, m
	printf "time            %.2f s\n", s
	printf "graphs/s        %.0f\n", n / s
	printf "peak RSS        %s kB\n", r
	printf "corpus          %.1f MB\n", b / 1e6
	printf "vs Isra (320 s) %.1fx faster\n", 320 / s * n / 10000
}'
