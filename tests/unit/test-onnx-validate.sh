#!/bin/sh
# The ONNX template's validate(), wrap()'s undefined of a variant and a variant's reproducer header
# (tests/unit/onnx_validate.py).
. "${top_srcdir:-$(dirname "$0")/../..}/tests/setup"
need_python_module numpy
need_python_module onnx
PYTHONPATH="$top_builddir/python" exec "${FERRY_PYTHON:-$top_srcdir/.venv/bin/python}" "$top_srcdir/tests/unit/onnx_validate.py"
