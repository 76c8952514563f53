#!/bin/sh
# Generation that knows the frontend (NNSmith's dtype test), on ONNX Runtime: ferry generate --probes
# writes each operator's simplest vertex in every type signature it takes; ferry run --probe-only
# runs them into the store's support table and nothing into its results; ferry generate -F --support
# then draws no vertex whose operator and signature the frontend said it lacks, and a graph run
# through it is far less often unsupported than one generated blind; ferry go --generate does the
# same steps on demand (it probes the signatures its graphs drew) and, run again, nothing.
. "${top_srcdir:-$(dirname "$0")/../..}/tests/setup"
need_python_module onnx
need_python_module onnxruntime
plan 31
py=${FERRY_PYTHON:-$top_srcdir/.venv/bin/python}
sql() { "$py" -c 'import sqlite3, sys; print("\n".join("|".join(map(str, r)) for r in sqlite3.connect(sys.argv[1]).execute(sys.argv[2])))' "$@"; }
# Every vertex of a corpus, "OP<TAB>SIGNATURE" a line, the signature as oracle/probe.h makes it.
sigs() {
	"$py" - "$1" <<'PY'
import json, sys
def dt(v):
    return v["tensor"]["dtype"] if isinstance(v, dict) and "tensor" in v else "-"
for line in open(sys.argv[1]):
    r = json.loads(line)
    if r.get("kind") != "graph":
        ins, outs = [dt(v) for v in r.get("inputs", [])], [dt(v) for v in r.get("outputs", [])]
        lead = outs[0] if outs else next((d for d in ins if d != "-"), "-")
        print(f"{r['op']}\t{lead}({','.join(ins)})")
        continue
    g, types = r["graph"], {}
    for name, v in zip(g["inputs"], r["inputs"]):
        types[name] = dt(v)
    for c in g["constants"]:
        types[c["name"]] = c["tensor"]["dtype"]
    for n in g["nodes"]:
        for name, t in zip(n["outputs"], n["types"]):
            types[name] = t["dtype"]
        ins = [types.get(i, "-") if i else "-" for i in n["inputs"]]
        print(f"{n['op']}\t{types[n['outputs'][0]]}({','.join(ins)})")
PY
}
# Globs, each matching one name whole (the word Relu would take LeakyRelu and PRelu too).
ops='ArgMa[x],OneHo[t],Rel[u],Ad[d],Cas[t],Wher[e]'

expect_exit 0 "generate --probes" -- "$FERRY" generate --probes --ops "$ops" -o probes.jsonl
n=$(grep -c . probes.jsonl)
contains "it says how many probes of how many operators" "$out" "probes.jsonl: $n, the type signatures of 6 operators"
check "one probe a signature ($n)" -- test "$(sigs probes.jsonl | sort -u | wc -l)" -eq "$n"
check "ArgMax's probes differ in their inputs' dtypes" -- test "$(sigs probes.jsonl | grep -c '^ArgMax	int64(')" -ge 8
"$FERRY" generate --probes --ops "$ops" -o again.jsonl -q
check "the same probes again, byte for byte" -- cmp probes.jsonl again.jsonl
check "each probe is a node record of one of the operators" -- test "$(grep -c '"kind":"node"' probes.jsonl)" -eq "$n"

"$FERRY" wrap probes.jsonl -o w -q >/dev/null 2>&1
expect_exit 0 "run --probe-only" -- "$FERRY" run w -F ort -o s.db --probe-only -q
contains "it says what it probed" "$out" "probed now           $n groups"
check "no result is kept" -- test "$(sql s.db 'SELECT count(*) FROM results')" -eq 0
check "every probe is in the support table, by signature" -- \
	test "$(sql s.db "SELECT count(*) FROM support WHERE frontend = 'ort' AND dtype LIKE '%(%'")" -eq "$n"
lacked=$(sql s.db "SELECT op || '	' || dtype FROM support WHERE outcome = 'unsupported'" | sort)
check "ONNX Runtime lacks some of them ($(echo "$lacked" | grep -c .))" -- test "$(echo "$lacked" | grep -c .)" -ge 10
expect_exit 0 "run --probe-only again" -- "$FERRY" run w -F ort -o s.db --probe-only -q
contains "probes nothing twice for a release" "$out" "probed before        $n groups"

expect_exit 0 "generate -F ort --support" -- "$FERRY" generate -n 200 --ops "$ops" --nodes 1:4 -F ort --support s.db \
	-o known.jsonl
contains "the summary counts what the frontend lacks" "$out" "frontend lacks"
echo "$lacked" > lacked
sigs known.jsonl | sort -u > drawn
check "no vertex has a signature the frontend lacks" -- test -z "$(comm -12 lacked drawn)"
check "and every operator is still drawn" -- test "$(cut -f1 drawn | sort -u | wc -l)" -eq 6
"$FERRY" generate -n 200 --ops "$ops" --nodes 1:4 -o blind.jsonl -q
check "blind generation draws some of them ($(sigs blind.jsonl | sort -u | comm -12 lacked - | wc -l))" -- \
	test -n "$(sigs blind.jsonl | sort -u | comm -12 lacked -)"
"$FERRY" wrap known.jsonl blind.jsonl -o wg -q >/dev/null 2>&1 || true
"$FERRY" run wg -F ort -o g.db --no-probe -q >/dev/null 2>&1 || true
unsup() { sql g.db "SELECT count(*) FROM results r WHERE frontend = 'ort' AND outcome = 'unsupported' AND id IN ($(sed 's/.*"id":"\([0-9a-f]*\)".*/"\1"/' "$1" | paste -sd,))"; }
k=$(unsup known.jsonl) b=$(unsup blind.jsonl)
check "unsupported: under 10% of the graphs generated for ort ($k of 200), against $b of 200 blind" -- \
	test "$k" -lt 20 -a "$b" -gt $((2 * k))

expect_exit 0 "generate -F with an operator the store has no probe of" -- "$FERRY" generate -n 20 --ops Relu,Sub \
	-F ort --support s.db -o unprobed.jsonl -q
contains "says how many signatures drawn have no probe" "$err" "type signatures drawn have no probe of ort"
expect_exit 2 "-F without --support" -- "$FERRY" generate -n 5 -F ort -o x.jsonl
contains "says they go together" "$err" "-F and --support go together"
expect_exit 4 "a store without probes of the frontend" -- "$FERRY" generate -n 5 -F tvm-onnx --support s.db -o x.jsonl
contains "says how to make them" "$err" "no probes of tvm-onnx by type signature"

expect_exit 0 "ferry go --generate probes, then generates" -- "$FERRY" go onnx -F ort --op Relu -n 1 --generate 5 \
	-o proj -j 2 -q
contains "it probes on ort what it drew" "$out" "have no probe: probing them"
contains "... then generates knowing it" "$out" "type signatures probed are unsupported; none is drawn"
expect_exit 0 "the same command again" -- "$FERRY" go onnx -F ort --op Relu -n 1 --generate 5 -o proj -j 2 -q
check "probes nothing" -- test -z "$(echo "$out" | grep '^probe ort:')"
contains "and generates nothing" "$out" "generate onnx: current"
finish
