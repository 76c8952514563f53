#!/bin/sh
# ferry reduce on bad input: a clear error and exit code for each, and nothing written: no store,
# a file that is no store, an unknown bug, a store whose failures are no ONNX tests, no STORE at all.
. "${top_srcdir:-$(dirname "$0")/../..}/tests/setup"
py=${FERRY_PYTHON:-$top_srcdir/.venv/bin/python}
plan 13
sql() { "$py" -c 'import sqlite3, sys; c = sqlite3.connect(sys.argv[1]); c.executescript(sys.argv[2]); c.commit()' "$@"; }

expect_exit 2 "reduce needs a STORE" -- "$FERRY" reduce
contains "and says so" "$err" "reduce takes a STORE"
expect_exit 4 "a missing store is bad input" -- "$FERRY" reduce nosuch.db
contains "named" "$err" "cannot open the store 'nosuch.db': No such file or directory"
echo "not a store" > text.db
expect_exit 4 "a file that is no store is bad input" -- "$FERRY" reduce text.db
contains "named" "$err" "'text.db' is not a ferry results store"

cp "$top_srcdir/tests/data/stores/schema1.db" old.db
expect_exit 4 "an unknown bug is bad input" -- "$FERRY" reduce old.db ffffffff
contains "it is named, with where to look" "$err" "no bug 'ffffffff' in 'old.db' (see ferry bugs)"
expect_exit 4 "a bug of another frontend is none of -F's" -- "$FERRY" reduce old.db 8c64 -F ort
contains "it says which frontend" "$err" "no bug '8c64' in 'old.db' for frontend ort"

cp "$top_srcdir/tests/data/stores/schema1.db" torch.db
sql torch.db "UPDATE instances SET library = 'torch'"
expect_exit 4 "a store without failing ONNX tests is bad input" -- "$FERRY" reduce torch.db
contains "it says what reduce takes" "$err" "'torch.db' has no failing ONNX test to reduce (ferry reduce reduces ONNX models; its 3 failures are of other libraries)"
check "nothing is written beside it" -- test ! -e torch.db.reduced
finish
