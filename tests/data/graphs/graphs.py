"""Multi-node ONNX graph tests for ferry's own tests of ferry reduce and the differential oracle,
made with onnx.helper directly: records of kind "graph" (the format of ferry generate), and their
test directories in the layout of ferry/templates/onnx.py (model.onnx, input_K.npy, ref_K.npy,
meta.json), references from onnx.reference.

    graphs.py corpus CORPUS     write the records
    graphs.py fill WRAPDIR      after ferry wrap CORPUS -o WRAPDIR (which gives each record its id):
                                write each record's test directory, and mark it wrapped

The graphs (a fault of tests/data/adapters/adapter_graphfault.py in each of the first two):
    pool-relu   Conv, Sigmoid, MaxPool, Relu, Add, Neg, Abs: a Relu fed by a MaxPool (a crash)
    tanh        Add, Mul, Tanh, Sigmoid, Sub, Abs: a Tanh (wrong values)
    plain       Relu, Neg, Abs, Sigmoid: nothing the fault adapter minds
"""
import json
import os
import sys

import numpy as np
import onnx
from onnx import helper
from onnx.reference import ReferenceEvaluator


def _t(shape, lo=-1.0, hi=1.0):
    return {"tensor": {"dtype": "float32", "shape": shape, "range": [lo, hi]}}


def _node(op, inputs, outputs, shape, params=None):
    return {"op": op, "inputs": inputs, "outputs": outputs, "params": params or {},
            "types": [{"dtype": "float32", "shape": shape}]}


def _ints(*v):
    return {"list": [{"int": x} for x in v]}


GRAPHS = {
    "pool-relu": {
        "inputs": [("x0", [1, 2, 8, 8]), ("x1", [1, 2, 4, 4])],
        "constants": [("c0", [2, 2, 3, 3])],
        "nodes": [
            _node("Conv", ["x0", "c0"], ["t0"], [1, 2, 8, 8],
                  {"kernel_shape": _ints(3, 3), "pads": _ints(1, 1, 1, 1)}),
            _node("Sigmoid", ["t0"], ["t1"], [1, 2, 8, 8]),
            _node("MaxPool", ["t1"], ["t2"], [1, 2, 4, 4], {"kernel_shape": _ints(2, 2), "strides": _ints(2, 2)}),
            _node("Relu", ["t2"], ["t3"], [1, 2, 4, 4]),
            _node("Add", ["t3", "x1"], ["t4"], [1, 2, 4, 4]),
            _node("Neg", ["t4"], ["t5"], [1, 2, 4, 4]),
            _node("Abs", ["t5"], ["t6"], [1, 2, 4, 4]),
        ],
        "outputs": [("t6", [1, 2, 4, 4])],
    },
    "tanh": {
        "inputs": [("x0", [2, 3, 4]), ("x1", [2, 3, 4])],
        "constants": [],
        "nodes": [
            _node("Add", ["x0", "x1"], ["t0"], [2, 3, 4]),
            _node("Mul", ["t0", "x0"], ["t1"], [2, 3, 4]),
            _node("Tanh", ["t1"], ["t2"], [2, 3, 4]),
            _node("Sigmoid", ["t2"], ["t3"], [2, 3, 4]),
            _node("Sub", ["t3", "x1"], ["t4"], [2, 3, 4]),
            _node("Abs", ["t4"], ["t5"], [2, 3, 4]),
        ],
        "outputs": [("t5", [2, 3, 4])],
    },
    "plain": {
        "inputs": [("x0", [3, 5])],
        "constants": [],
        "nodes": [
            _node("Relu", ["x0"], ["t0"], [3, 5]),
            _node("Neg", ["t0"], ["t1"], [3, 5]),
            _node("Abs", ["t1"], ["t2"], [3, 5]),
            _node("Sigmoid", ["t2"], ["t3"], [3, 5]),
        ],
        "outputs": [("t3", [3, 5])],
    },
}


def corpus(path):
    with open(path, "w") as f:
        for index, (name, g) in enumerate(GRAPHS.items()):
            record = {
                "library": "onnx", "library_version": onnx.__version__, "kind": "graph", "op": "graph",
                "context": {"opset": {"int": 17}},
                "params": {"ops": {"list": [{"str": op} for op in sorted({n["op"] for n in g["nodes"]})]},
                           "nodes": {"int": len(g["nodes"])}},
                "inputs": [_t(shape) for _, shape in g["inputs"]],
                "outputs": [{"tensor": {"dtype": "float32", "shape": shape}} for _, shape in g["outputs"]],
                "graph": {"inputs": [n for n, _ in g["inputs"]],
                          "constants": [{"name": n, **_t(shape)} for n, shape in g["constants"]],
                          "nodes": g["nodes"], "outputs": [n for n, _ in g["outputs"]]},
                "source": {"suite": "tests", "test": name, "index": index},
            }
            f.write(json.dumps(record) + "\n")


def _attribute(value):
    if "list" in value:
        return [v["int"] for v in value["list"]]
    return next(iter(value.values()))


def _model(record):
    g = record["graph"]
    rng = np.random.default_rng(len(g["nodes"]))
    inits = [onnx.numpy_helper.from_array(
        rng.uniform(*c["tensor"]["range"], c["tensor"]["shape"]).astype(np.float32), c["name"])
        for c in g["constants"]]
    nodes = [helper.make_node(n["op"], n["inputs"], n["outputs"], name=f"n{k}",
                              **{a: _attribute(v) for a, v in n["params"].items()})
             for k, n in enumerate(g["nodes"])]
    inputs = [helper.make_tensor_value_info(name, onnx.TensorProto.FLOAT, v["tensor"]["shape"])
              for name, v in zip(g["inputs"], record["inputs"])]
    outputs = [helper.make_tensor_value_info(name, onnx.TensorProto.FLOAT, v["tensor"]["shape"])
               for name, v in zip(g["outputs"], record["outputs"])]
    model = helper.make_model(helper.make_graph(nodes, "graph", inputs, outputs, inits),
                              opset_imports=[helper.make_opsetid("", 17)], ir_version=8)
    onnx.checker.check_model(model, full_check=True)
    feeds = {name: rng.uniform(*v["tensor"]["range"], v["tensor"]["shape"]).astype(np.float32)
             for name, v in zip(g["inputs"], record["inputs"])}
    return model, feeds


def fill(wrapdir):
    lines = []
    for line in open(os.path.join(wrapdir, "wrapped.jsonl")):
        record = json.loads(line)
        rid = record["id"]
        testdir = os.path.join(wrapdir, "tests", rid[:2], rid)
        os.makedirs(testdir, exist_ok=True)
        model, feeds = _model(record)
        refs = ReferenceEvaluator(model).run(None, feeds)
        with open(os.path.join(testdir, "model.onnx"), "wb") as f:
            f.write(model.SerializeToString())
        meta = {"id": rid, "op": "graph", "opset": 17, "random": False, "opset_imports": {"ai.onnx": 17},
                "ir_version": 8, "inputs": [], "outputs": []}
        for k, (name, value) in enumerate(feeds.items()):
            np.save(os.path.join(testdir, f"input_{k}.npy"), value)
            meta["inputs"].append({"name": name, "kind": "tensor", "dtype": "float32", "files": [f"input_{k}.npy"]})
        for k, (out, ref) in enumerate(zip(model.graph.output, refs)):
            np.save(os.path.join(testdir, f"ref_{k}.npy"), ref)
            meta["outputs"].append({"name": out.name, "kind": "tensor", "dtype": "float32", "files": [f"ref_{k}.npy"]})
        with open(os.path.join(testdir, "meta.json"), "w") as f:
            json.dump(meta, f, indent=1)
        record["wrap"] = {"status": "ok", "random": False, "dir": os.path.join("tests", rid[:2], rid)}
        lines.append(json.dumps(record) + "\n")
    with open(os.path.join(wrapdir, "wrapped.jsonl"), "w") as f:
        f.writelines(lines)


if __name__ == "__main__":
    {"corpus": corpus, "fill": fill}[sys.argv[1]](sys.argv[2])
