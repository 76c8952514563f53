"""Unit tests of the Keras template's model files at wrap (templates/keras.py). Its TFLite
conversion (_convert_tflite, which reuses the SavedModel that wrap loaded to check it) must give what
ferry_tflite gives (the tflite frontend's conversion, and a reproducer's), the same flatbuffer byte for
byte, and the same error where the converter rejects the model. Its export (_export, which traces
the model once where Keras's model.export traces it three times) must still save what the model
needs, a lookup table included, and leave Keras as it was. Prints TAP; run by tests/unit/test-keras-export.sh."""

import functools
import json
import os
import tempfile
import warnings

import numpy as np

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
warnings.simplefilter("ignore")

from tap import done, is_, ok  # noqa: E402

from ferry.templates import keras as template  # noqa: E402  (imports TensorFlow as ferry must)
from ferry.templates.runtime_keras import ferry_tflite  # noqa: E402

tf, TFLayer = template.tf, template.TFLayer


def tensor(dtype, shape):
    return {"tensor": {"dtype": dtype, "shape": shape}}


def record(op, inputs, kind="op", params=None):
    return {"library": "keras", "op": op, "kind": kind, "context": {}, "params": params or {},
            "inputs": inputs, "outputs": []}


def converted(path):
    """ferry_tflite's flatbuffer, or the error it raised as wrap records it."""
    try:
        return ferry_tflite(path)
    except Exception as e:
        return template._whole(e)


cases = [
    ("keras.ops.add of two float32 tensors", record("keras.ops.add", [tensor("float32", [2, 3])] * 2), True),
    ("a Dense layer (weights in the SavedModel's variables)",
     record("keras.layers.Dense", [tensor("float32", [2, 5])], kind="layer", params={"units": {"int": 4}}), True),
    ("keras.ops.matmul of float64, which TFLite's builtin operators do not take",
     record("keras.ops.matmul", [tensor("float64", [2, 3]), tensor("float64", [3, 4])]), False),
    ("an IntegerLookup layer (its table a resource the SavedModel must hold)",
     record("keras.layers.IntegerLookup", [tensor("int64", [2, 3])], kind="layer",
            params={"vocabulary": {"list": [{"int": 1}, {"int": 2}, {"int": 3}]}}), None),
]
with tempfile.TemporaryDirectory() as top:
    for k, (what, rec, convertible) in enumerate(cases):
        d = os.path.join(top, str(k))
        result = template.wrap(json.dumps(rec), d)
        if not is_(result["status"], "ok", f"{what}: wrapped"):
            continue
        with open(os.path.join(d, "meta.json")) as f:
            meta = json.load(f)
        saved_model = os.path.join(d, meta["saved_model"])
        want = converted(saved_model)
        if convertible:
            ok(isinstance(want, bytes), f"{what}: ferry_tflite converts it")
            with open(os.path.join(d, "model.tflite"), "rb") as f:
                ok(f.read() == want, f"{what}: wrap's model.tflite is ferry_tflite's, byte for byte")
            ok(template._convert_tflite(saved_model) == want,
               f"{what}: so is a conversion that loads the SavedModel itself (a format made at run time)")
        elif convertible is None:
            with open(os.path.join(d, "input_0.npy"), "rb") as f:
                x = np.load(f)
            got = tf.saved_model.load(saved_model).serve([tf.constant(x)])
            ref = np.load(os.path.join(d, "ref_0.npy"))
            ok(np.array_equal(np.asarray(got[0] if isinstance(got, (list, tuple)) else got), ref),
               f"{what}: the SavedModel, loaded by TensorFlow, gives Keras's outputs")
        else:
            ok(isinstance(want, str) and "f64" in want, f"{what}: ferry_tflite rejects it")
            is_(meta.get("tflite"), None, f"{what}: wrap made no model.tflite")
            is_(meta.get("tflite_error"), want, f"{what}: and says why as ferry_tflite does")
ok(isinstance(TFLayer.__dict__["_default_save_signature"], property),
   "Keras's _default_save_signature is its property again after the exports")
ok(template.saved_model_export_archive._list_variables_used_by_fns.__name__ == "_list_variables_used_by_fns",
   "and Keras's listing of an endpoint's variables its own")


def traces(export):
    """How many times export(model, inputs, path) calls the Dense layer of a model: once a trace."""
    rec = record("keras.layers.Dense", [tensor("float32", [2, 5])], kind="layer", params={"units": {"int": 4}})
    _, inputs, model, _ = template._reference(rec)
    dense = type(model.layers[-1])
    calls, call = [], dense.call

    @functools.wraps(call)
    def counted(self, *args, **kwargs):
        calls.append(1)
        return call(self, *args, **kwargs)
    dense.call = counted
    try:
        with tempfile.TemporaryDirectory() as d:
            export(model, inputs, os.path.join(d, "saved_model"))
    finally:
        dense.call = call
        template.keras.utils.clear_session()
    return len(calls)


is_(traces(template.ferry_export), 3, "Keras's model.export traces the model three times")
is_(traces(template._export), 1, "the template's export traces it once")
done()
