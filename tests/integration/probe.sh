#!/bin/sh
# What a frontend supports, per (operator, dtype) group: each group's simplest test runs once per
# frontend release as its probe, into the store's support table (never into the results); a second
# run of the same release probes nothing, a new release probes again, --no-probe probes nothing, and
# the report and ferry show cite the probes. ONNX Runtime for the real thing; a fault-injecting
# adapter (tests/data/adapters/adapter_probe.py) for unsupported, failing and crashing groups.
. "${top_srcdir:-$(dirname "$0")/../..}/tests/setup"
need_python_module onnx
need_python_module onnxruntime
py=${FERRY_PYTHON:-$top_srcdir/.venv/bin/python}
plan 39
sqlw() { "$py" -c 'import sqlite3, sys; c = sqlite3.connect(sys.argv[1]); c.executescript(sys.argv[2]); c.commit()' "$@"; }
sql() { "$py" -c 'import sqlite3, sys; print("\n".join("|".join(map(str, r)) for r in sqlite3.connect(sys.argv[1]).execute(sys.argv[2])))' "$@"; }
# The groups of the valid instances: operator and dtype (the first output's, else the first input's).
groups="SELECT DISTINCT op || ' ' || coalesce(json_extract(record, '\$.outputs[0].tensor.dtype'),
	json_extract(record, '\$.inputs[0].tensor.dtype'), '-') FROM instances WHERE status = 'ok' ORDER BY 1"
probed="SELECT op || ' ' || dtype FROM support ORDER BY 1"

"$FERRY" harvest onnx -q -o corpus.jsonl -f test_floor -f test_floor_example -f test_ceil -f test_ceil_example \
	-f test_exp -f test_exp_example -f test_add -f test_add_bcast -f 'test_cast_FLOAT_to_*' \
	-f test_reduce_sum_empty_set -f test_reduce_sum_keepdims_example >/dev/null
"$FERRY" wrap corpus.jsonl -o wrapped -q >/dev/null

expect_exit 0 "a run through ONNX Runtime probes as it goes" -- "$FERRY" run wrapped -F ort -o s.db -j 2 -q
contains "the summary counts the groups probed" "$out" "probed now"
groups_want=$(sql s.db "$groups")
got=$(sql s.db "$probed")
check "one probe per (operator, dtype) group of the tests ($(echo "$got" | wc -l) of $(echo "$groups_want" | wc -l))" -- \
	[ "$got" = "$groups_want" ]
n=$(sql s.db "SELECT count(*) FROM support s JOIN instances i ON i.id = s.probe_id AND i.op = s.op")
check "each probe is a test of its operator" -- [ "$n" -eq "$(echo "$groups_want" | wc -l)" ]
v=$(sql s.db "SELECT DISTINCT version FROM support")
r=$(sql s.db "SELECT DISTINCT frontend_version FROM runs")
check "probes are kept under the release the workers announced ($v)" -- [ -n "$v" -a "$v" = "$r" ]
n=$(sql s.db "SELECT count(*) FROM results")
valid=$(grep -c '"status":"ok"' wrapped/wrapped.jsonl)
check "probes are not results ($n results of $valid tests)" -- [ "$n" -eq "$valid" ]
bad=$(sql s.db "SELECT count(*) FROM support s JOIN results r ON r.id = s.probe_id WHERE r.outcome <> s.outcome")
check "a probe has its test's outcome" -- [ "$bad" -eq 0 ]
# ReduceSum's empty set (a 2x0x4 input) is its group's smallest test, but an empty tensor takes a path
# of its own: the probe is the group's simplest test with elements.
got=$(sql s.db "SELECT json_extract(i.record, '\$.inputs[0].tensor.shape') FROM support s
	JOIN instances i ON i.id = s.probe_id WHERE s.op = 'ReduceSum'")
check "a group's probe is no empty tensor while it has other tests (got $got)" -- [ "$got" = "[3,2,2]" ]

# Again, the same release: nothing to probe, even with tests left to run.
sqlw s.db "DELETE FROM results"
expect_exit 0 "a second run of the same release" -- "$FERRY" run wrapped -F ort -o s.db -j 2 -q
check "probes nothing" -- sh -c '! printf "%s" "$1" | grep -q "probed now"' - "$out"
contains "and says it knew the groups" "$out" "probed before"
# A new release probes again: the store's probes stand for another one.
sqlw s.db "DELETE FROM results; UPDATE support SET version = 'older'"
expect_exit 0 "a run of a new release" -- "$FERRY" run wrapped -F ort -o s.db -j 2 -q
got=$(sql s.db "SELECT op || ' ' || dtype FROM support WHERE version <> 'older' ORDER BY 1")
check "probes every group again ($(echo "$got" | wc -l) of $(echo "$groups_want" | wc -l))" -- [ "$got" = "$groups_want" ]

expect_exit 0 "--no-probe" -- "$FERRY" run wrapped -F ort -o none.db -j 2 -q --no-probe
n=$(sql none.db "SELECT count(*) FROM support")
check "probes nothing ($n)" -- [ "$n" -eq 0 ]
expect_exit 0 "--limit 2" -- "$FERRY" run wrapped -F ort -o two.db -j 1 -q -n 2
n=$(sql two.db "SELECT count(*) FROM support")
r=$(sql two.db "SELECT count(*) FROM results")
check "probes only the groups of its 2 tests, and runs 2 ($n probes, $r results)" -- [ "$n" -ge 1 -a "$n" -le 2 -a "$r" -eq 2 ]
# Shards probe apart; their merge keeps every shard's probes.
expect_exit 0 "shard 0/2" -- "$FERRY" run wrapped -F ort -o sh0.db -j 1 -q --shard 0/2
expect_exit 0 "shard 1/2" -- "$FERRY" run wrapped -F ort -o sh1.db -j 1 -q --shard 1/2
expect_exit 0 "merge the shards" -- "$FERRY" merge -o merged.db sh0.db sh1.db
want=$( (sql sh0.db "$probed"; sql sh1.db "$probed") | sort -u)
check "the merge keeps both shards' probes ($(echo "$want" | wc -l) groups)" -- [ "$(sql merged.db "$probed")" = "$want" ]
# ... and the canary's verdict each shard recorded (db.c's environment table).
canary="SELECT frontend || ' ' || ok FROM environment ORDER BY 1"
check "the merge keeps the shards' canary verdict ($(sql merged.db "$canary"))" -- \
	[ "$(sql merged.db "$canary")" = "$(sql sh0.db "$canary")" -a -n "$(sql sh0.db "$canary")" ]

# What the probes say, on a frontend that lacks things (adapter_probe.py).
export FERRY_ADAPTERS="$top_srcdir/tests/data/adapters"
"$py" -c 'import json, sys
for line in open(sys.argv[1]):
    r = json.loads(line)
    if r["op"] in ("Floor", "Ceil", "Exp", "Add"):
        print(json.dumps({"id": r["id"]}))' wrapped/wrapped.jsonl > queue.jsonl
expect_exit 0 "a run through a frontend that lacks things" -- \
	"$FERRY" run wrapped -F probe:onnx -o p.db -j 2 -q --queue queue.jsonl
contains "the summary counts each class" "$out" "4 groups: 2 supported, 1 unsupported, 1 failing"
got=$(sql p.db "SELECT op || ' ' || dtype || ' ' || outcome FROM support WHERE op IN ('Floor', 'Ceil', 'Exp') ORDER BY 1")
check "Floor unsupported, Ceil's simplest passes, Exp crashes (got: $(echo $got))" -- \
	[ "$got" = "Ceil float32 pass
Exp float32 crash
Floor float32 unsupported" ]
outcomes=$(sql p.db "SELECT DISTINCT outcome FROM results r JOIN instances i USING(id) WHERE i.op = 'Ceil' ORDER BY 1")
check "the probe changes no outcome: Ceil's rank-3 test is still unsupported ($(echo $outcomes))" -- \
	[ "$outcomes" = "pass
unsupported" ]
expect_exit 0 "report" -- "$FERRY" report p.db
contains "the report has a support section" "$out" "(operator, dtype) groups: 2 supported, 1 unsupported, 1 failing"
contains "listing the unsupported groups by operator" "$out" "unsupported  Floor                    float32"
contains "and the failing ones" "$out" "failing      Exp                      float32"
contains "an unsupported reason cites its group's probe" "$out" "probe: Floor float32 unsupported: "
contains "or says the simplest form passes" "$out" "the simplest Ceil float32 test passes: this form is what it lacks"
contains "a crash whose group's simplest form passes is marked" "$out" "(simplest form passes) RuntimeError: injected fault in Add"
"$FERRY" bugs p.db >/dev/null
bug=$("$FERRY" bugs p.db | awk '/injected fault in Add/ { print $1 }')
expect_exit 0 "ferry show of the Add bug" -- "$FERRY" show p.db "$bug"
contains "ferry show says the bug is in a supported path" "$out" "the bug is in a path the frontend supports"
# show cites the probe of the release that gave the result, not of the store's latest run: the same
# store with a later run of a release whose Add probe is unsupported.
cp p.db q.db
sqlw q.db "INSERT INTO support SELECT frontend, 'later', op, dtype, probe_id, 'unsupported', stage, 'later: Add lacks'
	FROM support; INSERT INTO runs(frontend, frontend_version, started) VALUES('probe', 'later', 1e12)"
expect_exit 0 "ferry show after a later release's run" -- "$FERRY" show q.db "$bug"
contains "still cites its result's release's probe" "$out" "the bug is in a path the frontend supports"

# A bug's representative, like a group's probe, is no empty tensor while the bug has other tests:
# ReduceSum fails in every form, and its smallest test is the empty set.
"$py" -c 'import json, sys
for line in open(sys.argv[1]):
    r = json.loads(line)
    if r["op"] == "ReduceSum":
        print(json.dumps({"id": r["id"]}))' wrapped/wrapped.jsonl > rs.jsonl
expect_exit 0 "a run of ReduceSum's tests through a frontend where every form fails" -- \
	"$FERRY" run wrapped -F probe:onnx -o rs.db -j 2 -q --queue rs.jsonl
"$FERRY" bugs rs.db >/dev/null
got=$(sql rs.db "SELECT json_extract(i.record, '\$.inputs[0].tensor.shape') FROM bugs b
	JOIN instances i ON i.id = b.representative")
check "the bug's representative is the test with elements (got $got)" -- [ "$got" = "[3,2,2]" ]
finish
