"""ort: ONNX Runtime as a ferry frontend (the interface is in ferry/oracle/driver.py).

ONNX Runtime takes ONNX models directly, so "load" only reads the file; parsing, graph optimisation
and kernel selection all happen when the session is created ("compile").

ort_session() and ort_run() live in _run_ort.py, the frontend module a reproducer inlines whole, so
a reproducer runs ONNX Runtime exactly as ferry did.
"""

import os

import onnxruntime

from ferry.oracle.adapters._run_ort import ort_reproduce, ort_run, ort_session

NAME = "ort"
LIBRARY = "onnx"
FORMAT = "onnx"
PACKAGE = "onnxruntime"
SUMMARY = 'ONNX Runtime, CPU, all graph optimizations'
BATCH = True  # measured: bench/batch/run.sh


def version():
    return onnxruntime.__version__


def load(testdir):
    with open(os.path.join(testdir, f"model.{FORMAT}"), "rb") as f:
        return f.read()


def compile(loaded):
    return ort_session(loaded)


def execute(compiled, inputs):
    return ort_run(compiled, inputs)


REPRODUCE = ort_reproduce
