#!/bin/sh
# The canary for real (oracle/canary.h, doc/releases.md): OpenVINO 2023.0 under numpy 2 reads 0-d
# inputs as garbage, and under the numpy of its day (1.26) it does not. The two virtualenvs are this
# machine's (FERRY_TEST_VENV_OLD, numpy 2; FERRY_TEST_VENV_NP1, numpy 1.26; both with OpenVINO
# 2023.0, made by scripts/venv-release): without them the test is skipped. Asserted: the numpy 2 one
# gets one warning naming the release, what the canary gave and what was expected, and a failed row
# in the environment table; the numpy 1.26 one passes quietly, in a store of its own and in the same
# store (another interpreter is checked anew, and its verdict is then the newest).
. "${top_srcdir:-$(dirname "$0")/../..}/tests/setup"
need_python_module onnx
old=${FERRY_TEST_VENV_OLD:-/work/venv-old}/bin/python
np1=${FERRY_TEST_VENV_NP1:-/work/venv-np1}/bin/python
py=${FERRY_PYTHON:-$top_srcdir/.venv/bin/python}
for v in "$old" "$np1"; do
	[ -x "$v" ] || skip_all "no virtualenv of an old OpenVINO at $v (this machine's; set FERRY_TEST_VENV_OLD and FERRY_TEST_VENV_NP1)"
	"$v" -c 'import openvino' 2>/dev/null || skip_all "$v has no OpenVINO"
done
"$old" -c 'import numpy, sys; sys.exit(int(numpy.__version__.split(".")[0]) < 2)' || skip_all "$old has no numpy 2"
"$np1" -c 'import numpy, sys; sys.exit(int(numpy.__version__.split(".")[0]) >= 2)' || skip_all "$np1 has numpy 2"
plan 12
sql() { "$py" -c 'import sqlite3, sys; print("\n".join("|".join(map(str, r)) for r in sqlite3.connect(sys.argv[1]).execute(sys.argv[2])))' "$@"; }
release=$("$old" -c 'import openvino.runtime as ov; print(ov.get_version().split("-")[0])')

"$FERRY" harvest onnx -q -f test_relu -o corpus.jsonl >/dev/null
"$FERRY" wrap corpus.jsonl -q -o wrapped >/dev/null
expect_exit 0 "a run under numpy 2" -- "$FERRY" run wrapped -F "openvino-onnx@$old" -q -o old.db
line=$(printf '%s\n' "$err" | grep 'canary' || true)
check "one warning line" -- [ "$(printf '%s\n' "$line" | grep -c .)" -eq 1 ]
contains "naming the frontend and its release" "$line" "ferry: warning: frontend 'openvino-onnx@$release' (release $release"
contains "what Range gave and what was expected" "$line" "Range(0, 3, 1) gave ["
contains "... expected" "$line" "], expected [0, 1, 2]"
row=$(sql old.db "SELECT frontend, python, ok FROM environment")
check "a failed canary in the store ($row)" -- [ "$row" = "openvino-onnx@$release|$old|0" ]

expect_exit 0 "a run under numpy 1.26" -- "$FERRY" run wrapped -F "openvino-onnx@$np1" -q -o np1.db
contains "no warning" "$(printf '%s\n' "$err" | grep -c 'canary' || true)" "0"
row=$(sql np1.db "SELECT frontend, python, ok FROM environment")
check "a passed canary in the store ($row)" -- [ "$row" = "openvino-onnx@$release|$np1|1" ]

# The same label (the same release) in the same store, under the right interpreter: checked anew.
expect_exit 0 "numpy 1.26 again, into the store of the numpy 2 run" -- \
	"$FERRY" run wrapped -F "openvino-onnx@$np1" -q -o old.db --rerun all
contains "no warning" "$(printf '%s\n' "$err" | grep -c 'canary' || true)" "0"
newest=$(sql old.db "SELECT python, ok FROM environment ORDER BY rowid DESC LIMIT 1")
check "its verdict is the newest ($newest)" -- [ "$newest" = "$np1|1" ]
finish
