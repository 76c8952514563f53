#!/bin/sh
# The PyTorch template's validate() and wrap()'s undefined of a variant (tests/unit/torch_validate.py).
. "${top_srcdir:-$(dirname "$0")/../..}/tests/setup"
need_python_module torch
PYTHONPATH="$top_builddir/python" exec "${FERRY_PYTHON:-$top_srcdir/.venv/bin/python}" "$top_srcdir/tests/unit/torch_validate.py"
