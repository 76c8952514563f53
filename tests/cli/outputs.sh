#!/bin/sh
# Output files (doc/ferry.1, OUTPUT FILES): a regular file is replaced through a temporary file; a
# device, a FIFO or standard output is written in place, never replaced by a regular file (as root,
# "-o /dev/null" used to turn /dev/null itself into one); a symbolic link is followed and stays a
# link; a store must be a regular file. Each command that takes an output file is tried on each.
# A private character device (mknod, as root) stands in for /dev/null; /dev/null itself is written
# only at the end, and checked to be a device still.
. "${top_srcdir:-$(dirname "$0")/../..}/tests/setup"
need_python_module onnx
need_python_module onnxruntime
py=${FERRY_PYTHON:-$top_srcdir/.venv/bin/python}
plan 49

"$FERRY" harvest onnx -q -o corpus.jsonl -f test_relu -f test_ceil -f test_add >/dev/null
"$FERRY" wrap corpus.jsonl -o wrapped -q >/dev/null
# The fault adapter answers Ceil wrong and crashes on Relu: failures for a baseline.
export FERRY_ADAPTERS="$top_srcdir/tests/data/adapters"
"$FERRY" run wrapped -F fault:onnx -o results.db -q --timeout 20 >/dev/null
"$FERRY" rank corpus.jsonl -o queue.jsonl -q
id=$(sed -n 's/.*"id":"\([0-9a-f]*\)".*/\1/p' queue.jsonl | head -1)
printf 'test_id,bug_id\n%s,bug-1\n' "$id" > bugs.csv
data=$top_srcdir/tests/data/rank

# The commands, each writing to the path in $1.
cmd_harvest() { "$FERRY" harvest onnx -q -f test_relu -o "$1"; }
cmd_rank() { "$FERRY" rank corpus.jsonl -q -o "$1"; }
cmd_count_tests() { "$FERRY" count-tests --library onnx "$data/frontend_test.py" -o "$1"; }
cmd_baseline() { "$FERRY" baseline results.db -o "$1"; }
cmd_junit() { "$FERRY" check wrapped -F fault:onnx -o results.db -q --timeout 20 --junit "$1"; }
cmd_curve() { "$FERRY" apfd --bugs bugs.csv queue.jsonl --curve "$1"; }
# check exits 1 on its new failures: that is its verdict, not a failure to write.
want_exit() { if [ "$1" = junit ]; then echo 1; else echo 0; fi; }

if mknod null c 1 3 2>/dev/null; then have_dev=1; else have_dev=0; fi
for c in harvest rank count_tests baseline junit curve; do
	want=$(want_exit $c)
	# A character device.
	if [ $have_dev = 1 ]; then
		expect_exit "$want" "$c -o a device" -- "cmd_$c" null
		check "$c leaves the device a device" -- [ -c null ]
	else
		ok 0 "# SKIP $c -o a device: mknod needs root"
		ok 0 "# SKIP $c leaves the device a device"
	fi
	# A FIFO, read by cat.
	rm -f fifo fifo.out
	mkfifo fifo
	cat fifo > fifo.out &
	reader=$!
	expect_exit "$want" "$c -o a FIFO" -- "cmd_$c" fifo
	n=0
	while kill -0 $reader 2>/dev/null && [ $n -lt 50 ]; do sleep 0.1; n=$((n + 1)); done
	kill $reader 2>/dev/null || true
	wait $reader 2>/dev/null || true
	check "$c wrote through the FIFO, which is still one" -- test -p fifo -a -s fifo.out
	# A symbolic link to a regular file: the file is replaced, the link stays.
	rm -f target link
	echo old > target
	ln -s target link
	expect_exit "$want" "$c -o a symbolic link" -- "cmd_$c" link
	check "$c replaced the link's target and kept the link" -- test -L link -a -s target -a "$(cat target)" != old
done

# Standard output: '-' and /dev/stdout (a pipe here) are written in place.
"$FERRY" rank corpus.jsonl -q -o /dev/stdout > stdout.jsonl
check "rank -o /dev/stdout writes the queue to the file stdout is" -- cmp -s stdout.jsonl queue.jsonl
"$FERRY" rank corpus.jsonl -q -o /dev/stdout | cat > piped.jsonl
check "and into a pipe" -- cmp -s piped.jsonl queue.jsonl
check "no temporary file is left beside the outputs" -- [ -z "$(ls | grep '\.tmp')" ]

# A store must be a regular file: run and merge refuse anything else, before running anything.
expect_exit 4 "run -o a FIFO is refused" -- "$FERRY" run wrapped -F ort -o fifo -q
contains "with a clear error" "$err" "'fifo' is a FIFO: a results store must be a regular file"
if [ $have_dev = 1 ]; then
	expect_exit 4 "run -o a device is refused" -- "$FERRY" run wrapped -F ort -o null -q
else
	ok 0 "# SKIP run -o a device: mknod needs root"
fi
expect_exit 4 "merge -o a FIFO is refused" -- "$FERRY" merge -o fifo results.db
mkdir adir
expect_exit 4 "an output that is a directory is bad input" -- "$FERRY" rank corpus.jsonl -q -o adir

# /dev/null itself, now that the rule is proven on a private device.
expect_exit 0 "rank -o /dev/null" -- "$FERRY" rank corpus.jsonl -q -o /dev/null
expect_exit 0 "baseline -o /dev/null" -- "$FERRY" baseline results.db -o /dev/null
expect_exit 4 "run -o /dev/null is refused" -- "$FERRY" run wrapped -F ort -o /dev/null -q
check "/dev/null is still a character device" -- [ -c /dev/null ]
check "and no journal was left beside it" -- [ ! -e /dev/null-journal -a ! -e /dev/null-wal ]
finish
