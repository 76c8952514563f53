"""instrument_torch: while switched on, records every PyTorch operator instance that runs.

    with Recorder(sink) as recorder:       # installs the instrumentation
        recorder.source = {"suite": "pytest", "test": "test_nn.py::test_conv"}
        with recorder.recording():         # records the operator calls made inside
            ... any PyTorch code ...
                                           # leaving the outer block removes every trace of it

Each record (lib/record.h's form, without "id") goes to sink(record) as a dict:

- torch.nn modules, kind "module": op is the class's public name ("torch.nn.Conv2d"); params are the
  arguments its constructor was given, bound to their names; inputs are the positional arguments of
  the forward call; context has "training", the "dtype" of the module's floating parameters and
  buffers, and the forward call's keyword arguments ("kwargs") when there are any.
- functions and Tensor methods, kinds "function" and "method": op is PyTorch's own name for what was
  called ("torch.add", "torch.nn.functional.conv2d", "torch.linalg.svd", "torch.Tensor.add",
  "torch.Tensor.__getitem__"); inputs are the positional arguments in order (the tensor itself first
  for a method), params the keyword arguments.
- outputs are the dtypes and shapes of what the call returned; library_version is torch's version;
  source is the recorder's current source, with "file" and "line" of the call site unless the
  source names them.

How, without editing anything on disk:
- Module constructors. The __init__ of every public torch.nn module class (and of the private bases
  they inherit it from) is wrapped. The outermost __init__ of an object stores that object's
  arguments in a WeakKeyDictionary keyed by the object, so that two live Conv2d objects keep two sets
  of arguments, and a forward call is always paired with its own object's. Constructors are captured
  whenever the instrumentation is installed (a test may build a module before it starts recording).
- Module calls: torch.nn.Module.__call__ is wrapped.
- Functions and methods: a TorchFunctionMode, PyTorch's own hook for every torch.*, torch.nn.functional,
  torch.linalg, torch.special, torch.fft function and every Tensor method and operator.
Leaving restores every wrapped attribute and pops the mode.

What is not recorded:
- anything nested inside a recorded call (the convolution inside Conv2d, the ops inside
  F.cross_entropy): only the outermost operator call is an instance;
- calls made by PyTorch's own Python code rather than by a test (torch.testing's comparisons,
  gradcheck, nn.init inside a constructor, Module.to), found from the call site: a caller inside the
  torch package counts only under torch/testing/_internal/, where the test knowledge lives, and not
  in its test-running machinery (common_utils.py and the like);
- calls of the instrumentation itself, calls in other threads and calls traced by torch.compile;
- set-up (_SETUP: tensor construction, uninitialised and random factories, fills, copies and
  detaches, to/type/float... that keep the dtype, conversions out of PyTorch, shape queries);
- calls that return no tensor (torch.equal), calls that write into an out= tensor (out=None is
  recorded, without it), calls that raise, and, unless allow_tensorless is set, calls given no
  tensor at all (the torch.randn(3, 4) that makes a test's input).
Each call not recorded while recording is counted in recorder.dropped under its reason.

Two things the instrumentation must not change or let through:
- PyTorch's fast paths. With a TorchFunctionMode active has_torch_function() is true, and
  MultiheadAttention, TransformerEncoderLayer and the like fall back to their slow paths. The mode
  is taken off the stack while a torch.nn module runs (Recorder._suspending): the module is recorded
  at its boundary, and nothing inside it is an instance anyway.
- Uninitialised memory. The outputs of torch.empty and its kind are tracked (_Garbage) until
  something writes them; as inputs they are recorded by dtype and shape only.
Lazy modules (LazyLinear, LazyConv2d, ...) are recorded once their call has materialized them, as
the module they became, with the arguments they inferred (in_features, in_channels, ...).
"""

import functools
import inspect
import os
import sys
import threading
import weakref

import numpy as np
import torch
from torch.nn.modules.lazy import LazyModuleMixin as _LazyModuleMixin
from torch.overrides import TorchFunctionMode

from ferry.extract import recorder
from ferry.extract import values as ferry_values

_TORCH_DIR = os.path.dirname(os.path.abspath(torch.__file__))
_TORCH_PARENT = os.path.dirname(_TORCH_DIR)
_KNOWLEDGE_DIR = os.path.join(_TORCH_DIR, "testing", "_internal") + os.sep
_HERE = os.path.abspath(__file__)

# Files under torch/testing/_internal/ that run tests rather than describe them: a call made there
# is the machinery's (comparisons, device and dtype set-up), not test knowledge.
_MACHINERY = {"common_utils.py", "common_device_type.py", "common_dtype.py", "common_cuda.py",
              "hypothesis_utils.py", "logging_utils.py", "inductor_utils.py", "jit_utils.py",
              "common_jit.py", "autocast_test_lists.py", "composite_compliance.py"}

# Frames between a call site and the mode's handler, skipped to find the call site: the dispatch of
# Python-level functions and methods to __torch_function__, and the Python bodies of the functions
# being dispatched.
_DISPATCH_FILES = {os.path.join(_TORCH_DIR, f) for f in (
    "overrides.py", "_tensor.py", "functional.py", "_jit_internal.py", "_VF.py",
    os.path.join("nn", "functional.py"), os.path.join("utils", "_python_dispatch.py"),
    os.path.join("utils", "_contextlib.py"), os.path.join("_utils_internal.py"))}

# Where torch.nn's containers call the modules they hold, Module.__call__ calls forward, and the
# recorder's wrappers of Module.__call__ (recorder.wrap's, and _suspending's here) call it.
_CONTAINER_FILES = frozenset([os.path.join(_TORCH_DIR, "nn", "modules", f) for f in ("container.py", "module.py")]
                             + [recorder.FILE, os.path.abspath(__file__)])

# Module classes that are plumbing, not operators.
_CONTAINERS = ("Module", "Sequential", "ModuleList", "ModuleDict", "ParameterList", "ParameterDict",
               "Container")

# What a test calls to make, move or look at its data rather than compute on it: never an instance, and
# each counted under its reason (every call not recorded is). The line drawn:
# - construction from data (torch.tensor, as_tensor, from_numpy, ...) is set-up: to a compiler its
#   output is a constant, there is nothing to convert;
# - uninitialised (empty, empty_like, new_empty, ...) and random (rand*, randint*, randperm, the
#   in-place random_/uniform_/normal_ fills) factories make inputs, and their outputs cannot be
#   compared with anything; fill_ and zero_ overwrite an input the same way;
# - zeros/ones/full/arange/linspace/eye and the *_like of the constant ones stay operators: a
#   compiler builds them (ConstantOfShape, Range, EyeLike), OpInfo tests them, and in a test's own
#   code they are mostly given no tensor, which drops them anyway ("no tensor argument");
# - copies and detaches (clone, copy_, detach, contiguous) are identities to a compiler: set-up;
# - to/type/float/double/... are casts, operators, when they change the dtype, and set-up when they
#   only move the tensor (see _only_moves);
# - shape queries and conversions out of PyTorch (numpy, tolist, item) return no tensor or leave it.
_SETUP = {}
for _reason, _names in {
    "set-up: tensor construction": (
        "torch.tensor", "torch.as_tensor", "torch.asarray", "torch.from_numpy", "torch.frombuffer",
        "torch.from_file", "torch.from_dlpack", "torch.scalar_tensor", "torch.Tensor.new_tensor",
        "torch.sparse_coo_tensor", "torch.sparse_csr_tensor", "torch.sparse_compressed_tensor",
        "torch.nested.nested_tensor", "torch.nested.as_nested_tensor"),
    "set-up: uninitialised tensor": (
        "torch.empty", "torch.empty_like", "torch.empty_strided", "torch.empty_permuted",
        "torch.Tensor.new_empty", "torch.Tensor.new_empty_strided"),
    "set-up: random values": (
        "torch.rand", "torch.randn", "torch.randint", "torch.randperm", "torch.rand_like",
        "torch.randn_like", "torch.randint_like", "torch.Tensor.random_", "torch.Tensor.uniform_",
        "torch.Tensor.normal_", "torch.Tensor.bernoulli_", "torch.Tensor.exponential_",
        "torch.Tensor.geometric_", "torch.Tensor.cauchy_", "torch.Tensor.log_normal_"),
    "set-up: fill": ("torch.Tensor.fill_", "torch.Tensor.zero_", "torch.Tensor.set_"),
    "set-up: copy or detach": (
        "torch.clone", "torch.Tensor.clone", "torch.Tensor.copy_", "torch.detach", "torch.Tensor.detach",
        "torch.Tensor.detach_", "torch.Tensor.contiguous", "torch.Tensor.cpu", "torch.Tensor.cuda",
        "torch.Tensor.pin_memory", "torch.Tensor.share_memory_", "torch.Tensor.requires_grad_",
        "torch.Tensor.data.__get__", "torch.Tensor.data.__set__", "torch.Tensor.retain_grad"),
    "set-up: conversion out of PyTorch": (
        "torch.Tensor.numpy", "torch.Tensor.tolist", "torch.Tensor.item", "torch.Tensor.__array__",
        "torch.Tensor.__array_wrap__", "torch.Tensor.__int__", "torch.Tensor.__float__",
        "torch.Tensor.__complex__", "torch.Tensor.__bool__", "torch.Tensor.__index__",
        "torch.Tensor.__dlpack__", "torch.Tensor.__dlpack_device__", "torch.Tensor.__reduce_ex__",
        "torch.Tensor.__deepcopy__", "torch.Tensor.__getstate__", "torch.Tensor.__setstate__"),
    "shape query": (
        "torch.Tensor.size", "torch.Tensor.dim", "torch.Tensor.ndimension", "torch.Tensor.numel",
        "torch.numel", "torch.Tensor.nelement", "torch.Tensor.stride", "torch.Tensor.storage_offset",
        "torch.Tensor.is_contiguous", "torch.Tensor.element_size", "torch.Tensor.__len__",
        "torch.Tensor.shape.__get__", "torch.Tensor.ndim.__get__", "torch.Tensor.dim_order",
        "torch.Tensor.is_floating_point", "torch.is_floating_point", "torch.Tensor.is_complex",
        "torch.is_complex", "torch.Tensor.is_signed", "torch.Tensor.is_same_size", "torch.is_same_size"),
}.items():
    _SETUP.update(dict.fromkeys(_names, _reason))

# Methods and properties that are not operators at all (printing, hashing, hooks, storage): dropped
# as "not an operator" before any encoding is spent on them.
_NOT_OPERATORS = {
    "__repr__", "__format__", "__str__", "__iter__", "__hash__", "__reduce__", "__contains__",
    "__dir__", "__reversed__", "__delitem__", "__torch_function__", "data_ptr", "untyped_storage",
    "storage", "_typed_storage", "get_device", "backward", "register_hook",
    "register_post_accumulate_grad_hook", "is_set_to", "is_shared", "is_pinned", "_is_view",
    "is_inference", "_make_subclass", "_make_wrapper_subclass", "__new__", "__init__", "apply_", "map_",
    "map2_", "_version", "has_names", "_fix_weakref",
}

# The dtype each casting method converts to (to and type say it in their arguments).
_CASTS = {"float": torch.float32, "double": torch.float64, "half": torch.float16, "bfloat16": torch.bfloat16,
          "int": torch.int32, "long": torch.int64, "short": torch.int16, "char": torch.int8,
          "byte": torch.uint8, "bool": torch.bool, "cfloat": torch.complex64, "cdouble": torch.complex128,
          "chalf": torch.complex32}

# Factories whose output holds whatever was in memory until something writes it (see _Garbage).
_UNINITIALISED = frozenset(("torch.empty", "torch.empty_like", "torch.empty_strided", "torch.empty_permuted",
                            "torch.Tensor.new_empty", "torch.Tensor.new_empty_strided"))


# The namespaces a user calls operators by. torch.overrides.resolve_name names a function where it is
# defined (torch.functional.tensordot), which no user types and no selection of torch.tensordot
# matches: such a function is recorded under the first of these that holds the very same object, its
# internal name kept as the record's op_alias (selection matches either). Looked up by identity in
# the namespace's own dict, a fixed list: nothing of a record is resolved.
_PUBLIC = (("torch", torch), ("torch.nn.functional", torch.nn.functional), ("torch.linalg", torch.linalg),
           ("torch.fft", torch.fft), ("torch.special", torch.special))
_PUBLIC_PREFIXES = frozenset(name for name, _ in _PUBLIC) | {"torch.Tensor"}
_ALIASES = {}  # public name -> the internal name PyTorch resolves it to


def _public_name(func, name):
    """name (resolve_name's) as the public namespaces spell func, or name when none holds it."""
    prefix, _, last = name.rpartition(".")
    if prefix in _PUBLIC_PREFIXES:
        return name
    for public, namespace in _PUBLIC:
        if vars(namespace).get(last) is func:
            _ALIASES[f"{public}.{last}"] = name
            return f"{public}.{last}"
    return name


def alias_of(name):
    """The internal name that records of the public operator name carry as op_alias, or None (a
    harvest's pass-over matches a pattern against it too)."""
    prefix, _, last = name.rpartition(".")
    namespace = dict(_PUBLIC).get(prefix)
    func = vars(namespace).get(last) if namespace is not None else None
    internal = torch.overrides.resolve_name(func) if callable(func) else None
    return internal if internal and internal != name and _public_name(func, internal) == name else None


class Recorder(recorder.Recorder):
    """The instrumentation: install by entering, record inside recording(), remove by leaving."""

    LIBRARY = "PyTorch"

    def __init__(self, sink, allow_tensorless=False):
        super().__init__(sink, torch.__version__.split("+")[0])
        self.allow_tensorless = allow_tensorless
        self._classes = {}         # public torch.nn module class -> "torch.nn.Name"
        self._argless = set()      # those whose constructor is Module.__init__
        self._mode = None
        self._names = {}           # func -> (PyTorch's name or None, why it is not an operator or None)

    # --- what is patched --------------------------------------------------------------------------------

    def install(self):
        nn = torch.nn
        self._classes = module_classes()
        seen = set()
        for cls in self._classes:
            own = False
            for klass in cls.__mro__:
                if klass is nn.Module or not issubclass(klass, nn.Module):
                    break
                if "__init__" in klass.__dict__:
                    own = True
                    if klass not in seen:
                        seen.add(klass)
                        self.patch(klass, "__init__", self._wrap_init(klass.__dict__["__init__"]))
            if not own:
                self._argless.add(cls)
        self._mode = _Mode(self)
        # suspending outside the recorder's wrapper: a module's record is made with the mode off the
        # stack too, so that its tensors' encoding is not dispatched through the mode call by call
        self.patch(nn.Module, "__call__", self._suspending(self.wrap(nn.Module.__dict__["__call__"],
                                                                     self._module_call)))
        self._mode.__enter__()

    def remove(self):
        _GARBAGE.reset()
        if self._mode is not None:
            self._mode.__exit__(None, None, None)
            self._mode = None

    def _suspending(self, call):
        """Module.__call__ with the mode taken off the stack while a torch.nn module runs.

        With a TorchFunctionMode active, has_torch_function() is true for every tensor, and modules
        with a fast path (MultiheadAttention, TransformerEncoderLayer) never take it: the test would
        see another PyTorch than the one it runs under pytest. Nothing a torch.nn module calls inside
        is an instance (its own call is, recorded here at its boundary, or it is PyTorch's), so the
        mode has nothing to see there. Modules of other classes (a test's own, whose forward is test
        code) keep it; so does a stack on which a test pushed a mode of its own above ours."""
        classes, mode = self._classes, self._mode
        depth, pop, push = torch._C._len_torch_function_stack, torch._C._pop_torch_function_stack, \
            torch._C._push_on_torch_function_stack
        at = torch._C._get_function_stack_at

        @functools.wraps(call)
        def __call__(module, *args, **kwargs):
            __tracebackhide__ = True  # noqa: F841
            n = depth()
            if type(module) not in classes or not n or at(n - 1) is not mode or torch.compiler.is_compiling():
                return call(module, *args, **kwargs)
            pop()
            try:
                return call(module, *args, **kwargs)
            finally:
                push(mode)
        return __call__

    def idle(self):
        # first: Dynamo traces the wrappers when it compiles a test's function, and must meet nothing
        # it cannot put in a graph (fullgraph=True would fail the test)
        return torch.compiler.is_compiling() or super().idle()

    def is_tensor(self, value):
        return isinstance(value, torch.Tensor)

    def output(self, value):
        return _output(value)

    # --- modules ---------------------------------------------------------------------------------------

    def _wrap_init(self, original):
        rec = self

        @functools.wraps(original)
        def __init__(module, *args, **kwargs):
            rec.keep_constructor(module, lambda: rec._constructor(original, module, args, kwargs))
            rec._depth += 1  # nothing a constructor calls is an instance (nn.init)
            try:
                original(module, *args, **kwargs)
            finally:
                rec._depth -= 1
        return __init__

    def _constructor(self, init, module, args, kwargs):
        """(params, None, class), or (None, why, class) when the arguments cannot be bound to the
        constructor; class is the one constructed (a lazy module changes class when it runs)."""
        try:
            given = self.arguments(init, module, args, kwargs)
        except (TypeError, ValueError) as e:
            return None, f"constructor arguments do not bind: {e}", type(module)
        return {k: ferry_values.encode(v) for k, v in given.items() if not _cpu_device(k, v)}, None, type(module)

    def _module_call(self, frame, args, kwargs):
        """The pending record of a module's call (recorder.Recorder.wrap's intercept)."""
        module, args = args[0], args[1:]
        op = self._classes.get(type(module))
        if op is None:
            return None
        site = recorder.call_site(frame, _in_container)
        if site is None:
            return self.drop("made by PyTorch's own code")
        return self.guard(self._encode_module_call, op, module, args, kwargs, site)

    def _encode_module_call(self, op, module, args, kwargs, site):
        if self.tensorless(args, kwargs) and not self.allow_tensorless:
            return self.drop("no tensor argument")
        made = type(module)
        if type(module) in self._argless:
            params, why = {}, None  # Module.__init__ is its constructor: it takes no arguments
        else:
            params, why, made = self.constructor_of(module) or (
                None, "the module was made without its constructor (copied, unpickled, or before the "
                "instrumentation)", made)
        context = {"training": {"bool": bool(module.training)}}
        dtype = _module_dtype(module)
        if dtype is not None:
            context["dtype"] = {"dtype": dtype}
        if kwargs:
            context["kwargs"] = {"dict": {k: ferry_values.encode(v) for k, v in kwargs.items()}}
        record = {
            "library": "torch", "library_version": self._version, "op": op, "kind": "module",
            "context": context,
            "params": params if params is not None else {"__init__": {"opaque": why}},
            "inputs": [ferry_values.encode(a) for a in args],
        }
        if params is not None and (made is not type(module) or isinstance(module, _LazyModuleMixin)):
            return record, site, lambda record: self._materialized(record, module)
        return record, site

    def _materialized(self, record, module):
        """A lazy module's record once its call has made its parameters: the class it became
        (LazyLinear becomes Linear), with the arguments that class's constructor requires and the lazy
        one inferred from the input (in_features, in_channels, num_features) taken from the module,
        so that the module can be rebuilt."""
        op = self._classes.get(type(module))
        if op is None or isinstance(module, _LazyModuleMixin):
            return  # still lazy (the call raised before materializing): the record says so by its op
        record["op"] = op
        init = type(module).__init__
        signature = self._signatures.get(init) or self._signatures.setdefault(init, inspect.signature(init))
        for name, p in list(signature.parameters.items())[1:]:
            # only what the constructor requires: an argument with a default was left to it (bias=True
            # is the default, module.bias a Parameter)
            if (name not in record["params"] and p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)
                    and p.default is p.empty and hasattr(module, name)):
                record["params"][name] = ferry_values.encode(getattr(module, name))

    # --- functions and methods -------------------------------------------------------------------------

    def name_of(self, func):
        """(PyTorch's name for func or None, why it is not an operator or None), cached."""
        found = self._names.get(func)
        if found is None:
            found = self._names[func] = _classify(func)
        return found

    def _function_call(self, named, args, kwargs):
        """The pending record of a call that the mode saw, or None when it is not to be recorded
        (counted by reason). named: name_of(func)."""
        op, why = named
        if why is not None:
            return self.drop(why)
        site = recorder.call_site(sys._getframe(2), _in_torch)
        if site is None:
            return self.drop("made by PyTorch's own code")
        return self.guard(self._encode_call, op, args, kwargs, site)

    def _encode_call(self, op, args, kwargs, site):
        out = kwargs.get("out")
        if out is not None:  # an out=None is the default spelled out: the call computes as without it
            return self.drop("writes into an out= tensor")
        if op.startswith("torch.Tensor.") and op[13:] in _MOVES and _only_moves(op, args, kwargs):
            return self.drop("set-up: moves a tensor without changing its dtype")
        if not self.allow_tensorless and self.tensorless(args, kwargs):
            return self.drop("no tensor argument")
        record = {
            "library": "torch", "library_version": self._version, "op": op,
            "kind": "method" if op.startswith("torch.Tensor.") else "function",
            # keywords named _x are PyTorch's plumbing (F.softmax passes on its _stacklevel)
            "params": {k: ferry_values.encode(v) for k, v in kwargs.items()
                       if not _cpu_device(k, v) and not k.startswith("_") and not (k == "out" and v is None)},
            "inputs": [ferry_values.encode(a) for a in args],
        }
        alias = _ALIASES.get(op)
        if alias is not None:  # an annotation, not part of the id
            record["op_alias"] = alias
        return record, site


def _in_torch(path):
    """call_site's judge: the file of the code that made a call, or None when that code is PyTorch's
    own or the instrumentation's; PyTorch's dispatch of the call is passed over. Judged once per file
    (a verdict depends on the path alone)."""
    try:
        return _JUDGED[path]
    except KeyError:
        verdict = _JUDGED[path] = _judge(path)
        return verdict


_JUDGED = {}  # path -> _in_torch's verdict


def _judge(path):
    if path in _DISPATCH_FILES:
        return recorder.PASS
    if path == _HERE or path == recorder.FILE:
        return None
    if path.startswith(_TORCH_DIR + os.sep):
        if not path.startswith(_KNOWLEDGE_DIR) or os.path.basename(path) in _MACHINERY:
            return None
        return os.path.relpath(path, _TORCH_PARENT)
    return path


def _in_container(path):
    """_in_torch for a module's call, passing over torch.nn's containers too (a Sequential hands its
    input on to the modules the test put in it: those calls are the test's)."""
    return recorder.PASS if path in _CONTAINER_FILES else _in_torch(path)


class Bare(Recorder):
    """A recorder that installs nothing and records nothing: the same harvest drivers run under it
    as they would with no instrumentation at all (for measuring what the instrumentation costs)."""

    def __enter__(self):
        self._classes = module_classes()
        return self

    def __exit__(self, *exc):
        return False


def module_classes():
    """{class: "torch.nn.Name"} for every public torch.nn module class that is an operator."""
    classes = {}
    for name in sorted(dir(torch.nn)):
        cls = getattr(torch.nn, name)
        if isinstance(cls, type) and issubclass(cls, torch.nn.Module) and name not in _CONTAINERS:
            classes.setdefault(cls, f"torch.nn.{name}")
    return classes


class _Mode(TorchFunctionMode):
    """Sees every torch function and Tensor method call of the thread; PyTorch pops the mode while
    its handler runs, so what the call does inside is not seen again."""

    def __init__(self, recorder):
        super().__init__()
        self.recorder = recorder

    def __torch_function__(self, func, types, args=(), kwargs=None):
        __tracebackhide__ = True  # noqa: F841
        kwargs = kwargs or {}
        r = self.recorder
        if torch.compiler.is_compiling():
            return func(*args, **kwargs)
        named = r._names.get(func) or r.name_of(func)
        # Recorder.idle inlined (is_compiling was asked just above): every torch call of a harvest,
        # set-up included, comes through here
        if not r._on or r._depth or r._busy or threading.get_ident() != r._thread:
            out = func(*args, **kwargs)  # idle calls are looked at too, for the uninitialised tensors
        else:                            # that set-up code makes
            out = r.run(r._function_call(named, args, kwargs), func, args, kwargs)
        if named[0] in _UNINITIALISED or _GARBAGE:
            _GARBAGE.after(named[0], args, kwargs, out)
        return out


def _classify(func):
    """(PyTorch's name for an overridable function or method, or None; None for an operator, or why
    the call is not one)."""
    name = torch.overrides.resolve_name(func)
    if name is None or not name.startswith("torch."):
        return name, "not an operator"
    setup = _SETUP.get(name)
    if setup is not None:
        return name, setup
    if name.startswith("torch.nn.init."):
        return name, "set-up: parameter initialisation"
    last = name.rsplit(".", 1)[-1]
    if last in ("__get__", "__set__", "__delete__") or last in _NOT_OPERATORS:
        return name, "not an operator"
    if name.startswith(("torch._", "torch.Tensor._")) and not name.startswith("torch.Tensor.__"):
        return name, "not an operator"  # private functions: PyTorch's plumbing, not its API
    return _public_name(func, name), None


# Methods that are casts when they change the dtype and set-up when they do not (see _SETUP).
_MOVES = frozenset(["to", "type"] + list(_CASTS))


def _only_moves(op, args, kwargs):
    """Whether a to/type/float/... call leaves the dtype as it is (moves, or changes nothing)."""
    t = args[0] if args else None
    if not isinstance(t, torch.Tensor):
        return False
    method = op.rsplit(".", 1)[-1]
    if method in _CASTS:
        return _CASTS[method] == t.dtype
    for v in list(args[1:]) + [kwargs.get("dtype"), kwargs.get("other")]:
        if isinstance(v, torch.dtype):
            return v == t.dtype
        if isinstance(v, torch.Tensor):  # to(other): other's dtype
            return v.dtype == t.dtype
        if isinstance(v, str) and method == "type":
            return v == t.type()
    return True  # to(device), to(memory_format=...), type() (returns a string: dropped anyway)


class _Garbage:
    """The tensors that hold uninitialised memory: made by torch.empty and its kind (_UNINITIALISED)
    and not written since. What they hold is whatever was in memory (6.9e-310, 4.5e+223): as inputs
    of an instance they are recorded by dtype and shape only, never by value. Kept by storage (a
    view of one is one too), weakly (a tensor that dies is forgotten); any in-place write into one
    (uniform_, copy_, x[...] = v, an out= argument, nn.init) takes its storage off the list, and
    what a call computes from one is garbage too."""

    _PLAIN = (torch.Tensor, torch.nn.Parameter, torch.nn.Buffer)

    def __init__(self):
        self._by_storage = {}  # storage address -> [weak references to the tensors on it]

    def __bool__(self):
        return bool(self._by_storage)

    def reset(self):
        self._by_storage = {}

    def _key(self, t):
        if (type(t) not in self._PLAIN or t.layout != torch.strided or t.device.type != "cpu"
                or t.is_quantized or t.numel() == 0):
            return None
        try:
            return t.untyped_storage().data_ptr() or None
        except Exception:  # a tensor without a storage of its own
            return None

    def _forget(self, key, ref):
        refs = self._by_storage.get(key)
        if refs is not None:
            refs[:] = [r for r in refs if r is not ref and r() is not None]
            if not refs:
                del self._by_storage[key]

    def mark(self, value):
        for t in _tensors_in(value):
            key = self._key(t)
            if key is not None:
                self._by_storage.setdefault(key, []).append(
                    weakref.ref(t, lambda ref, key=key: self._forget(key, ref)))

    def holds(self, t):
        """Whether tensor t is uninitialised memory."""
        if not self._by_storage or not isinstance(t, torch.Tensor):
            return False
        key = self._key(t)
        return key is not None and any(r() is not None for r in self._by_storage.get(key, ()))

    def written(self, value):
        for t in _tensors_in(value):
            key = self._key(t)
            if key is not None:
                self._by_storage.pop(key, None)

    def after(self, name, args, kwargs, out):
        """Follow a call that has returned out (name: PyTorch's name for it, or None)."""
        if name in _UNINITIALISED:
            self.mark(out)
            return
        if "out" in kwargs:
            self.written(kwargs["out"])
        if name is not None:
            last = name.rsplit(".", 1)[-1]
            if (last.endswith("_") and not last.endswith("__")) or last == "__setitem__":
                # the tensor written: self, or nn.init's tensor= (its functions pass keywords on)
                self.written(args[0] if args else kwargs.get("tensor", kwargs.get("input")))
                return
        if self._by_storage and any(self.holds(t) for t in _tensors_in(args)):
            self.mark(out)


def _tensors_in(value, depth=0):
    if isinstance(value, torch.Tensor):
        yield value
    elif isinstance(value, (list, tuple)) and depth < 2:
        for v in value:
            yield from _tensors_in(v, depth + 1)


_GARBAGE = _Garbage()


def _cpu_device(name, value):
    """A device= argument naming the CPU: the tests' own placement, not part of the usage."""
    return name == "device" and (value == "cpu" or (isinstance(value, torch.device) and value.type == "cpu"))


def _module_dtype(module):
    for t in list(module.parameters(recurse=True)) + list(module.buffers(recurse=True)):
        if t.is_floating_point() or t.is_complex():
            return dtype_name(t.dtype)
    return None


def _output(value):
    if isinstance(value, torch.Tensor):
        return encode_tensor(value, keep=False)
    if isinstance(value, (tuple, list)):
        tag = "list" if isinstance(value, list) else "tuple"
        return {tag: [_output(v) for v in value]}
    return ferry_values.encode(value)


# --- PyTorch's values as tagged values ---------------------------------------------------------------

def dtype_name(dtype):
    """The record's name of a torch dtype: "float32", "bfloat16", "complex32", ..."""
    name = _DTYPE_NAMES.get(dtype)
    if name is None:
        name = _DTYPE_NAMES[dtype] = str(dtype).replace("torch.", "")
    return name


_DTYPE_NAMES = {}  # torch dtype -> dtype_name's answer: asked for every tensor of every record


# torch dtypes numpy has no type for, and the wider numpy type their values are encoded through.
_THROUGH = {"bfloat16": "float32", "complex32": "complex64", "float8_e4m3fn": "float32",
            "float8_e5m2": "float32", "float8_e4m3fnuz": "float32", "float8_e5m2fnuz": "float32",
            "float8_e8m0fnu": "float32"}


def encode_tensor(t, keep=None):
    """A tensor as a tagged tensor: dtype (torch's name) and shape, and its values where
    ferry_values.tensor's policy keeps them (keep as there)."""
    if t.layout != torch.strided:
        return {"opaque": f"a {str(t.layout).replace('torch.', '')} tensor"}
    if t.is_quantized or t.is_meta or t.device.type != "cpu" or t.is_nested:
        return {"opaque": f"a {'quantized' if t.is_quantized else t.device.type} tensor"}
    if type(t) not in _Garbage._PLAIN:
        return {"opaque": f"a tensor of class {type(t).__name__}"}
    name = dtype_name(t.dtype)
    if keep is False or _GARBAGE.holds(t):  # uninitialised memory: no value of it means anything
        return {"tensor": {"dtype": name, "shape": list(t.shape)}}
    # each of these makes a new tensor even when it has nothing to do: asked first
    if t.requires_grad:
        t = t.detach()
    if t.is_conj():
        t = t.resolve_conj()
    if t.is_neg():
        t = t.resolve_neg()
    try:
        if name in _THROUGH:
            through = getattr(torch, _THROUGH[name])
            array = t.to(through).numpy()
            if name != "complex32":
                import ml_dtypes
                array = array.astype(getattr(ml_dtypes, name))
        else:
            array = t.numpy()
    except (TypeError, RuntimeError) as e:  # a dtype with no numpy form (quantized, bits)
        return {"opaque": f"a {name} tensor: {str(e).splitlines()[0][:60]}"}
    out = ferry_values.tensor(array, keep)
    out["tensor"]["dtype"] = name
    return out


def _encode_size(s):
    return {"tuple": [ferry_values.encode_int(d) for d in s]}


def _by_name(value):
    """Values PyTorch names as torch.NAME (memory formats, layouts): the qualified name."""
    return {"callable": "torch." + str(value).replace("torch.", "")}


ferry_values.register_encoder(torch.Tensor, encode_tensor)
ferry_values.register_encoder(torch.Size, _encode_size)
ferry_values.register_encoder(torch.dtype, lambda d: {"dtype": dtype_name(d)})
ferry_values.register_encoder(torch.device, lambda d: {"str": str(d)})
ferry_values.register_encoder((torch.memory_format, torch.layout), _by_name)
ferry_values.register_encoder(torch.Generator, lambda g: {"opaque": "a torch.Generator"})
ferry_values.register_encoder(torch.nn.Module, lambda m: {"opaque": f"a module: {type(m).__name__}"})
ferry_values.register_encoder(complex, lambda c: {"opaque": f"a complex scalar: {c!r}"})
ferry_values.register_encoder(np.ndarray, lambda a: {"opaque": f"a numpy array: {a.dtype}{list(a.shape)}"})
