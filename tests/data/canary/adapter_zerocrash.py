"""A fake frontend for tests/cli/canary.sh: ONNX Runtime, except that it crashes on a 0-d input, as
TVM 0.25 refuses Range on 0-d inputs whatever the numpy: a frontend's own limitation, which the canary
must not take for a broken environment. Never a stand-in for a real frontend's results."""
import os

import numpy as np
import onnxruntime

from ferry.oracle.adapters._run_ort import ort_run, ort_session

NAME = "zerocrash"
LIBRARY = "onnx"
FORMAT = "onnx"
PACKAGE = "onnxruntime"
SUMMARY = "ONNX Runtime that crashes on 0-d inputs"


def version():
    return onnxruntime.__version__


def load(testdir):
    with open(os.path.join(testdir, "model.onnx"), "rb") as f:
        return f.read()


def compile(loaded):
    return ort_session(loaded)


def execute(compiled, inputs):
    if any(isinstance(v, np.ndarray) and v.ndim == 0 for v in inputs.values()):
        raise ValueError("0-d inputs are not supported here")
    return ort_run(compiled, inputs)
