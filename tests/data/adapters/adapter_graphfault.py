"""A fault-injecting frontend for ferry's own tests of ferry reduce and of the differential oracle:
ONNX Runtime, except that a model's structure picks a fault. It stands in for a compiler with a bug
in one place of a graph; it is never a stand-in for a real frontend's results.

    a Relu fed by a MaxPool    raises while compiling (a fusion that fails)
    a Tanh                     answers Tanh(x) + 1 (a wrong kernel)
"""
import os

import numpy as np
import onnx
import onnxruntime
from onnx import helper, numpy_helper

if __name__ != "__main__":  # a reproducer pastes this module whole, and ferry's names above it
    from ferry.oracle.adapters._run_ort import ort_run, ort_session

NAME = "graphfault"
LIBRARY = "onnx"
FORMAT = "onnx"
PACKAGE = "onnxruntime"
SUMMARY = "ONNX Runtime with a fault in MaxPool->Relu and in Tanh"


def version():
    return "graph-fault-injecting " + onnxruntime.__version__


def load(testdir):
    return onnx.load(os.path.join(testdir, "model.onnx"))


def compile(model):
    made = {o: node.op_type for node in model.graph.node for o in node.output}
    for node in model.graph.node:
        if node.op_type == "Relu" and made.get(node.input[0]) == "MaxPool":
            raise RuntimeError(f"injected fault: cannot fuse MaxPool into Relu node {node.name}")
    return ort_session(_off_by_one(model).SerializeToString())


def _off_by_one(model):
    """The model with every Tanh's output one too large."""
    model = onnx.ModelProto.FromString(model.SerializeToString())
    nodes = []
    for node in model.graph.node:
        nodes.append(node)
        if node.op_type == "Tanh":
            wrong = node.output[0]
            node.output[0] = wrong + "_right"
            nodes.append(helper.make_node("Add", [node.output[0], "ferry_fault_one"], [wrong]))
    if len(nodes) > len(model.graph.node):
        model.graph.initializer.append(numpy_helper.from_array(np.array(1, np.float32), "ferry_fault_one"))
        del model.graph.node[:]
        model.graph.node.extend(nodes)
    return model


def execute(compiled, inputs):
    return ort_run(compiled, inputs)


def reproduce(model_bytes, inputs):
    return execute(compile(onnx.load_from_string(model_bytes)), inputs)


REPRODUCE = reproduce
