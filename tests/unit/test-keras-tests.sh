#!/bin/sh
# Keras's own tests as a harvest source, pytest runs in a checkout, set-up calls, whole invalid
# reasons (tests/unit/keras_tests.py). A local index (file:// URLs) stands in for the network.
. "${top_srcdir:-$(dirname "$0")/../..}/tests/setup"
need_python_module keras
need_python_module tensorflow
need_python_module pytest
# The one path ferry puts on sys.path: the build tree's package (Makefile.am, python/).
PYTHONPATH="$top_builddir/python" exec "${FERRY_PYTHON:-$top_srcdir/.venv/bin/python}" "$top_srcdir/tests/unit/keras_tests.py"
