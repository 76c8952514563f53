#!/bin/sh
# ferry report, bugs and show for people and for programs: --json is one JSON document (parsed here
# by Python's json), --op GLOB narrows each to the operators it matches, a crash's line leads with
# its exception type (tvm-tflite's KeyError used to read "[compile] 10"), nothing is cut in a pipe
# (on a terminal only without --wide), and --durations lists the slowest tests. The store is a copy
# of an old one (tests/data/stores) with two messages of frontends written into it.
. "${top_srcdir:-$(dirname "$0")/../..}/tests/setup"
py=${FERRY_PYTHON:-$top_srcdir/.venv/bin/python}
"$py" -c 'import sqlite3, json' 2>/dev/null || skip_all "no python sqlite3"
plan 25
cp "$top_srcdir/tests/data/stores/schema1.db" s.db
chmod u+w s.db
long="output 0: max |got - want| = 1.0 at [0, 0, 0] (got 2.0, want 1.0), $(printf 'padding %.0s' $(seq 40))60 of 60 elements beyond atol 0.001 + rtol 0.001, 84 Inf mismatches (the end)"
"$py" - s.db "$long" <<'PY'
import sqlite3, sys
c = sqlite3.connect(sys.argv[1])
ids = {op: i for i, op in c.execute("SELECT id, op FROM instances")}
c.execute("UPDATE results SET outcome = 'crash', stage = 'compile', exc_type = 'KeyError', message = '10' "
          "WHERE frontend = 'fault' AND id = ?", (ids["Relu"],))
c.execute("UPDATE results SET message = ? WHERE frontend = 'fault' AND id = ?", (sys.argv[2], ids["Ceil"]))
c.commit()
PY
# json_get FILE EXPR: the Python expression over the document d, printed
json_get() { "$py" -c 'import json, os, sys; d = json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$1" "$2"; }

expect_exit 0 "report --json" -- "$FERRY" report s.db --json
printf '%s\n' "$out" > report.json
check "it is one JSON document" -- json_get report.json 'd["store"]'
contains "every frontend" "$(json_get report.json '[f["name"] for f in d["frontends"]]')" "['fault', 'ort']"
contains "outcome counts" "$(json_get report.json 'd["frontends"][1]["outcomes"]["pass"]')" "7"
contains "a crash's line: its exception type first" \
	"$(json_get report.json '[x["line"] for x in d["frontends"][0]["failures"] if x["op"] == "Relu"]')" \
	"['KeyError: 10']"
contains "a mismatch's line: the Inf count first" \
	"$(json_get report.json '[x["line"] for x in d["frontends"][0]["failures"] if x["op"] == "Ceil"][0][:32]')" \
	"output 0: 84 Inf mismatches (th"
export LONG="$long"
contains "the whole message is kept" \
	"$(json_get report.json '[x["message"] == os.environ["LONG"] for x in d["frontends"][0]["failures"] if x["op"] == "Ceil"]')" \
	"[True]"
contains "durations in the document" "$(json_get report.json 'len(d["durations"]["slowest"]) > 0')" "True"

expect_exit 0 "report --op" -- "$FERRY" report s.db --op 'C*' --json
printf '%s\n' "$out" > op.json
contains "--op narrows the counts" "$(json_get op.json '[f["total"] for f in d["frontends"]]')" "[1, 1]"
contains "--op narrows the failures" "$(json_get op.json '[x["op"] for x in d["frontends"][0]["failures"]]')" "['Ceil']"

expect_exit 0 "report in a pipe" -- "$FERRY" report s.db -F fault
contains "a crash reads its exception type" "$out" "[compile] KeyError: 10"
contains "a line is never cut in a pipe" "$out" "84 Inf mismatches (the end)"
expect_exit 0 "report --op in text" -- "$FERRY" report s.db --op 'Relu'
case "$out" in *Ceil*) ok 1 "only the operators matching" ;; *) ok 0 "only the operators matching" ;; esac
expect_exit 0 "report --durations" -- "$FERRY" report s.db --durations
contains "the slowest tests" "$out" "slowest tests:"
# On a terminal (script(1) gives one, 100 columns) a line is cut to its width, unless --wide.
if command -v script >/dev/null 2>&1; then
	COLUMNS=100 script -qec "'$FERRY' report s.db -F fault" /dev/null > tty.txt 2>&1 || true
	COLUMNS=100 script -qec "'$FERRY' report s.db -F fault --wide" /dev/null > wide.txt 2>&1 || true
	cut=$(tr -d '\r' < tty.txt | grep '84 Inf' | awk 'length($0) <= 100 && /\.\.\.$/')
	contains "on a terminal a long line is cut to its width, and says so" "$cut" "output 0: 84 Inf"
	check "--wide keeps it whole" -- grep -q '84 Inf mismatches (the end)' wide.txt
else
	ok 0 "# SKIP on a terminal a long line is cut: no script(1)"
	ok 0 "# SKIP --wide keeps it whole: no script(1)"
fi

expect_exit 0 "bugs --json" -- "$FERRY" bugs s.db --json
printf '%s\n' "$out" > bugs.json
contains "each bug with its line" "$(json_get bugs.json '[b["line"] for b in d["bugs"] if b["operators"] == "Relu"]')" "['KeyError: 10']"
contains "and its members" "$(json_get bugs.json 'sorted(m["op"] for b in d["bugs"] for m in b["members"])')" "['Ceil', 'Exp', 'Relu']"
expect_exit 0 "bugs --op" -- "$FERRY" bugs s.db --op 'E*' --json
printf '%s\n' "$out" > bugs-op.json
contains "--op keeps the bugs of the operators matching" "$(json_get bugs-op.json '[b["operators"] for b in d["bugs"]]')" "['Exp']"
finish
