#!/bin/sh
# A user's adapter in one file (FERRY_ADAPTERS) whose REPRODUCE it defines itself: its failures get
# reproducers that paste it whole, after the ferry frontend module it takes names from, and run with
# nothing of ferry.
. "${top_srcdir:-$(dirname "$0")/../..}/tests/setup"
need_python_module onnxruntime
plan 7
py=${FERRY_PYTHON:-$top_srcdir/.venv/bin/python}
FERRY_ADAPTERS=$top_srcdir/tests/data/user-adapter
export FERRY_ADAPTERS
"$FERRY" harvest onnx -q -f test_relu -f test_abs -o corpus.jsonl >/dev/null
"$FERRY" wrap corpus.jsonl -q -o wrapped >/dev/null
expect_exit 0 "run the user's adapter" -- "$FERRY" run wrapped -F mine -q -o r.db
expect_exit 0 "report writes its reproducers" -- env MINE_LOADS="$work/loads" "$FERRY" report r.db -o repro
contains "every failure has one" "$out" "reproducers: 2 written"
check "report loads the user's adapter once for all its reproducers" -- test "$(wc -l < "$work/loads")" -eq 1
script=$(ls repro/mine/*.py | head -1)
contains "the adapter is pasted whole" "$(cat "$script")" "# --- the mine adapter (adapter_mine.py, whole)"
expect_exit 1 "the reproducer shows the bug with plain python, ferry out of reach" -- "$py" -I "$script"
contains "and says where got and want differ" "$out" "index"
finish
