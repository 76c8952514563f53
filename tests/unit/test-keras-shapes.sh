#!/bin/sh
# The Keras template resolves the unknown dimensions of an instance's inputs together
# (tests/unit/keras_shapes.py).
. "${top_srcdir:-$(dirname "$0")/../..}/tests/setup"
need_python_module keras
need_python_module tensorflow
PYTHONPATH="$top_builddir/python" exec "${FERRY_PYTHON:-$top_srcdir/.venv/bin/python}" "$top_srcdir/tests/unit/keras_shapes.py"
