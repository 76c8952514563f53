#!/bin/sh
# Two releases of one frontend in one run (doc/releases.md): the test makes a
# small second virtualenv from the Python of .venv, which sees .venv's packages through a .pth file
# and holds another ONNX Runtime of its own (its site-packages come first), and runs
# -F ort,ort@ITS_PYTHON on a slice of ONNX's node tests. Asserted: two labels in the store, each
# result's release, the run summary, the report's releases table (against the stored outcomes), the
# label in bugs, show and report -F, a resumed run, and a release whose package is missing reported
# unavailable once. The virtualenv is kept under the build directory, with a stamp, so that the
# next run reuses it; without PyPI the test is skipped.
. "${top_srcdir:-$(dirname "$0")/../..}/tests/setup"
need_python_module onnx
need_python_module onnxruntime
py=${FERRY_PYTHON:-$top_srcdir/.venv/bin/python}
old_ort=1.22.0
plan 31
sql() { "$py" -c 'import sqlite3, sys; print("\n".join("|".join(map(str, r)) for r in sqlite3.connect(sys.argv[1]).execute(sys.argv[2])))' "$@"; }

venv=$(cd "$top_builddir" && pwd)/tests/venv-ort-$old_ort
if [ "$(cat "$venv/ferry-stamp" 2>/dev/null)" != "onnxruntime==$old_ort" ]; then
	rm -rf "$venv"
	base=$("$py" -c 'import sys; print(sys._base_executable)')
	"$base" -m venv --without-pip "$venv" || skip_all "cannot make a virtualenv with $base"
	site=$("$venv/bin/python" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')
	"$py" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])' > "$site/ferry-base.pth"
	if ! "$py" -m pip install -q --no-deps --disable-pip-version-check --target "$site" \
		"onnxruntime==$old_ort" >pip.log 2>&1; then
		rm -rf "$venv"
		skip_all "pip cannot install onnxruntime==$old_ort from PyPI ($(tail -1 pip.log))"
	fi
	echo "onnxruntime==$old_ort" > "$venv/ferry-stamp"
fi
new_ort=$("$py" -c 'import onnxruntime; print(onnxruntime.__version__)')
got=$("$venv/bin/python" -c 'import onnxruntime; print(onnxruntime.__version__)')
check "the small virtualenv has its own ONNX Runtime ($got), not .venv's ($new_ort)" -- [ "$got" = "$old_ort" ]

# test_affine_grid_2d_expanded: ORT 1.22 rejects the Split inside one of its If nodes (num_outputs).
"$FERRY" harvest onnx -q -o corpus.jsonl -f 'test_affine_grid_2d_expanded' -f 'test_relu' -f 'test_adagrad' \
	-f 'test_split_equal_parts_1d_opset18' >/dev/null 2>&1
"$FERRY" wrap corpus.jsonl -o wrapped -q >/dev/null 2>&1
check "a small wrapped set" -- test -s wrapped/wrapped.jsonl

expect_exit 0 "one run of both releases" -- "$FERRY" run wrapped -F "ort,ort@$venv/bin/python" -o r.db -j 2 -q
contains "the summary names the current one with its version" "$out" "run ort ($new_ort):"
contains "and the other by its label" "$out" "run ort@$old_ort:"
labels=$(sql r.db "SELECT DISTINCT frontend FROM results ORDER BY 1" | tr '\n' ' ')
check "two labels in the store ($labels)" -- [ "$labels" = "ort ort@$old_ort " ]
n=$(sql r.db "SELECT count(*) FROM results WHERE frontend = 'ort'")
check "a result per test for each ($n)" -- [ "$n" -gt 10 -a "$(sql r.db "SELECT count(*) FROM results WHERE frontend = 'ort@$old_ort'")" -eq "$n" ]
check "each result of ort says $new_ort" -- \
	[ "$(sql r.db "SELECT count(*) FROM results WHERE frontend = 'ort' AND frontend_version = '$new_ort'")" -eq "$n" ]
check "each result of ort@$old_ort says $old_ort" -- \
	[ "$(sql r.db "SELECT count(*) FROM results WHERE frontend = 'ort@$old_ort' AND frontend_version = '$old_ort'")" -eq "$n" ]
ran=$(printf '%s\n' "$out" | sed -n "/^run ort@$old_ort:/,\$p" | awk '/ran now/ {print $3; exit}')
check "the summary's count is the store's ($ran)" -- [ "$ran" = "$n" ]

# The releases table, against the outcomes stored (the frontend's failures: ferry's errors are neither).
fail="('mismatch','crash','timeout','oom')"
pair() { sql r.db "SELECT count(*) FROM results o JOIN results n USING(id) WHERE o.frontend = 'ort@$old_ort' AND n.frontend = 'ort' AND $1"; }
fixed=$(pair "o.outcome IN $fail AND n.outcome = 'pass'")
new=$(pair "o.outcome = 'pass' AND n.outcome IN $fail")
still=$(pair "o.outcome IN $fail AND n.outcome IN $fail")
expect_exit 0 "report" -- "$FERRY" report r.db
contains "a releases table, older against newer" "$out" "ort@$old_ort -> ort: $n tests both ran"
row() { printf '%s\n' "$out" | grep "^    $1 " | head -1 | sed 's/  */ /g'; }
contains "fixed since: $fixed, as stored" "$(row 'fixed since')" "fixed since $fixed tests"
contains "new in: $new, as stored" "$(row 'new in')" "new in $new tests"
contains "still failing: $still, as stored" "$(row 'still failing')" "still failing $still tests"
check "the affine grid's If is among the fixed ($fixed)" -- [ "$fixed" -ge 1 ]
contains "the bug behind it by its decisive line" "$out" "crash If: Invalid num_outputs value"
# A test that was ferry's own error under one release tells nothing of it: left out, counted apart.
cp r.db e.db
fixed_id=$(sql r.db "SELECT id FROM results o JOIN results n USING(id) WHERE o.frontend = 'ort@$old_ort'
	AND n.frontend = 'ort' AND o.outcome IN $fail AND n.outcome = 'pass' LIMIT 1")
"$py" -c 'import sqlite3, sys; c = sqlite3.connect(sys.argv[1]); c.execute("UPDATE results SET outcome = '"'error'"' WHERE id = ? AND frontend = ?", sys.argv[2:]); c.commit()' \
	e.db "$fixed_id" "ort@$old_ort"
expect_exit 0 "report of a store where one fixed test was ferry's error" -- "$FERRY" report e.db
contains "it is left out" "$out" "ort@$old_ort -> ort: $n tests both ran, 1 left out (ferry's own error in either)"
contains "and not counted as fixed" "$(row 'fixed since')" "fixed since $((fixed - 1)) tests"

expect_exit 0 "bugs -F takes the label" -- "$FERRY" bugs r.db -F "ort@$old_ort"
bug=$(printf '%s\n' "$out" | awk '$2 == "ort@'$old_ort'" && $3 == "crash" {print $1; exit}')
expect_exit 0 "show prints the bug ($bug)" -- "$FERRY" show r.db "$bug"
contains "with the release that gave it" "$out" "release: $old_ort"
contains "and a reproducer of the adapter's name" "$out" "FRONTEND = 'ort'"
expect_exit 0 "report -F takes the label" -- "$FERRY" report r.db -F "ort@$old_ort"
contains "and keeps its adapter's releases table" "$out" "ort@$old_ort -> ort:"

printf 'ort\nort@%s   # the older one\n' "$venv/bin/python" > releases.txt
expect_exit 0 "a frontends file runs the same releases again" -- "$FERRY" run wrapped --frontends releases.txt -o r.db -q
contains "and resumes: the label is the same" "$out" "run ort@$old_ort:
  ran now              0"

# A virtualenv without ORT (nor numpy): that release cannot start, which is no crash of any test.
"$("$py" -c 'import sys; print(sys._base_executable)')" -m venv --without-pip bare
expect_exit 0 "a release whose package is missing" -- "$FERRY" run wrapped -F "ort,ort@$work/bare/bin/python" -o r2.db -q
contains "is reported unavailable" "$out" "run ort@$work/bare/bin/python: unavailable:"
check "once, with nothing stored under it" -- [ "$(sql r2.db "SELECT count(*) FROM results WHERE frontend LIKE 'ort@%'")" -eq 0 ]
finish
