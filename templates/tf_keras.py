"""ferry.templates.tf_keras: a Keras 2 (tf_keras) layer instance -> a single-layer functional model, its
inputs, the reference outputs of Keras 2, and the model's weights for the frontends.

Keras 2 is a source library of its own, beside Keras 3 (ferry/templates/keras.py): it is what
OpenVINO's layer tests, most production TensorFlow models and many bug reports build models with, and
its graphs differ from Keras 3's. The model is a tf_keras.Model with one tf_keras.Input per tensor of
the call (named in_0, in_1, ... in the order of the positional arguments, those inside lists too) and
the call's tensors as outputs. The layer is rebuilt from its Keras 2 configuration through the
allow-list of ferry/templates/runtime_tf_keras.py. A dimension the record leaves unknown (None: the
call was symbolic) is BATCH for the first dimension and UNKNOWN elsewhere; meta.json's
"filled_shapes" says which input shapes were so fixed.

wrap() writes a test directory:
    record.json     the instance
    weights.h5      the model's weights (Keras 2's HDF5 weights file, no configuration): an adapter
                    rebuilds the model from record.json (model()) and loads them, and hands the
                    Keras model object to its frontend as a user would (FORMAT h5); nothing in a test
                    directory names code that ferry loads
    input_K.npy     input in_K
    ref_K.npy       output K as Keras 2 computes it (the model called eagerly)
    meta.json       {"id", "op", "kind", "random", "inputs", "outputs", "h5"} in the form
                    ferry.oracle.driver reads
"""

import hashlib
import json
import os
import warnings

import numpy as np

from ferry.extract import tfload

tf = tfload.load()  # first: TensorFlow as ferry imports it, before tf_keras

import tf_keras  # noqa: E402

from ferry.extract import values as ferry_values  # noqa: E402
from ferry.templates import _files, _formats, environment  # noqa: E402
from ferry.templates.runtime_tf_keras import (  # noqa: E402
    FerrySlot,
    ferry_call,
    ferry_input,
    ferry_model,
)

# The library's declarations (ferry/templates/registry.py reads them without importing this module).
LIBRARY = "tf_keras"
DTYPES = ("float16", "float32", "float64", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32",
          "bool")
TOLERANCES = "tf_keras.txt"
VERSIONS = ("tf_keras", "tensorflow")
# tf.keras.layers.Dense where tf.keras is Keras 2 (TF_USE_LEGACY_KERAS=1) counts as tf_keras's
COUNT_ROOTS = ("tf_keras", "tensorflow.keras")
RUNTIME = "runtime_tf_keras"
EXPORT = "template"

ATOL = 1e-3
RTOL = 1e-3
BATCH = 2     # an unknown first dimension
UNKNOWN = 8   # any other unknown dimension
WEIGHTS = "weights.h5"


class NotSerialized(Exception):
    """The test directory has no weights file an adapter could load."""


def _seed(record):
    """The instance id as a number; records without an id hash their identity."""
    if "id" in record:
        return int(record["id"], 16)
    identity = {k: record.get(k) for k in ("library", "op", "kind", "context", "params", "inputs", "outputs")}
    text = json.dumps(identity, sort_keys=True, separators=(",", ":"))
    return int(hashlib.sha256(text.encode()).hexdigest()[:32], 16)


class _Plan:
    """What a record says about its model: the layer's class and configuration, the call's arguments
    with slots for the tensors, and the tensors' tagged values."""

    def __init__(self, record):
        if record.get("kind") != "layer":
            raise ValueError(f"a tf_keras record of kind {record.get('kind')!r}: only layers are wrapped")
        self.op = record["op"]
        self.seed = _seed(record)
        self.tensors = []
        self.config = {k: ferry_values.decode(v) for k, v in sorted(record.get("params", {}).items())}
        self.args = [self._lift(v) for v in record["inputs"]]
        kwargs = record.get("context", {}).get("kwargs", {"dict": {}})["dict"]
        self.kwargs = {k: self._lift(kwargs[k]) for k in sorted(kwargs)}
        self.specs = [([(BATCH if i == 0 else UNKNOWN) if d is None else d for i, d in enumerate(body["shape"])],
                       body["dtype"]) for body in self.tensors]

    def _lift(self, tagged):
        tag, body = next(iter(tagged.items()))
        if tag == "tensor":
            self.tensors.append(body)
            return FerrySlot(len(self.tensors) - 1)
        if tag in ("list", "tuple"):
            items = [self._lift(v) for v in body]
            return items if tag == "list" else tuple(items)
        return ferry_values.decode(tagged)

    def inputs(self):
        """The model's inputs: kept values exactly, generated ones for the rest."""
        out = []
        for k, (body, (shape, dtype)) in enumerate(zip(self.tensors, self.specs)):
            if "values" in body and None not in body["shape"]:
                out.append(ferry_values.tensor_array(body))
            else:
                out.append(ferry_input(self.seed, [k], dtype, shape, body.get("range")))
        return out

    def model(self):
        return ferry_model(self.seed, self.op, self.config, self.args, self.kwargs, self.specs)


def _reference(record):
    plan = _Plan(record)
    inputs = plan.inputs()
    model = plan.model()
    return plan, inputs, model, ferry_call(model, inputs)


def _whole(e):
    text = " ".join(str(e).split())[:8000]
    return f"{type(e).__name__}: {text}" if text else type(e).__name__


def _same(a, b):
    return len(a) == len(b) and all(x.dtype == y.dtype and x.shape == y.shape and np.array_equal(x, y, equal_nan=True)
                                    for x, y in zip(a, b))


def _save(outdir, prefix, name, k, array):
    array = np.asarray(array)
    entry = {"name": name, "kind": "tensor", "dtype": ferry_values.dtype_name(array.dtype),
             "files": [f"{prefix}_{k}.npy"]}
    with _files.create(os.path.join(outdir, f"{prefix}_{k}.npy")) as f:
        np.save(f, array, allow_pickle=False)
    return entry


def wrap(record_json, outdir):
    """Write the test directory of one instance. Returns {"status": "ok", "random", "ninputs",
    "noutputs"}, or {"status": "invalid", "reason"} when the instance cannot be built or Keras 2
    rejects it."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            record = json.loads(record_json)
            _formats.requested(record)  # one file serves every format: made whatever was asked
            plan, inputs, model, refs = _reference(record)
            random = any(not _same(refs, ferry_call(model, inputs)) for _ in range(2))
    except Exception as e:  # a bad record or a rejection by Keras 2: either way the instance is invalid
        if environment(e):
            raise
        return {"status": "invalid", "reason": _whole(e)}
    os.makedirs(outdir, exist_ok=True)
    meta = {"id": record.get("id"), "op": record["op"], "kind": record["kind"], "random": random,
            "inputs": [_save(outdir, "input", f"in_{k}", k, x) for k, x in enumerate(inputs)],
            "outputs": [_save(outdir, "ref", f"output_{k}", k, r) for k, r in enumerate(refs)]}
    filled = {f"in_{k}": shape for k, (body, (shape, _)) in enumerate(zip(plan.tensors, plan.specs))
              if None in body["shape"]}
    if filled:
        meta["filled_shapes"] = filled
    try:
        model.save_weights(os.path.join(outdir, WEIGHTS), save_format="h5")
        meta["h5"] = WEIGHTS
    except Exception as e:  # a layer whose weights HDF5 cannot hold
        if environment(e):
            raise
        meta["h5"], meta["h5_error"] = None, _whole(e)
    tf_keras.backend.clear_session()
    with _files.create(os.path.join(outdir, "record.json"), "w") as f:
        json.dump(record, f, separators=(",", ":"))
    with _files.create(os.path.join(outdir, "meta.json"), "w") as f:
        json.dump(meta, f, indent=1)
    return {"status": "ok", "random": random, "ninputs": len(inputs), "noutputs": len(refs)}


def validate(record_json):
    """Whether Keras 2 accepts a candidate record (ferry vary): wrap()'s model, inputs and reference
    run, writing nothing. {"status": "ok", "outputs": JSON text} or {"status": "invalid", "reason"}."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            _, _, _, refs = _reference(json.loads(record_json))
    except Exception as e:
        if environment(e):
            raise
        return {"status": "invalid", "reason": _whole(e)}
    finally:
        tf_keras.backend.clear_session()
    outputs = [ferry_values.tensor(r, keep=False) for r in refs]
    return {"status": "ok", "outputs": json.dumps(outputs, separators=(",", ":"))}


# --- what the adapters share ---------------------------------------------------------------------------

def model(testdir):
    """The test's Keras 2 model, as a user holds it: rebuilt from record.json as wrap() built it, with
    the weights wrap() saved (weights only: nothing in the test directory is code)."""
    with open(os.path.join(testdir, "meta.json")) as f:
        meta = json.load(f)
    if not meta.get("h5"):
        raise NotSerialized(f"ferry: Keras 2 could not save the weights: {meta.get('h5_error', 'unknown reason')}")
    with open(os.path.join(testdir, "record.json")) as f:
        record = json.load(f)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        built = _Plan(record).model()
        built.load_weights(os.path.join(testdir, WEIGHTS))
    return built


def ordered_inputs(inputs):
    """The driver's inputs (name in_K -> array) as a list in K order."""
    return [inputs[name] for name in sorted(inputs, key=lambda n: int(n.rsplit("_", 1)[1]))]
