"""Unit tests of the PyTorch value encoding (extract/values.py with extract/instrument_torch.py's
encoders), its decoding by templates/template_torch.py, and the instrumentation's per-object
constructor capture. Prints TAP; run by tests/unit/test-torch-values.sh."""

import dataclasses
import json
import os
import sys
import warnings

import numpy as np  # noqa: E402
import torch  # noqa: E402

warnings.simplefilter("ignore")  # complex32 is "experimental": PyTorch says so on every use

from tap import comment, done, is_, ok  # noqa: E402

from ferry.extract import instrument_torch  # noqa: E402
from ferry.extract import values as ferry_values  # noqa: E402
from ferry.templates import torch as template_torch  # noqa: E402

enc = ferry_values.encode


def refused(fn, name):
    """ok when fn() raises Unmigratable or LookupError (the allow-list said no), not ok otherwise."""
    try:
        fn()
        ok(False, name)
    except (ferry_values.Unmigratable, LookupError):
        ok(True, name)


def dec(v):
    return template_torch._decode(v, 1, [0])


# --- scalars and containers
is_(enc(None), {"none": None}, "None")
is_(enc(True), {"bool": True}, "bool")
is_(enc(3), {"int": 3}, "int")
is_(enc(2 ** 63 - 1), {"int": "9223372036854775807"}, "an int beyond 2^53 is a decimal string")
is_(enc(0.5), {"float": 0.5}, "float")
is_([enc(float("nan")), enc(float("inf")), enc(-float("inf"))],
    [{"float": "nan"}, {"float": "inf"}, {"float": "-inf"}], "nan and infinities are spelled as strings")
is_(enc("zeros"), {"str": "zeros"}, "str")
is_(enc([1, (2.0, None)]), {"list": [{"int": 1}, {"tuple": [{"float": 2.0}, {"none": None}]}]}, "nested list and tuple")
is_(enc({"a": 1}), {"dict": {"a": {"int": 1}}}, "dict")
s = enc(slice(1, None, 2))
is_(s, {"dict": {"__slice__": {"tuple": [{"int": 1}, {"none": None}, {"int": 2}]}}}, "slice")
is_(dec(s), slice(1, None, 2), "a slice decodes to a slice")
is_(enc(Ellipsis), {"callable": "builtins.Ellipsis"}, "Ellipsis")
ok(dec(enc(Ellipsis)) is Ellipsis, "Ellipsis decodes to Ellipsis")
ok("opaque" in enc(lambda x: x), "a lambda is opaque: it has no reachable name")
is_(enc(torch.nn.functional.relu), {"callable": "torch.nn.functional.relu"}, "a function by its qualified name")


@dataclasses.dataclass(frozen=True)
class Options:
    chunk: int = 4
    mode: str = "fast"


Options.__module__ = "__main__"
sys.modules["__main__"].Options = Options
o = enc(Options(8, "slow"))
is_(o, {"dict": {"__dataclass__": {"callable": "__main__.Options"},
                 "fields": {"dict": {"chunk": {"int": 8}, "mode": {"str": "slow"}}}}}, "a dataclass by class and fields")
refused(lambda: dec(o), "a dataclass that is not PyTorch's is refused, loaded or not")
lce = torch.nn.LinearCrossEntropyOptions()
ok(dec(enc(lce)) == lce, "torch.nn's options dataclass decodes to an equal instance")
refused(lambda: dec({"dict": {"__dataclass__": {"callable": "os.system"}, "fields": {"dict": {}}}}),
        "a record cannot make decode call what is not a dataclass")

# --- torch's own types
is_(enc(torch.float32), {"dtype": "float32"}, "torch dtype")
is_(enc(torch.bfloat16), {"dtype": "bfloat16"}, "torch bfloat16 dtype")
ok(dec({"dtype": "bfloat16"}) is torch.bfloat16, "a dtype decodes to the torch dtype")
is_(enc(torch.device("cpu")), {"str": "cpu"}, "device")
is_(enc(torch.Size([2, 3])), {"tuple": [{"int": 2}, {"int": 3}]}, "torch.Size is a tuple of ints")
is_(enc(torch.channels_last), {"callable": "torch.channels_last"}, "a memory format by name")
ok(dec(enc(torch.channels_last)) is torch.channels_last, "a memory format decodes to itself")
ok("opaque" in enc(torch.Generator()), "a generator is opaque")
ok("opaque" in enc(1 + 2j), "a complex scalar is opaque")

# --- tensors
t = enc(torch.tensor([[1.5, -2.0], [0.25, 3.0]]))
is_(t, {"tensor": {"dtype": "float32", "shape": [2, 2], "values": [1.5, -2.0, 0.25, 3.0]}}, "a small float tensor keeps its values")
big = enc(torch.linspace(-3.5, 7.2, 100))
is_(big, {"tensor": {"dtype": "float32", "shape": [100], "range": [-4.0, 8.0]}}, "a large float tensor keeps a range")
idx = enc(torch.arange(100, dtype=torch.int64))
is_(idx["tensor"]["values"], list(range(100)), "an integer tensor (indices) keeps its values")
mask = enc(torch.tensor([True, False, True]))
is_(mask, {"tensor": {"dtype": "bool", "shape": [3], "values": [True, False, True]}}, "a mask keeps its values")
b16 = enc(torch.tensor([1.5, -0.1], dtype=torch.bfloat16))
is_(b16["tensor"]["dtype"], "bfloat16", "bfloat16 keeps its name")
back = dec(b16)
ok(back.dtype == torch.bfloat16 and torch.equal(back, torch.tensor([1.5, -0.1], dtype=torch.bfloat16)),
   "bfloat16 values round-trip exactly")
c32 = enc(torch.zeros(2, 3, dtype=torch.complex32))
is_(c32, {"tensor": {"dtype": "complex32", "shape": [2, 3], "range": [0.0, 0.0]}}, "complex32 keeps dtype, shape, range")
ok("opaque" in enc(torch.zeros(3, 3).to_sparse()), "a sparse tensor is opaque")
z = dec({"tensor": {"dtype": "float64", "shape": []}})
ok(z.shape == () and z.dtype == torch.float64, "a 0-d tensor without values decodes to a 0-d tensor")
r = dec({"tensor": {"dtype": "int32", "shape": [50], "range": [3, 7]}})
ok(r.dtype == torch.int32 and int(r.min()) >= 3 and int(r.max()) <= 7, "generated values stay in the range")
nested = enc([torch.ones(2, dtype=torch.int64), (torch.zeros(1, dtype=torch.bool), 2)])
is_(nested, {"list": [{"tensor": {"dtype": "int64", "shape": [2], "values": [1, 1]}},
                      {"tuple": [{"tensor": {"dtype": "bool", "shape": [1], "values": [False]}}, {"int": 2}]}]},
    "tensors nested in lists and tuples")

# --- the instrumentation
records = []
early = torch.nn.Conv2d(1, 1, 1)  # made before the instrumentation: its arguments are unknown
before_init = torch.nn.Conv2d.__dict__["__init__"]
before_call = torch.nn.Module.__dict__["__call__"]
with instrument_torch.Recorder(records.append) as rec:
    a = torch.nn.Conv2d(3, 4, 3)
    b = torch.nn.Conv2d(3, 8, kernel_size=5, padding=2, bias=False)
    x = torch.randn(1, 3, 9, 9)
    with rec.recording():
        b(x)
        a(x)
        torch.nn.Tanh()(x)
        torch.nn.functional.relu(x)
        x.add(1.0, alpha=2)
        early(torch.randn(1, 1, 2, 2))
        torch.nn.Sequential(torch.nn.Linear(9, 2))(x)
    torch.add(x, x)  # not recording: not recorded
compiled_ok = True
with instrument_torch.Recorder(lambda r: None) as rec, rec.recording():
    try:
        fn = torch.compile(lambda t: torch.relu(t) + t.sin(), backend="eager", fullgraph=True)
        fn(torch.randn(3))
    except Exception as e:  # Dynamo met the instrumentation: a test of the user's would fail so
        compiled_ok = False
        comment(f"{type(e).__name__}: {str(e).splitlines()[0]}")
ok(compiled_ok, "torch.compile(fullgraph=True) still compiles under the instrumentation")
ops = [r["op"] for r in records]
is_(ops, ["torch.nn.Conv2d", "torch.nn.Conv2d", "torch.nn.Tanh", "torch.nn.functional.relu", "torch.Tensor.add",
          "torch.nn.Conv2d", "torch.nn.Linear"],
    "outermost calls only: no conv2d inside Conv2d, modules in a Sequential, nothing outside recording()")
is_(records[0]["params"], {"in_channels": {"int": 3}, "out_channels": {"int": 8}, "kernel_size": {"int": 5},
                           "padding": {"int": 2}, "bias": {"bool": False}},
    "two live Conv2d objects: the first call is paired with its own object's arguments")
is_(records[1]["params"], {"in_channels": {"int": 3}, "out_channels": {"int": 4}, "kernel_size": {"int": 3}},
    "... and the second with the other's")
is_(records[0]["outputs"], [{"tensor": {"dtype": "float32", "shape": [1, 8, 9, 9]}}], "outputs are dtype and shape")
is_(records[0]["context"]["training"], {"bool": True}, "the module's mode is in its context")
is_(records[2]["params"], {}, "a module without a constructor of its own has no parameters")
is_(records[4]["inputs"][1], {"float": 1.0}, "a method's positional arguments are its inputs, after the tensor")
is_(records[4]["params"], {"alpha": {"int": 2}}, "keyword arguments are its params")
ok(records[5].get("unmigratable", "").startswith("params: the module was made without its constructor"),
   "a module made before the instrumentation is marked unmigratable, with the reason")
src = records[0]["source"]
ok(src["file"].endswith("torch_values.py") and isinstance(src["line"], int), "provenance: the call site's file and line")
ok(torch.nn.Conv2d.__dict__["__init__"] is before_init and torch.nn.Module.__dict__["__call__"] is before_call,
   "leaving restores the patched constructors and Module.__call__")
ok(not torch.overrides._is_torch_function_mode_enabled(), "leaving pops the function mode")

# --- a record rebuilt by the template is the same call
plan = template_torch._Plan(records[0])
module = plan.build()
ok(isinstance(module.module, torch.nn.Conv2d) and module.module.out_channels == 8 and module.module.bias is None,
   "the template builds the module from the recorded arguments")
out = module(*plan.inputs())
ok(len(out) == 1 and tuple(out[0].shape) == (1, 8, 9, 9), "and it computes the recorded output shape")

# --- the allow-list: names resolve by lookup only, to operators and values of PyTorch
for name in ("torch.os.system", "torch.builtins.eval", "torch.builtins.exec", "torch.sys", "torch.ctypes.CDLL",
             "torch.serialization.os.system", "torch.Tensor.__class__", "torch.Tensor.__reduce_ex__",
             "torch.Tensor.type", "torch.Tensor.apply_", "torch.load", "torch.save", "torch.from_file",
             "torch.compile", "torch.set_default_tensor_type", "torch.ops", "torch.nn.Module", "os.system",
             "builtins.eval", "subprocess.run", "importlib.import_module", "torch.nn.functional.os.system"):
    refused(lambda name=name: template_torch.ferry_resolve(name), f"ferry_resolve refuses {name}")
    refused(lambda name=name: ferry_values.resolve_callable(name), f"resolve_callable refuses {name}")
for name, want in (("torch.nn.Conv2d", torch.nn.Conv2d), ("torch.add", torch.add), ("torch.Tensor.add", torch.Tensor.add),
                   ("torch.nn.functional.conv2d", torch.nn.functional.conv2d),
                   ("torch.Tensor.__getitem__", torch.Tensor.__getitem__), ("torch.linalg.cond", torch.linalg.cond),
                   ("torch.functional.einsum", torch.einsum), ("torch._C._nn.gelu", torch.nn.functional.gelu),
                   ("torch.channels_last", torch.channels_last), ("builtins.Ellipsis", Ellipsis)):
    ok(template_torch.ferry_resolve(name) is want, f"ferry_resolve finds {name}")
table = template_torch.ferry_operators()
foreign = [n for n, v in table.items() if v is not Ellipsis and not isinstance(v, (torch.memory_format, torch.layout))
           and str(getattr(v, "__module__", None) or "torch").split(".")[0] != "torch"]
is_(foreign, [], "every object in the allow-list is PyTorch's own")
for bad in ({"op": "torch.os.system", "kind": "function"}, {"op": "torch.nn.Conv2d", "kind": "function"},
            {"op": "torch.add", "kind": "module"}):
    r = dict(bad, library="torch", inputs=[{"str": "touch /nonexistent/ferry"}], context={})
    refused(lambda r=r: template_torch._Plan(r), f"a record of {bad['op']} as a {bad['kind']} is refused")
got = template_torch.wrap(json.dumps({"library": "torch", "op": "torch.os.system", "kind": "function",
                                      "inputs": [{"str": "true"}]}), os.devnull)
ok(got["status"] == "invalid" and "not a PyTorch operator ferry allows" in got["reason"],
   "wrap calls a name outside the allow-list invalid, saying why")


# --- generated Python: the record's text is data, in comments and strings alike
def no_code_from(source, name):
    """ok when the generated source compiles and calls no __import__: the payloads below do, if
    any of their text became code."""
    import ast
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError) as e:  # ValueError: a null byte
        ok(False, f"{name} # {e}")
        return
    calls = [n for n in ast.walk(tree) if isinstance(n, ast.Name) and n.id == "__import__"]
    ok(not calls, name)


from ferry.oracle import reproducer as ferry_reproducer  # noqa: E402

evil = "x\'\'\'\"\"\"\\\n__import__('os').system('touch /nonexistent/ferry')\r#\u2028\x00"
hostile = {"id": "0123456789abcdef0123456789abcdef", "library": "torch", "op": "torch.nn.Identity", "kind": "module",
           "params": {evil: {"str": evil}}, "inputs": [{"tensor": {"dtype": "float32", "shape": [2]}}],
           "context": {"training": {"bool": False}},
           "source": {"suite": evil, "test": evil, "file": evil, "line": 1}}
script = ferry_reproducer.reproducer("torch", json.dumps(hostile), os.devnull, "inductor")
no_code_from(script, "a reproducer holds a record's names, strings and test names as data")
ok(evil in [getattr(n, "value", None) for n in __import__("ast").walk(__import__("ast").parse(script))],
   "... and the string itself, exactly")
import tempfile  # noqa: E402

out = tempfile.mkdtemp()
ferry_reproducer.export("torch", json.dumps(hostile), os.devnull, out, "inductor")
names = sorted(os.listdir(out))
ok(all(n.replace("_", "").replace(".", "").isalnum() and n.isascii() for n in names), f"exported file names are plain ({names})")
for n in names:
    with open(os.path.join(out, n)) as f:
        no_code_from(f.read(), f"the exported {'test' if n.startswith('test_') else 'reproducer'} holds the record's text as data")

# an empty tensor has nothing to keep, whatever its dtype: OpInfo's empty complex samples (4,044 calls
# the harvest of the whole suite used to drop as "the instrumentation failed: ValueError")
try:
    empty = ferry_values.tensor(np.zeros((1, 0, 3), dtype=np.complex128), None)
except ValueError as e:
    empty = repr(e)
ok(empty == {"tensor": {"dtype": "complex128", "shape": [1, 0, 3], "values": []}}, f"an empty complex tensor ({empty})")

# The harvest's shortcuts (issue 18: the instrumentation's cost) give what the element-by-element
# rules give: whole numbers up to each type's exact limit and just past it, halves, the smallest
# steps, -0.0, NaN and the infinities.
for name, limit in (("float16", 2 ** 11), ("bfloat16", 2 ** 8), ("float32", 2 ** 24), ("float64", 2 ** 53)):
    t = torch.tensor([0.0, -0.0, 1.0, -3.0, 0.5, 1e-3, limit - 1, limit, limit + 2, -limit - 4, 3 * limit,
                      float("nan"), float("inf"), -float("inf")], dtype=torch.float64).to(getattr(torch, name))
    got = instrument_torch.encode_tensor(t, keep=True)["tensor"]["values"]
    array = t.double().numpy() if name == "bfloat16" else t.numpy()
    if name == "bfloat16":
        import ml_dtypes
        array = array.astype(np.float32).astype(ml_dtypes.bfloat16)
    rule = ferry_values._float_json if name == "float64" else (lambda x, d=array.dtype: ferry_values._narrow_float_json(x, d))
    want = [rule(x) for x in array]
    is_(json.dumps(got), json.dumps(want), f"{name} values as the element-by-element rule spells them")
big = np.array([1, -2, 2 ** 53, 2 ** 53 + 1, -(2 ** 60)], dtype=np.int64)
is_(ferry_values.tensor(big, True)["tensor"]["values"], [1, -2, 2 ** 53, str(2 ** 53 + 1), str(-(2 ** 60))],
    "int64 values beyond 2**53 are decimal strings, the others numbers")
is_(ferry_values.tensor(np.array([3, 70000], dtype=np.uint32), True)["tensor"]["values"], [3, 70000], "uint32 values")
is_(ferry_values.tensor(np.array([True, False]), True)["tensor"]["values"], [True, False], "bool values are JSON booleans")
is_(ferry_values.first_opaque({"tensor": {"opaque": "a generator"}}), "a generator",
    "an opaque value under a parameter named tensor is found")
is_(ferry_values.first_opaque({"x": {"tensor": {"dtype": "int64", "shape": [2], "values": [1, 2]}},
                               "y": {"list": [{"int": 1}, {"opaque": "a module: Linear"}]}}), "a module: Linear",
    "a tensor's body is passed over and the opaque value after it is found")
base = torch.tensor([1.5, -2.0], dtype=torch.complex64)
views = {"a conjugate view": base.conj(), "a negative view": base.conj().imag, "a tensor that requires grad":
         torch.tensor([1.5, -2.0], requires_grad=True)}
for what, t in views.items():
    want = ferry_values.tensor(t.detach().resolve_conj().resolve_neg().numpy())
    is_(instrument_torch.encode_tensor(t), want, f"{what} is encoded by its values")

done()
