#!/bin/sh
# ferry harvest --cpp against hostile C++ files: a macro bomb, #include "/dev/zero", and an include of
# a FIFO that no one writes. Each file is parsed in a child process with a memory and a time limit
# (--parse-memory, --parse-timeout): a bomb is skipped, named in a warning and in the summary with
# the limit it passed, and the good file beside it is harvested as if alone. The test bounds ferry
# itself (ulimit -v, timeout), since without the limits a bomb takes what memory it can get and the
# FIFO waits forever.
. "${top_srcdir:-$(dirname "$0")/../..}/tests/setup"
"$FERRY" --version 2>&1 | grep -q 'libclang' || skip_all "ferry was built without libclang"
data=$top_srcdir/tests/data/cpp
plan 16

# 2^41 tokens from 42 lines; a read of /dev/zero never ends; a FIFO without a writer blocks its reader.
cp "$data/ort/ops_test.cc" .
{
	echo '#define A0 x x'
	i=1
	while [ $i -le 40 ]; do echo "#define A$i A$((i - 1)) A$((i - 1))"; i=$((i + 1)); done
	echo 'int v[] = { A40 };'
} >bomb.cc
echo '#include "/dev/zero"' >zero.cc
mkfifo fifo
echo "#include \"$work/fifo\"" >fifo.cc
# At most 4 GiB of address space per process and 10 minutes in all: ferry's own limits are below
# both. AddressSanitizer's shadow memory cannot live under ulimit -v: there the timeout alone bounds
# the test, and ferry watches its children's resident memory instead.
bounded() {
	(
		[ -n "${ASAN_OPTIONS:-}" ] || ulimit -v 4194304
		exec timeout -s KILL 600 "$@"
	)
}

expect_exit 0 "the good file is harvested beside a macro bomb and #include \"/dev/zero\"" -- \
	bounded "$FERRY" harvest onnx --cpp ops_test.cc --cpp bomb.cc --cpp zero.cc --parse-memory 512M -q -o corpus.jsonl
check "... into exactly its records" -- cmp corpus.jsonl "$data/ort/expected.jsonl"
contains "the macro bomb is skipped, with the limit it passed" "$err" "ferry: warning: skipped 'bomb.cc': over the 512 MiB memory limit"
contains "so is #include \"/dev/zero\"" "$err" "ferry: warning: skipped 'zero.cc': over the 512 MiB memory limit"
contains "the summary counts the skipped files" "$out" "  skipped                             2"
contains "... and names each with its reason" "$out" "1  bomb.cc: over the 512 MiB memory limit"
contains "  ... both" "$out" "1  zero.cc: over the 512 MiB memory limit"
contains "their counts are left out with their records: one file parsed" "$out" "  files parsed                        1"

start=$(date +%s)
expect_exit 0 "an include that blocks forever is stopped by the time limit" -- \
	bounded "$FERRY" harvest onnx --cpp ops_test.cc --cpp fifo.cc --parse-timeout 10 -q -o fifo.jsonl
took=$(($(date +%s) - start))
contains "... skipped and named with it" "$err" "ferry: warning: skipped 'fifo.cc': over the 10 s time limit"
check "... in about that time (took ${took}s)" -- [ "$took" -lt 120 ]
check "... and the good file is harvested all the same" -- cmp fifo.jsonl "$data/ort/expected.jsonl"
# (the bracket keeps pgrep from finding this check's own command line)
check "no parse outlives the harvest" -- sh -c "! pgrep -f 'harvest-cpp-chil[d].*$work' >/dev/null"

# The default limit, without options: 2 GiB.
expect_exit 4 "a harvest whose only file is skipped has no instance" -- \
	bounded "$FERRY" harvest onnx --cpp zero.cc -q -o zero.jsonl
contains "... and says which file passed the default memory limit" "$err" \
	"ferry: warning: skipped 'zero.cc': over the 2 GiB memory limit"

expect_exit 2 "--parse-memory goes with --cpp" -- "$FERRY" harvest onnx --parse-memory 1G -o x.jsonl
finish
