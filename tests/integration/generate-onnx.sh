#!/bin/sh
# ferry generate against onnx: generated node and graph records over every operator spec pass
# onnx.checker (full_check) and strict shape inference with data propagation, each node's claimed
# output types are onnx's (a disagreement names the operator), and every model runs in
# onnx.reference (tests/integration/generate_onnx.py).
. "${top_srcdir:-$(dirname "$0")/../..}/tests/setup"
need_python_module onnx
py="${FERRY_PYTHON:-$top_srcdir/.venv/bin/python}"
plan 4

"$FERRY" generate -o nodes.jsonl -n 600 --nodes 1:1 --seed 21 -q >/dev/null
"$FERRY" generate -o graphs.jsonl -n 50 --nodes 2:30 --seed 22 -q >/dev/null
ops=$("$FERRY" generate --list | awk '{print $1}' | sort -u | wc -l)
seen=$(cat nodes.jsonl graphs.jsonl | grep -o '"op":"[A-Za-z]*"' | sort -u | grep -v -c '"op":"graph"')
[ "$seen" -eq "$ops" ]; ok $? "the records cover every operator ($seen of $ops)"
set +e
out=$("$py" "$top_srcdir/tests/integration/generate_onnx.py" nodes.jsonl 2>&1); code=$?
set -e
ok $code "600 node records agree with onnx"
printf '%s\n' "$out" | tail -5 | sed 's/^/#   /'
set +e
out=$("$py" "$top_srcdir/tests/integration/generate_onnx.py" graphs.jsonl 2>&1); code=$?
set -e
ok $code "50 graphs agree with onnx, node by node"
printf '%s\n' "$out" | tail -5 | sed 's/^/#   /'
# The checker must be able to fail: a graph whose claimed type is wrong is a disagreement.
sed -n 1p graphs.jsonl | sed 's/"types":\[{"dtype":"[a-z0-9]*"/"types":[{"dtype":"bool"/' > wrong.jsonl
set +e
out=$("$py" "$top_srcdir/tests/integration/generate_onnx.py" --no-run wrong.jsonl 2>&1); code=$?
set -e
[ "$code" -eq 1 ] && printf '%s\n' "$out" | grep -q 'claimed bool'; ok $? "a wrong claim is a disagreement naming the operator"
finish
