#!/bin/sh
# ferry wrap --frontend makes only the model files the frontends read, and a frontend that reads a
# file wrap left out makes it when it first needs it: the tests are those of a wrap of every format
# (statuses, meta.json, inputs and references array by array: bench/wrap/same.py), kept float
# values included, and two workers that want the same file at once make it once.
# PyTorch: formats ts (model.ts) and pt2 (model.pt2); Keras: savedmodel (saved_model/) and tflite.
. "${top_srcdir:-$(dirname "$0")/../..}/tests/setup"
need_python_module torch
py=${FERRY_PYTHON:-$top_srcdir/.venv/bin/python}
same() { "$py" "$top_srcdir/bench/wrap/same.py" "$@" | tail -n 1; }
has() { "$py" -c "import $1" 2>/dev/null; }
keras=0
if has keras && has tensorflow; then keras=1; fi
ov=0
if has openvino; then ov=1; fi
plan $((11 + 2 * ov + 5 * keras))
data=$top_srcdir/tests/data/wrap
count() { ls $1 2>/dev/null | wc -l; }

expect_exit 0 "wrap the PyTorch sample, every format" -- "$FERRY" wrap "$data/torch.jsonl" -o all -j 2 -q
expect_exit 0 "wrap it for inductor alone" -- "$FERRY" wrap "$data/torch.jsonl" -o lazy -F inductor -j 2 -q
check "no model.ts nor model.pt2 is made for inductor" -- [ "$(count 'lazy/tests/*/*/model.*')" -eq 0 ]
if grep -q '"torchscript\|"export' lazy/tests/*/*/meta.json; then ok 1 "meta.json names neither"; else ok 0 "meta.json names neither"; fi
s=$(same all lazy)
contains "the same tests as every format's, kept float64 values too ($s)" "$s" "4 valid tests compared: 0 differences"
expect_exit 0 "wrap it for openvino-pytorch" -- "$FERRY" wrap "$data/torch.jsonl" -o ts -F openvino-pytorch -j 2 -q
check "model.ts only" -- [ "$(count 'ts/tests/*/*/model.ts')" -eq 4 -a "$(count 'ts/tests/*/*/model.pt2')" -eq 0 ]

# The export a frontend reads, made in two processes at once: one makes it, the other waits and
# reads what the first made.
d=$(ls -d lazy/tests/*/* | head -n 1)
cat > make.py <<'PY'
import sys
from ferry.templates import torch as t
print(t.serialized(sys.argv[1], "export"))
PY
PYTHONPATH=$top_builddir/python "$py" make.py "$d" > one.txt 2>&1 &
PYTHONPATH=$top_builddir/python "$py" make.py "$d" > two.txt 2>&1 || true
wait
check "both processes get the model.pt2 path" -- grep -q 'model.pt2$' one.txt && grep -q 'model.pt2$' two.txt
check "which loads" -- env PYTHONPATH="$top_builddir/python" "$py" -c "import torch, sys; torch.export.load(sys.argv[1])" "$d/model.pt2"
b=$("$py" -c "import json, sys; m = json.load(open(sys.argv[1])); print(m['export'], m.get('export_error'))" "$d/meta.json")
c=$("$py" -c "import json, sys; m = json.load(open(sys.argv[1])); print(m['export'], m.get('export_error'))" "all/${d#lazy/}/meta.json")
check "meta.json now says what a wrap of every format says ($b; $c)" -- [ "$b" = "$c" ]
check "no temporary meta.json is left" -- [ "$(count "$d/*.tmp")" -eq 0 ]

if [ "$ov" -eq 1 ]; then
	# A run through a frontend whose file wrap left out: made then, and the outcomes are the same.
	sql() { "$py" -c 'import sqlite3, sys; print("\n".join("|".join(map(str, r)) for r in sqlite3.connect(sys.argv[1]).execute(sys.argv[2])))' "$@"; }
	"$FERRY" run all -F openvino-pytorch -o all.db -j 2 -q >/dev/null 2>&1 || true
	expect_exit 0 "run openvino-pytorch on the inductor wrap" -- "$FERRY" run lazy -F openvino-pytorch -o lazy.db -j 2 -q
	q="SELECT id, outcome FROM results ORDER BY id"
	check "the same outcomes as on the wrap of every format" -- [ "$(sql all.db "$q")" = "$(sql lazy.db "$q")" -a -n "$(sql lazy.db "$q")" ]
fi

if [ "$keras" -eq 1 ]; then
	"$FERRY" wrap "$data/keras.jsonl" -o kall -j 2 -q >/dev/null 2>&1
	expect_exit 0 "wrap the Keras sample for openvino-tf" -- "$FERRY" wrap "$data/keras.jsonl" -o ksm -F openvino-tf -j 2 -q
	check "saved_model/ is made, model.tflite is not" -- [ "$(count -d 'ksm/tests/*/*/saved_model')" -ge 1 -a "$(count 'ksm/tests/*/*/model.tflite')" -eq 0 ]
	s=$(same kall ksm)
	contains "the same tests as every format's ($s)" "$s" "0 differences"
	cat > tflite.py <<'PY'
import json, os, sys
from ferry.templates import keras as k
for d in sys.argv[1:]:
    try:
        k.serialized(d, "tflite")
    except k.NotSerialized:
        pass
    print(json.load(open(os.path.join(d, "meta.json"))).get("tflite"))
PY
	dirs=$(sed -n 's/.*"status":"ok".*"dir":"\([^"]*\)".*/\1/p' ksm/wrapped.jsonl | sort)
	got=$(cd ksm && PYTHONPATH=$top_builddir/python "$py" ../tflite.py $dirs 2>/dev/null)
	want=$(cd kall && for x in $dirs; do "$py" -c "import json, sys; print(json.load(open(sys.argv[1]))['tflite'])" "$x/meta.json"; done)
	check "model.tflite made on demand where a wrap of every format made it ($got)" -- [ "$got" = "$want" ]
	check "at least one was made" -- [ "$(count 'ksm/tests/*/*/model.tflite')" -ge 1 ]
fi
finish
