#!/bin/sh
# The labelled benchmark of bench/causes stays usable: each store copy opens in ferry bugs, the labels
# and the copies hold the same failures (one label each), every label names a known kind, and score.py
# scores the grouping, says when ferry fails (3) or a store is missing (4), and leaves the copies as
# they were (ferry bugs rewrites a store's bugs table, so score.py works on scratch copies).
. "${top_srcdir:-$(dirname "$0")/../..}/tests/setup"
py=${FERRY_PYTHON:-$top_srcdir/.venv/bin/python}
dir=$top_srcdir/bench/causes
plan 10

for name in onnx-main onnx-old torch-main; do
	cp "$dir/stores/$name.db" "$name.db"
	chmod u+w "$name.db"
	expect_exit 0 "ferry bugs --json reads the $name copy" -- "$FERRY" bugs "$name.db" --json
done

# Every label's failure is in its copy, labelled once, with a known kind, unless the copy's instance says
# it is beyond its operator's specification (refresh-limits.py: no result of it is left); a copy holds
# only the labelled tests (with what every frontend made of them).
expect_exit 0 "the labels and the store copies hold the same tests" -- "$py" - "$dir" <<'PY'
import json, sqlite3, sys, collections
d = sys.argv[1]
kinds = {"frontend-bug", "unsupported", "invalid-test", "reference-disputed", "undefined", "environment", "ferry"}
labels = [json.loads(l) for l in open(d + "/labels.jsonl")]
seen = collections.Counter((l["store"], l["frontend"], l["test"]) for l in labels)
bad = [k for k, n in seen.items() if n > 1]
bad += [l for l in labels if l["kind"] not in kinds or not l["cause"] or not l["why"]]
for name in ("onnx-main", "onnx-old", "torch-main"):
    db = sqlite3.connect(d + "/stores/" + name + ".db")
    rows = set(db.execute("SELECT frontend, id FROM results"))
    # refresh-limits.py took the results of what today's ferry refuses out, and said why
    refused = {i for i, in db.execute("SELECT id FROM instances WHERE status = 'invalid' AND reason LIKE 'OutsideSpec: %'")}
    mine = {(f, t) for s, f, t in seen if s == name}
    bad += sorted(k for k in mine - rows if k[1] not in refused)
    bad += sorted({t for _, t in rows} ^ {t for _, t in mine if t not in refused})
    bad += sorted(refused & {t for _, t in rows})
if bad:
    sys.exit("mismatch: %r" % bad[:5])
PY
check "at least 400 failures are labelled" -- test "$(wc -l < "$dir/labels.jsonl")" -ge 400

cp "$dir/stores/onnx-old.db" pristine.db
expect_exit 0 "score.py scores the grouping" -- "$py" "$dir/score.py" --ferry "$FERRY" \
	"$dir/stores/onnx-main.db" "$dir/stores/onnx-old.db" "$dir/stores/torch-main.db"
contains "with a row over the three stores" "$out" "overall"
check "and leaves the copies as they were" -- cmp pristine.db "$dir/stores/onnx-old.db"
expect_exit 3 "a ferry that fails is an environment error" -- "$py" "$dir/score.py" --ferry false "$dir/stores/onnx-old.db"
expect_exit 4 "a missing store is bad input" -- "$py" "$dir/score.py" --ferry "$FERRY" nowhere.db
finish
