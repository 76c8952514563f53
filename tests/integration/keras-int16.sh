#!/bin/sh
# A Keras layer given an int16 input keeps an int16 path end to end: the template builds it with
# the input's dtype policy (meta.json says so), the SavedModel's signature and the TFLite model take
# int16, and openvino-tf and tflite run it and agree with Keras. A layer Keras refuses to build with
# that policy is invalid with Keras's whole message; unknown dimensions are resolved together.
. "${top_srcdir:-$(dirname "$0")/../..}/tests/setup"
need_python_module keras
need_python_module tensorflow
py=${FERRY_PYTHON:-$top_srcdir/.venv/bin/python}
sql() { "$py" -c 'import sqlite3, sys; print("\n".join("|".join(map(str, r)) for r in sqlite3.connect(sys.argv[1]).execute(sys.argv[2])))' "$@"; }
has() { "$py" -c "import $1" 2>/dev/null; }

fes="tflite"
if has openvino; then fes="$fes openvino-tf"; fi
plan $((8 + $(echo $fes | wc -w)))

# Keras's own docstring example of Cropping1D (an integer input, a layer of the default float32
# policy), with an int16 input; a Dense said to give int16 (Keras refuses an int16 Dense); an Add
# of (None, 3) and (2, None).
crop='{"library":"keras","kind":"layer","op":"keras.layers.Cropping1D","context":{},"params":{"cropping":{"tuple":[{"int":1},{"int":1}]},"dtype":{"str":"float32"},"trainable":{"bool":true}},"inputs":[{"tensor":{"dtype":"int16","shape":[2,4,3],"values":[0,1,2,3,4,5,6,7,8,9,10,11,-12,-13,-14,-15,-16,-17,-18,-19,-20,-21,-22,-23]}}],"outputs":[{"tensor":{"dtype":"int16","shape":[2,2,3]}}]}'
dense='{"library":"keras","kind":"layer","op":"keras.layers.Dense","context":{},"params":{"units":{"int":2},"dtype":{"str":"float32"}},"inputs":[{"tensor":{"dtype":"int16","shape":[2,3]}}],"outputs":[{"tensor":{"dtype":"int16","shape":[2,2]}}]}'
add='{"library":"keras","kind":"layer","op":"keras.layers.Add","context":{},"params":{"dtype":{"str":"float32"},"trainable":{"bool":true}},"inputs":[{"list":[{"tensor":{"dtype":"float32","shape":[null,3]}},{"tensor":{"dtype":"float32","shape":[2,null]}}]}],"outputs":[{"tensor":{"dtype":"float32","shape":[2,3]}}]}'
printf '%s\n%s\n%s\n' "$crop" "$dense" "$add" > corpus.jsonl

expect_exit 0 "wrap" -- "$FERRY" wrap corpus.jsonl -o wrapped -q
d=$(dirname "$(grep -l '"keras.layers.Cropping1D"' wrapped/tests/*/*/meta.json)")
check "meta.json says the layer was built with the int16 policy, not the recorded float32" -- \
	"$py" -c 'import json, sys; m = json.load(open(sys.argv[1])); sys.exit(m.get("dtype_policy") != {"recorded": "float32", "built": "int16"})' "$d/meta.json"
sig=$("$py" - "$d/saved_model" <<'PY' 2>/dev/null
import os, sys
os.environ["TF_CPP_MIN_LOG_LEVEL"] = "3"
import tensorflow as tf
f = tf.saved_model.load(sys.argv[1]).signatures["serving_default"]
print(f.structured_input_signature[1]["in_0"].dtype.name, f.structured_outputs["output_0"].dtype.name)
PY
)
check "the SavedModel's signature takes and gives int16 (got '$sig')" -- [ "$sig" = "int16 int16" ]
tfl=$("$py" - "$d/model.tflite" <<'PY' 2>/dev/null
import os, sys, warnings
os.environ["TF_CPP_MIN_LOG_LEVEL"] = "3"
warnings.simplefilter("ignore")
import tensorflow as tf
i = tf.lite.Interpreter(model_path=sys.argv[1])
print(i.get_input_details()[0]["dtype"].__name__, i.get_output_details()[0]["dtype"].__name__)
PY
)
check "the TFLite model's input and output tensors are int16 (got '$tfl')" -- [ "$tfl" = "int16 int16" ]
reason=$(grep Dense wrapped/wrapped.jsonl)
contains "a Dense Keras refuses to build with int16 is invalid" "$reason" '"status":"invalid"'
contains "... with Keras's whole message" "$reason" "Accepted dtypes are"
a=$(dirname "$(grep -l '"keras.layers.Add"' wrapped/tests/*/*/meta.json)")
check "(None, 3) and (2, None) are resolved together as (2, 3) and (2, 3)" -- \
	"$py" -c 'import json, sys; m = json.load(open(sys.argv[1])); sys.exit(m.get("filled_shapes") != {"in_0": [2, 3], "in_1": [2, 3]})' "$a/meta.json"

list=$(echo $fes | tr ' ' ',')
expect_exit 0 "run through $list" -- "$FERRY" run wrapped --frontend "$list" -o results.db -q
for fe in $fes; do
	got=$(sql results.db "SELECT r.outcome FROM results r JOIN instances i USING(id) WHERE r.frontend = '$fe' AND i.op = 'keras.layers.Cropping1D'")
	check "$fe runs the int16 Cropping1D and agrees with Keras (got '$got')" -- [ "$got" = "pass" ]
done
finish
