#!/bin/sh
# An OpInfo entry whose third sample hangs (tests/data/torch/slow, harvested through
# FERRY_TORCH_OPINFO): the hang costs that sample only. The next harvest process runs the entry again
# from the sample after it, so the samples after it are in the corpus; the summary counts the sample
# lost, by test; the warning names the option that gives tests more time (ferry go's too).
. "${top_srcdir:-$(dirname "$0")/../..}/tests/setup"
need_python_module torch
plan 13
PYTHONPATH=$top_srcdir/tests/data/torch/slow
FERRY_TORCH_OPINFO=slow_opinfo
SLOW_SAMPLE_SECONDS=600
export PYTHONPATH FERRY_TORCH_OPINFO SLOW_SAMPLE_SECONDS
shapes() { sed -n 's/.*"inputs":\[{"tensor":{"dtype":"float32","shape":\[\([0-9]*\)\].*/\1/p' "$1" | sort -n | tr '\n' ' '; }

expect_exit 0 "a harvest with a sample that hangs completes" -- "$FERRY" harvest torch -q -s opinfo -f 'slow_add*' \
	--timeout 10 --env SLOW_SAMPLE_SECONDS -o corpus.jsonl
got=$(shapes corpus.jsonl)
check "every sample but the one that hung is in the corpus (shapes: $got)" -- test "$got" = "1 2 4 5 6 "
contains "the hang is one crashed test, with its sample" "$out" \
	"timed out after 10 s during test 'slow_add', sample 2 ('slow_add:float32:2')"
check "what it cost: one sample" -- sh -c 'printf "%s\n" "$1" | grep -Eq "^  lost to them +1 sample, 0 tests whole$"' _ "$out"
check "... of slow_add" -- sh -c 'printf "%s\n" "$1" | grep -Eq "^ +1  slow_add \(sample\)$"' _ "$out"
check "every sample that finished is read, in either process ($(echo "$out" | grep 'tests read'))" -- \
	sh -c 'printf "%s\n" "$1" | grep -Eq "^  tests read +5$"' _ "$out"
contains "the warning says the harvest goes on from the next sample" "$err" "going on from the next sample"
contains "... and how to give tests more time" "$err" "--timeout SECS gives each test more than 10 s"

# A sample that is slow, not hung: more time gives it all.
SLOW_SAMPLE_SECONDS=1 expect_exit 0 "with time enough, every sample" -- "$FERRY" harvest torch -q -s opinfo \
	-f 'slow_add*' --timeout 60 --env SLOW_SAMPLE_SECONDS -o all.jsonl
got=$(shapes all.jsonl)
check "... in the corpus (shapes: $got)" -- test "$got" = "1 2 3 4 5 6 "

# ferry go harvests the same way, and names its own option (-t is its run's). Inductor compiles C++.
if command -v c++ >/dev/null 2>&1 || command -v g++ >/dev/null 2>&1; then
	expect_exit 0 "ferry go with a sample that hangs" -- "$FERRY" go torch -F inductor -s opinfo \
		--test 'slow_add*' --harvest-timeout 10 -o proj -j 1 -q --no-triggers
	got=$(shapes proj/torch/corpus.jsonl)
	check "goes on from the next sample (shapes: $got)" -- test "$got" = "1 2 4 5 6 "
	contains "... and says how to give the harvest's tests more time" "$err" \
		"--harvest-timeout SECS gives each test more"
else
	for i in 1 2 3; do ok 0 "ferry go with a sample that hangs # SKIP no C++ compiler for inductor"; done
fi
finish
