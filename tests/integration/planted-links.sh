#!/bin/sh
# Writes stay inside ferry's directories (issue 27): a wrap directory, a store's STORE.outputs and
# STORE.reduced, and what report -o, report --html and show -o write may come from someone else,
# unpacked from an archive with symbolic links planted in them. A link where ferry makes or finds a
# directory or a file of its own (tests/XX -> elsewhere, tests/XX/ID/meta.json -> a victim,
# STORE.outputs/LABEL -> elsewhere, DIR/FRONTEND -> elsewhere, DIR/reproducer.py -> a victim) is never
# followed: nothing is written where it points, and the error names it. The directory the user
# names may itself be a link (the user's choice), and is followed.
. "${top_srcdir:-$(dirname "$0")/../..}/tests/setup"
need_python_module onnx
need_python_module onnxruntime
py=${FERRY_PYTHON:-$top_srcdir/.venv/bin/python}
plan 36
untouched() { test "$(cat victim)" = keep && test -z "$(ls -A elsewhere)"; }
reset() { rm -rf elsewhere && mkdir elsewhere && echo keep > victim; }  # each case on its own
reset

"$FERRY" harvest onnx -q -f test_relu -f test_abs -o corpus.jsonl >/dev/null
ids=$("$py" -c 'import json, sys; print(" ".join(json.loads(l)["id"] for l in open(sys.argv[1])))' corpus.jsonl)
set -- $ids
a=$1 b=$2
pa=$(printf %.2s "$a") pb=$(printf %.2s "$b")

# --- wrap ------------------------------------------------------------------------------------------
mkdir -p w1/tests
ln -s "$work/elsewhere" "w1/tests/$pa"
reset
expect_exit 4 "wrap into a directory with tests/$pa a planted link stops" -- "$FERRY" wrap corpus.jsonl -o w1
check "writes nothing where the link points" -- untouched
contains "and the error names the link" "$err" "'w1/tests/$pa' is a symbolic link"
check "records nothing for its instance (it is the directory's fault, not the instance's)" -- \
	sh -c "! grep -q '$a' w1/wrapped.jsonl 2>/dev/null"
rm "w1/tests/$pa"
expect_exit 0 "with the link removed, the same command wraps both" -- "$FERRY" wrap corpus.jsonl -o w1 -q
check "the instance is wrapped" -- test -f "w1/tests/$pa/$a/meta.json"

mkdir -p "w2/tests/$pa/$a" "w2/tests/$pb/$b"
ln -s "$work/victim" "w2/tests/$pa/$a/meta.json"
ln -s "$work/victim" "w2/tests/$pb/$b/input_0.npy"
reset
expect_exit 4 "wrap into a directory with meta.json and input_0.npy planted links stops" -- \
	"$FERRY" wrap corpus.jsonl -o w2 -j 1
check "the victim is untouched" -- untouched
contains "the error names a planted link" "$err" "' is a symbolic link"
rm "w2/tests/$pa/$a/meta.json"
expect_exit 4 "the next link stops it too" -- "$FERRY" wrap corpus.jsonl -o w2 -j 1
check "the victim is still untouched" -- untouched
contains "and input_0.npy is named" "$err" "'w2/tests/$pb/$b/input_0.npy' is a symbolic link"

mkdir w3
ln -s "$work/victim" w3/wrapped.jsonl
reset
expect_exit 4 "wrapped.jsonl a planted link is refused" -- "$FERRY" wrap corpus.jsonl -o w3
check "and the victim is untouched" -- untouched
contains "naming it" "$err" "'w3/wrapped.jsonl' is a symbolic link"

mkdir real
ln -s "$work/real" linked
expect_exit 0 "the wrap directory the user names may be a link" -- "$FERRY" wrap corpus.jsonl -o linked -q
check "and is followed" -- test -f "real/tests/$pa/$a/meta.json"

# --- STORE.outputs (the differential oracle's outputs of graph tests) -----------------------------
"$py" "$top_srcdir/tests/data/graphs/graphs.py" corpus graphs.jsonl
"$FERRY" wrap graphs.jsonl -o graphs -q >/dev/null 2>&1 || true
"$py" "$top_srcdir/tests/data/graphs/graphs.py" fill graphs
g=$("$py" -c 'import json, sys; print(json.loads(open(sys.argv[1]).readline())["id"])' graphs/wrapped.jsonl)

mkdir o1.db.outputs
ln -s "$work/elsewhere" o1.db.outputs/ort
reset
expect_exit 4 "a run whose STORE.outputs/ort is a planted link stops" -- "$FERRY" run graphs -F ort -o o1.db -q
check "writes nothing where it points" -- untouched
contains "and names it" "$err" "'$work/o1.db.outputs/ort' is a symbolic link"

ln -s "$work/elsewhere" o2.db.outputs
reset
expect_exit 4 "STORE.outputs itself a link: the same" -- "$FERRY" run graphs -F ort -o o2.db -q
check "nothing written there" -- untouched

mkdir -p "o3.db.outputs/ort/$g"
ln -s "$work/victim" "o3.db.outputs/ort/$g/out_0.npy"
ln -s "$work/victim" "o3.db.outputs/ort/$g/outputs.json"
reset
expect_exit 0 "a run whose kept outputs are planted links" -- "$FERRY" run graphs -F ort -o o3.db -q
check "writes nothing through them" -- untouched

# --- report -o, report --html, show -o, reduce ----------------------------------------------------
export FERRY_ADAPTERS="$top_srcdir/tests/data/adapters"
"$FERRY" run graphs -F graphfault -o r.db -q -j 1 >/dev/null
# A directory holding what ferry did not write is refused whole (tests/cli/outdir.sh); a marker
# claims it for this store, as one unpacked from someone's archive could, so that what is tried
# below is the link inside.
claim() { mkdir -p "$1"; printf 'store %s/r.db\n' "$(pwd -P)" > "$1/.ferry-output"; }
claim repro
ln -s "$work/elsewhere" repro/graphfault
reset
expect_exit 4 "report -o DIR with DIR/graphfault a planted link" -- "$FERRY" report r.db -o repro
check "writes nothing where it points" -- untouched
contains "and names it" "$err" "'repro/graphfault' is a symbolic link"

claim page
mkdir -p page/reproducers
ln -s "$work/elsewhere" page/reproducers/graphfault
reset
expect_exit 4 "report --html DIR with DIR/reproducers/graphfault a planted link" -- "$FERRY" report r.db --html page
check "writes nothing where it points" -- untouched
contains "and names it" "$err" "'page/reproducers/graphfault' is a symbolic link"

bug=$("$py" -c 'import sqlite3, sys; print(sqlite3.connect(sys.argv[1]).execute("SELECT bug_id FROM bugs WHERE outcome = ?", ("crash",)).fetchone()[0])' r.db)
claim shown
ln -s "$work/victim" shown/reproducer.py
reset
expect_exit 4 "show -o DIR with DIR/reproducer.py a planted link" -- "$FERRY" show r.db "$bug" -o shown
check "the victim is untouched" -- untouched
contains "and names it" "$err" "'shown/reproducer.py' is a symbolic link"

mkdir r.db.reduced
ln -s "$work/elsewhere" r.db.reduced/graphfault
reset
expect_exit 4 "reduce with STORE.reduced/graphfault a planted link" -- "$FERRY" reduce r.db -j 1
check "writes and removes nothing where it points" -- untouched
contains "and names it" "$err" "r.db.reduced/graphfault' is a symbolic link"
finish
