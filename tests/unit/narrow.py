"""Unit test of ferry.oracle.adapters._narrow, the one conversion of narrow dtypes between ferry's
ml_dtypes arrays and the forms frontends take and give (raw bits, packed sub-byte elements, wider
floats), and of its use by ONNX Runtime's frontend module and its reproducers."""

import os
import sys

import ml_dtypes
import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from tap import done, is_, ok  # noqa: E402

from ferry.oracle import reproducer  # noqa: E402
from ferry.oracle.adapters import _narrow  # noqa: E402

values = [0.5, 1, -2, 3, 0, 1.5, -1]
for name, (_, bits) in _narrow.NARROW_TYPES.items():
    dtype = _narrow.narrow_ml_dtype(name)
    signed = name.startswith("int") or name.startswith("float")
    base = [v for v in values if signed or v >= 0] if name != "float8_e8m0fnu" else [0.5, 1, 2, 4]
    if bits < 8 and not name.startswith("float"):  # integers in range
        low, high = (-(1 << (bits - 1)), 1 << (bits - 1)) if name.startswith("int") else (0, 1 << bits)
        base = [int(v) for v in base if low <= v < high and v == int(v)]
    a = np.array(base, np.float32).astype(dtype)
    raw = _narrow.narrow_to_bits(a)
    is_(raw.nbytes, _narrow.narrow_nbytes(name, a.size), f"{name}: to_bits packs {a.size} elements into {raw.nbytes} bytes")
    back = _narrow.narrow_from_bits(raw, name, a.shape)
    ok(back.dtype == dtype and np.array_equal(back.view(np.uint8 if bits < 16 else np.uint16) & ((1 << bits) - 1),
                                              a.view(np.uint8 if bits < 16 else np.uint16) & ((1 << bits) - 1)),
       f"{name}: from_bits(to_bits(a)) is a")

# ONNX's packing: the first element in the lowest bits.
is_(_narrow.narrow_to_bits(np.array([1, -2, 3], ml_dtypes.int4)).tolist(), [0xE1, 0x03], "int4 packs low nibble first")
is_(_narrow.narrow_to_bits(np.array([1, 2, 3, 0, 1], ml_dtypes.uint2)).tolist(), [0b00111001, 0b01],
    "uint2 packs four to a byte, lowest bits first")
is_(_narrow.narrow_from_bits(bytes([0xE1, 0x03]), "int4", (3,)).astype(np.int8).tolist(), [1, -2, 3],
    "from_bits reads packed int4 with its sign")
try:
    _narrow.narrow_from_bits(bytes([1]), "bfloat16", (2,))
    ok(False, "from_bits refuses too few bytes")
except ValueError as e:
    ok("cannot hold" in str(e), "from_bits refuses too few bytes")

# What OpenVINO 2026.4 hands back (seen by running it): bf16 as float16 of the same bits, f8 as uint8
# bits, int4 as flat packed int8.
want = np.array([[0.5, 1, -2], [3, 0, 1.5]], np.float32)
bf = want.astype(ml_dtypes.bfloat16)
got = _narrow.narrow_as_declared(bf.view(np.float16), "bfloat16")
ok(got.dtype == ml_dtypes.bfloat16 and np.array_equal(got.astype(np.float32), want), "bf16 given as float16 bits")
got = _narrow.narrow_as_declared(want, "bfloat16")
ok(got.dtype == ml_dtypes.bfloat16 and np.array_equal(got.astype(np.float32), want), "bf16 given as float32 values")
f8 = want.astype(ml_dtypes.float8_e5m2)
got = _narrow.narrow_as_declared(f8.view(np.uint8), "float8_e5m2")
ok(got.dtype == ml_dtypes.float8_e5m2 and np.array_equal(got.astype(np.float32), want), "f8e5m2 given as uint8 bits")
i4 = np.array([[1, 1, -2], [3, 0, 2]], ml_dtypes.int4)
got = _narrow.narrow_as_declared(np.array([0x11, 0x3E, 0x20], np.uint8).view(np.int8), "int4", (2, 3))
ok(got.dtype == i4.dtype and got.shape == (2, 3) and np.array_equal(got, i4), "int4 given packed as flat int8")
got = _narrow.narrow_as_declared(i4.astype(np.int8), "int4")
ok(got.dtype == i4.dtype and np.array_equal(got, i4), "int4 given unpacked, one value per int8")
ok(_narrow.narrow_as_declared(bf, "bfloat16") is bf or np.array_equal(_narrow.narrow_as_declared(bf, "bfloat16"), bf),
   "a value already of the type passes")
plain = np.arange(3, dtype=np.float32)
ok(_narrow.narrow_as_declared(plain, "float32") is plain, "a type that is not narrow passes unchanged")

# ONNX Runtime's frontend module runs on it: an Identity of each narrow type ONNX Runtime has a kernel
# for round-trips through OrtValues.
try:
    import onnx
    import onnxruntime  # noqa: F401
    from onnx import helper
except ImportError:
    onnx = None
if onnx is not None:
    from ferry.oracle.adapters import _run_ort
    def model(nodes, xtype, ytype, init=()):
        graph = helper.make_graph(nodes, "g", [helper.make_tensor_value_info("x", xtype, [5])],
                                  [helper.make_tensor_value_info("y", ytype, [5])], initializer=list(init))
        m = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 21)])
        m.ir_version = 10
        return m.SerializeToString()

    for name in ("bfloat16", "float8_e4m3fn", "float8_e5m2", "float8_e5m2fnuz", "int4", "uint4"):
        element = _narrow.NARROW_TYPES[name][0]
        x = np.array([1, 2, 3, 0, 1], np.float32).astype(_narrow.narrow_ml_dtype(name))
        if name.endswith("int4"):  # no Identity kernel for them: into floats and back, one way each
            init = [helper.make_tensor("s", 1, [], [1.0]), helper.make_tensor("z", element, [], [0])]
            y = _run_ort.ort_reproduce(model([helper.make_node("DequantizeLinear", ["x", "s", "z"], ["y"])],
                                             element, 1, init), {"x": x})[0]
            ok(y.dtype == np.float32 and np.array_equal(y, x.astype(np.float32)), f"ort: {name} goes in packed")
            y = _run_ort.ort_reproduce(model([helper.make_node("QuantizeLinear", ["x", "s", "z"], ["y"])],
                                             1, element, init), {"x": x.astype(np.float32)})[0]
            ok(y.dtype == x.dtype and np.array_equal(y, x), f"ort: {name} comes out unpacked")
            continue
        y = _run_ort.ort_reproduce(model([helper.make_node("Identity", ["x"], ["y"])], element, element), {"x": x})[0]
        ok(y.dtype == x.dtype and np.array_equal(y, x), f"ort: {name} round-trips through ONNX Runtime")

# A reproducer inlines the module: ort's frontend module comes after _narrow, pasted whole.
text = "".join(reproducer._module_text("ferry.oracle.adapters._run_ort", "onnx", []))
ok(text.index("ferry/oracle/adapters/_narrow.py, whole") < text.index("ferry/oracle/adapters/_run_ort.py, whole"),
   "a reproducer pastes _narrow.py above ort's frontend module")
scope = {"__name__": "__main__"}
exec(compile(text, "reproducer", "exec"), scope)  # noqa: S102 (ferry's own modules, as a reproducer runs them)
x = np.array([1, 2, 3, 0, 1], ml_dtypes.bfloat16)
if onnx is not None:
    y = scope["ort_reproduce"](model([helper.make_node("Identity", ["x"], ["y"])], 16, 16), {"x": x})[0]
    ok(y.dtype == x.dtype and np.array_equal(y, x), "the pasted modules run bfloat16 through ONNX Runtime standalone")
done()
