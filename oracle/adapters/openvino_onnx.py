"""openvino-onnx: OpenVINO's ONNX frontend as a ferry frontend (the interface is in
ferry/oracle/driver.py).

"load" reads model.onnx, "compile" parses it with OpenVINO's ONNX frontend (Core.read_model) and
compiles it for the CPU in f32, one thread, "execute" runs an infer request. ov_onnx_compile() and
ov_onnx_run() live in _run_openvino_onnx.py, the frontend module a reproducer inlines whole.
"""

import os

from ferry.oracle.adapters import _openvino as ferry_openvino
from ferry.oracle.adapters._run_openvino_onnx import ov_onnx_compile, ov_onnx_reproduce, ov_onnx_run

ferry_openvino.off()  # no telemetry process per conversion

NAME = "openvino-onnx"
LIBRARY = "onnx"
FORMAT = "onnx"
PACKAGE = "openvino"
SUMMARY = "OpenVINO's ONNX frontend (Core.read_model), CPU, f32, one thread"
BATCH = True  # measured: bench/batch/run.sh


def version():
    return ferry_openvino.version()


def load(testdir):
    with open(os.path.join(testdir, f"model.{FORMAT}"), "rb") as f:
        return f.read()


def compile(loaded):
    return ov_onnx_compile(loaded)


def execute(compiled, inputs):
    return ov_onnx_run(compiled, inputs)


REPRODUCE = ov_onnx_reproduce
