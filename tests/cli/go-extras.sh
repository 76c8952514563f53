#!/bin/sh
# ferry go with variants and generated graphs (--vary K, --generate N) on a small real slice (ONNX
# node tests of two operators, on ONNX Runtime): the sample's own tests run first, then up to K
# variants of each of them and no others, then the graphs; the same command again runs nothing; a
# larger K varies on from where vary stopped and runs only what is new; --op and --test decide what
# is generated.
. "${top_srcdir:-$(dirname "$0")/../..}/tests/setup"
need_python_module onnx
need_python_module onnxruntime
plan 33
py=${FERRY_PYTHON:-$top_srcdir/.venv/bin/python}
sql() { "$py" -c 'import sqlite3, sys; print("\n".join("|".join(map(str, r)) for r in sqlite3.connect(sys.argv[1]).execute(sys.argv[2])))' "$@"; }
d=proj/onnx
ids() { "$py" -c 'import json, sys; [print(json.loads(l)["id"]) for l in open(sys.argv[1]) if l.strip()]' "$1"; }
# The sample's order: which corpus each id comes from, one letter a line (h, v, g), runs squeezed.
kinds() {
	ids $d/corpus.jsonl | sed 's/$/ h/' > kinds
	ids $d/variants.jsonl | sed 's/$/ v/' >> kinds
	[ ! -f $d/generated-onnxruntime-cpu.jsonl ] || ids $d/generated-onnxruntime-cpu.jsonl | sed 's/$/ g/' >> kinds
	awk 'NR == FNR { k[$1] = $2; next } { print ($1 in k) ? k[$1] : "?" }' kinds "$1" | uniq | tr -d '\n'
}

expect_exit 0 "ferry go --vary 2 --generate 6" -- "$FERRY" go onnx -F ort --op Relu,Conv -n 4 --vary 2 \
	--generate 6 -o proj -j 2 -q
s=$d/sample-onnxruntime-cpu.ids
check "the sample runs its harvested tests, then variants, then graphs ($(kinds $s))" -- test "$(kinds $s)" = hvg
check "vary's parents are the 4 tests of the sample" -- test "$(ids $d/vary-parents.jsonl | sort)" = "$(head -4 $s | sort)"
per=$("$py" - $d/variants.jsonl $s <<'PY'
import collections, json, sys
parent = {r["id"]: r["variant"]["parent"] for r in map(json.loads, open(sys.argv[1]))}
ran = [l.strip() for l in open(sys.argv[2])][4:]
print(max(collections.Counter(parent[i] for i in ran if i in parent).values()))
PY
)
check "at most 2 variants of a parent ($per)" -- test "$per" -le 2
nv=$(grep -c . $d/variants.jsonl)
contains "it says what the sample holds" "$out" "sample: $(grep -c . $s) tests, 4 harvested and"
check "the 6 graphs are in the sample" -- test "$(ids $d/generated-onnxruntime-cpu.jsonl | sort)" = "$(tail -6 $s | sort)"
results=$(sql $d/results.db "SELECT count(*) FROM results WHERE frontend = 'ort'")
check "every test of the sample has its result ($results)" -- test "$results" -eq "$(grep -c . $s)"
graphs=$(sql $d/results.db "SELECT count(*) FROM results r JOIN instances i USING(id) WHERE i.op = 'graph'")
check "graphs of several nodes ran ($graphs)" -- test "$graphs" -ge 1

expect_exit 0 "the same command again" -- "$FERRY" go onnx -F ort --op Relu,Conv -n 4 --vary 2 --generate 6 \
	-o proj -j 2 -q
contains "skips vary" "$out" "vary onnx: current"
contains "skips generate" "$out" "generate onnx: current"
contains "runs nothing" "$out" "run: nothing left to run"

expect_exit 0 "--vary 3" -- "$FERRY" go onnx -F ort --op Relu,Conv -n 4 --vary 3 --generate 6 -o proj -j 2 -q
contains "varies on from where vary stopped" "$out" "earlier runs tried"
nv3=$(grep -c . $d/variants.jsonl)
check "and keeps more variants ($nv -> $nv3)" -- test "$nv3" -gt "$nv"
after=$(sql $d/results.db "SELECT count(*) FROM results WHERE frontend = 'ort'")
ran=$(echo "$out" | sed -n 's/^run ort: \([0-9]*\) ran now.*/\1/p')
check "only what is new runs ($ran ran, $results -> $after results)" -- test "$ran" -ge 1 -a "$after" -eq $((results + ran))

# The parents gather every test varied here: a larger sample varies only its new tests, a smaller
# one nothing.
expect_exit 0 "-n 6" -- "$FERRY" go onnx -F ort --op Relu,Conv -n 6 --vary 3 --generate 6 -o proj -j 2 -q
contains "varies the 2 new tests of the sample" "$out" "samples' 6 tests (2 new)"
check "which join the parents" -- test "$(grep -c . $d/vary-parents.jsonl)" -eq 6
expect_exit 0 "-n 4 again" -- "$FERRY" go onnx -F ort --op Relu,Conv -n 4 --vary 3 --generate 6 -o proj -j 2 -q
contains "varies nothing" "$out" "vary onnx: current"
check "and runs the same tests as before: the sample's variants only ($(kinds $s))" -- \
	test "$(kinds $s)" = hvg -a "$(grep -c . $s)" -eq "$(sql $d/results.db "SELECT count(*) FROM results WHERE frontend = 'ort' AND id IN ($(sed "s/.*/'&'/" $s | paste -sd,))")"
contains "of which none is new" "$out" "run: nothing left to run"
# A vary stopped by Ctrl-C leaves no stamp: the same command runs it again, and it goes on.
rm $d/variants.jsonl.args
expect_exit 0 "after a vary that did not finish" -- "$FERRY" go onnx -F ort --op Relu,Conv -n 4 --vary 3 \
	--generate 6 -o proj -j 2 -q
contains "vary runs again" "$out" "vary onnx: up to 3 variants of each of the samples' 4 tests (0 new)"
contains "and goes on from what it tried" "$out" "earlier runs tried"
contains "nothing new runs" "$out" "run: nothing left to run"

# --op passes generate the operators it has specs for; none, and nothing is generated.
expect_exit 0 "--op with an operator that has no spec" -- "$FERRY" go onnx -F ort --op 'CenterCropPad,Rel[u]' -n 2 \
	--generate 3 -o cc -j 2 -q
ops=$(grep -o '"op":"[A-Za-z]*"' cc/onnx/generated-onnxruntime-cpu.jsonl | grep -v '"graph"' | sort -u | tr -d '\n')
check "generates from the one that has ($ops)" -- test "$ops" = '"op":"Relu"'
expect_exit 0 "--op with none" -- "$FERRY" go onnx -F ort --op CenterCropPad -n 1 --generate 3 -o cc2 -j 2 -q
contains "skips generate and says why" "$out" "no operator of --op has a spec"
expect_exit 0 "--test" -- "$FERRY" go onnx -F ort --test 'test_relu*' --generate 3 -o t -j 2 -q
contains "skips generate and says why" "$out" "generated graphs have none: skipped"
finish
