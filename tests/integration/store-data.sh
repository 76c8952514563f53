#!/bin/sh
# A store is data (issue 27): a store handed over from elsewhere whose meta table names a Python file
# as the adapter it was run with (adapter:NAME -> a file that writes a marker when imported, as a
# store of an older ferry named its adapters' paths) runs nothing under report -o, report --html,
# show, reduce or bugs: each says, once, which adapter the store names and that FERRY_ADAPTERS does
# not hold it, and what needs the adapter says what is missing. A store records its user adapters by
# a hash of their source, and show, report and reduce say when the adapter FERRY_ADAPTERS holds is
# not the one the store was run with.
. "${top_srcdir:-$(dirname "$0")/../..}/tests/setup"
need_python_module onnx
need_python_module onnxruntime
py=${FERRY_PYTHON:-$top_srcdir/.venv/bin/python}
plan 32
sql() { "$py" -c 'import sqlite3, sys; c = sqlite3.connect(sys.argv[1]); print("\n".join("|".join(map(str, r)) for r in c.execute(sys.argv[2], sys.argv[3:]))); c.commit()' "$@"; }
unset FERRY_ADAPTERS FERRY_STORE_ADAPTERS

"$py" "$top_srcdir/tests/data/graphs/graphs.py" corpus corpus.jsonl
"$FERRY" wrap corpus.jsonl -o wrapped -q >/dev/null 2>&1 || true
"$py" "$top_srcdir/tests/data/graphs/graphs.py" fill wrapped

# The user's adapter, run from a directory of FERRY_ADAPTERS.
mkdir mine
cp "$top_srcdir/tests/data/adapters/adapter_graphfault.py" mine/
expect_exit 0 "a run with the user's adapter" -- env FERRY_ADAPTERS="$work/mine" "$FERRY" run wrapped -F graphfault -o r.db -q -j 1
rec=$(sql r.db "SELECT value FROM meta WHERE key = 'adapter:graphfault'")
contains "the store records the adapter by the hash of its source" "$rec" "xxh3:"
case "$rec" in *"$work"*) ok 1 "and not where it is ($rec)" ;; *) ok 0 "and not where it is" ;; esac
cp r.db pristine.db

# The same store as someone else hands it over: its adapter named by a path, to a file that runs.
# (a working adapter, so that nothing but the store decides whether it runs)
mkdir evil
{ echo "open('$work/marker', 'a').write('imported')"; cat mine/adapter_graphfault.py; } > evil/adapter_graphfault.py
sed 's/^NAME = "graphfault"/NAME = "ort"/' evil/adapter_graphfault.py > evil/adapter_ort.py
sql r.db "UPDATE meta SET value = ? WHERE key = 'adapter:graphfault'" "$work/evil/adapter_graphfault.py"
sql r.db "INSERT INTO meta(key, value) VALUES('adapter:ort', ?)" "$work/evil/adapter_ort.py"
named="'r.db' was run with a user's adapter of 'graphfault' (then at '$work/evil/adapter_graphfault.py'), which FERRY_ADAPTERS does not hold"

expect_exit 0 "report -o on a store that names a file" -- "$FERRY" report r.db -o repro
check "runs nothing it names" -- test ! -e marker
contains "says, once, which adapter the store names and that it is not loaded" "$err" "ferry: warning: $named"
check "one line for each" -- test "$(printf '%s\n' "$err" | grep -c "user's adapter of 'graphfault'")" -eq 1
contains "and what the reproducers miss" "$err" \
	"no adapter for frontend 'graphfault': the store was run with a user's adapter of it (ferry loads no adapter a store names)"
check "no reproducer is written" -- test -z "$(ls repro/graphfault 2>/dev/null)"

rm -f marker
expect_exit 0 "report --html" -- "$FERRY" report r.db --html page
check "runs nothing" -- test ! -e marker
contains "and says so" "$err" "$named"

bug=$(sql r.db "SELECT bug_id FROM bugs WHERE frontend = 'graphfault' AND outcome = 'crash'")
rm -f marker
expect_exit 3 "show BUG says what it misses" -- "$FERRY" show r.db "$bug"
check "runs nothing" -- test ! -e marker
contains "that the store named an adapter" "$err" "$named"
contains "and which one it needs" "$err" "set FERRY_ADAPTERS to the directory that holds adapter_graphfault.py"
case "$err" in *Traceback*) ok 1 "no Python traceback reaches the user" ;; *) ok 0 "no Python traceback reaches the user" ;; esac

rm -f marker
set +e; "$FERRY" reduce r.db -j 1 >reduce.out 2>reduce.err; set -e
check "reduce runs nothing" -- test ! -e marker
contains "and says so" "$(cat reduce.err)" "$named"
contains "and that it has no adapter of it" "$(cat reduce.err)" "unknown frontend 'graphfault'"
ferry_own=$(sql r.db "SELECT bug_id FROM bugs WHERE frontend = 'graphfault' AND outcome = 'mismatch'")
rm -f marker
expect_exit 0 "bugs reads it" -- "$FERRY" bugs r.db
check "runs nothing" -- test ! -e marker

# A store that names ferry's own frontend: ferry's ort does not stand in for the user's (reported).
rm -f marker
expect_exit 0 "report names the user's ort too" -- "$FERRY" report r.db
contains "that the store names" "$err" "user's adapter of 'ort' (then at '$work/evil/adapter_ort.py')"
check "still nothing ran" -- test ! -e marker

# Pointed to by the user, the adapter is found; its source held against the store's hash.
cp pristine.db ok.db
expect_exit 0 "report -o with FERRY_ADAPTERS" -- env FERRY_ADAPTERS="$work/mine" "$FERRY" report ok.db -o ok-repro
check "says nothing of the adapter" -- test -z "$err"
check "and writes the reproducers" -- test -n "$(ls ok-repro/graphfault)"
printf '\n# changed since the run\n' >> mine/adapter_graphfault.py
expect_exit 0 "report -o with an adapter changed since" -- env FERRY_ADAPTERS="$work/mine" "$FERRY" report ok.db -o ok-repro
contains "says that its source is not the store's" "$err" \
	"ferry: warning: the adapter '$work/mine/adapter_graphfault.py' is not the one 'ok.db' was run with: its source differs"
expect_exit 0 "so does show" -- env FERRY_ADAPTERS="$work/mine" "$FERRY" show ok.db "$ferry_own"
contains "in one line" "$err" "its source differs (xxh3:"
finish
