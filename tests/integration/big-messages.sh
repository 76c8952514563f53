#!/bin/sh
# A frontend whose exception message is 100 MB, and one that writes a 9 MB result line to the
# protocol stream and hangs (tests/data/adapters/adapter_fault.py: Tanh, Sin). Each is a crash,
# recorded at once rather than at its timeout: the worker cuts a frontend's text to its first and
# last parts around a marker that says how much was cut (protocol.h, PROTO_TEXT_MAX), and the runner
# ends a test whose result line passes the protocol's limit, saying so.
. "${top_srcdir:-$(dirname "$0")/../..}/tests/setup"
need_python_module onnx
need_python_module onnxruntime
py=${FERRY_PYTHON:-$top_srcdir/.venv/bin/python}
plan 12
sql() { "$py" -c 'import sqlite3, sys; print("\n".join("|".join(map(str, r)) for r in sqlite3.connect(sys.argv[1]).execute(sys.argv[2])))' "$@"; }
field() { sql results.db "SELECT $2 FROM results r JOIN instances i USING(id) WHERE i.op = '$1' LIMIT 1"; }

"$FERRY" harvest onnx -q -o corpus.jsonl -f test_tanh -f test_sin -f test_add >/dev/null
"$FERRY" wrap corpus.jsonl -o wrapped -q >/dev/null
export FERRY_ADAPTERS="$top_srcdir/tests/data/adapters"
start=$(date +%s)
expect_exit 0 "a run with a 100 MB message and a 9 MB result line completes" -- \
	"$FERRY" run wrapped --frontend fault:onnx -o results.db -j 2 --timeout 300 -q
took=$(($(date +%s) - start))
# Before the cut, each of the two waited for its whole timeout (300 s) and was recorded a timeout.
check "both are recorded well within the timeout (took ${took}s of 300)" -- [ "$took" -lt 120 ]

contains "a 100 MB message is a crash in compile with its type" "$(field Tanh "outcome || ' ' || stage || ' ' || exc_type")" \
	"crash compile RuntimeError"
msg=$(field Tanh message)
bytes=$(field Tanh "length(CAST(message AS BLOB))")
check "the message is cut to 64 KiB (kept $bytes bytes)" -- [ "$bytes" -le 65536 ]
contains "... keeping its first part" "$msg" "injected head üüü"
contains "... and its last" "$msg" "üüü injected tail"
check "... around a marker that says how much was cut" -- \
	sh -c 'printf "%s" "$1" | grep -Eq "ü \[\.\.\. 104,79[0-9],[0-9]{3} bytes cut \.\.\.\] ü"' - "$msg"
# sqlite3 hands Python text, so a message cut inside a character would not even be read
check "... at character boundaries (the message reads as UTF-8)" -- \
	"$py" -c 'import sqlite3, sys; m = sqlite3.connect("results.db").execute("SELECT r.message FROM results r JOIN instances i USING(id) WHERE i.op = '"'Tanh'"'").fetchone()[0]; sys.exit(not m.endswith("injected tail"))'
detail=$(field Tanh "length(CAST(detail AS BLOB))")
check "the traceback is cut too (kept $detail bytes)" -- [ "$detail" -le 65536 ]

contains "a result line over the protocol's limit is a crash in its stage" "$(field Sin "outcome || ' ' || stage")" \
	"crash compile"
contains "... that says why" "$(field Sin message)" \
	"the worker's result is longer than the protocol's line limit (8 MiB) in stage compile"
contains "the tests beside them pass" "$(field Add outcome)" "pass"
finish
