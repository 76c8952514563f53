#!/bin/sh
# Selection, the same in every stage: --op and --test on harvest, wrap, rank and run; -n as the top N
# of the queue, also when the same command runs again; queues of plain ids, with ids that are not
# wrapped counted in one line; --rerun after an adapter is fixed; --maxfail.
. "${top_srcdir:-$(dirname "$0")/../..}/tests/setup"
need_python_module onnx
need_python_module onnxruntime
plan 49

# harvest: --op takes the whole operator name (or its last dotted part), --test the source test. (A
# glob matches the whole name: 'Rel[u]' takes Relu alone, where the word Relu takes LeakyRelu too.)
expect_exit 0 "harvest --op" -- "$FERRY" harvest onnx --op 'Rel[u],Abs' -o corpus.jsonl -q
ops=$(sed 's/.*"op":"\([^"]*\)".*/\1/' corpus.jsonl | sort -u | tr '\n' ' ')
check "only the operators asked for ($ops)" -- [ "$ops" = "Abs Relu " ]
contains "the summary counts what was left out" "$out" "not --op/--test"
expect_exit 0 "harvest --test" -- "$FERRY" harvest onnx --test 'test_relu*' -o relu.jsonl -q
tests=$(sed 's/.*"test":"\([^"]*\)".*/\1/' relu.jsonl | sort -u | tr '\n' ' ')
check "only the tests asked for ($tests)" -- [ "$tests" = "test_relu test_relu_expanded_ver18 " ]
expect_exit 4 "a selection that matches nothing says so" -- "$FERRY" harvest onnx --op NoSuchOp -o none.jsonl -q
contains "and names why" "$err" "--op/--test left out"
nrelu=$(grep -c '"op":"Relu"' corpus.jsonl)
nabs=$(grep -c '"op":"Abs"' corpus.jsonl)

# wrap and rank take the same selection.
expect_exit 0 "wrap --op" -- "$FERRY" wrap corpus.jsonl --op relu -o wrapped -q
check "only Relu is wrapped" -- [ "$(grep -c '"op":"Relu"' wrapped/wrapped.jsonl)" -eq "$nrelu" -a \
	"$(grep -c '"op":"Abs"' wrapped/wrapped.jsonl)" -eq 0 ]
expect_exit 0 "wrap again without --op adds the rest" -- "$FERRY" wrap corpus.jsonl -o wrapped -q
contains "and wraps nothing twice" "$out" "already wrapped      $nrelu"
# (Abs is also a node of expanded tests, test_softsign_expanded_ver18 and others: --test takes test_abs.)
expect_exit 0 "rank --test" -- "$FERRY" rank corpus.jsonl --test 'test_abs' -o abs-queue.jsonl -q
check "the queue holds test_abs only" -- [ "$(grep -c '"op":"Abs"' abs-queue.jsonl)" -eq 1 -a \
	"$(wc -l < abs-queue.jsonl)" -eq 1 ]
"$FERRY" rank corpus.jsonl -o queue.jsonl -q

# run --op: the others are not run, and one line says how many were left out.
expect_exit 0 "run --op" -- "$FERRY" run wrapped -F ort --op Abs -o op.db -j 1 --no-probe
contains "runs only Abs" "$out" "ran now              $nabs"
contains "and counts the rest in one line" "$err" "--op/--test leave out $nrelu of the tests"

# -n N is the top N of the queue: the same command run again runs nothing new; a larger N runs the
# difference.
expect_exit 0 "run -n 2" -- "$FERRY" run wrapped -F ort --queue queue.jsonl -n 2 -o n.db -j 1 --no-probe
contains "runs two" "$out" "ran now              2"
expect_exit 0 "the same command again" -- "$FERRY" run wrapped -F ort --queue queue.jsonl -n 2 -o n.db -j 1 \
	--no-probe
contains "runs nothing more" "$out" "ran now              0"
contains "the two are done" "$out" "already in the store 2"
expect_exit 0 "-n 3" -- "$FERRY" run wrapped -F ort --queue queue.jsonl -n 3 -o n.db -j 1 --no-probe
contains "runs the third only" "$out" "ran now              1"

# A queue of plain ids, one per line, with ids the wrap does not hold: counted in one line.
sed -n 's/.*"id":"\([0-9a-f]*\)".*/\1/p' queue.jsonl | head -n 2 > ids.txt
printf '%s\n' 0123456789abcdef0123456789abcdef fedcba9876543210fedcba9876543210 >> ids.txt
expect_exit 0 "a queue of plain ids" -- "$FERRY" run wrapped -F ort --queue ids.txt -o ids.db -j 1 --no-probe
contains "runs its wrapped ids" "$out" "ran now              2"
contains "counts the others in one line" "$err" "names 4 tests, 2 of them wrapped"
case "$err" in *warning*) ok 1 "and warns about none of them"; printf '%s\n' "$err" | sed 's/^/#   /' ;;
*) ok 0 "and warns about none of them" ;; esac

# --rerun: an adapter that crashes while its flag is set; fixed, the same command leaves its results,
# --rerun errors runs them again.
FERRY_ADAPTERS=$top_srcdir/tests/data/broken-adapter
BROKEN_FLAG=$work/broken
export FERRY_ADAPTERS BROKEN_FLAG
total=$((nrelu + nabs))
touch "$BROKEN_FLAG"
expect_exit 0 "a broken adapter" -- "$FERRY" run wrapped -F broken -o b.db -j 1 --no-probe
contains "crashes on every test" "$out" "crash              $total"
rm "$BROKEN_FLAG"
expect_exit 0 "fixed, the same command" -- "$FERRY" run wrapped -F broken -o b.db -j 1 --no-probe
contains "keeps the results" "$out" "ran now              0"
expect_exit 0 "--rerun errors" -- "$FERRY" run wrapped -F broken -o b.db -j 1 --no-probe --rerun errors
contains "runs them again" "$out" "ran now              $total"
contains "and they pass" "$out" "pass               $total"
contains "said as run again" "$out" "run again            $total (--rerun)"
expect_exit 0 "--rerun failed" -- "$FERRY" run wrapped -F broken -o b.db -j 1 --no-probe --rerun failed
contains "has nothing to run once they pass" "$out" "ran now              0"
expect_exit 0 "--rerun all" -- "$FERRY" run wrapped -F broken -o b.db -j 1 --no-probe --rerun all -n 2
contains "runs passing tests too (the top 2)" "$out" "ran now              2"
expect_exit 2 "--rerun takes three words" -- "$FERRY" run wrapped -F broken -o b.db --rerun some

# --maxfail: no test starts after that many failures, and the run exits 5 saying so (as pytest -x
# exits non-zero): a run cut short is not one that passed.
touch "$BROKEN_FLAG"
expect_exit 5 "--maxfail 2" -- "$FERRY" run wrapped -F broken -o m.db -j 1 --no-probe --maxfail 2
ran=$(printf '%s\n' "$out" | sed -n 's/^  ran now *//p')
check "stops early (ran $ran of $total)" -- [ "$ran" -ge 2 -a "$ran" -lt "$total" ]
contains "and says why" "$out" "stopped at --maxfail 2"
# (every test it ran failed; those already running when the limit was reached finish)
contains "and that the rest was not run" "$err" "stopped early after $ran failures (--maxfail 2): $((total - ran)) tests were not run"
expect_exit 5 "check --maxfail fails" -- "$FERRY" check wrapped -F broken -o mc.db -j 1 --no-probe --maxfail 1
contains "saying so" "$err" "(--maxfail 1): "
expect_exit 5 "-x is --maxfail 1" -- "$FERRY" run wrapped -F broken -o x.db -j 1 --no-probe -x
contains "said the same" "$err" "(--maxfail 1): "
expect_exit 2 "-x and another --maxfail disagree" -- "$FERRY" run wrapped -F broken -o x2.db -x --maxfail 3
rm "$BROKEN_FLAG"
finish
