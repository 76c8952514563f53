#!/bin/sh
# ferry show --minimal: the shortest standalone script of one bug, on ONNX Runtime answering wrong
# (tests/data/adapters/adapter_offbyone.py: its outputs plus one, in its own reproducer too). The
# script carries the model in ONNX's text syntax and the inputs and reference outputs as literals
# (no runtime of ferry's pasted in), prints got and want, and exits 1 while the bug shows and 0 once
# the frontend is fixed. ferry show --json is one JSON document; --op GLOB picks the bug by operator.
. "${top_srcdir:-$(dirname "$0")/../..}/tests/setup"
need_python_module onnx
need_python_module onnxruntime
py=${FERRY_PYTHON:-$top_srcdir/.venv/bin/python}
plan 22
export FERRY_ADAPTERS="$top_srcdir/tests/data/adapters"
"$FERRY" harvest onnx -q -o corpus.jsonl -f test_ceil -f test_relu >/dev/null
"$FERRY" wrap corpus.jsonl -o wrapped -q >/dev/null
"$FERRY" run wrapped -F offbyone,ort -o results.db -q --timeout 30 >/dev/null
bug=$("$FERRY" bugs results.db -F offbyone --op Ceil --json | "$py" -c 'import json, sys; print(json.load(sys.stdin)["bugs"][0]["bug"])')

expect_exit 0 "show --minimal" -- "$FERRY" show results.db "$bug" --minimal
printf '%s\n' "$out" > minimal.py
contains "the model in ONNX's text syntax" "$out" "model = onnx.parser.parse_model('''"
contains "with its operator" "$out" "= Ceil ("
contains "the inputs as literals" "$out" "'in_0': np.array([["
contains "the reference outputs as literals" "$out" "want = ["
case "$out" in *"def ferry_"*|*"runtime_onnx"*|*"ferry_input("*) ok 1 "no runtime of ferry's in it" ;; *) ok 0 "no runtime of ferry's in it" ;; esac
"$FERRY" show results.db "$bug" | sed -n '/^reproducer:/,$p' > full.py
check "shorter than the full reproducer ($(wc -l < minimal.py) against $(wc -l < full.py) lines)" -- \
	[ "$(wc -l < minimal.py)" -lt "$(wc -l < full.py)" ]
expect_exit 1 "it exits 1 while the bug shows" -- "$py" minimal.py
contains "it prints got" "$out" "  got  float32 [3, 4, 5]:"
contains "and want" "$out" "  want float32 [3, 4, 5]:"
contains "and what is wrong" "$out" "output 0: 60 of 60 elements beyond |got - want| <= ATOL + RTOL * |want|, the largest difference 1.0"
# The frontend fixed (its off-by-one taken out of the script): the bug no longer shows.
sed 's/o + 1 if o.dtype.kind == "f" else o/o/' minimal.py > fixed.py
check "the fix is in the frontend's code the script carries" -- grep -q 'return \[o for o in session.run' fixed.py
expect_exit 0 "fixed, it exits 0" -- "$py" fixed.py
contains "and says so" "$out" "no bug"
expect_exit 0 "show --minimal -o DIR" -- "$FERRY" show results.db "$bug" --minimal -o out
check "writes DIR/minimal.py, the same script" -- cmp out/minimal.py minimal.py

expect_exit 0 "show --op GLOB, without a BUG: the bug of that operator" -- "$FERRY" show results.db --op 'Cei*' --minimal
check "the same script" -- [ "$out" = "$(cat minimal.py)" ]
expect_exit 4 "show --op GLOB that no bug's test matches" -- "$FERRY" show results.db --op 'Nope*'
contains "says so, as every command says an empty selection" "$err" "--op Nope* selects none of the 4 tests in 'results.db'"

expect_exit 0 "show --json" -- "$FERRY" show results.db "$bug" --json
printf '%s\n' "$out" > show.json
check "one JSON document: the bug, its line, members, record and reproducer" -- "$py" -c '
import json, sys
d = json.load(open("show.json"))
assert d["bug"] == sys.argv[1] and d["frontend"] == "offbyone", d
assert d["line"].startswith("output 0: 60 of 60 elements beyond"), d["line"]
assert [m["op"] for m in d["members"]] == ["Ceil"] and d["record"]["op"] == "Ceil"
assert "run_frontend" in d["reproducer"]' "$bug"
finish
