#!/bin/sh
# What CI output names: ferry check's lines, JUnit and the reports name a variant as a variant of its
# parent's test (not by the parent's name alone), a line written to a file is never cut, and --json
# on run, check and go gives one document that a program can read.
. "${top_srcdir:-$(dirname "$0")/../..}/tests/setup"
need_python_module onnx
need_python_module onnxruntime
py=${FERRY_PYTHON:-$top_srcdir/.venv/bin/python}
plan 20
export FERRY_ADAPTERS="$top_srcdir/tests/data/adapters"

# Ceil answers wrong on the fault-injecting frontend, and so does each variant of it; Tanh's crash
# has a message of megabytes, kept head and tail.
"$FERRY" harvest onnx -q -o corpus.jsonl -f test_ceil -f test_tanh >/dev/null
"$FERRY" vary corpus.jsonl -o variants.jsonl --per-instance 1 -q -j 2 >/dev/null
cat corpus.jsonl variants.jsonl > all.jsonl
"$FERRY" wrap all.jsonl -o wrapped -q >/dev/null
vid=$("$py" -c 'import json, sys
for l in open(sys.argv[1]):
    r = json.loads(l)
    if r["op"] == "Ceil":
        print(r["id"][:12], r["variant"]["vary"])' variants.jsonl)
set -- $vid
check "vary made a variant of test_ceil ($vid)" -- test -n "$vid"
vid=$1 label=$2

expect_exit 1 "check fails on the new failures" -- "$FERRY" check wrapped -F fault:onnx -o c.db -q --timeout 20 --junit c.xml
contains "check names the variant as a variant of its parent's test" "$out" "NEW    mismatch  Ceil                 variant of test_ceil: "
contains "with its own id" "$out" "[$vid]"
contains "and the parent by its own name" "$out" "NEW    mismatch  Ceil                 test_ceil ["
check "JUnit names the variant as a variant, in a class of its own" -- "$py" -c 'import sys, xml.etree.ElementTree as ET
cases = [c for c in ET.parse(sys.argv[1]).getroot().iter("testcase") if c.get("name").endswith("[" + sys.argv[2] + "]")]
assert len(cases) == 1, cases
assert cases[0].get("name").startswith("variant of test_ceil: "), cases[0].get("name")
assert cases[0].get("classname") == "ferry.fault.Ceil.variant", cases[0].get("classname")' c.xml "$vid"
check "JUnit names each test once: a CI system tracks it by name" -- "$py" -c 'import sys, xml.etree.ElementTree as ET
names = [(c.get("classname"), c.get("name")) for c in ET.parse(sys.argv[1]).getroot().iter("testcase")]
assert len(names) == len(set(names)) == 4, names' c.xml
# Written to a file, not a terminal: Tanh's line carries its whole message, tail and all.
check "a NEW line written to a file is whole" -- grep -q "^  NEW    crash     Tanh .*injected tail" "$work/.out"
contains "the variant is said whole in words" "$out" "variant of test_ceil: $(echo "$label" | sed 's/:/ /')"

# The reports: a failure of a variant says whose, and a bug whose simplest test is one names it.
expect_exit 0 "report" -- "$FERRY" report c.db
contains "report's failure line names the variant" "$out" "$vid  (variant of test_ceil: "
"$FERRY" wrap variants.jsonl -o wv -q >/dev/null
"$FERRY" run wv -F fault:onnx -o v.db -q --op Ceil --timeout 20 >/dev/null
expect_exit 0 "bugs of a store of variants alone" -- "$FERRY" bugs v.db
contains "a bug's simplest test that is a variant is named as one" "$out" "simplest test: variant of test_ceil: "

# --json: one document on stdout.
"$FERRY" check wrapped -F fault:onnx -o c.db -q --json > check.json || true
check "check --json parses and carries the verdicts" -- "$py" -c 'import json, sys
d = json.load(open(sys.argv[1]))
assert d["command"] == "check" and d["passed"] is False and d["exit"] == 1 and d["new"] == 4, d
fe = d["frontends"][0]
assert fe["frontend"] == "fault" and fe["judged"] == 4 and fe["new"] == 4 and fe["outcomes"] == {"mismatch": 2, "crash": 2}, fe
v = [t for t in d["tests"] if t["id"].startswith(sys.argv[2])][0]
assert v["status"] == "new" and v["origin"] == "variant" and v["name"].startswith("variant of test_ceil: "), v
assert v["outcome"] == "mismatch" and v["kind"] == "bug" and len(v["bug"]) == 12 and v["message"].startswith("output 0"), v' \
	check.json "$vid"
"$FERRY" baseline c.db -o known.txt >/dev/null
"$FERRY" check wrapped -F fault:onnx -o c.db -q -b known.txt --json > known.json
check "a known failure is said known, and the check passes" -- "$py" -c 'import json, sys
d = json.load(open(sys.argv[1]))
assert d["passed"] is True and d["exit"] == 0 and {t["status"] for t in d["tests"]} == {"known"}, d' known.json
expect_exit 0 "run --json" -- "$FERRY" run wrapped -F fault:onnx -o r.db -q --timeout 20 --json
cp "$work/.out" run.json  # megabytes: Tanh's message
check "run --json parses and carries the counts and the failures" -- "$py" -c 'import json, sys
d = json.load(open(sys.argv[1]))
assert d["command"] == "run" and d["store"] == "r.db", d
fe = d["frontends"][0]
assert fe["frontend"] == "fault" and fe["ran"] == 4 and fe["outcomes"] == {"mismatch": 2, "crash": 2}, fe
assert sorted(f["origin"] for f in d["failures"]) == ["harvested", "harvested", "variant", "variant"], d["failures"]
assert all(f["bug"] and f["kind"] == "bug" and f["name"] and f["message"] for f in d["failures"]), d["failures"]' run.json
expect_exit 0 "go --json" -- "$FERRY" go onnx -F fault:onnx --test test_ceil -o proj -q --no-triggers -t 20 --json
check "go --json parses: the stages, the files and the results" -- "$py" -c 'import json, os, sys
d = json.loads(sys.argv[1])
assert d["command"] == "go" and d["exit"] == 0, d
lib = d["libraries"][0]
assert lib["library"] == "onnx" and lib["exit"] == 0, lib
assert any(s.startswith("harvest onnx") for s in lib["stages"]), lib["stages"]
for k in ("corpus", "wrapped", "store", "bugs", "report"):
    assert os.path.exists(lib["paths"][k]), (k, lib["paths"])
# the word test_ceil takes test_ceil_example too: every one a mismatch, and each one listed
assert list(lib["outcomes"]) == ["fault"] and list(lib["outcomes"]["fault"]) == ["mismatch"], lib["outcomes"]
assert len(lib["failures"]) == lib["outcomes"]["fault"]["mismatch"] >= 1, lib["failures"]
f = lib["failures"][0]
assert f["name"].startswith("test_ceil") and f["bug"] and f["outcome"] == "mismatch", f' "$out"
contains "go's text goes to stderr" "$err" "harvest onnx"
finish
