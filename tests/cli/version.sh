#!/bin/sh
# ferry --version names what a bug report needs: ferry, Python, libclang, the libraries (onnx, torch,
# keras, tensorflow) and every frontend (its adapter's PACKAGE), read from their metadata. What is
# missing says "not installed", and an interpreter that does not start costs those lines, never the
# command.
. "${top_srcdir:-$(dirname "$0")/../..}/tests/setup"
py=${FERRY_PYTHON:-$top_srcdir/.venv/bin/python}
[ -x "$py" ] || skip_all "no Python at $py"
plan 11

expect_exit 0 "ferry --version" -- "$FERRY" --version
for lib in onnx torch keras tensorflow; do
	# The library's own word (imported here, as --version does not), else "not installed".
	v=$("$py" -c "import importlib, sys
try: print(importlib.import_module(sys.argv[1]).__version__)
except ImportError: print('not installed')" "$lib" 2>/dev/null | tail -1)
	line=$(printf '%s\n' "$out" | grep "^library $lib: " || true)
	contains "library $lib: its version ($v)" "$line" "$v"
done
listed=$(printf '%s\n' "$out" | sed -n 's/^frontend \([^:]*\):.*/\1/p' | sort | tr '\n' ' ')
shipped=$(cd "$top_srcdir/oracle/adapters" && ls [a-z]*.py | sed 's/\.py$//; s/_/-/g' | sort | tr '\n' ' ')
check "every frontend ferry ships has a line ($listed)" -- [ "$listed" = "$shipped" ]
contains "a frontend by its package's distribution" "$out" "frontend ort: onnxruntime "

mkdir adapters
cat > adapters/adapter_ghost.py <<'PY'
NAME = "ghost"
LIBRARY = "onnx"
FORMAT = "onnx"
PACKAGE = "ferry_no_such_package"
PY
expect_exit 0 "a frontend whose package is missing" -- env FERRY_ADAPTERS="$work/adapters" "$FERRY" --version
contains "says it is not installed, with its adapter" "$out" "frontend ghost: not installed (adapter $work/adapters/adapter_ghost.py)"
expect_exit 0 "no interpreter: --version still answers" -- env FERRY_PYTHON=/nonexistent "$FERRY" --version
contains "and says why the versions are unknown" "$out" "libraries and frontends: unknown (no Python interpreter at '/nonexistent'"
finish
