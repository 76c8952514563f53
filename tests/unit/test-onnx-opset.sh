#!/bin/sh
# The ONNX template stamps each model with the lowest opset its operator's schema needs
# (tests/unit/onnx_opset.py).
. "${top_srcdir:-$(dirname "$0")/../..}/tests/setup"
need_python_module numpy
need_python_module onnx
PYTHONPATH="$top_builddir/python" exec "${FERRY_PYTHON:-$top_srcdir/.venv/bin/python}" "$top_srcdir/tests/unit/onnx_opset.py"
