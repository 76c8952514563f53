#!/bin/sh
# The canary (oracle/canary.h, doc/releases.md): before a frontend's tests, ferry runs trivial tests
# with known answers (Add of two 0-d floats, Range(0, 3, 1) on 0-d int64 inputs) through it. A fake
# frontend (tests/data/canary/adapter_zerod.py: ONNX Runtime reading 0-d inputs wrong, as OpenVINO
# 2023.0 does under numpy 2) gets one warning line naming it, its release, what it gave and what was
# expected, with the fix; its verdict goes to the store's environment table, never to the results; a
# right frontend passes quietly, and so does one that crashes on 0-d inputs (adapter_zerocrash.py:
# its own limitation, as TVM 0.25's on Range, an inconclusive verdict); the canary runs once per frontend and release (a second run takes
# the store's verdict, and says it again); tests without 0-d inputs are judged as before.
. "${top_srcdir:-$(dirname "$0")/../..}/tests/setup"
need_python_module onnxruntime
plan 20
py=${FERRY_PYTHON:-$top_srcdir/.venv/bin/python}
sql() { "$py" -c 'import sqlite3, sys; print("\n".join("|".join(map(str, r)) for r in sqlite3.connect(sys.argv[1]).execute(sys.argv[2])))' "$@"; }
FERRY_ADAPTERS=$top_srcdir/tests/data/canary
ZEROD_LOG=$work/zerod.log
export FERRY_ADAPTERS ZEROD_LOG
ort=$("$py" -c 'import onnxruntime; print(onnxruntime.__version__)')

"$FERRY" harvest onnx -q -f test_relu -f test_abs -o corpus.jsonl >/dev/null
"$FERRY" wrap corpus.jsonl -q -o wrapped >/dev/null
mkdir tmp
expect_exit 0 "a run of the fake frontend and of ort" -- env TMPDIR="$work/tmp" "$FERRY" run wrapped -F zerod,ort -q -o r.db
warnings=$(printf '%s\n' "$err" | grep -c 'canary' || true)
check "one warning line, for the fake frontend alone ($warnings)" -- [ "$warnings" -eq 1 ]
line=$(printf '%s\n' "$err" | grep 'canary' || true)
contains "it names the frontend and its release" "$line" "ferry: warning: frontend 'zerod' (release $ort) gave wrong answers to the canary:"
contains "what the canary gave, and what was expected" "$line" "Add(1.5, 2.25) gave [17.75], expected 3.75; Range(0, 3, 1) gave [7], expected [0, 1, 2]"
contains "and the fix" "$line" "run it under the numpy of its release's day (requirements/oldest*.txt, scripts/venv-release)"
check "the canary ran twice (its two tests) through the fake frontend ($(wc -l < "$ZEROD_LOG"))" -- [ "$(wc -l < "$ZEROD_LOG")" -eq 2 ]
rows=$(sql r.db "SELECT frontend, version, ok FROM environment ORDER BY frontend" | tr '\n' ' ')
check "the environment table: zerod wrong, ort right ($rows)" -- [ "$rows" = "ort|$ort|1 zerod|$ort|0 " ]
detail=$(sql r.db "SELECT detail FROM environment WHERE frontend = 'zerod'")
contains "the table says what it gave" "$detail" "Range(0, 3, 1) gave [7], expected [0, 1, 2]"
check "the canary leaves no result" -- [ "$(sql r.db "SELECT count(*) FROM results")" -eq 4 ]
check "and the tests without 0-d inputs pass" -- [ "$(sql r.db "SELECT count(*) FROM results WHERE outcome = 'pass'")" -eq 4 ]
check "nor its directory in TMPDIR ($(ls tmp | tr '\n' ' '))" -- [ -z "$(ls tmp | grep ferry-canary)" ]

# Once per frontend and release: a second run takes the store's verdict.
expect_exit 0 "the same run again, every test again" -- "$FERRY" run wrapped -F zerod,ort -q -o r.db --rerun all
check "the canary did not run again ($(wc -l < "$ZEROD_LOG"))" -- [ "$(wc -l < "$ZEROD_LOG")" -eq 2 ]
contains "the store's verdict is said again" "$err" "gave wrong answers to the canary: Add(1.5, 2.25) gave [17.75], expected 3.75; Range(0, 3, 1) gave [7], expected [0, 1, 2]; its environment is broken"
contains "as the store's" "$err" "(the store's canary of this release)"
check "still one row each" -- [ "$(sql r.db "SELECT count(*) FROM environment")" -eq 2 ]

# A crash of the canary is the frontend's own: said in the table, no warning, not broken.
expect_exit 0 "a frontend that crashes on 0-d inputs" -- "$FERRY" run wrapped -F zerocrash -q -o r.db
contains "no warning" "$(printf '%s\n' "$err" | grep -c 'canary' || true)" "0"
row=$(sql r.db "SELECT ok FROM environment WHERE frontend = 'zerocrash'")
check "an inconclusive verdict (ok NULL: $row)" -- [ "$row" = "None" ]
contains "the table says why" "$(sql r.db "SELECT detail FROM environment WHERE frontend = 'zerocrash'")" \
	"Range(0, 3, 1) ended in crash at execute (the frontend's own, inconclusive): 0-d inputs are not supported here"
finish
