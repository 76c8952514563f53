"""Unit tests of the Keras template's validate() (ferry vary's validity oracle) and of wrap()'s
passing a variant's undefined domain on. Prints TAP; run by tests/unit/test-keras-validate.sh."""

import json
import os
import tempfile
import warnings

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
warnings.simplefilter("ignore")

from tap import done, is_, ok  # noqa: E402

from ferry.templates import keras as template  # noqa: E402


def tensor(dtype, shape, values=None):
    body = {"dtype": dtype, "shape": shape}
    if values is not None:
        body["values"] = values
    return {"tensor": body}


def record(op, inputs, outputs, params=None, kind="op", **extra):
    return dict({"library": "keras", "op": op, "kind": kind, "context": {}, "params": params or {},
                 "inputs": inputs, "outputs": outputs}, **extra)


def validate(rec):
    return template.validate(json.dumps(rec))


def wrap(rec):
    with tempfile.TemporaryDirectory() as d:
        return template.wrap(json.dumps(rec), os.path.join(d, "t"))


F32 = tensor("float32", [2, 3])
PARENT = "0123456789abcdef0123456789abcdef"

# --- valid records: their own outputs, in the harvest's form (an unknown batch stays unknown)
add = record("keras.ops.add", [F32, F32], [tensor("float32", [2, 3])])
r = validate(add)
is_(r.get("status"), "ok", "keras.ops.add validates")
is_(json.loads(r.get("outputs", "null")), add["outputs"], "keras.ops.add: its recorded outputs, without values")
ok("undefined" not in r, "keras.ops.add: not undefined")
dense = record("keras.layers.Dense", [tensor("float32", [None, 4])], [tensor("float32", [None, 3])], kind="layer",
               params={"units": {"int": 3}, "dtype": {"str": "float32"}})
is_(json.loads(validate(dense).get("outputs", "null")), dense["outputs"],
    "a Dense layer called on an unknown batch: its outputs' batch unknown, as recorded")

# --- a dtype Keras rejects: invalid, the library's message
invert = record("keras.ops.bitwise_invert", [tensor("float32", [3])], [tensor("int32", [3])])
r = validate(invert)
is_(r.get("status"), "invalid", "bitwise_invert of float32 is invalid")
ok(r.get("reason", "").startswith("InvalidArgumentError: ") and "float" in r.get("reason", ""),
   f"... for TensorFlow's reason ({' '.join(r.get('reason', '').split())[:90]})")

# --- a dtype variant whose outputs are its parent's: validated with its own, and then it wraps
variant = record("keras.ops.abs", [tensor("int16", [4])], [tensor("float32", [4])],
                 variant={"parent": PARENT, "vary": "dtype:int16"})
r = validate(variant)
is_(json.loads(r.get("outputs", "null")), [tensor("int16", [4])], "abs of int16: outputs int16, not the parent's float32")
kept = dict(variant, outputs=json.loads(r.get("outputs", "null")))
is_(wrap(kept).get("status"), "ok", "the validated variant wraps")

# --- NaN everywhere, and the guard's undefined domain
log = record("keras.ops.log", [tensor("float32", [2], [-1.0, -2.0])], [tensor("float32", [2])])
is_(validate(log).get("undefined"), "the reference is NaN everywhere", "log of negatives: NaN everywhere")
some = record("keras.ops.log", [tensor("float32", [2], [-1.0, 2.0])], [tensor("float32", [2])])
ok("undefined" not in validate(some), "log with one positive: not NaN everywhere")
cast = record("keras.ops.cast", [tensor("float32", [2], ["nan", 1.0])], [tensor("int32", [2])],
              params={"dtype": {"str": "int32"}})
r = validate(cast)
is_((r.get("status"), r.get("undefined")), ("ok", "a cast of non-finite or out-of-range floats to int32"),
    "a cast of NaN to int32: valid, undefined by the guard")

# --- a call given training=True: validated through wrap()'s export, which runs the training path the
# reference (training=False) skips. Attention's dropout=inf is refused there (a rate out of range), and
# a dropout of 0.2 makes a SavedModel that does not agree with Keras: both invalid, as wrap() finds them;
# the same call without training=True is valid, its export not made.
q = tensor("float32", [1, 2, 4], [1.0] * 8)


def attention(dropout, training):
    kwargs = {"training": {"bool": True}} if training else {}
    return record("keras.layers.Attention", [{"list": [q, q]}], [tensor("float32", [1, 2, 4])], kind="layer",
                  params={"dropout": {"float": dropout}, "dtype": {"str": "float32"}, "seed": {"int": 1}},
                  context={"kwargs": {"dict": kwargs}})


for dropout, why in (("inf", "`rate` must be"), (0.2, "SavedModel disagrees")):
    r = validate(attention(dropout, True))
    ok(r.get("status") == "invalid" and why in r.get("reason", ""),
       f"Attention(dropout={dropout}) called with training=True: invalid, as its export is "
       f"({r.get('status')}: {' '.join(r.get('reason', '').split())[:100]})")
    with tempfile.TemporaryDirectory() as d:
        w = template.wrap(json.dumps(attention(dropout, True)), os.path.join(d, "t"))
        meta = template.testdir_meta(os.path.join(d, "t")) if w.get("status") == "ok" else {}
    ok(w.get("status") == "invalid" or meta.get("saved_model") is None,
       f"... and wrap() makes no SavedModel that agrees ({w.get('status')}, {meta.get('saved_model_error', '')[:60]})")
is_(validate(attention("inf", False)).get("status"), "ok", "Attention(dropout=inf) without training=True: valid")

# --- wrap: the guard's reason, else the variant's
nan_variant = dict(log, variant={"parent": PARENT, "vary": "in:0=-1"})
is_(wrap(nan_variant).get("undefined"), "the reference is NaN everywhere",
    "wrap of a variant whose reference is NaN everywhere: undefined")
stale = dict(add, variant={"parent": PARENT, "vary": "in:1=nan", "undefined": "the reference is NaN everywhere"})
ok("undefined" not in wrap(stale), "a variant's mark from ferry vary is not trusted: wrap decides on its own reference")
ok("undefined" not in wrap(log), "NaN everywhere in a record that is no variant: not undefined (a harvested test of NaN)")
ok("undefined" not in wrap(add), "wrap of a record that is no variant: no undefined")

done()
