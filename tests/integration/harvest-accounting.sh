#!/bin/sh
# What ferry harvest says of the calls it did not record, and why a harvest that yields nothing is
# empty: no test matched the --filter patterns, every call was dropped (by reason), the test file
# failed to import (with its error), or the tests made instances the patterns left out. And the
# OpInfo samples of tensordot, which pass out=None, are instances.
. "${top_srcdir:-$(dirname "$0")/../..}/tests/setup"
need_python_module torch
need_python_module pytest
data=$top_srcdir/tests/data/torch/accounting
plan 17

expect_exit 0 "tensordot's OpInfo samples (out=None) are harvested" -- "$FERRY" harvest torch -q -s opinfo \
	-f 'tensordot*' -o td.jsonl
n=$(wc -l < td.jsonl)
check "tensordot gave instances ($n)" -- [ "$n" -gt 0 ]

expect_exit 4 "a --filter that matches no OpInfo entry: no instance" -- "$FERRY" harvest torch -q -s opinfo \
	-f 'no_such_operator_anywhere*' -o none.jsonl
contains "... because no test matched the patterns" "$err" "no test matched the --filter patterns"
expect_exit 4 "a --filter of a word, as pytest's -k takes one: no instance" -- "$FERRY" harvest onnx -q -f relu \
	-o word.jsonl
contains "... and the error says what -f matches, and what takes a word" "$err" \
	"-f '*relu*' takes every name that holds 'relu' as written, and --op relu or --test relu a word in any case"

expect_exit 4 "tests that make only set-up calls: no instance" -- "$FERRY" harvest torch -q --no-sandbox \
	--pytest "$data/test_setup_only.py" -o setup.jsonl
contains "... because every call was dropped" "$err" "2 tests ran, but every call they made was dropped:"
contains "... by reason: construction" "$err" "set-up: tensor construction"
contains "... by reason: an out= tensor" "$err" "1 writes into an out= tensor"
contains "the summary counts the calls not recorded" "$out" "calls not recorded"
contains "the summary counts the calls not recorded by reason" "$out" "set-up: copy or detach"
contains "... and shape queries among them" "$out" "shape query"

expect_exit 4 "a test file that fails to import: no instance" -- "$FERRY" harvest torch -q --no-sandbox \
	--pytest "$data/test_broken_import.py" -o broken.jsonl
contains "... because it failed to import, with the error" "$err" \
	"1 test file failed to import (test_broken_import.py: ModuleNotFoundError: No module named 'ferry_no_such_module_for_the_test')"

expect_exit 4 "tests that made instances none of the patterns keep: no instance" -- "$FERRY" harvest torch -q \
	--no-sandbox --pytest "$top_srcdir/tests/data/torch/test_small.py" -f 'torch.no_such_op' -o small.jsonl
contains "... because the patterns left them out" "$err" "none of them matched by the --filter patterns"
finish
