"""Write bench/causes/labels.jsonl from the hand-read rules below (see README.md).

Each rule was written after reading the failures it matches: the whole message, the innermost frame,
the test's dtypes, shapes and attributes, its variant, and the same operator's passing neighbours in
the same store. A rule names one cause (one defect), its kind and the evidence; it matches on the
message line that decides it, and where one message covers several causes, on the test's dtypes,
attributes or variant too. The rules do not use ferry's grouping (the stores' bugs tables are not
read). Failures that no rule matches are not labelled.

usage: make-labels.py ONNX_MAIN_DB ONNX_OLD_DB TORCH_MAIN_DB CAUSES_MD > labels.jsonl
"""

import collections
import hashlib
import json
import re
import sqlite3
import sys

STORES = ("onnx-main", "onnx-old", "torch-main")
CURRENT_OV = {}  # test id -> outcome on the current OpenVINO (onnx-main), for the environment rule
MESSAGES = {}  # (store, frontend, test id) -> message, to see whether two frontends fail alike


def dtypes(d):
    return {x.split("[")[0] for x in d["ins"]}


def shapes(d):
    out = []
    for x in d["ins"]:
        m = re.match(r"\w+\[(.*)\]$", x)
        out.append(None if not m else [int(v) for v in m.group(1).split(",") if v.strip()])
    return out


def vary(d):
    return (d["variant"] or {}).get("vary", "")


def param(d, name, default=None):
    v = (d["params"] or {}).get(name)
    if not isinstance(v, dict) or not v:
        return default
    return list(v.values())[0]


def has_zero_dim(d):
    return any(s is not None and 0 in s for s in shapes(d))


def has_0d(d):
    return any(x.endswith("[]") for x in d["ins"])


def same_got(d, other):
    """The other frontend fails the same test with the same value where it differs from the reference."""
    m = re.search(r"\(got [^,]*, want [^)]*\)", d["msg"])
    o = MESSAGES.get((d["store"], other, d["id"]), "")
    return bool(m) and m.group(0) in o


def garbage_0d(d):
    """A 0-d input, the current OpenVINO passes the test, and the old one gives a wrong value, a timeout (a
    Loop's trip count) or a crash that a garbage scalar explains (a size it cannot allocate, an axis or
    depth out of range)."""
    ins = d["ins"][:1] if d["op"] == "CastLike" else d["ins"]  # CastLike reads only its 2nd input's type
    if not any(x.endswith("[]") for x in ins) or CURRENT_OV.get(d["id"]) != "pass":
        return False
    return d["outcome"] in ("mismatch", "timeout") or bool(re.search(
        r"Memory has not been allocated|has axis with a value out of range|OneHot depth value can't be negative", d["msg"]))


ONNX_TYPES = {1: "float32", 2: "uint8", 3: "int8", 4: "uint16", 5: "int16", 6: "int32", 7: "int64", 9: "bool",
              10: "float16", 11: "float64", 12: "uint32", 13: "uint64", 16: "bfloat16", 17: "e4m3fn", 18: "e4m3fnuz",
              19: "e5m2", 20: "e5m2fnuz", 21: "uint4", 22: "int4", 23: "float4e2m1", 24: "e8m0"}


def cast_target(d):
    if d["op"] == "CastLike" and len(d["ins"]) > 1:
        return d["ins"][1].split("[")[0].replace("float8_", "")
    return ONNX_TYPES.get(param(d, "to"), "?")


def cast_types(d):
    return {d["ins"][0].split("[")[0].replace("float8_", ""), cast_target(d)}


def cast_to_int(d):
    src = d["ins"][0].split("[")[0]
    return cast_target(d) in ("int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64") and \
        (src.startswith("float") or src.startswith("bfloat"))


def ln_axis_outside(d):
    """LayerNormalization whose axis is outside [-r, r)."""
    x = shapes(d)[0]
    return x is not None and not -len(x) <= param(d, "axis", -1) < len(x)


def ln_scale_mismatch(d):
    """LayerNormalization whose Scale's shape is not X.shape[axis:], though it broadcasts to X in one
    direction, which is all the spec asks ("tensors Scale and B should be unidirectional broadcastable to
    tensor X"), with axis in [-r, r)."""
    s = shapes(d)
    if len(s) < 2 or s[0] is None or s[1] is None:
        return False
    axis = param(d, "axis", -1)
    x, scale = s[0], s[1]
    if not -len(x) <= axis < len(x) or len(scale) > len(x):
        return False
    fits = all(a in (1, b) for a, b in zip(reversed(scale), reversed(x)))
    return fits and scale != x[axis:]


def ulps(d, limit):
    """float16/bfloat16 output within LIMIT units in the last place of the wanted value."""
    m = re.search(r"\(got (-?[\d.e+-]+), want (-?[\d.e+-]+)\)", d["msg"])
    if not m or re.search(r"(NaN|Inf) mismatch", d["msg"]):
        return False
    got, want = float(m.group(1)), float(m.group(2))
    import math

    if want == 0 or got == want:
        return False
    e = math.floor(math.log2(abs(want)))
    mant = 10 if "float16" in dtypes(d) else 7
    return abs(got - want) <= limit * 2.0 ** (e - mant)


FE = {
    "ov": r"^openvino-onnx$",
    "ov23": r"^openvino-onnx@2023[^~]*$",
    "ovany": r"^openvino-onnx(@2023[^~]*)?$",
    "tvm": r"^tvm-onnx$",
    "tvm25": r"^tvm-onnx@0\.25[^~]*$",
    "tvmany": r"^tvm-onnx(@0\.25[^~]*)?$",
    "ort": r"^ort$",
}


def R(store, fe, outcome, msg, cause, kind, why, pred=None, op=None, conf=None, cap=8):
    return dict(store=store, fe=FE.get(fe, fe), outcome=outcome, msg=msg, cause=cause, kind=kind, why=why,
                pred=pred, op=op, conf=conf, cap=cap)


CRASH = ("crash",)
MIS = ("mismatch",)
ANY = ("crash", "mismatch", "timeout", "error", "unsupported", "undefined")

RULES = [
    # ---------------- invalid tests: the operator's specification forbids the variant or graph ----------------
    # Mod-28 defines fmod=0 on floats ("If fmod is 0 ... For floating-point inputs, the following special cases
    # apply"); Mod-10 and Mod-13 want fmod=1 for them.
    R("onnx-*", "ovany", CRASH, r"If the input type is floating point, then `fmod` attribute must be set to 1",
      "onnx-mod-float-fmod0", "invalid-test",
      "Mod before opset 28 on a float input with fmod=0: Mod-13 requires fmod=1 for floating-point inputs",
      pred=lambda d: (d.get("opset") or 0) < 28),
    R("onnx-main", "ort", CRASH, r"mod_internal::CallModImpl.*is_floating_point", "onnx-mod-float-fmod0",
      "invalid-test", "Mod before opset 28 on a float input with fmod=0: Mod-13 requires fmod=1 for floats",
      op="Mod", pred=lambda d: (d.get("opset") or 0) < 28),
    R("onnx-main", "ov", CRASH, r"If the input type is floating point, then `fmod` attribute must be set to 1",
      "ov-onnx-mod28-float-fmod0", "frontend-bug",
      "Mod-28 on a float input with fmod=0, which Mod-28 defines: OpenVINO applies Mod-13's rule (fmod must be 1)"),
    R("onnx-old", "ov23", CRASH, r"If the input type is floating point, then `fmod` attribute must be set to 1",
      "ov2023-mod28-float-fmod0", "unsupported",
      "Mod-28 on a float input with fmod=0: OpenVINO 2023.0 predates opset 28 and says its Mod wants fmod=1"),
    R("onnx-main", "ort", CRASH, r"mod_internal::CallModImpl.*is_floating_point", "ort-mod28-float-fmod0",
      "frontend-bug", "Mod-28 on a float input with fmod=0, which Mod-28 defines: ORT's kernel refuses it", op="Mod"),
    R("onnx-*", r"^(openvino-onnx(@2023[^~]*)?|ort|tvm-onnx(@0\.25[^~]*)?)$", CRASH, r".", "onnx-layernorm-axis-out-of-range",
      "invalid-test",
      "LayerNormalization variant with an axis outside [-r, r) (axis=1024, or 1 on a rank-1 input): the spec wants axis in [-r, r)",
      op="LayerNormalization", pred=ln_axis_outside),
    R("onnx-*", "ovany", CRASH, r"(reshape_shape_inference|broadcast_merge_into\(output_shape).*",
      "ov-onnx-layernorm-scale-broadcast", "frontend-bug",
      "LayerNormalization whose Scale broadcasts to X but is not X.shape[axis:], which the spec allows: OpenVINO "
      "reshapes Scale to the normalized shape and fails", pred=ln_scale_mismatch, op="LayerNormalization"),
    R("onnx-*", "tvmany", CRASH, r"relax\.nn\.layer_norm", "tvm-onnx-layernorm-scale-broadcast", "frontend-bug",
      "LayerNormalization whose Scale broadcasts to X but is not X.shape[axis:], which the spec allows: TVM derives "
      "the axes from Scale or wants its size to equal X's on them", pred=ln_scale_mismatch, op="LayerNormalization"),
    R("onnx-main", "ort", CRASH, r"LayerNormalization.*(Unexpected axis value|Size of X.shape\[axis:\])",
      "onnx-layernorm-scale-shape-vs-axis", "invalid-test",
      "LayerNormalization variant whose axis does not fit X or Scale: the spec forbids it", op="LayerNormalization"),
    R("onnx-*", "ovany", CRASH, r"nms_shape_inference", "onnx-nms-inconsistent-dims", "invalid-test",
      "NonMaxSuppression 'dim' variant that changes boxes or scores alone, so that their batch/box counts disagree: "
      "the spec requires them to agree", pred=lambda d: vary(d).startswith("dim"), op="NonMaxSuppression"),
    R("onnx-main", "ort", CRASH, r"boxes and scores should have same", "onnx-nms-inconsistent-dims", "invalid-test",
      "NonMaxSuppression 'dim' variant whose boxes and scores disagree; ORT says so", op="NonMaxSuppression"),
    R("onnx-*", "ovany", CRASH, r"gather_elements_shape_inference", "onnx-sce-inconsistent-dims", "invalid-test",
      "SoftmaxCrossEntropyLoss 'dim' variant whose labels shape no longer matches the scores (N, d1..): the spec forbids it",
      op="SoftmaxCrossEntropyLoss", pred=lambda d: vary(d).startswith("dim")),
    R("onnx-main", "ort", CRASH, r"Input and target dimension value mismatch", "onnx-sce-inconsistent-dims",
      "invalid-test", "SoftmaxCrossEntropyLoss 'dim' variant whose labels shape no longer matches the scores",
      op="SoftmaxCrossEntropyLoss"),
    R("onnx-*", "ovany", CRASH, r"batch_axis' and 'time_axis'|normalized_batch_axis != normalized_time_axis",
      "onnx-reversesequence-same-axes", "invalid-test",
      "ReverseSequence param variant with batch_axis == time_axis: the spec needs two different axes"),
    R("onnx-old", "ov23", CRASH, r"'stop' input is not a scalar|'start' input is not a scalar|'step' input is not a scalar",
      "onnx-range-nonscalar-input", "invalid-test",
      "Range fed a 1-element 1-D tensor where the spec wants a scalar (from onnx's own expanded AffineGrid body); "
      "OpenVINO 2023 checks it, the current one accepts it", conf="low"),
    R("onnx-*", "ovany", CRASH, r"only 'DCR' and 'CRD' modes are supported", "onnx-depthtospace-bad-mode", "invalid-test",
      "DepthToSpace param variant with a mode other than DCR/CRD, which the spec does not define"),
    R("onnx-*", "ovany", CRASH, r"cmp::le\(kernel, dim.get_length\(\)\)", "onnx-pool-kernel-exceeds-input", "invalid-test",
      "pooling/conv 'dim' variant that shrinks the input below the kernel with no padding: the output size would be < 1",
      conf="low"),
    R("onnx-main", "ov", CRASH, r"Kernel after dilation has size \(dim: \d+\) larger than the data shape after padding",
      "onnx-pool-kernel-exceeds-input", "invalid-test",
      "pooling 'dim' variant that shrinks the input below the kernel: the output size would be < 1", conf="low"),
    # BitShift is defined for unsigned integers only before the signed tests: the signed and over-wide cases
    # below come from onnx's own suite, so they are kept as frontend bugs but marked low.

    # ---------------- environment ----------------
    R("onnx-old", "ov23", MIS + CRASH + ("timeout",), r".", "env-ov2023-numpy2-0d-input", "environment",
      "a 0-d input on OpenVINO 2023.0 run under numpy 2: the value read is garbage (a CumSum axis read as 1070277250, "
      "a Range whose size cannot be allocated, a Loop whose trip count never ends, products of 1e26); the same test "
      "passes on the current OpenVINO",
      pred=garbage_0d, cap=40),

    R("onnx-old", "ov23", ("timeout",), r"no result after", "env-ov2023-numpy2-0d-input", "environment",
      "Loop whose trip count is a 0-d input, on OpenVINO 2023.0 under numpy 2: the count is read as garbage and the loop "
      "does not end; the current OpenVINO finishes it (and agrees with ORT)", op="Loop",
      pred=lambda d: has_0d(d) and CURRENT_OV.get(d["id"]) not in (None, "timeout"), conf="low"),

    # ---------------- reference disputed ----------------
    R("onnx-main", "ort", MIS, r".", "reference-onnx-resize-align-corners-downscale", "reference-disputed",
      "Resize downsampling by scales with coordinate_transformation_mode=align_corners (onnx's own tests and a variant): "
      "ORT and OpenVINO give the same values, the reference another", op="Resize",
      pred=lambda d: param(d, "coordinate_transformation_mode") == "align_corners" and param(d, "antialias") is None
      and same_got(d, "openvino-onnx"), conf="low"),
    R("onnx-main", "ov", MIS, r".", "reference-onnx-resize-align-corners-downscale", "reference-disputed",
      "Resize downsampling by scales with coordinate_transformation_mode=align_corners (onnx's own tests and a variant): "
      "ORT and OpenVINO give the same values, the reference another", op="Resize",
      pred=lambda d: param(d, "coordinate_transformation_mode") == "align_corners" and param(d, "antialias") is None
      and same_got(d, "ort"), conf="low"),
    R("onnx-main", r"^(ort|openvino-onnx)$", MIS, r".", "onnx-nll-target-out-of-range", "invalid-test",
      "NegativeLogLikelihoodLoss/SoftmaxCrossEntropyLoss variant that changes ignore_index while the target still holds "
      "the original test's -1: the spec wants targets in [0, C) or equal to ignore_index (the reference indexes class -1 "
      "as numpy does, ORT and OpenVINO agree on another value)",
      pred=lambda d: d["op"] in ("NegativeLogLikelihoodLoss", "SoftmaxCrossEntropyLoss")
      and vary(d).startswith("param:ignore_index")),
    R("onnx-main", r"^(ort|openvino-onnx)$", MIS, r"output 1: shape mismatch: got \[(\d+)\], want \[\1, 1\]",
      "reference-onnx-loop-scan-output-shape", "reference-disputed",
      "Loop whose body emits a scalar scan output per iteration: ORT and OpenVINO agree on shape [N] (the spec stacks the "
      "per-iteration values on a new first axis), the onnx reference gives [N, 1]", op="Loop"),

    # ---------------- undefined ----------------
    R("*", r"^[^~]*$", ("undefined",), r"integer division by zero", "undefined-int-div-by-zero", "undefined",
      "integer Div/Mod by zero in the test's inputs: the result is undefined", cap=6),
    R("*", r"^[^~]*$", ("undefined",), r"the reference is NaN everywhere", "undefined-reference-nan", "undefined",
      "the reference is NaN everywhere (mean over an empty set, NaN parameter): nothing to compare", cap=6),
    R("*", r"^[^~]*$", ("undefined",), r"rounding decides it", "undefined-float-rounding", "undefined",
      "low-precision result where float rounding decides the last bit", cap=4),
    R("*", r"^[^~]*$", ("undefined",), r"integer overflow", "undefined-int-overflow", "undefined",
      "integer overflow in the exact result: the reference wraps around", cap=4),
    R("onnx-main", "ov", MIS, r"got 0, want 255", "undefined-uint8-sub-underflow", "undefined",
      "uint8 Sub whose exact result is negative (dtype variant of a float Sub): the reference wraps, OpenVINO saturates; "
      "the exact result is not representable", op="Sub"),
    R("onnx-*", r"^[^~]*$", MIS, r"ulp of (float16|bfloat16)", "undefined-low-precision-ulps", "undefined",
      "float16/bfloat16 result 1-2 units in the last place from the reference", pred=lambda d: ulps(d, 2), cap=6),
    R("torch-main", r".", MIS, r"ulp of (float16|bfloat16)", "undefined-low-precision-ulps", "undefined",
      "float16/bfloat16 result 1-2 units in the last place from the reference", pred=lambda d: ulps(d, 2), cap=6),

    # ---------------- OpenVINO ONNX (both releases): frontend bugs and limitations ----------------
    R("onnx-old", "ov23", CRASH, r"has zero dimension which is not allowed", "ov2023-zero-size-tensor", "unsupported",
      "OpenVINO 2023.0 refuses any model input or output with a 0-sized dimension ('NAME has zero dimension which is not "
      "allowed'), whatever the operator; the message quotes the tensor's name", cap=45),
    R("onnx-*", "ovany", CRASH, r"Invalid attribute type UNDEFINED expected|invalid attribute type", "ov-onnx-bernoulli-body-attr",
      "frontend-bug", "Bernoulli (a function) fails in its RandomUniformLike body: the body's dtype attribute is a "
      "reference to the caller's attribute and OpenVINO reads it as UNDEFINED", op="Bernoulli"),
    R("onnx-*", "ovany", CRASH, r"Celu.*elementwise_args|elementwise_args[\s\S]*Celu", "ov-onnx-celu-low-precision",
      "frontend-bug", "Celu on float16/bfloat16: the decomposition makes an f32 constant and Maximum refuses the mixed types; "
      "float32 Celu passes", op="Celu"),
    R("onnx-*", "ovany", CRASH, r"random_uniform.cpp", "ov-onnx-randomuniformlike-dtype", "frontend-bug",
      "RandomUniformLike whose dtype attribute (double, uint64) differs from the input: RandomUniform's min/max constants "
      "keep the input type", op="RandomUniformLike"),
    R("onnx-main", "ov", CRASH, r"SplitToSequence: '.*' input must be a constant", "ov-onnx-splittosequence-dynamic-split",
      "unsupported", "SplitToSequence with a split input that is a graph input: OpenVINO says it must be a constant"),
    R("onnx-main", "ov", CRASH, r"The split number is invalid", "ov-onnx-split-more-outputs-than-elements",
      "frontend-bug", "Split with num_outputs larger than the split dimension (a dim/rank variant of the uneven-split test): "
      "the opset-18 rule gives empty trailing chunks, OpenVINO refuses", conf="low", op="Split"),
    R("onnx-old", "ov23", CRASH, r"dimension_at_axis % num_splits == 0", "ov2023-split-uneven", "frontend-bug",
      "Split-18 with num_outputs that does not divide the dimension: the spec gives a smaller last chunk, OpenVINO 2023 "
      "requires an even split"),
    R("onnx-*", "ovany", CRASH, r"interpolate_base.cpp|input_et == element::f32 \|\| input_et == element::f16",
      "ov-resize-int-dtype", "unsupported",
      "Resize dtype variant on int16/uint16/uint32/uint64: Interpolate's type check lists the types it takes; float32 "
      "Resize converts", pred=lambda d: "Resize" in d["msg"] or d["op"] == "Resize"),
    R("onnx-*", "ovany", CRASH, r"nan assigned value out of range|numeric_limits<StorageDataType>::lowest\(\) <= value",
      "ov-onnx-nan-attribute", "frontend-bug",
      "HardSigmoid/ThresholdedRelu param variant with alpha=nan: OpenVINO cannot make the f32 constant from NaN and aborts "
      "the conversion", conf="low"),
    R("onnx-*", "ovany", CRASH, r"Batch size is zero|batch_size.get_length\(\) > 0", "ov-pool-zero-batch", "unsupported",
      "pooling 'dim' variant with a zero batch: OpenVINO says 'Batch size is zero', ONNX allows empty tensors", conf="low"),
    R("onnx-old", "ov23", CRASH, r'"(linear|cubic)" is not a member of enum', "ov2023-gridsample-opset20-modes",
      "unsupported", "GridSample-20 mode names (linear, cubic) unknown to OpenVINO 2023.0, which predates opset 20"),
    R("onnx-old", "ov23", CRASH, r"The supported shape of the input data tensor is 4D", "ov2023-gridsample-volumetric",
      "unsupported", "GridSample on 5-D (volumetric) data, allowed since opset 20: OpenVINO 2023.0 says it supports 4-D"),
    R("onnx-old", "ov23", CRASH, r"Arguments do not have the same element type \(arg0 element type: f32, arg1 element type: f16\)",
      "ov2023-qlinearmatmul-f16-scale", "frontend-bug",
      "QLinearMatMul with float16 scales (allowed since opset 21): the dequantized f32 tensor is multiplied by the f16 "
      "scale; float32 scales convert", op="QLinearMatMul"),
    R("onnx-*", "ovany", CRASH, r"Parameter axis 1 out of the tensor rank range \[-1, 0\]|axis 1 out of tensor range \[-1, 0\]",
      "ov-onnx-qlinearmatmul-1d-input", "frontend-bug",
      "QLinearMatMul with a 1-D first input (rank variant; MatMul semantics allow it): the frontend unsqueezes or "
      "reduces on axis 1 of a 1-D tensor", op="QLinearMatMul"),
    R("onnx-old", "ov23", CRASH, r"swish.cpp", "ov2023-swish-low-precision-beta", "frontend-bug",
      "Swish on float16/float64: the beta constant is f32 and Swish requires matching types"),
    R("onnx-old", "ov23", CRASH, r"utils/common.cpp[\s\S]*unsupported element type", "ov2023-cast-float8-int4",
      "unsupported", "Cast/CastLike to or from float8/float4/int4/int2/uint* types that OpenVINO 2023.0 has no element "
      "type for ('unsupported element type')", cap=12),
    R("onnx-old", "ov23", CRASH, r"arithmetic_reductions_keep_dims", "ov2023-reduce-bool", "unsupported",
      "ReduceMax/ReduceMin on bool (allowed since opset 20): the reduction refuses the element type", op=None),
    R("onnx-*", "ovany", ("unsupported",), r"CPU plug-in doesn't support Unsqueeze operation with dynamic rank",
      "ov-cpu-unsqueeze-dynamic-rank", "unsupported",
      "Unsqueeze with axes as a graph input: the CPU plugin says it does not support dynamic rank", cap=5),
    R("onnx-old", "ov23", ("unsupported",), r"CPU plug-in doesn't support Squeeze operation with dynamic rank",
      "ov-cpu-squeeze-dynamic-rank", "unsupported", "Squeeze with axes as a graph input: the CPU plugin says it does not "
      "support dynamic rank", cap=4),
    R("onnx-*", "ovany", ("unsupported",),
      r"(No conversion rule found for operations|does not support the following ONNX operations): "
      r"(LinearAttention|CausalConvWithState|BitCast|RMSNormalization|Attention)\b",
      "ov-onnx-lacks-{op}", "unsupported", "OpenVINO says it has no conversion for {op}", cap=3),
    R("onnx-main", "ov", ("unsupported",), r"Unsupported data type FLOAT8E\dM\dFNUZ", "ov-onnx-float8-fnuz", "unsupported",
      "Cast/CastLike with a float8 *FNUZ type: OpenVINO lists the types it takes", cap=4),
    # mismatches, current OpenVINO
    R("onnx-*", "ovany", MIS, r"Inf mismatch.*got -?3\.40282\d*e\+38, want -?inf", "ov-onnx-reduce-empty-identity",
      "frontend-bug", "ReduceMin/ReduceMax over an empty (0-sized) axis: OpenVINO returns +-FLT_MAX where the spec's identity "
      "is +-inf", pred=lambda d: d["op"] in ("ReduceMin", "ReduceMax") and has_zero_dim(d), conf="low"),
    R("onnx-old", "ov23", MIS, r"(Inf|NaN) mismatch.*got -?[\d.]+(e\+\d+)?, want (-?inf|nan)\)", "ov-cpu-inf-as-flt-max",
      "frontend-bug", "an infinity in an input or result becomes the type's largest finite value (65504 in float16, "
      "FLT_MAX in float32): Add and Cast give it for inf, Log(inf) gives log(65504), Softmax over infinities gives 0.5 "
      "instead of NaN", cap=10),
    R("onnx-main", "ov", MIS, r"Inf mismatch.*got -?3\.40282\d*e\+38, want -?inf", "ov-cpu-inf-as-flt-max", "frontend-bug",
      "an infinity in the result comes out as +-FLT_MAX (ReduceMax over masked rows, Where selecting -inf, Cast/CastLike "
      "of inf to float64 or float32, Add of -inf): the CPU plugin clamps infinities", cap=14),
    R("onnx-main", "ov", MIS, r"NaN mismatch.*got nan, want 448\.0|Inf mismatch.*got inf, want 57344\.0",
      "ov-onnx-cast-float8-no-saturate", "frontend-bug",
      "Cast/CastLike to float8 e4m3fn/e5m2 with saturate=1 (the default): out-of-range values and inf become NaN/inf "
      "instead of the largest finite value", pred=lambda d: d["op"] in ("Cast", "CastLike")),
    R("onnx-main", "ov", MIS, r"got 6\.0, want -0\.0", "ov-onnx-cast-float4e2m1", "frontend-bug",
      "Cast/CastLike to FLOAT4E2M1: a value that should round to -0 comes out as 6.0", conf="low",
      pred=lambda d: d["op"] in ("Cast", "CastLike")),
    R("onnx-*", r"^[^~]*$", MIS, r"elements differ", "undefined-cast-float-to-int-out-of-range", "undefined",
      "Cast/CastLike of float values that are NaN, inf or out of the integer type's range (dtype variants of float "
      "casts): the spec leaves the result undefined", pred=lambda d: d["op"] in ("Cast", "CastLike") and cast_to_int(d),
      cap=6),
    R("onnx-main", "tvm", MIS, r".", "tvm-onnx-cast-float8-fnuz-bias", "frontend-bug",
      "Cast/CastLike to or from float8 *FNUZ types: values off by a factor of 2 (the FNUZ exponent bias is taken as the FN "
      "one)", pred=lambda d: d["op"] in ("Cast", "CastLike") and cast_types(d) & {"e4m3fnuz", "e5m2fnuz"}, cap=10),
    R("onnx-main", "tvm", MIS, r"want (448\.0|57344\.0)", "tvm-onnx-cast-to-float8-saturate", "frontend-bug",
      "Cast/CastLike to float8 e4m3fn/e5m2: large values and inf are not saturated to the largest finite value",
      pred=lambda d: d["op"] in ("Cast", "CastLike") and cast_target(d) in ("e4m3fn", "e5m2")),
    R("onnx-main", "tvm", MIS, r"want 0\.0\)", "tvm-onnx-cast-from-float8-zero", "frontend-bug",
      "Cast/CastLike from float8 e4m3fn/e5m2: a zero comes back as the smallest subnormal", conf="low",
      pred=lambda d: d["op"] in ("Cast", "CastLike") and d["ins"][0].split("[")[0] in ("float8_e4m3fn", "float8_e5m2")),
    R("onnx-main", "ort", MIS, r"output 3: .*Inf mismatch.*got -3\.40282\d*e\+38, want -inf", "ort-attention-qk-output-lowest",
      "frontend-bug", "Attention's qk_matmul output (output 3) shows masked positions as -FLT_MAX where the reference has "
      "-inf; the attention output itself matches", op="Attention", conf="low"),
    R("onnx-main", "ov", MIS, r".", "ov-onnx-attention-causal-with-past", "frontend-bug",
      "Attention with is_causal=1 and past key/value inputs: the causal mask is not offset by the past length (output 0 "
      "wrong; the same tests without past pass)", op="Attention",
      pred=lambda d: param(d, "is_causal") == 1 and len(d["ins"]) >= 6 and param(d, "left_window_size") is None,
      conf="low"),
    R("onnx-main", "ov", MIS, r"got \[1, 6, 10, 1, 2\]|shape mismatch: got \[1, \d+, \d+, 1, 2\]",
      "ov-onnx-dft-onesided-real-input-shape",
      "frontend-bug", "DFT-19 onesided on a real input whose last dim is 1: OpenVINO keeps the size-1 axis and adds the "
      "complex axis", op="DFT"),
    R("onnx-main", "ov", MIS, r"got 1\.0, want 2\.0", "ov-onnx-cast-e8m0-round-up", "frontend-bug",
      "Cast to FLOAT8E8M0 with round_mode='up' rounds to nearest instead", pred=lambda d: param(d, "round_mode") == "up"),
    R("onnx-main", "ov", MIS, r"shape mismatch", "ov-onnx-resize-keep-aspect-ratio-policy", "frontend-bug",
      "Resize with sizes and keep_aspect_ratio_policy=not_larger/not_smaller: output size differs from the spec's rounding",
      op="Resize", pred=lambda d: param(d, "keep_aspect_ratio_policy") in ("not_larger", "not_smaller"), conf="low"),
    R("onnx-main", "ov", MIS, r".", "ov-onnx-attention-window", "frontend-bug",
      "Attention with left/right_window_size: the window is ignored (masked positions take weight)", op="Attention",
      pred=lambda d: param(d, "left_window_size") is not None or param(d, "right_window_size") is not None, conf="low"),
    R("onnx-old", "ov23", MIS, r"shape mismatch: got \[4\], want \[\d\]", "ov2023-shape-start-end-ignored", "frontend-bug",
      "Shape-15 with start/end: OpenVINO 2023 returns the whole shape", op="Shape", cap=10),
    # ---------------- TVM ONNX (both releases) ----------------
    R("onnx-*", "tvmany", CRASH, r"Binary operators must have the same datatype.*R\.(subtract|multiply)\(R\.const\(|"
      r"Binary operators must have the same datatype.*R\.multiply\(lv\d*, R\.const\(", "tvm-onnx-f32-scalar-const",
      "frontend-bug", "Elu/Selu/LRN (alone or in graphs) on a float16/bfloat16/float64 input: the converter makes its scalar "
      "constant float32 and relax refuses the mixed binary op", cap=16),
    R("onnx-*", "tvmany", CRASH, r"Binary operators must have the same datatype.*R\.power\(", "tvm-onnx-pow-mixed-types",
      "frontend-bug", "Pow with base and exponent of different types (allowed: T and T1): the converter does not cast the "
      "exponent", cap=12),
    R("onnx-*", "tvmany", CRASH, r"Binary operators must have the same datatype.*R\.multiply\((lv|in_)\d*, (lv|in_)\d*\)",
      "tvm-onnx-thresholdedrelu-mask-f32", "frontend-bug",
      "ThresholdedRelu on non-float32: the mask is cast to float32 before the multiply", op="ThresholdedRelu"),
    R("onnx-*", "tvmany", CRASH, r"unknown intrinsic ir\.Op\(.*name=\"tirx\.(acos|acosh|asin|asinh|atan|sinh|cosh|tan)\"",
      "tvm-fp16-math-intrinsics", "frontend-bug",
      "Acos/Acosh/Asin/Asinh/Atan/Sinh on float16 (alone or in graphs): LLVM codegen has no float16 lowering for these "
      "intrinsics ('unknown intrinsic tirx.X'); float32 forms pass", pred=lambda d: "float16" in dtypes(d), cap=12),
    R("onnx-*", "tvmany", CRASH, r"Reshape requires the input new shape to be Shape", "tvm-onnx-reshape-dynamic-shape",
      "unsupported", "Reshape whose shape is a graph input: every Reshape test fails the same way (relax needs a constant "
      "shape)", cap=10),
    R("onnx-*", "tvmany", CRASH, r"^'num_heads'$", "tvm-onnx-attention-opset23", "unsupported",
      "ONNX Attention (opset 23): the converter is the contrib Attention one and looks for num_heads; every Attention test "
      "fails so", op="Attention", cap=8),
    R("onnx-*", "tvmany", CRASH, r"unknown dtype `object`", "tvm-onnx-string-tensors", "unsupported",
      "string tensors (StringSplit, StringNormalizer, LabelEncoder, ...): TVM has no string dtype", cap=6),
    R("onnx-*", "tvmany", CRASH, r"no value in Constant", "tvm-onnx-constant-value-int", "frontend-bug",
      "Constant with value_int/value_ints/value_float(s) instead of value: the converter reads only 'value'; Constants "
      "with a tensor value pass", cap=8),
    R("onnx-*", "tvmany", CRASH, r"CodeGenVM cannot emit this Relax operator directly|object of type 'NoneType' has no len",
      "tvm-onnx-constantofshape-dynamic", "frontend-bug",
      "ConstantOfShape with a shape that is a graph input: a broadcast_to with a dynamic shape reaches the VM codegen "
      "unlowered", op="ConstantOfShape", cap=8),
    R("onnx-*", "tvmany", CRASH, r"'Var' object has no attribute 'value'", "tvm-onnx-pad-dynamic-pads", "unsupported",
      "Pad with pads as a graph input: the converter reads .value of a constant; every Pad test fails so", cap=6),
    R("onnx-*", "tvmany", CRASH, r"Dynamic Split not yet supported", "tvm-onnx-split-dynamic", "unsupported",
      "Split with split sizes as a graph input: 'not yet supported'", cap=4),
    R("onnx-*", "tvmany", CRASH, r"TopK k must be a constant", "tvm-onnx-topk-dynamic-k", "unsupported",
      "TopK with k as a graph input: 'k must be a constant'", cap=4),
    R("onnx-old", "tvm25", CRASH, r"Constant delta required for Range", "tvm25-range-dynamic", "unsupported",
      "Range with graph inputs: 'Constant delta required' (fixed in 0.27)", cap=4),
    R("onnx-old", "tvm25", CRASH, r"Currently only support constant k for Trilu", "tvm25-trilu-dynamic-k", "unsupported",
      "Trilu with k as a graph input: 'only support constant k'", cap=4),
    R("onnx-*", "tvmany", CRASH, r"Expected a 1-D tensor, but got ndim=0", "tvm-onnx-unsqueeze-scalar-axes", "frontend-bug",
      "Unsqueeze whose axes input is 0-d (as onnx's own function bodies make it): the converter wants 1-D",
      op="Unsqueeze", conf="low"),
    R("onnx-*", "tvmany", CRASH, r"broadcast_to expects the input shape to have the number of ndim at least",
      "tvm-onnx-expand-shorter-shape", "frontend-bug",
      "Expand whose shape has fewer dims than the input (rank variant): ONNX broadcasts both ways, TVM maps it to "
      "broadcast_to", op="Expand"),
    R("onnx-*", "tvmany", CRASH, r"Invalid operand types for FCmp instruction", "tvm-onnx-equal-bool", "frontend-bug",
      "Equal on bool inputs: LLVM codegen emits fcmp on i1", cap=6),
    R("onnx-*", "tvmany", CRASH, r"dtype mismatch between input \(int\d+\) and attribute", "tvm-onnx-eyelike-dtype-attr",
      "frontend-bug", "EyeLike with a dtype attribute different from the input's: the spec allows it, TVM refuses",
      op="EyeLike"),
    R("onnx-*", "tvmany", CRASH, r"Missing outputs during conversion. Expected 2 but Got 1 in MaxPool",
      "tvm-onnx-maxpool-indices", "frontend-bug", "MaxPool with its Indices output: the converter gives only Y; "
      "single-output MaxPool passes"),
    R("onnx-*", "tvmany", CRASH, r"TensorCopyFromBytes: size mismatch|dtype.bits % 8 == 0|data_bits % 8 == 0U",
      "tvm-onnx-subbyte-tensors", "unsupported",
      "int2/uint2/int4/uint4 tensors (Cast to/from them): TVM cannot copy sub-byte tensors", cap=8),
    R("onnx-*", "tvmany", CRASH, r"power only applies to float", "tvm-onnx-pow-int", "frontend-bug",
      "Pow/LpPool on integer (or bfloat16) tensors: relax power is float-only; ONNX Pow takes integers", cap=6),
    R("onnx-*", "tvmany", CRASH, r"zero_point param datatype should be one of", "tvm-onnx-quantize-float8",
      "unsupported", "Quantize/DequantizeLinear with a float8 zero point: TVM lists the types it takes", cap=4),
    R("onnx-main", "tvm", MIS, r"output 1: shape mismatch", "tvm-onnx-layernorm-mean-shape", "frontend-bug",
      "LayerNormalization's Mean/InvStdDev outputs come back with shape [1] instead of X.shape[:axis] + [1]*",
      op="LayerNormalization"),
    R("onnx-main", "tvm", MIS, r"output 0: shape mismatch: got \[0, 3\]", "tvm-onnx-nms-empty", "frontend-bug",
      "NonMaxSuppression returns no boxes where the reference keeps some", op="NonMaxSuppression"),
    R("onnx-main", "tvm", MIS, r"output 1: dtype mismatch: got float32, want bool", "tvm-onnx-dropout-mask-dtype",
      "frontend-bug", "Dropout's mask output is float32 instead of bool", op="Dropout"),
    R("onnx-main", "tvm", MIS, r"dtype mismatch: got int64, want (u?int32)", "tvm-onnx-reducemean-int-dtype",
      "frontend-bug", "ReduceMean on int32/uint32 returns int64", op="ReduceMean"),
    R("onnx-main", "tvm", MIS, r"got 1\.0, want 2\.0", "tvm-onnx-cast-e8m0-round-up", "frontend-bug",
      "Cast to FLOAT8E8M0 with round_mode='up' rounds to nearest instead", pred=lambda d: param(d, "round_mode") == "up"),
    R("onnx-main", "tvm", MIS, r"output 0: dtype mismatch: got float32, want float16", "tvm-onnx-gridsample-f16-output",
      "frontend-bug", "GridSample on float16 returns float32", op="GridSample"),
    # ---------------- ONNX Runtime ----------------
    R("onnx-main", "ort", MIS, r"shape mismatch: got \[[\d, ]*\b0\b[\d, ]*\], want", "ort-reduce-empty-keepdims-shape",
      "frontend-bug", "Reduce* with keepdims=1 over an empty (0-sized) axis: ORT keeps the axis at 0 instead of 1 "
      "(the spec gives the reduction's identity)", pred=lambda d: d["op"].startswith("Reduce") and has_zero_dim(d)),
    R("onnx-main", "ort", CRASH, r"Type parameter \(T\) of Optype \(Add\) bound to different types",
      "ort-attention-function-mixed-types",
      "frontend-bug", "Attention on bfloat16/float64 (expanded through its function body): an f32 constant is added to the "
      "input-typed tensor; float32 Attention passes", op="Attention"),
    R("onnx-main", "ort", CRASH, r"Attribute saturate is only used for cast to float 8 types", "onnx-cast-saturate-non-float8",
      "invalid-test", "param variant that sets saturate=0 on a Cast/CastLike to a non-float8 type: the spec says saturate "
      "only applies to float8 targets, ORT refuses it (OpenVINO and TVM ignore it)", conf="low"),
    R("onnx-main", "ort", ("unsupported",), r"Could not find an implementation for (Add|Mul|Equal)\(", "ort-lacks-bfloat16-{op}",
      "unsupported", "no CPU kernel for {op} on bfloat16", cap=3),
    R("onnx-main", "ort", ("unsupported",), r"Could not find an implementation for ImageDecoder", "ort-lacks-ImageDecoder",
      "unsupported", "no CPU kernel for ImageDecoder", cap=3),
    # ---------------- PyTorch frontends ----------------
    R("torch-main", r"^openvino-fx$", CRASH, r"^'?torch\.(int16|bfloat16|complex64|complex128)'?\s*$", "ov-fx-dtype-map-keyerror",
      "frontend-bug", "openvino_compile's dtype table has no entry for int16, bfloat16 and complex: KeyError 'torch.X' for "
      "any operator with such an input; the same operators pass for float32", cap=24),
    R("torch-main", r"^openvino-fx$", CRASH, r"list index out of range", "ov-fx-dynamic-shape-guard", "frontend-bug",
      "torch.compile with the OpenVINO backend: an IndexError in symbolic_shapes.issue_guard while guarding dynamic shapes "
      "(max_pool, max_unpool, diagonal, glu, MultiheadAttention)", pred=lambda d: "issue_guard" in (d["frame"] or ""),
      conf="low", cap=12),
    R("torch-main", r"^openvino-pytorch$", ("unsupported",), r"Incorrect input parameters provided.*_Type\.Complex",
      "ov-pytorch-complex-input", "unsupported", "a complex input: convert_model's input type is "
      "openvino.frontend.pytorch _Type.Complex, which the input-parameter check does not take", cap=10),
    R("torch-main", r"^openvino-pytorch$", ("unsupported",),
      r"No conversion rule found for operations: aten::(max_unpool\dd|unique_dim|histc|count_nonzero|hash_tensor|nansum)\b",
      "ov-pytorch-lacks-{aten}", "unsupported", "OpenVINO says it has no conversion rule for aten::{aten}", cap=2),
    R("torch-main", r"^(openvino-pytorch|openvino-export)$", CRASH, r"amax|maximum|aten::max.*binary_elementwise|aten.max",
      "ov-pytorch-bool-max", "frontend-bug", "amax/max on bool tensors: the reduction/elementwise check refuses boolean "
      "(float forms pass)", pred=lambda d: dtypes(d) == {"bool"}),
    R("torch-main", r"^(openvino-pytorch|openvino-export)$", CRASH, r"searchsorted", "ov-pytorch-searchsorted",
      "frontend-bug", "searchsorted conversion fails (int16 and float32 sorted sequences)", conf="low"),
    R("torch-main", r"^(openvino-export|openvino-fx|torch-onnx-ort)$", CRASH,
      r"len\(mutations\) \(\d+\) != num_mutated_inp_runtime_indices",
      "torch-export-inplace-squeeze", "frontend-bug",
      "in-place squeeze_ through torch.export: an assertion in functionalization; non-inplace squeeze exports", conf="low"),
    R("torch-main", r"^torch-onnx-ort$", CRASH, r"DataDependentOutputException|DynamicOutputShapeException",
      "torch-onnx-export-data-dependent", "unsupported",
      "cov (aten.equal on data), lstsq and ctc_loss: torch.export, the exporter's first step, says it cannot trace a "
      "data-dependent output", cap=6),
    R("torch-main", r"^(torch-onnx-ort|inductor)$", CRASH, r"PendingUnbackedSymbolNotFound", "torch-pending-unbacked-symbols",
      "frontend-bug", "combinations and narrow with a tensor start: 'Pending unbacked symbols ... not in returned outputs' "
      "while tracing", conf="low"),
    R("torch-main", r"^torch-onnx-ort$", CRASH, r"Error when translating node %inputs_0 : \[num_users=\d+\] = placeholder",
      "torch-onnx-complex32-input", "unsupported", "a complex32 input: the exporter cannot translate the placeholder "
      "(no ONNX type for complex32)", pred=lambda d: "complex32" in dtypes(d)),
    R("torch-main", r"^torch-onnx-ort$", CRASH, r"aot_autograd expected to have an entirely functional graph",
      "torch-onnx-diagonal-scatter-decompose", "frontend-bug",
      "diagonal_scatter: decomposition for ONNX leaves a copy_ in the graph and aot_autograd asserts"),
    R("torch-main", r"^inductor$", CRASH, r"unique_consecutive|unique_dim", "inductor-unique-fake-kernel", "frontend-bug",
      "unique_consecutive/unique(dim=): the fake (meta) kernel's output sizes or strides differ from the real kernel's"),
    R("torch-main", r"^(openvino-pytorch|openvino-export|openvino-fx)$", MIS, r"shape mismatch: got \[0(, 0)*(, 1)?\], want",
      "ov-pytorch-squeeze-dims", "frontend-bug",
      "squeeze/squeeze_ with dims given (an int or a tuple): the output shape is all zeros instead of the input's "
      "without the size-1 dims", pred=lambda d: "squeeze" in d["op"]),
    R("torch-main", r"^openvino-pytorch$", MIS, r".", "ov-pytorch-svd", "frontend-bug",
      "svd on float64: U/S come back as zeros or with the reduced shape when some=False", conf="low",
      pred=lambda d: d["op"] in ("torch.svd", "torch.Tensor.svd") and not has_zero_dim(d)),
    R("torch-main", r"^tvm-pytorch$", CRASH, r"The input strides length is expected to be", "tvm-pytorch-maxpool-stride-none",
      "frontend-bug", "max_pool with stride=None (the default: stride = kernel): the converter passes an empty stride"),
    R("torch-main", r"^tvm-pytorch$", CRASH, r"Binary operators must have the same datatype.*R\.add",
      "tvm-pytorch-float64-module-params",
      "frontend-bug", "Transformer/MultiheadAttention run in float64: parameters are imported as float32 and added to "
      "float64 activations", cap=10),
    R("torch-main", r"^tvm-pytorch$", CRASH, r"Binary operators must have the same datatype.*R\.where", "tvm-pytorch-where-f16",
      "frontend-bug", "linear_cross_entropy on float16: a where mixes a float32 fill with float16 data"),
    R("torch-main", r"^tvm-pytorch$", CRASH, r"Cannot convert infinity to BigInt", "tvm-pytorch-margin-ranking-int",
      "frontend-bug", "margin_ranking_loss on integer tensors: the converter builds an infinite integer bound"),
    R("torch-main", r"^tvm-pytorch$", CRASH, r"power only applies to float", "tvm-pytorch-norm-bfloat16", "frontend-bug",
      "norm on bfloat16: relax power refuses bfloat16"),
    R("torch-main", r"^tvm-pytorch$", MIS, r"elements differ|elements beyond", "tvm-pytorch-add-sub-alpha",
      "frontend-bug", "add/sub with alpha != 1: the alpha multiplier is dropped",
      pred=lambda d: param(d, "alpha") not in (None, 1)),
    R("torch-main", r"^tvm-pytorch$", MIS, r"output 1: dtype mismatch: got \w+, want int64", "tvm-pytorch-maxpool-indices-dtype",
      "frontend-bug", "max_pool*_with_indices: the indices output keeps the input dtype instead of int64"),
    R("torch-main", r"^tvm-pytorch$", MIS, r"dtype mismatch: got \w+, want bool", "tvm-pytorch-any-dtype", "frontend-bug",
      "any() on non-bool input returns the input dtype instead of bool"),
    R("torch-main", r"^torch-onnx-ort$", CRASH,
      r"INVALID_GRAPH.*Type '.*' of input parameter.*of operator "
      r"\((ReduceSum|MaxPool|TopK|IsNaN|ReduceMax|ReduceMin|ReduceProd|MatMul|Sub|Unique)\)",
      "torch-onnx-exporter-untyped-{onnxop}", "frontend-bug",
      "torch.onnx export emits {onnxop} on a dtype the ONNX operator does not take (the exporter should cast); "
      "ORT refuses the graph", cap=3),
    R("torch-main", r"^(openvino-export|tvm-pytorch|torch-onnx-ort)$", ("error", "crash"),
      r"DynamicOutputShapeException: aten\.linalg_lstsq|DataDependentOutputException: aten\.equal", "ferry-export-data-dependent",
      "ferry", "torch.export of lstsq/cov fails on a data-dependent output: ferry could not build the exported model (the "
      "test is unusable for export-based frontends)", conf="low", cap=6),
    R("torch-main", r"^openvino-pytorch$", ("error",), r"could not make the torchscript model", "ferry-torchscript-bad-inputs",
      "ferry", "ferry could not script the module with the harvested inputs (batch-size mismatch, mixed dtypes)", cap=3),
]


# What a maintainer would file each cause as (what triggers it); the other kinds take their "why".
TITLES = {
    "env-ov2023-numpy2-0d-input": "OpenVINO 2023.0 under numpy 2 reads 0-d inputs as garbage (not a bug of the release)",
    "ferry-export-data-dependent": "ferry cannot torch.export lstsq/cov tests (data-dependent output): the test is unbuildable",
    "ferry-torchscript-bad-inputs": "ferry cannot script a module with its harvested inputs",
    "inductor-unique-fake-kernel":
        "inductor: unique_consecutive / unique(dim=) fake kernel"
        " sizes/strides differ from the real kernel",
    "ort-attention-function-mixed-types":
        "ORT: Attention on bfloat16/float64 fails type inference (an f32"
        " constant in the function body)",
    "ort-attention-qk-output-lowest": "ORT: Attention qk_matmul output gives -FLT_MAX, not -inf, at masked positions",
    "ort-lacks-ImageDecoder": "ORT lacks a CPU ImageDecoder kernel",
    "ort-lacks-bfloat16-Add": "ORT lacks a CPU Add kernel for bfloat16",
    "ort-lacks-bfloat16-Equal": "ORT lacks a CPU Equal kernel for bfloat16",
    "ort-lacks-bfloat16-Mul": "ORT lacks a CPU Mul kernel for bfloat16",
    "ort-reduce-empty-keepdims-shape": "ORT: Reduce* with keepdims=1 over a 0-sized axis keeps the axis at 0, not 1",
    "ov-cpu-inf-as-flt-max": "OpenVINO CPU: +-inf in a result comes out as +-FLT_MAX (ReduceMax, Where, Cast, Add)",
    "ov-cpu-squeeze-dynamic-rank": "OpenVINO CPU lacks Squeeze with axes given as an input (dynamic rank)",
    "ov-cpu-unsqueeze-dynamic-rank": "OpenVINO CPU lacks Unsqueeze with axes given as an input (dynamic rank)",
    "ov-fx-dtype-map-keyerror": "OpenVINO torch.compile backend: KeyError on int16, bfloat16 and complex inputs (dtype table)",
    "ov-fx-dynamic-shape-guard":
        "OpenVINO torch.compile backend: IndexError in"
        " symbolic_shapes.issue_guard (max_pool, diagonal, glu, MHA)",
    "ov-onnx-attention-causal-with-past": "OpenVINO ONNX: Attention with is_causal=1 and past key/value gives wrong output",
    "ov-onnx-attention-window": "OpenVINO ONNX: Attention ignores left/right_window_size",
    "ov-onnx-layernorm-scale-broadcast":
        "OpenVINO ONNX: LayerNormalization refuses a Scale that broadcasts to X but is not X.shape[axis:]",
    "ov-onnx-mod28-float-fmod0": "OpenVINO ONNX: Mod-28 refuses fmod=0 on floats (Mod-13's rule)",
    "ov2023-mod28-float-fmod0": "OpenVINO 2023.0 (before opset 28) refuses Mod-28's fmod=0 on floats",
    "ort-mod28-float-fmod0": "ORT: Mod-28's kernel refuses fmod=0 on floats",
    "tvm-onnx-layernorm-scale-broadcast":
        "TVM ONNX: LayerNormalization refuses a Scale that broadcasts to X but is not X.shape[axis:]",
    "ov-onnx-bernoulli-body-attr":
        "OpenVINO ONNX: Bernoulli fails on its body's RandomUniformLike"
        " (attribute reference read as UNDEFINED)",
    "ov-onnx-cast-e8m0-round-up": "OpenVINO ONNX: Cast to FLOAT8E8M0 ignores round_mode='up'",
    "ov-onnx-cast-float4e2m1": "OpenVINO ONNX: Cast to FLOAT4E2M1 gives 6.0 for a value that rounds to -0",
    "ov-onnx-cast-float8-no-saturate":
        "OpenVINO ONNX: Cast to float8 e4m3fn/e5m2 does not saturate"
        " (saturate=1) out-of-range values and inf",
    "ov-onnx-celu-low-precision": "OpenVINO ONNX: Celu on float16/bfloat16 fails conversion (f32 constant)",
    "ov-onnx-dft-onesided-real-input-shape": "OpenVINO ONNX: DFT-19 onesided on a [..,1] real input keeps the size-1 axis",
    "ov-onnx-float8-fnuz": "OpenVINO lacks float8 FNUZ types",
    "ov-onnx-nan-attribute": "OpenVINO ONNX: a NaN float attribute (HardSigmoid/ThresholdedRelu alpha) aborts conversion",
    "ov-onnx-randomuniformlike-dtype":
        "OpenVINO ONNX: RandomUniformLike with dtype different from its"
        " input fails (double, uint64)",
    "ov-onnx-resize-keep-aspect-ratio-policy":
        "OpenVINO ONNX: Resize with keep_aspect_ratio_policy"
        " not_larger/not_smaller gives the wrong size",
    "ov-onnx-split-more-outputs-than-elements": "OpenVINO ONNX: Split-18 with num_outputs > dimension size is refused",
    "ov-onnx-splittosequence-dynamic-split": "OpenVINO lacks SplitToSequence with a non-constant split",
    "ov-pool-zero-batch": "OpenVINO refuses pooling on a zero-sized batch",
    "ov-pytorch-bool-max": "OpenVINO PyTorch: amax/max on bool tensors fails conversion",
    "ov-pytorch-complex-input": "OpenVINO PyTorch: convert_model refuses complex inputs",
    "ov-pytorch-searchsorted": "OpenVINO PyTorch: searchsorted fails conversion",
    "ov-pytorch-squeeze-dims": "OpenVINO PyTorch: squeeze with dims gives an all-zero shape",
    "ov-pytorch-svd": "OpenVINO PyTorch: svd on float64 gives zeros / reduced shapes",
    "ov-resize-int-dtype": "OpenVINO lacks Resize (Interpolate) on int16/uint16/uint32/uint64",
    "ov2023-cast-float8-int4": "OpenVINO 2023.0 lacks float8/float4/int4/int2 element types",
    "ov2023-gridsample-opset20-modes": "OpenVINO 2023.0 lacks GridSample-20's 'linear'/'cubic' modes",
    "ov2023-reduce-bool": "OpenVINO 2023.0 lacks ReduceMax/ReduceMin on bool",
    "ov2023-shape-start-end-ignored": "OpenVINO 2023.0: Shape-15 ignores start/end",
    "ov2023-split-uneven": "OpenVINO 2023.0: Split-18 refuses an uneven num_outputs split",
    "ov2023-swish-low-precision-beta": "OpenVINO 2023.0: Swish on float16/float64 fails (f32 beta)",
    "ov2023-zero-size-tensor": "OpenVINO 2023.0 lacks 0-sized tensors as model inputs/outputs",
    "torch-export-inplace-squeeze": "torch.export: in-place squeeze_ trips the functionalization assertion",
    "torch-onnx-complex32-input": "torch.onnx lacks complex32 inputs",
    "torch-onnx-diagonal-scatter-decompose": "torch.onnx: diagonal_scatter decomposition leaves copy_ (aot_autograd assertion)",
    "torch-onnx-export-data-dependent": "torch.onnx (torch.export) lacks data-dependent outputs (cov, lstsq, ctc_loss)",
    "torch-pending-unbacked-symbols": "torch tracing: pending unbacked symbols for combinations / narrow with a tensor start",
    "tvm-fp16-math-intrinsics": "TVM: acos/acosh/asin/asinh/atan/sinh on float16 fail in LLVM codegen (unknown intrinsic)",
    "ov2023-gridsample-volumetric": "OpenVINO 2023.0 lacks 5-D GridSample",
    "ov2023-qlinearmatmul-f16-scale": "OpenVINO 2023.0: QLinearMatMul with float16 scales fails (f32 x f16 Multiply)",
    "ov-onnx-qlinearmatmul-1d-input": "OpenVINO ONNX: QLinearMatMul with a 1-D input fails (axis 1 out of range)",
    "reference-onnx-loop-scan-output-shape": "onnx.reference: Loop's scalar scan outputs stacked as [N, 1] instead of [N]",
    "reference-onnx-resize-align-corners-downscale":
        "onnx.reference: Resize downscale with align_corners"
        " disagrees with ORT and OpenVINO",
    "ov-onnx-reduce-empty-identity": "OpenVINO: ReduceMin/ReduceMax over an empty axis give +-FLT_MAX, not +-inf",
    "tvm-onnx-attention-opset23": "TVM ONNX lacks Attention-23 (the contrib converter asks for num_heads)",
    "tvm-onnx-cast-e8m0-round-up": "TVM ONNX: Cast to FLOAT8E8M0 ignores round_mode='up'",
    "tvm-onnx-cast-float8-fnuz-bias": "TVM ONNX: Cast to/from float8 FNUZ types off by 2x (exponent bias)",
    "tvm-onnx-cast-from-float8-zero": "TVM ONNX: Cast from float8 e4m3fn/e5m2 turns zero into the smallest subnormal",
    "tvm-onnx-cast-to-float8-saturate": "TVM ONNX: Cast to float8 e4m3fn/e5m2 does not saturate large values and inf",
    "tvm-onnx-constant-value-int": "TVM ONNX: Constant with value_int/value_ints/value_float(s) fails ('no value in Constant')",
    "tvm-onnx-constantofshape-dynamic": "TVM ONNX: ConstantOfShape with an input shape reaches VM codegen unlowered",
    "tvm-onnx-dropout-mask-dtype": "TVM ONNX: Dropout mask is float32, not bool",
    "tvm-onnx-equal-bool": "TVM ONNX: Equal on bool emits an LLVM fcmp on i1",
    "tvm-onnx-expand-shorter-shape": "TVM ONNX: Expand with a shape of lower rank than the input fails (no two-way broadcast)",
    "tvm-onnx-eyelike-dtype-attr": "TVM ONNX: EyeLike refuses a dtype attribute different from the input's",
    "tvm-onnx-f32-scalar-const":
        "TVM ONNX: Elu/Selu/LRN on float16/bfloat16/float64 make float32 scalar constants"
        " (Binary operators must have the same datatype)",
    "tvm-onnx-gridsample-f16-output": "TVM ONNX: GridSample on float16 returns float32",
    "tvm-onnx-layernorm-mean-shape": "TVM ONNX: LayerNormalization Mean/InvStdDev outputs have shape [1]",
    "tvm-onnx-maxpool-indices": "TVM ONNX: MaxPool's Indices output is missing",
    "tvm-onnx-nms-empty": "TVM ONNX: NonMaxSuppression returns no boxes",
    "tvm-onnx-pad-dynamic-pads": "TVM ONNX lacks Pad with pads given as an input",
    "tvm-onnx-pow-int": "TVM ONNX: Pow/LpPool on integer or bfloat16 tensors fails (power only applies to float)",
    "tvm-onnx-pow-mixed-types":
        "TVM ONNX: Pow with base and exponent of different types fails (Binary"
        " operators must have the same datatype)",
    "tvm-onnx-quantize-float8": "TVM ONNX lacks float8 zero points in Quantize/DequantizeLinear",
    "tvm-onnx-reducemean-int-dtype": "TVM ONNX: ReduceMean on int32/uint32 returns int64",
    "tvm-onnx-reshape-dynamic-shape": "TVM ONNX lacks Reshape with the shape given as an input",
    "tvm-onnx-split-dynamic": "TVM ONNX lacks Split with split sizes given as an input",
    "tvm-onnx-string-tensors": "TVM ONNX lacks string tensors",
    "tvm-onnx-subbyte-tensors": "TVM lacks int2/uint2/int4/uint4 tensors",
    "tvm-onnx-thresholdedrelu-mask-f32": "TVM ONNX: ThresholdedRelu on non-float32 multiplies by a float32 mask",
    "tvm-onnx-topk-dynamic-k": "TVM ONNX lacks TopK with k given as an input",
    "tvm-onnx-unsqueeze-scalar-axes": "TVM ONNX: Unsqueeze with 0-d axes fails (Expected a 1-D tensor)",
    "tvm-pytorch-add-sub-alpha": "TVM PyTorch: add/sub drop alpha",
    "tvm-pytorch-any-dtype": "TVM PyTorch: any() on non-bool input returns the input dtype",
    "tvm-pytorch-float64-module-params": "TVM PyTorch: float64 Transformer/MultiheadAttention get float32 parameters",
    "tvm-pytorch-margin-ranking-int": "TVM PyTorch: margin_ranking_loss on integers fails (infinity to BigInt)",
    "tvm-pytorch-maxpool-indices-dtype": "TVM PyTorch: max_pool*_with_indices indices are not int64",
    "tvm-pytorch-maxpool-stride-none": "TVM PyTorch: max_pool with stride=None fails (empty strides)",
    "tvm-pytorch-norm-bfloat16": "TVM PyTorch: norm on bfloat16 fails (power only applies to float)",
    "tvm-pytorch-where-f16": "TVM PyTorch: linear_cross_entropy on float16 mixes float32 into where",
    "tvm25-range-dynamic": "TVM 0.25 lacks Range with non-constant inputs",
    "tvm25-trilu-dynamic-k": "TVM 0.25 lacks Trilu with k given as an input",
}
TEMPLATES = {
    "ov-onnx-lacks-": "OpenVINO ONNX lacks %s",
    "ov-pytorch-lacks-": "OpenVINO PyTorch lacks aten::%s",
    "torch-onnx-exporter-untyped-": "torch.onnx emits %s on a dtype ONNX does not allow (ORT: INVALID_GRAPH)",
}


def title(cause, why):
    if cause in TITLES:
        return TITLES[cause]
    for prefix, fmt in TEMPLATES.items():
        if cause.startswith(prefix):
            return fmt % cause[len(prefix):]
    return why.split(": ")[0]


def write_causes(path, labels, matched):
    """The causes table: one line per (store copy, frontend, cause) with how many failures the rule
    matched in the store and how many of them are labelled."""
    rows = collections.defaultdict(lambda: [0, None])
    for lab in labels:
        r = rows[(lab["cause"], lab["kind"], lab["store"], lab["frontend"])]
        r[0] += 1
        r[1] = lab["why"]
    kinds = collections.Counter(k[1] for k in rows)
    with open(path, "w") as f:
        f.write("# Causes of bench/causes/labels.jsonl\n\n")
        f.write("Written by make-labels.py. One line per cause and frontend: the failures its rule matched in the store "
                "and how many of them are labelled (a stable sample spread over operators and dtypes). %d failures, "
                "%d causes (per store and frontend): %s.\n\n" % (
                    len(labels), len(rows), ", ".join("%d %s" % (n, k) for k, n in kinds.most_common())))
        f.write("| cause | kind | store | frontend | labelled | matched | title |\n|---|---|---|---|---|---|---|\n")
        for (cause, kind, store, fe), (n, why) in sorted(rows.items(), key=lambda kv: (kv[0][1], kv[0][0], kv[0][2])):
            f.write("| %s | %s | %s | %s | %d | %d | %s |\n" % (cause, kind, store, fe, n,
                                                                matched[(store, fe, cause)], title(cause, why)))


def load(path, name):
    c = sqlite3.connect("file:" + path + "?mode=ro", uri=True)
    rows = []
    for fe, id_, outc, stage, exc, msg, frame, op, rec in c.execute(
            "SELECT r.frontend, r.id, r.outcome, r.stage, r.exc_type, r.message, r.frame, i.op, i.record "
            "FROM results r LEFT JOIN instances i USING(id) WHERE r.outcome != 'pass' ORDER BY r.frontend, r.id"):
        rec = json.loads(rec) if rec else {}
        ins = []
        for v in rec.get("inputs", []):
            if isinstance(v, dict) and "tensor" in v:
                ins.append("%s%s" % (v["tensor"].get("dtype"), json.dumps(v["tensor"].get("shape"))))
            elif isinstance(v, dict) and v:
                ins.append(list(v)[0])
        rows.append(dict(store=name, fe=fe, id=id_, outcome=outc, stage=stage, exc=exc, msg=msg or "", frame=frame,
                         op=op or "?", ins=ins, params=rec.get("params"), variant=rec.get("variant"),
                         opset=((rec.get("context") or {}).get("opset") or {}).get("int")))
    return rows


def store_ok(pattern, name):
    if pattern == "*":
        return True
    if pattern.endswith("*"):
        return name.startswith(pattern[:-1])
    return name == pattern


def main():
    rows = []
    for path, name in zip(sys.argv[1:4], STORES):
        rows += load(path, name)
    MESSAGES.update({(d["store"], d["fe"], d["id"]): d["msg"] for d in rows})
    chosen, claimed, matched = {}, set(), collections.Counter()
    c = sqlite3.connect("file:" + sys.argv[1] + "?mode=ro", uri=True)
    CURRENT_OV.update(c.execute("SELECT id, outcome FROM results WHERE frontend = 'openvino-onnx'").fetchall())
    for rule in RULES:
        pool = {}
        for d in rows:
            key = (d["store"], d["fe"], d["id"])
            if key in claimed or not store_ok(rule["store"], d["store"]) or not re.search(rule["fe"], d["fe"]):
                continue
            if d["outcome"] not in rule["outcome"] or (rule["op"] and d["op"] != rule["op"]):
                continue
            m = re.search(rule["msg"], d["msg"], re.S | re.M)
            if not m or (rule["pred"] and not rule["pred"](d)):
                continue
            fill = {"op": d["op"]}
            if "{aten}" in rule["cause"]:
                fill["aten"] = m.group(1)
            if "{onnxop}" in rule["cause"]:
                fill["onnxop"] = m.group(1)
            if "{op}" in rule["cause"] and m.lastindex:
                fill["op"] = m.group(m.lastindex)
            cause = rule["cause"].format(**fill)
            claimed.add(key)
            # Causes are per frontend where the defect is the frontend's; per store copy and frontend, a rule
            # keeps up to cap failures, spread over operators and dtypes (a stable hash decides the order).
            pool.setdefault((d["store"], d["fe"], cause), []).append((d, rule["why"].format(**fill)))
        for (store, fe, cause), members in pool.items():
            matched[(store, fe, cause)] += len(members)
            members.sort(key=lambda m: hashlib.sha1(m[0]["id"].encode()).hexdigest())
            seen, first, rest = set(), [], []
            for m in members:
                k = (m[0]["op"], ",".join(sorted(dtypes(m[0]))))
                (rest if k in seen else first).append(m)
                seen.add(k)
            for d, why in (first + rest)[:rule["cap"]]:
                label = {"store": store, "frontend": fe, "test": d["id"], "cause": cause, "kind": rule["kind"],
                         "why": why, "outcome": d["outcome"], "op": d["op"]}
                if rule["conf"]:
                    label["confidence"] = rule["conf"]
                chosen[(store, fe, d["id"])] = label
    for k in sorted(chosen):
        print(json.dumps(chosen[k], sort_keys=False))
    write_causes(sys.argv[4], [chosen[k] for k in sorted(chosen)], matched)


if __name__ == "__main__":
    main()
