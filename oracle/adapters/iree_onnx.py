"""iree-onnx: IREE on ONNX models as a ferry frontend (the interface is in ferry/oracle/driver.py).

"load" reads model.onnx, "compile" imports it to MLIR with iree-base-compiler's ONNX importer and
compiles it with iree-compile for the llvm-cpu backend (a generic target CPU), "execute" runs it with
iree-base-runtime on the local-sync driver, one thread. iree_onnx_compile() and iree_onnx_run() live
in _run_iree_onnx.py, the frontend module a reproducer inlines whole.
"""

import importlib.metadata
import os

from ferry.oracle.adapters._run_iree_onnx import iree_onnx_compile, iree_onnx_reproduce, iree_onnx_run

NAME = "iree-onnx"
LIBRARY = "onnx"
FORMAT = "onnx"
PACKAGE = "iree"
SUMMARY = "IREE: the ONNX importer, iree-compile for llvm-cpu (generic CPU), the local-sync runtime"
BATCH = True  # measured: bench/batch/run.sh


def version():
    compiler = importlib.metadata.version("iree-base-compiler")
    runtime = importlib.metadata.version("iree-base-runtime")
    return compiler if compiler == runtime else f"{compiler} runtime {runtime}"


def load(testdir):
    with open(os.path.join(testdir, f"model.{FORMAT}"), "rb") as f:
        return f.read()


def compile(loaded):
    return iree_onnx_compile(loaded)


def execute(compiled, inputs):
    return iree_onnx_run(compiled, inputs)


REPRODUCE = iree_onnx_reproduce
