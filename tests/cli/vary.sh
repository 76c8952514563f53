#!/bin/sh
# ferry vary: its options, bad input named by file and line, and an interrupted (budgeted) run that
# the same command goes on with, trying no candidate twice. The part that validates candidates in the
# library needs the templates' validate(); without it that part is skipped.
. "${top_srcdir:-$(dirname "$0")/../..}/tests/setup"
need_python_module onnx
py="${FERRY_PYTHON:-$top_srcdir/.venv/bin/python}"
if PYTHONPATH="$top_builddir/python" "$py" -c 'import ferry.templates.onnx as t; t.validate' 2>/dev/null; then
	validate=1
	plan 27
else
	validate=0
	plan 14
fi

cat > corpus.jsonl <<'JSON'
{"library":"onnx","op":"Relu","kind":"node","context":{"opset":{"int":14}},"params":{},"inputs":[{"tensor":{"dtype":"float32","shape":[2,3],"range":[-1,1]}}],"outputs":[{"tensor":{"dtype":"float32","shape":[2,3]}}]}
{"library":"onnx","op":"Abs","kind":"node","context":{"opset":{"int":13}},"params":{},"inputs":[{"tensor":{"dtype":"float32","shape":[2
{"library":"onnx","op":"Softmax","kind":"node","context":{"opset":{"int":13}},"params":{"axis":{"int":1}},"inputs":[{"tensor":{"dtype":"float32","shape":[2,3],"range":[-1,1]}}],"outputs":[{"tensor":{"dtype":"float32","shape":[2,3]}}]}
JSON

expect_exit 2 "no output is a usage error" -- "$FERRY" vary corpus.jsonl
contains "... that says how to name one" "$err" "-o VARIANTS"
expect_exit 2 "the corpus cannot be its own output" -- "$FERRY" vary corpus.jsonl -o corpus.jsonl
expect_exit 2 "--per-instance takes a whole number from 1" -- "$FERRY" vary corpus.jsonl -o v.jsonl --per-instance 0
expect_exit 2 "--budget takes a whole number" -- "$FERRY" vary corpus.jsonl -o v.jsonl --budget many
expect_exit 4 "a missing corpus is bad input" -- "$FERRY" vary missing.jsonl -o v.jsonl
contains "... named" "$err" "missing.jsonl"

printf '{"library":"onnx"\nnot json\n' > bad.jsonl
expect_exit 4 "a corpus of bad lines is bad input" -- "$FERRY" vary bad.jsonl -o v.jsonl -q
contains "each bad line is named by file and line" "$err" "bad.jsonl:2:"
contains "... and the corpus has no record" "$err" "holds no instance records"

printf '{"pre":"x"}\n' > broken.jsonl.log
expect_exit 4 "a broken log is bad input" -- "$FERRY" vary corpus.jsonl -o broken.jsonl -q
contains "... named by file and line" "$err" "broken.jsonl.log:1: a log line needs pre, parent and status"

if [ "$validate" = 1 ]; then
	expect_exit 0 "a budgeted vary runs" -- "$FERRY" vary corpus.jsonl -o v.jsonl -j 1 -q --budget 4
	contains "the bad corpus line is counted" "$out" "bad corpus lines     1"
	contains "... and named" "$err" "corpus.jsonl:2:"
	tried=$(wc -l < v.jsonl.log)
	check "the budget bounds the candidates tried (got $tried)" -- [ "$tried" -eq 4 ]
	expect_exit 0 "the same command with a larger budget goes on" -- "$FERRY" vary corpus.jsonl -o v.jsonl -j 1 -q --budget 10
	tried=$(wc -l < v.jsonl.log)
	check "... to the new budget (got $tried)" -- [ "$tried" -eq 10 ]
	contains "... and says what earlier runs tried" "$out" "earlier runs tried   4"
	dups=$(sed 's/.*"pre":"\([0-9a-f]*\)".*/\1/' v.jsonl.log | sort | uniq -d | wc -l)
	check "no candidate is tried twice (got $dups repeated)" -- [ "$dups" -eq 0 ]
	kept=$(grep -c '"status":"kept"' v.jsonl.log || true)
	lines=$(wc -l < v.jsonl)
	check "every kept candidate is a line of the variants ($kept kept, $lines lines)" -- [ "$kept" -eq "$lines" ]
	check "a variant names its parent, what changed and the kind of change" -- \
		grep -q '"variant":{"parent":"[0-9a-f]\{32\}","vary":"[^"]*","dim":"\(dtype\|shape\|param\|scalar\|type\)"' v.jsonl
	check "... and so does every candidate logged" -- sh -c '! grep -v "\"dim\":\"[a-z]*\"" v.jsonl.log | grep -q .'
	expect_exit 0 "the variants are a corpus that wrap takes" -- "$FERRY" wrap v.jsonl -o wrapped -j 1 -q
	# A graph (ferry generate) is many operators: no rule grows it; it is counted, not tried.
	{ sed -n 1p corpus.jsonl; sed -n 1p "$top_srcdir/tests/data/gen-graphs/graphs.jsonl"; } > graphs.jsonl
	expect_exit 0 "a corpus with a graph varies" -- "$FERRY" vary graphs.jsonl -o gv.jsonl -j 1 -q --budget 2
	contains "... counting the graph as not varied" "$out" "graphs, not varied   1"
	check "... and no candidate of it is tried" -- sh -c '! grep -q "\"op\":\"graph\"" gv.jsonl.log'
else
	# A template without validate() is ferry's environment, not the candidates' fault.
	expect_exit 3 "without validate() in the template vary stops" -- "$FERRY" vary corpus.jsonl -o v.jsonl -j 1 -q
	check "... and logs no candidate as tried" -- test ! -s v.jsonl.log
fi
finish
