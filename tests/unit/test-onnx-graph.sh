#!/bin/sh
# The ONNX template on records of kind "graph" (tests/unit/onnx_graph.py, on tests/data/gen-graphs/).
. "${top_srcdir:-$(dirname "$0")/../..}/tests/setup"
need_python_module numpy
need_python_module onnx
PYTHONPATH="$top_builddir/python" exec "${FERRY_PYTHON:-$top_srcdir/.venv/bin/python}" "$top_srcdir/tests/unit/onnx_graph.py"
