#!/bin/sh
# ferry go's trigger stage on a small real slice (the ONNX node tests of Add): a frontend that fails
# every model with an int16 input (tests/data/trigger-adapter, ONNX Runtime behind that injected
# fault) has a bug whose trigger is known, and go says it by contrast: int16 fails, float32 passes.
# The neighbours are validated by the library, kept in the store with their results, run on the
# bug's frontend only, bounded by --triggers K, not run again by the same command, and not at all
# with --no-triggers.
. "${top_srcdir:-$(dirname "$0")/../..}/tests/setup"
need_python_module onnx
need_python_module onnxruntime
plan 18
py=${FERRY_PYTHON:-$top_srcdir/.venv/bin/python}
sql() { "$py" -c 'import sqlite3, sys; print("\n".join("|".join(map(str, r)) for r in sqlite3.connect(sys.argv[1]).execute(sys.argv[2])))' "$@"; }
FERRY_ADAPTERS=$top_srcdir/tests/data/trigger-adapter
export FERRY_ADAPTERS
d=proj/onnx

expect_exit 0 "ferry go with a frontend that fails for int16" -- "$FERRY" go onnx -F noint16,ort --op Add -o proj -j 2 -q
contains "runs the trigger stage" "$out" "triggers onnx: up to 6 one-change neighbours"
title=$(echo "$out" | grep '^  noint16 .*int16 inputs' || true)
contains "the int16 bug's title names int16 ($title)" "$title" "fails for int16 inputs; passes for "
contains "and a dtype that passes" "$title" "float32"
bug=$(sql $d/results.db "SELECT bug_id FROM bugs WHERE frontend = 'noint16' AND message LIKE '%int16 inputs are not handled%'")
# The member whose neighbours ran: the representative, or the test it is a neighbour of (a
# neighbour that fails alike and is simpler represents the bug after the stage).
members="SELECT id FROM bug_members WHERE frontend = 'noint16' AND bug_id = '$bug'"
n=$(sql $d/results.db "SELECT count(*) FROM neighbours WHERE parent IN ($members)")
check "the store keeps the neighbours of the int16 bug ($n)" -- test "$n" -ge 2 -a "$n" -le 6
ran=$(sql $d/results.db "SELECT count(*) FROM neighbours n JOIN results r USING(id) WHERE n.parent IN ($members) AND r.frontend = 'noint16'")
check "with their results on its frontend ($ran)" -- test "$ran" -eq "$n"
other=$(sql $d/results.db "SELECT count(*) FROM neighbours n JOIN results r USING(id) WHERE n.parent IN ($members)
	AND r.frontend = 'ort' AND n.id NOT IN (SELECT id FROM neighbours WHERE parent IN (SELECT id FROM bug_members WHERE frontend = 'ort'))")
check "and none on a frontend that has not that bug ($other)" -- test "$other" -eq 0
valid=$("$py" - $d/triggers.jsonl <<'PY'
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
print(sum(1 for r in rows if r.get("outputs") and r["variant"]["vary"].split(":")[0] in ("dtype", "param", "rank", "dim")))
print(len(rows))
PY
)
check "every neighbour is one change with its reference outputs ($(echo $valid | tr '\n' ' '))" -- \
	test "$(echo "$valid" | sed -n 1p)" -eq "$(echo "$valid" | sed -n 2p)" -a "$(echo "$valid" | sed -n 2p)" -ge 2
check "the failing neighbours are in the store's bugs" -- test "$(sql $d/results.db "SELECT count(*) FROM results r
	JOIN neighbours n USING(id) WHERE r.frontend = 'noint16' AND r.outcome = 'crash' AND r.id NOT IN (SELECT id FROM bug_members)")" -eq 0

# The title is what the bug list leads a bug with (show and the HTML page too).
expect_exit 0 "bugs" -- "$FERRY" bugs -w $d/results.db -F noint16
contains "ferry bugs prints the title under the bug" "$out" "fails for int16 inputs; passes for "

expect_exit 0 "the same command again" -- "$FERRY" go onnx -F noint16,ort --op Add -o proj -j 2 -q
contains "skips the neighbours' vary" "$out" "triggers onnx: current"
contains "and runs none" "$out" "bug, 0 ran now"

expect_exit 0 "--triggers 2" -- "$FERRY" go onnx -F noint16 --op Add --triggers 2 -o two -j 2 -q
most=$("$py" -c 'import collections, json, sys; print(max(collections.Counter(json.loads(l)["variant"]["parent"] for l in open(sys.argv[1])).values()))' two/onnx/triggers.jsonl)
check "keeps at most 2 neighbours of a bug ($most)" -- test "$most" -le 2

expect_exit 0 "--no-triggers" -- "$FERRY" go onnx -F noint16 --op Add --no-triggers -o none -j 2 -q
check "runs no neighbour" -- test ! -e none/onnx/triggers.jsonl
finish
