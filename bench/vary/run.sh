#!/bin/sh
# run.sh: what variants add, `make bench-vary` (on demand, never in make check). It starts from the
# main job's results (scripts/main: work/onnx, work/torch, work/keras, or under FERRY_WORK) and, per
# library, into work/vary/LIBRARY (a copy of the main job's wrapped tests and store, which it leaves
# as they are):
#   1. ferry vary on the instances the main job ran (ONNX: the corpus; PyTorch and Keras: the
#      sample), with its summary: tried, kept, dropped by reason, validated per second;
#   2. coverage as the ranker counts it (ferry rank --stats), of those instances and of them with
#      their variants;
#   3. the variants wrapped and run on the main job's frontends (the instances' own results are
#      already in the store);
#   4. per frontend, in the time the main job spent on the instances alone (the store's per-test
#      seconds), the unique bugs that the corpus queue reaches and that the corpus-and-variants queue
#      reaches (ferry apfd on the queues cut at that time by budget.py); and over the whole
#      corpus-and-variants set, the APFD of OPERA's order against random orders of BENCH_SEEDS seeds.
# The main job runs variants of its own (ferry go --vary): this bench varies apart, into its own
# directory, so that the corpus alone and the corpus with variants can be compared on one store.
# Environment: FERRY_WORK (the main job's directory, default work/), BENCH_LIBS (default
# "onnx torch keras"), BENCH_PER_INSTANCE (variants kept per instance, default 2), BENCH_VARY_BUDGET
# (candidates tried per library, default no limit), BENCH_SEEDS (default 10), BENCH_JOBS.
set -eu
top=$(cd "$(dirname "$0")/../.." && pwd)
ferry=${FERRY:-$top/ferry}
py=${PYTHON:-$top/.venv/bin/python}
main=${FERRY_WORK:-$top/work}
libs=${BENCH_LIBS:-"onnx torch keras"}
per=${BENCH_PER_INSTANCE:-2}
seeds=${BENCH_SEEDS:-10}
jobs=${BENCH_JOBS:-$(nproc)}

for lib in $libs; do
	src=$main/$lib
	w=$main/vary/$lib
	case $lib in
	onnx) parents=$src/corpus.jsonl; frontends=ort; counts=; tol= ;;
	torch) parents=$w/sample.jsonl
		frontends=openvino-pytorch,openvino-export,tvm-pytorch,inductor,torch-onnx-ort
		counts="--counts $top/corpora/counts/tvm-relax-torch.json"
		tol="--tolerances $top/oracle/tolerances/torch.txt" ;;
	keras) parents=$w/sample.jsonl; frontends=openvino-tf,tvm-tflite,tflite; counts=
		tol="--tolerances $top/oracle/tolerances/keras.txt" ;;
	*) echo "bench-vary: no library '$lib'" >&2; exit 2 ;;
	esac
	if [ ! -f "$src/results.db" ] || [ ! -f "$src/corpus.jsonl" ]; then
		echo "bench-vary: run scripts/main first: '$src' has no results" >&2
		exit 2
	fi
	mkdir -p "$w"
	# PyTorch's and Keras's parents: the harvested tests of the main job's samples (ferry go's
	# sample*.ids, whose variants and graphs are not in the corpus).
	[ "$lib" = onnx ] || "$py" - "$src" "$parents" <<-'EOF'
		import glob, json, os, sys
		src, out = sys.argv[1], sys.argv[2]
		want = {l.strip() for f in glob.glob(os.path.join(src, "sample*.ids")) for l in open(f) if l.strip()}
		with open(out + ".tmp", "w") as o:
		    for line in open(os.path.join(src, "corpus.jsonl")):
		        if line.strip() and json.loads(line)["id"] in want:
		            o.write(line if line.endswith("\n") else line + "\n")
		os.replace(out + ".tmp", out)
		EOF
	[ -d "$w/wrapped" ] || cp -a "$src/wrapped" "$w/wrapped"
	[ -f "$w/results.db" ] || "$ferry" merge -o "$w/results.db" "$src/results.db" >/dev/null

	echo "== $lib: $(wc -l < "$parents") instances, $per variants kept per instance at most"
	budget=${BENCH_VARY_BUDGET:+--budget $BENCH_VARY_BUDGET}
	# shellcheck disable=SC2086
	"$ferry" vary "$parents" -o "$w/variants.jsonl" --per-instance "$per" $budget -j "$jobs" -q
	cat "$parents" "$w/variants.jsonl" > "$w/with-variants.jsonl"
	printf 'coverage, corpus:              %s\n' "$("$ferry" rank "$parents" --stats)"
	printf 'coverage, corpus and variants: %s\n' "$("$ferry" rank "$w/with-variants.jsonl" --stats)"

	"$ferry" wrap "$parents" "$w/variants.jsonl" -o "$w/wrapped" -j "$jobs" -q | sed 's/^/  /'
	# shellcheck disable=SC2086
	"$ferry" rank "$parents" -o "$w/q-corpus.jsonl" $counts -q
	# shellcheck disable=SC2086
	"$ferry" rank "$w/with-variants.jsonl" -o "$w/q-all.jsonl" $counts -q
	# shellcheck disable=SC2086
	"$ferry" run "$w/wrapped" --queue "$w/q-all.jsonl" -o "$w/results.db" --frontend "$frontends" \
		-j "$jobs" -q $tol > "$w/run.txt"
	randoms=
	for s in $(seq 1 "$seeds"); do
		"$ferry" rank "$w/with-variants.jsonl" -o "$w/q-random-$s.jsonl" --strategy random --seed "$s" -q
		randoms="$randoms random$s=$w/q-random-$s.jsonl"
	done

	for fe in $(echo "$frontends" | tr ',' ' '); do
		secs=$("$py" - "$w/results.db" "$fe" "$w/q-corpus.jsonl" <<-'EOF'
			import json, sqlite3, sys
			db = sqlite3.connect(f"file:{sys.argv[1]}?mode=ro", uri=True)
			ids = [json.loads(line)["id"] for line in open(sys.argv[3])]
			took = dict(db.execute("SELECT id, COALESCE(seconds, 0) FROM results WHERE frontend = ?",
			                       (sys.argv[2],)))
			print(f"{sum(took.get(i, 0) for i in ids):.1f}")
			EOF
		)
		c=$("$py" "$top/bench/vary/budget.py" "$w/results.db" "$fe" "$secs" "$w/q-corpus.jsonl" "$w/t-corpus-$fe")
		a=$("$py" "$top/bench/vary/budget.py" "$w/results.db" "$fe" "$secs" "$w/q-all.jsonl" "$w/t-all-$fe")
		echo "-- $fe: the corpus alone took ${secs}s of frontend time; in that time"
		echo "   the corpus queue runs $(echo "$c" | cut -d' ' -f1) tests, corpus and variants $(echo "$a" | cut -d' ' -f1)"
		"$ferry" apfd --bugs "$w/results.db" -F "$fe" corpus="$w/t-corpus-$fe" corpus+variants="$w/t-all-$fe" |
			sed 's/^/   /'
		echo "   all of corpus and variants, OPERA against random ($seeds seeds):"
		# shellcheck disable=SC2086
		"$ferry" apfd --bugs "$w/results.db" -F "$fe" opera="$w/q-all.jsonl" $randoms | sed 's/^/   /'
	done
done
