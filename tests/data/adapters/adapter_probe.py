"""A fault-injecting frontend for ferry's test of the support probe (tests/integration/probe.sh):
ONNX Runtime, except that the model's operator and form pick what it lacks, so that each class of a
probe shows deterministically. Never a stand-in for a real frontend's results.

    Floor    "not supported" in every form: the group is unsupported
    Ceil     "not supported" on rank-3 inputs only: the group's simplest test passes
    Exp      raises in every form: the group is failing
    Add      raises when its two inputs have the same shape: the broadcasting form (the simplest)
             passes, so the crash is in a path the frontend supports
    ReduceSum raises in every form, its empty set (a 2x0x4 input, its smallest test) included

Its release is FERRY_TEST_PROBE_RELEASE (default "1"), so that a test can make a new one.
"""
import os

import onnx

from ferry.oracle.adapters import ort

NAME = "probe"
LIBRARY = "onnx"
FORMAT = "onnx"
PACKAGE = "onnxruntime"
REPRODUCE = ort.REPRODUCE


def version():
    return "probe-test " + os.environ.get("FERRY_TEST_PROBE_RELEASE", "1")


def load(testdir):
    model = onnx.load(os.path.join(testdir, "model.onnx"))
    return model.graph.node[0].op_type, ort.load(testdir)


def compile(loaded):
    op, model = loaded
    return op, ort.compile(model)


def execute(compiled, inputs):
    op, session = compiled
    shapes = [tuple(getattr(x, "shape", ())) for x in inputs.values()]  # inputs: name -> array
    if op == "Floor":
        raise NotImplementedError("injected: operator Floor is not supported by this frontend")
    if op == "Ceil" and any(len(s) == 3 for s in shapes):
        raise NotImplementedError("injected: Ceil of rank 3 is not supported by this frontend")
    if op == "Exp":
        raise RuntimeError("injected fault in Exp")
    if op == "ReduceSum":
        raise RuntimeError("injected fault in ReduceSum")
    if op == "Add" and len(shapes) == 2 and shapes[0] == shapes[1]:
        raise RuntimeError("injected fault in Add of equal shapes")
    return ort.execute(session, inputs)
