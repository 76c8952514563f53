"""tvm-onnx: TVM Relax's ONNX frontend as a ferry frontend (the interface is in ferry/oracle/driver.py).

"load" reads model.onnx, "compile" converts it with tvm.relax.frontend.onnx.from_onnx, builds it for
llvm and loads it on the Relax VM, "execute" runs the VM's main. tvm_onnx_compile() and tvm_onnx_run()
live in _run_tvm_onnx.py, the frontend module a reproducer inlines whole. A TVM without the Relax ONNX
frontend cannot take the format at all: unavailable, once.
"""

import os

os.environ.setdefault("TVM_NUM_THREADS", "1")  # before tvm starts its thread pool

import tvm  # noqa: E402

from ferry.oracle import driver  # noqa: E402

try:
    from ferry.oracle.adapters._run_tvm_onnx import tvm_onnx_compile, tvm_onnx_reproduce, tvm_onnx_run
except ImportError as e:  # a release without relax.frontend.onnx (or without Relax)
    if not (e.name or "").startswith("tvm."):  # anything else missing (onnx, ml_dtypes) is a failure
        raise
    _missing = e
    tvm_onnx_reproduce = None
else:
    _missing = None

NAME = "tvm-onnx"
LIBRARY = "onnx"
FORMAT = "onnx"
PACKAGE = "tvm"
SUMMARY = "TVM Relax from_onnx, built for llvm, run on the Relax VM"
BATCH = True  # measured: bench/batch/run.sh


def version():
    return tvm.__version__


def load(testdir):
    if _missing is not None:
        raise driver.FormatUnavailable(f"TVM {tvm.__version__} has no Relax ONNX frontend: {_missing}")
    with open(os.path.join(testdir, f"model.{FORMAT}"), "rb") as f:
        return f.read()


def compile(loaded):
    return tvm_onnx_compile(loaded)


def execute(compiled, inputs):
    return tvm_onnx_run(compiled, inputs)


REPRODUCE = tvm_onnx_reproduce
