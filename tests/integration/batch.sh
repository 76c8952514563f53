#!/bin/sh
# ferry run --batch K (oracle/batch.py, oracle/session/jobs.c): on a small corpus of ONNX's node
# tests, ort and tvm-onnx give each test the same outcome batched (K up to 8) as alone, and record
# the passes of batches with their size. A fault-injecting frontend (tests/data/adapters/
# adapter_batchfault.py: a segfault, a SIGKILL of the worker mid-batch, an exception, a wrong
# result, each whenever its operator is anywhere in the model) shows that bisection records exactly
# the tests that fail alone, each with the failure it has alone, and every other test as a pass. An
# adapter that declares no BATCH runs every test alone whatever --batch says. ferry go takes --batch.
# Where two tests in five fail, batching costs at most a tenth more compilations than running alone.
. "${top_srcdir:-$(dirname "$0")/../..}/tests/setup"
need_python_module onnx
need_python_module onnxruntime
py=${FERRY_PYTHON:-$top_srcdir/.venv/bin/python}
sql() { "$py" -c 'import sqlite3, sys; print("\n".join("|".join(map(str, r)) for r in sqlite3.connect(sys.argv[1]).execute(sys.argv[2])))' "$@"; }
plan 26

expect_exit 0 "harvest a few of ONNX's node tests" -- "$FERRY" harvest onnx -f 'test_relu*' -f 'test_add*' \
	-f 'test_abs*' -f 'test_sigmoid*' -f 'test_exp*' -f 'test_neg*' -o corpus.jsonl -q
expect_exit 0 "wrap them" -- "$FERRY" wrap corpus.jsonl -o wrapped -q
n=$(ls wrapped/tests/*/ | grep -c . || true)

# same_outcomes A B FRONTEND: every test has one outcome (and stage and exception type) in both
same_outcomes() {
	sql "$1" "SELECT id, outcome, stage, exc_type FROM results WHERE frontend = '$3' ORDER BY id" >a.txt
	sql "$2" "SELECT id, outcome, stage, exc_type FROM results WHERE frontend = '$3' ORDER BY id" >b.txt
	if [ -s a.txt ] && cmp -s a.txt b.txt; then ok 0 "$3: every test's outcome batched is its outcome alone"
	else ok 1 "$3: every test's outcome batched is its outcome alone"; diff a.txt b.txt | head -10 | sed 's/^/#   /'; fi
}

for fe in ort tvm-onnx; do
	module=$( [ "$fe" = ort ] && echo onnxruntime || echo tvm )
	if ! "$py" -c "import $module" 2>/dev/null; then
		for k in 1 2 3 4; do ok 0 "# SKIP $fe: python module $module is not installed"; done
		continue
	fi
	expect_exit 0 "$fe: alone" -- "$FERRY" run wrapped -F "$fe" -o alone.db -j 2 -q --no-probe
	expect_exit 0 "$fe: --batch 8" -- "$FERRY" run wrapped -F "$fe" -o batched.db -j 2 -q --no-probe --batch 8
	same_outcomes alone.db batched.db "$fe"
	got=$(sql batched.db "SELECT count(*) FROM results WHERE frontend = '$fe' AND batch >= 2 AND outcome = 'pass'")
	check "$fe: passes of batches are recorded with the batch's size ($got)" -- test "$got" -ge 8
done

expect_exit 0 "ferry go --batch 8" -- "$FERRY" go onnx -F ort --op 'Relu,Add' --batch 8 -o proj -j 1 -q
check "runs its tests in batches" -- \
	test "$(sql proj/onnx/results.db "SELECT count(*) FROM results WHERE batch >= 2 AND outcome = 'pass'")" -gt 0

export FERRY_ADAPTERS="$top_srcdir/tests/data/adapters"
rm -f alone.db batched.db
expect_exit 0 "batchfault: alone" -- env FERRY_BATCHFAULT_LOG="$PWD/alone.log" \
	"$FERRY" run wrapped -F batchfault -o alone.db -j 2 -q --no-probe
expect_exit 0 "batchfault: --batch 8" -- env FERRY_BATCHFAULT_LOG="$PWD/batched.log" \
	"$FERRY" run wrapped -F batchfault -o batched.db -j 2 -q --no-probe --batch 8
# Where two tests in five fail (the faults above, and every Max, Min and Div test raising), batches
# that fail cost their tests another compilation each, and the cap on K (batch_cap) keeps that from
# outweighing what the passing batches save. When the answers come back decides how many batches go
# out before the evidence is in, so the count moves by a few run to run (114-119 against 115 alone,
# measured): it must stay within a tenth of alone's. On the small corpus above the difference is a
# few compilations either way and says nothing.
expect_exit 0 "harvest 113 of ONNX's node tests" -- "$FERRY" harvest onnx -f 'test_relu*' -f 'test_add*' \
	-f 'test_abs*' -f 'test_sigmoid*' -f 'test_exp*' -f 'test_neg*' -f 'test_sub*' -f 'test_mul*' -f 'test_div*' \
	-f 'test_sqrt*' -f 'test_floor*' -f 'test_ceil*' -f 'test_tanh*' -f 'test_sin*' -f 'test_cos*' \
	-f 'test_reciprocal*' -f 'test_min*' -f 'test_max*' -o big.jsonl -q
"$FERRY" wrap big.jsonl -o big -q >/dev/null
rm -f alone1.log batched1.log
FERRY_BATCHFAULT_RAISE=Max,Min,Div FERRY_BATCHFAULT_LOG="$PWD/alone1.log" \
	"$FERRY" run big -F batchfault -o alone1.db -j 1 -q --no-probe >/dev/null
FERRY_BATCHFAULT_RAISE=Max,Min,Div FERRY_BATCHFAULT_LOG="$PWD/batched1.log" \
	"$FERRY" run big -F batchfault -o batched1.db -j 1 -q --no-probe --batch 8 >/dev/null
alone=$(wc -l <alone1.log)
batched=$(wc -l <batched1.log)
failing=$(sql batched1.db "SELECT count(*) FROM results WHERE outcome != 'pass'")
check "two tests in five fail ($failing of $(sql batched1.db "SELECT count(*) FROM results"))" -- \
	test "$failing" -ge 40
check "and batched they compile at most a tenth more than alone ($batched, $alone)" -- \
	test $((10 * batched)) -le $((11 * alone))
check "with the same outcome for each test" -- test "$(sql alone1.db "SELECT id, outcome FROM results ORDER BY id")" = \
	"$(sql batched1.db "SELECT id, outcome FROM results ORDER BY id")"
same_outcomes alone.db batched.db batchfault
failed() { sql batched.db "SELECT i.op || ' ' || r.outcome || ' ' || coalesce(r.exc_type, '-') FROM results r
	JOIN instances i USING(id) WHERE r.outcome != 'pass' ORDER BY 1" | sort -u | tr '\n' ';'; }
contains "the failures are the faults' operators, each as alone" "$(failed)" \
	"Abs mismatch -;Exp crash RuntimeError;Neg crash signal 11;Sigmoid crash signal 9;"
check "no failure is recorded as a batch's" -- \
	test "$(sql batched.db "SELECT count(*) FROM results WHERE outcome != 'pass' AND batch IS NOT NULL")" -eq 0
check "every other test passed" -- test "$(sql batched.db "SELECT count(*) FROM results r JOIN instances i USING(id)
	WHERE i.op NOT IN ('Abs', 'Exp', 'Neg', 'Sigmoid') AND r.outcome != 'pass'")" -eq 0
check "passes of batches are among them" -- \
	test "$(sql batched.db "SELECT count(*) FROM results WHERE outcome = 'pass' AND batch >= 2")" -gt 0
check "without --batch no result is a batch's" -- \
	test "$(sql alone.db "SELECT count(*) FROM results WHERE batch IS NOT NULL")" -eq 0
expect_exit 0 "probe (no BATCH declared): --batch 8" -- "$FERRY" run wrapped -F probe:onnx -o probe.db -j 2 -q \
	--no-probe --batch 8 --op Relu,Sigmoid
check "runs every test alone" -- test "$(sql probe.db "SELECT count(*) FROM results WHERE batch IS NOT NULL")" -eq 0 \
	-a "$(sql probe.db "SELECT count(*) FROM results")" -gt 2
finish
