#!/bin/sh
# The inputs the Keras 2 template draws where a symbolic call kept no values
# (tests/unit/tf_keras_inputs.py).
. "${top_srcdir:-$(dirname "$0")/../..}/tests/setup"
need_python_module tf_keras
need_python_module tensorflow
# The one path ferry puts on sys.path: the build tree's package (Makefile.am, python/).
PYTHONPATH="$top_builddir/python" exec "${FERRY_PYTHON:-$top_srcdir/.venv/bin/python}" "$top_srcdir/tests/unit/tf_keras_inputs.py"
