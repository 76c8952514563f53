"""ferry.templates.torch: a PyTorch operator instance -> a single-operator torch.nn.Module, its example inputs,
the reference outputs of eager PyTorch, and the module serialized for the frontends.

The module is a FerryCall: it holds the operator (a torch.nn module built from the instance's
constructor arguments, or a torch function or Tensor method) with every argument that is not a tensor
fixed, and takes the tensors as its forward inputs, in order: the positional arguments' tensors (those
inside lists too), then those of the keyword arguments by name. It returns the tensors of the
operator's result as a flat tuple.

wrap() writes a test directory:
    record.json     the instance, from which build() makes the same module again (the adapters that
                    start from the eager module use it: TorchInductor, the ONNX exporter)
    model.ts        the module as TorchScript (torch.jit.trace), where tracing works
    model.pt2       the module as an ExportedProgram (torch.export), where exporting works
    input_K.npy     forward input K
    ref_K.npy       output K as eager PyTorch computes it
    meta.json       {"id", "op", "kind", "random", "inputs", "outputs"} in the form ferry.oracle.driver
                    reads ("stored" where numpy cannot hold the dtype: bfloat16 and float8 as
                    float32, complex32 as complex64), and "torchscript" and "export": the file, or
                    null with "torchscript_error" / "export_error" saying why it is missing
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
import warnings

import numpy as np
import torch

from ferry.extract import values as ferry_values
from ferry.templates.runtime_torch import STORED as _STORED
from ferry.templates.runtime_torch import (  # noqa: F401
    FerrySlot,
    ferry_array,
    ferry_build_call,
    ferry_build_module,
    ferry_dtype,
    ferry_feed,
    ferry_flatten,
    ferry_from_numpy,
    ferry_numpy,
    ferry_operators,
    ferry_resolve,
    ferry_tensor,
)

ATOL = 1e-3
RTOL = 1e-3

# The allow-list, made once per process; ferry_values.decode looks the callables, dataclasses and
# constants of records up in it too.
ferry_resolve.table = ferry_operators()
ferry_values.allow(ferry_resolve.table)


# --- from a record to a module -------------------------------------------------------------------------

class _Plan:
    """What a record says about its module: the operator, its arguments with slots for the tensors,
    the tensors' tagged values, and for a module its constructor arguments and state."""

    def __init__(self, record):
        self.record = record
        self.op = record["op"]
        self.kind = record["kind"]
        self.target = _operator(self.op, self.kind)  # first: a name not allowed goes no further
        self.seed = _seed(record)
        context = record.get("context", {})
        self.tensors = []  # tagged tensor bodies, one per forward input, in slot order
        self.args = [self._lift(v) for v in record["inputs"]]
        if self.kind == "module":
            self.params = {k: record["params"][k] for k in sorted(record.get("params", {}))}
            self.training = ferry_values.decode(context.get("training", {"bool": False}))
            self.dtype = context["dtype"]["dtype"] if "dtype" in context else None
            if not isinstance(self.training, bool) or not isinstance(self.dtype, (str, type(None))):
                raise ferry_values.Unmigratable("a module's training mode must be a bool and its dtype a name")
            kwargs = context.get("kwargs", {"dict": {}})["dict"]
        else:
            self.params, self.training, self.dtype = {}, False, None
            kwargs = record.get("params", {})
        self.kwargs = {k: self._lift(kwargs[k]) for k in sorted(kwargs)}

    def _lift(self, tagged):
        """The live argument, with a FerrySlot for each tensor (the tensor's body kept aside)."""
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
        """The forward inputs: kept values exactly, generated ones for the rest."""
        return [_tensor(body, self.seed, [k]) for k, body in enumerate(self.tensors)]

    def build(self):
        """The module (FerryCall), made as ferry_build does in a reproducer."""
        if self.kind == "module":
            params = {k: _decode(v, self.seed, [1000 + i]) for i, (k, v) in enumerate(self.params.items())}
            return _build_module(self.seed, self.target, params, self.dtype, self.training, self.args, self.kwargs)
        return _build_call(self.seed, self.target, self.args, self.kwargs)


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


def build(record):
    """(module, example inputs) of a record (a dict): what the adapters that start from the eager
    module use. Raises where the record cannot be made into a module."""
    plan = _Plan(record)
    inputs = plan.inputs()
    return plan.build(), inputs


def load_testdir(testdir):
    """(module, example inputs) of a test directory written by wrap()."""
    with open(os.path.join(testdir, "record.json")) as f:
        return build(json.load(f))


# --- wrap ----------------------------------------------------------------------------------------------

def wrap(record_json, outdir):
    """Write the test directory of one instance. Returns {"status": "ok", "random": bool, "ninputs",
    "noutputs"}, or {"status": "invalid", "reason": "<Type>: <message>"} when the instance cannot be
    built or eager PyTorch rejects it."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            record = json.loads(record_json)
            plan = _Plan(record)
            inputs = plan.inputs()
            refs, random = _reference(plan, inputs)
    except Exception as e:  # a bad record or a rejection by PyTorch: either way the instance is invalid
        return {"status": "invalid", "reason": _one_line(e)}
    os.makedirs(outdir, exist_ok=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        meta = {"id": record.get("id"), "op": record["op"], "kind": record["kind"], "random": random,
                "inputs": [_save(outdir, "input", k, t) for k, t in enumerate(inputs)],
                "outputs": [_save(outdir, "ref", k, t) for k, t in enumerate(refs)]}
        _serialize(outdir, plan, inputs, meta)
    with open(os.path.join(outdir, "record.json"), "w") as f:
        json.dump(record, f, separators=(",", ":"))
    with open(os.path.join(outdir, "meta.json"), "w") as f:
        json.dump(meta, f, indent=1)
    return {"status": "ok", "random": random, "ninputs": len(inputs), "noutputs": len(refs)}


def _one_line(e):
    text = f"{type(e).__name__}: {e}".strip().splitlines()
    return text[0][:300] if text else type(e).__name__


def _clones(inputs):
    return [t.clone() for t in inputs]


def _reference(plan, inputs):
    """The outputs of a fresh module, and whether the operator is random: two more calls of the same
    module (the generator going on, not reseeded) that give other values."""
    module = plan.build()
    with torch.no_grad():
        refs = list(module(*_clones(inputs)))
        if not refs:
            raise ValueError("the operator returns no tensor")
        random = any(not _same(refs, list(module(*_clones(inputs)))) for _ in range(2))
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
    np.save(os.path.join(outdir, f"{prefix}_{k}.npy"), ferry_numpy(t), allow_pickle=False)
    return entry


def torch_dtype_name(dtype):
    return str(dtype).replace("torch.", "")


def _serialize(outdir, plan, inputs, meta):
    """model.ts and model.pt2, each from a freshly built module, where PyTorch can make them."""
    try:
        traced = torch.jit.trace(plan.build(), tuple(_clones(inputs)), check_trace=False, strict=False)
        torch.jit.save(traced, os.path.join(outdir, "model.ts"))
        torch.jit.load(os.path.join(outdir, "model.ts"))  # a file that does not load back is no model
        meta["torchscript"] = "model.ts"
    except Exception as e:  # PyTorch cannot trace this operator: the TorchScript frontends skip it
        _remove(os.path.join(outdir, "model.ts"))
        meta["torchscript"] = None
        meta["torchscript_error"] = _one_line(e)
    try:
        exported = torch.export.export(plan.build(), tuple(_clones(inputs)))
        torch.export.save(exported, os.path.join(outdir, "model.pt2"))
        torch.export.load(os.path.join(outdir, "model.pt2"))
        meta["export"] = "model.pt2"
    except Exception as e:  # PyTorch cannot export this operator: the export frontends skip it
        _remove(os.path.join(outdir, "model.pt2"))
        meta["export"] = None
        meta["export_error"] = _one_line(e)


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
    template's reason."""
    meta = testdir_meta(testdir)
    if not meta.get(which):
        raise NotSerialized(f"ferry: PyTorch could not make the {which} model: "
                            f"{meta.get(which + '_error', 'unknown reason')}")
    return os.path.join(testdir, meta[which])


def load_exported(testdir):
    """The ExportedProgram of a test directory. Some operators register the custom ops their graphs
    call only when they first run (linear_cross_entropy's torch_nn ops): a file that does not load
    is loaded again after the eager module has run once in this process."""
    path = serialized(testdir, "export")
    try:
        return torch.export.load(path)
    except RuntimeError:
        module, inputs = load_testdir(testdir)
        with torch.no_grad():
            module(*inputs)
        return torch.export.load(path)


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
    plan = _Plan(record)
    random = False
    meta_path = os.path.join(testdir, "meta.json")
    if os.path.exists(meta_path):
        with open(meta_path) as f:
            random = json.load(f).get("random", False)

    if plan.kind == "module":
        params = "{" + ", ".join(f"{k!r}: {_lit(v, [1000 + i])}" for i, (k, v) in enumerate(plan.params.items())) + "}"
        make = (f"ferry_build_module(SEED, ferry_resolve({plan.op!r}), {params}, {plan.dtype!r}, "
                f"{plan.training!r}, ARGS, KWARGS)")
    else:
        make = f"ferry_build_call(SEED, ferry_resolve({plan.op!r}), ARGS, KWARGS)"
    slots = [0]  # numbered as _Plan numbers them: the positional arguments, then the keywords by name
    args = "[" + ", ".join(_slot_lit(v, slots) for v in record["inputs"]) + "]"
    kwargs_tagged = record.get("context", {}).get("kwargs", {"dict": {}})["dict"] if plan.kind == "module" \
        else record.get("params", {})
    kwargs = "{" + ", ".join(f"{k!r}: {_slot_lit(kwargs_tagged[k], slots)}" for k in sorted(kwargs_tagged)) + "}"
    inputs = "\n".join(f"    {_tensor_lit(body, [k])}," for k, body in enumerate(plan.tensors))
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
try:
    with torch.no_grad():
        reference = list(build()(*[t.clone() for t in inputs]))
except Exception:
    traceback.print_exc()
    print(f"eager PyTorch itself failed: this reproducer shows nothing about {{FRONTEND}}")
    sys.exit(2)
try:
    outputs = run_frontend(build(), [t.clone() for t in inputs])
except Exception:
    traceback.print_exc()
    print(f"BUG: {{FRONTEND}} raised")
    sys.exit(1)
problems = ferry_compare(list(outputs), reference, ATOL, RTOL, RANDOM, ties=(OP, inputs[0] if inputs else None))
for problem in problems:
    print("BUG:", problem)
if not problems:
    print(f"no bug: {{FRONTEND}} agrees with eager PyTorch")
sys.exit(1 if problems else 0)
'''
    return {"what": f"{record['op']} ({record['kind']})", "instance": record.get("id", "-"),
            "source": " ".join(str(source[k]) for k in ("suite", "test") if k in source),
            "reference": "eager PyTorch", "name": "PyTorch", "imports": "import sys\nimport traceback\n", "test": test}


def _slot_lit(tagged, slots):
    """Source text of an argument with slots: each tensor becomes FerrySlot(k), k counted in slots."""
    tag, body = next(iter(tagged.items()))
    if tag == "tensor":
        slots[0] += 1
        return f"FerrySlot({slots[0] - 1})"
    if tag in ("list", "tuple"):
        items = [_slot_lit(v, slots) for v in body]
        return "[" + ", ".join(items) + "]" if tag == "list" else "(" + "".join(i + ", " for i in items) + ")"
    if tag == "dict" and not _special_dict(body):
        return "{" + ", ".join(f"{k!r}: {_slot_lit(v, slots)}" for k, v in body.items()) + "}"
    return _lit(tagged, [900])


def _lit(tagged, key, counter=None):
    """Source text that rebuilds a constant tagged value as _decode does."""
    if counter is None:
        counter = [0]
    tag, body = next(iter(tagged.items()))
    if tag == "none":
        return "None"
    if tag in ("bool", "str"):
        return repr(body)
    if tag == "int":
        return repr(ferry_values.decode_int(body))
    if tag == "float":
        return _float_lit(ferry_values.decode_float(body))
    if tag == "dtype":
        return f"ferry_dtype({body!r})"
    if tag == "callable":
        return f"ferry_resolve({body!r})"
    if tag == "tensor":
        counter[0] += 1
        return _tensor_lit(body, key + [counter[0]])
    if tag == "list":
        return "[" + ", ".join(_lit(v, key, counter) for v in body) + "]"
    if tag == "tuple":
        return "(" + "".join(_lit(v, key, counter) + ", " for v in body) + ")"
    if tag == "dict":
        if list(body) == ["__slice__"]:
            return "slice" + _lit(body["__slice__"], key, counter)
        if _special_dict(body):
            ferry_values.decode({"dict": body}, convert={"dtype": ferry_dtype, "tensor": lambda b: None})
            return f"ferry_resolve({body['__dataclass__']['callable']!r})(**{_lit(body['fields'], key, counter)})"
        return "{" + ", ".join(f"{k!r}: {_lit(v, key, counter)}" for k, v in body.items()) + "}"
    raise ferry_values.Unmigratable(f"no literal for a {tag} value")


def _float_lit(f):
    if math.isnan(f):
        return "float('nan')"
    if math.isinf(f):
        return "float('inf')" if f > 0 else "-float('inf')"
    return repr(f)


def _tensor_lit(body, key):
    if "values" in body:
        values = body["values"]
        category = ferry_values.dtype_category(body["dtype"]) if body["dtype"] != "complex32" else "complex"
        if category == "float":
            values = "[" + ", ".join(_float_lit(ferry_values.decode_float(v)) for v in values) + "]"
        elif category == "int":
            values = repr([ferry_values.decode_int(v) for v in values])
        else:
            values = repr(values)
        return f"ferry_array({values}, {body['dtype']!r}, {body['shape']!r})"
    return f"ferry_tensor(SEED, {key!r}, {body['dtype']!r}, {body['shape']!r}, {body.get('range')!r})"
