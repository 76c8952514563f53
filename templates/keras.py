"""ferry.templates.keras: a Keras layer or op instance -> a single-layer functional model, its inputs, the
reference outputs of Keras, and the model saved for the frontends.

The model is a keras.Model with one keras.Input per tensor of the call (those inside lists too; named
in_0, in_1, ... in order: the positional arguments' tensors, then those of the keyword arguments by
name) and the call's tensors as outputs (output_0, ...). Every argument that is not a tensor is fixed:
the layer's configuration (its constructor is called with it; initializers, regularizers, nested layers
are rebuilt with their class's from_config), an op's axes and flags. Shapes are concrete: a dimension
the record leaves unknown (None: the call was symbolic, in a functional model) is resolved across the
inputs (_resolve: the size another input has at the same position from the right, or its batch),
else 2 for the batch (the first dimension) and 8 elsewhere, so that inputs that share an unknown
dimension still agree; meta.json's "filled_shapes" says which input shapes were so fixed.

wrap() writes a test directory:
    record.json     the instance
    saved_model/    the model as a TensorFlow SavedModel (model.export, a serving signature taking
                    in_K and giving output_K), where Keras can export it (FORMAT savedmodel)
    model.tflite    saved_model converted by the TFLite converter (TFLite's own operators only), where
                    the converter accepts it (FORMAT tflite)
    input_K.npy     input in_K
    ref_K.npy       output K as Keras computes it (the model called eagerly)
    meta.json       {"id", "op", "kind", "random", "inputs", "outputs"} in the form ferry.oracle.driver reads
                    (strings stored as numpy unicode: "stored": "str"), and "saved_model", "tflite":
                    the file, or null with "saved_model_error" / "tflite_error" saying why it is
                    missing, or neither key where ferry wrap --frontend needed no such file
                    (serialized() makes it when a frontend first reads it: ferry/templates/_formats.py)
reproducer_test() gives the same model and inputs as lines of a standalone script for a bug report
(ferry/oracle/reproducer.py assembles it; this module imports nothing of ferry.oracle).

The model is made the same way everywhere, by the functions of ferry/templates/runtime_keras.py (a
reproducer inlines that module whole): Keras's random generator is seeded from the instance id, then the layer is built, so its
weights are the same in the test directory, in every adapter and in a reproducer.
"""

import gc
import hashlib
import json
import os
import re
import shutil
import warnings

import numpy as np

from ferry.extract import tfload  # noqa: E402
from ferry.extract import values as ferry_values  # noqa: E402

tf = tfload.load()  # before keras, which imports it too

import keras  # noqa: E402
from keras.src.backend.tensorflow.layer import TFLayer  # noqa: E402
from keras.src.export import saved_model_export_archive  # noqa: E402
from tensorflow.lite.python import lite  # noqa: E402
from tensorflow.python.saved_model import save_context, tag_constants  # noqa: E402

from ferry.templates import _files, _formats, _nan, _reproducer, environment, runtime_keras  # noqa: E402
from ferry.templates.runtime_keras import (  # noqa: E402, F401
    FerrySlot,
    ferry_array,
    ferry_call,
    ferry_dtype,
    ferry_export,
    ferry_input,
    ferry_model,
    ferry_object,
    ferry_operators,
    ferry_resolve,
    ferry_tflite,
)

# The library's declarations (ferry/templates/registry.py reads them without importing this module).
LIBRARY = "keras"
# uint16 and uint32 too: Keras layers take them (a layer's dtype policy among them), and frontends
# that only ever saw the signed types and uint8 mishandle them.
DTYPES = ("float16", "bfloat16", "float32", "float64", "int8", "int16", "int32", "int64", "uint8", "uint16",
          "uint32", "bool")
TOLERANCES = "keras.txt"
VERSIONS = ("keras", "tensorflow")
# tf.keras.layers.Dense and tf_keras.layers.Dense count as keras.layers.Dense (OpenVINO's
# tensorflow2_keras_tests build models so)
COUNT_ROOTS = ("keras", "tensorflow.keras", "tf_keras")
RUNTIME = "runtime_keras"
EXPORT = "template"

ATOL = 1e-3
RTOL = 1e-3
BATCH = 2     # an unknown first dimension
UNKNOWN = 8   # any other unknown dimension

tf.config.threading.set_intra_op_parallelism_threads(1)
tf.config.threading.set_inter_op_parallelism_threads(1)


# The allow-list, made once per process; ferry_values.decode looks the callables and configured
# objects of records up in it too.
ferry_resolve.table = ferry_operators()
ferry_values.allow(ferry_resolve.table)

# Keras's clear_session and the TFLite converter each run a full garbage collection for every
# instance, and a full collection walks every object that importing TensorFlow and Keras made: 0.37 s
# a collection, half of what wrapping an instance took. Those objects live as long as the process,
# so they are put out of the collector's sight once, here; what each instance makes is collected as
# before. FERRY_WRAP_SLOW=1 leaves them in sight, and converts to TFLite as wrap did before
# _convert_tflite (bench/wrap/run.sh times both).
SLOW = bool(os.environ.get("FERRY_WRAP_SLOW"))
if not SLOW:
    gc.freeze()


# --- from a record to a model --------------------------------------------------------------------------

class _Plan:
    """What a record says about its model: the layer class or op function, its configuration, the
    call's arguments with slots for the tensors, and the tensors' tagged values."""

    def __init__(self, record):
        self.record = record
        self.op = record["op"]
        self.kind = record["kind"]
        self.target = _operator(self.op, self.kind)  # first: a name not allowed goes no further
        self.seed = _seed(record)
        self.tensors = []  # tagged tensor bodies, one per model input, in slot order
        self.args = [self._lift(v) for v in record["inputs"]]
        if self.kind == "layer":
            self.params = {k: record["params"][k] for k in sorted(record.get("params", {}))}
            kwargs = record.get("context", {}).get("kwargs", {"dict": {}})["dict"]
        else:
            self.params = {}
            kwargs = record.get("params", {})
        self.kwargs = {k: self._lift(kwargs[k]) for k in sorted(kwargs)}
        self.recorded_policy = None
        policy = _input_policy(self.kind, self.params, self.tensors, record.get("outputs", []))
        if policy is not None:
            self.recorded_policy = self.params["dtype"]["str"]
            self.params["dtype"] = {"str": policy}
        self.specs = [(shape, body["dtype"]) for shape, body in
                      zip(_resolve([body["shape"] for body in self.tensors]), self.tensors)]

    def _lift(self, tagged):
        tag, body = next(iter(tagged.items()))
        if tag == "tensor":
            self.tensors.append(body)
            return FerrySlot(len(self.tensors) - 1)
        if tag in ("list", "tuple"):
            items = [self._lift(v) for v in body]
            return items if tag == "list" else tuple(items)
        if tag == "dict" and not _special_dict(body):
            return {k: self._lift(v) for k, v in body.items()}
        return _decode(tagged, self.seed, [900])

    def inputs(self):
        """The model's inputs: kept values exactly, generated ones for the rest."""
        out = []
        for k, (body, (shape, dtype)) in enumerate(zip(self.tensors, self.specs)):
            if "values" in body:
                out.append(ferry_array(body["values"], dtype, shape))
            else:
                out.append(ferry_input(self.seed, [k], dtype, shape, body.get("range")))
        return out

    def make(self):
        """A function making the layer (or giving the op function), as a reproducer's make() does."""
        target = self.target
        if self.kind == "layer":
            params = self.params

            def make():
                return target(**{k: _decode(v, self.seed, [1000 + i]) for i, (k, v) in enumerate(params.items())})
            return make
        return lambda: target

    def model(self):
        return ferry_model(self.seed, self.make(), self.args, self.kwargs, self.specs)


def _input_policy(kind, params, tensors, outputs):
    """The dtype policy a layer is built with instead of its recorded one, or None to keep it. Keras 3
    keeps an integer input's dtype (its DTypePolicy casts floats only), yet a layer of a float policy
    declares float outputs: its functional model says float32 where the layer gives int16, and the
    layers that cast to their compute dtype compute in float. Where the layer's inputs are all of one
    non-float dtype and the record's outputs are of that dtype too (the user's layer computed in it),
    the layer is built with that dtype as its policy, so the model keeps the integer path end to end."""
    if kind != "layer" or not tensors:
        return None
    recorded = params.get("dtype", {}).get("str") if isinstance(params.get("dtype"), dict) else None
    if recorded not in ("float16", "float32", "float64", "bfloat16"):
        return None
    dtypes = {body["dtype"] for body in tensors}
    out = {next(iter(v.values())).get("dtype") for v in outputs if "tensor" in v}
    if len(dtypes) != 1 or out != dtypes:
        return None
    dtype = dtypes.pop()
    if ferry_values.dtype_category(dtype) not in ("int", "bool") and not dtype.startswith("uint"):
        return None
    return dtype


def _operator(op, kind):
    """The layer class (kind "layer", a keras.layers name) or op function (kind "op", a keras.ops
    name) a record names, from the allow-list only; Unmigratable for any other name, which makes the
    instance invalid before anything is built."""
    if kind not in ("layer", "op") or not isinstance(op, str) or \
            not op.startswith("keras.layers." if kind == "layer" else "keras.ops."):
        raise ferry_values.Unmigratable(f"{op!r} ({kind}) is not a Keras layer or op")
    try:
        target = ferry_resolve(op)
    except LookupError as e:
        raise ferry_values.Unmigratable(str(e)) from None
    if kind == "layer" and not (isinstance(target, type) and issubclass(target, keras.layers.Layer)):
        raise ferry_values.Unmigratable(f"{op!r} is not a Keras layer")
    if kind == "op" and (isinstance(target, type) or not callable(target)):
        raise ferry_values.Unmigratable(f"{op!r} is not a Keras op")
    return target


def _concrete(shape):
    return [(BATCH if i == 0 else UNKNOWN) if d is None else d for i, d in enumerate(shape)]


def _resolve(shapes):
    """Concrete shapes for the model's inputs, their unknown (None) dimensions resolved together, not
    one by one: (None, 3) with (2, None) is (2, 3) with (2, 3), not (2, 3) with (2, 8), which do not
    broadcast. A dimension the record leaves unknown takes the size another input has at the same
    position from the right (where an operator that broadcasts ties them; the largest such size, as
    a size of 1 broadcasts to it), the batch (the first dimension) the batch another input has, and
    only where no input knows it BATCH for the batch and UNKNOWN elsewhere, the same for every input."""
    by_right, batches = {}, []
    for shape in shapes:
        for j, d in enumerate(shape):
            if d is not None:
                by_right.setdefault(len(shape) - 1 - j, []).append(d)
        if len(shape) > 1 and shape[0] is not None:
            batches.append(shape[0])
    out = []
    for shape in shapes:
        filled = []
        for j, d in enumerate(shape):
            known = by_right.get(len(shape) - 1 - j, [])
            if d is not None:
                filled.append(d)
            elif known:
                filled.append(max(known))
            elif j == 0:
                filled.append(batches[0] if batches else BATCH)
            else:
                filled.append(UNKNOWN)
        out.append(filled)
    return out


def _special_dict(body):
    """The dicts that stand for other Python values (slices, dataclasses, configured objects)."""
    return list(body) == ["__slice__"] or sorted(body) == ["__dataclass__", "fields"] \
        or ferry_values.is_object_value(body)


def _decode(tagged, seed, key):
    """A constant argument (no slots): tensors become numpy arrays (a layer's configured weights,
    an op's constant operand)."""
    _refuse_serialized(tagged)
    counter = [0]

    def tensor(body):
        counter[0] += 1
        if "values" in body:
            return ferry_array(body["values"], body["dtype"], body["shape"])
        return ferry_input(seed, key + [counter[0]], body["dtype"], _concrete(body["shape"]), body.get("range"))
    from keras.src.saving import serialization_lib
    with serialization_lib.SafeModeScope(True):  # from_config of an object value never rebuilds a function
        return ferry_values.decode(tagged, convert={"tensor": tensor, "dtype": lambda name: name})


def _refuse_serialized(tagged):
    """Unmigratable if a plain dict in the value is a configuration Keras would deserialize by
    itself ({"class_name": ..., "config": ...}), looking its class up by its own rules. The harvest
    records every such object as an object value, which only the allow-list resolves."""
    tag, body = next(iter(tagged.items()))
    if tag == "dict" and isinstance(body, dict):
        if "class_name" in body and not _special_dict(body):
            raise ferry_values.Unmigratable("a serialized Keras object that is not an object value")
        for v in body.values():
            _refuse_serialized(v)
    elif tag in ("list", "tuple") and isinstance(body, list):
        for v in body:
            _refuse_serialized(v)


def _seed(record):
    """The instance id as a number; records without an id (hand-written ones) hash their identity."""
    if "id" in record:
        return int(record["id"], 16)
    identity = {k: record.get(k) for k in ("library", "op", "kind", "context", "params", "inputs", "outputs")}
    text = json.dumps(identity, sort_keys=True, separators=(",", ":"))
    return int(hashlib.sha256(text.encode()).hexdigest()[:32], 16)


# --- wrap ----------------------------------------------------------------------------------------------

def wrap(record_json, outdir):
    """Write the test directory of one instance. Returns {"status": "ok", "random": bool, "ninputs",
    "noutputs"}, or {"status": "invalid", "reason": "<Type>: <message>"} when the instance cannot be
    built or Keras itself rejects it."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            record = json.loads(record_json)
            formats = _formats.requested(record)
            plan, inputs, model, refs = _reference(record)
            random = any(not _same(refs, ferry_call(model, inputs)) for _ in range(2))
    except Exception as e:  # a bad record or a rejection by Keras: either way the instance is invalid
        if environment(e):  # the machine failed, not the instance: nothing to record
            raise
        return {"status": "invalid", "reason": _whole(e)}
    os.makedirs(outdir, exist_ok=True)
    meta = {"id": record.get("id"), "op": record["op"], "kind": record["kind"], "random": random,
            "inputs": [_save(outdir, "input", f"in_{k}", k, x) for k, x in enumerate(inputs)],
            "outputs": [_save(outdir, "ref", f"output_{k}", k, r) for k, r in enumerate(refs)]}
    if plan.recorded_policy:
        # the layer's dtype policy is its input's, not the recorded one (a deviation from the record)
        meta["dtype_policy"] = {"recorded": plan.recorded_policy, "built": plan.params["dtype"]["str"]}
    filled = {f"in_{k}": list(shape) for k, (body, (shape, _)) in enumerate(zip(plan.tensors, plan.specs))
              if None in body["shape"]}
    if filled:
        # the record's unknown dimensions, as the template fixed them (a deviation from the record)
        meta["filled_shapes"] = filled
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        disagree = _serialize(outdir, model, inputs, refs, random, meta, formats)
    keras.utils.clear_session()
    if disagree:
        # What every frontend reads is not what Keras computes: a frontend's result could not be
        # judged against the reference (Keras's own export is at fault, not the frontend).
        return {"status": "invalid", "reason": f"Keras's SavedModel disagrees with Keras: {disagree}"}
    with _files.create(os.path.join(outdir, "record.json"), "w") as f:
        json.dump(record, f, separators=(",", ":"))
    with _files.create(os.path.join(outdir, "meta.json"), "w") as f:
        json.dump(meta, f, indent=1)
    result = {"status": "ok", "random": random, "ninputs": len(inputs), "noutputs": len(refs)}
    undefined = _undefined_domain(plan, inputs) or _nan.variant_undefined(record, refs, _nan_everywhere)
    if undefined:
        result["undefined"] = undefined
    return result


def _reference(record):
    """(plan, inputs, model, reference outputs) of a record: Keras's run of the model, as wrap()
    and validate() make it; raises where Keras rejects it."""
    plan = _Plan(record)
    inputs = plan.inputs()
    model = plan.model()
    refs = ferry_call(model, inputs)
    policy = plan.params.get("dtype", {}).get("str") if plan.recorded_policy else None
    wrong = [r.dtype.name for r in refs if policy and r.dtype.name != policy]
    if wrong:
        raise TypeError(f"a {plan.op} of dtype policy {policy} computes {wrong[0]}: Keras casts the input")
    return plan, inputs, model, refs


# --- validate ------------------------------------------------------------------------------------------

def validate(record_json):
    """Whether Keras accepts a candidate record (ferry vary): the model, inputs and reference run of
    wrap() alone, writing nothing. Returns {"status": "ok", "outputs": JSON text of the outputs as
    the harvest records them (the candidate's own are its parent's), and "undefined" where the
    reference lies in the undefined domain}, or {"status": "invalid", "reason": "<Type>: <message>"}.

    The outputs are those of the layer or op called as the harvest saw it called: symbolically where
    an input of the record has an unknown dimension (a functional model being built: None stays
    None), else eagerly (the reference's dtypes and shapes), in the structure the call returns. The
    record's outputs choose the layer's dtype policy (_input_policy): where the new ones would choose
    another, the reference is run again with them, so that wrap() of the kept variant builds what
    was validated. A call given training=True also goes through wrap()'s export (_export_refuses):
    the reference runs the model with training=False, the SavedModel the call as recorded, so only
    the export meets what the training path does (Attention's dropout=inf: a rate out of range)."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            record = json.loads(record_json)
            for _ in range(2):
                plan, inputs, model, refs = _reference(record)
                outputs = _harvested(plan, refs)
                again = dict(record, outputs=outputs)
                if _Plan(again).params == plan.params:
                    break
                record = again
            else:
                raise TypeError(f"the dtype policy of a {plan.op} changes with its outputs' dtypes")
            undefined = _undefined_domain(plan, inputs) or _nan_everywhere(refs)
            refused = _export_refuses(plan, model, inputs, refs)
    except Exception as e:  # a bad record or a rejection by Keras: either way the candidate is invalid
        if environment(e):  # the machine failed, not the instance: nothing to record
            raise
        return {"status": "invalid", "reason": _whole(e)}
    finally:
        # Keras's global state, without its full garbage collection (seconds each, most of the time
        # of a validation; Python's own collector runs all the same)
        keras.utils.clear_session(free_memory=False)
    if refused:
        return {"status": "invalid", "reason": refused}
    result = {"status": "ok", "outputs": json.dumps(outputs, separators=(",", ":"))}
    if undefined:
        result["undefined"] = undefined
    return result


def _export_refuses(plan, model, inputs, refs):
    """Why wrap() would not give the candidate a SavedModel that agrees with Keras, or None: the
    export that wrap() makes (_make_saved_model, into a scratch directory) and its comparison
    (_export_disagrees), for a call given training=True only. The reference runs the model with
    training=False, which overrides the call's own; the SavedModel's serving function leaves the
    call's training=True in force, so that only the export runs its training path (a dropout rate
    out of range refused, dropout applied). A call without it computes the same in both, and its
    export, six times a validation's cost (270 ms against 46 for an Attention), is not made."""
    import tempfile

    training = plan.kwargs.get("training")
    if training is None or training is False:
        return None
    scratch = tempfile.mkdtemp(prefix="ferry-validate-")
    try:
        meta = {}
        _make_saved_model(scratch, model, inputs, meta)
        if not meta.get("saved_model"):
            return f"Keras cannot export it: {meta.get('saved_model_error')}"
        random = any(not _same(refs, ferry_call(model, inputs)) for _ in range(2))
        disagree = _export_disagrees(scratch, meta, inputs, refs, random)[0]
        return f"Keras's SavedModel disagrees with Keras: {disagree}" if disagree else None
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


def _harvested(plan, refs):
    """The call's outputs as instrument_keras records them: the layer or op called on keras.Input
    tensors of the record's own shapes, unknown dimensions included, for the result's structure;
    its tensors the reference's dtypes and shapes where the record's call was eager (no unknown
    dimension), the symbolic call's where it was not."""
    from keras.src.saving import serialization_lib

    from ferry.extract import instrument_keras

    symbolic = any(None in body["shape"] for body in plan.tensors)
    try:
        with serialization_lib.SafeModeScope(True):
            op = plan.make()()
        tensors = [keras.Input(batch_shape=tuple(body["shape"]), dtype=dtype)
                   for body, (_, dtype) in zip(plan.tensors, plan.specs)]
        result = op(*runtime_keras.ferry_fill(plan.args, tensors), **runtime_keras.ferry_fill(plan.kwargs, tensors))
        flat = keras.tree.flatten(result)
        if sum(isinstance(t, keras.KerasTensor) for t in flat) != len(refs):
            raise ValueError("the symbolic call does not give the reference's tensors")
    except Exception:  # Keras cannot call it symbolically: the reference's tensors, as a flat list
        return [ferry_values.tensor(r, keep=False) for r in refs]
    if not symbolic:
        eager = iter(refs)
        flat = [keras.KerasTensor(r.shape, dtype=ferry_values.dtype_name(r.dtype))
                if isinstance(t, keras.KerasTensor) and (r := next(eager)) is not None else t for t in flat]
        result = keras.tree.pack_sequence_as(result, flat)
    # as the recorder lists a call's result: a tuple or list opened one level
    outs = list(result) if isinstance(result, (tuple, list)) else [result]
    return [instrument_keras._output(v) for v in outs]


def _nan_everywhere(refs):
    """NAN_EVERYWHERE where every element of every floating or complex output is NaN (one element at
    least), else None."""
    return _nan.everywhere([np.asarray(r) for r in refs if np.asarray(r).dtype.kind in "fc"
                                      or ferry_values.dtype_name(np.asarray(r).dtype) == "bfloat16"])


def _export_disagrees(outdir, meta, inputs, refs, random):
    """(the first difference between the SavedModel, run by TensorFlow, and Keras's reference, or
    None, also when there is no SavedModel; the SavedModel as tf.saved_model.load gave it, or None)."""
    if not meta.get("saved_model"):
        return None, None
    try:
        loaded = tf.saved_model.load(os.path.join(outdir, meta["saved_model"]))
        out = loaded.serve([tf.constant(x.astype(bytes) if x.dtype == object else x) for x in inputs])
        got = [np.asarray(t) for t in keras.tree.flatten(out)]
    except Exception as e:  # the SavedModel does not even run in TensorFlow
        return _whole(e), None
    problems = runtime_keras.ferry_compare(got, refs, ATOL, RTOL, random)
    return (problems[0] if problems else None), loaded


def _undefined_domain(plan, inputs):
    """Why the inputs lie where the operation's result is undefined, or None: a cast of floats that
    are not finite or out of range to an integer type (C++ leaves it undefined; frontends answer
    anything), where a difference is flagged, not reported as a bug."""
    if plan.op != "keras.ops.cast" or not inputs or inputs[0].dtype.kind != "f":
        return None
    target = plan.kwargs.get("dtype", plan.args[1] if len(plan.args) > 1 else None)
    try:
        target = np.dtype(str(target))
    except TypeError:
        return None
    if target.kind not in "iu":
        return None
    x = inputs[0].astype(np.float64)
    info = np.iinfo(target)
    if not np.isfinite(x).all() or (x < info.min).any() or (x >= info.max + 1.0).any():
        return f"a cast of non-finite or out-of-range floats to {target.name}"
    return None


def _whole(e):
    """Keras's message whole, its terminal escapes taken out, with the cause first: Keras's own first
    line ("Exception encountered when calling Dense.call().") never holds it, and summaries count
    reasons by their first line, so the first line of what follows takes its place ("ValueError:
    <cause> (calling Dense.call())"), the rest following as Keras wrote it. Only a message past
    WHOLE_MAX characters (a graph dump) is cut, and says so."""
    text = re.sub(r"\x1b\[[0-9;]*m", "", str(e)).strip()
    wrapper = re.match(r"Exception encountered when calling ([\w.]+\(\))\.?\s*\n", text)
    if wrapper:
        rest = text[wrapper.end():].strip()
        cause, _, after = rest.partition("\n")
        if cause.strip():
            text = f"{cause.strip()} (calling {wrapper.group(1)})\n{after}".strip()
    text = f"{type(e).__name__}: {text}".strip()
    if len(text) > WHOLE_MAX:
        text = text[:WHOLE_MAX] + f" [... {len(text) - WHOLE_MAX} more characters]"
    return text or type(e).__name__


WHOLE_MAX = 8000


def _same(a, b):
    if len(a) != len(b):
        return False
    for x, y in zip(a, b):
        if x.dtype != y.dtype or x.shape != y.shape:
            return False
        if x.dtype.kind in "fc":
            if not np.array_equal(x, y, equal_nan=True):
                return False
        elif not np.array_equal(x, y):
            return False
    return True


def _save(outdir, prefix, name, k, array):
    array = np.asarray(array)
    dtype = ferry_values.dtype_name(array.dtype)
    entry = {"name": name, "kind": "tensor", "dtype": dtype, "files": [f"{prefix}_{k}.npy"]}
    if dtype == "string":
        entry["stored"] = "str"
        array = np.array([x.decode("utf-8") if isinstance(x, bytes) else str(x) for x in array.reshape(-1)],
                         dtype=str).reshape(array.shape)
    elif dtype == "bfloat16":
        entry["stored"] = "float32"
        array = array.astype(np.float32)
    with _files.create(os.path.join(outdir, f"{prefix}_{k}.npy")) as f:
        np.save(f, array, allow_pickle=False)
    return entry


# The files of the test directory by meta.json's key, and the FORMAT names of the adapters that read
# each (the TFLite model is converted from the SavedModel, which is made for it too).
FILES = {"saved_model": ("saved_model", ("savedmodel", "tflite")), "tflite": ("model.tflite", ("tflite",))}


def _serialize(outdir, model, inputs, refs, random, meta, formats=None):
    """saved_model/ and model.tflite, where Keras and the TFLite converter can make them; only what
    formats (FORMAT names; None: all) need. Returns the first difference between the SavedModel and
    Keras's reference (_export_disagrees), or None; where there is one the test is invalid, and no
    TFLite model is converted from a SavedModel no frontend will read."""
    tflite = _formats.wanted(formats, *FILES["tflite"][1])
    if tflite:
        meta["tflite"] = None  # its place in meta.json, before the SavedModel's, as it always had
    loaded, disagree = None, None
    if _formats.wanted(formats, *FILES["saved_model"][1]):
        _make_saved_model(outdir, model, inputs, meta)
        if SLOW:  # as wrap was: converted first, checked after
            if tflite:
                _make_tflite(outdir, meta)
            return _export_disagrees(outdir, meta, inputs, refs, random)[0]
        disagree, loaded = _export_disagrees(outdir, meta, inputs, refs, random)
    if tflite and not disagree:
        _make_tflite(outdir, meta, loaded)
    return disagree


def _make_saved_model(outdir, model, inputs, meta):
    path = os.path.join(outdir, "saved_model")
    try:
        _files.fresh_dir(path)  # TensorFlow writes the tree by path: into a directory just made
        (ferry_export if SLOW else _export)(model, inputs, path)
        meta["saved_model"] = "saved_model"
    except Exception as e:  # Keras cannot export this layer: the frontends that read it skip it
        meta["saved_model"] = None
        meta["saved_model_error"] = _whole(e)


def _export(model, inputs, path):
    """ferry_export's SavedModel, less two of the three traces of the model that Keras's export
    makes: a fifth of the time of a wrap.
    - model.export walks the model's attributes for the lookup tables it must save with it (the
      walk of SavedModel's AutoTrackable, by dir() and getattr), and a Keras model's
      _default_save_signature is a property that makes a tf.function of the model (autograph
      included) on every read; the walk traces it, then keeps none of it (its children leave
      functions out), and model.export saves its own serving function, not that one. The property
      reads as None for the length of the export, as it does for a layer that is not a model.
    - model.export traces its serving function to list the variables it reads, then
      tf.saved_model.save traces it again: a function traced inside a save is cached apart from
      one traced outside it. The listing is done inside a save context of the options the save
      will have (model.export's: the defaults), so the save finds the function it would have traced.
    What is saved is the same."""
    prop = TFLayer.__dict__["_default_save_signature"]
    listing = saved_model_export_archive._list_variables_used_by_fns

    def listing_as_saved(fns):
        with save_context.save_context(tf.saved_model.SaveOptions()):
            return listing(fns)
    TFLayer._default_save_signature = None
    saved_model_export_archive._list_variables_used_by_fns = listing_as_saved
    try:
        return ferry_export(model, inputs, path)
    finally:
        TFLayer._default_save_signature = prop
        saved_model_export_archive._list_variables_used_by_fns = listing


def _make_tflite(outdir, meta, loaded=None):
    """model.tflite from saved_model/; loaded is the SavedModel as tf.saved_model.load gave it, where
    the caller has it (None: loaded here)."""
    meta["tflite"] = None
    if not meta.get("saved_model"):
        meta["tflite_error"] = "no SavedModel"
        return
    try:
        path = os.path.join(outdir, meta["saved_model"])
        flatbuffer = ferry_tflite(path) if SLOW else _convert_tflite(path, loaded)
        with _files.create(os.path.join(outdir, "model.tflite")) as f:
            f.write(flatbuffer)
        meta["tflite"] = "model.tflite"
    except Exception as e:  # the converter rejects it: TVM's TFLite frontend has nothing to read
        meta["tflite_error"] = _whole(e)


def _convert_tflite(path, loaded=None):
    """The SavedModel in path converted as ferry_tflite converts it (the same converter and options:
    the same flatbuffer byte for byte, the same errors; tests/unit/keras_export.py compares
    them), at half the cost. TFLiteConverter.from_saved_model loads the SavedModel with
    tf.saved_model.load to find its serving signature, and convert() loads it again for the debug
    information of its error messages, then runs a full garbage collection: two loads that rebuild
    every function in it, half the time of a conversion of a docstring example. Here the SavedModel
    is loaded once, or not at all where the caller loaded it to check it (loaded), its signature is
    the one model.export names, and the rest is convert()'s own code."""
    if loaded is None:
        loaded = tf.saved_model.load(path)
    lite.TFLiteConverterBase._set_original_model_type(lite.conversion_metadata_fb.ModelType.TF_SAVED_MODEL)
    converter = _LoadedConverter(path, loaded)
    converter.target_spec.supported_ops = [tf.lite.OpsSet.TFLITE_BUILTINS]  # as ferry_tflite
    return converter.convert()


class _LoadedConverter(lite.TFLiteSavedModelConverterV2):
    """TFLite's converter of a SavedModel, as from_saved_model makes it for a SavedModel of
    model.export (its "serve" endpoint converted as "serving_default"), reading the debug
    information from the SavedModel already loaded."""

    def __init__(self, path, loaded):
        super().__init__(path, {tag_constants.SERVING}, ["serving_default"])
        self._loaded = loaded

    @lite._export_metrics  # what convert() is wrapped in: the flatbuffer's conversion metadata
    def convert(self):
        graph_def, _, _ = self._load_saved_model(self.saved_model_dir, self._saved_model_tags)
        self._debug_info = lite._get_debug_info(lite._convert_debug_info_func(self._loaded.graph_debug_info),
                                                graph_def)
        return self._convert_from_saved_model(graph_def)


def _make_later(testdir, which):
    """The meta of testdir once the file which ("saved_model", "tflite") that ferry wrap --frontend
    left out is made, as wrap makes it: the model rebuilt from record.json, as seeded. A SavedModel
    made now is checked against Keras as wrap checks it; where they disagree it is no model (the
    instance would have been invalid at wrap)."""
    def make(meta, record):
        try:
            if which == "tflite" and _formats.left(meta, "saved_model"):
                make_saved_model(meta, record)
            if which == "saved_model":
                make_saved_model(meta, record)
            else:
                _make_tflite(testdir, meta)
        finally:
            keras.utils.clear_session()

    def make_saved_model(meta, record):
        try:
            _, inputs, model, refs = _reference(record)
            for _ in range(2):  # as wrap's random check does: a random layer's seed state moves on
                ferry_call(model, inputs)
        except Exception as e:  # the record built at wrap; it should again
            meta["saved_model"], meta["saved_model_error"] = None, _whole(e)
            return
        _make_saved_model(testdir, model, inputs, meta)
        disagree, _ = _export_disagrees(testdir, meta, inputs, refs, meta.get("random", False))
        if disagree:
            shutil.rmtree(os.path.join(testdir, "saved_model"), ignore_errors=True)
            meta["saved_model"] = None
            meta["saved_model_error"] = f"Keras's SavedModel disagrees with Keras: {disagree}"
    return _formats.make_later(testdir, which, make)


# --- what the adapters share ---------------------------------------------------------------------------

class NotSerialized(Exception):
    """The template could not make the file an adapter loads (Keras could not export the model, or
    the TFLite converter rejected it): the frontend cannot be tested on this layer."""


def testdir_meta(testdir):
    with open(os.path.join(testdir, "meta.json")) as f:
        return json.load(f)


def serialized(testdir, which):
    """The path of saved_model ("saved_model") or model.tflite ("tflite"), or NotSerialized with the
    template's reason; made first where ferry wrap --frontend left it out."""
    meta = testdir_meta(testdir)
    if _formats.left(meta, which):  # ferry wrap --frontend did not need it: made now, once
        meta = _make_later(testdir, which)
    if not meta.get(which):
        what = {"saved_model": "Keras could not export the SavedModel",
                "tflite": "the TFLite converter made no model"}[which]
        raise NotSerialized(f"ferry: {what}: {meta.get(which + '_error', 'unknown reason')}")
    return os.path.join(testdir, meta[which])


def testdir_inputs(testdir):
    """The inputs saved in a test directory, as a list in in_K order (strings as numpy unicode)."""
    return [np.load(os.path.join(testdir, e["files"][0]), allow_pickle=False) for e in testdir_meta(testdir)["inputs"]]


def ordered_inputs(inputs):
    """The driver's inputs (name in_K -> array) as a list in K order."""
    return [inputs[name] for name in sorted(inputs, key=lambda n: int(n.rsplit("_", 1)[1]))]


def feed(array):
    """An input as a frontend takes it: strings as bytes."""
    return array.astype(bytes) if array.dtype.kind in "OU" else array


# --- reproducer ----------------------------------------------------------------------------------------

def reproducer_test(record_json, testdir):
    """The test's own part of a reproducer script (ferry/oracle/reproducer.py assembles the script,
    with the Keras runtime and the frontend's module, whole): the record's model and inputs as
    literals, Keras's run, the frontend's (run_frontend, on the model and the inputs) and
    ferry_compare's verdict with the script's ATOL and RTOL; every string from the record appears
    as a repr literal. testdir is read (not by the script) for whether it is random.
    Returns a dict: what, instance, source (for the header's comments), reference, name, imports, test."""
    record = json.loads(record_json)
    plan = _Plan(record)
    random = _reproducer.testdir_meta(testdir).get("random", False)

    if plan.kind == "layer":
        # a dict literal of repr()'d names, not keyword syntax: a name from the record is data
        params = "".join(f"        {k!r}: {_lit(v, [1000 + i])},\n" for i, (k, v) in enumerate(plan.params.items()))
        make = f"ferry_resolve({plan.op!r})(**{{\n{params}    }})"
    else:
        make = f"ferry_resolve({plan.op!r})"
    slots = [0]
    args = "[" + ", ".join(_slot_lit(v, slots) for v in record["inputs"]) + "]"
    kwargs_tagged = record.get("context", {}).get("kwargs", {"dict": {}})["dict"] if plan.kind == "layer" \
        else record.get("params", {})
    kwargs = "{" + ", ".join(f"{k!r}: {_slot_lit(kwargs_tagged[k], slots)}" for k in sorted(kwargs_tagged)) + "}"
    inputs = "\n".join(f"    {_input_lit(body, k, shape, dtype)},"
                       for k, (body, (shape, dtype)) in enumerate(zip(plan.tensors, plan.specs)))
    source = record.get("source", {})
    test = f'''SEED = {plan.seed}
RANDOM = {random!r}  # True for a random layer: then only dtypes and shapes are compared
ARGS = {args}
KWARGS = {kwargs}
SPECS = {[(list(s), d) for s, d in plan.specs]!r}


def make():
    return {make}


inputs = [
{inputs}
]
''' + _reproducer.tail("    model = ferry_model(SEED, make, ARGS, KWARGS, SPECS)\n    reference = ferry_call(model, inputs)",
                        "model, inputs", "inputs[0] if inputs else None", "Keras")
    return {"what": f"{record['op']} ({record['kind']})", "instance": record.get("id", "-"),
            "source": " ".join(str(source[k]) for k in ("suite", "test") if k in source),
            "reference": "Keras", "name": "Keras", "test": test,
            "imports": "import os\nimport sys\nimport traceback\n\n"
                       "os.environ.setdefault(\"TF_CPP_MIN_LOG_LEVEL\", \"3\")\n"
                       "os.environ.setdefault(\"TF_ENABLE_ONEDNN_OPTS\", \"0\")  # as ferry computed the reference\n"}


def _slot_lit(tagged, slots):
    """Source text of an argument with slots: each tensor becomes FerrySlot(k), k counted in slots[0]."""
    def slot(body):
        slots[0] += 1
        return f"FerrySlot({slots[0] - 1})"

    return _reproducer.slot_lit(tagged, slot, _special_dict, lambda constant: _lit(constant, [900]))


def _lit(tagged, key, counter=None):
    """Source text that rebuilds a constant tagged value as _decode does."""
    return _reproducer.lit(tagged, key, _own_lit, counter)


def _own_lit(tag, body, key, counter):
    """Keras's part of _lit: dtypes by name, tensors, configured objects (a dataclass has none)."""
    if tag == "dtype":
        return repr(body)
    if tag == "tensor":
        counter[0] += 1
        if "values" in body:
            return f"ferry_array({_values_lit(body)}, {body['dtype']!r}, {body['shape']!r})"
        return (f"ferry_input(SEED, {key + [counter[0]]!r}, {body['dtype']!r}, {_concrete(body['shape'])!r}, "
                f"{body.get('range')!r})")
    if tag == "dict" and ferry_values.is_object_value(body):
        return f"ferry_object({body['__object__']['callable']!r}, {_lit(body['config'], key, counter)})"
    if tag == "dict" and _special_dict(body):
        raise ferry_values.Unmigratable("no literal for a dataclass value")
    return None


def _values_lit(body):
    return _reproducer.values_lit(body["values"], ferry_values.dtype_category(body["dtype"]))


def _input_lit(body, k, shape, dtype):
    if "values" in body:
        return f"ferry_array({_values_lit(body)}, {dtype!r}, {list(shape)!r})"
    return f"ferry_input(SEED, {[k]!r}, {dtype!r}, {list(shape)!r}, {body.get('range')!r})"


# --- export --------------------------------------------------------------------------------------------

def export(record_json, testdir, outdir, frontend=None):
    """Write the test as files TensorFlow's and the frontends' own tools read: outdir/saved_model/,
    outdir/model.tflite (where they exist), outdir/input_K.npy and outdir/ref_K.npy (the reference
    outputs of Keras), and outdir/record.json. Returns outdir."""
    os.close(_files.open_dir(outdir, 1))  # DIR/test_OP_ID: ferry's, in the user's DIR
    for which in FILES:  # what ferry wrap --frontend left out, made now as a frontend would
        try:
            serialized(testdir, which)
        except NotSerialized:
            pass
    meta = testdir_meta(testdir)
    if meta.get("saved_model"):
        shutil.copytree(os.path.join(testdir, _files.plain(meta["saved_model"])),
                        _files.fresh_dir(os.path.join(outdir, "saved_model")), dirs_exist_ok=True)
    names = ["record.json", "meta.json"] + ([meta["tflite"]] if meta.get("tflite") else [])
    names += [f for entry in meta["inputs"] + meta["outputs"] for f in entry["files"]]
    for name in names:
        with open(os.path.join(testdir, _files.plain(name)), "rb") as src, \
                _files.create(os.path.join(outdir, name)) as dst:
            shutil.copyfileobj(src, dst)
    return outdir
