#!/bin/sh
# The worker's reader of a test's .npy files against np.load (tests/unit/npy.py).
. "${top_srcdir:-$(dirname "$0")/../..}/tests/setup"
need_python_module numpy
PYTHONPATH="$top_builddir/python" exec "${FERRY_PYTHON:-$top_srcdir/.venv/bin/python}" "$top_srcdir/tests/unit/npy.py"
