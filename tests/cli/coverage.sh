#!/bin/sh
# ferry coverage: Isra's metrics on tiny corpora whose values are counted by hand (tests/data/coverage/):
#   graphs.jsonl  two graphs: x0 -> Relu -> Add(., x0) -> Relu, and x0 -> Relu -> Relu, both Relus ->
#                 Add -> Softmax(axis 1); all tensors float32 of rank 2
#   nodes.jsonl   a harvested-style node corpus: Relu of rank 2 and of rank 1, Conv twice with the
#                 same params in another member order (one signature), and a line a wrap found invalid
# and bad lines named by file and line.
. "${top_srcdir:-$(dirname "$0")/../..}/tests/setup"
plan 25
data="$top_srcdir/tests/data/coverage"
# The cells of a row of the table above "per graph", by its label.
row() { printf '%s\n' "$out" | sed -n "/per graph/q; s/^  $1  *//p" | tr -s ' '; }

expect_exit 0 "coverage of a graph corpus and a node corpus side by side" -- \
	"$FERRY" coverage "$data/graphs.jsonl" "$data/nodes.jsonl"
contains "one column per corpus" "$(printf '%s\n' "$out" | head -1)" "graphs.jsonl  $data/nodes.jsonl"
# Graphs: 3 + 4 nodes; op types Relu, Add, Softmax of the 4 the two corpora use (Conv too).
is_row() { r=$(row "$1"); check "$1: $2 (got '$r')" -- [ "$r" = "$2" ]; }
is_row "graphs" "2 4"
is_row "invalid, not counted" "0 1"
is_row "operations" "7 4"
is_row "operation types" "3/4 75.0% 2/4 50.0%"
# In-degrees (Relu,1) (Add,2) (Softmax,1); nodes: (Relu,1) (Conv,2: the absent bias is no input).
is_row "input degrees" "3 2"
# Out-degrees, uses by nodes plus graph outputs: (Relu,1) (Add,1) (Relu,2: the first Relu of the
# second graph feeds a Relu and the Add) (Softmax,1); a node record's outputs are graph outputs.
is_row "output degrees" "4 2"
# Edges Relu->Add, Add->Relu; Relu->Relu, Relu->Add, Add->Softmax: 4 distinct; none in one-node graphs.
is_row "single edges" "4 0"
# Relu->Add->Relu; Relu->Relu->Add, Relu->Add->Softmax (twice in the second graph, counted once).
is_row "double edges" "3 0"
# Relu(f32/2), Add(f32/2,f32/2), Softmax(f32/2){axis 1}; Relu(f32/2), Relu(f32/1), Conv once.
is_row "shapes and attributes" "3 3"
# Per graph: (3+4)/2 nodes, (2+3)/2 types, (2+3)/2 edges, (1+2)/2 triples, (2+3)/2 signatures.
means=$(printf '%s\n' "$out" | awk '/per graph/ { on = 1; next } on { printf "%s %s|", $(NF - 1), $NF }')
check "the means per graph (got '$means')" -- [ "$means" = "3.50 1.00|2.50 1.00|2.50 0.00|1.50 0.00|2.50 1.00|" ]

expect_exit 0 "--json, over the op types of --ops" -- \
	"$FERRY" coverage --json --ops Relu,Conv --ops MaxPool "$data/graphs.jsonl" "$data/nodes.jsonl"
lines=$(printf '%s\n' "$out" | wc -l)
check "... one line" -- [ "$lines" -eq 1 ]
contains "... the operation types to cover: Relu, Conv, MaxPool" "$out" '{"operation_types_to_cover":3,'
contains "... the graphs cover Relu of them" "$out" '"operations":7,"operation_types":1,"operation_type_coverage":0.3333333333333333,'
contains "... with their counts" "$out" '"input_degrees":3,"output_degrees":4,"single_edges":4,"double_edges":3,"shapes_and_attributes":3,'
contains "... and means" "$out" '"per_graph":{"operations":3.5,"operation_types":2.5,"single_edges":2.5,"double_edges":1.5,"shapes_and_attributes":2.5}'
contains "... the nodes cover Relu and Conv" "$out" '"graphs":4,"invalid":1,"bad_lines":0,"operations":4,"operation_types":2,'

expect_exit 0 "bad lines are left out" -- "$FERRY" coverage "$data/bad.jsonl"
contains "... a graph that uses a tensor nothing makes, named by file, line and member" "$err" \
	"bad.jsonl:2: graph.nodes[0].inputs[0]: no input, constant or earlier node makes 't9'"
contains "... junk named by file and line" "$err" "bad.jsonl:3: malformed JSON"
is_row "bad lines" "2"

expect_exit 2 "no corpus is a usage error" -- "$FERRY" coverage
expect_exit 4 "a missing corpus is bad input" -- "$FERRY" coverage missing.jsonl
finish
