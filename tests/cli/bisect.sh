#!/bin/sh
# ferry bisect (doc/bisect.md): a bad --releases spec is a usage error naming it; the bisection on a
# fake frontend (tests/data/bisect/adapter_release.py: Relu wrong in releases 1.2 and 1.3) over
# pre-made releases (--venvs: small virtualenvs holding a module with the version, nothing
# installed) finds first bad 1.2, last good 1.1 and fixed in 1.4 without running every release; a
# release without the module is unavailable, never good or bad; a second call runs nothing; the
# store's results under the labels give the same line (bisect_describe, through ferry bisect --all).
. "${top_srcdir:-$(dirname "$0")/../..}/tests/setup"
need_python_module onnxruntime
plan 26
py=${FERRY_PYTHON:-$top_srcdir/.venv/bin/python}
FERRY_ADAPTERS=$top_srcdir/tests/data/bisect
export FERRY_ADAPTERS

"$FERRY" harvest onnx -q -f test_relu -f test_abs -o corpus.jsonl >/dev/null
"$FERRY" wrap corpus.jsonl -q -o wrapped >/dev/null

# A release: a virtualenv of the Python ferry embeds that sees .venv's packages, and the fake
# module of that version (none for "broken").
base=$("$py" -c 'import sys; print(sys._base_executable)')
site=$("$py" -c 'import site; print(site.getsitepackages()[0])')
release() {
	"$base" -m venv --without-pip "v$1"
	sp=$("v$1/bin/python" -c 'import site; print(site.getsitepackages()[0])')
	echo "$site" > "$sp/ferry-bisect-test.pth"
	[ "$1" = broken ] || echo "__version__ = '$1'" > "$sp/ferry_fake_release.py"
	echo "$1 $work/v$1/bin/python" >> venvs.txt
}
for v in 1.0 1.1 1.2 1.3 1.4 1.5 1.6; do release $v; done

# The bug, found in release 1.3.
"$FERRY" run wrapped -F "release@$work/v1.3/bin/python" -q --no-probe -o r.db >/dev/null 2>&1 || true
bug=$("$FERRY" bugs r.db --json | "$py" -c 'import json, sys; print(json.load(sys.stdin)["bugs"][0]["bug"])')
check "a bug was found in 1.3 ($bug)" -- [ -n "$bug" ]

expect_exit 2 "a spec without ==" -- "$FERRY" bisect r.db "$bug" --releases 'fake>=1.0'
contains "is a usage error naming it" "$err" "bad --releases 'fake>=1.0': expected PACKAGE==FIRST..[LAST]"
expect_exit 2 "a spec of two ranges" -- "$FERRY" bisect r.db "$bug" --releases 'fake==1.0..1.2..1.4'
contains "named" "$err" "bad --releases 'fake==1.0..1.2..1.4'"
expect_exit 2 "no --releases" -- "$FERRY" bisect r.db "$bug"
expect_exit 4 "a bug that is not there" -- "$FERRY" bisect r.db ffffffffffff --releases 'fake==1.0..' --venvs venvs.txt
contains "named" "$err" "no bug 'ffffffffffff'"
echo "1.7" >> bad.txt
expect_exit 4 "a --venvs line without its PYTHON" -- "$FERRY" bisect r.db "$bug" --releases 'fake==1.0..' --venvs bad.txt
contains "named by FILE:LINE" "$err" "bad.txt:1: expected VERSION PYTHON"

expect_exit 0 "bisect over 1.0..1.6" -- "$FERRY" bisect r.db "$bug" --releases 'fake==1.0..1.6' --venvs venvs.txt
contains "first bad, last good, fixed in" "$out" "first bad 1.2, last good 1.1, fixed in 1.4"
runs=$(printf '%s\n' "$err" | grep -c '^ferry: running' || true)
check "fewer runs than releases ($runs of 7)" -- [ "$runs" -lt 7 ]
check "1.0 was not run: bisection" -- test -z "$(printf '%s\n' "$out" | grep '^  1\.0 ')"

expect_exit 0 "the same again" -- "$FERRY" bisect r.db "$bug" --releases 'fake==1.0..1.6' --venvs venvs.txt --json
check "runs nothing" -- test -z "$(printf '%s\n' "$err" | grep '^ferry: running')"
verdict=$(printf '%s' "$out" | "$py" -c 'import json, sys; d = json.load(sys.stdin); print(d["first_bad"], d["last_good"], d["fixed_in"])')
check "the JSON says the same ($verdict)" -- [ "$verdict" = "1.2 1.1 1.4" ]
expect_exit 0 "bugs after the bisection" -- "$FERRY" bugs r.db -w
contains "lists the releases the bug affects under it" "$out" "releases: first bad 1.2, last good 1.1, fixed in 1.4"
expect_exit 0 "report --html after the bisection" -- "$FERRY" report r.db --html page
contains "the page says them under the bug" "$(cat page/index.html)" "releases: first bad 1.2, last good 1.1, fixed in 1.4"
expect_exit 0 "file after the bisection (the adapter loads in a release's venv)" -- env FERRY_PYTHON="$work/v1.3/bin/python" "$FERRY" file r.db "$bug"
contains "and the issue text says them" "$out" "Affected releases (ferry bisect): first bad 1.2, last good 1.1, fixed in 1.4"

# A release that cannot load the adapter: unavailable, and the bisection goes round it.
release broken
sed -i 's/^1\.1 .*/1.1 '"$(echo "$work" | sed 's/[\/&]/\\&/g')"'\/vbroken\/bin\/python/' venvs.txt
"$py" -c 'import sqlite3, sys; c = sqlite3.connect(sys.argv[1]); c.execute("DELETE FROM results WHERE frontend = ?", ("release@1.1",)); c.commit()' r.db
expect_exit 0 "with 1.1 broken" -- "$FERRY" bisect r.db "$bug" --releases 'fake==1.0..1.6' --venvs venvs.txt --all
contains "it is unavailable" "$out" "1.1          unavailable"
contains "and the last good is the one before" "$out" "first bad 1.2, last good 1.0, fixed in 1.4 (7 releases tried, 1 unavailable)"
finish
