#!/bin/sh
# bench/rank-causes/run.py stays usable (it runs on demand only, so nothing else would notice it
# break): on a labelled store copy of bench/causes it prints the table and the sums, writes rows whose
# numbers hang together (found in a budget never above the causes, min <= mean <= max), leaves
# the store as it was, and says when its arguments are wrong (2), a store is missing (4) or ferry
# fails (3).
. "${top_srcdir:-$(dirname "$0")/../..}/tests/setup"
py=${FERRY_PYTHON:-$top_srcdir/.venv/bin/python}
run=$top_srcdir/bench/rank-causes/run.py
plan 11

cp "$top_srcdir/bench/causes/stores/onnx-old.db" store.db
chmod u+w store.db
cp store.db pristine.db
expect_exit 0 "the bench runs on a labelled store copy" -- "$py" "$run" --ferry "$FERRY" --seeds 2 \
	--ferry-seeds 2 --json rows.json onnx-old=store.db
contains "a row per frontend, set and count" "$out" "onnx-old   tvm-onnx@0.25.0        harvested     rules"
contains "and the sums over the frontends" "$out" "all        bugs   with-variants @10"
expect_exit 0 "the rows hang together" -- "$py" - rows.json <<'PY'
import json, sys
rows = json.load(open(sys.argv[1]))
assert {r["measure"] for r in rows} == {"bugs", "labels", "rules"}, rows
assert {r["set"] for r in rows} == {"harvested", "with-variants"}, rows
for r in rows:
    assert r["at10"] <= r["at25"] <= r["at50"] <= r["causes"], r
    for k in ("at10_random", "at25_random", "at50_random", "apfd_random", "at10_ferry", "apfd_ferry"):
        lo, mean, hi = r[k][1], r[k][0], r[k][2]
        assert lo <= mean <= hi, (k, r)
    assert 0 < r["apfd"] <= 1 and r["apfd"] == r["apfd_ferry"][0] and r["at10"] == r["at10_ferry"][0], r
PY
check "the store is left as it was" -- cmp pristine.db store.db
expect_exit 2 "a store without its name is a usage error" -- "$py" "$run" --ferry "$FERRY" store.db
expect_exit 2 "no seeds is a usage error" -- "$py" "$run" --ferry "$FERRY" --seeds 0 onnx-old=store.db
expect_exit 2 "and so is no tie-breaking seed" -- "$py" "$run" --ferry "$FERRY" --ferry-seeds 0 onnx-old=store.db
expect_exit 4 "a missing store is bad input" -- "$py" "$run" --ferry "$FERRY" onnx-old=nowhere.db
expect_exit 3 "a ferry that fails is an environment error" -- "$py" "$run" --ferry false onnx-old=store.db
contains "and says which command failed" "$err" "false bugs"
finish
