#!/bin/sh
# A short libFuzzer run of the corpus reader (tests/fuzz/fuzz-record.c) from its seed corpus: no
# crash, no sanitizer report, no leak, and every accepted record keeps its bytes and id through a
# write and a read. "make fuzz" runs longer. FERRY_FUZZ_SECONDS overrides the length.
. "${top_srcdir:-$(dirname "$0")/../..}/tests/setup"
fuzzer=$top_builddir/tests/fuzz/fuzz-record
[ -n "${FUZZ_CC:-}" ] && [ -x "$fuzzer" ] || skip_all "clang with libFuzzer not found"
plan 3

seconds=${FERRY_FUZZ_SECONDS:-20}
mkdir found
# The seeds are read, never written: new inputs go to ./found, in this test's work directory. A
# sanitizer build of ferry sets ASAN_OPTIONS etc. for CPython; the harness loads no Python and
# needs none of that, so it runs with libFuzzer's own defaults (leak detection on).
set +e
env -u ASAN_OPTIONS -u LSAN_OPTIONS -u UBSAN_OPTIONS "$fuzzer" -max_total_time="$seconds" \
	-dict="$top_srcdir/tests/fuzz/record.dict" -artifact_prefix="$work/found/" -print_final_stats=1 \
	found "$top_srcdir/tests/fuzz/corpus-record" >fuzz.log 2>&1
status=$?
set -e
ok $status "libFuzzer ran ${seconds}s without a finding (exit $status)"
if [ $status -ne 0 ]; then
	grep -a -E 'ERROR|SUMMARY|fuzz-record:|^  first:|^  second:|#[0-9]+ in ' fuzz.log | head -30 | sed 's/^/#   /'
	# Keep the input that failed, since the work directory goes: rerun it with the fuzzer.
	for f in found/crash-* found/leak-* found/timeout-* found/oom-*; do
		[ -f "$f" ] || continue
		mkdir -p "$top_builddir/tests/fuzz/found"
		cp "$f" "$top_builddir/tests/fuzz/found/"
		echo "#   input kept: $top_builddir/tests/fuzz/found/${f#found/} (run: $fuzzer FILE)"
	done
fi
runs=$(sed -n 's/^stat::number_of_executed_units: *//p' fuzz.log)
check "it executed inputs (${runs:-none})" -- [ "${runs:-0}" -gt 0 ]
seeds=$(ls "$top_srcdir/tests/fuzz/corpus-record" | wc -l)
check "the seed corpus is there ($seeds files)" -- [ "$seeds" -ge 20 ]
finish
