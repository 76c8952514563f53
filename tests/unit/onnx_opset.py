"""Unit tests of the ONNX template's opset stamping (templates/onnx.py): each model is stamped with
the lowest opset in which its operator (and the nodes of its subgraphs) has the schema of the source
test's opset, with the IR version that opset needs, on real onnx and ONNX Runtime. Prints TAP; run by
tests/unit/test-onnx-opset.sh."""

import json
import os
import sys
import tempfile
import warnings

warnings.simplefilter("ignore")

import numpy as np  # noqa: E402
import onnx  # noqa: E402
from onnx import helper  # noqa: E402

from ferry.templates import onnx as template_onnx  # noqa: E402

results = []


def is_(got, want, name):
    results.append((got == want, name))
    if got != want:
        results.append((True, f"# got {got!r}\n# want {want!r}"))


def tensor(dtype, shape, values=None):
    body = {"dtype": dtype, "shape": shape}
    if values is not None:
        body["values"] = values
    return {"tensor": body}


def record(op, opset, inputs, outputs, params=None, domain=None):
    context = {"opset": {"int": opset}}
    if domain:
        context["domain"] = {"str": domain}
    return {"library": "onnx", "kind": "node", "op": op, "context": context, "params": params or {},
            "inputs": inputs, "outputs": outputs}


def wrapped(rec):
    """(status, meta, model) of a record wrapped into a fresh directory."""
    out = tempfile.mkdtemp(prefix="ferry-opset-")
    result = template_onnx.wrap(json.dumps(rec), out)
    if result["status"] != "ok":
        return result["status"], result.get("reason"), None
    with open(os.path.join(out, "meta.json")) as f:
        meta = json.load(f)
    return "ok", meta, onnx.load(os.path.join(out, "model.onnx"))


def imports(model):
    return {(o.domain or ""): o.version for o in model.opset_import}


# A Conv node of an expanded opset-27 test (ONNX Runtime 1.31 refuses opset 27, "under development"):
# Conv's schema is the one of opset 22, so the model says 22, with the IR version of opset 22.
conv = record("Conv", 27, [tensor("float32", [1, 1, 4, 4]), tensor("float32", [1, 1, 3, 3])],
              [tensor("float32", [1, 1, 2, 2])])
status, meta, model = wrapped(conv)
is_(status, "ok", "an opset-27 Conv wraps")
is_(imports(model), {"": 22}, "an opset-27 Conv is stamped with opset 22, where its schema came")
is_(model.ir_version, helper.find_min_ir_version_for([helper.make_opsetid("", 22)]), "with opset 22's IR version")
is_((meta["opset"], meta["opset_imports"], meta["ir_version"]), (22, {"ai.onnx": 22}, model.ir_version),
    "meta.json says the stamped opset, the imports and the IR version")

add = record("Add", 27, [tensor("float32", [3]), tensor("float32", [3])], [tensor("float32", [3])])
is_(imports(wrapped(add)[2]), {"": 14}, "an opset-27 Add is stamped with opset 14")
cast = record("Cast", 28, [tensor("float32", [3])], [tensor("int32", [3])], {"to": {"int": 6}})
is_(imports(wrapped(cast)[2]), {"": 28}, "a Cast whose schema changed at 28 keeps 28")
for op, opset, want in [("Conv", 11, 11), ("Conv", 10, 1), ("Relu", 14, 14), ("Relu", 13, 13), ("Relu", 12, 6)]:
    rec = dict(conv if op == "Conv" else record("Relu", 0, [tensor("float32", [3])], [tensor("float32", [3])]))
    rec["context"] = {"opset": {"int": opset}}
    is_(imports(wrapped(rec)[2]), {"": want}, f"{op} of opset {opset} is stamped with {want}")

# A Loop's body: the default domain must cover the body's nodes too (Loop since 25, Add since 14;
# a body node newer than its Loop raises the model's opset to its own).
def loop(body_op, opset):
    body = helper.make_graph(
        [helper.make_node("Identity", ["cond"], ["cond_out"]),
         helper.make_node(body_op, ["v", "v"] if body_op == "Add" else ["v"], ["v_out"])],
        "body",
        [helper.make_tensor_value_info("i", onnx.TensorProto.INT64, []),
         helper.make_tensor_value_info("cond", onnx.TensorProto.BOOL, []),
         helper.make_tensor_value_info("v", onnx.TensorProto.FLOAT, [2])],
        [helper.make_tensor_value_info("cond_out", onnx.TensorProto.BOOL, []),
         helper.make_tensor_value_info("v_out", onnx.TensorProto.FLOAT, [2])])
    import base64
    return record("Loop", opset, [tensor("int64", [], [3]), tensor("bool", [], [True]), tensor("float32", [2])],
                  [tensor("float32", [2])],
                  {"body": {"graph": {"format": "onnx", "data": base64.b64encode(body.SerializeToString()).decode()}}})


is_(imports(wrapped(loop("Add", 27))[2]), {"": 25}, "an opset-27 Loop adding in its body is stamped with 25")
is_(imports(wrapped(loop("Add", 24))[2]), {"": 24}, "an opset-24 Loop (Loop since 24) keeps 24")
is_(imports(wrapped(loop("Relu", 12))[2]), {"": 11},
    "an opset-12 Loop (since 11) with a Relu (since 6) in its body is stamped with 11")
plan = template_onnx._Plan(loop("Identity", 27))
is_(plan.opsets, [("", 25)], "an Identity in a Loop's body (since 25 too) keeps the Loop's 25")

# Another domain: the node's domain goes down to its schema's version, and the default domain with it
# to the opset of the onnx release that shipped that version.
encoder = record("ai.onnx.ml.LabelEncoder", 5, [tensor("int64", [3], [1, 2, 3])], [tensor("int64", [3])],
                 {"keys_int64s": {"list": [{"int": 1}, {"int": 2}]}, "values_int64s": {"list": [{"int": 5}, {"int": 6}]},
                  "default_int64": {"int": 0}}, domain="ai.onnx.ml")
status, meta, model = wrapped(encoder)
default = next(row[2] for row in helper.VERSION_TABLE if row[3] == 4)
is_((status, imports(model) if model else meta), ("ok", {"ai.onnx.ml": 4, "": default}),
    "an ai.onnx.ml opset-5 LabelEncoder is stamped with ai.onnx.ml 4 and the default opset of its release")
binarizer = record("ai.onnx.ml.Binarizer", 5, [tensor("float32", [3])], [tensor("float32", [3])], domain="ai.onnx.ml")
is_(template_onnx._Plan(binarizer).opsets, [("ai.onnx.ml", 1), ("", next(row[2] for row in helper.VERSION_TABLE
                                                                          if row[3] == 1))],
    "an ai.onnx.ml Binarizer (since 1) is stamped with ai.onnx.ml 1")

# ONNX Runtime loads what the template writes (before: "Opset 27 is under development").
try:
    import onnxruntime
except ImportError:
    onnxruntime = None
if onnxruntime is not None:
    out = tempfile.mkdtemp(prefix="ferry-opset-")
    template_onnx.wrap(json.dumps(conv), out)
    session = onnxruntime.InferenceSession(os.path.join(out, "model.onnx"), providers=["CPUExecutionProvider"])
    got = session.run(None, {"in_0": np.load(os.path.join(out, "input_0.npy")),
                             "in_1": np.load(os.path.join(out, "input_1.npy"))})[0]
    is_(bool(np.allclose(got, np.load(os.path.join(out, "ref_0.npy")), atol=1e-5)), True,
        "ONNX Runtime runs the opset-27 Conv's model and agrees with the reference")

print(f"1..{sum(1 for good, name in results if not name.startswith('#'))}")
n = 0
for good, name in results:
    if name.startswith("#"):
        print(name)
        continue
    n += 1
    print(f"{'ok' if good else 'not ok'} {n} - {name}")
sys.exit(0 if all(good for good, _ in results) else 1)
