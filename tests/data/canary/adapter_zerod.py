"""A fake frontend for tests/cli/canary.sh: ONNX Runtime, except that it reads a 0-d input wrong (adds 7
to it), as OpenVINO 2023.0 under numpy 2 reads 0-d inputs as garbage; every input of another rank is
read right. Each run of a model with a 0-d input is counted in ZEROD_LOG, so that the test can tell how
often the canary ran. Never a stand-in for a real frontend's results."""
import os

import numpy as np
import onnxruntime

from ferry.oracle.adapters._run_ort import ort_run, ort_session

NAME = "zerod"
LIBRARY = "onnx"
FORMAT = "onnx"
PACKAGE = "onnxruntime"
SUMMARY = "ONNX Runtime that reads 0-d inputs wrong"


def version():
    return onnxruntime.__version__


def load(testdir):
    with open(os.path.join(testdir, "model.onnx"), "rb") as f:
        return f.read()


def compile(loaded):
    return ort_session(loaded)


def execute(compiled, inputs):
    scalar = [k for k, v in inputs.items() if isinstance(v, np.ndarray) and v.ndim == 0]
    if scalar and os.environ.get("ZEROD_LOG"):
        with open(os.environ["ZEROD_LOG"], "a") as f:
            f.write("0-d\n")
    fed = {k: (np.array(v + 7, dtype=v.dtype) if k in scalar else v) for k, v in inputs.items()}
    return ort_run(compiled, fed)
