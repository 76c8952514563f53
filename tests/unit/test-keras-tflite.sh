#!/bin/sh
# The Keras template converts to TFLite at wrap as ferry_tflite does (tests/unit/keras_tflite.py).
. "${top_srcdir:-$(dirname "$0")/../..}/tests/setup"
need_python_module keras
need_python_module tensorflow
PYTHONPATH="$top_builddir/python" exec "${FERRY_PYTHON:-$top_srcdir/.venv/bin/python}" "$top_srcdir/tests/unit/keras_tflite.py"
