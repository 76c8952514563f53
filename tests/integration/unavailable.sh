#!/bin/sh
# A frontend whose release cannot take the format at all (tests/data/adapters/adapter_noformat.py
# with FERRY_TEST_OLD_RELEASE: every load fails the same way, and the adapter raises
# FormatUnavailable) is said once to be unavailable for it: no crash, no bug, no result; the store
# records it for report; and a run with a release that takes the format runs those tests.
. "${top_srcdir:-$(dirname "$0")/../..}/tests/setup"
need_python_module onnx
need_python_module onnxruntime
py=${FERRY_PYTHON:-$top_srcdir/.venv/bin/python}
plan 17
sql() { "$py" -c 'import sqlite3, sys; print("\n".join("|".join(map(str, r)) for r in sqlite3.connect(sys.argv[1]).execute(sys.argv[2])))' "$@"; }

"$FERRY" harvest onnx -q -o corpus.jsonl -f test_relu -f test_abs -f test_neg -f test_exp -f test_floor >/dev/null
"$FERRY" wrap corpus.jsonl -o wrapped -q >/dev/null
export FERRY_ADAPTERS="$top_srcdir/tests/data/adapters"

FERRY_TEST_OLD_RELEASE=1 expect_exit 0 "a run through the old release and ORT completes" -- \
	"$FERRY" run wrapped --frontend noformat:onnx --frontend ort -o results.db -j 2
n=$(printf '%s\n' "$err" | grep -c "unavailable" || true)
check "it says once that the frontend is unavailable ($n lines)" -- [ "$n" -eq 1 ]
contains "with the format and why" "$err" "frontend 'noformat' is unavailable: this release cannot take onnx: AttributeError: module 'onnxruntime' has no attribute 'InferenceSession'"
got=$(sql results.db "SELECT count(*) FROM results WHERE frontend = 'noformat'")
check "no test of it has a result, so none is a crash ($got)" -- [ "$got" -eq 0 ]
got=$(sql results.db "SELECT count(*) FROM results WHERE frontend = 'ort' AND outcome = 'pass'")
check "the other frontend ran its tests ($got)" -- [ "$got" -ge 5 ]
expect_exit 0 "bugs" -- "$FERRY" bugs results.db
contains "no bug of it" "$out" "0 unique bugs"
expect_exit 0 "report" -- "$FERRY" report results.db
contains "report says it once, with its release" "$out" "frontend noformat (old "
contains "and the format and why" "$out" "): unavailable for onnx: AttributeError: module 'onnxruntime' has no attribute"

FERRY_TEST_OLD_RELEASE=1 expect_exit 3 "alone, an unavailable frontend is an environment error" -- \
	"$FERRY" run wrapped --frontend noformat:onnx -o results.db -q
expect_exit 0 "a newer release runs the tests" -- "$FERRY" run wrapped --frontend noformat:onnx -o results.db -q
got=$(sql results.db "SELECT count(*) FROM results WHERE frontend = 'noformat' AND outcome = 'pass'")
check "and they pass ($got)" -- [ "$got" -ge 5 ]
expect_exit 0 "report" -- "$FERRY" report results.db
case "$out" in *"unavailable for"*) ok 1 "no longer says it is unavailable" ;; *) ok 0 "no longer says it is unavailable" ;; esac
# openvino-export tells a release with no ExportedProgram path (OpenVINO 2023.0's own words) from a
# converter that read the model and failed (a bug to report).
if "$py" -c 'import openvino, torch' 2>/dev/null; then
	nopath=$(PYTHONPATH="$top_builddir/python" "$py" -c 'from ferry.oracle.adapters import openvino_export as a
print(a._no_exported_path(Exception("Unknown model type: <class '"'"'torch.export.exported_program.ExportedProgram'"'"'>")),
      a._no_exported_path(Exception("Check failed: FrontEnd API failed with OpConversionFailure: ExportedProgram")))')
	check "openvino-export: 2023.0's refusal is unavailability ($nopath)" -- [ "${nopath% *}" = "True" ]
	check "openvino-export: a failed conversion is not ($nopath)" -- [ "${nopath#* }" = "False" ]
else
	ok 0 "# SKIP openvino-export's test needs openvino and torch"
	ok 0 "# SKIP openvino-export's test needs openvino and torch"
fi

finish
