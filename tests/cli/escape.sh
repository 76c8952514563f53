#!/bin/sh
# Text from outside ferry is escaped wherever ferry shows it (doc/ferry.1, TEXT FROM OUTSIDE): an
# operator name and a frontend's message and version carrying ESC [31m, a BEL, a C1 CSI and
# newlines reach no terminal, baseline file or JUnit XML raw, and forge no line of them. The
# frontend is a fault adapter written here: ONNX Runtime, except that it raises such a message.
. "${top_srcdir:-$(dirname "$0")/../..}/tests/setup"
need_python_module onnx
need_python_module onnxruntime
py=${FERRY_PYTHON:-$top_srcdir/.venv/bin/python}
plan 21

mkdir adapters
cat > adapters/adapter_evil.py <<'PY'
"""A fault-injecting frontend for ferry's escaping tests: ONNX Runtime, except that every test
crashes in execute with a message full of terminal control sequences."""
from ferry.oracle.adapters import ort

NAME = "evil"
LIBRARY = "onnx"
FORMAT = "onnx"
PACKAGE = "onnxruntime"
REPRODUCE = ort.REPRODUCE


def version():
    return "evil \x1b[31m1.0\x1b[0m"


def load(testdir):
    return ort.load(testdir)


def compile(loaded):
    return ort.compile(loaded)


def execute(compiled, inputs):
    raise RuntimeError("\x1b[31mred\x1b[0m\nFORGED LINE\x9b2J\x07 bell")
PY
export FERRY_ADAPTERS="$work/adapters"

"$FERRY" harvest onnx -q -o corpus.jsonl -f test_relu -f test_abs >/dev/null
"$FERRY" wrap corpus.jsonl -o wrapped -q >/dev/null
esc=$(printf '\033')
bel=$(printf '\007')
csi=$(printf '\302\233')
# clean NAME FILE: no ESC, BEL or C1 CSI byte in FILE, and no line forged by a newline.
clean() {
	if LC_ALL=C grep -q -e "$esc" -e "$bel" -e "$csi" "$2" || grep -q '^FORGED' "$2"; then
		ok 1 "$1"; LC_ALL=C grep -n -e "$esc" -e "$bel" -e "$csi" -e '^FORGED' "$2" | head -5 | cat -v | sed 's/^/#   /'
	else
		ok 0 "$1"
	fi
}

"$FERRY" run wrapped -F evil:onnx -o r.db > run.out 2> run.err || true
n=$("$py" -c 'import sqlite3; print(sqlite3.connect("r.db").execute("SELECT count(*) FROM results WHERE message LIKE ?", ("%FORGED%",)).fetchone()[0])')
# An operator name with ESC and a newline, as a store from elsewhere (a shard, a colleague's) could carry.
"$py" -c 'import sqlite3, sys
c = sqlite3.connect(sys.argv[1])
c.execute("UPDATE instances SET op = op || ? WHERE op = ?", ("\x1b[2J\nFORGED OP", "Relu"))
c.commit()' r.db
check "the store keeps the frontend's message as it came ($n results)" -- [ "$n" -ge 2 ]
clean "run's summary (with the frontend's version) is clean" run.out
contains "the version is shown, escaped" "$(cat run.out)" 'evil \x1b[31m1.0\x1b[0m'
clean "run's warnings are clean" run.err

expect_exit 0 "report" -- "$FERRY" report r.db
printf '%s\n' "$out" > report.out
clean "report's terminal output is clean" report.out
contains "the message is escaped, not dropped" "$out" '\x1b[31mred\x1b[0m FORGED LINE\u009b2J\x07 bell'
contains "the operator name is escaped" "$out" 'Relu\x1b[2J\nFORGED OP'

expect_exit 0 "bugs" -- "$FERRY" bugs r.db
printf '%s\n' "$out" > bugs.out
clean "bugs' listing is clean" bugs.out
bug=$(printf '%s\n' "$out" | awk '$2 == "evil" { print $1; exit }')
expect_exit 0 "show" -- "$FERRY" show r.db "$bug"
printf '%s\n' "$out" > show.out
# show prints the traceback with its lines; it may hold "FORGED LINE" at a line's start, but no ESC.
check "show's output has no ESC, BEL or CSI byte" -- sh -c "! LC_ALL=C grep -q -e '$esc' -e '$bel' -e '$csi' show.out"
contains "show escapes the message line" "$out" 'message: \x1b[31mred'

expect_exit 0 "baseline" -- "$FERRY" baseline r.db -o known.txt
clean "the baseline file is clean" known.txt
lines=$(grep -vc '^#' known.txt)
check "one baseline line per failure ($lines)" -- [ "$lines" -eq "$n" ]
expect_exit 0 "the baseline reads back" -- "$FERRY" check wrapped -F evil:onnx -o r.db -b known.txt -q

expect_exit 1 "check without a baseline fails on the crashes" -- "$FERRY" check wrapped -F evil:onnx -o r.db -q --junit j.xml
printf '%s\n' "$out" > check.out
clean "check's verdicts are clean" check.out
# The failure's text keeps the traceback's lines (so "FORGED LINE" may start one), but no ESC.
check "the JUnit XML has no ESC, BEL or CSI byte" -- sh -c "! LC_ALL=C grep -q -e '$esc' -e '$bel' -e '$csi' j.xml"
check "the JUnit XML parses" -- "$py" -c 'import sys, xml.etree.ElementTree as ET; ET.parse(sys.argv[1])' j.xml
finish
