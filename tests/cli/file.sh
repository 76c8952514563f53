#!/bin/sh
# ferry file: one bug as an issue ready to file upstream, on ONNX Runtime answering wrong
# (tests/data/adapters/adapter_fault.py: Ceil's outputs plus one, through its public API too). The
# text states the cause in its title, gives the versions, the reproducer of at most 30 lines (no
# ferry in it) and what it printed here, the elements that differ with a float64 reference, what the
# outputs were compared with, and the releases the store ran its test on; -o DIR writes issue.md,
# repro.py (exit status 1 while the bug shows) and the regression test; a bad BUG is named.
. "${top_srcdir:-$(dirname "$0")/../..}/tests/setup"
need_python_module onnx
need_python_module onnxruntime
py=${FERRY_PYTHON:-$top_srcdir/.venv/bin/python}
plan 20
export FERRY_ADAPTERS="$top_srcdir/tests/data/adapters"
"$FERRY" harvest onnx -q -o corpus.jsonl -f test_ceil -f test_floor >/dev/null
"$FERRY" wrap corpus.jsonl -o wrapped -q >/dev/null
"$FERRY" run wrapped -F fault:onnx,ort -o results.db -q --timeout 30 >/dev/null
bug=$("$FERRY" bugs results.db -F fault --op Ceil --json | "$py" -c 'import json, sys; print(json.load(sys.stdin)["bugs"][0]["bug"])')

expect_exit 0 "file prints the issue text" -- "$FERRY" file results.db "$bug"
contains "its title names the frontend, the symptom and the operator" "$out" "gives wrong results on Ceil"
contains "it gives the frontend's release" "$out" "(\`onnxruntime\`): \`"
contains "and the library's" "$out" "- ONNX: \`"
contains "it says what the reproducer printed here" "$out" "Here it printed (exit status 1):"
contains "with the elements that differ and their float64 reference" "$out" "| output | index | got | want | float64 reference |"
contains "one of them" "$out" "| 0 | \`[0, 0, 0]\` |"
contains "and what it was compared with" "$out" "An element differs when |got - want| > atol + rtol * |want|"
contains "it says when no other release was tried" "$out" "no other release was tried."

expect_exit 0 "file -o DIR" -- "$FERRY" file results.db "$bug" -o out
check "writes DIR/issue.md" -- [ -s out/issue.md ]
check "and DIR/repro.py" -- [ -s out/repro.py ]
check "and the regression test beside them" -- sh -c 'ls -d out/test_Ceil_* >/dev/null'
expect_exit 1 "the reproducer exits 1 while the bug shows" -- "$py" -I out/repro.py
check "it has at most 30 lines ($(wc -l <out/repro.py))" -- [ "$(wc -l <out/repro.py)" -le 30 ]
check "and imports nothing of ferry" -- sh -c '! grep -Eq "(^|[ ,;])(import|from) ferry" out/repro.py' 

# Another release that ran the same test (as -F NAME@PYTHON stores it): the issue lists both.
rep=$("$FERRY" bugs results.db -F fault --op Ceil --json | "$py" -c 'import json, sys; print(json.load(sys.stdin)["bugs"][0]["representative"])')
"$py" - results.db "$rep" <<'PY'
import sqlite3, sys
c = sqlite3.connect(sys.argv[1])
c.execute("INSERT INTO runs(frontend, frontend_version, command, started) VALUES('fault@0.9.0', '0.9.0', 'x', 1)")
c.execute("INSERT INTO results(frontend, id, outcome) VALUES('fault@0.9.0', ?, 'pass')", (sys.argv[2],))
c.commit()
PY
expect_exit 0 "file on a store with two releases of the frontend" -- "$FERRY" file results.db "$bug"
contains "lists the test's outcome under each" "$out" "| \`0.9.0\` | pass |"

expect_exit 4 "an unknown BUG is an input error" -- "$FERRY" file results.db 0000deadbeef
contains "that names it" "$err" "no bug '0000deadbeef'"
finish
