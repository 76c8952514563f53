#!/bin/sh
# The PyTorch wrap's speed-ups change no test: a wrap against one as it was before them
# (FERRY_WRAP_SLOW=1) gives the same statuses, meta.json, inputs and references (bench/wrap/same.py),
# and every model.pt2 the wrap made without loading it back loads. One that does not load (here a
# file broken on purpose) is found where a frontend reads it: NotSerialized, the error ferry's own
# at the wrap stage, and meta.json says from then on that the export model is missing, and why.
. "${top_srcdir:-$(dirname "$0")/../..}/tests/setup"
need_python_module torch
py=${FERRY_PYTHON:-$top_srcdir/.venv/bin/python}
has() { "$py" -c "import $1" 2>/dev/null; }
ov=0
if has openvino; then ov=1; fi
plan $((8 + 2 * ov))
data=$top_srcdir/tests/data/wrap

expect_exit 0 "wrap the PyTorch sample" -- "$FERRY" wrap "$data/torch.jsonl" -o fast -j 2 -q
FERRY_WRAP_SLOW=1 "$FERRY" wrap "$data/torch.jsonl" -o slow -j 2 -q >/dev/null 2>&1
s=$("$py" "$top_srcdir/bench/wrap/same.py" slow fast | tail -n 1)
contains "the same tests as a wrap as it was ($s)" "$s" "4 valid tests compared: 0 differences"
n=$(ls fast/tests/*/*/model.pt2 | wc -l)
check "every valid test has a model.pt2 ($n)" -- [ "$n" -eq 4 ]
check "each loads" -- env PYTHONPATH="$top_builddir/python" "$py" -c "
import sys, torch
for p in sys.argv[1:]:
    torch.export.load(p)" fast/tests/*/*/model.pt2

d=$(ls -d fast/tests/*/* | head -n 1)
printf 'not a zip archive\n' > "$d/model.pt2"
cat > load.py <<'PY'
import sys
from ferry.templates import torch as t
try:
    t.load_exported(sys.argv[1])
except t.NotSerialized as e:
    print(e)
PY
m=$(PYTHONPATH=$top_builddir/python "$py" load.py "$d" 2>/dev/null)
contains "a model.pt2 that does not load is not a model ($m)" "$m" "ferry: PyTorch could not make the export model: the saved model does not load back"
e=$("$py" -c "import json, sys; m = json.load(open(sys.argv[1])); print(m['export'], m.get('export_error', ''))" "$d/meta.json")
contains "meta.json says so ($e)" "$e" "None the saved model does not load back"
check "the file is gone" -- [ ! -e "$d/model.pt2" ]
m2=$(PYTHONPATH=$top_builddir/python "$py" load.py "$d" 2>/dev/null)
check "a second reader is told the same ($m2)" -- [ "$m" = "$m2" ]

if [ "$ov" -eq 1 ]; then
	# A test whose export model was found broken is ferry's error at the wrap stage, never the frontend's.
	sql() { "$py" -c 'import sqlite3, sys; print("\n".join("|".join(map(str, r)) for r in sqlite3.connect(sys.argv[1]).execute(sys.argv[2])))' "$@"; }
	id=$(basename "$d")
	printf 'not a zip archive\n' > "$(ls -d fast/tests/*/* | sed -n 2p)/model.pt2"
	expect_exit 0 "run openvino-export" -- "$FERRY" run fast -F openvino-export -o fast.db -j 2 -q
	got=$(sql fast.db "SELECT outcome, stage FROM results WHERE outcome != 'pass' ORDER BY id" | sort -u)
	check "the two broken files are errors of the wrap stage ($got)" -- [ "$got" = "error|wrap" ]
fi
finish
