#!/bin/sh
# ferry harvest runs third-party tests in a child process, in a scratch directory, in a read-only
# sandbox when bubblewrap is there. Hostile tests (tests/data/hostile-pytest) that exit, segfault,
# hang, write outside the scratch directory, wreck their working directory, print to fd 1 and write
# to ferry's channel must each cost one test: what every test recorded is kept, each misbehaving test
# is counted with its reason, the harvest goes on and exits 0. A harvest that cannot go on says so
# and exits non-zero, keeping CORPUS.partial; Ctrl-C exits 130 keeping it too.
. "${top_srcdir:-$(dirname "$0")/../..}/tests/setup"
need_python_module torch
need_python_module pytest
py=${FERRY_PYTHON:-$top_srcdir/.venv/bin/python}
hostile=$top_srcdir/tests/data/hostile-pytest
plan 35

# Scratch directories go here, so that the test can see that each one is removed.
mkdir tmp
TMPDIR=$work/tmp
HOSTILE_OUTSIDE=$work/outside
HOSTILE_STRAY=$work/stray-marker
export TMPDIR HOSTILE_OUTSIDE HOSTILE_STRAY
# A process left behind would outlive the test: find it by the marker on its command line.
strays() { for p in /proc/[0-9]*; do grep -qF "$HOSTILE_STRAY" "$p/cmdline" 2>/dev/null && echo "${p#/proc/}"; done; true; }
cleanup() { for p in $(strays); do kill -KILL "$p" 2>/dev/null || true; done; rm -rf "$work"; }

expect_exit 0 "a harvest of hostile tests completes and exits 0" -- \
	"$FERRY" harvest torch -q --timeout 5 --env HOSTILE_OUTSIDE --env HOSTILE_STRAY --pytest "$hostile" -o corpus.jsonl
summary=$out
sandboxed=yes
case "$err" in *"harvesting without a sandbox"*) sandboxed=no ;; esac
for op in add sub mul div maximum minimum abs neg exp sin sinh cos tan cosh; do
	check "torch.$op, recorded by its test, is in the corpus" -- grep -q "\"op\":\"torch.$op\"" corpus.jsonl
done
contains "os._exit(0) is one crashed test, with its reason" "$summary" \
	"exit status 0 during test 'test_hostile.py::test_add_then_exit'"
contains "SIGSEGV is one crashed test, with its reason" "$summary" \
	"killed by signal 11 (SIGSEGV) during test 'test_hostile.py::test_mul_then_segfault'"
contains "a hang is stopped at --timeout and is one crashed test" "$summary" \
	"timed out after 5 s during test 'test_hostile.py::test_maximum_then_hang'"
contains "writing to ferry's channel is one crashed test" "$summary" \
	"wrote to ferry's channel during test 'test_hostile.py::test_cos_then_write_channel'"
check "four crashed tests in all" -- sh -c 'printf "%s\n" "$1" | grep -Eq "^  tests crashed +4$"' _ "$summary"
check "the corpus is where -o said, whatever the tests did to their working directory" -- \
	test -s "$work/corpus.jsonl" -a ! -e "$work/corpus.jsonl.partial"
check "every scratch directory is removed" -- test -z "$(ls -A tmp)"
if [ $sandboxed = yes ]; then
	check "the write outside the scratch directory did not happen" -- test ! -e outside
else
	ok 0 "the write outside the scratch directory did not happen # SKIP bubblewrap cannot sandbox here"
fi

# Standard output is the corpus: what tests print must not land in it.
"$FERRY" harvest torch -q --pytest "$hostile/test_print.py" -o - >stdout.jsonl 2>stderr.txt || true
bad=$("$py" -c 'import json, sys
n = 0
for line in open(sys.argv[1]):
    try:
        n += "id" not in json.loads(line)
    except ValueError:
        n += 1
print(n)' stdout.jsonl)
check "with -o -, standard output holds records and nothing else ($bad other lines)" -- test "$bad" -eq 0
check "... both instances among them" -- test "$(wc -l < stdout.jsonl)" -eq 2
check "... and what the tests wrote to fd 1 went to stderr" -- grep -q "garbage on fd 1" stderr.txt

# A process that dies before its first test, every time: the harvest gives up and says so.
expect_exit 3 "a harvest whose process dies outside any test, twice running, exits 3" -- \
	"$FERRY" harvest torch -q --pytest "$hostile/exit_at_import.py" -o dead.jsonl
contains "... and says that it gave up" "$err" "giving up"
check "... keeping dead.jsonl.partial and making no dead.jsonl" -- test -e dead.jsonl.partial -a ! -e dead.jsonl

# Without bubblewrap: a warning, once, and the harvest still runs in a child and a scratch directory;
# a process that a test left in a session of its own is ended all the same.
FERRY_BWRAP=$work/no-such-bwrap expect_exit 0 "without bubblewrap the harvest still runs" -- \
	"$FERRY" harvest torch -q --env HOSTILE_STRAY --pytest "$hostile/test_print.py" --pytest "$hostile/test_stray.py" -o nobwrap.jsonl
contains "... and warns that it runs without a sandbox" "$err" \
	"ferry: warning: bubblewrap (Debian package bubblewrap) not found ('$work/no-such-bwrap'): harvesting without a sandbox"
left=$(strays)
check "... and no process a test left behind outlives the harvest (${left:-none})" -- test -z "$left"

# Ctrl-C: exit 130, and what was harvested stays in CORPUS.partial.
"$FERRY" harvest torch -q --timeout 600 --env HOSTILE_OUTSIDE --env HOSTILE_STRAY --pytest "$hostile/test_hostile.py" -o int.jsonl >/dev/null 2>&1 &
pid=$!
i=0
while ! grep -q '"op":"torch.maximum"' int.jsonl.partial 2>/dev/null && [ $i -lt 600 ]; do sleep 0.1; i=$((i + 1)); done
sleep 0.5
kill -INT $pid
set +e; wait $pid; got=$?; set -e
check "Ctrl-C during a hanging test exits 130 ($got)" -- test "$got" -eq 130
check "... keeping the instances harvested so far in CORPUS.partial" -- grep -q '"op":"torch.maximum"' int.jsonl.partial
check "... and leaving no scratch directory behind" -- test -z "$(ls -A tmp)"
finish
