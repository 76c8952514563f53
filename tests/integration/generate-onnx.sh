#!/bin/sh
# ferry generate against onnx: generated node and graph records over every operator spec pass
# onnx.checker (full_check) and strict shape inference with data propagation, each node's claimed
# output types are onnx's (a disagreement names the operator), and every model runs in
# onnx.reference (tests/integration/generate_onnx.py).
. "${top_srcdir:-$(dirname "$0")/../..}/tests/setup"
need_python_module onnx
py="${FERRY_PYTHON:-$top_srcdir/.venv/bin/python}"
plan 5

# Enough node records that each operator is drawn (over 100 operators, at 1/N each).
"$FERRY" generate -o nodes.jsonl -n 1500 --nodes 1:1 --seed 21 -q >/dev/null
"$FERRY" generate -o graphs.jsonl -n 50 --nodes 2:30 --seed 22 -q >/dev/null
# --list shows every block with its opsets (LO.. or LO..HI): the operators at 17, the default opset.
ops=$("$FERRY" generate --list | awk '{ split($2, o, "[.][.]") }
	o[1] <= 17 && (o[2] == "" || o[2] >= 17) { print $1 }' | sort -u | wc -l)
seen=$(cat nodes.jsonl graphs.jsonl | grep -o '"op":"[A-Za-z0-9]*"' | sort -u | grep -v -c '"op":"graph"')
[ "$seen" -eq "$ops" ]; ok $? "the records cover every operator ($seen of $ops)"
set +e
out=$("$py" "$top_srcdir/tests/integration/generate_onnx.py" nodes.jsonl 2>&1); code=$?
set -e
ok $code "1500 node records agree with onnx"
printf '%s\n' "$out" | tail -5 | sed 's/^/#   /'
set +e
out=$("$py" "$top_srcdir/tests/integration/generate_onnx.py" graphs.jsonl 2>&1); code=$?
set -e
ok $code "50 graphs agree with onnx, node by node"
printf '%s\n' "$out" | tail -5 | sed 's/^/#   /'
# The blocks of later opsets (axes as inputs from 18, Mish, Gelu, RMSNormalization, Swish) at 24.
"$FERRY" generate -o later.jsonl -n 600 --nodes 1:1 --seed 23 --opset 24 -q >/dev/null
set +e
out=$("$py" "$top_srcdir/tests/integration/generate_onnx.py" later.jsonl 2>&1); code=$?
set -e
ok $code "600 node records at opset 24 agree with onnx"
printf '%s\n' "$out" | tail -5 | sed 's/^/#   /'
# The checker must be able to fail: a graph whose claimed type is wrong is a disagreement.
sed -n 1p graphs.jsonl | sed 's/"types":\[{"dtype":"[a-z0-9]*"/"types":[{"dtype":"bool"/' > wrong.jsonl
set +e
out=$("$py" "$top_srcdir/tests/integration/generate_onnx.py" --no-run wrong.jsonl 2>&1); code=$?
set -e
[ "$code" -eq 1 ] && printf '%s\n' "$out" | grep -q 'claimed bool'; ok $? "a wrong claim is a disagreement naming the operator"
finish
