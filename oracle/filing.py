"""ferry.oracle.filing: the short reproducer an upstream issue carries (ferry file), and a float64
reference beside the test's own.

script() writes a Python script of about 30 lines that a compiler's maintainer runs with nothing of
ferry installed: the model in a few lines of the library's own (ONNX's text syntax, a tiny
torch.nn.Module), the inputs and the reference outputs as literals (one line of zlib+base64 bytes
for an array of more than 32 elements), the frontend run through its public API only, and a
comparison that judges as ferry's value oracle does (oracle/compare.c: shapes, dtypes, NaN and Inf
in the same places, |got - want| <= atol + rtol * |want| or, for float16 and bfloat16, 2 ulps of
want; integers, bools and strings exactly). Its output, which ferry file pastes into the issue:

    output K: N of M elements differ        (or: got DTYPE [SHAPE], want DTYPE [SHAPE])
      [i, j, k] got G want W                (up to 10 lines)
    BUG                                     exit status 1
or
    FRONTEND raised TYPE: MESSAGE
    BUG                                     exit status 1
or
    no bug                                  exit status 0

How a frontend is run: RUN below, keyed by the adapter's NAME, or the adapter's own FILE_RUN (a
user's adapter, tests/data/adapters/adapter_fault.py), which wins. Each is (imports, body): the body
defines run(model, inputs) -> a list of numpy arrays, where model is an onnx.ModelProto and inputs a
dict name -> array (ONNX), or model a torch.nn.Module and inputs a list of tensors (PyTorch). It keeps
what ferry's adapter does that changes a result (ORT's CPU provider, OpenVINO's CPU device in f32,
inductor's backend) and nothing of ferry's bookkeeping. Text between braces {NARROW} in a body is
filled per script (see _fill). A frontend with no entry raises ValueError, and so does a test a short
script cannot carry (a random operator, sub-byte dtypes, a module's result that is not tensors):
the caller falls back to the full reproducer (ferry.oracle.reproducer).

Nothing of a record reaches the script but as repr() literals and one comment line made safe.
"""

import ast
import base64
import json
import os
import re
import zlib

import numpy as np

from ferry.oracle import driver
from ferry.oracle.reproducer import _comment, onnx_text

LITERAL_MAX = 32  # elements an array may have and still be written as a list literal
HALF_ULPS = 2  # oracle/compare.h's COMPARE_HALF_ULPS: float16 and bfloat16 also pass within 2 ulps
# dtypes numpy lacks, which ONNX Runtime and OpenVINO take only as their bits
_NARROW = ("bfloat16", "float8_e4m3fn", "float8_e4m3fnuz", "float8_e5m2", "float8_e5m2fnuz", "float8_e8m0fnu")
_SUB_BYTE = ("int4", "uint4", "int2", "uint2", "float4_e2m1fn")

# --- how each frontend is run ---------------------------------------------------------------------

def _body(*lines):
    """A run() of RUN from its lines (each line of the script may be several string literals here)."""
    return "\n".join(lines)


_ORT = ("import onnxruntime as ort", _body(
    "def run(model, inputs):  # ONNX Runtime's CPU provider, all graph optimisations (its default)",
    '    s = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])',
    "{ORT_RUN}"))

# ONNX Runtime's binding has no numpy type for bfloat16 and float8: their bits go in and come out
_ORT_PLAIN = "    return s.run(None, inputs)"
_ORT_BITS = _body(
    '    feeds = {k: ort.OrtValue.ortvalue_from_numpy_with_onnx_type(v.view(f"u{v.itemsize}") if v.dtype.kind == "V" else v, '
    "onnx.helper.np_dtype_to_tensor_dtype(v.dtype)) for k, v in inputs.items()}",
    "    return [np.frombuffer(ctypes.string_at(v.data_ptr(), v.tensor_size_in_bytes()), "
    "onnx.helper.tensor_dtype_to_np_dtype(o.type.tensor_type.elem_type)).reshape(v.shape()) "
    "for v, o in zip(s.run_with_ort_values(None, feeds), model.graph.output)]")

_OV_CONFIG = '{"INFERENCE_PRECISION_HINT": "f32"}'  # f32, not the bf16 OpenVINO picks on CPUs that have it
# OpenVINO's Python API takes and gives bfloat16 as its bits, labelled float16
_OV_IO = _body(
    '    r = c([ov.Tensor(v.view(np.float16), list(v.shape), ov.Type.bf16) if v.dtype.name == "bfloat16" else v '
    "for v in {FEEDS}])",
    "    return [r[o].view(ml_dtypes.bfloat16) if o.get_element_type() == ov.Type.bf16 else r[o] for o in c.outputs]")

RUN = {
    "ort": _ORT,
    "openvino-onnx": ("import openvino as ov", _body(
        "def run(model, inputs):  # OpenVINO's ONNX frontend, CPU",
        "    core = ov.Core()",
        '    c = core.compile_model(core.read_model(model=model.SerializeToString(), weights=b""), "CPU", '
        + _OV_CONFIG + ")",
        # by name: compiling drops an input nothing uses (an empty axes), which shifts the places of the rest
        _OV_IO.replace("{FEEDS}", "[next(inputs[n] for n in p.get_names() if n in inputs) for p in c.inputs]"))),
    "tvm-onnx": ("import tvm.relax.frontend.onnx", _body(
        "def run(model, inputs):  # TVM Relax's ONNX frontend, llvm",
        '    vm = tvm.relax.VirtualMachine(tvm.compile(tvm.relax.frontend.onnx.from_onnx(model), target="llvm"), tvm.cpu())',
        '    out = vm["main"](*[tvm.runtime.tensor(v) for v in inputs.values()])',
        "    return [o.numpy() for o in (out if len(model.graph.output) > 1 else [out])]")),
    "iree-onnx": ("import iree.compiler, iree.runtime\nfrom iree.compiler.extras import onnx_importer", _body(
        "def run(model, inputs):  # as iree-import-onnx, then iree-compile for llvm-cpu",
        "    info = onnx_importer.ModelInfo(onnx.shape_inference.infer_shapes(model, data_prop=True))",
        "    onnx_importer.NodeImporter.define_function(info.main_graph, "
        "module := info.create_module(context=iree.compiler.ir.Context()).operation).import_all()",
        '    vmfb = iree.compiler.compile_str(str(module), target_backends=["llvm-cpu"], input_type="onnx", '
        'extra_args=["--iree-llvmcpu-target-cpu=generic", "--iree-input-demote-f64-to-f32=false"])',
        '    out = iree.runtime.load_vm_flatbuffer(vmfb, driver="local-sync")[model.graph.name](*inputs.values())',
        # IREE's integers are signless: an unsigned output comes back as the signed integer of its width
        "    return [np.asarray(o.to_host()).view(u) if (u := onnx.helper.tensor_dtype_to_np_dtype(d.type.tensor_type.elem_type))"
        '.kind == "u" else np.asarray(o.to_host()) '
        "for o, d in zip(out if isinstance(out, (list, tuple)) else [out], model.graph.output)]")),
    "inductor": ("", _body(
        "def run(model, inputs):  # torch.compile with TorchInductor",
        "    with torch.no_grad():",
        '        return [{NUMPY} for t in torch.compile(model, backend="inductor", fullgraph=True)(*inputs)]')),
    "torch-onnx-ort": ("import onnxruntime as ort", _body(
        "def run(model, inputs):  # torch.onnx.export (dynamo), then ONNX Runtime's CPU provider",
        "    s = ort.InferenceSession(torch.onnx.export(model, tuple(inputs), dynamo=True, verbose=False)"
        '.model_proto.SerializeToString(), providers=["CPUExecutionProvider"])',
        "    return s.run(None, {i.name: inputs[int(i.name[1:])].numpy() for i in s.get_inputs()})")),
    "openvino-export": ("import openvino as ov", _body(
        "def run(model, inputs):  # torch.export, then OpenVINO's PyTorch frontend, CPU",
        '    c = ov.compile_model(ov.convert_model(torch.export.export(model, tuple(inputs))), "CPU", ' + _OV_CONFIG + ")",
        _OV_IO.replace("{FEEDS}", "[{FEED}]"))),
    "openvino-pytorch": ("import openvino as ov", _body(
        "def run(model, inputs):  # traced and frozen TorchScript, then OpenVINO's PyTorch frontend, CPU",
        "    c = ov.compile_model(ov.convert_model(torch.jit.freeze(torch.jit.trace(model, tuple(t.clone() for t in inputs), "
        "check_trace=False).eval(), optimize_numerics=False), example_input=tuple(t.clone() for t in inputs)), "
        '"CPU", ' + _OV_CONFIG + ")",
        _OV_IO.replace("{FEEDS}", "[{FEED}]"))),
    "openvino-fx": ("import openvino.torch", _body(
        "def run(model, inputs):  # torch.compile with OpenVINO's backend, CPU",
        "    with torch.no_grad():",
        '        c = torch.compile(model, backend="openvino", fullgraph=True, options={"device": "CPU", "config": '
        + _OV_CONFIG + "})",
        "        return [{NUMPY} for t in c(*inputs)]")),
    "tvm-pytorch": ("import tvm.relax.frontend.torch", _body(
        "def run(model, inputs):  # torch.export, then TVM Relax's PyTorch frontend, llvm",
        "    vm = tvm.relax.VirtualMachine(tvm.compile(tvm.relax.frontend.torch.from_exported_program("
        'torch.export.export(model, tuple(inputs))), target="llvm"), tvm.cpu())',
        '    out = vm["main"](*[tvm.runtime.tensor({FEED}) for t in inputs])',
        '    return [o.numpy() for o in (out if isinstance(out, (list, tuple)) or type(out).__name__ == "Array" else [out])]')),
    "xla-tf": ("import tempfile\nimport tensorflow as tf", _body(
        "def run(model, inputs):  # the model's SavedModel, its serving function compiled whole by XLA, CPU",
        '    model.export(d := tempfile.mkdtemp(), format="tf_saved_model", verbose=False, '
        'input_signature=[[tf.TensorSpec(x.shape, x.dtype, name=f"in_{k}") for k, x in enumerate(inputs)]])',
        '    serving = (loaded := tf.saved_model.load(d)).signatures["serving_default"]',
        '    with tf.device("/CPU:0"):',
        '        out = tf.function(lambda **f: serving(**f), jit_compile=True)(**{f"in_{k}": x for k, x in enumerate(inputs)})',
        '    return [np.asarray(out[f"output_{k}"]) for k in range(len(out))]')),
}

# what a run of each library's frontends is said to have found, and what a frontend not in RUN gets
_NOT_COVERED = ("its models (tf_keras's, or Keras's on this frontend) are not made in a few lines yet: the full reproducer "
                "(ferry show) has it")


def frontend_run(frontend):
    """(adapter, imports, body) of the frontend, or ValueError."""
    adapter = driver.load_adapter(frontend)
    entry = getattr(adapter, "FILE_RUN", None) or RUN.get(adapter.NAME)
    if entry is None:
        raise ValueError(f"ferry file has no short reproducer for {adapter.NAME}: {_NOT_COVERED}")
    return adapter, entry[0], entry[1]


# --- literals ---------------------------------------------------------------------------------------

def _real(value, entry):
    """A reference as the test declares it: stored wider (bfloat16 as float32, ...) converted back
    to its dtype, so that the script compares dtypes as the oracle did (driver._comparable)."""
    if "stored" not in entry:
        return value
    real = driver._dtype(entry["dtype"])
    if real is None:
        raise ValueError(f"no numpy type holds {entry['dtype']}: the full reproducer carries it")
    return [v.astype(real) for v in value] if isinstance(value, list) else value.astype(real)


def _float_text(f):
    return repr(float(f)) if np.isfinite(f) else f"float({str(float(f))!r})"


def _list_text(a):
    """The elements of a, flat, as Python literals that give the same values back exactly: a
    float16 or float32 value is exact as a double, and its repr spells the double exactly."""
    if a.dtype.kind == "b":
        return repr([bool(x) for x in a.ravel()])
    if a.dtype.kind in "iu" or a.dtype.name in _SUB_BYTE:
        return repr([int(x) for x in a.ravel()])
    if a.dtype.kind == "c":
        return "[" + ", ".join(f"complex({_float_text(x.real)}, {_float_text(x.imag)})" for x in a.ravel()) + "]"
    return "[" + ", ".join(_float_text(x) for x in a.astype(np.float64).ravel()) + "]"


def _dtype_text(a, imports):
    name = a.dtype.name
    if name in _SUB_BYTE:
        raise ValueError(f"{name} tensors are not written by the short reproducer: the full reproducer carries them")
    if hasattr(np, name) and a.dtype.kind != "V":
        return f"np.{name}"
    imports.add("import ml_dtypes")
    return f"ml_dtypes.{name}"


def np_literal(value, imports):
    """Source text of a numpy array (a list of them: a sequence) that gives back its dtype, shape and
    bits: a list literal up to LITERAL_MAX elements, else its bytes in one line."""
    if isinstance(value, list):
        return "[" + ", ".join(np_literal(v, imports) for v in value) + "]"
    a = np.asarray(value)
    if a.dtype.kind in "OUS":
        return f"np.array({a.tolist()!r}, dtype=object)"
    dtype = _dtype_text(a, imports)
    shape = f".reshape({list(a.shape)!r})" if a.ndim != 1 else ""
    if a.ndim == 0:
        return f"np.array({_list_text(a)[1:-1]}, dtype={dtype})"
    if a.size <= LITERAL_MAX:
        return f"np.array({_list_text(a)}, dtype={dtype}){shape}"
    imports.update(("import base64", "import zlib"))
    packed = base64.b64encode(zlib.compress(np.ascontiguousarray(a).tobytes(), 9)).decode()
    return f"np.frombuffer(zlib.decompress(base64.b64decode({packed!r})), {dtype}){shape}.copy()"


_TORCH_DTYPES = {"bool": "torch.bool", "float8_e4m3fn": "torch.float8_e4m3fn", "float8_e5m2": "torch.float8_e5m2",
                 "float8_e4m3fnuz": "torch.float8_e4m3fnuz", "float8_e5m2fnuz": "torch.float8_e5m2fnuz"}


def torch_literal(t, imports):
    """Source text of a tensor, as np_literal does it."""
    import torch

    name = str(t.dtype).replace("torch.", "")
    if name == "complex32" or name in [f"{u}int{k}" for u in ("", "u") for k in range(1, 8)] or "qint" in name:
        raise ValueError(f"{name} tensors are not written by the short reproducer: the full reproducer carries them")
    dtype = _TORCH_DTYPES.get(name, f"torch.{name}")
    shape = f".reshape({list(t.shape)!r})" if t.dim() != 1 else ""
    if t.numel() <= LITERAL_MAX:
        wide = t.detach().to(torch.float64 if t.is_floating_point() else torch.complex128 if t.is_complex() else t.dtype)
        if t.dim() == 0:
            return f"torch.tensor({_list_text(wide.numpy())[1:-1]}, dtype={dtype})"
        return f"torch.tensor({_list_text(wide.numpy())}, dtype={dtype}){shape}"
    imports.update(("import base64", "import zlib"))
    raw = t.detach().contiguous().view(-1).view(torch.uint8).numpy().tobytes()
    packed = base64.b64encode(zlib.compress(raw, 9)).decode()
    return f"torch.frombuffer(bytearray(zlib.decompress(base64.b64decode({packed!r}))), dtype={dtype}){shape}"


# --- tolerance --------------------------------------------------------------------------------------

def tolerance(library, op, dtype, frontend, atol=None, rtol=None):
    """(atol, rtol): the caller's where given (the tolerance that judged the result), else the first
    line of ferry's tolerances for the library (oracle/tolerances/LIBRARY.txt, OP DTYPE FRONTEND ATOL
    RTOL REASON, * for any) that matches, else ferry's default (oracle/tolerance.h)."""
    if atol not in (None, "") and rtol not in (None, ""):
        return float(atol), float(rtol)
    found = (1e-3, 1e-3)
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "tolerances", f"{library}.txt")
    if os.path.exists(path):
        with open(path) as f:
            for line in f:
                field = line.split()
                if len(field) < 5 or field[0].startswith("#"):
                    continue
                if all(want in ("*", have) for want, have in zip(field[:3], (op, dtype, frontend))):
                    found = (float(field[3]), float(field[4]))
                    break
    return (float(atol) if atol not in (None, "") else found[0]), (float(rtol) if rtol not in (None, "") else found[1])


# --- the script -------------------------------------------------------------------------------------

# ferry's value oracle (oracle/compare.c) in a few lines, made for the script's outputs (_differ):
# ints, bools and strings exactly, floats with NaN and Inf in the same places and within the tolerance
# (or 2 ulps of want in float16 and bfloat16); a random operator's values not at all
_DIFFER_HEAD = (
    "def differ(k, g, w):  # prints where output k differs from want as ferry's oracle judges it",
    "    g = np.asarray(g); np.seterr(all=\"ignore\")  # Inf - Inf is NaN, and no warning",
    "    if g.shape != w.shape or g.dtype != w.dtype: "
    "return not print(f\"output {k}: got {g.dtype} {list(g.shape)}, want {w.dtype} {list(w.shape)}\")")
_DIFFER_FLOAT = (
    "    a, b = (x.astype(complex if w.dtype.kind == \"c\" else float) for x in (g, w))",
    "    tol = {TOL}",
    "    bad = ~((a == b) | (np.isnan(a) & np.isnan(b)) | (np.isfinite(a) & np.isfinite(b) & (abs(a - b) <= tol)))")
_DIFFER_TAIL = (
    "    if bad.any(): print(f\"output {k}: {int(bad.sum())} of {bad.size} elements differ\", "
    "*[f\"  {list(map(int, i))} got {g[i]} want {w[i]}\" for i in map(tuple, np.argwhere(bad)[:10])], sep=\"\\n\")",
    "    return bad.any()")

_TAIL = _body(
    "try:",
    "    got = run(model, inputs)",
    "except Exception as e:",
    '    sys.exit(print(f"{FRONTEND} raised {type(e).__name__}: {e}\\nBUG") or 1)',
    "bug = [differ(k, g, w) for k, (g, w) in enumerate(zip(got, want))] + "
    '[len(got) != len(want) and not print(f"got {len(got)} outputs, want {len(want)}")]',
    'sys.exit(print("BUG" if any(bug) else "no bug") or int(any(bug)))')


def _differ(wants, random, atol, rtol):
    """The script's differ(), as short as the test's outputs allow."""
    if random:
        return "\n".join(_DIFFER_HEAD[:3] + ("    return False  # a random operator: ferry compares only dtypes and shapes",))
    exact = [w.dtype.kind in "biuOUS" or w.dtype.name in _SUB_BYTE for w in wants]
    if all(exact):
        return "\n".join(_DIFFER_HEAD + ("    bad = g != w",) + _DIFFER_TAIL)
    if any(w.dtype.kind in "OUS" for w in wants):
        raise ValueError("strings beside numbers among the outputs: the full reproducer compares them")
    tol = f"{atol!r} + {rtol!r} * abs(b)"
    if any(w.dtype.name in ("float16", "bfloat16") for w in wants):
        tol = f"np.maximum({tol}, 2 * abs(np.spacing(w).astype(float)) if w.dtype.name in (\"float16\", \"bfloat16\") else 0)"
    if any(exact):
        tol = f"0 if w.dtype.kind in \"biu\" else {tol}"
    return "\n".join(_DIFFER_HEAD + tuple(line.replace("{TOL}", tol) for line in _DIFFER_FLOAT) + _DIFFER_TAIL)


def _wants(testdir, meta):
    wants = []
    for entry in meta["outputs"]:
        value = _real(driver._read(testdir, entry, as_input=False), entry)
        wants += value if isinstance(value, list) else [value]
    return wants


def script(library, record_json, testdir, frontend, atol=None, rtol=None):
    """The short standalone reproducer of the test in testdir on frontend (see the module's doc).
    atol and rtol (floats, strings or None) are the tolerance that judged the result."""
    record = json.loads(record_json) if record_json else {}
    meta = driver._meta(testdir)
    adapter, run_imports, body = frontend_run(frontend)
    if adapter.LIBRARY != library:
        raise ValueError(f"frontend {adapter.NAME!r} takes {adapter.LIBRARY} models, not {library}")
    op = str(record.get("op", meta.get("op", "?")))
    first = meta["outputs"][0]["dtype"] if meta.get("outputs") else None
    atol, rtol = tolerance(library, op, first, adapter.NAME, atol, rtol)
    imports = {"import sys", "import numpy as np"}
    if library == "onnx":
        model, inputs, body = _onnx_parts(testdir, meta, body, imports)
    elif library == "torch":
        model, inputs, body = _torch_parts(record, testdir, meta, body, imports)
    elif library == "keras":
        model, inputs = _keras_parts(record, testdir, meta, imports)
    else:
        raise ValueError(f"ferry file has no short reproducer of {library} tests: {_NOT_COVERED}")
    for line in run_imports.splitlines():  # "import a, b" as "import a" and "import b"
        imports.update(["import " + x.strip() for x in line[7:].split(",")] if line.startswith("import ") else [line])
    wants = _wants(testdir, meta)
    want = "want = [" + ", ".join(np_literal(w, imports) for w in wants) + "]"
    head = (f"# {_comment(op)} on {_comment(adapter.NAME)} {_comment(adapter.version())}, ferry instance "
            f"{_comment(record.get('id', meta.get('id', '?')))}: exit 1 while the bug shows")
    # one line of the standard library's modules, one of the others' (lines count in an issue)
    names = {x[7:] for x in imports if x.startswith("import ")}
    if "onnx.parser" in names:
        names.discard("onnx")  # import onnx.parser binds onnx too
    stdlib = sorted(names & set(_STDLIB))
    others = ["import " + ", ".join(sorted(names - set(_STDLIB)))] + sorted(x for x in imports if x.startswith("from "))
    tail = _TAIL.replace("{FRONTEND}", adapter.NAME.replace("{", "").replace("}", "").replace('"', ""))
    return "\n".join([head, "import " + ", ".join(stdlib), *others, model, inputs, want, body,
                      _differ(wants, meta.get("random"), atol, rtol), tail]) + "\n"


_STDLIB = ("base64", "ctypes", "os", "sys", "tempfile", "zlib")
_QUOTES = "'" * 3


def _onnx_parts(testdir, meta, body, imports):
    """(model lines, inputs line, run's body) of an ONNX test."""
    import onnx
    import onnx.parser
    import onnx.printer

    imports.add("import onnx")
    model = onnx.load(os.path.join(testdir, "model.onnx"))
    text = onnx_text(model)
    if text is not None:
        imports.add("import onnx.parser")
        model_text = f"model = onnx.parser.parse_model({_QUOTES}{text}{_QUOTES})"
    else:
        imports.add("import base64")
        model_text = f"model = onnx.load_from_string(base64.b64decode({base64.b64encode(model.SerializeToString()).decode()!r}))"
    values = driver.test_inputs(testdir, meta)
    inputs = "inputs = {" + ", ".join(f"{k!r}: {np_literal(v, imports)}" for k, v in values.items()) + "}"
    narrow = any(getattr(v, "dtype", None) is not None and v.dtype.name in _NARROW for v in values.values()) or \
        any(w.dtype.name in _NARROW for w in _wants(testdir, meta))
    if narrow and "{ORT_RUN}" in body:
        imports.add("import ctypes")
    if "ml_dtypes." in body:
        imports.add("import ml_dtypes")
    return model_text, inputs, body.replace("{ORT_RUN}", _ORT_BITS if narrow else _ORT_PLAIN)


# --- PyTorch ----------------------------------------------------------------------------------------

def _py_value(v, consts, names=None):
    """Source text of a call's argument: x0, x1 for the model's inputs, self.cK for PyTorch's
    constants (collected in consts), else a literal that evaluates back to v."""
    import torch

    from ferry.templates.runtime_torch import FerryConst

    if type(v).__name__ == "FerrySlot":  # PyTorch's or Keras's runtime's
        return f"x{v.k}"
    if isinstance(v, FerryConst):
        consts.append(v.tensor)
        return f"self.c{len(consts) - 1}"
    if isinstance(v, list):
        return "[" + ", ".join(_py_value(x, consts, names) for x in v) + "]"
    if isinstance(v, tuple):
        items = [_py_value(x, consts, names) for x in v]
        return f"({items[0]},)" if len(items) == 1 else "(" + ", ".join(items) + ")"
    if isinstance(v, dict):
        return "{" + ", ".join(f"{k!r}: {_py_value(x, consts, names)}" for k, x in v.items()) + "}"
    if isinstance(v, float):
        return _float_text(v)
    if isinstance(v, (torch.dtype, torch.memory_format, torch.layout)):
        return str(v)
    keras_object = _keras_object(v, consts)
    if keras_object is not None:
        return keras_object
    text = repr(v)
    try:  # a literal that reads back as the value (a record's strings are data: nothing is evaluated)
        same = ast.literal_eval(text) == v
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        same = False
    if not same or isinstance(v, torch.Tensor):
        raise ValueError(f"an argument of type {type(v).__name__} is not written by the short reproducer")
    return text


_DOTTED = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)+\Z")


def _written_name(name, root, resolve):
    """Whether name, written as it is into a script, means the operator that ferry's allow-list
    (resolve: the runtime's ferry_resolve) gives for it. A record's name is data: it is looked up in
    the allow-list first, and only a name found there, a plain dotted name under root, has its path
    followed, to see that the script's spelling reaches the same object."""
    try:
        target = resolve(name)
    except LookupError:
        return False
    if not isinstance(name, str) or not _DOTTED.match(name) or name.split(".")[0] != root.__name__:
        return False
    obj = root
    for part in name.split(".")[1:]:
        obj = getattr(obj, part, None)
        if obj is None:
            return False
    return obj is target


def _torch_parts(record, testdir, meta, body, imports):
    """(model lines, inputs line, run's body) of a PyTorch test: a module whose forward makes the
    recorded call on x0, x1, ... with the weights as buffers, as ferry's FerryCall does."""
    import torch

    from ferry.templates import torch as template

    imports.add("import torch")
    plan = template._Plan(record, meta.get("weights", "input"))
    name = plan.op
    from ferry.templates.runtime_torch import ferry_resolve

    if not _written_name(name, torch, ferry_resolve):
        raise ValueError(f"{name} is no public name of the operator: the full reproducer resolves it")
    consts = []
    args = [_py_value(v, consts, None) for v in plan.args]
    args += [f"{k}={_py_value(v, consts, None)}" for k, v in plan.kwargs.items()]
    init = []
    if plan.kind == "module":
        from ferry.templates.torch import _decode
        params = {k: _decode(v, plan.seed, [1000 + i]) for i, (k, v) in enumerate(plan.params.items())}
        made = ", ".join(f"{k}={_py_value(v, consts, None)}" for k, v in params.items())
        dtype = f".to(torch.{plan.dtype})" if plan.dtype else ""
        # seeded as ferry seeds it: the weights the reference was computed with
        init.append(f"        torch.manual_seed({plan.seed % 2 ** 63}); self.op = {name}({made}){dtype}.train({plan.training!r})")
        call = "self.op"
    else:
        call = name
    init += [f"        self.register_buffer('c{k}', {torch_literal(c, imports)})" for k, c in enumerate(consts)]
    module = plan.build()
    tensors = plan.inputs()
    with torch.no_grad():
        out = module.call(*[t.clone() for t in tensors])
    if isinstance(out, torch.Tensor):
        result = f"({call}({', '.join(args)}),)"
    elif isinstance(out, (tuple, list)) and all(isinstance(t, torch.Tensor) for t in out):
        result = f"tuple({call}({', '.join(args)}))"
    else:
        raise ValueError("the call's result is not a tensor or a tuple of tensors: the full reproducer flattens it")
    xs = "".join(f", x{k}" for k in range(len(tensors)))
    lines = ["class Model(torch.nn.Module):"]
    if init:
        init[0] = "        super().__init__(); " + init[0].lstrip()
        lines += ["    def __init__(self):"] + init
    lines += [f"    def forward(self{xs}):", f"        return {result}", "model = Model()"]
    inputs = "inputs = [" + ", ".join(torch_literal(t, imports) for t in tensors) + "]"
    outs = [out] if isinstance(out, torch.Tensor) else list(out)
    narrow = any(str(t.dtype).replace("torch.", "") in _NARROW for t in list(tensors) + outs)
    if narrow:
        imports.add("import ml_dtypes")
        # numpy has no bfloat16 and float8 (ml_dtypes has): their values go through float32, exactly
        feed = ("t.float().numpy().astype(getattr(ml_dtypes, str(t.dtype)[6:])) "
                "if t.dtype.is_floating_point and t.dtype.itemsize == 1 or t.dtype == torch.bfloat16 else t.numpy()")
        numpy = f"({feed})"
    else:
        numpy, feed = "t.numpy()", "t.numpy()"
    if narrow and "onnx.export" in body:
        raise ValueError("bfloat16 and float8 tensors go into ONNX Runtime only as their bits: the full reproducer feeds them")
    if "ml_dtypes." in body:
        imports.add("import ml_dtypes")
    body = body.replace("{NUMPY}", numpy).replace("[{FEED}]", f"[{feed} for t in inputs]").replace("{FEED}", feed)
    return "\n".join(lines), inputs, body


# --- Keras -------------------------------------------------------------------------------------------

def _keras_object(v, consts):
    """Source text of a Keras initializer, regularizer or constraint (a layer's configuration holds
    them) by its public class and its configuration, or None for anything else."""
    if not hasattr(v, "get_config") or not type(v).__module__.startswith("keras"):
        return None
    import keras

    for kind in ("initializers", "regularizers", "constraints"):
        if getattr(getattr(keras, kind), type(v).__name__, None) is type(v):
            config = v.get_config()
            return f"keras.{kind}.{type(v).__name__}({', '.join(f'{k}={_py_value(x, consts)}' for k, x in config.items())})"
    return None


def _keras_parts(record, testdir, meta, imports):
    """(model lines, inputs line) of a Keras test: the layer (or op) called on one keras.Input per
    tensor, seeded as ferry's runtime seeds it, so that the weights are the reference's."""
    import keras

    from ferry.templates import keras as template
    from ferry.templates.runtime_keras import ferry_resolve

    imports.add("import keras")
    plan = template._Plan(record)
    if not _written_name(plan.op, keras, ferry_resolve):
        raise ValueError(f"{plan.op} is no public name of the operator: the full reproducer resolves it")
    call = plan.op
    lines = [f"keras.utils.set_random_seed({plan.seed % 2 ** 32})"]
    if plan.kind == "layer":
        params = {k: template._decode(v, plan.seed, [1000 + i]) for i, (k, v) in enumerate(plan.params.items())}
        lines.append(f"op = {plan.op}({', '.join(f'{k}={_py_value(v, [])}' for k, v in params.items())})")
        call = "op"
    xs = [f"x{k}" for k in range(len(plan.specs))]
    lines.append(f"{', '.join(xs) or '_'} = " + ", ".join(
        f"keras.Input(batch_shape={tuple(shape)!r}, dtype={dtype!r})" for shape, dtype in plan.specs))
    args = [_py_value(v, []) for v in plan.args] + [f"{k}={_py_value(v, [])}" for k, v in plan.kwargs.items()]
    lines.append(f"model = keras.Model([{', '.join(xs)}], keras.tree.flatten({call}({', '.join(args)})))")
    values = driver.test_inputs(testdir, meta)
    inputs = "inputs = [" + ", ".join(np_literal(v, imports) for v in values.values()) + "]"
    return "\n".join(lines), inputs


# --- a float64 reference ----------------------------------------------------------------------------

_FLOATS = (1, 10, 11, 16)  # ONNX's FLOAT, FLOAT16, DOUBLE, BFLOAT16


def reference64(library, record_json, testdir):
    """The test's outputs computed in float64 by the library, beside the reference it was compared
    with (an issue shows both): ONNX by onnx.reference on the model with its float types made double,
    PyTorch by the eager module on float64 inputs. None where the library cannot: no float output,
    an operator whose types are attributes (Cast, ...), or a model that is not valid in double."""
    try:
        outs = _reference64_onnx(testdir) if library == "onnx" else \
            _reference64_torch(record_json, testdir) if library == "torch" else None
    except Exception:  # not valid in float64: the issue shows no float64 reference
        return None
    # every float output in float64 (integer outputs, a TopK's indices, as they are), and one at least
    if not outs or not all(isinstance(o, np.ndarray) and (o.dtype == np.float64 or o.dtype.kind in "biu")
                           for o in outs) or not any(o.dtype == np.float64 for o in outs):
        return None
    return outs


def reference64_json(library, record_json, testdir):
    """reference64() as a string, for the C side (py_call_strings): JSON, a list of nested lists or null."""
    outs = reference64(library, record_json, testdir)
    return json.dumps(None if outs is None else [o.tolist() for o in outs])


def _reference64_onnx(testdir):
    import onnx
    import onnx.reference

    model = onnx.load(os.path.join(testdir, "model.onnx"))
    graph = model.graph
    typed = list(graph.input) + list(graph.output) + list(graph.value_info)
    if not any(v.type.tensor_type.elem_type in _FLOATS for v in graph.output):
        return None
    for node in graph.node:  # a type in an attribute, or a subgraph: double would change what it means
        if any(a.type in (onnx.AttributeProto.GRAPH, onnx.AttributeProto.GRAPHS, onnx.AttributeProto.TENSOR)
               or a.name in ("to", "dtype", "output_dtype") for a in node.attribute):
            return None
    for v in typed:
        if v.type.tensor_type.elem_type in _FLOATS:
            v.type.tensor_type.elem_type = onnx.TensorProto.DOUBLE
    for k, init in enumerate(graph.initializer):
        if init.data_type in _FLOATS:
            graph.initializer[k].CopyFrom(onnx.numpy_helper.from_array(
                onnx.numpy_helper.to_array(init).astype(np.float64), init.name))
    onnx.checker.check_model(model, full_check=True)
    meta = driver._meta(testdir)
    inputs = {k: np.asarray(v).astype(np.float64) if np.asarray(v).dtype.kind in "fV" else v
              for k, v in driver.test_inputs(testdir, meta).items()}
    return [np.asarray(o) for o in onnx.reference.ReferenceEvaluator(model).run(None, inputs)]


def _reference64_torch(record_json, testdir):
    import torch

    from ferry.templates import torch as template
    from ferry.templates.runtime_torch import ferry_flatten

    meta = driver._meta(testdir)
    plan = template._Plan(json.loads(record_json), meta.get("weights", "input"))
    module = plan.build()
    module.to(torch.float64)  # the operator's weights and the constants, where floating
    inputs = [t.to(torch.float64) if t.is_floating_point() else t for t in plan.inputs()]
    with torch.no_grad():
        outs = ferry_flatten(module(*inputs))
    return [t.detach().numpy() if t.dtype == torch.float64 or not (t.is_floating_point() or t.is_complex()) else None
            for t in outs]


# --- the command line, for the C side ---------------------------------------------------------------

def main(argv):
    """python -m ferry.oracle.filing script|reference64 LIBRARY TESTDIR FRONTEND [RECORD_JSON_FILE]:
    the script on stdout, or the float64 reference as JSON (a list of nested lists, or null). The
    record defaults to TESTDIR/record.json where the template wrote one, else none. Exit status 0,
    2 for bad usage, 1 where there is no short script (the reason on stderr)."""
    import sys

    if len(argv) not in (4, 5) or argv[0] not in ("script", "reference64"):
        print("usage: python -m ferry.oracle.filing script|reference64 LIBRARY TESTDIR FRONTEND [RECORD_JSON_FILE]",
              file=sys.stderr)
        return 2
    what, library, testdir, frontend = argv[:4]
    path = argv[4] if len(argv) == 5 else os.path.join(testdir, "record.json")
    record_json = ""
    if len(argv) == 5 or os.path.exists(path):
        with open(path) as f:
            record_json = f.read()
    if what == "reference64":
        print(reference64_json(library, record_json, testdir))
        return 0
    try:
        sys.stdout.write(script(library, record_json, testdir, frontend))
    except ValueError as e:
        print(f"ferry: no short reproducer: {e}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    import sys

    sys.exit(main(sys.argv[1:]))
