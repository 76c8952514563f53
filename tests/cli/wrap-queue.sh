#!/bin/sh
# ferry wrap --queue QUEUE [-n N] and --frontend: the queue's instances are wrapped in its order (its
# first N lines with -n), nothing else; a queue of other instances, or -n without a queue, is an
# error; with --frontend, an instance of a library none of the frontends takes is not wrapped.
. "${top_srcdir:-$(dirname "$0")/../..}/tests/setup"
need_python_module onnx
plan 25

ops="Relu Neg Abs Exp Sigmoid Tanh"
: > corpus.jsonl
for op in $ops; do
	printf '{"library":"onnx","op":"%s","kind":"node","context":{"opset":{"int":13}},"params":{},"inputs":[{"tensor":{"dtype":"float32","shape":[2,3]}}],"outputs":[{"tensor":{"dtype":"float32","shape":[2,3]}}]}\n' "$op" >> corpus.jsonl
done
# A PyTorch instance: no ONNX frontend takes it.
echo '{"library":"torch","op":"torch.relu","kind":"function","params":{},"inputs":[{"tensor":{"dtype":"float32","shape":[3]}}]}' >> corpus.jsonl
"$FERRY" rank corpus.jsonl -o ranked.jsonl -q
ids_of() { sed 's/^{.*"id":"\([0-9a-f]*\)".*/\1/' "$1"; }
# The queue: the corpus's ids in an order of our own (reversed), which no corpus order gives.
ids_of ranked.jsonl | tac | sed 's/.*/{"id":"&"}/' > queue.jsonl
check "the queue has the seven instances" -- [ "$(wc -l < queue.jsonl)" -eq 7 ]

expect_exit 0 "wrap in the queue's order" -- "$FERRY" wrap corpus.jsonl -o wrapped --queue queue.jsonl -j 1 -q
ids_of queue.jsonl > want.txt
ids_of wrapped/wrapped.jsonl > got.txt
check "wrapped.jsonl follows the queue, line by line" -- cmp -s want.txt got.txt
contains "every queue line is taken" "$out" "queue lines taken    7"

expect_exit 0 "the first three of the queue" -- "$FERRY" wrap corpus.jsonl -o three --queue queue.jsonl -n 3 -j 1 -q
head -n 3 want.txt > want3.txt
ids_of three/wrapped.jsonl > got3.txt
check "only the queue's first three are wrapped, in its order" -- cmp -s want3.txt got3.txt
contains "three queue lines are taken" "$out" "queue lines taken    3"
expect_exit 0 "-n 5 on the same directory goes on" -- "$FERRY" wrap corpus.jsonl -o three --queue queue.jsonl -n 5 -j 1 -q
contains "the first three are already wrapped" "$out" "already wrapped      3"
contains "two more are wrapped" "$out" "wrapped now          2"

# A queue naming an id no corpus holds, and a line without an id: counted, the rest wrapped.
{ echo '{"id":"00000000000000000000000000000000"}'; echo '{"rank":2}'; head -n 2 queue.jsonl; } > odd.jsonl
expect_exit 0 "a queue with an unknown id and a line without one" -- "$FERRY" wrap corpus.jsonl -o odd --queue odd.jsonl -j 1 -q
contains "the unknown id is counted" "$out" "not in the corpora 1"
contains "the line without an id is named by file and line" "$err" "odd.jsonl:2: a queue line without an id"
check "the two known ids are wrapped" -- [ "$(wc -l < odd/wrapped.jsonl)" -eq 2 ]

echo '{"id":"11111111111111111111111111111111"}' > other.jsonl
expect_exit 4 "a queue of other instances is bad input" -- "$FERRY" wrap corpus.jsonl -o other --queue other.jsonl -q
contains "it says the queue names none of the corpora's instances" "$err" "names none of the instances of the corpora"
expect_exit 2 "-n without --queue is a usage error" -- "$FERRY" wrap corpus.jsonl -o x -n 3 -q
expect_exit 4 "a missing queue is bad input, before anything is wrapped" -- "$FERRY" wrap corpus.jsonl -o y --queue nosuch.jsonl -q
check "and nothing is made" -- [ ! -e y ]

# --frontend: an ONNX frontend takes the ONNX instances only, made as without it.
expect_exit 0 "wrap for one ONNX frontend" -- "$FERRY" wrap corpus.jsonl -o onnx -F ort -j 1 -q
contains "the PyTorch instance is not wrapped: no frontend takes it" "$out" "no frontend takes    1"
contains "the six ONNX instances are" "$out" "wrapped now          6"
made=$(ls onnx/tests/*/*/model.onnx | wc -l)
check "each has its model.onnx ($made)" -- [ "$made" -eq 6 ]
"$FERRY" wrap corpus.jsonl -o all -j 1 -q >/dev/null 2>&1
same=0
for d in onnx/tests/*/*; do
	cmp -s "$d/model.onnx" "all/${d#onnx/}/model.onnx" && cmp -s "$d/meta.json" "all/${d#onnx/}/meta.json" &&
		same=$((same + 1))
done
check "the six models and meta.json are those of a wrap without --frontend ($same)" -- [ "$same" -eq 6 ]
expect_exit 2 "an unknown frontend is a usage error" -- "$FERRY" wrap corpus.jsonl -o z -F nosuch -q
finish
