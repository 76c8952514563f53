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
reproducer() writes the same module and inputs as a standalone script for a bug report.

The module is made the same way everywhere, by the self-contained functions below (a reproducer
carries their source): the random generator is seeded from the instance id, then the module is
built, then it runs once. A module's weights, and the weights a lazy module draws on its first call,
are therefore the same in the test directory, in every adapter and in a reproducer.
"""

import hashlib
import inspect
import json
import math
import os
import warnings

import numpy as np
import torch

from ferry.extract import values as ferry_values  # noqa: E402

ATOL = 1e-3
RTOL = 1e-3

# torch dtypes numpy cannot save, and the dtype their files hold instead (which holds their values).
_STORED = {"bfloat16": "float32", "complex32": "complex64", "float8_e4m3fn": "float32",
           "float8_e5m2": "float32", "float8_e4m3fnuz": "float32", "float8_e5m2fnuz": "float32",
           "float8_e8m0fnu": "float32"}


# --- self-contained: reproducers carry the source of these ---------------------------------------------

def ferry_dtype(name):
    """The torch dtype a record's dtype name stands for ("float32" -> torch.float32)."""
    dtype = getattr(torch, name, None)
    if not isinstance(dtype, torch.dtype):
        raise TypeError(f"no torch dtype {name!r}")
    return dtype


def ferry_operators():
    """The allow-list: name -> object, for every PyTorch operator and value a record may name. It is
    enumerated once from PyTorch's public namespaces; a record's name is then looked up in it, never
    resolved by walking attributes (torch imports os, sys, builtins and ctypes: "torch.os.system"
    would reach a shell). What is in it, and why:
    - the functions of torch, torch.functional, torch.nn.functional, torch.special, torch.linalg and
      torch.fft that are tensor operators: those PyTorch lists as overridable (they take tensors and
      dispatch __torch_function__, which is how the harvest sees them, naming them by
      torch.overrides.resolve_name) and PyTorch's compiled ATen functions in these namespaces (the
      tensor factories among them: torch.zeros, torch.arange). Not the rest of those namespaces:
      files (load, save, from_file), TorchScript's parsers and importers, threads and futures (fork,
      wait), global state (set_*, seeds, autocast), queries that give no tensor (get_*, is_*), the
      compiler and the functions that trace or call other functions (compile, vmap, cond);
    - Tensor methods: the public ones and the dunders that are Python's operators (x + y, x[i]), not
      type() (it imports a module a string names), storage, hooks, apply_ and map_ (they call a
      Python callable), backward and the like;
    - torch.nn's public module classes (subclasses of torch.nn.Module less the containers, as the
      harvest names them) and the options dataclasses torch.nn exports (LinearCrossEntropyOptions);
    - memory formats and layouts (torch.channels_last, torch.strided), which records name as values.
    Each object is also entered under its qualified name (module.qualname: "torch._C._nn.gelu" for
    torch.nn.functional.gelu), which is the name a callable passed as an argument is recorded by.
    Only objects of torch's own modules count, whatever namespace holds them."""
    import dataclasses
    import types

    namespaces = {"torch": torch, "torch.functional": torch.functional, "torch.nn.functional": torch.nn.functional,
                  "torch.special": torch.special, "torch.linalg": torch.linalg, "torch.fft": torch.fft}
    not_functions = {f"torch.{name}" for name in (
        "load", "save", "from_file", "frombuffer", "from_dlpack", "to_dlpack", "import_ir_module",
        "import_ir_module_from_buffer", "parse_ir", "parse_schema", "parse_type_comment",
        "merge_type_from_type_comment", "unify_type_list", "fork", "wait", "compile", "vmap", "cond", "while_loop",
        "manual_seed", "seed", "initial_seed", "init_num_threads", "clear_autocast_cache",
        "use_deterministic_algorithms", "typename", "prepare_multiprocessing_environment",
        "thread_safe_generator")}
    not_methods = {"type", "storage", "untyped_storage", "share_memory_", "register_hook",
                   "register_post_accumulate_grad_hook", "backward", "apply_", "map_", "map2_", "module_load",
                   "as_subclass", "pin_memory", "record_stream", "cuda", "xpu", "ipu", "mtia", "tolist", "numpy"}
    dunders = {f"__{op}__" for op in (
        "abs", "neg", "pos", "invert", "getitem", "setitem", "eq", "ne", "lt", "le", "gt", "ge",
        *(f"{p}{op}" for op in ("add", "sub", "mul", "matmul", "truediv", "div", "floordiv", "mod", "pow",
                                "and", "or", "xor", "lshift", "rshift") for p in ("", "r", "i")))}
    containers = {"Module", "Sequential", "ModuleList", "ModuleDict", "ParameterList", "ParameterDict",
                  "Container"}

    def torch_own(obj):
        return str(getattr(obj, "__module__", None) or "").split(".")[0] == "torch"

    def qualified(obj):
        module, name = getattr(obj, "__module__", None), getattr(obj, "__qualname__", None)
        return f"{module}.{name}" if module and name else None

    overridable = set()
    for functions in torch.overrides.get_overridable_functions().values():
        for f in functions:
            try:
                overridable.add(f)
            except TypeError:  # an unhashable entry is no function
                pass
    table = {"builtins.Ellipsis": Ellipsis}
    for prefix, namespace in namespaces.items():
        for name, obj in list(vars(namespace).items()):
            if (name.startswith(("_", "set_", "get_", "is_", "autocast_")) or f"{prefix}.{name}" in not_functions
                    or isinstance(obj, (type, types.ModuleType)) or not callable(obj) or not torch_own(obj)):
                continue
            # torch's own namespace holds much besides operators, so there only what PyTorch calls one;
            # the others are libraries of operators, where a function defined in the namespace is one
            # too (torch.nn.functional.hardswish, which PyTorch does not list as overridable)
            if (obj in overridable or isinstance(obj, types.BuiltinFunctionType)
                    or (prefix != "torch" and getattr(obj, "__module__", None) == prefix)):
                table[f"{prefix}.{name}"] = obj
    for name in dir(torch.Tensor):
        if (name.startswith("_") and name not in dunders) or name in not_methods:
            continue
        obj = getattr(torch.Tensor, name, None)
        if callable(obj) and not isinstance(obj, type):
            table[f"torch.Tensor.{name}"] = obj
    for name, obj in list(vars(torch.nn).items()):
        if name.startswith("_") or not isinstance(obj, type) or not torch_own(obj):
            continue
        if (issubclass(obj, torch.nn.Module) and name not in containers) or dataclasses.is_dataclass(obj):
            table[f"torch.nn.{name}"] = obj
    for name, obj in list(vars(torch).items()):
        if not name.startswith("_") and isinstance(obj, (torch.memory_format, torch.layout)):
            table[f"torch.{name}"] = obj
    for obj in list(table.values()):
        for name in (qualified(obj), torch.overrides.resolve_name(obj) if callable(obj) else None):
            if name:
                table.setdefault(name, obj)
    return table


def ferry_resolve(name):
    """The object a record's name ("torch.nn.Conv2d", "torch.add", "torch.channels_last") denotes:
    looked up in the allow-list of ferry_operators(), never found by walking attributes of modules."""
    table = getattr(ferry_resolve, "table", None)
    if table is None:
        table = ferry_resolve.table = ferry_operators()
    if not isinstance(name, str) or name not in table:
        raise LookupError(f"{name!r} is not a PyTorch operator ferry allows")
    return table[name]


def ferry_tensor(seed, key, dtype, shape, bounds):
    """Deterministic data for a tensor whose values the record did not keep: uniform in bounds
    ([lo, hi]) when given, else standard normal floats, small integers, random bools. seed comes from
    the instance id; key (a list of small integers) tells the tensors of an instance apart."""
    rng = np.random.default_rng([seed, *key])
    shape = [1 if d is None else d for d in shape]
    target = ferry_dtype(dtype)
    if target == torch.bool:
        array = rng.integers(0, 2, size=shape).astype(bool)
    elif target.is_complex:
        lo, hi = bounds if bounds else (-1.0, 1.0)
        parts = rng.uniform(lo, hi, size=[2, *shape])
        array = parts[0] + 1j * parts[1]
    elif target.is_floating_point:
        array = rng.uniform(bounds[0], bounds[1], size=shape) if bounds else rng.standard_normal(size=shape)
    else:
        info = torch.iinfo(target)
        lo, hi = bounds if bounds else ((0, 5) if info.min == 0 else (-5, 5))
        lo, hi = max(int(lo), info.min), min(int(hi), info.max)
        if hi >= 2 ** 63:  # beyond int64: draw from uint64
            array = rng.integers(lo, hi, endpoint=True, size=shape, dtype=np.uint64)
        else:
            array = rng.integers(lo, hi, endpoint=True, size=shape, dtype=np.int64)
    return torch.from_numpy(np.asarray(array, order="C")).to(target)


def ferry_array(values, dtype, shape):
    """A tensor with the record's kept values: the numbers converted once to the dtype (through
    float64 or int64, as exactly as Python holds them)."""
    target = ferry_dtype(dtype)
    if target == torch.bool:
        array = np.array(values, dtype=bool)
    elif target.is_floating_point or target.is_complex:
        array = np.array([float(v) for v in values], dtype=np.float64)
    elif target == torch.uint64:
        array = np.array([int(v) for v in values], dtype=np.uint64)
    else:
        array = np.array([int(v) for v in values], dtype=np.int64)
    return torch.from_numpy(array.reshape(shape)).to(target)


class FerrySlot:
    """Where forward input k goes in the operator's arguments."""

    def __init__(self, k):
        self.k = k

    def __repr__(self):
        return f"FerrySlot({self.k})"


class FerryCall(torch.nn.Module):
    """One operator call: op(*args, **kwargs), with forward's inputs in the args' FerrySlots; returns
    the tensors of the result, flattened, as a tuple."""

    def __init__(self, op, args, kwargs):
        super().__init__()
        if isinstance(op, torch.nn.Module):
            self.module = op  # a submodule, so that tracing and export see its parameters
            self.fn = None
        else:
            self.module = None
            self.fn = op
        self.args = args
        self.kwargs = kwargs

    def forward(self, *inputs):
        def fill(v):
            if isinstance(v, FerrySlot):
                return inputs[v.k]
            if isinstance(v, list):
                return [fill(x) for x in v]
            if isinstance(v, tuple):
                return tuple(fill(x) for x in v)
            if isinstance(v, dict):
                return {k: fill(x) for k, x in v.items()}
            return v
        op = self.module if self.fn is None else self.fn
        return tuple(ferry_flatten(op(*fill(self.args), **fill(self.kwargs))))


def ferry_flatten(out):
    """The tensors of a result, in order: tuples, lists and dicts opened, other values dropped."""
    if isinstance(out, torch.Tensor):
        return [out]
    if isinstance(out, (tuple, list)):
        return [t for v in out for t in ferry_flatten(v)]
    if isinstance(out, dict):
        return [t for v in out.values() for t in ferry_flatten(v)]
    return []


def ferry_numpy(t):
    """A tensor's values as a numpy array; dtypes numpy lacks widened (bfloat16, float8 to float32,
    complex32 to complex64)."""
    t = t.detach().cpu().resolve_conj().resolve_neg()
    if t.dtype == torch.complex32:
        t = t.to(torch.complex64)
    elif t.is_floating_point() and t.dtype not in (torch.float16, torch.float32, torch.float64):
        t = t.to(torch.float32)
    return t.numpy()


def ferry_feed(t):
    """A tensor as the numpy array a frontend is fed: of the same dtype, ml_dtypes' for bfloat16 and
    float8 (numpy has none); complex32, which nothing else has, as complex64."""
    t = t.detach().cpu().resolve_conj().resolve_neg()
    name = str(t.dtype).replace("torch.", "")
    if t.dtype == torch.complex32:
        return t.to(torch.complex64).numpy()
    if name.startswith(("bfloat16", "float8")):
        import ml_dtypes
        return t.to(torch.float32).numpy().astype(getattr(ml_dtypes, name))
    return t.numpy()


def ferry_compare(outputs, reference, random):
    """Problems found comparing a frontend's outputs with the reference (empty: none): as many
    outputs, the same dtypes and shapes, NaN in the same places, |a - b| <= ATOL + RTOL * |ref|
    elsewhere; only dtypes and shapes when the operator is random."""
    if len(outputs) != len(reference):
        return [f"{len(outputs)} outputs, the reference has {len(reference)}"]
    problems = []
    for k, (out, ref) in enumerate(zip(outputs, reference)):
        o = ferry_numpy(out) if isinstance(out, torch.Tensor) else np.asarray(out)
        if o.dtype.name.startswith(("bfloat16", "float8")):  # ml_dtypes' arrays: as ferry_numpy widens
            o = o.astype(np.float32)
        elif o.dtype.name == "complex32":
            o = o.astype(np.complex64)
        r = ferry_numpy(ref)
        if o.dtype != r.dtype or o.shape != r.shape:
            problems.append(f"output {k}: {o.dtype}{list(o.shape)}, reference {r.dtype}{list(r.shape)}")
            continue
        if random:
            continue
        if o.dtype.kind == "c":
            o, r = np.stack([o.real, o.imag]), np.stack([r.real, r.imag])
        a, b = o.astype(np.float64), r.astype(np.float64)
        nan_a, nan_b = np.isnan(a), np.isnan(b)
        if not np.array_equal(nan_a, nan_b):
            problems.append(f"output {k}: NaN in {int(nan_a.sum())} places, reference {int(nan_b.sum())}")
            continue
        with np.errstate(invalid="ignore", over="ignore"):
            good = (a == b) | nan_a | (np.isfinite(a) & np.isfinite(b) & (np.abs(a - b) <= ATOL + RTOL * np.abs(b)))
            if not good.all():
                problems.append(f"output {k}: {int((~good).sum())} of {good.size} values differ, "
                                f"max |a - b| = {float(np.abs(a - b)[~good].max())}")
    return problems


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


def ferry_build_module(seed, cls, params, dtype, training, args, kwargs):
    """A torch.nn module operator: seeded, built, cast to its recorded dtype, in its mode."""
    torch.manual_seed(seed % 2 ** 63)
    module = cls(**params)
    if dtype is not None:
        module.to(ferry_dtype(dtype))
    module.train(training)
    return FerryCall(module, args, kwargs)


def ferry_build_call(seed, fn, args, kwargs):
    """A function or method operator (seeded all the same: a random one draws from the generator)."""
    torch.manual_seed(seed % 2 ** 63)
    return FerryCall(fn, args, kwargs)


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

def ferry_from_numpy(array, dtype):
    """A numpy array (ml_dtypes' for bfloat16 and float8) as a tensor of the named torch dtype."""
    array = np.asarray(array)
    if array.dtype.name in _STORED:  # ml_dtypes' types: torch takes them through a wider one
        array = array.astype(_STORED[array.dtype.name])
    return torch.from_numpy(np.asarray(array, order="C")).to(ferry_dtype(dtype))


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

def reproducer(record_json, testdir, frontend, atol=None, rtol=None):
    """A standalone Python script that rebuilds the instance's module and inputs, runs eager PyTorch
    and the frontend on them and exits 1 if the frontend raises or disagrees, 0 otherwise. It needs
    numpy, torch and the frontend; every string from the record appears in it as a repr literal."""
    # the tolerance that judged the test (ferry passes it; the default for older results)
    atol, rtol = ATOL if atol is None else float(atol), RTOL if rtol is None else float(rtol)
    from ferry.oracle import driver as ferry_driver
    record = json.loads(record_json)
    plan = _Plan(record)
    adapter = ferry_driver.load_adapter(frontend)
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
    where = " ".join(str(source[k]) for k in ("suite", "test") if k in source)
    snippet = "\n".join("    " + line if line.strip() else "" for line in adapter.REPRODUCER.strip("\n").splitlines())
    functions = "\n\n".join(inspect.getsource(f) for f in (
        ferry_dtype, ferry_operators, ferry_resolve, ferry_tensor, ferry_array, FerrySlot, FerryCall, ferry_flatten, ferry_numpy,
        ferry_feed, ferry_compare, ferry_build_module, ferry_build_call))

    return f'''#!/usr/bin/env python3
# ferry reproducer: {_comment(record["op"])} ({_comment(record["kind"])}) on {adapter.NAME} {_comment(adapter.version())}
# instance {_comment(record.get("id", "-"))}, from {_comment(where)}
# Exit status 1: the bug shows ({adapter.NAME} raises, or its outputs differ from eager PyTorch
# beyond |a - b| <= {atol!r} + {rtol!r} * |ref|, or NaN in other places); 0: it does not.
import sys
import traceback

import numpy as np
import torch

SEED = {plan.seed}
ATOL = {atol!r}
RTOL = {rtol!r}
RANDOM = {random!r}  # True for a random operator: then only dtypes and shapes are compared


{functions}

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
    print("eager PyTorch itself failed: this reproducer shows nothing about {adapter.NAME}")
    sys.exit(2)


def run_frontend(module, inputs):
{snippet}
    return outputs


# --- the frontend
try:
    outputs = run_frontend(build(), [t.clone() for t in inputs])
except Exception:
    traceback.print_exc()
    print("BUG: {adapter.NAME} raised")
    sys.exit(1)
problems = ferry_compare(list(outputs), reference, RANDOM)
for problem in problems:
    print("BUG:", problem)
if not problems:
    print("no bug: {adapter.NAME} agrees with eager PyTorch")
sys.exit(1 if problems else 0)
'''


def _comment(text):
    """Text for a comment line of a generated script: one line of printable characters. A line
    break ends a comment and makes the rest code (Python ends lines at \\r too); the other
    characters that are not printable are escaped, as they would stop the script from compiling."""
    return "".join(c if c.isprintable() else ascii(c)[1:-1] for c in " ".join(str(text).split()))


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


def export(record_json, testdir, outdir, frontend):
    """Write the test as a pytest test function, so that a found bug becomes a regression test of
    the frontend's own suite: outdir/test_ferry_<op>_<id>.py fails while the bug shows, and passes
    once the frontend agrees with eager PyTorch. The reproducer it runs is written beside it, as a
    script, so that it keeps running in a process of its own (a frontend crash must not take the
    test runner down). Returns outdir. File and function names keep only ASCII letters and digits
    of the record's op and id; its text appears only as string literals."""
    script_text = reproducer(record_json, testdir, frontend)  # first: it refuses what is not allowed
    record = json.loads(record_json)
    slug = "".join(c if c.isascii() and c.isalnum() else "_" for c in str(record["op"])).strip("_").lower()[:80]
    ident = "".join(c for c in str(record.get("id") or "") if c in "0123456789abcdef")[:12]
    os.makedirs(outdir, exist_ok=True)
    script = f"ferry_reproducer_{ident}.py"
    with open(os.path.join(outdir, script), "w") as f:
        f.write(script_text)
    module_doc = f"Regression test exported by ferry: {record['op']} on {frontend}."
    test_doc = f"The frontend must agree with eager PyTorch on this usage (ferry instance {record.get('id')})."
    with open(os.path.join(outdir, f"test_ferry_{slug}_{ident}.py"), "w") as f:
        f.write(f'''{module_doc!r}
import os
import subprocess
import sys


def test_{slug}_{ident}():
    {test_doc!r}
    script = os.path.join(os.path.dirname(os.path.abspath(__file__)), {script!r})
    run = subprocess.run([sys.executable, script], capture_output=True, text=True)
    assert run.returncode == 0, run.stdout + run.stderr
''')
    return outdir
