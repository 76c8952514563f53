#!/bin/sh
# The reproducer runtimes: self-contained, deterministic, and compare() showing got and want
# (tests/unit/runtime.py).
. "${top_srcdir:-$(dirname "$0")/../..}/tests/setup"
need_python_module numpy
need_python_module onnx
# The one path ferry puts on sys.path: the build tree's package (Makefile.am, python/).
PYTHONPATH="$top_builddir/python" exec "${FERRY_PYTHON:-$top_srcdir/.venv/bin/python}" "$top_srcdir/tests/unit/runtime.py"
