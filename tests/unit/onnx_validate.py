"""Unit tests of the ONNX template's validate() (ferry vary's validity oracle), of wrap()'s passing a
variant's undefined domain on, and of a variant's reproducer header. Prints TAP; run by
tests/unit/test-onnx-validate.sh."""

import json
import os
import tempfile
import warnings

warnings.simplefilter("ignore")

from tap import comment, done, is_, ok  # noqa: E402

from ferry.templates import onnx as template  # noqa: E402


def tensor(dtype, shape, values=None):
    body = {"dtype": dtype, "shape": shape}
    if values is not None:
        body["values"] = values
    return {"tensor": body}


def record(op, inputs, outputs, params=None, opset=13, **extra):
    return dict({"library": "onnx", "op": op, "kind": "node", "context": {"opset": {"int": opset}},
                 "params": params or {}, "inputs": inputs, "outputs": outputs}, **extra)


def validate(rec):
    return template.validate(json.dumps(rec))


def wrap(rec):
    with tempfile.TemporaryDirectory() as d:
        return template.wrap(json.dumps(rec), os.path.join(d, "t"))


F32 = tensor("float32", [2, 3])
PARENT = "0123456789abcdef0123456789abcdef"

# --- a valid record: its own outputs, in the harvest's form; an omitted optional output stays omitted
add = record("Add", [F32, F32], [tensor("float32", [2, 3])])
r = validate(add)
is_(r.get("status"), "ok", "Add validates")
is_(json.loads(r.get("outputs", "null")), add["outputs"], "Add: its recorded outputs, without values")
ok("undefined" not in r, "Add: not undefined")
dropout = record("Dropout", [F32], [tensor("float32", [2, 3]), {"none": None}])
is_(json.loads(validate(dropout).get("outputs", "null")), dropout["outputs"], "Dropout without its mask: the mask stays omitted")
seq = record("SequenceConstruct", [F32, tensor("float32", [1, 3])], [{"list": [tensor("float32", [2, 3])]}], opset=11)
is_(json.loads(validate(seq).get("outputs", "null")),
    [{"list": [tensor("float32", [2, 3]), tensor("float32", [1, 3])]}], "a sequence output: the list of its tensors")

# --- a dtype onnx's type constraints exclude: invalid, onnx's message
sin = record("Sin", [tensor("int32", [3])], [tensor("float32", [3])], opset=7)
r = validate(sin)
is_(r.get("status"), "invalid", "Sin of int32 is invalid")
ok(r.get("reason", "").startswith("InferenceError: ") and "tensor(int32)" in r.get("reason", ""),
   f"... for onnx's reason ({r.get('reason', '')[:90]})")

# --- a dtype variant whose outputs are its parent's: the checker rejects them, validate finds its own
variant = record("Abs", [tensor("int16", [4])], [tensor("float32", [4])],
                 variant={"parent": PARENT, "vary": "dtype:int16"})
is_(wrap(variant).get("status"), "invalid", "the variant with its parent's float32 outputs does not wrap")
r = validate(variant)
is_(json.loads(r.get("outputs", "null")), [tensor("int16", [4])], "Abs of int16: outputs int16")
kept = dict(variant, outputs=json.loads(r.get("outputs", "null")))
is_(wrap(kept).get("status"), "ok", "the validated variant wraps")

# --- NaN everywhere, and the guard's undefined domain
log = record("Log", [tensor("float32", [2], [-1.0, -2.0])], [tensor("float32", [2])])
is_(validate(log).get("undefined"), "the reference is NaN everywhere", "Log of negatives: NaN everywhere")
some = record("Log", [tensor("float32", [2], [-1.0, 2.0])], [tensor("float32", [2])])
ok("undefined" not in validate(some), "Log with one positive: not NaN everywhere")
div = record("Div", [tensor("int32", [2], [1, 2]), tensor("int32", [2], [0, 1])], [tensor("int32", [2])])
r = validate(div)
is_((r.get("status"), r.get("undefined")), ("ok", "integer division by zero"),
    "Div by an integer zero: valid, undefined by the guard")

# --- onnx disagreeing with itself: shape inference (with the kept axes as constants) and the reference
axes = tensor("int64", [1], [1])
keep = record("ReduceSum", [F32, axes], [tensor("float32", [2, 1])], params={"keepdims": {"int": 1}})
is_(validate(keep).get("status"), "ok", "ReduceSum keepdims=1: valid")
two = record("ReduceSum", [F32, axes], [tensor("float32", [2, 1])], params={"keepdims": {"int": 2}})
r = validate(two)
is_((r.get("status"), r.get("reason", "")[:80]),
    ("invalid", "Inconsistent: onnx's shape inference gives out_0 the shape [2], its reference ev"),
    "ReduceSum keepdims=2: the reference keeps the axis, shape inference drops it: invalid, and why")

# --- wrap: the guard's reason, else the variant's
nan_variant = dict(log, variant={"parent": PARENT, "vary": "in:0=-1"})
is_(wrap(nan_variant).get("undefined"), "the reference is NaN everywhere",
    "wrap of a variant whose reference is NaN everywhere: undefined")
stale = dict(add, variant={"parent": PARENT, "vary": "in:1=nan", "undefined": "the reference is NaN everywhere"})
ok("undefined" not in wrap(stale), "a variant's mark from ferry vary is not trusted: wrap decides on its own reference")
ok("undefined" not in wrap(log), "NaN everywhere in a record that is no variant: not undefined (a harvested test of NaN)")
ok("undefined" not in wrap(add), "wrap of a record that is no variant: no undefined")
is_(wrap(dict(div, variant={"parent": PARENT, "vary": "in:1=0", "undefined": "else"})).get("undefined"),
    "integer division by zero", "the guard's own reason comes first")

# --- a Cast from floating point to an integer type, of a value NaN or beyond the type's range
big = record("Cast", [tensor("float32", [3], [1.5, 300.0, 2.0])], [tensor("uint8", [3])],
             params={"to": {"int": 2}})
r = validate(big)
is_((r.get("status"), r.get("undefined"), r.get("undefined_values")),
    ("ok", "a value NaN or beyond the range of uint8: the cast is undefined there", True),
    "Cast of 300.0 to uint8: valid, undefined in its values only (a crash there is still a crash)")
nan_like = record("CastLike", [tensor("float32", [2], ["nan", 1.0]), tensor("int32", [0], [])],
                  [tensor("int32", [2])], opset=15)
is_(wrap(nan_like).get("undefined"), "a value NaN or beyond the range of int32: the cast is undefined there",
    "wrap of CastLike of NaN to int32: undefined, though it is no variant")
fits = record("Cast", [tensor("float32", [2], [1.5, 255.0])], [tensor("uint8", [2])], params={"to": {"int": 2}})
ok("undefined" not in wrap(fits), "Cast of values within uint8's range: defined")

# --- integer arithmetic whose exact result does not fit its type
I32 = tensor("int32", [2], [2 ** 30, 2 ** 30])
over = record("ReduceSum", [I32, tensor("int64", [1], [0])], [tensor("int32", [1])],
              params={"keepdims": {"int": 1}})
r = validate(over)
is_((r.get("status"), r.get("undefined"), r.get("undefined_values")),
    ("ok", "the exact result does not fit int32: the result overflows there", True),
    "ReduceSum of 2^30 and 2^30 in int32: valid, undefined in its values only")
sub8 = record("Sub", [tensor("uint8", [2], [1, 5]), tensor("uint8", [2], [2, 1])], [tensor("uint8", [2])], opset=14)
is_(wrap(sub8).get("undefined"), "the exact result does not fit uint8: the result overflows there",
    "uint8 1 - 2 underflows: undefined, though it is no variant")
fine = record("Mul", [tensor("int16", [2], [100, 3]), tensor("int16", [2], [300, 2])], [tensor("int16", [2])],
              opset=14)
is_(wrap(fine).get("status"), "ok", "int16 Mul wraps")
ok("undefined" not in wrap(fine), "int16 100 * 300 fits: defined")
bits = record("BitwiseNot", [tensor("uint8", [2], [5, 0])], [tensor("uint8", [2])], opset=18)
ok("undefined" not in wrap(bits), "BitwiseNot of uint8 is no arithmetic: defined whatever int64 would say")

# --- beyond a limit of the operator's specification that onnx leaves unchecked (templates/_limits.py)
def outside(rec):
    r = validate(rec)
    return r.get("status"), r.get("reason", "").split(":", 1)[0]


X = tensor("float32", [3, 4])
scale4 = tensor("float32", [4], [1.0] * 4)
is_(validate(record("LayerNormalization", [X, scale4, scale4], [X], {"axis": {"int": -1}}, opset=17)).get("status"),
    "ok", "LayerNormalization with axis -1 and Scale [4]: valid")
is_(validate(record("LayerNormalization", [X, scale4, scale4], [X], {"axis": {"int": 0}}, opset=17)).get("status"),
    "ok", "... with axis 0, a Scale [4] that broadcasts to X: valid, as the spec says")
is_(outside(record("LayerNormalization", [X, scale4, scale4], [X], {"axis": {"int": 1024}}, opset=17)),
    ("invalid", "OutsideSpec"), "... with axis 1024 on rank 2: beyond the spec")
is_(outside(record("LayerNormalization", [X, tensor("float32", [3], [1.0] * 3)], [X], {"axis": {"int": 0}},
                   opset=17)), ("invalid", "OutsideSpec"), "... with a Scale [3] that does not broadcast to X [3, 4]")
fmod0 = record("Mod", [tensor("float32", [3]), tensor("float32", [3])], [tensor("float32", [3])],
               {"fmod": {"int": 0}}, opset=13)
is_(outside(fmod0), ("invalid", "OutsideSpec"), "Mod-13 on floats with fmod 0: beyond the spec")
bf16 = dict(fmod0, inputs=[tensor("bfloat16", [3]), tensor("bfloat16", [3])], outputs=[tensor("bfloat16", [3])])
is_(outside(bf16), ("invalid", "OutsideSpec"), "... on bfloat16 too")
fmod0["context"] = {"opset": {"int": 28}}
is_(validate(fmod0).get("status"), "ok", "... Mod-28, which defines it: valid")
rs = [tensor("float32", [2, 4]), tensor("int64", [2], [4, 3])]
is_(validate(record("ReverseSequence", rs, [tensor("float32", [2, 4])],
                    {"batch_axis": {"int": 0}, "time_axis": {"int": 1}}, opset=10)).get("status"),
    "ok", "ReverseSequence with batch_axis 0 and time_axis 1: valid")
is_(outside(record("ReverseSequence", rs, [tensor("float32", [2, 4])],
                   {"batch_axis": {"int": 0}, "time_axis": {"int": 0}}, opset=10)),
    ("invalid", "OutsideSpec"), "... with both axes 0: beyond the spec")
d2s = tensor("float32", [1, 8, 2, 3])
is_(outside(record("DepthToSpace", [d2s], [tensor("float32", [1, 2, 4, 6])],
                   {"blocksize": {"int": 2}, "mode": {"str": "nearest"}})),
    ("invalid", "OutsideSpec"), "DepthToSpace with mode 'nearest': beyond the spec")
nll_in, nll_w = tensor("float32", [3, 5]), tensor("float32", [5], [1.0] * 5)
nll = record("NegativeLogLikelihoodLoss", [nll_in, tensor("int64", [3], [0, -1, 4]), nll_w], [tensor("float32", [])],
             {"ignore_index": {"int": -1}})
is_(validate(nll).get("status"), "ok", "NegativeLogLikelihoodLoss with a target -1 that is ignore_index: valid")
nll["params"] = {"ignore_index": {"int": -2}}
is_(outside(nll), ("invalid", "OutsideSpec"), "... with ignore_index -2: the target -1 is beyond the spec")
nms = [tensor("float32", [1, 6, 4]), tensor("float32", [2, 1, 6]), tensor("int64", [1], [3]),
       tensor("float32", [1], [0.5]), tensor("float32", [1], [0.0])]
is_(outside(record("NonMaxSuppression", nms, [tensor("int64", [3, 3])], opset=11)),
    ("invalid", "OutsideSpec"), "NonMaxSuppression whose boxes and scores disagree on the batches: beyond the spec")
pool = record("AveragePool", [tensor("float32", [1, 1, 2, 2])], [tensor("float32", [1, 1, 1, 1])],
              {"kernel_shape": {"list": [{"int": 2}, {"int": 2}]}}, opset=11)
is_(validate(pool).get("status"), "ok", "AveragePool with a 2x2 kernel on a 2x2 input: valid")
pool["params"]["kernel_shape"] = {"list": [{"int": 3}, {"int": 3}]}
is_(outside(pool), ("invalid", "OutsideSpec"), "... with a 3x3 kernel and no padding: beyond the spec")
pool["params"]["pads"] = {"list": [{"int": 1}] * 4}
is_(validate(pool).get("status"), "ok", "... padded by 1 on each side: valid")
ct = record("ConvTranspose", [tensor("float32", [1, 1, 3, 3]), tensor("float32", [1, 2, 3, 3])],
            [tensor("float32", [1, 2, 5, 5])], {"kernel_shape": {"list": [{"int": 3}, {"int": 3}]}}, opset=11)
is_(validate(ct).get("status"), "ok", "ConvTranspose with the weight's kernel_shape: valid")
ct["params"]["kernel_shape"] = {"list": [{"int": 1024}, {"int": 1024}]}
is_(outside(ct), ("invalid", "OutsideSpec"), "... with a kernel_shape of 1024 and a 3x3 weight: beyond the spec")
is_(wrap(record("DepthToSpace", [d2s], [tensor("float32", [1, 2, 4, 6])],
                {"blocksize": {"int": 2}, "mode": {"str": "nearest"}})).get("status"),
    "invalid", "wrap refuses an instance beyond the spec too")

# --- a variant's reproducer names its parent
try:
    from ferry.oracle import reproducer

    with tempfile.TemporaryDirectory() as d:
        template.wrap(json.dumps(kept), d)
        script = reproducer.reproducer("onnx", json.dumps(kept), d, "ort")
        plain = reproducer.reproducer("onnx", json.dumps(add), d, "ort")
    ok(f"# variant of {PARENT} (dtype:int16)\n" in script.split("\nimport", 1)[0],
       "a variant's reproducer says whose variant it is in its header")
    ok("variant of" not in plain, "an instance's reproducer does not")
except ImportError as e:  # no onnxruntime: the ort adapter cannot load
    comment(f"skipped the reproducer header: {e}")

done()
