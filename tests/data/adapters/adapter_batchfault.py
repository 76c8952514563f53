"""A fault-injecting frontend for ferry's test of batches (tests/integration/batch-faults.sh): ONNX
Runtime, except that an operator anywhere in the model (a batch's merged model holds every test's)
picks a fault. Never a stand-in for a real frontend's results.

    Neg      SIGSEGV while compiling
    Sigmoid  the worker killed by SIGKILL while executing (as the kernel's OOM killer would)
    Exp      raises while compiling
    Abs      the output of every Abs node plus one (a wrong result; a batch's other tests are right)

and each operator named in FERRY_BATCHFAULT_RAISE (comma-separated) raises while compiling, as Exp.

It declares BATCH = True, so that ferry run --batch merges its tests. With FERRY_BATCHFAULT_LOG set,
each compilation appends a line to that file.
"""
import ctypes
import os
import signal

import numpy as np
import onnx

from ferry.oracle.adapters import ort

NAME = "batchfault"
LIBRARY = "onnx"
FORMAT = "onnx"
PACKAGE = "onnxruntime"
BATCH = True
REPRODUCE = ort.REPRODUCE


def version():
    return "batch-fault-injecting " + ort.version()


def load(testdir):
    model = onnx.load(os.path.join(testdir, "model.onnx"))
    ops = {n.op_type for n in model.graph.node}
    # the graph outputs an Abs node gives, by their position among the graph's outputs
    made = {o for n in model.graph.node if n.op_type == "Abs" for o in n.output}
    wrong = [k for k, o in enumerate(model.graph.output) if o.name in made]
    return ops, wrong, ort.load(testdir)


def compile(loaded):
    ops, wrong, model = loaded
    if os.environ.get("FERRY_BATCHFAULT_LOG"):  # each compilation a line, for the test that counts them
        with open(os.environ["FERRY_BATCHFAULT_LOG"], "a") as f:
            f.write("compile\n")
    if "Neg" in ops:
        ctypes.string_at(0)
    if "Exp" in ops:
        raise RuntimeError("injected fault: Exp while compiling")
    for op in os.environ.get("FERRY_BATCHFAULT_RAISE", "").split(","):
        if op in ops:
            raise RuntimeError(f"injected fault: {op} while compiling")
    return ops, wrong, ort.compile(model)


def execute(compiled, inputs):
    ops, wrong, session = compiled
    if "Sigmoid" in ops:
        os.kill(os.getpid(), signal.SIGKILL)
    outputs = ort.execute(session, inputs)
    return [np.asarray(o) + np.asarray(1, dtype=np.asarray(o).dtype) if k in wrong else o
            for k, o in enumerate(outputs)]
