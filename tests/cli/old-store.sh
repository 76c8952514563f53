#!/bin/sh
# Every existing store still opens: a store of schema 1 (tests/data/stores/schema1.db, made by the
# ferry of before results kept their tolerance; see tests/data/stores/README) is read as it is by
# report, baseline and merge, and migrated by the commands that write to it (bugs, show). Its
# undefined result (a failure on an input in the operator's undefined domain) is no failure anywhere.
# A store newer than this ferry is refused as bad input.
. "${top_srcdir:-$(dirname "$0")/../..}/tests/setup"
need_python_module onnx
need_python_module onnxruntime
py=${FERRY_PYTHON:-$top_srcdir/.venv/bin/python}
plan 23
sql() { "$py" -c 'import sqlite3, sys; print("\n".join("|".join(map(str, r)) for r in sqlite3.connect(sys.argv[1]).execute(sys.argv[2])))' "$@"; }
export FERRY_ADAPTERS="$top_srcdir/tests/data/adapters"

cp "$top_srcdir/tests/data/stores/schema1.db" old.db
chmod u+w old.db
cp old.db pristine.db
expect_exit 0 "report reads a store of schema 1" -- "$FERRY" report old.db -o repro
contains "it counts the undefined result" "$out" "undefined         1"
case "$out" in *"undefined Sqrt"*) ok 1 "the undefined result is not listed as a failure" ;;
	*) ok 0 "the undefined result is not listed as a failure" ;; esac
contains "the failures are listed" "$out" "mismatch  Ceil"
n=$(ls repro/fault | wc -l)
check "a reproducer per failure, none for the undefined result ($n)" -- test "$n" -eq 3 -a ! -e repro/fault/Sqrt-*.py
check "an old result's reproducer uses the default tolerance" -- grep -q '^ATOL = 0.001$' repro/fault/Ceil-*.py
check "reading leaves the store as it was" -- cmp old.db pristine.db

expect_exit 0 "baseline reads it" -- "$FERRY" baseline old.db -o known.txt
check "three known failures, not the undefined one" -- test "$(grep -vc '^#' known.txt)" -eq 3
check "no Sqrt among them" -- sh -c '! grep -q Sqrt known.txt'

expect_exit 0 "merge takes it as a shard" -- "$FERRY" merge -o merged.db old.db
contains "with all its results" "$out" "14 results of 7 tests"
check "its results have no tolerance in the merged store" -- \
	test "$(sql merged.db 'SELECT count(*) FROM results WHERE atol IS NULL')" -eq 14

expect_exit 0 "bugs writes to it" -- "$FERRY" bugs old.db
contains "three unique bugs from three failures" "$out" "3 unique bugs from 3 failures"
check "and migrates it to schema 7" -- test "$(sql old.db "SELECT value FROM meta WHERE key = 'schema'")" = 7
check "its results gain the timing columns, empty: their time was never split" -- \
	test "$(sql old.db 'SELECT count(*) FROM results WHERE ferry_seconds IS NULL AND load_seconds IS NULL')" -eq 14
check "and the batch column, empty: every one of them ran alone" -- \
	test "$(sql old.db 'SELECT count(*) FROM results WHERE batch IS NULL')" -eq 14
check "its results get their run's frontend version" -- \
	test "$(sql old.db "SELECT count(*) FROM results WHERE frontend = 'ort' AND frontend_version = '1.31.1'")" -eq 7
# The Ceil mismatch's bug, by its operator: its id is a hash of how the checkout groups it.
ceil=$(sql old.db "SELECT bug_id FROM bugs WHERE ops = 'Ceil'")
expect_exit 0 "show reads the migrated store" -- "$FERRY" show old.db "$ceil"
contains "with the bug's reproducer" "$out" "ATOL = 0.001"
contains "and the release that gave the result" "$out" "fault-injecting 1.31.1"

cp pristine.db future.db
"$py" -c 'import sqlite3, sys; c = sqlite3.connect(sys.argv[1]); c.execute("UPDATE meta SET value = 8 WHERE key = ?", ("schema",)); c.commit()' future.db
expect_exit 4 "a store of a newer schema is refused as bad input" -- "$FERRY" report future.db
finish
