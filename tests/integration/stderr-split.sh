#!/bin/sh
# Each test's stderr is its own: the worker starts the test behind the moment it has answered one
# (pool/runner.c: the next request waits in its pipe), so the next test's stderr can reach ferry
# before the answer does. The worker marks where a test's stderr ends (PROTO_STDERR_MARK); a frontend
# that writes 256 KiB naming its test to stderr in every test (tests/data/adapters/
# adapter_stderrtag.py) has each result's detail name its own test and no other. Without the mark
# one or two of 34 tests had another's stderr in 3 runs of 5 here.
. "${top_srcdir:-$(dirname "$0")/../..}/tests/setup"
need_python_module onnx
need_python_module onnxruntime
py=${FERRY_PYTHON:-$top_srcdir/.venv/bin/python}
plan 4
"$FERRY" harvest onnx -q -o corpus.jsonl -f 'test_relu*' -f 'test_abs*' -f 'test_neg*' -f 'test_sigmoid*' \
	-f 'test_exp*' -f 'test_floor*' -f 'test_ceil*' -f 'test_add*' -f 'test_sub*' >/dev/null
"$FERRY" wrap corpus.jsonl -o wrapped -q >/dev/null
export FERRY_ADAPTERS="$top_srcdir/tests/data/adapters"
expect_exit 0 "a run whose every test writes 256 KiB to stderr" -- \
	"$FERRY" run wrapped --frontend stderrtag -o results.db -j 1 -q --no-probe
"$py" - results.db >report.txt <<'PY'
import re, sqlite3, sys
rows = sqlite3.connect(sys.argv[1]).execute("SELECT id, outcome, detail FROM results").fetchall()
own = others = 0
for id, outcome, detail in rows:
    tags = set(re.findall(r"stderr of test ([0-9a-f]{32})", detail or ""))
    own += tags == {id}
    others += bool(tags - {id})
    if tags != {id}:
        print("#", id, outcome, "names", sorted(t[:12] for t in tags), file=sys.stderr)
print(len(rows), own, others)
PY
read -r n own others <report.txt
check "the run has tests ($n)" -- test "$n" -ge 20
check "each test's stderr names it ($own of $n)" -- test "$own" -eq "$n"
check "and no other test ($others with another's)" -- test "$others" -eq 0
finish
