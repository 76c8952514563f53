"""ferry.templates.torch: a PyTorch operator instance -> a single-operator torch.nn.Module, its example inputs,
the reference outputs of eager PyTorch, and the module serialized for the frontends.

The module is a FerryCall: it holds the operator (a torch.nn module built from the instance's
constructor arguments, or a torch function or Tensor method) with every argument that is not a tensor
fixed, and takes the data tensors as its forward inputs, in order: the positional arguments' tensors
(those inside lists too), then those of the keyword arguments by name. The other tensors, those real
models hold as weights (a functional convolution's weight and bias), are buffers of the module, so
the serialized models hold them as constants (see "data and weights" below; --weights input makes
every tensor an input instead). It returns the tensors of the operator's result as a flat tuple.

wrap() writes a test directory:
    record.json     the instance, from which build() makes the same module again (the adapters that
                    start from the eager module use it: TorchInductor, the ONNX exporter)
    model.ts        the module as TorchScript (torch.jit.trace, then torch.jit.freeze: weights and
                    default arguments are constants), where tracing works, else the call scripted
                    (runtime_torch.ferry_script_call): "torchscript_by" in meta is "trace" or
                    "script"; "frozen" false in meta and "freeze_error" say why where PyTorch
                    could not freeze it (FORMAT ts)
    model.pt2       the module as an ExportedProgram (torch.export), where exporting works (FORMAT
                    pt2); wrap does not load it back: load_exported, which the frontends read it
                    with, marks a file that does not load as not made (the key null, the error why)
    input_K.npy     forward input K
    ref_K.npy       output K as eager PyTorch computes it
    meta.json       {"id", "op", "kind", "random", "random_reason", "undefined", "weights" ("constant" or
                    "input"), "data" (the arguments whose tensors are inputs: positions and keyword
                    names), "inputs", "outputs"} in the form ferry.oracle.driver
                    reads ("stored" where numpy cannot hold the dtype: bfloat16 and float8 as
                    float32, complex32 as complex64), and "torchscript" and "export": the file, or
                    null with "torchscript_error" / "export_error" saying why it is missing, or
                    neither key where ferry wrap --frontend needed no such file (serialized() makes
                    it when a frontend first reads it: ferry/templates/_formats.py);
                    "filled_shapes" where the record left dimensions unknown (resolve_shapes)
reproducer_test() gives the same module and inputs as lines of a standalone script for a bug report
(ferry/oracle/reproducer.py assembles it; this module imports nothing of ferry.oracle).

The module is made the same way everywhere, by the functions of ferry/templates/runtime_torch.py
(a reproducer inlines that module whole): the random generator is seeded from the instance id, then the module is
built, then it runs once. A module's weights, and the weights a lazy module draws on its first call,
are therefore the same in the test directory, in every adapter and in a reproducer.
"""

import hashlib
import json
import math
import os
import re
import warnings

# FERRY_WRAP_SLOW=1: wrap as it was before its speed-ups (bench/wrap/run.sh times both ways).
SLOW = bool(os.environ.get("FERRY_WRAP_SLOW"))

# PyTorch's OpenMP threads spin between the small parallel regions of an instance's operators, and
# with a wrap worker per core they spin on the core another worker needs: the reference runs took 6
# times as long (5.4 ms an instance against 0.9). Passive threads sleep instead. The team and its
# split of the work stay the same, so the references are the same to the bit (a single thread would
# sum in another order). libgomp reads this once, when torch loads it: so before importing torch,
# and only where nothing imported it first (the adapters import torch before this: no effect there).
# Taken out of the environment again, so that no process this one starts inherits it.
_PASSIVE = not SLOW and "OMP_WAIT_POLICY" not in os.environ
if _PASSIVE:
    os.environ["OMP_WAIT_POLICY"] = "PASSIVE"

import numpy as np  # noqa: E402
import torch  # noqa: E402

if _PASSIVE:
    del os.environ["OMP_WAIT_POLICY"]

from ferry.extract import values as ferry_values  # noqa: E402
from ferry.templates import _files, _formats, _nan, _reproducer, environment  # noqa: E402
from ferry.templates._nan import NAN_EVERYWHERE  # noqa: E402
from ferry.templates.runtime_torch import STORED as _STORED  # noqa: E402
from ferry.templates.runtime_torch import (  # noqa: E402, F401
    FerryConst,
    FerrySlot,
    ferry_array,
    ferry_build_call,
    ferry_build_module,
    ferry_dtype,
    ferry_feed,
    ferry_fill,
    ferry_flatten,
    ferry_from_numpy,
    ferry_numpy,
    ferry_operators,
    ferry_resolve,
    ferry_script,
    ferry_tensor,
)

# The library's declarations (ferry/templates/registry.py reads them without importing this module).
LIBRARY = "torch"
# complex128 too, which PyTorch's kernels take wherever they take complex64. Not uint16, uint32 nor
# uint64: PyTorch 2 stores them but few kernels take them (not add, abs, max nor relu), so their
# candidates would be dropped nearly all, each a validation spent.
DTYPES = ("float16", "bfloat16", "float32", "float64", "complex64", "complex128", "int8", "int16", "int32",
          "int64", "uint8", "bool")
TOLERANCES = "torch.txt"
VERSIONS = ("torch",)
COUNT_ROOTS = ("torch",)
RUNTIME = "runtime_torch"
EXPORT = "pytest"

ATOL = 1e-3
RTOL = 1e-3

# The allow-list, made once per process; ferry_values.decode looks the callables, dataclasses and
# constants of records up in it too.
ferry_resolve.table = ferry_operators()
ferry_values.allow(ferry_resolve.table)


# --- from a record to a module -------------------------------------------------------------------------

class _Plan:
    """What a record says about its module: the operator, its arguments with slots for the data
    tensors and constants for the weights, the data tensors' tagged values, and for a module its
    constructor arguments and state. weights is "constant" (a weight is a buffer of the module, as
    in a real model) or "input" (every tensor is a forward input, --weights input)."""

    def __init__(self, record, weights="constant", resolve=True):
        if weights not in WEIGHTS:
            raise ValueError(f"weights must be one of {WEIGHTS}, not {weights!r}")
        # the record with concrete shapes: its unknown dimensions resolved together (resolve_shapes)
        self.filled = {}
        if resolve:
            record, self.filled = resolve_shapes(record, weights)
        self.record = record
        self.op = record["op"]
        self.kind = record["kind"]
        self.target = _operator(self.op, self.kind)  # first: a name not allowed goes no further
        self.seed = _seed(record)
        self.weights = weights
        context = record.get("context", {})
        self.tensors = []  # tagged tensor bodies, one per forward input, in slot order
        self.keys = []  # each forward input's generator key: its place among all tensors of the call
        self.constants = 0  # tensors held as constants
        self.counted = 0  # tensors seen, data and constants: weights keep the values they had as inputs
        kwargs = (context.get("kwargs", {"dict": {}})["dict"] if self.kind == "module"
                  else record.get("params", {}))
        self.data = _data_arguments(self.target, self.kind, self.op, record["inputs"], kwargs, weights)
        self.args = [self._lift(v, k in self.data) for k, v in enumerate(record["inputs"])]
        if self.kind == "module":
            self.params = {k: record["params"][k] for k in sorted(record.get("params", {}))}
            self.training = ferry_values.decode(context.get("training", {"bool": False}))
            self.dtype = context["dtype"]["dtype"] if "dtype" in context else None
            if not isinstance(self.training, bool) or not isinstance(self.dtype, (str, type(None))):
                raise ferry_values.Unmigratable("a module's training mode must be a bool and its dtype a name")
        else:
            self.params, self.training, self.dtype = {}, False, None
        self.kwargs = {k: self._lift(kwargs[k], k in self.data) for k in sorted(kwargs)}

    def _lift(self, tagged, data):
        """The live argument, with a FerrySlot for each tensor of a data argument (the tensor's body
        kept aside) and a FerryConst for each of a weight."""
        tag, body = next(iter(tagged.items()))
        if tag == "tensor":
            key = [self.counted]
            self.counted += 1
            if not data:
                self.constants += 1
                return FerryConst(_tensor(body, self.seed, key))
            self.tensors.append(body)
            self.keys.append(key)
            return FerrySlot(len(self.tensors) - 1)
        if tag in ("list", "tuple"):
            items = [self._lift(v, data) for v in body]
            return items if tag == "list" else tuple(items)
        if tag == "dict" and not _special_dict(body):
            return {k: self._lift(v, data) for k, v in body.items()}
        return _decode(tagged, self.seed, [900])

    def inputs(self):
        """The forward inputs: kept values exactly, generated ones for the rest."""
        return [_tensor(body, self.seed, key) for body, key in zip(self.tensors, self.keys)]

    def meta(self):
        """How the module was made, for meta.json: which arguments are data (positions, keyword
        names) and whether the others' tensors are constants or inputs."""
        meta = {"weights": self.weights, "data": sorted(self.data, key=lambda k: (isinstance(k, str), k))}
        if self.filled:
            # the record's unknown dimensions, as the template fixed them (a deviation from the record)
            meta["filled_shapes"] = self.filled
        return meta

    def build(self):
        """The module (FerryCall), made as ferry_build does in a reproducer."""
        if self.kind == "module":
            params = {k: _decode(v, self.seed, [1000 + i]) for i, (k, v) in enumerate(self.params.items())}
            return _build_module(self.seed, self.target, params, self.dtype, self.training, self.args, self.kwargs)
        return _build_call(self.seed, self.target, self.args, self.kwargs)


# --- data and weights ----------------------------------------------------------------------------------
#
# A real model holds its weights as constants and takes only its data as inputs. For a torch.nn module
# the weights are its parameters and buffers (module state, never forward inputs) and every tensor of
# forward's arguments is data. For a function or a Tensor method, an argument is data when it holds the
# call's first tensor (the operand: a method's self, F.conv2d's input), or when its parameter name is one
# PyTorch gives to operands (DATA_NAMES: binary ops' other, torch.cat's tensors, where's condition,
# index ops' index, losses' target); every other tensor argument (F.conv2d's weight and bias,
# F.batch_norm's running statistics, clamp's min and max) is a weight, held as a constant. The names
# of positional arguments come from the operator's signature: the Python one where it names its
# parameters, else the ATen schema of the same name (the first overload whose tensor places take
# tensors); a positional tensor argument no signature names stays data, as an unknown operand.

WEIGHTS = ("constant", "input")

DATA_NAMES = frozenset((
    # operands of elementwise, linear-algebra and reduction operators
    "input", "self", "other", "x", "x1", "x2", "y", "a", "b", "A", "B", "input1", "input2", "input3",
    "tensor", "tensors", "tensor1", "tensor2", "end", "exponent", "vec", "vec1", "vec2", "mat", "mat1",
    "mat2", "batch1", "batch2", "condition", "elements", "test_elements", "sorted_sequence",
    # index and scatter operators: where the values go and what goes there
    "index", "indices", "mask", "src", "source", "values", "value", "offsets", "per_sample_weights",
    "lengths",
    # attention and recurrence: queries, keys, values, masks and states come with the data
    "query", "key", "attn_mask", "key_padding_mask", "hx", "h0", "c0",
    # losses: what the prediction is compared with
    "target", "targets", "label", "labels", "log_probs", "input_lengths", "target_lengths", "var",
    "anchor", "positive", "negative",
    # sampling: where to sample
    "grid",
))

# Tensor's dunders are Python's operators (x + y, x[i]): all their operands are data.
_DUNDER = "__"


def _data_arguments(target, kind, op, inputs, kwargs, weights):
    """The keys of the arguments whose tensors are forward inputs: positions (int) and keyword names
    (str), among those that hold a tensor."""
    keys = [k for k, v in enumerate(inputs) if _holds_tensor(v)] + [k for k in kwargs if _holds_tensor(kwargs[k])]
    if weights == "input" or kind == "module" or op.rsplit(".", 1)[-1].startswith(_DUNDER):
        return set(keys)
    names = _parameter_names(target, kind, inputs, kwargs)
    data = {k for k in keys if isinstance(k, str) and k in DATA_NAMES}
    data |= {k for k in keys if isinstance(k, int) and (k >= len(names) or names[k] is None
                                                        or names[k] in DATA_NAMES)}
    if keys:
        data.add(keys[0])  # the first tensor's argument (positions come before keywords)
    return data


def _holds_tensor(tagged):
    tag, body = next(iter(tagged.items()))
    if tag == "tensor":
        return True
    if tag in ("list", "tuple"):
        return any(_holds_tensor(v) for v in body)
    if tag == "dict" and not _special_dict(body):
        return any(_holds_tensor(v) for v in body.values())
    return False


def _parameter_names(target, kind, inputs, kwargs):
    """The parameter name of each positional argument (None where no signature names it)."""
    import inspect

    try:
        parameters = list(inspect.signature(target).parameters.values())
    except (TypeError, ValueError):  # a builtin without a Python signature
        parameters = []
    if parameters and all(p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD) for p in parameters[:len(inputs)]) \
            and len(parameters) >= len(inputs):
        return [p.name for p in parameters[:len(inputs)]]
    name = getattr(target, "__name__", None)
    try:
        schemas = torch._C._jit_get_schemas_for_operator(f"aten::{name}") if isinstance(name, str) else []
    except RuntimeError:
        schemas = []
    fits = []
    for schema in schemas:
        arguments = [a for a in schema.arguments if not a.kwarg_only]
        if len(arguments) < len(inputs):
            continue
        tensors_fit = all("Tensor" in str(a.type) for a, v in zip(arguments, inputs) if _holds_tensor(v))
        fits.append((not tensors_fit, [a.name for a in arguments[:len(inputs)]]))
    if not fits:
        return [None] * len(inputs)
    return min(fits, key=lambda f: f[0])[1]


def _operator(op, kind):
    """The operator a record names, from the allow-list only: a torch.nn module class for kind
    "module", a function or Tensor method for "function" and "method"; Unmigratable for any other
    name, which makes the instance invalid before anything is built."""
    try:
        target = ferry_resolve(op)
    except LookupError as e:
        raise ferry_values.Unmigratable(str(e)) from None
    if kind == "module":
        if not (isinstance(target, type) and issubclass(target, torch.nn.Module)):
            raise ferry_values.Unmigratable(f"{op!r} is not a torch.nn module")
    elif kind not in ("function", "method") or isinstance(target, type) or not callable(target):
        raise ferry_values.Unmigratable(f"{op!r} is not a PyTorch {kind} operator")
    return target


_build_module = ferry_build_module
_build_call = ferry_build_call


def _special_dict(body):
    """The dicts that stand for other Python values (ferry_values' slices and dataclasses)."""
    return list(body) == ["__slice__"] or sorted(body) == ["__dataclass__", "fields"]


def _decode(tagged, seed, key):
    """A constant argument (no slots): dtypes become torch dtypes, tensors torch tensors."""
    counter = [0]

    def tensor(body):
        counter[0] += 1
        return _tensor(body, seed, key + [counter[0]])
    return ferry_values.decode(tagged, convert={"dtype": ferry_dtype, "tensor": tensor})


def _tensor(body, seed, key):
    if "values" in body:
        if any(d is None for d in body["shape"]):
            raise ferry_values.Unmigratable(f"tensor values with an unknown dimension in {body['shape']}")
        return ferry_array(body["values"], body["dtype"], body["shape"])
    return ferry_tensor(seed, key, body["dtype"], body["shape"], body.get("range"))


def _seed(record):
    """The instance id as a number; records without an id (hand-written ones) hash their identity."""
    if "id" in record:
        return int(record["id"], 16)
    identity = {k: record.get(k) for k in ("library", "op", "kind", "context", "params", "inputs", "outputs")}
    text = json.dumps(identity, sort_keys=True, separators=(",", ":"))
    return int(hashlib.sha256(text.encode()).hexdigest()[:32], 16)


# --- unknown dimensions ----------------------------------------------------------------------------------
#
# A record may leave a dimension unknown (None: a shape recorded without its sizes, a hand-written
# record). Filling each such dimension alone (with 1) made (None, 3) with (2, None) into (1, 3) and
# (2, 1): elementwise operators broadcast them, but those that tie dimensions (cat, matmul's inner
# dimension, bmm, a convolution's channels against its weight) fail, and sizes are degenerate. So
# the dimensions are resolved together, at wrap time, over every tensor of the call (data and
# weights), and the record that builds the module holds the concrete shapes: the test directory, the
# adapters (build) and a reproducer's literals make the same tensors. meta.json's "filled_shapes"
# says which tensors were so fixed (a deviation from the record).

BATCH = 2     # an unknown first dimension no other tensor knows (as the Keras template)
UNKNOWN = 8   # any other unknown dimension no tensor knows
RESOLVE_TRIES = 64  # assignments of the unknown dimensions tried on eager PyTorch at most


def _tensor_places(tagged, where, out):
    """Append (where, body) for each tagged tensor inside tagged (lists, tuples, plain dicts)."""
    tag, body = next(iter(tagged.items()))
    if tag == "tensor":
        out.append((where, body))
    elif tag in ("list", "tuple"):
        for i, v in enumerate(body):
            _tensor_places(v, f"{where}[{i}]", out)
    elif tag == "dict" and not _special_dict(body):
        for k, v in body.items():
            _tensor_places(v, f"{where}[{k!r}]", out)
    return out


def _call_places(record):
    """(where, body) of every tensor the module is made with: positional arguments, keywords (a
    module's forward keywords in its context), a module's constructor arguments."""
    out = []
    for i, v in enumerate(record.get("inputs", [])):
        _tensor_places(v, f"inputs[{i}]", out)
    for k, v in sorted(record.get("context", {}).get("kwargs", {"dict": {}}).get("dict", {}).items()):
        _tensor_places(v, f"kwargs[{k!r}]", out)
    for k, v in sorted(record.get("params", {}).items()):
        _tensor_places(v, f"params[{k!r}]", out)
    return out


def _first_guess(shapes, outputs, values):
    """Each unknown dimension's most likely size, in the order of _unknowns: a tensor with kept values
    whose one unknown dimension the number of values fixes; else the size another tensor of the call
    has at the same position from the right (where an operator that broadcasts ties them; the
    largest, as a size of 1 broadcasts to it); else the first dimension the first dimension
    (batch) another tensor has; else what a recorded output has at that position from the right;
    else BATCH or UNKNOWN, the same for every tensor."""
    by_right, batches, out_right, out_batches = {}, [], {}, []
    for source, right, batch in ((shapes, by_right, batches), (outputs, out_right, out_batches)):
        for shape in source:
            for j, d in enumerate(shape):
                if d is not None:
                    right.setdefault(len(shape) - 1 - j, []).append(d)
            if len(shape) > 1 and shape[0] is not None:
                batch.append(shape[0])
    guess = []
    for shape, count in zip(shapes, values):
        missing = [j for j, d in enumerate(shape) if d is None]
        known = math.prod(d for d in shape if d is not None)
        for j in missing:
            r = len(shape) - 1 - j
            if count is not None and len(missing) == 1 and known and count % known == 0:
                guess.append(count // known)
            elif by_right.get(r):
                guess.append(max(by_right[r]))
            elif j == 0 and len(shape) > 1 and batches:
                guess.append(batches[0])
            elif out_right.get(r):
                guess.append(max(out_right[r]))
            elif j == 0 and len(shape) > 1 and out_batches:
                guess.append(out_batches[0])
            else:
                guess.append(BATCH if j == 0 and len(shape) > 1 else UNKNOWN)
    return guess


def _assignments(guess, sizes):
    """The assignments of the unknown dimensions to try, the first guess first, then each dimension
    over the call's known sizes (its tensors' and outputs' sizes, its positive integer arguments;
    its guess first), at most RESOLVE_TRIES in all."""
    import itertools

    choices = [[g] + [s for s in sizes if s != g] for g in guess]
    return itertools.islice(itertools.product(*choices), RESOLVE_TRIES)


def _with_shapes(tagged, fill):
    """A copy of a tagged value whose tensors' shapes are fill(body)'s."""
    tag, body = next(iter(tagged.items()))
    if tag == "tensor":
        return {"tensor": {**body, "shape": fill(body)}}
    if tag in ("list", "tuple"):
        return {tag: [_with_shapes(v, fill) for v in body]}
    if tag == "dict" and not _special_dict(body):
        return {"dict": {k: _with_shapes(v, fill) for k, v in body.items()}}
    return tagged


def _substitute(record, assignment):
    """A copy of record whose tensors' unknown dimensions take assignment's sizes, in _call_places
    order (that of _tensor_places over inputs, forward keywords, constructor arguments)."""
    sizes = iter(assignment)

    def fill(body):
        return [next(sizes) if d is None else d for d in body["shape"]]
    out = dict(record)
    out["inputs"] = [_with_shapes(v, fill) for v in record.get("inputs", [])]
    context = record.get("context", {})
    if "kwargs" in context:
        kwargs = context["kwargs"].get("dict", {})
        filled = {k: _with_shapes(kwargs[k], fill) for k in sorted(kwargs)}
        out["context"] = {**context, "kwargs": {"dict": {k: filled[k] for k in kwargs}}}
    if "params" in record:
        params = record["params"]
        filled = {k: _with_shapes(params[k], fill) for k in sorted(params)}
        out["params"] = {k: filled[k] for k in params}
    return out


def _fits(record, weights, outputs):
    """Whether eager PyTorch runs the record's module on its inputs, giving tensors of the recorded
    outputs' shapes where the record knows them."""
    try:
        plan = _Plan(record, weights, resolve=False)
        with torch.no_grad():
            got = ferry_flatten(plan.build()(*plan.inputs()))
    except Exception:
        return False
    if len(got) != len(outputs):
        return True  # the outputs cannot be matched up: the run alone decides
    return all(len(t.shape) == len(shape) and all(d is None or d == e for d, e in zip(shape, t.shape))
               for t, shape in zip(got, outputs))


def _int_arguments(record):
    """The positive integers among the call's arguments (an nn.Linear's in_features, a view's sizes):
    sizes an unknown dimension may have to take that no tensor shows."""
    found = set()

    def walk(tagged):
        tag, body = next(iter(tagged.items()))
        if tag == "int" and isinstance(body, int) and 0 < body <= 1 << 16:
            found.add(body)
        elif tag in ("list", "tuple"):
            for v in body:
                walk(v)
        elif tag == "dict" and isinstance(body, dict):
            for v in body.values():
                if isinstance(v, dict) and len(v) == 1:
                    walk(v)
    for v in record.get("inputs", []):
        walk(v)
    for v in record.get("params", {}).values():
        walk(v)
    return found


def resolve_shapes(record, weights="constant"):
    """(record, filled): the record with every unknown dimension of the call's tensors resolved
    together, and {place: shape} of the tensors that had one ({} and the record itself where none
    had). The first guess (_first_guess) is kept when eager PyTorch runs the operator on it with the
    recorded outputs' shapes; else the first assignment that does; else the first guess, for eager
    PyTorch to reject with its own message."""
    places = _call_places(record)
    unknown = [(where, body) for where, body in places if None in body["shape"]]
    if not unknown:
        return record, {}
    shapes = [body["shape"] for _, body in places]
    values = [len(body["values"]) if "values" in body else None for _, body in places]
    outputs = [body["shape"] for _, body in _tensor_places({"list": record.get("outputs", [])}, "", [])]
    guess = _first_guess(shapes, outputs, values)
    sizes = sorted({d for shape in shapes + outputs for d in shape if d is not None} | {BATCH, UNKNOWN}
                   | _int_arguments(record))
    chosen = guess
    for assignment in _assignments(guess, sizes):
        if _fits(_substitute(record, assignment), weights, outputs):
            chosen = list(assignment)
            break
    resolved = _substitute(record, chosen)
    filled = {where: body["shape"] for where, body in _call_places(resolved)
              if where in {w for w, _ in unknown}}
    return resolved, filled


def build(record, weights="constant"):
    """(module, example inputs) of a record (a dict): what the adapters that start from the eager
    module use. Raises where the record cannot be made into a module."""
    plan = _Plan(record, weights)
    inputs = plan.inputs()
    return plan.build(), inputs


def load_testdir(testdir):
    """(module, example inputs) of a test directory written by wrap(), made as its meta says (weights
    as constants or as inputs; a test directory from before meta said so had them as inputs)."""
    with open(os.path.join(testdir, "record.json")) as f:
        record = json.load(f)
    return build(record, testdir_meta(testdir).get("weights", "input"))


def _options(record):
    """The wrap options ferry wrap passes in the record sent to the template (wrap_options, taken out
    of the record): {"weights": "constant" | "input"}."""
    options = record.pop("wrap_options", None) or {}
    weights = options.get("weights", "constant") if isinstance(options, dict) else None
    if weights not in WEIGHTS:
        raise ferry_values.Unmigratable(f"wrap option weights must be one of {WEIGHTS}, not {weights!r}")
    return weights


# --- wrap ----------------------------------------------------------------------------------------------

def wrap(record_json, outdir):
    """Write the test directory of one instance. Returns {"status": "ok", "random": bool, "ninputs",
    "noutputs"}, or {"status": "invalid", "reason": "<Type>: <message>"} when the instance cannot be
    built or eager PyTorch rejects it."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            record = json.loads(record_json)
            formats = _formats.requested(record)
            plan = _Plan(record, _options(record))
            inputs = plan.inputs()
            refs, random = _reference(plan, inputs)
            if not refs:
                raise ValueError("the operator returns no tensor")
            uninitialised = _uninitialised(plan.op)
            undefined = _guard(plan, inputs, refs) or (None if uninitialised
                                                       else _nan.variant_undefined(record, refs, _nan_everywhere))
    except Exception as e:  # a bad record or a rejection by PyTorch: either way the instance is invalid
        if environment(e):  # the machine failed, not the instance: nothing to record
            raise
        return {"status": "invalid", "reason": _whole(e)}
    os.makedirs(outdir, exist_ok=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        meta = {"id": record.get("id"), "op": record["op"], "kind": record["kind"],
                "random": random or bool(uninitialised), **plan.meta(),
                "inputs": [_save(outdir, "input", k, t) for k, t in enumerate(inputs)],
                "outputs": [_save(outdir, "ref", k, t) for k, t in enumerate(refs)]}
        if uninitialised:
            # compared by shape and dtype only, as a random operator is: its values are garbage
            meta["random_reason"] = uninitialised
        elif random:
            meta["random_reason"] = "the outputs differ between runs of the reference"
        if undefined:
            meta["undefined"] = undefined
        _serialize(outdir, plan, inputs, meta, formats)
    with _files.create(os.path.join(outdir, "record.json"), "w") as f:
        json.dump(record, f, separators=(",", ":"))
    with _files.create(os.path.join(outdir, "meta.json"), "w") as f:
        json.dump(meta, f, indent=1)
    result = {"status": "ok", "random": meta["random"], "ninputs": len(inputs), "noutputs": len(refs)}
    if undefined:
        result["undefined"] = undefined
    return result


def _guard(plan, inputs, refs):
    """_undefined's reason, or None (also where the guard cannot judge these arguments: the test
    stays as it is)."""
    try:
        return _undefined(plan, inputs, refs)
    except Exception:
        return None


# --- validate ------------------------------------------------------------------------------------------

def validate(record_json):
    """Whether eager PyTorch accepts a candidate record (ferry vary): the reference run of wrap()
    alone, on the same module and inputs, writing nothing. Returns {"status": "ok", "outputs": JSON
    text of the outputs as the harvest records them (the candidate's own are its parent's), and
    "undefined" where the reference lies in the undefined domain}, or {"status": "invalid",
    "reason": "<Type>: <message>"} as wrap() says it."""
    from ferry.extract import instrument_torch

    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            record = json.loads(record_json)
            plan = _Plan(record, _options(record))
            inputs = plan.inputs()
            refs, result = _reference(plan, inputs, random_check=False)
            if not refs:
                raise ValueError("the operator returns no tensor")
            # as the recorder lists a call's result: a tuple or list opened one level
            outs = list(result) if isinstance(result, (tuple, list)) else [result]
            outputs = json.dumps([instrument_torch._output(v) for v in outs], separators=(",", ":"))
            undefined = _guard(plan, inputs, refs) or (None if _uninitialised(plan.op) else _nan_everywhere(refs))
    except Exception as e:  # a bad record or a rejection by PyTorch: either way the candidate is invalid
        if environment(e):  # the machine failed, not the instance: nothing to record
            raise
        return {"status": "invalid", "reason": _whole(e)}
    result = {"status": "ok", "outputs": outputs}
    if undefined:
        result["undefined"] = undefined
    return result


def _nan_everywhere(refs):
    """NAN_EVERYWHERE where every element of every floating or complex output is NaN (one element at
    least), else None."""
    floating = [r for r in refs if r.is_floating_point() or r.is_complex()]
    if not floating or sum(r.numel() for r in floating) == 0:
        return None
    for r in floating:
        if r.dtype == torch.complex32:
            r = r.to(torch.complex64)
        if r.numel() and not bool(torch.isnan(r).all()):
            return None
    return NAN_EVERYWHERE


# --- outputs a frontend may answer anything for -------------------------------------------------------

# Operators whose output is uninitialised memory: their values are garbage, so a frontend's are
# compared by shape and dtype only (the test is marked random, with this reason).
_UNINITIALISED = frozenset(("empty", "empty_like", "empty_strided", "empty_permuted", "new_empty",
                            "new_empty_strided", "resize_", "resize_as_"))

# Integer arithmetic that wraps around where the result does not fit: C++ leaves signed overflow
# undefined and frontends saturate, widen or wrap as they like. Recomputed in int64 at wrap time.
_OVERFLOW = frozenset((
    "add", "sub", "subtract", "rsub", "mul", "multiply", "neg", "negative", "abs", "absolute", "square",
    "pow", "sum", "nansum", "prod", "cumsum", "cumprod", "diff", "trace", "matmul", "mm", "bmm", "mv",
    "dot", "vdot", "inner", "outer", "ger", "kron", "addmm", "addmv", "addbmm", "baddbmm", "addr",
    "addcmul", "tensordot", "einsum", "chain_matmul", "multi_dot", "vecdot", "cross", "linear"))
_DIVISION = frozenset(("floor_divide", "remainder", "fmod", "div", "divide"))  # div: with a rounding mode
_SHIFT = frozenset(("bitwise_left_shift", "bitwise_right_shift"))
_CAST = frozenset(("to", "type", "type_as", "int", "long", "short", "char", "byte", "int_repr"))
# Python's operators, as the named operator they are, and whether their operands come reversed.
_DUNDERS = {"add": ("add", False), "radd": ("add", True), "iadd": ("add", False),
            "sub": ("sub", False), "rsub": ("sub", True), "isub": ("sub", False),
            "mul": ("mul", False), "rmul": ("mul", True), "imul": ("mul", False),
            "matmul": ("matmul", False), "rmatmul": ("matmul", True), "imatmul": ("matmul", False),
            "pow": ("pow", False), "rpow": ("pow", True), "ipow": ("pow", False),
            "floordiv": ("floor_divide", False), "rfloordiv": ("floor_divide", True),
            "ifloordiv": ("floor_divide", False), "mod": ("remainder", False), "rmod": ("remainder", True),
            "imod": ("remainder", False), "lshift": ("bitwise_left_shift", False),
            "rlshift": ("bitwise_left_shift", True), "ilshift": ("bitwise_left_shift", False),
            "rshift": ("bitwise_right_shift", False), "rrshift": ("bitwise_right_shift", True),
            "irshift": ("bitwise_right_shift", False), "neg": ("neg", False), "abs": ("abs", False)}


def _base_name(op):
    """The operator's own name, and whether its first two operands come reversed: "torch.add" and
    "torch.Tensor.add_" are "add", "torch.Tensor.__rsub__" is "sub" reversed."""
    name = op.rsplit(".", 1)[-1]
    if name.startswith("__") and name.endswith("__"):
        return _DUNDERS.get(name[2:-2], (name, False))
    return (name[:-1] if name.endswith("_") and name[:-1] not in ("resize", "resize_as") else name), False


def _uninitialised(op):
    if op.rsplit(".", 1)[-1] in _UNINITIALISED:
        return "uninitialised memory: the operator's output values are whatever the memory held"
    return None


def _call_tensors(plan, inputs):
    """The call's arguments with its tensors in place: (positional list, keyword dict)."""
    return (ferry_fill(plan.args, inputs, lambda c: c.tensor),
            ferry_fill(plan.kwargs, inputs, lambda c: c.tensor))


def _is_int(v):
    """An integer tensor or Python int (not bool)."""
    if isinstance(v, torch.Tensor):
        return not (v.is_floating_point() or v.is_complex() or v.dtype == torch.bool)
    return isinstance(v, int) and not isinstance(v, bool)


def _any(v, test):
    return bool(test(v).any()) if isinstance(v, torch.Tensor) else bool(test(torch.tensor(v)))


def _undefined(plan, inputs, refs):
    """Why these inputs lie where the operator's result is undefined, or None. Frontends may answer
    anything there (C++ leaves it undefined), so a difference is flagged, never reported as a bug."""
    if plan.kind == "module":
        return None
    name, reversed_ = _base_name(plan.op)
    args, kwargs = _call_tensors(plan, inputs)
    operands = list(args[:2])
    second = next((kwargs[k] for k in ("other", "exponent") if k in kwargs), None)
    if len(operands) < 2 and second is not None:
        operands.append(second)
    if reversed_ and len(operands) == 2:
        operands.reverse()
    a, b = (operands + [None, None])[:2]
    if name == "pow" and _is_int(a) and _is_int(b) and _any(b, lambda t: t < 0):
        return "integer power with a negative exponent"
    if name in _DIVISION and _is_int(a) and _is_int(b) and (name not in ("div", "divide")
                                                            or kwargs.get("rounding_mode") is not None):
        if _any(b, lambda t: t == 0):
            return "integer division by zero"
        if isinstance(a, torch.Tensor) and a.dtype.is_signed:
            lowest = torch.iinfo(a.dtype).min
            if bool(((a == lowest) & (torch.as_tensor(b) == -1)).any()):
                return "integer division overflow (the lowest value by -1)"
    if name in _SHIFT and _is_int(a) and _is_int(b):
        bits = 8 * (a.element_size() if isinstance(a, torch.Tensor) else 8)
        if _any(b, lambda t: (t < 0) | (t >= bits)):
            return "shift by a negative amount or by the bit width or more"
    if name in _CAST and isinstance(a, torch.Tensor) and (a.is_floating_point() or a.is_complex()):
        for ref in refs:
            if _is_int(ref) and ref.dtype != torch.bool:
                info = torch.iinfo(ref.dtype)
                x = a.real.double() if a.is_complex() else a.double()
                if bool((~torch.isfinite(x) | (x < info.min) | (x >= info.max + 1.0)).any()):
                    return "cast of a non-finite or out-of-range float to an integer"
    if name in _OVERFLOW and _overflowed(plan, inputs, refs):
        return "integer overflow: the reference wraps around where int64 does not"
    return None


def _narrow(t):
    return isinstance(t, torch.Tensor) and _is_int(t) and t.dtype != torch.int64 and t.dtype != torch.uint64


def _overflowed(plan, inputs, refs):
    """Whether the integer reference differs from the same call on int64 tensors (the weights too)."""
    if not any(_narrow(t) for t in inputs) and plan.constants == 0:
        return False
    module = plan.build()
    narrow = [name for name, b in module._buffers.items() if _narrow(b)]  # the call's constants
    if not narrow and not any(_narrow(t) for t in inputs):
        return False
    for name in narrow:
        module._buffers[name] = module._buffers[name].to(torch.int64)
    try:
        with torch.no_grad():
            wide = list(module(*[t.to(torch.int64) if _narrow(t) else t.clone() for t in inputs]))
    except Exception:  # the operator takes no int64 here: nothing to compare with
        return False
    for ref, w in zip(refs, wide):
        if _is_int(ref) and ref.dtype != torch.bool and _is_int(w) and ref.shape == w.shape:
            if not torch.equal(ref.to(torch.int64), w.to(torch.int64)):
                return True
    return False


def _whole(e):
    """PyTorch's message whole, its terminal escapes taken out (torch.export puts the cause after a
    first line of context); a report may shorten it. Only a message past WHOLE_MAX characters (a graph
    dump) is cut, and says so."""
    text = re.sub(r"\x1b\[[0-9;]*m", "", f"{type(e).__name__}: {e}").strip()
    if len(text) > WHOLE_MAX:
        text = text[:WHOLE_MAX] + f" [... {len(text) - WHOLE_MAX} more characters]"
    return text or type(e).__name__


WHOLE_MAX = 8000


def _clones(inputs):
    return [t.clone() for t in inputs]


def _reference(plan, inputs, random_check=True):
    """The outputs of a fresh module, and whether the operator is random: two more calls of the same
    module (the generator going on, not reseeded) that give other values. With random_check False
    (validate) the first run alone: (its tensors, the result as the operator returned it)."""
    module = plan.build()
    with torch.no_grad():
        if not random_check:
            result = module.call(*_clones(inputs))
            return [r.detach() for r in ferry_flatten(result)], result
        # an in-place operator on a constant changes the module's buffer: each run starts from the first's
        state = {k: v.clone() for k, v in module.state_dict().items()}
        refs = list(module(*_clones(inputs)))
        if not refs:
            return [], False
        refs = [r.clone() for r in refs]  # an output may be the very buffer the next run resets

        def again():
            module.load_state_dict(state)
            return list(module(*_clones(inputs)))
        random = any(not _same(refs, again()) for _ in range(2))
    return [r.detach() for r in refs], random


def _same(a, b):
    if len(a) != len(b):
        return False
    for x, y in zip(a, b):
        if x.dtype != y.dtype or x.shape != y.shape:
            return False
        if x.dtype == torch.complex32:  # few kernels take it, torch.equal among the missing
            x, y = x.to(torch.complex64), y.to(torch.complex64)
        if not torch.equal(x, y):
            if not (x.is_floating_point() or x.is_complex()):
                return False
            # NaN is not equal to itself: compare the NaNs' places and the rest apart
            nx, ny = torch.isnan(x), torch.isnan(y)
            if not torch.equal(nx, ny) or not torch.equal(x[~nx], y[~ny]):
                return False
    return True


def _save(outdir, prefix, k, t):
    name = torch_dtype_name(t.dtype)
    entry = {"name": f"{'in' if prefix == 'input' else 'out'}_{k}", "kind": "tensor", "dtype": name,
             "files": [f"{prefix}_{k}.npy"]}
    if name in _STORED:
        entry["stored"] = _STORED[name]
    with _files.create(os.path.join(outdir, f"{prefix}_{k}.npy")) as f:
        np.save(f, ferry_numpy(t), allow_pickle=False)
    return entry


def torch_dtype_name(dtype):
    return str(dtype).replace("torch.", "")


# The files of the test directory by meta.json's key, and the FORMAT names the adapters read them by.
FILES = {"torchscript": ("model.ts", "ts"), "export": ("model.pt2", "pt2")}


def _serialize(outdir, plan, inputs, meta, formats=None):
    """model.ts and model.pt2, each from a freshly built module, where PyTorch can make them; only
    those of formats (FORMAT names; None: both)."""
    if _formats.wanted(formats, FILES["torchscript"][1]):
        _make_torchscript(outdir, plan, inputs, meta)
    if _formats.wanted(formats, FILES["export"][1]):
        _make_export(outdir, plan, inputs, meta)


def _make_torchscript(outdir, plan, inputs, meta):
    try:
        traced, why, how = ferry_script(plan.build(), _clones(inputs))
        meta["torchscript_by"] = how
        meta["frozen"] = why is None
        if why:
            meta["freeze_error"] = why
        with _files.create(os.path.join(outdir, "model.ts")) as f:
            torch.jit.save(traced, f)
        torch.jit.load(os.path.join(outdir, "model.ts"))  # a file that does not load back is no model
        meta["torchscript"] = "model.ts"
    except Exception as e:  # PyTorch cannot trace this operator: the TorchScript frontends skip it
        _remove(os.path.join(outdir, "model.ts"))
        meta["torchscript"] = None
        meta["torchscript_error"] = _whole(e)


def _make_export(outdir, plan, inputs, meta):
    try:
        exported = torch.export.export(plan.build(), tuple(_clones(inputs)))
        with _files.create(os.path.join(outdir, "model.pt2")) as f:
            torch.export.save(exported, f)
        if SLOW:
            # Loading the file back took a sixth of a wrap, and every frontend that reads the file
            # loads it anyway: load_exported answers for a file that does not load, as this did.
            _load_pt2(os.path.join(outdir, "model.pt2"))
        meta["export"] = "model.pt2"
    except Exception as e:  # PyTorch cannot export this operator: the export frontends skip it
        _remove(os.path.join(outdir, "model.pt2"))
        meta["export"] = None
        meta["export_error"] = _whole(e)


def _make_later(testdir, which):
    """The meta of testdir once the file which ("torchscript", "export") that ferry wrap --frontend
    left out is made, as wrap makes it: the module and inputs rebuilt from record.json, as seeded."""
    def make(meta, record):
        try:
            plan = _Plan(record, meta.get("weights", "input"))
            inputs = plan.inputs()
        except Exception as e:  # the record built at wrap; it should again
            meta[which], meta[f"{which}_error"] = None, _whole(e)
            return
        (_make_torchscript if which == "torchscript" else _make_export)(testdir, plan, inputs, meta)
    return _formats.make_later(testdir, which, make)


def _remove(path):
    try:
        os.remove(path)
    except FileNotFoundError:
        pass


# --- what the adapters share ---------------------------------------------------------------------------

def testdir_meta(testdir):
    with open(os.path.join(testdir, "meta.json")) as f:
        return json.load(f)


def testdir_example(testdir, meta):
    """The forward inputs saved in a test directory, as torch tensors of their real dtypes."""
    return [ferry_from_numpy(np.load(os.path.join(testdir, e["files"][0]), allow_pickle=False), e["dtype"])
            for e in meta["inputs"]]


def driver_inputs(meta, inputs):
    """The driver's inputs (name -> numpy array) as the list of torch tensors forward takes."""
    return [ferry_from_numpy(inputs[e["name"]], e["dtype"]) for e in meta["inputs"]]


class NotSerialized(Exception):
    """The template could not make the file an adapter loads (tracing or export failed in PyTorch
    itself): the frontend cannot be tested on this operator, which is not its bug."""


def serialized(testdir, which):
    """The path of model.ts ("torchscript") or model.pt2 ("export"), or NotSerialized with the
    template's reason; made first where ferry wrap --frontend left it out."""
    meta = testdir_meta(testdir)
    if _formats.left(meta, which):  # ferry wrap --frontend did not need it: made now, once
        meta = _make_later(testdir, which)
    if not meta.get(which):
        raise NotSerialized(f"ferry: PyTorch could not make the {which} model: "
                            f"{meta.get(which + '_error', 'unknown reason')}")
    return os.path.join(testdir, meta[which])


def _load_pt2(path):
    """torch.export.load of path with pickle kept to weights: the loader falls back to an unrestricted
    torch.load (weights_only=False, which runs whatever the pickle names) when the weights-only load
    fails, and a wrap directory is data that may come from someone else. PyTorch's own switch,
    TORCH_FORCE_WEIGHTS_ONLY_LOAD, turns that fallback into weights-only too, for this call."""
    key = "TORCH_FORCE_WEIGHTS_ONLY_LOAD"
    before = os.environ.get(key)
    os.environ[key] = "1"
    try:
        return torch.export.load(path)
    finally:
        if before is None:
            del os.environ[key]
        else:
            os.environ[key] = before


def load_exported(testdir):
    """The ExportedProgram of a test directory. Some operators register the custom ops their graphs
    call only when they first run (linear_cross_entropy's torch_nn ops): a file that does not load
    is loaded again after the eager module has run once in this process. One that still does not
    load is no model: NotSerialized, as where torch.export failed, and meta.json says so from then
    on (wrap saves the file without loading it back: the frontends' workers load it anyway)."""
    path = serialized(testdir, "export")
    try:
        return _load_pt2(path)
    except Exception:
        pass
    try:
        module, inputs = load_testdir(testdir)
        with torch.no_grad():
            module(*inputs)
    except Exception:  # the eager run only registers what the graph calls; the load below judges
        pass
    try:
        return _load_pt2(path)
    except Exception as e:
        why = f"the saved model does not load back: {_whole(e)}"

    def unloadable(meta):  # under the lock: another worker reading the file meanwhile fails too
        meta["export"], meta["export_error"] = None, why
        _remove(path)
    meta = _formats.update(testdir, "export", unloadable)
    raise NotSerialized(f"ferry: PyTorch could not make the export model: {meta.get('export_error') or why}")


def adapter_outputs(values):
    """A frontend's outputs as numpy arrays in the dtypes the driver compares: bfloat16, float8 and
    complex32 as ml_dtypes arrays (their stored references are checked against those), the rest as
    numpy has them."""
    out = []
    for v in values:
        if isinstance(v, torch.Tensor):
            name = torch_dtype_name(v.dtype)
            array = ferry_numpy(v)
            if name in _STORED:
                import ml_dtypes
                array = array.astype(getattr(ml_dtypes, name))
            out.append(array)
        else:
            out.append(np.asarray(v))
    return out


# --- reproducer ----------------------------------------------------------------------------------------

def reproducer_test(record_json, testdir):
    """The test's own part of a reproducer script (ferry/oracle/reproducer.py assembles the script,
    with the PyTorch runtime and the frontend's module, whole): the record's module and inputs as
    literals, eager PyTorch's run, the frontend's (run_frontend, on a fresh module and the inputs)
    and ferry_compare's verdict with the script's ATOL and RTOL; every string from the record
    appears as a repr literal. testdir is read (not by the script) for whether it is random.
    Returns a dict: what, instance, source (for the header's comments), reference, name, imports, test."""
    record = json.loads(record_json)
    meta = _reproducer.testdir_meta(testdir)
    random = meta.get("random", False)
    plan = _Plan(record, meta.get("weights", "input"))
    record = plan.record  # its unknown dimensions resolved: the literals hold the shapes the test has

    if plan.kind == "module":
        params = "{" + ", ".join(f"{k!r}: {_lit(v, [1000 + i])}" for i, (k, v) in enumerate(plan.params.items())) + "}"
        make = (f"ferry_build_module(SEED, ferry_resolve({plan.op!r}), {params}, {plan.dtype!r}, "
                f"{plan.training!r}, ARGS, KWARGS)")
    else:
        make = f"ferry_build_call(SEED, ferry_resolve({plan.op!r}), ARGS, KWARGS)"
    # numbered as _Plan numbers them: the positional arguments, then the keywords by name; data
    # tensors are forward inputs (FerrySlot), the others constants of the module (FerryConst)
    slots = [0, 0]  # forward inputs, all tensors
    args = "[" + ", ".join(_slot_lit(v, slots, plan, k in plan.data) for k, v in enumerate(record["inputs"])) + "]"
    kwargs_tagged = record.get("context", {}).get("kwargs", {"dict": {}})["dict"] if plan.kind == "module" \
        else record.get("params", {})
    kwargs = "{" + ", ".join(f"{k!r}: {_slot_lit(kwargs_tagged[k], slots, plan, k in plan.data)}"
                             for k in sorted(kwargs_tagged)) + "}"
    inputs = "\n".join(f"    {_tensor_lit(body, key)}," for body, key in zip(plan.tensors, plan.keys))
    source = record.get("source", {})
    test = f'''SEED = {plan.seed}
RANDOM = {random!r}  # True for a random operator: then only dtypes and shapes are compared
ARGS = {args}
KWARGS = {kwargs}


def build():
    return {make}


inputs = [
{inputs}
]
''' + _reproducer.tail("    with torch.no_grad():\n        reference = list(build()(*[t.clone() for t in inputs]))",
                        "build(), [t.clone() for t in inputs]", "inputs[0] if inputs else None", "eager PyTorch")
    return {"what": f"{record['op']} ({record['kind']})", "instance": record.get("id", "-"),
            "source": " ".join(str(source[k]) for k in ("suite", "test") if k in source),
            "reference": "eager PyTorch", "name": "PyTorch", "imports": "import sys\nimport traceback\n", "test": test}


def _slot_lit(tagged, slots, plan, data):
    """Source text of an argument with slots: each tensor of a data argument becomes FerrySlot(k), k
    counted in slots[0], each of a weight FerryConst(its value), keyed by slots[1] as _Plan keys it."""
    def slot(body):
        slots[1] += 1
        if not data:
            return f"FerryConst({_tensor_lit(body, [slots[1] - 1])})"
        slots[0] += 1
        return f"FerrySlot({slots[0] - 1})"

    return _reproducer.slot_lit(tagged, slot, _special_dict, lambda constant: _lit(constant, [900]))


def _lit(tagged, key, counter=None):
    """Source text that rebuilds a constant tagged value as _decode does."""
    return _reproducer.lit(tagged, key, _own_lit, counter)


def _own_lit(tag, body, key, counter):
    """PyTorch's part of _lit: dtypes, tensors and dataclasses."""
    if tag == "dtype":
        return f"ferry_dtype({body!r})"
    if tag == "tensor":
        counter[0] += 1
        return _tensor_lit(body, key + [counter[0]])
    if tag == "dict" and _special_dict(body):
        ferry_values.decode({"dict": body}, convert={"dtype": ferry_dtype, "tensor": lambda b: None})
        return f"ferry_resolve({body['__dataclass__']['callable']!r})(**{_lit(body['fields'], key, counter)})"
    return None


def _tensor_lit(body, key):
    if "values" in body:
        category = ferry_values.dtype_category(body["dtype"]) if body["dtype"] != "complex32" else "complex"
        values = _reproducer.values_lit(body["values"], category)
        return f"ferry_array({values}, {body['dtype']!r}, {body['shape']!r})"
    return f"ferry_tensor(SEED, {key!r}, {body['dtype']!r}, {body['shape']!r}, {body.get('range')!r})"
