#!/bin/sh
# ferry go end to end on a small real slice (ONNX node tests of three operators, on ONNX Runtime):
# every stage's output, a second run that skips every stage, --per-op and --limit, a run
# interrupted by SIGINT that the same command finishes, and --budget (whose chunks add up).
. "${top_srcdir:-$(dirname "$0")/../..}/tests/setup"
need_python_module onnx
need_python_module onnxruntime
plan 45
py=${FERRY_PYTHON:-$top_srcdir/.venv/bin/python}
sql() { "$py" -c 'import sqlite3, sys; print("\n".join("|".join(map(str, r)) for r in sqlite3.connect(sys.argv[1]).execute(sys.argv[2])))' "$@"; }
# Globs, each matching one name whole (the word Relu would take LeakyRelu and PRelu too).
ops='Rel[u],Ab[s],Con[v]'

expect_exit 0 "ferry go" -- "$FERRY" go onnx -F ort --op "$ops" -o proj -j 1 -q
d=proj/onnx
check "every stage wrote its output" -- test -s $d/corpus.jsonl -a -s $d/queue-onnxruntime-cpu.jsonl -a \
	-s $d/sample-onnxruntime-cpu.ids -a -s $d/wrapped/wrapped.jsonl -a -s $d/results.db -a -s $d/bugs.txt \
	-a -s $d/report.txt
contains "the harvest took the operators asked for" "$out" "not --op/--test"
contains "and ends with the bug list" "$out" "bugs -> proj/onnx/bugs.txt:"
sample=$(wc -l < $d/sample-onnxruntime-cpu.ids)
cp $d/corpus.jsonl $d/corpus.jsonl.args .  # for the runs below, which start from this harvest
results=$(sql $d/results.db "SELECT count(*) FROM results WHERE frontend = 'ort'")
check "every test of the sample has its result ($results of $sample)" -- [ "$results" -eq "$sample" -a "$sample" -gt 0 ]
check "the sample holds those operators only" -- [ "$(sed 's/.*"op":"\([^"]*\)".*/\1/' $d/corpus.jsonl | sort -u | \
	tr '\n' ,)" = "Abs,Conv,Relu," ]

# --collect-only lists what the selection takes of the harvest, and wraps and runs nothing.
expect_exit 0 "go --collect-only" -- "$FERRY" go onnx --op "$ops" --test relu -o coll --collect-only -q
contains "it lists the selected instance" "$out" "  Relu  test_relu  node"
contains "and says how many, and that nothing ran" "$out" "1 instance of onnx selected; nothing wrapped or run"
check "nothing was wrapped or run" -- test ! -e coll/onnx/wrapped -a ! -e coll/onnx/results.db
expect_exit 4 "an empty selection is exit 4, as in run" -- \
	"$FERRY" go onnx --op "$ops" --test nosuchtest -o coll --collect-only -q

expect_exit 0 "the same command again" -- "$FERRY" go onnx -F ort --op "$ops" -o proj -j 1 -q
contains "skips the harvest" "$out" "harvest onnx: current"
contains "skips the rank" "$out" "current ('proj/onnx/queue-onnxruntime-cpu.jsonl'), skipped"
contains "skips the wrap" "$out" "wrap: current"
contains "runs nothing" "$out" "run: nothing left to run"
contains "skips bugs and report" "$out" "bugs, report: current"
after=$(sql $d/results.db "SELECT count(*) FROM results")
check "and adds no result" -- [ "$after" -eq "$results" ]

# --per-op K spreads the sample across operators; --limit bounds it; the corpus is reused.
expect_exit 0 "--per-op 1" -- "$FERRY" go onnx -F ort --op "$ops" --per-op 1 -o proj -j 1 -q
contains "takes one test per operator" "$out" "sample: 3 of the"
expect_exit 0 "another --op" -- "$FERRY" go onnx -F ort --op 'Rel[u]' -n 1 -o proj -j 1 -q
contains "harvests again" "$out" "harvest onnx -> proj/onnx/corpus.jsonl"
check "ranks only Relu" -- [ "$(sed 's/.*"op":"\([^"]*\)".*/\1/' $d/queue-onnxruntime-cpu.jsonl | sort -u)" = Relu ]
contains "and takes the top one" "$out" "sample: 1 of the"

expect_exit 2 "an unknown library is a usage error" -- "$FERRY" go nosuch -F ort -o proj
expect_exit 2 "a frontend of a library not named is a usage error" -- "$FERRY" go torch -F ort -o proj
contains "and says which" "$err" "frontend 'ort' takes onnx models"

# Ctrl-C in the middle of the run keeps what is done, and the same command finishes it. The adapter
# is ONNX Runtime behind a slow compile (tests/data/broken-adapter), so that the run is caught midway.
FERRY_ADAPTERS=$top_srcdir/tests/data/broken-adapter
export FERRY_ADAPTERS
mkdir -p int/onnx
cp corpus.jsonl corpus.jsonl.args int/onnx/
BROKEN_SLEEP=0.5 "$FERRY" go onnx -F broken --op "$ops" -o int -j 1 -q >int.out 2>int.err &
pid=$!
n=0
while kill -0 $pid 2>/dev/null; do  # results, not a time: however busy the machine
	n=$(sql int/onnx/results.db "SELECT count(*) FROM results" 2>/dev/null || echo 0)
	case $n in '' | *[!0-9]*) n=0 ;; esac
	[ "$n" -ge 2 ] && break
	sleep 0.1
done
kill -INT $pid
set +e; wait $pid; rc=$?; set -e
check "Ctrl-C exits 130 (got $rc)" -- test "$rc" -eq 130
contains "and says how to go on" "$(cat int.err)" "run the same command to go on"
kept=$(sql int/onnx/results.db "SELECT count(*) FROM results")
check "the results so far are kept ($kept)" -- test "$kept" -ge 2 -a "$kept" -lt "$sample"
expect_exit 0 "the same command goes on" -- "$FERRY" go onnx -F broken --op "$ops" -o int -j 1 -q
contains "from the wrap it finished" "$out" "wrap: current"
total=$(sql int/onnx/results.db "SELECT count(*), count(DISTINCT id) FROM results WHERE frontend = 'broken'")
check "and runs each test once in all ($total)" -- test "$total" = "$sample|$sample"

# --budget: no test starts once the time is spent; what is left is said to be left.
mkdir -p bud/onnx
cp corpus.jsonl corpus.jsonl.args bud/onnx/
"$FERRY" wrap bud/onnx/corpus.jsonl -o bud/onnx/wrapped -j 1 -q >/dev/null  # the budget is the run's
expect_exit 0 "--budget" -- env BROKEN_SLEEP=1 "$FERRY" go onnx -F broken --op "$ops" --budget 3 -o bud -j 1 -q
ran=$(sql bud/onnx/results.db "SELECT count(*) FROM results WHERE frontend = 'broken'")
# How many start within 3 s depends on the machine's load (on a busy one, none): what is checked is
# that the budget stops the run short of the sample and the account adds up.
check "runs less than the sample ($ran of $sample)" -- test "$ran" -lt "$sample"
contains "and says what is left" "$out" "left for later"
last=$(printf '%s\n' "$out" | grep '^go: done' | tail -n 1)  # the account; the page's line follows it
n=$(printf '%s\n' "$last" | sed -n 's/^go: done in [0-9]*s; \([0-9]*\) ran now.*/\1/p')
left=$(printf '%s\n' "$last" | sed -n 's/.*; \([0-9]*\) left for later$/\1/p')
check "and ends with what ran and what is left of the whole sample ($last)" -- \
	test "$n" = "$ran" -a "$((n + ${left:-0}))" -eq "$sample"

# With a budget that lasts, the sample runs in chunks that double (8, 16, ... with -j 1), each chunk
# with its line; the command ends with the whole run's account, not the last chunk's.
mkdir -p all/onnx
cp corpus.jsonl corpus.jsonl.args all/onnx/
expect_exit 0 "--budget that lasts" -- "$FERRY" go onnx -F ort --op "$ops" --budget 3600 -o all -j 1 -q
ran=$(sql all/onnx/results.db "SELECT count(*) FROM results WHERE frontend = 'ort'")
chunks=$(printf '%s\n' "$out" | grep -c '^run ort: ')
check "runs the whole sample ($ran of $sample) in chunks ($chunks)" -- test "$ran" -eq "$sample" -a "$chunks" -ge 2
contains "says what the chunks added up to" "$out" "run ort in all: $ran ran now in $chunks chunks, $ran pass"
last=$(printf '%s\n' "$out" | grep 'ran now' | tail -n 1)
n=$(printf '%s\n' "$last" | sed -n 's/^go: done in [0-9]*s; \([0-9]*\) ran now.*/\1/p')
check "and the last count is the whole run's ($last)" -- test "$n" = "$ran"

# -x (--maxfail 1): the first failure stops go, which exits 5 (not 0, as pytest -x does not) and says
# that the rest was not run.
mkdir -p xf/onnx
cp corpus.jsonl corpus.jsonl.args xf/onnx/
touch broken-flag
expect_exit 5 "go -x stops at the first failure" -- env BROKEN_FLAG="$work/broken-flag" \
	"$FERRY" go onnx -F broken --op "$ops" -x -o xf -j 1 -q
contains "and says so" "$err" "(--maxfail 1): the rest was not run"

# The page's directory of a project an older ferry wrote (no marker) is go's own: emptied, then
# written, with the marker from then on.
h=proj/onnx/html
rm -f $h/.ferry-output $h/index.html
touch $h/stale-from-an-older-ferry.html
expect_exit 0 "go writes the page into its own directory without a marker" -- \
	"$FERRY" go onnx -F ort --op "$ops" -o proj -j 1 -q
check "what was there is gone, the page and the marker are written" -- \
	test ! -e $h/stale-from-an-older-ferry.html -a -s $h/index.html -a -s $h/.ferry-output
finish
