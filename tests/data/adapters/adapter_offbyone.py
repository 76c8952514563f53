"""A fault-injecting frontend for ferry show --minimal's test: ONNX Runtime with every floating-point
output one too high, in ferry and in a reproducer alike (its REPRODUCE function is its own, so a
script made of it shows the fault, where the fault adapter's scripts run ONNX Runtime unchanged).
It stands in for a frontend that answers wrong; it is never a stand-in for a real frontend's results.
It imports nothing of ferry, so that a reproducer can carry it whole.
"""
import os

import onnxruntime

NAME = "offbyone"
LIBRARY = "onnx"
FORMAT = "onnx"
PACKAGE = "onnxruntime"


def version():
    return "off-by-one " + onnxruntime.__version__


def offbyone_reproduce(model_bytes, inputs):
    """ONNX Runtime's outputs on the model (bytes) and inputs, the floating-point ones plus one."""
    session = onnxruntime.InferenceSession(model_bytes, providers=["CPUExecutionProvider"])
    return [o + 1 if o.dtype.kind == "f" else o for o in session.run(None, inputs)]


REPRODUCE = offbyone_reproduce


def load(testdir):
    with open(os.path.join(testdir, "model.onnx"), "rb") as f:
        return f.read()


def compile(loaded):
    return loaded


def execute(compiled, inputs):
    return offbyone_reproduce(compiled, inputs)
