#!/bin/sh
# The triage file (report/triage.h): decisions per bug cause, made on a store of three tests, known
# to ferry check on a larger run whose variants are tests no run has seen; a cause decided fixed that
# fails again is a regression that fails the check; ferry triage edits the file in place; bad lines
# are named by file and line; bugs and report show the decisions.
. "${top_srcdir:-$(dirname "$0")/../..}/tests/setup"
need_python_module onnx
need_python_module onnxruntime
py=${FERRY_PYTHON:-$top_srcdir/.venv/bin/python}
plan 53
export FERRY_ADAPTERS="$top_srcdir/tests/data/adapters"
junit() { "$py" -c 'import sys, xml.etree.ElementTree as ET
r = ET.parse(sys.argv[1]).getroot()
for s in r:
    for t in s:
        f, k = t.find("failure"), t.find("skipped")
        print(s.get("name"), t.get("name"), "failure:" + f.get("message") if f is not None else
              "skipped:" + k.get("message") if k is not None else "pass")' "$1"; }
bug_of() { "$FERRY" bugs "$1" --json | "$py" -c 'import json, sys
print([b["bug"] for b in json.load(sys.stdin)["bugs"] if b["operators"] == sys.argv[1]][0])' "$2"; }

# The fault frontend crashes on Relu (a signal), raises on Exp and answers Ceil wrong: three causes.
"$FERRY" harvest onnx -q -o corpus.jsonl -f test_relu -f test_ceil -f test_exp >/dev/null
"$FERRY" vary corpus.jsonl -o variants.jsonl --per-instance 3 -j 2 -q >/dev/null
cat corpus.jsonl variants.jsonl > all.jsonl
"$FERRY" wrap corpus.jsonl -o small -q >/dev/null
"$FERRY" wrap all.jsonl -o large -q >/dev/null
"$FERRY" run small -F fault:onnx -o small.db -q --timeout 5 >/dev/null
exp=$(bug_of small.db Exp); relu=$(bug_of small.db Relu); ceil=$(bug_of small.db Ceil)
"$FERRY" run large -F fault:onnx -o large.db -q --timeout 5 >/dev/null
check "the Exp cause keeps its id when more tests join it ($exp)" -- test "$(bug_of large.db Exp)" = "$exp"
n=$("$FERRY" bugs large.db --json | "$py" -c 'import json, sys
print([b["tests"] for b in json.load(sys.stdin)["bugs"] if b["operators"] == "Exp"][0])')
check "and more tests did join it ($n)" -- test "$n" -gt 1

# Decisions, made on the small store; the file starts with a reviewer's comment and a blank line.
printf '# ORT frontend triage, reviewed in PRs\n\n' > t.txt
expect_exit 0 "filed, by a prefix of the id" -- "$FERRY" triage small.db "$(echo "$exp" | cut -c1-6)" filed '#12' -f t.txt
contains "it says what it recorded" "$out" "$exp: filed #12"
expect_exit 0 "not-a-bug, with its reason in words" -- \
	"$FERRY" triage small.db "$relu" not-a-bug the fault adapter crashes on purpose -f t.txt
expect_exit 0 "fixed, in a release" -- "$FERRY" triage small.db "$ceil" fixed 1.2 -f t.txt
check "the reviewer's comment stays first" -- test "$(head -n 1 t.txt)" = "# ORT frontend triage, reviewed in PRs"
check "an entry is a line, with its signature under it" -- grep -q "^$exp filed #12\$" t.txt
check "the reason is kept whole" -- grep -q "^$relu not-a-bug the fault adapter crashes on purpose\$" t.txt
check "the signature line is indented under its entry" -- \
	sh -c "grep -A1 '^$exp ' t.txt | tail -n 1 | grep -q '^    signature fault|crash|execute|'"
expect_exit 2 "not-a-bug without a reason is refused" -- "$FERRY" triage small.db "$relu" not-a-bug -f t.txt
contains "saying what it needs" "$err" "not-a-bug needs the reason it is not a bug"
expect_exit 2 "filed without a link is refused" -- "$FERRY" triage small.db "$exp" filed soon -f t.txt
expect_exit 2 "an unknown status is a usage error" -- "$FERRY" triage small.db "$exp" closed -f t.txt
expect_exit 4 "an id no bug has is bad input" -- "$FERRY" triage small.db ffffffffffff new -f t.txt
expect_exit 0 "the list" -- "$FERRY" triage small.db -f t.txt
contains "shows each bug's decision" "$out" "fixed in 1.2"

# The check of the larger run: the variants of Exp and Relu are tests no baseline lists, known by
# their cause; Ceil's cause was decided fixed, and fails again.
expect_exit 1 "a fixed cause that fails again fails the check" -- \
	"$FERRY" check large -F fault:onnx -o c.db -b t.txt --junit c.xml -q --timeout 5
contains "the triage file is read as the baseline" "$out" "triage: 3 decisions in t.txt"
contains "it is said to be a regression" "$out" "REGRESSION mismatch  Ceil"
contains "with the release that fixed it" "$out" "fixed in 1.2: output 0"
contains "and the check says why it failed" "$out" "regressions: a bug the triage file says is fixed fails again"
contains "nothing else is new" "$out" " 0 new"
junit c.xml > c.txt
new_exp=$(grep -c "^fault.Exp .*skipped:known (filed #12): crash" c.txt || true)
check "JUnit skips every Exp test as known (filed #12), the variants too ($new_exp)" -- test "$new_exp" -gt 1
check "and every Relu test with the reason" -- \
	sh -c "! grep '^fault.Relu ' c.txt | grep -qv 'skipped:known (not a bug: the fault adapter crashes on purpose)'"
check "a Ceil test is a failure that says regression" -- grep -q '^fault.Ceil .*failure:regression (fixed in 1.2): ' c.txt

# Ceil filed after all: the entry is rewritten where it stands, nothing else changes.
cp t.txt before.txt
expect_exit 0 "a decision changed" -- "$FERRY" triage large.db "$ceil" filed https://example.org/issues/3 -f t.txt
changed=$(diff before.txt t.txt | grep -c '^[<>]' || true)
check "one line of the file changed ($changed)" -- test "$changed" -eq 2
check "in its place" -- test "$(grep -n "^$ceil " t.txt | cut -d: -f1)" = "$(grep -n "^$ceil " before.txt | cut -d: -f1)"
# ferry-triage.txt in the current directory is read with no option.
cp t.txt ferry-triage.txt
expect_exit 0 "with the default file and no baseline, the check passes" -- \
	"$FERRY" check large -F fault:onnx -o c.db --junit d.xml -q --timeout 5
contains "it read the default file" "$out" "triage: 3 decisions in ferry-triage.txt"
rm ferry-triage.txt

# A decision made under another id finds its cause by the signature, a <*> standing for a token.
sig=$(grep -A1 "^$exp " t.txt | tail -n 1 | sed 's/injected fault in/injected <*> in/')
printf '000000000000 filed #99\n%s\n' "$sig" > w.txt
expect_exit 0 "bugs reads a decision with another id" -- "$FERRY" bugs large.db --triage w.txt
contains "found by its signature" "$out" "triage: filed #99 (decided as 000000000000, by its signature)"
# A <*> is one token, never two; and a decision whose bug is still in the store is that bug's alone.
sed 's/injected <\*> in/injected <*>/' w.txt > w2.txt
expect_exit 0 "bugs reads a signature whose <*> would stand for two tokens" -- "$FERRY" bugs large.db --triage w2.txt
check "it finds no bug by it" -- sh -c '! echo "$1" | grep -q "filed #99"' - "$out"
printf '%s filed #77\n%s\n' "$ceil" "$sig" > w3.txt
expect_exit 0 "bugs reads the Exp signature under the Ceil bug's id" -- "$FERRY" bugs large.db --triage w3.txt
check "the decision is the Ceil bug's only" -- \
	test "$(echo "$out" | grep -c 'filed #77')" = 1 -a "$(echo "$out" | grep -c 'decided as')" = 0

# A duplicate names another bug, never itself.
cp t.txt dup.txt
expect_exit 2 "a duplicate of itself is refused" -- "$FERRY" triage large.db "$relu" duplicate "$relu" -f dup.txt
expect_exit 0 "a duplicate of another bug" -- "$FERRY" triage large.db "$relu" duplicate "$exp" -f dup.txt
expect_exit 0 "is shown as such" -- "$FERRY" bugs large.db --triage dup.txt
contains "with the bug it duplicates" "$out" "triage: duplicate of $exp"

# The readers.
expect_exit 0 "bugs shows the decisions" -- "$FERRY" bugs large.db --triage t.txt
contains "under the bug" "$out" "triage: not a bug: the fault adapter crashes on purpose"
status=$("$FERRY" bugs large.db --triage t.txt --json | "$py" -c 'import json, sys
print(sorted(b["triage"]["status"] for b in json.load(sys.stdin)["bugs"]))')
check "bugs --json gives each its status ($status)" -- test "$status" = "['filed', 'filed', 'not-a-bug']"
expect_exit 0 "report" -- "$FERRY" report large.db --triage t.txt
contains "leaves the decided bugs out of those worth filing" "$out" "(3 bugs decided in t.txt"
n=$("$FERRY" report large.db --triage t.txt --json | "$py" -c 'import json, sys
print(len(json.load(sys.stdin)["triage"]["bugs"]))')
check "report --json lists the decided bugs ($n)" -- test "$n" -eq 3
"$FERRY" report large.db --triage t.txt --html page >/dev/null 2>&1
check "the page labels a decided bug" -- grep -q '<span class="triage filed">filed #12</span>' page/index.html

# Bad lines, by file and line; a check reads its triage file before it runs anything.
printf '# ok\n%s filed #1\n%s maybe\n' "$exp" "$ceil" > bad.txt
expect_exit 4 "an unknown status is bad input" -- "$FERRY" bugs small.db --triage bad.txt
contains "named by file and line" "$err" "bad.txt:3: 'maybe' is not a status"
printf '%s filed #1\n  signature x\n  signature y\n' "$exp" > bad.txt
expect_exit 4 "a second signature is bad input" -- "$FERRY" check large -F fault:onnx -o e.db -b bad.txt -q
contains "named by file and line" "$err" "bad.txt:3: a signature with no entry above it"
check "and the check ran nothing" -- test ! -e e.db
finish
