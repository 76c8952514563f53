#!/bin/sh
# The narrow dtypes' conversions between ferry and the frontends (tests/unit/narrow.py).
. "${top_srcdir:-$(dirname "$0")/../..}/tests/setup"
need_python_module numpy
need_python_module ml_dtypes
PYTHONPATH="$top_builddir/python" exec "${FERRY_PYTHON:-$top_srcdir/.venv/bin/python}" "$top_srcdir/tests/unit/narrow.py"
