#!/bin/sh
# The PyTorch template's models: weights as constants, frozen TorchScript, undefined-domain and
# uninitialised-memory guards (tests/unit/torch_models.py).
. "${top_srcdir:-$(dirname "$0")/../..}/tests/setup"
need_python_module torch
PYTHONPATH="$top_builddir/python" exec "${FERRY_PYTHON:-$top_srcdir/.venv/bin/python}" "$top_srcdir/tests/unit/torch_models.py"
