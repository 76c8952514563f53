#!/bin/sh
# The frontend list has one source, the adapters' declarations (ferry/oracle/registry.py): ferry run
# --help lists every adapter ferry ships and those of FERRY_ADAPTERS, --frontend is checked against
# them, reading them imports no frontend, and an adapter that does not implement the interface is
# refused with a message that names its file and what it lacks.
. "${top_srcdir:-$(dirname "$0")/../..}/tests/setup"
py=${FERRY_PYTHON:-$top_srcdir/.venv/bin/python}
[ -x "$py" ] || skip_all "no Python at $py"
plan 18
export PYTHONPATH="$top_builddir/python"

expect_exit 0 "ferry run --help" -- "$FERRY" run --help
listed=$(printf '%s\n' "$out" | sed -n '/^Frontends/,$p' | awk '/^  [a-z]/ {print $1}' | sort | tr '\n' ' ')
shipped=$(cd "$top_srcdir/oracle/adapters" && ls [a-z]*.py | sed 's/\.py$//; s/_/-/g' | sort | tr '\n' ' ')
check "run --help lists every adapter ferry ships, and only those ($listed)" -- [ "$listed" = "$shipped" ]
contains "run --help says which library each takes" "$out" "ort                ONNX Runtime, CPU, all graph optimizations (onnx models)"
expect_exit 0 "ferry check --help" -- "$FERRY" check --help
contains "check --help lists them too" "$out" "tvm-tflite "
check "listing the frontends imports no frontend" -- "$py" -c '
import sys
from ferry.oracle import registry
assert len(registry.frontends()) >= 9
bad = [m for m in ("torch", "openvino", "onnxruntime", "tvm", "tensorflow", "keras") if m in sys.modules]
assert not bad, bad'
check "every adapter ferry ships declares NAME, LIBRARY, FORMAT, PACKAGE and SUMMARY" -- "$py" -c '
from ferry.oracle import registry
for d in registry.frontends():
    assert all(d[k] for k in ("NAME", "LIBRARY", "FORMAT", "PACKAGE", "SUMMARY")), d'

mkdir adapters
cat > adapters/adapter_mine.py <<'PY'
"""A user's adapter that declares its LIBRARY."""
NAME = "mine"
LIBRARY = "onnx"
FORMAT = "onnx"
PACKAGE = "numpy"
SUMMARY = "a test's own adapter"


def version():
    return "1"


def load(testdir):
    return testdir


def compile(loaded):
    return loaded


execute = 3  # not a function
PY
cat > adapters/adapter_computed-lib.py <<'PY'
import os
NAME = "computed-lib"
LIBRARY = os.environ.get("WHICH", "onnx")
PY
export FERRY_ADAPTERS="$work/adapters"
expect_exit 0 "run --help with FERRY_ADAPTERS" -- "$FERRY" run --help
contains "lists the user's adapter with its summary" "$out" "mine               a test's own adapter (onnx models)"
contains "and one that computes its LIBRARY, to be run as NAME:LIBRARY" "$out" "computed-lib       (run it as NAME:LIBRARY)"
expect_exit 2 "a user's adapter run with another library than it declares" -- "$FERRY" run x -F mine:torch -o x.db
contains "says which it takes" "$err" "frontend 'mine' takes onnx models, not torch"
expect_exit 2 "an adapter that computes its LIBRARY needs NAME:LIBRARY" -- "$FERRY" run x -F computed-lib -o x.db
contains "and says so" "$err" "run it as computed-lib:LIBRARY"
expect_exit 1 "loading a non-conforming adapter fails" -- "$py" -c '
from ferry.oracle import driver
driver.load_adapter("mine")'
contains "naming its file and what it lacks" "$err" "adapter '$work/adapters/adapter_mine.py' does not implement the adapter interface: execute is int, not a function"
expect_exit 1 "an adapter missing declarations and functions" -- "$py" -c '
from ferry.oracle import driver
driver.load_adapter("computed-lib")'
contains "is told all it lacks" "$err" "FORMAT is missing; PACKAGE is missing; version() is missing; load() is missing; compile() is missing; execute() is missing"
finish
