"""ferry.oracle.canary: the canary, a few trivial tests whose answers are known, run through a frontend
before its tests (oracle/canary.h says when and what becomes of the answer).

A frontend run under an interpreter whose libraries are not those of its release's day can give wrong
answers to everything of some kind: OpenVINO 2023.0 under numpy 2 reads a 0-d input as garbage
(Range(0, 3, 1) gives [1632543764]; under numpy 1.26 it gives [0, 1, 2]). Its failures are then not
the frontend's bugs. The canary is the smallest test of that kind: operators every frontend has, on
0-d inputs whose values the record keeps, so that the reference is a number anyone can check. Each
is an ordinary instance record, wrapped by its library's template and run by the worker like any
test; EXPECTED holds the answer ferry knows, which the template's reference must agree with too.

Keras 2 (tf_keras) has none: its template wraps layers, whose inputs carry a batch dimension, so no
0-d input reaches its frontends (openvino-tf-keras and the others of LIBRARY tf_keras); they run
without a canary.

corpus(library) gives the canary's records for a library, one JSON line each (their ids are the C
side's to fill), or "" for a library without a canary; describe() says, for a warning, what a
frontend gave beside what was expected.
"""

import json
import os

import numpy as np


def _scalar(dtype, value):
    return {"tensor": {"dtype": dtype, "shape": [], "values": [value]}}


# library -> [(what, record, expected outputs)]: what names the call as a reader checks it. One test
# where one tells (a test of a compiling frontend can cost seconds); for ONNX, Range too, the
# operator on which OpenVINO 2023.0's garbage was first seen.
_CANARIES = {
    "onnx": [
        ("Add(1.5, 2.25)",
         {"library": "onnx", "op": "Add", "kind": "node", "context": {"opset": {"int": 14}}, "params": {},
          "inputs": [_scalar("float32", 1.5), _scalar("float32", 2.25)],
          "outputs": [{"tensor": {"dtype": "float32", "shape": []}}]},
         [np.array(3.75, np.float32)]),
        ("Range(0, 3, 1)",
         {"library": "onnx", "op": "Range", "kind": "node", "context": {"opset": {"int": 11}}, "params": {},
          "inputs": [_scalar("int64", 0), _scalar("int64", 3), _scalar("int64", 1)],
          "outputs": [{"tensor": {"dtype": "int64", "shape": [3]}}]},
         [np.array([0, 1, 2], np.int64)]),
    ],
    "torch": [
        ("torch.add(1.5, 2.25)",
         {"library": "torch", "op": "torch.add", "kind": "function", "context": {}, "params": {},
          "inputs": [_scalar("float32", 1.5), _scalar("float32", 2.25)],
          "outputs": [{"tensor": {"dtype": "float32", "shape": []}}]},
         [np.array(3.75, np.float32)]),
    ],
    "keras": [
        ("keras.ops.add(1.5, 2.25)",
         {"library": "keras", "op": "keras.ops.add", "kind": "op", "context": {}, "params": {},
          "inputs": [_scalar("float32", 1.5), _scalar("float32", 2.25)],
          "outputs": [{"tensor": {"dtype": "float32", "shape": []}}]},
         [np.array(3.75, np.float32)]),
    ],
}


def corpus(library):
    """The canary's records for a library, one JSON line each, or "" when it has none."""
    return "".join(json.dumps(record, sort_keys=True) + "\n" for _, record, _ in _CANARIES.get(library, []))


def _find(testdir):
    """The canary a test directory holds, by its operator and its inputs (the template wrote both), or None."""
    with open(os.path.join(testdir, "meta.json")) as f:
        meta = json.load(f)
    inputs = [np.load(os.path.join(testdir, entry["files"][0]), allow_pickle=False)
              for entry in meta.get("inputs", []) if len(entry.get("files", [])) == 1]
    for canaries in _CANARIES.values():
        for what, record, expected in canaries:
            mine = [v["tensor"] for v in record["inputs"]]
            if meta.get("op") == record["op"] and len(inputs) == len(mine) and all(
                    str(a.dtype) == t["dtype"] and a.shape == () and a.item() == t["values"][0]
                    for a, t in zip(inputs, mine)):
                return what, expected
    return None


def _show(arrays):
    return ", ".join(np.array2string(np.asarray(a), separator=", ") for a in arrays)


def expected(testdir):
    """The call and the answer ferry knows ("Range(0, 3, 1) = [0, 1, 2]"), or "" when the template's
    own reference disagrees with it (then the canary proves nothing, and is not run)."""
    found = _find(testdir)
    if found is None:
        return ""
    what, want = found
    with open(os.path.join(testdir, "meta.json")) as f:
        n = len(json.load(f)["outputs"])
    refs = [np.load(os.path.join(testdir, f"ref_{k}.npy"), allow_pickle=False) for k in range(n)]
    if len(refs) != len(want) or not all(r.dtype == w.dtype and r.shape == w.shape and np.array_equal(r, w)
                                         for r, w in zip(refs, want)):
        return ""
    return f"{what} = {_show(want)}"


def describe(outdir):
    """What the frontend gave for a canary test, as the worker kept its outputs in outdir
    (driver.save_outputs), e.g. "[1632543764]", or "" when it kept none."""
    try:
        with open(os.path.join(outdir, "outputs.json")) as f:
            n = json.load(f)["outputs"]
        got = [np.load(os.path.join(outdir, f"out_{k}.npy"), allow_pickle=False) for k in range(n)]
    except (OSError, ValueError, KeyError):
        return ""
    return _show(got)
