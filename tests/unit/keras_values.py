"""Unit tests of the Keras value encoding (extract/values.py with extract/instrument_keras.py's
encoders), its decoding by templates/template_keras.py, and the instrumentation's per-object
constructor capture. Prints TAP; run by tests/unit/test-keras-values.sh."""

import json
import os
import warnings

warnings.simplefilter("ignore")

from ferry.extract import tfload  # noqa: E402

tfload.load()  # TensorFlow as ferry imports it, before keras

import keras  # noqa: E402
import numpy as np  # noqa: E402
from tap import done, is_, ok  # noqa: E402

from ferry.extract import instrument_keras  # noqa: E402
from ferry.extract import values as ferry_values  # noqa: E402
from ferry.templates import keras as template_keras  # noqa: E402

enc = ferry_values.encode


def dec(v):
    return template_keras._decode(v, 1, [0])


def roundtrip_json(v):
    return json.loads(json.dumps(v, allow_nan=False))


# --- tensors: None dimensions, values ------------------------------------------------------------------

symbolic = keras.Input(shape=(None, 8), dtype="float32")
is_(enc(symbolic), {"tensor": {"dtype": "float32", "shape": [None, None, 8]}},
    "a symbolic tensor keeps its None dimensions and no values")
eager = keras.ops.convert_to_tensor(np.array([[1, 2], [3, 4]], dtype="int32"))
is_(enc(eager), {"tensor": {"dtype": "int32", "shape": [2, 2], "values": [1, 2, 3, 4]}},
    "a small integer tensor keeps its values")
big = keras.ops.convert_to_tensor(np.linspace(-1.5, 2.5, 4 * 8 * 8 * 3, dtype="float32").reshape(4, 8, 8, 3))
t = enc(big)["tensor"]
ok("values" not in t and t["range"] == [-2.0, 3.0] and t["shape"] == [4, 8, 8, 3],
   "a large float tensor keeps only its range")
is_(enc(keras.Variable(np.zeros((2,), "float32")))["tensor"]["shape"], [2], "a Keras variable is a tensor")
is_(template_keras._concrete([None, None, 8]), [2, 8, 8],
    "the template resolves an unknown batch to 2 and other unknown dimensions to 8")

# --- initializers, regularizers, constraints, activations ---------------------------------------------

init = enc(keras.initializers.RandomNormal(mean=0.5, stddev=0.25, seed=3))
is_(init, {"dict": {"__object__": {"callable": "keras.initializers.RandomNormal"},
                    "config": {"dict": {"mean": {"float": 0.5}, "stddev": {"float": 0.25}, "seed": {"int": 3}}}}},
    "an initializer is an object value: its public class and its configuration")
rebuilt = dec(roundtrip_json(init))
ok(isinstance(rebuilt, keras.initializers.RandomNormal) and rebuilt.mean == 0.5 and rebuilt.seed == 3,
   "... which the template rebuilds with from_config")
reg = enc(keras.regularizers.L1L2(l1=0.01, l2=0.02))
is_(reg["dict"]["__object__"], {"callable": "keras.regularizers.L1L2"}, "a regularizer is an object value")
ok(abs(dec(reg).l2 - 0.02) < 1e-9, "... rebuilt with its l2")
con = enc(keras.constraints.MaxNorm(max_value=2))
is_(con["dict"]["__object__"], {"callable": "keras.constraints.MaxNorm"}, "a constraint is an object value")
is_(enc(keras.activations.relu), {"callable": "keras.activations.relu"}, "an activation function is a callable")
ok("opaque" in enc(lambda v: v), "a lambda is opaque (it cannot be migrated)")
is_(enc(keras.DTypePolicy("mixed_float16")), {"str": "mixed_float16"}, "a plain dtype policy is its name")

# a record's class name is looked up, never imported, and must be a class with from_config
try:
    dec({"dict": {"__object__": {"callable": "os.system"}, "config": {"dict": {}}}})
    ok(False, "a callable that is not a configurable class is refused")
except (ferry_values.Unmigratable, LookupError):
    ok(True, "a callable that is not a configurable class is refused")

# --- layer configurations: defaults, nesting -------------------------------------------------------------

records = []
with instrument_keras.Recorder(records.append) as recorder:
    recorder.source = {"suite": "unit"}
    with recorder.recording():
        small, big = keras.layers.Dense(2), keras.layers.Dense(6, activation="relu")
        big(np.ones((1, 3), "float32"))
        small(np.ones((1, 3), "float32"))
        bi = keras.layers.Bidirectional(keras.layers.LSTM(3, go_backwards=False, dropout=0.5),
                                        merge_mode="sum")
        bi(np.ones((2, 4, 5), "float32"))
        keras.layers.Conv2DTranspose(4, 3, strides=2, output_padding=1,
                                     kernel_regularizer=keras.regularizers.L2(0.1))(np.ones((1, 5, 5, 3), "float32"))
        keras.ops.matmul(np.ones((2, 3), "float32"), np.ones((3, 4), "float32"))
        keras.ops.ones((2, 2))

ops = [r["op"] for r in records]
is_(ops, ["keras.layers.Dense", "keras.layers.Dense", "keras.layers.Bidirectional", "keras.layers.Conv2DTranspose",
          "keras.ops.matmul"], "outermost layer calls and the op on arrays are recorded, nothing inside them")
is_([r["params"]["units"] for r in records[:2]], [{"int": 6}, {"int": 2}],
    "two live Dense objects: each call has its own object's configuration")
dense = records[1]["params"]
ok(dense["use_bias"] == {"bool": True} and "kernel_initializer" in dense and "name" not in dense,
   "get_config fills the defaults; the layer's name is not part of the usage")
nested = records[2]["params"]["layer"]["dict"]
is_(nested["__object__"], {"callable": "keras.layers.LSTM"}, "a nested layer is an object value")
is_(nested["config"]["dict"]["dropout"], {"float": 0.5}, "... with its own configuration")
ok("name" not in nested["config"]["dict"], "... without its name")
conv = records[3]["params"]
is_(conv["output_padding"], {"tuple": [{"int": 1}, {"int": 1}]}, "Conv2DTranspose keeps output_padding")
is_(conv["kernel_regularizer"]["dict"]["__object__"], {"callable": "keras.regularizers.L2"},
    "a regularizer in a configuration is an object value")
is_(records[4]["kind"], "op", "keras.ops calls are instances of kind op")

# the template rebuilds the same layers from the records
for r in records[:4]:
    plan = template_keras._Plan(roundtrip_json(r))
    layer = plan.make()()
    want = {k: v for k, v in r["params"].items()}
    got = {k: v for k, v in instrument_keras.Recorder(None)._layer_params(layer).items()}
    is_(got, want, f"{r['op']} rebuilt from its record has the same configuration")
model = template_keras._Plan(roundtrip_json(records[3])).model()
is_([tuple(t.shape) for t in model.outputs], [(1, 12, 12, 4)], "the single-layer model has the call's output shape")

# --- the allow-list: names resolve by lookup only, to Keras's public layers, ops and objects


def refused(fn, name):
    """ok when fn() raises Unmigratable or LookupError (the allow-list said no), not ok otherwise."""
    try:
        fn()
        ok(False, name)
    except (ferry_values.Unmigratable, LookupError):
        ok(True, name)


for name in ("keras.os.system", "keras.layers.os.system", "keras.ops.numpy.os.system", "keras.layers.Lambda",
             "keras.layers.TFSMLayer", "keras.layers.TorchModuleWrapper", "keras.layers.deserialize",
             "keras.initializers.get", "keras.saving.load_model", "keras.Model", "os.system", "builtins.exec",
             "subprocess.run", "keras.src.saving.serialization_lib.importlib.import_module"):
    refused(lambda name=name: template_keras.ferry_resolve(name), f"ferry_resolve refuses {name}")
    refused(lambda name=name: ferry_values.resolve_callable(name), f"resolve_callable refuses {name}")
for name, want in (("keras.layers.Dense", keras.layers.Dense), ("keras.ops.matmul", keras.ops.matmul),
                   ("keras.initializers.GlorotUniform", keras.initializers.GlorotUniform),
                   ("keras.regularizers.L2", keras.regularizers.L2), ("keras.activations.relu", keras.activations.relu),
                   ("keras.ops.image.resize", keras.ops.image.resize), ("keras.src.ops.numpy.sin", keras.ops.sin)):
    ok(template_keras.ferry_resolve(name) is want, f"ferry_resolve finds {name}")
table = template_keras.ferry_operators()
is_([n for n, v in table.items() if v is not Ellipsis and str(getattr(v, "__module__", "")).split(".")[0] != "keras"],
    [], "every object in the allow-list is Keras's own")
init = dec({"dict": {"__object__": {"callable": "keras.initializers.GlorotUniform"}, "config": {"dict": {"seed": {"int": 3}}}}})
ok(isinstance(init, keras.initializers.GlorotUniform) and init.seed == 3, "an initializer is rebuilt from its configuration")
refused(lambda: dec({"dict": {"units": {"int": 2}, "kernel": {"dict": {"class_name": {"str": "system"},
                                                                     "module": {"str": "os"}, "config": {"dict": {}}}}}}),
        "a configuration Keras would deserialize by itself is refused")
for bad in ({"op": "keras.layers.os.system", "kind": "layer"}, {"op": "keras.ops.matmul", "kind": "layer"},
            {"op": "keras.layers.Dense", "kind": "op"}, {"op": "keras.ops.switch", "kind": "op",
                                                        "inputs": [{"int": 0}, {"list": [{"callable": "os.system"}]}]}):
    r = dict({"library": "keras", "inputs": [{"str": "true"}]}, **bad)
    refused(lambda r=r: template_keras._Plan(r), f"a record of {bad['op']} as a {bad['kind']} is refused")


# --- generated Python: the record's text is data, in comments, strings and parameter names alike
def no_code_from(source, name):
    """ok when the generated source compiles and calls no __import__: the payloads below do, if
    any of their text became code."""
    import ast
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError) as e:  # ValueError: a null byte
        ok(False, f"{name} # {e}")
        return
    ok(not [n for n in ast.walk(tree) if isinstance(n, ast.Name) and n.id == "__import__"], name)



from ferry.oracle import reproducer as ferry_reproducer  # noqa: E402

evil = "x\'\'\'\"\"\"\\\n__import__('os').system('touch /nonexistent/ferry')\r#\u2028\x00"
hostile = {"id": "0123456789abcdef0123456789abcdef", "library": "keras", "op": "keras.layers.Dense", "kind": "layer",
           "params": {"units": {"int": 2}, "name": {"str": evil},
                      "units=2)\n__import__('os').system('touch /nonexistent/ferry')\nx=dict(a": {"int": 1}},
           "inputs": [{"tensor": {"dtype": "string", "shape": [1], "values": [evil]}}],
           "source": {"suite": evil, "test": evil}}
no_code_from(ferry_reproducer.reproducer("keras", json.dumps(hostile), os.devnull, "tflite"),
             "a reproducer holds a record's names, strings, parameter names and test names as data")

done()
