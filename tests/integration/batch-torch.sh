#!/bin/sh
# ferry run --batch K on PyTorch frontends (oracle/batch.py's torch_batch: one module whose forward
# calls each test's module): on a few OpInfo samples, TorchInductor and torch.onnx.export + ORT give
# each test the same outcome and each probe the same answer batched as alone; the probes themselves
# join batches; batches start small and grow while they pass (K adapts).
. "${top_srcdir:-$(dirname "$0")/../..}/tests/setup"
need_python_module torch
need_python_module onnxruntime
py=${FERRY_PYTHON:-$top_srcdir/.venv/bin/python}
sql() { "$py" -c 'import sqlite3, sys; print("\n".join("|".join(map(str, r)) for r in sqlite3.connect(sys.argv[1]).execute(sys.argv[2])))' "$@"; }
plan 13

expect_exit 0 "harvest a few OpInfo samples" -- "$FERRY" harvest torch -q -s opinfo \
	-f 'nn.functional.relu:float32:*' -f 'abs:float32:*' -f 'sigmoid:float32:*' -f 'nn.functional.hardtanh:float32:*' \
	-o corpus.jsonl
expect_exit 0 "wrap them" -- "$FERRY" wrap corpus.jsonl -o wrapped -q
n=$(grep -c . corpus.jsonl)

same() {  # same NAME A B SQL: the rows of SQL are the same in stores A and B, and there are some
	sql "$2" "$4" >a.txt
	sql "$3" "$4" >b.txt
	if [ -s a.txt ] && cmp -s a.txt b.txt; then ok 0 "$1"
	else ok 1 "$1"; diff a.txt b.txt | head -10 | sed 's/^/#   /'; fi
}

# Inductor keeps compiled kernels across processes: each run gets a cache of its own, so that the
# batched run compiles what it runs.
for fe in inductor torch-onnx-ort; do
	TORCHINDUCTOR_CACHE_DIR=$work/cache-$fe-1 expect_exit 0 "$fe: alone" -- \
		"$FERRY" run wrapped -F "$fe" -o "$fe-1.db" -j 2 -q
	TORCHINDUCTOR_CACHE_DIR=$work/cache-$fe-16 expect_exit 0 "$fe: --batch 16" -- \
		"$FERRY" run wrapped -F "$fe" -o "$fe-16.db" -j 2 -q --batch 16
	same "$fe: every test's outcome batched is its outcome alone" "$fe-1.db" "$fe-16.db" \
		"SELECT id, outcome, stage, exc_type FROM results WHERE frontend = '$fe' ORDER BY id"
	same "$fe: every probe's answer batched is its answer alone" "$fe-1.db" "$fe-16.db" \
		"SELECT op, dtype, outcome FROM support WHERE frontend = '$fe' ORDER BY 1, 2"
	got=$(sql "$fe-16.db" "SELECT count(*) FROM results WHERE frontend = '$fe' AND batch >= 2")
	check "$fe: most of the $n tests passed in batches ($got)" -- test "$got" -ge $((n / 2))
done
sizes=$(sql inductor-16.db "SELECT DISTINCT batch FROM results WHERE batch IS NOT NULL ORDER BY batch" | tr '\n' ' ')
first=${sizes%% *} last=$(echo $sizes | awk '{ print $NF }')
check "batches start at 4 tests and grow ($sizes)" -- test "$first" -eq 4 -a "$last" -gt 4
finish
