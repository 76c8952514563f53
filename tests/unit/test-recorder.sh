#!/bin/sh
# The shared Recorder (extract/recorder.py) on a toy library of plain Python (tests/unit/recorder.py).
. "${top_srcdir:-$(dirname "$0")/../..}/tests/setup"
# The one path ferry puts on sys.path: the build tree's package (Makefile.am, python/).
PYTHONPATH="$top_builddir/python" exec "${FERRY_PYTHON:-$top_srcdir/.venv/bin/python}" "$top_srcdir/tests/unit/recorder.py"
