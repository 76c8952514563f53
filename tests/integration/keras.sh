#!/bin/sh
# The Keras path end to end on a small slice: harvest the docstring examples of one layer and a small
# pytest file of our own (two of its tests fail on purpose), wrap, run through every installed Keras
# frontend, and check the outcomes, the store, a reproducer that runs without ferry and an export.
. "${top_srcdir:-$(dirname "$0")/../..}/tests/setup"
need_python_module keras
need_python_module tensorflow
need_python_module pytest
py=${FERRY_PYTHON:-$top_srcdir/.venv/bin/python}
sql() { "$py" -c 'import sqlite3, sys; print("\n".join("|".join(map(str, r)) for r in sqlite3.connect(sys.argv[1]).execute(sys.argv[2])))' "$@"; }
has() { "$py" -c "import $1" 2>/dev/null; }

fes="tflite xla-tf"
if has openvino; then fes="$fes openvino-tf"; fi
if has tvm && has tflite; then fes="$fes tvm-tflite"; fi
nfe=$(echo $fes | wc -w)
plan $((21 + 3 * nfe))

expect_exit 0 "harvest one layer's docstring examples and a pytest file" -- "$FERRY" harvest keras -q \
	-s docstrings -f keras.layers.ZeroPadding2D --pytest "$top_srcdir/tests/data/keras/test_small.py" \
	-f 'test_small.py::*' -o corpus.jsonl
contains "the summary has a row per suite: docstrings" "$out" "docstrings "
contains "... and pytest" "$out" "pytest "
contains "the failing pytest tests are counted and the harvest went on" "$out" "pytest tests failed or errored 2"
n=$(wc -l < corpus.jsonl)
check "at least 10 instances (got $n)" -- [ "$n" -ge 10 ]
check "Conv2DTranspose keeps its output_padding" -- \
	grep -q '"op":"keras.layers.Conv2DTranspose".*"output_padding":{"tuple":\[{"int":1},{"int":1}\]}' corpus.jsonl
check "LSTM keeps go_backwards and its regularizer as a typed object" -- \
	grep -q '"go_backwards":{"bool":true}.*"kernel_regularizer":{"dict":{"__object__":{"callable":"keras.regularizers.L2"}' corpus.jsonl
units=$(grep '"test":"test_small.py::test_two_dense_objects"' corpus.jsonl | grep -o '"units":{"int":[0-9]*}' | sort | tr -d '\n')
check "two live Dense objects, each call with its own configuration ($units)" -- [ "$units" = '"units":{"int":2}"units":{"int":6}' ]
check "a symbolic call keeps its None dimensions" -- \
	grep -q '"inputs":\[{"tensor":{"dtype":"float32","shape":\[null,null,8\]}}\].*"op":"keras.layers.GlobalAveragePooling1D"' corpus.jsonl
check "keras.ops calls are instances of kind op" -- grep -q '"kind":"op","library":"keras".*"op":"keras.ops.matmul"' corpus.jsonl
check "the docstring examples give ZeroPadding2D instances" -- \
	grep -q '"op":"keras.layers.ZeroPadding2D".*"suite":"docstrings"' corpus.jsonl
ids=$(cut -c1-45 corpus.jsonl | sort | uniq -d | wc -l)
check "every id is unique" -- [ "$ids" -eq 0 ]

expect_exit 0 "wrap" -- "$FERRY" wrap corpus.jsonl -o wrapped -q -j 2
valid=$(grep -c '"status":"ok"' wrapped/wrapped.jsonl)
check "every instance is valid in Keras ($valid of $n)" -- [ "$valid" -eq "$n" ]
d=$(ls -d wrapped/tests/*/* | head -1)
check "a test directory holds the SavedModel, the record and meta.json" -- \
	test -f "$d/saved_model/saved_model.pb" -a -f "$d/record.json" -a -f "$d/meta.json"
tfl=$(ls wrapped/tests/*/*/model.tflite | wc -l)
check "the TFLite converter took (nearly) every model ($tfl of $valid)" -- [ "$tfl" -ge $((valid - 2)) ]

list=$(echo $fes | tr ' ' ',')
expect_exit 0 "run through $list" -- "$FERRY" run wrapped --frontend "$list" -o results.db -j 2 -q
# The only errors: models the TFLite converter could not make for tvm-tflite (ferry's, not TVM's,
# stage wrap: not built in that format).
errors=$(sql results.db "SELECT count(*) FROM results WHERE outcome = 'error' AND stage IS NOT 'wrap'")
check "ferry itself failed on no test ($errors)" -- [ "$errors" -eq 0 ]
for fe in $fes; do
	got=$(sql results.db "SELECT count(*) FROM results WHERE frontend = '$fe'")
	check "$fe: a result for every test ($got of $valid)" -- [ "$got" -eq "$valid" ]
	# run_layer_test's Dense is float64, which TFLite's builtin MatMul does not take: unsupported (for
	# tvm-tflite, ferry's error: the converter made no model for TVM to take)
	dense=$(sql results.db "SELECT DISTINCT r.outcome FROM results r JOIN instances i USING(id) WHERE r.frontend = '$fe' AND i.op = 'keras.layers.Dense' AND r.outcome NOT IN ('unsupported', 'error')")
	check "$fe: Dense passes where the frontend supports it (got '$dense')" -- [ "$dense" = "pass" ]
	crop=$(sql results.db "SELECT DISTINCT r.outcome FROM results r JOIN instances i USING(id) WHERE r.frontend = '$fe' AND i.op = 'keras.layers.Cropping2D'")
	check "$fe: Cropping2D with channels_last passes (got '$crop')" -- [ "$crop" = "pass" ]
done

expect_exit 0 "report with reproducers" -- "$FERRY" report results.db -o repro
repro=$(ls repro/*/*.py 2>/dev/null | head -1)
if [ -n "$repro" ]; then
	set +e; "$py" "$repro" >/dev/null 2>&1; rc=$?; set -e
	check "a reproducer run with plain python shows its failure ($repro exit $rc)" -- [ "$rc" -eq 1 ]
	bug=$("$FERRY" bugs results.db 2>/dev/null | awk 'length($1) == 12 && $1 ~ /^[0-9a-f]+$/ { print $1; exit }')
	if [ -n "$bug" ] && "$FERRY" show results.db "$bug" -o shown >/dev/null 2>&1; then
		check "ferry show exports the bug's SavedModel" -- ls shown/test_*/saved_model/saved_model.pb
	else
		ok 1 "ferry show exports the bug's SavedModel (bug '$bug')"
	fi
else
	ok 0 "no failure needs a reproducer # SKIP every frontend passed every test"
	ok 0 "no bug to export # SKIP"
fi
finish
