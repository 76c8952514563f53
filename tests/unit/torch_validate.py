"""Unit tests of the PyTorch template's validate() (ferry vary's validity oracle) and of wrap()'s
passing a variant's undefined domain on. Prints TAP; run by tests/unit/test-torch-validate.sh."""

import json
import os
import tempfile
import warnings

warnings.simplefilter("ignore")

from tap import done, is_, ok  # noqa: E402

from ferry.templates import torch as template  # noqa: E402


def tensor(dtype, shape, values=None):
    body = {"dtype": dtype, "shape": shape}
    if values is not None:
        body["values"] = values
    return {"tensor": body}


def record(op, inputs, outputs, params=None, kind="function", **extra):
    return dict({"library": "torch", "op": op, "kind": kind, "context": {}, "params": params or {},
                 "inputs": inputs, "outputs": outputs}, **extra)


def validate(rec):
    return template.validate(json.dumps(rec))


def wrap(rec):
    with tempfile.TemporaryDirectory() as d:
        result = template.wrap(json.dumps(rec), os.path.join(d, "t"))
        meta = template.testdir_meta(os.path.join(d, "t")) if result["status"] == "ok" else {}
    return result, meta


F32 = tensor("float32", [2, 3])

# --- a valid record: its own outputs, in the harvest's form
add = record("torch.add", [F32, F32], [tensor("float32", [2, 3])])
r = validate(add)
is_(r.get("status"), "ok", "torch.add validates")
is_(json.loads(r.get("outputs", "null")), add["outputs"], "torch.add: its recorded outputs, without values")
ok("undefined" not in r, "torch.add: not undefined")
maxed = record("torch.max", [F32], [F32], params={"dim": {"int": 1}})
r = validate(maxed)
is_(json.loads(r.get("outputs", "null")), [tensor("float32", [2]), tensor("int64", [2])],
    "torch.max(dim): both tensors of its result, the indices' dtype its own")

# --- a dtype PyTorch rejects: invalid, PyTorch's own message
inv = record("torch.linalg.inv", [tensor("int64", [3, 3])], [tensor("float32", [3, 3])])
r = validate(inv)
is_(r.get("status"), "invalid", "linalg.inv of int64 is invalid")
ok(r.get("reason", "").startswith("RuntimeError: ") and "Long" in r.get("reason", ""),
   f"... for PyTorch's reason ({r.get('reason', '')[:80]})")

# --- a dtype variant whose outputs are its parent's: validated with its own, and then it wraps
variant = record("torch.abs", [tensor("int16", [4])], [tensor("float32", [4])],
                 variant={"parent": "0" * 32, "vary": "dtype:int16"})
r = validate(variant)
is_(json.loads(r.get("outputs", "null")), [tensor("int16", [4])], "abs of int16: outputs int16, not the parent's float32")
kept = dict(variant, outputs=json.loads(r.get("outputs", "null")))
w, meta = wrap(kept)
is_(w.get("status"), "ok", "the validated variant wraps")
is_([e["dtype"] for e in meta.get("outputs", [])], ["int16"], "... its reference int16")

# --- NaN everywhere, and the guard's undefined domain
log = record("torch.log", [tensor("float32", [2], [-1.0, -2.0])], [tensor("float32", [2])])
is_(validate(log).get("undefined"), "the reference is NaN everywhere", "log of negatives: NaN everywhere")
some = record("torch.log", [tensor("float32", [2], [-1.0, 2.0])], [tensor("float32", [2])])
ok("undefined" not in validate(some), "log with one positive: not NaN everywhere")
empty = record("torch.log", [tensor("float32", [0], [])], [tensor("float32", [0])])
ok("undefined" not in validate(empty), "an empty output is not NaN everywhere")
zero = record("torch.floor_divide", [tensor("int64", [2], [1, 2]), tensor("int64", [2], [0, 1])],
              [tensor("int64", [2])])
r = validate(zero)
is_((r.get("status"), r.get("reason")), ("invalid", "RuntimeError: ZeroDivisionError"),
    "floor_divide by an integer zero: PyTorch itself refuses it")
div = record("torch.floor_divide", [tensor("int32", [1], [-2 ** 31]), tensor("int32", [1], [-1])],
             [tensor("int32", [1])])
r = validate(div)
is_((r.get("status"), r.get("undefined")), ("ok", "integer division overflow (the lowest value by -1)"),
    "floor_divide of the lowest int32 by -1: valid, undefined by the guard")

# --- wrap: the guard's reason, else the variant's
nan_variant = dict(log, variant={"parent": "0" * 32, "vary": "in:0=-1"})
w, meta = wrap(nan_variant)
is_(w.get("undefined"), "the reference is NaN everywhere", "wrap of a variant whose reference is NaN everywhere: undefined")
is_(meta.get("undefined"), "the reference is NaN everywhere", "... into meta.json too")
w, _ = wrap(dict(add, variant={"parent": "0" * 32, "vary": "param:alpha=nan", "undefined": "the reference is NaN everywhere"}))
ok("undefined" not in w, "a variant's mark from ferry vary is not trusted: wrap decides on its own reference")
w, _ = wrap(log)
ok("undefined" not in w, "NaN everywhere in a record that is no variant: not undefined (a harvested test of NaN)")
w, _ = wrap(add)
ok("undefined" not in w, "wrap of a record that is no variant: no undefined")
w, _ = wrap(dict(div, variant={"parent": "0" * 32, "vary": "in:1=0", "undefined": "something else"}))
is_(w.get("undefined"), "integer division overflow (the lowest value by -1)", "the guard's own reason comes first")

done()
