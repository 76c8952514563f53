"""A fault-injecting adapter for tests/cli/select.sh: ONNX Runtime, except that while the file named by
$BROKEN_FLAG exists its compile stage raises (an adapter bug its user then fixes), and that compile
takes $BROKEN_SLEEP seconds more (a slow compiler, for tests/cli/go.sh to interrupt a run). Never a
stand-in for a real frontend's results: without them it is ONNX Runtime itself."""
import os
import time

import onnxruntime

if __name__ != "__main__":
    from ferry.oracle.adapters._run_ort import ort_run, ort_session

NAME = "broken"
LIBRARY = "onnx"
FORMAT = "onnx"
PACKAGE = "onnxruntime"
SUMMARY = "ONNX Runtime behind an adapter bug that a flag file switches on"


def version():
    return onnxruntime.__version__


def load(testdir):
    with open(os.path.join(testdir, "model.onnx"), "rb") as f:
        return f.read()


def compile(loaded):
    time.sleep(float(os.environ.get("BROKEN_SLEEP", "0")))
    flag = os.environ.get("BROKEN_FLAG")
    if flag and os.path.exists(flag):
        raise RuntimeError("the adapter is broken (a bug of its own, fixed by removing the flag)")
    return ort_session(loaded)


def execute(compiled, inputs):
    return ort_run(compiled, inputs)
