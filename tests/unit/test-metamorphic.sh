#!/bin/sh
# The metamorphic oracle's mutations and their reduction, on small models (tests/unit/metamorphic.py).
. "${top_srcdir:-$(dirname "$0")/../..}/tests/setup"
need_python_module numpy
need_python_module onnx
PYTHONPATH="$top_builddir/python" exec "${FERRY_PYTHON:-$top_srcdir/.venv/bin/python}" "$top_srcdir/tests/unit/metamorphic.py"
