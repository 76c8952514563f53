#!/bin/sh
# ferry generate: its options, --list, the same seed giving the same bytes and another seed other
# bytes, a bad spec refused (exit 4) naming FILE:LINE, one-node graphs written as node records, and
# a corpus of them that ferry rank takes.
. "${top_srcdir:-$(dirname "$0")/../..}/tests/setup"
plan 25

expect_exit 2 "no output is a usage error" -- "$FERRY" generate
contains "... that says how to name one" "$err" "-o CORPUS"
expect_exit 2 "--nodes takes MIN:MAX" -- "$FERRY" generate -o g.jsonl --nodes 5:2
expect_exit 2 "--pick-rate is a probability" -- "$FERRY" generate -o g.jsonl --pick-rate 1.5
expect_exit 2 "--ops that match nothing are a usage error" -- "$FERRY" generate -o g.jsonl --ops 'NoSuchOp*'
contains "... naming the pattern" "$err" "NoSuchOp*"

expect_exit 0 "--list lists the operators" -- "$FERRY" generate --list
contains "... Conv with its spec's file and line" "$out" "gen/specs/conv.spec:"
contains "... and its opsets" "$(printf '%s\n' "$out" | grep '^Conv ')" "11.."
[ "$(printf '%s\n' "$out" | wc -l)" -ge 70 ]; ok $? "... 70 operators or more"

expect_exit 0 "generate 40 graphs" -- "$FERRY" generate -o a.jsonl -n 40 --nodes 1:20 --seed 7 -q
[ "$(wc -l < a.jsonl)" -eq 40 ]; ok $? "... 40 lines"
contains "the summary counts the graphs" "$out" "graphs               40"
contains "... and the nodes per operator" "$out" "nodes per operator"
"$FERRY" generate -o b.jsonl -n 40 --nodes 1:20 --seed 7 -q >/dev/null
cmp -s a.jsonl b.jsonl; ok $? "the same seed gives the same bytes"
"$FERRY" generate -o c.jsonl -n 40 --nodes 1:20 --seed 8 -q >/dev/null
! cmp -s a.jsonl c.jsonl; ok $? "another seed gives another corpus"
grep -q '"kind":"graph"' a.jsonl && grep -q '"graph":{"constants":' a.jsonl; ok $? "graphs are records of kind graph with a graph member"

expect_exit 0 "one-node graphs of chosen operators" -- "$FERRY" generate -o one.jsonl -n 30 --nodes 1:1 --ops 'Conv,Relu,Add' -q
[ "$(grep -c '"kind":"node"' one.jsonl)" -eq 30 ]; ok $? "... are node records"
# (--ops selects as --op everywhere: the word Relu takes LeakyRelu and PRelu too)
[ "$(grep -v -c -E '"op":"[A-Za-z]*(Conv|Relu|Add)[A-Za-z]*"' one.jsonl)" -eq 0 ]; ok $? "... of operators holding those words only"
expect_exit 0 "... and ferry rank ranks them" -- "$FERRY" rank one.jsonl -o queue.jsonl
[ "$(wc -l < queue.jsonl)" -eq 30 ]; ok $? "... every one"

mkdir specs
printf 'op Relu\nopset 14\ninput X: float32 rank 1..3\nint a in 1..X[0] - 1\noutput Y: float32 shape X.shape\n' > specs/bad.spec
expect_exit 4 "a spec whose domain can become empty is bad input" -- "$FERRY" generate -o d.jsonl --specs specs
contains "... named by file and line" "$err" "specs/bad.spec:4:1: the domain of 'a' is empty"
[ ! -e d.jsonl ]; ok $? "... and nothing is written"
finish
