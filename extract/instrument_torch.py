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
- calls that return no tensor (x.size(), x.item(), torch.equal), calls with an out= argument,
  calls that raise, and, unless allow_tensorless is set, calls given no tensor at all (the
  torch.randn(3, 4) that makes a test's input); each such call is counted in recorder.dropped.
"""

import functools
import os
import sys

import numpy as np
import torch
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
# recorder's wrapper of Module.__call__ calls it.
_CONTAINER_FILES = frozenset([os.path.join(_TORCH_DIR, "nn", "modules", f) for f in ("container.py", "module.py")]
                             + [recorder.FILE])

# Module classes that are plumbing, not operators.
_CONTAINERS = ("Module", "Sequential", "ModuleList", "ModuleDict", "ParameterList", "ParameterDict",
               "Container")

# Methods and properties that ask about a tensor or move it about rather than compute: dropped
# before any encoding is spent on them (a call returning no tensor would be dropped anyway).
_NOT_OPERATORS = {
    "__repr__", "__format__", "__str__", "__len__", "__iter__", "__bool__", "__hash__", "__reduce_ex__",
    "__reduce__", "__deepcopy__", "__array__", "__array_wrap__", "__contains__", "__index__", "__int__",
    "__float__", "__complex__", "__setstate__", "__getstate__", "__dir__", "__reversed__",
    "__setitem__", "__delitem__", "__torch_function__", "__dlpack__", "__dlpack_device__",
    "tolist", "item", "numpy", "size", "dim", "ndimension", "numel", "nelement", "stride",
    "storage_offset", "is_contiguous", "data_ptr", "element_size", "untyped_storage", "storage",
    "_typed_storage", "is_floating_point", "is_complex", "is_signed", "get_device", "backward",
    "register_hook", "register_post_accumulate_grad_hook", "requires_grad_", "retain_grad", "detach_",
    "cpu", "cuda", "type", "is_set_to", "is_shared", "share_memory_", "pin_memory", "is_pinned",
    "_is_view", "is_inference", "dim_order", "_make_subclass", "_make_wrapper_subclass", "__new__",
    "__init__", "apply_", "map_", "map2_", "_version", "is_same_size", "has_names", "_fix_weakref",
}


class Recorder(recorder.Recorder):
    """The instrumentation: install by entering, record inside recording(), remove by leaving."""

    LIBRARY = "PyTorch"

    def __init__(self, sink, allow_tensorless=False):
        super().__init__(sink, torch.__version__.split("+")[0])
        self.allow_tensorless = allow_tensorless
        self._classes = {}         # public torch.nn module class -> "torch.nn.Name"
        self._argless = set()      # those whose constructor is Module.__init__
        self._mode = None
        self._names = {}           # func -> op name, or None for what is not an operator

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
        self.patch(nn.Module, "__call__", self.wrap(nn.Module.__dict__["__call__"], self._module_call))
        self._mode = _Mode(self)
        self._mode.__enter__()

    def remove(self):
        if self._mode is not None:
            self._mode.__exit__(None, None, None)
            self._mode = None

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
        """(params, None), or (None, why) when the arguments cannot be bound to the constructor."""
        try:
            given = self.arguments(init, module, args, kwargs)
        except (TypeError, ValueError) as e:
            return None, f"constructor arguments do not bind: {e}"
        return {k: ferry_values.encode(v) for k, v in given.items() if not _cpu_device(k, v)}, None

    def _module_call(self, frame, args, kwargs):
        """The pending record of a module's call (recorder.Recorder.wrap's intercept)."""
        module, args = args[0], args[1:]
        op = self._classes.get(type(module))
        if op is None:
            return None
        site = recorder.call_site(frame, _in_container)
        if site is None:
            return None
        return self.guard(self._encode_module_call, op, module, args, kwargs, site)

    def _encode_module_call(self, op, module, args, kwargs, site):
        if self.tensorless(args, kwargs) and not self.allow_tensorless:
            return self.drop("no tensor argument")
        if type(module) in self._argless:
            params, why = {}, None  # Module.__init__ is its constructor: it takes no arguments
        else:
            params, why = self.constructor_of(module) or (None, "the module was made without its constructor "
                                                                "(copied, unpickled, or before the instrumentation)")
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
        return record, site

    # --- functions and methods -------------------------------------------------------------------------

    def _function_call(self, func, args, kwargs):
        """The pending record of a call that the mode saw, or None when it is not to be recorded."""
        op = self._names.get(func, False)
        if op is False:
            op = self._names[func] = _operator_name(func)
        if op is None:
            return None
        site = recorder.call_site(sys._getframe(2), _in_torch)
        if site is None:
            return None
        return self.guard(self._encode_call, op, args, kwargs, site)

    def _encode_call(self, op, args, kwargs, site):
        if "out" in kwargs:
            return self.drop("an out= argument")
        if not self.allow_tensorless and self.tensorless(args, kwargs):
            return self.drop("no tensor argument")
        record = {
            "library": "torch", "library_version": self._version, "op": op,
            "kind": "method" if op.startswith("torch.Tensor.") else "function",
            # keywords named _x are PyTorch's plumbing (F.softmax passes on its _stacklevel)
            "params": {k: ferry_values.encode(v) for k, v in kwargs.items()
                       if not _cpu_device(k, v) and not k.startswith("_")},
            "inputs": [ferry_values.encode(a) for a in args],
        }
        return record, site


def _in_torch(path):
    """call_site's judge: the file of the code that made a call, or None when that code is PyTorch's
    own or the instrumentation's; PyTorch's dispatch of the call is passed over."""
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
        if r.idle():  # is_compiling first (Recorder.idle)
            return func(*args, **kwargs)
        return r.run(r._function_call(func, args, kwargs), func, args, kwargs)


def _operator_name(func):
    """PyTorch's name for an overridable function or method, None for what is not an operator."""
    name = torch.overrides.resolve_name(func)
    if name is None or not name.startswith("torch."):
        return None
    last = name.rsplit(".", 1)[-1]
    if last in ("__get__", "__set__", "__delete__") or last in _NOT_OPERATORS:
        return None
    if name.startswith(("torch._", "torch.Tensor._")) and not name.startswith("torch.Tensor.__"):
        return None  # private functions: PyTorch's plumbing, not its API
    return name


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
    return str(dtype).replace("torch.", "")


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
    if type(t) not in (torch.Tensor, torch.nn.Parameter, torch.nn.Buffer):
        return {"opaque": f"a tensor of class {type(t).__name__}"}
    name = dtype_name(t.dtype)
    if keep is False:
        return {"tensor": {"dtype": name, "shape": [int(d) for d in t.shape]}}
    t = t.detach().resolve_conj().resolve_neg()
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
