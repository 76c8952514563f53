#!/bin/sh
# count-tests' Python counting on the forms compiler test suites name operators by
# (tests/unit/count_tests.py).
. "${top_srcdir:-$(dirname "$0")/../..}/tests/setup"
need_python_module onnx
PYTHONPATH="$top_builddir/python" exec "${FERRY_PYTHON:-$top_srcdir/.venv/bin/python}" "$top_srcdir/tests/unit/count_tests.py"
