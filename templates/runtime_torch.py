"""ferry.templates.runtime_torch: what the PyTorch template and a reproducer of a PyTorch test both run.

The template (ferry/templates/torch.py) builds its modules and inputs with these functions, and a
reproducer script carries this module whole, inlined at its top: the random generator is seeded
from the instance id, then the module is built (ferry_build_module, ferry_build_call), so a
module's weights and the generated inputs (ferry_tensor) are the same in the test directory, in
every adapter and in a bug report; operator names resolve through the same allow-list
(ferry_operators), and ferry_compare judges a frontend's outputs the same way. So this module
imports nothing of ferry: only numpy and torch (and ml_dtypes for bfloat16 and float8), but for
runtime_compare, which the reproducer pastes above it and whose import it leaves out.
"""

import numpy as np
import torch

if __name__ != "__main__":  # a reproducer pastes runtime_compare above this module instead
    from ferry.templates.runtime_compare import ferry_compare_arrays, ferry_untie_outputs

# torch dtypes numpy cannot save, and the dtype their files hold instead (which holds their values).
STORED = {"bfloat16": "float32", "complex32": "complex64", "float8_e4m3fn": "float32",
          "float8_e5m2": "float32", "float8_e4m3fnuz": "float32", "float8_e5m2fnuz": "float32",
          "float8_e8m0fnu": "float32"}


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
    if any(not isinstance(d, int) for d in shape):
        # an unknown dimension is the template's to resolve, with the call's other tensors
        raise ValueError(f"a tensor of shape {shape}: every dimension must be known")
    rng = np.random.default_rng([seed, *key])
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


class FerryConst:
    """A tensor the model holds as a constant (a weight): FerryCall keeps a copy as a buffer, which
    tracing, torch.jit.freeze and torch.export turn into a constant of the graph, as they do a real
    model's weights; it is no forward input."""

    def __init__(self, tensor):
        self.tensor = tensor
        self.name = None  # the buffer's name, once FerryCall holds it

    def __repr__(self):
        return f"FerryConst({self.name or 'tensor'})"


def ferry_fill(v, inputs, const):
    """v with each FerrySlot k replaced by inputs[k] and each FerryConst c by const(c), through lists,
    tuples and dicts: a call's arguments with its tensors in place."""
    if isinstance(v, FerrySlot):
        return inputs[v.k]
    if isinstance(v, FerryConst):
        return const(v)
    if isinstance(v, list):
        return [ferry_fill(x, inputs, const) for x in v]
    if isinstance(v, tuple):
        return tuple(ferry_fill(x, inputs, const) for x in v)
    if isinstance(v, dict):
        return {k: ferry_fill(x, inputs, const) for k, x in v.items()}
    return v


class FerryCall(torch.nn.Module):
    """One operator call: op(*args, **kwargs), with forward's inputs in the args' FerrySlots and the
    module's buffers in their FerryConsts; returns the tensors of the result, flattened, as a tuple."""

    def __init__(self, op, args, kwargs):
        super().__init__()
        if isinstance(op, torch.nn.Module):
            self.module = op  # a submodule, so that tracing and export see its parameters
            self.fn = None
        else:
            self.module = None
            self.fn = op

        def hold(v):  # each FerryConst's tensor copied into a buffer of its own (const_0, const_1, ...)
            if isinstance(v, FerryConst):
                held = FerryConst(None)
                held.name = f"const_{len(self._buffers)}"
                self.register_buffer(held.name, v.tensor.clone())
                return held
            if isinstance(v, list):
                return [hold(x) for x in v]
            if isinstance(v, tuple):
                return tuple(hold(x) for x in v)
            if isinstance(v, dict):
                return {k: hold(x) for k, x in v.items()}
            return v
        self.args = hold(args)
        self.kwargs = hold(kwargs)

    def forward(self, *inputs):
        return tuple(ferry_flatten(self.call(*inputs)))

    def call(self, *inputs):
        """The operator's result as it returns it (forward flattens it): what a record's outputs
        describe."""
        def fill(v):
            return ferry_fill(v, inputs, lambda c: self._buffers[c.name])
        op = self.module if self.fn is None else self.fn
        return op(*fill(self.args), **fill(self.kwargs))


def ferry_script(module, inputs):
    """(TorchScript of the module, None or why it is not frozen, how it was made: "trace" or
    "script"). Traced on inputs, then frozen in eval mode, as a user hands a model to a compiler:
    buffers and default arguments (a pooling stride of None) become constants instead of attributes
    and empty list constructs. Freezing keeps the operators as traced (no numeric folding). Where
    PyTorch cannot freeze the traced module, the traced module is the model and the reason is given.
    Where it cannot trace the call at all (a bool Scalar, constant_pad_nd's value=True or
    bitwise_xor's other=True, fails alias analysis in the tracer; torch.gradient's list of float
    spacings is "a list of arbitrary type"), the call is scripted instead (ferry_script_call), and
    only where both fail is the tracer's error raised, with the scripter's."""
    try:
        model, how = torch.jit.trace(module, tuple(inputs), check_trace=False, strict=False), "trace"
    except Exception as traced:
        try:
            model, how = ferry_script_call(module, inputs), "script"
        except Exception as scripted:
            raise RuntimeError(f"{type(traced).__name__}: {traced}\n(scripting it instead failed: "
                               f"{type(scripted).__name__}: {scripted})".strip()) from traced
    try:
        return torch.jit.freeze(model.eval(), optimize_numerics=False), None, how
    except Exception as e:  # some graphs do not freeze: the unfrozen one is still a model
        return model, f"{type(e).__name__}: {e}".strip()[:8000], how


class FerryScriptModule(torch.jit.ScriptModule):
    """A FerryCall's call as a scripted module: its buffers (the weights) and a forward compiled
    from source. ferry_op is the one name the source calls the operator by; TorchScript resolves
    it from this frame. Each model is of a class of its own (ferry_script_call), since TorchScript
    reuses a class's compiled methods for the next instance with the same attributes."""

    def __init__(self, buffers, source, op):
        super().__init__()
        for name, tensor in buffers:
            self.register_buffer(name, tensor)
        ferry_op = op  # noqa: F841  (the source's name for the operator)
        self.define(source)


def ferry_script_call(call, inputs):
    """A FerryCall of a function or Tensor method as a ScriptModule, its forward written out: the
    operator applied to the forward inputs (in_K), the buffers (self.const_K) and the other
    arguments as literals; it returns the result's tensors as FerryCall.forward does. Built from
    the record's typed values only (numbers, bools, None, dtypes, plain names; a string only of
    name characters), never from a record's text as code. Lists are spelled as written first,
    then, where the schema wants Scalar[] or int[] (torch.gradient's spacing and dim), tuples as
    lists and lists of floats as List[number], then also a bool argument as a 0-d tensor (TorchScript
    makes a bool Scalar the int 1, and bitwise_xor(bool tensor, 1) is int64 where eager PyTorch
    gives bool). The first spelling that compiles and gives the eager call's number, dtypes and
    shapes of outputs is the model; TypeError where none does."""
    if call.fn is None:
        raise TypeError("a torch.nn module is traced, not scripted")
    with torch.no_grad():
        result = call.call(*[t.clone() for t in inputs])
        want = ferry_flatten(result)
    if isinstance(result, torch.Tensor):
        outputs = "(r,)"
    elif isinstance(result, (tuple, list)) and all(not isinstance(v, (tuple, list, dict)) for v in result):
        outputs = "(" + "".join(f"r[{k}], " for k, v in enumerate(result) if isinstance(v, torch.Tensor)) + ")"
    else:
        raise TypeError(f"cannot script a call that returns {type(result).__name__} nested")
    if not want:
        raise TypeError("the call returns no tensor")
    name = getattr(call.fn, "__name__", "")
    # a Tensor method is called on its first argument: TorchScript knows methods by that syntax
    method = getattr(torch.Tensor, name, None) is call.fn
    if not name.isidentifier():
        raise TypeError(f"cannot script an operator named {name!r}")
    errors = []
    for loose, bools in ((False, False), (True, False), (True, True)):
        args = [ferry_script_argument(v, loose, bools) for v in call.args]
        args += [f"{ferry_script_name(k)}={ferry_script_argument(v, loose, bools)}" for k, v in call.kwargs.items()]
        if method and call.args:
            head = f"{args[0]}.{name}(" + ", ".join(args[1:])
        else:
            head = "ferry_op(" + ", ".join(args)
        signature = ", ".join(f"in_{k}: Tensor" for k in range(len(inputs)))
        source = f"def forward(self{', ' if inputs else ''}{signature}):\n    r = {head})\n    return {outputs}\n"
        try:
            cls = type("FerryScriptModule", (FerryScriptModule,), {})
            scripted = cls(list(call.named_buffers()), source, call.fn)
            with torch.no_grad():
                got = list(scripted(*[t.clone() for t in inputs]))
        except Exception as e:
            errors.append(f"{type(e).__name__}: {e}".strip().split("\n")[0])
            continue
        if [(t.dtype, t.shape) for t in got] != [(t.dtype, t.shape) for t in want]:
            errors.append("the scripted call's outputs differ from the eager call's in dtype or shape")
            continue
        return scripted
    raise TypeError("; ".join(errors))


def ferry_script_name(name):
    """name, where it may appear in a scripted call's source as a keyword; else TypeError."""
    if not isinstance(name, str) or not name.isidentifier() or name.startswith("_"):
        raise TypeError(f"cannot script a keyword named {name!r}")
    return name


def ferry_script_argument(v, loose, bools):
    """An argument's source; with bools a bool as a 0-d tensor (a bool Scalar is the int 1 to
    TorchScript, and True ^ a bool tensor would be int64)."""
    return f"torch.tensor({v!r})" if bools and isinstance(v, bool) else ferry_script_literal(v, loose)


def ferry_script_literal(v, loose=False):
    """TorchScript source of one argument of a FerryCall: a forward input, a buffer or a constant.
    loose: tuples as lists and lists of numbers with a float as List[number] (Scalar[])."""
    if isinstance(v, FerrySlot):
        return f"in_{int(v.k)}"
    if isinstance(v, FerryConst):
        return f"self.{ferry_script_name(v.name)}"
    if v is None or isinstance(v, bool):
        return repr(v)
    if isinstance(v, int):
        return str(int(v))
    if isinstance(v, float):
        return repr(v) if v == v and abs(v) != float("inf") else f'float("{v}")'
    if isinstance(v, (torch.dtype, torch.memory_format, torch.layout)):
        text = str(v)
        if not (text.startswith("torch.") and text[6:].isidentifier()):
            raise TypeError(f"cannot script {text!r}")
        return text
    if isinstance(v, str):
        if not all(c.isalnum() or c in "_-. " for c in v):
            raise TypeError("cannot script a string of other characters than letters, digits and '_-. '")
        return f'"{v}"'
    if isinstance(v, (list, tuple)) and v:
        items = [ferry_script_literal(x, loose) for x in v]
        numbers = all(isinstance(x, (int, float)) and not isinstance(x, bool) for x in v)
        if loose and numbers and any(isinstance(x, float) for x in v):
            return "torch.jit.annotate(List[number], [" + ", ".join(items) + "])"
        if isinstance(v, list) or loose:
            return "[" + ", ".join(items) + "]"
        return "(" + ", ".join(items) + ("," if len(items) == 1 else "") + ")"
    raise TypeError(f"cannot script an argument of type {type(v).__name__} (an empty list has no type)")


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


def ferry_from_numpy(array, dtype):
    """A numpy array (ml_dtypes' for bfloat16 and float8) as a tensor of the named torch dtype."""
    array = np.asarray(array)
    if array.dtype.name in STORED:  # ml_dtypes' types: torch takes them through a wider one
        array = array.astype(STORED[array.dtype.name])
    return torch.from_numpy(np.asarray(array, order="C")).to(ferry_dtype(dtype))


def ferry_compare(outputs, reference, atol, rtol, random=False, ties=None):
    """Problems found comparing a frontend's outputs (tensors or numpy arrays, ml_dtypes' among
    them) with the reference tensors (empty: none): as many outputs, then each as
    ferry_compare_arrays judges it, bfloat16 and float8 widened to float32, complex32 to complex64."""
    if len(outputs) != len(reference):
        return [f"{len(outputs)} outputs, the reference has {len(reference)}"]
    outputs = ferry_untie_outputs(ties, outputs, reference)  # ties = (op, data): indices at ties
    problems = []
    for k, (out, ref) in enumerate(zip(outputs, reference)):
        o = ferry_numpy(out) if isinstance(out, torch.Tensor) else np.asarray(out)
        if o.dtype.name.startswith(("bfloat16", "float8")):  # ml_dtypes' arrays: as ferry_numpy widens
            o = o.astype(np.float32)
        elif o.dtype.name == "complex32":
            o = o.astype(np.complex64)
        half = str(ref.dtype).replace("torch.", "") if isinstance(ref, torch.Tensor) else None
        problem = ferry_compare_arrays(f"output {k}", o, ferry_numpy(ref), atol, rtol, random, precision=half)
        if problem:
            problems.append(problem)
    return problems
