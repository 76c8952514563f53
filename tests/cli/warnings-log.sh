#!/bin/sh
# The libraries' warnings that reach ferry's own terminal (a Python warning in ferry's interpreter,
# TensorFlow's and absl's log lines and Python's warnings from a harvested test's libraries) go to
# warnings.log beside the output, counted in one line at the end, never over the progress line;
# the test's own output is still shown, marked test|. With the corpus on stdout, nothing is logged.
. "${top_srcdir:-$(dirname "$0")/../..}/tests/setup"
need_python_module torch
need_python_module pytest
data=$top_srcdir/tests/data/warnings
plan 12

mkdir out
expect_exit 0 "a harvest whose libraries warn" -- env WARNLOG_TEST_PARENT=1 PYTHONPATH="$data" \
	"$FERRY" harvest torch -q --pytest "$data/test_warns.py" -o out/corpus.jsonl
log=$(cat out/warnings.log 2>/dev/null || true)
contains "ferry's own interpreter's warning is in the log" "$log" "FutureWarning: a library's warning in ferry's own process"
contains "... and a harvested library's Python warning, with its source line" "$log" \
	"$(printf 'FutureWarning: old_api is deprecated\n  old_api()')"
contains "... and absl's log lines" "$log" "cudart_stub.cc:31] Could not find cuda drivers"
contains "... and a WARNING line" "$log" "WARNING: All log messages before absl::InitializeLog()"
check "none of them is on stderr" -- sh -c '! grep -q "Warning:\|cudart_stub\|^WARNING\|test| WARNING" "$1"' - "$work/.err"
contains "they are counted in one line at the end" "$(tail -n 1 "$work/.err")" \
	"ferry: 4 library warnings, see 'out/warnings.log'"
contains "the test's own output is still shown" "$err" "test| the test's own output"

expect_exit 0 "a harvest into stdout logs nothing" -- env PYTHONPATH="$data" \
	"$FERRY" harvest torch -q --pytest "$data/test_warns.py" -o -
contains "... and shows the lines as the test's, as before" "$err" "test| WARNING: All log messages"

# On a terminal (script(1) gives one) the progress line is not written over.
if command -v script >/dev/null 2>&1; then
	rm -f out/warnings.log
	script -qec "env WARNLOG_TEST_PARENT=1 PYTHONPATH='$data' '$FERRY' harvest torch --pytest '$data/test_warns.py' -o out/tty.jsonl" /dev/null > tty.txt 2>&1 || true
	check "on a terminal no warning comes between progress lines" -- sh -c '! grep -q "Warning:\|cudart_stub\|^WARNING" tty.txt'
	check "... and the count line ends it" -- grep -q "ferry: 4 library warnings, see 'out/warnings.log'" tty.txt
else
	ok 0 "# SKIP on a terminal no warning comes between progress lines: no script(1)"
	ok 0 "# SKIP ... and the count line ends it: no script(1)"
fi
finish
