#!/bin/sh
# Keras 2 (tf_keras) as a source library of its own, end to end on a few layers: harvest their
# docstring examples (tf.keras in them is Keras 2), wrap each as a Keras 2 model, run it through the
# frontends that take a Keras 2 model object the ways users hand it over (to OpenVINO's convert_model
# as the object and as a SavedModel, to the TFLite converter then TFLite or TVM, to XLA), and check
# the outcomes. Keras 2 came in as new files only (its registry entry: templates/tf_keras.py).
. "${top_srcdir:-$(dirname "$0")/../..}/tests/setup"
need_python_module tf_keras
need_python_module tensorflow
py=${FERRY_PYTHON:-$top_srcdir/.venv/bin/python}
sql() { "$py" -c 'import sqlite3, sys; print("\n".join("|".join(map(str, r)) for r in sqlite3.connect(sys.argv[1]).execute(sys.argv[2])))' "$@"; }
has() { "$py" -c "import $1" 2>/dev/null; }

fes="tflite-tf-keras xla-tf-keras"
if has openvino; then fes="openvino-tf-keras openvino-tf-keras-savedmodel $fes"; fi
if has tvm && has tflite; then fes="$fes tvm-tflite-tf-keras"; fi
# the frontends added after the first two, each with a reproducer run below
new=$(echo $fes | tr ' ' '\n' | grep -v -x -e openvino-tf-keras -e tflite-tf-keras)
# MultiHeadAttention: one example returns the attention scores too, a second output
ops="Dense Conv2D ReLU Concatenate MultiHeadAttention"
nfe=$(echo $fes | wc -w)
nnew=$(echo $new | wc -w)
plan $((23 + 6 * nfe + 2 * nnew + $(echo " $fes " | grep -c ' tvm-tflite-tf-keras ')))

filters=
for op in $ops; do filters="$filters -f tf_keras.layers.$op"; done
# shellcheck disable=SC2086
expect_exit 0 "harvest the docstring examples of $ops" -- "$FERRY" harvest tf_keras -q -s docstrings $filters \
	-o corpus.jsonl
contains "the summary has the docstrings suite" "$out" "docstrings "
for op in $ops; do
	check "$op has instances" -- grep -q "\"library\":\"tf_keras\".*\"op\":\"tf_keras.layers.$op\"" corpus.jsonl
done
check "a Python list given to ReLU is the tensor TensorFlow makes of it" -- \
	grep -q '"inputs":\[{"tensor":{"dtype":"float32","shape":\[4\],"values":\[-3,-1,0,2\]}}\].*"op":"tf_keras.layers.ReLU"' corpus.jsonl
check "a symbolic call (a Sequential model being built) keeps its None dimension" -- \
	grep -q '"inputs":\[{"tensor":{"dtype":"float32","shape":\[null,16\]}}\].*"op":"tf_keras.layers.Dense"' corpus.jsonl
n=$(wc -l < corpus.jsonl)

expect_exit 0 "wrap" -- "$FERRY" wrap corpus.jsonl -o wrapped -q -j 2
valid=$(grep -c '"status":"ok"' wrapped/wrapped.jsonl)
check "every instance is valid in Keras 2 ($valid of $n)" -- [ "$valid" -eq "$n" ]
d=$(ls -d wrapped/tests/*/* | head -1)
check "a test directory holds the weights, the record and meta.json" -- \
	test -f "$d/weights.h5" -a -f "$d/record.json" -a -f "$d/meta.json"

list=$(echo $fes | tr ' ' ',')
expect_exit 0 "run through $list" -- "$FERRY" run wrapped --frontend "$list" -o results.db -j 2 -q
for fe in $fes; do
	got=$(sql results.db "SELECT count(*) FROM results WHERE frontend = '$fe'")
	check "$fe: a result for every test ($got of $valid)" -- [ "$got" -eq "$valid" ]
	# TVM is handed the TFLite converter's flatbuffer: a model the converter cannot convert (one of
	# MultiHeadAttention's, "'tf.Transpose' op is neither a custom op nor a flex op") never reaches
	# TVM, and is ferry's failure to make its test, said so; nothing else is.
	errors=$(sql results.db "SELECT count(*) FROM results WHERE frontend = '$fe' AND outcome = 'error'
		AND message NOT LIKE 'ferry: the TFLite converter could not make the flatbuffer TVM is handed: %'")
	check "$fe: ferry itself failed on no test but where the TFLite converter failed ($errors)" -- [ "$errors" -eq 0 ]
	for op in Dense Conv2D ReLU Concatenate; do
		outcomes=$(sql results.db "SELECT DISTINCT r.outcome FROM results r JOIN instances i USING(id) WHERE r.frontend = '$fe' AND i.op = 'tf_keras.layers.$op'")
		check "$fe: $op passes (got '$outcomes')" -- [ "$outcomes" = "pass" ]
	done
done
# The TFLite graph of MultiHeadAttention with its scores lists its two outputs the other way round
# from the model; TVM's outputs are put in the model's order through the converter's signature names.
if echo " $fes " | grep -q ' tvm-tflite-tf-keras '; then
	two=$(sql results.db "SELECT count(*) FROM results r JOIN instances i USING(id) WHERE r.frontend = 'tvm-tflite-tf-keras' AND i.op = 'tf_keras.layers.MultiHeadAttention' AND r.outcome = 'pass' AND i.record LIKE '%return_attention_scores%true%'")
	check "tvm-tflite-tf-keras: MultiHeadAttention with its scores, two outputs, passes ($two)" -- [ "$two" -eq 1 ]
fi

# A reproducer carries the runtime its template declares (RUNTIME: runtime_tf_keras.py) and runs
# with plain python; every test passed, so it shows no bug.
dense=$(grep -l '"op":"tf_keras.layers.Dense"' wrapped/tests/*/*/record.json | head -1)
PYTHONPATH=$top_builddir/python "$py" -c 'import sys
from ferry.oracle import reproducer
d = sys.argv[1].rsplit("/", 1)[0]
sys.stdout.write(reproducer.reproducer("tf_keras", open(sys.argv[1]).read(), d, sys.argv[2]))' \
	"$dense" tflite-tf-keras >repro.py
expect_exit 0 "a reproducer of a Dense test runs with plain python, ferry out of reach" -- "$py" -I repro.py
contains "... and says the frontend agrees with Keras 2" "$out" "no bug: tflite-tf-keras agrees with Keras 2"
# The same for the frontends that came later: each carries its own frontend module and those it takes
# names from (tvm-tflite-tf-keras: the TFLite converter's and TVM's Relax TFLite frontend's).
for fe in $new; do
	PYTHONPATH=$top_builddir/python "$py" -c 'import sys
from ferry.oracle import reproducer
d = sys.argv[1].rsplit("/", 1)[0]
sys.stdout.write(reproducer.reproducer("tf_keras", open(sys.argv[1]).read(), d, sys.argv[2]))' \
		"$dense" "$fe" >repro-$fe.py
	expect_exit 0 "a reproducer of the Dense test on $fe runs with plain python" -- "$py" -I repro-$fe.py
	contains "... and says $fe agrees with Keras 2" "$out" "no bug: $fe agrees with Keras 2"
done

expect_exit 0 "--version names Keras 2 as a library" -- "$FERRY" --version
contains "... with its release" "$out" "library tf_keras: tf_keras 2."
# ferry go with the default frontends of the library: every adapter that declares LIBRARY tf_keras;
# tf-keras's own layer tests are left out (an archive that cannot be had: nothing reaches the network)
expect_exit 0 "ferry go tf_keras, one layer, end to end" -- env FERRY_CACHE="$work/cache" \
	FERRY_TF_KERAS_ARCHIVE=http://127.0.0.1:9/tf-keras.tar.gz "$FERRY" go tf_keras --op ReLU -o proj -j 2
contains "... harvested, wrapped and run" "$out" "run tflite-tf-keras:"
check "... with a report and a bug list" -- test -s proj/tf_keras/report.txt -a -f proj/tf_keras/bugs.txt

# The frontends that take a Keras 2 model object run with tf.keras as Keras 2 (TF_USE_LEGACY_KERAS=1),
# as its users do: OpenVINO before 2023.1 asks a model of another class for input shapes.
got=$(PYTHONPATH=$top_builddir/python "$py" -c 'from ferry.oracle.adapters import tflite_tf_keras
import tensorflow as tf, tf_keras
print(tf.keras.Model is tf_keras.Model)' 2>/dev/null)
check "an adapter of a Keras 2 model object sees tf.keras as Keras 2 (got $got)" -- [ "$got" = True ]
# Rebuilding the model is Keras 2's work: where the adapter's Keras 2 cannot (another release's, whose
# layers lack a parameter the record names), the failure is ferry's, never the frontend's.
cp -r wrapped bad && b=bad/${d#wrapped/}
"$py" -c 'import json, sys
r = json.load(open(sys.argv[1])); r["params"]["no_such_parameter"] = {"bool": True}
json.dump(r, open(sys.argv[1], "w"))' "$b/record.json"
"$FERRY" run --one "$b" --frontend tflite-tf-keras >one.txt 2>&1 || true
got=$(sed -n 's/^outcome *//p' one.txt | cut -d' ' -f1)
check "a test whose model Keras 2 cannot rebuild is ferry's error, not the frontend's crash (got $got)" -- \
	[ "$got" = error ]
contains "... saying so" "$(cat one.txt)" "ferry: Keras 2 2."
finish
