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
reproducer_test() gives the same model and inputs as lines of a standalone script (ferry's reproducer,
ferry/oracle/reproducer.py, pastes runtime_tf_keras.py whole above them): Keras 2 seeded from the
instance id builds the same weights; export() writes the whole model as the HDF5 file Keras 2 users
load (model.h5) with its inputs and reference outputs.
"""

import hashlib
import json
import math
import os
import shutil
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
# The configuration keys that give the size of the index space of a layer's first input, as Keras 2
# documents them: Embedding's input_dim ("maximum integer index + 1") and CategoryEncoding's
# num_tokens ("all input values must be in the range 0 <= value < num_tokens"). A symbolic call (a
# Sequential model being built, model.predict's traced function) records no values, and Keras 2 casts
# a float input of these layers to indices: its values are drawn as whole numbers in that space, as a
# user's would be, not as normal floats, whose negatives are no index.
INDEX_SPACE = ("input_dim", "num_tokens")


class NotSerialized(Exception):
    """The test directory has no weights file an adapter could load."""


class RebuildFailed(Exception):
    """Keras 2 or its converter, in the adapter's process, could not make what the frontend is handed
    (made_for): ferry's failure."""


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
        self.bounds = [(body.get("range"), False) for body in self.tensors]
        space = next((self.config[k] for k in INDEX_SPACE if type(self.config.get(k)) is int), None)
        if space and space > 0 and self.tensors and not self.tensors[0].get("range"):
            self.bounds[0] = ([0, space - 1], True)

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
                out.append(ferry_input(self.seed, [k], dtype, shape, *self.bounds[k]))
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
    return len(a) == len(b) and all(x.dtype == y.dtype and x.shape == y.shape
                                    and np.array_equal(x, y, equal_nan=x.dtype.kind in "fc") for x, y in zip(a, b))


def _save(outdir, prefix, name, k, array):
    array = np.asarray(array)
    entry = {"name": name, "kind": "tensor", "dtype": ferry_values.dtype_name(array.dtype),
             "files": [f"{prefix}_{k}.npy"]}
    if entry["dtype"] == "string":  # stored as numpy unicode, which np.load reads without pickle
        entry["stored"] = "str"
        array = np.array([x.decode("utf-8") if isinstance(x, bytes) else str(x) for x in array.reshape(-1)],
                         dtype=str).reshape(array.shape)
    elif entry["dtype"] == "bfloat16":
        entry["stored"] = "float32"
        array = array.astype(np.float32)
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
    # Rebuilding is Keras 2's work, not the frontend's: under another release's Keras 2 (a frontend
    # run as NAME@PYTHON) a configuration wrap recorded may name a parameter that release lacks.
    return made_for(f"Keras 2 {tf_keras.__version__} could not rebuild the model", _rebuild, record, testdir)


def _rebuild(record, testdir):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        built = _Plan(record).model()
        built.load_weights(os.path.join(testdir, WEIGHTS))
    return built


def made_for(what, make, *args):
    """make(*args), the step that makes what a frontend is handed from the Keras 2 model (saving it as a
    SavedModel, converting it for TFLite): its failure is ferry's (the frontend was never reached),
    "ferry: <what>: <why>", never the frontend's crash."""
    try:
        return make(*args)
    except Exception as e:
        if environment(e):
            raise
        raise RebuildFailed(f"ferry: {what}: {_whole(e)}") from e


def ordered_inputs(inputs):
    """The driver's inputs (name in_K -> array) as a list in K order."""
    return [inputs[name] for name in sorted(inputs, key=lambda n: int(n.rsplit("_", 1)[1]))]


# --- reproducer and export -----------------------------------------------------------------------------

def _lit(value):
    """Source text of a decoded configuration value (dicts, lists, tuples, strings, numbers, None,
    numeric arrays): repr() but for floats that are not finite, which have no literal."""
    if isinstance(value, float) and not math.isfinite(value):
        return f"float({str(value)!r})"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{k!r}: {_lit(v)}" for k, v in value.items()) + "}"
    if isinstance(value, list):
        return "[" + ", ".join(_lit(v) for v in value) + "]"
    if isinstance(value, tuple):
        return "(" + "".join(_lit(v) + ", " for v in value) + ")"
    if value is None or isinstance(value, (bool, int, float, str)):
        return repr(value)
    if isinstance(value, np.ndarray) and value.dtype.kind in "biuf":  # a tensor-valued option (ReLU's slope)
        return f"np.array({_lit(value.tolist())}, dtype={value.dtype.name!r})"
    raise ValueError(f"a configuration value ferry cannot write as a literal: {type(value).__name__}")


def _slots_lit(value):
    """Source text of the call's arguments, with FerrySlot(k) for the tensors."""
    if isinstance(value, FerrySlot):
        return repr(value)
    if isinstance(value, list):
        return "[" + ", ".join(_slots_lit(v) for v in value) + "]"
    if isinstance(value, tuple):
        return "(" + "".join(_slots_lit(v) + ", " for v in value) + ")"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{k!r}: {_slots_lit(v)}" for k, v in value.items()) + "}"
    return _lit(value)


def _input_lit(body, k, shape, dtype, bounds):
    if "values" in body and None not in body["shape"]:
        array = ferry_values.tensor_array(body)
        return f"np.array({_lit(array.tolist())}, dtype={array.dtype.name!r})"
    drawn, whole = bounds
    return f"ferry_input(SEED, {[k]!r}, {dtype!r}, {list(shape)!r}, {drawn!r}{', whole=True' if whole else ''})"


def reproducer_test(record_json, testdir):
    """The test's own part of a reproducer script: the record's layer, configuration and inputs as
    literals (every string from the record a repr), Keras 2's run, the frontend's (run_frontend) and
    ferry_compare's verdict with the script's ATOL and RTOL. testdir is read for whether it is random."""
    record = json.loads(record_json)
    plan = _Plan(record)
    random = False
    meta_path = os.path.join(testdir, "meta.json")
    if os.path.exists(meta_path):
        with open(meta_path) as f:
            random = json.load(f).get("random", False)
    inputs = "\n".join(f"    {_input_lit(body, k, shape, dtype, bounds)},"
                       for k, (body, (shape, dtype), bounds) in enumerate(zip(plan.tensors, plan.specs, plan.bounds)))
    source = record.get("source", {})
    test = f'''SEED = {plan.seed}
RANDOM = {random!r}  # True for a random layer: then only dtypes and shapes are compared
CONFIG = {_lit(plan.config)}
ARGS = {_slots_lit(plan.args)}
KWARGS = {_slots_lit(plan.kwargs)}
SPECS = {[(list(s), d) for s, d in plan.specs]!r}

inputs = [
{inputs}
]
try:
    model = ferry_model(SEED, OP, CONFIG, ARGS, KWARGS, SPECS)
    reference = ferry_call(model, inputs)
except Exception:
    traceback.print_exc()
    print(f"Keras 2 itself failed: this reproducer shows nothing about {{FRONTEND}}")
    sys.exit(2)
try:
    outputs = run_frontend(model, inputs)
except Exception:
    traceback.print_exc()
    print(f"BUG: {{FRONTEND}} raised")
    sys.exit(1)
problems = ferry_compare(list(outputs), reference, ATOL, RTOL, RANDOM)
for problem in problems:
    print("BUG:", problem)
if not problems:
    print(f"no bug: {{FRONTEND}} agrees with Keras 2")
sys.exit(1 if problems else 0)
'''
    return {"what": f"{record['op']} ({record['kind']})", "instance": record.get("id", "-"),
            "source": " ".join(str(source[k]) for k in ("suite", "test") if k in source),
            "reference": "Keras 2", "name": "Keras 2", "test": test,
            "imports": "import os\nimport sys\nimport traceback\n\n"
                       "os.environ[\"TF_USE_LEGACY_KERAS\"] = \"1\"  # tf.keras is Keras 2, as its users have it\n"
                       "os.environ.setdefault(\"TF_CPP_MIN_LOG_LEVEL\", \"3\")\n"
                       "os.environ.setdefault(\"TF_ENABLE_ONEDNN_OPTS\", \"0\")  # as ferry computed the reference\n"}


def export(record_json, testdir, outdir, frontend=None):
    """Write the test as the files a Keras 2 user hands over: outdir/model.h5 (the whole model,
    Keras 2's HDF5 format), outdir/input_K.npy and outdir/ref_K.npy (the reference outputs of Keras 2),
    outdir/record.json and meta.json. Returns outdir."""
    os.close(_files.open_dir(outdir, 1))  # DIR/test_OP_ID: ferry's, in the user's DIR
    built = model(testdir)
    import h5py

    with warnings.catch_warnings(), _files.create(os.path.join(outdir, "model.h5")) as f, h5py.File(f, "w") as h5:
        warnings.simplefilter("ignore")
        built.save(h5, save_format="h5")  # into the file ferry opened: no link planted in outdir is followed
    with open(os.path.join(testdir, "meta.json")) as f:
        meta = json.load(f)
    names = ["record.json", "meta.json"] + [name for entry in meta["inputs"] + meta["outputs"] for name in entry["files"]]
    for name in names:
        with open(os.path.join(testdir, _files.plain(name)), "rb") as src, \
                _files.create(os.path.join(outdir, name)) as dst:
            shutil.copyfileobj(src, dst)
    return outdir
