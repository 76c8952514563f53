#!/bin/sh
# What the PyTorch instrumentation records and what it leaves out (tests/unit/torch_harvest.py).
. "${top_srcdir:-$(dirname "$0")/../..}/tests/setup"
need_python_module torch
# The one path ferry puts on sys.path: the build tree's package (Makefile.am, python/).
PYTHONPATH="$top_builddir/python" exec "${FERRY_PYTHON:-$top_srcdir/.venv/bin/python}" "$top_srcdir/tests/unit/torch_harvest.py"
