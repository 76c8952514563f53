#!/bin/sh
# The Keras template's SavedModel and TFLite model at wrap (tests/unit/keras_export.py).
. "${top_srcdir:-$(dirname "$0")/../..}/tests/setup"
need_python_module keras
need_python_module tensorflow
PYTHONPATH="$top_builddir/python" exec "${FERRY_PYTHON:-$top_srcdir/.venv/bin/python}" "$top_srcdir/tests/unit/keras_export.py"
