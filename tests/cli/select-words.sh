#!/bin/sh
# Selection as a pytest user expects it: a word is found anywhere in a name (pytest's -k), lower case
# ignores case (smart case), the same in run, report and bugs; a selection that matches nothing is
# exit 4 with its pattern named in run, check, report, bugs and show alike; --collect-only lists what
# is selected and runs nothing; an operator recorded under its public name is also selected by its
# internal one (op_alias).
. "${top_srcdir:-$(dirname "$0")/../..}/tests/setup"
need_python_module onnx
need_python_module onnxruntime
plan 32

"$FERRY" harvest onnx --op 'Conv,Rel[u]' -o corpus.jsonl -q >/dev/null
"$FERRY" wrap corpus.jsonl -o wrapped -q >/dev/null
nautopad=$(grep -c '"test":"[^"]*autopad' corpus.jsonl)

# --collect-only: one line per selected test (id, operator, test, kind) and how many; nothing runs,
# no store is made (neither -o nor -F is needed).
expect_exit 0 "--collect-only with a word" -- "$FERRY" run wrapped --collect-only --test autopad
contains "finds it inside test names (pytest -k)" "$out" "test_conv_with_autopad_same  node"
contains "and counts them" "$out" "$nautopad tests selected; nothing run (--collect-only)"
check "listing $nautopad lines (one per test)" -- \
	[ "$(printf '%s\n' "$out" | grep -c '^[0-9a-f]\{32\}  ')" -eq "$nautopad" ]
expect_exit 4 "a capital asks for that case" -- "$FERRY" run wrapped --collect-only --test AUTOPAD
contains "and the empty selection names its pattern" "$err" "--test AUTOPAD selects none of the"
expect_exit 0 "--collect-only per frontend, with -n" -- "$FERRY" run wrapped --collect-only -F ort --op relu -n 1
contains "the top one for it" "$out" "1 test selected for ort; nothing run"
check "and no store is made" -- [ ! -e results.db ]
expect_exit 0 "check --collect-only" -- "$FERRY" check wrapped --collect-only --op 'conv*' -F ort -o c.db
contains "lists as run does" "$out" "tests selected for ort; nothing run"
check "and makes no store either" -- [ ! -e c.db ]

# run, report and bugs: the same words.
expect_exit 0 "run --op relu (lower case)" -- "$FERRY" run wrapped -F ort --op relu -o r.db -j 1 --no-probe
nrelu=$(grep -c '"op":"Relu"' corpus.jsonl)
contains "runs every Relu test" "$out" "ran now              $nrelu"
"$FERRY" run wrapped -F ort -o all.db -j 1 --no-probe >/dev/null 2>&1
expect_exit 0 "report --op relu" -- "$FERRY" report all.db --op relu
contains "takes Relu whatever its case" "$out" "operators matching 'relu'"
expect_exit 0 "report --op onv: a word inside operator names" -- "$FERRY" report all.db --op onv
expect_exit 0 "bugs --op conv" -- "$FERRY" bugs all.db --op conv

# One meaning of an empty selection: exit 4, the pattern named, in every command.
expect_exit 4 "run --op that matches nothing" -- "$FERRY" run wrapped -F ort --op nosuchop -o n.db
contains "names it" "$err" "--op nosuchop selects none"
expect_exit 4 "check" -- "$FERRY" check wrapped -F ort --op nosuchop -o n.db
contains "names it" "$err" "--op nosuchop selects none"
expect_exit 4 "report" -- "$FERRY" report all.db --op nosuchop
contains "names it" "$err" "--op nosuchop selects none of the"
expect_exit 4 "report: a capital asks for that case" -- "$FERRY" report all.db --op RELU
expect_exit 4 "bugs" -- "$FERRY" bugs all.db --op nosuchop
contains "names it" "$err" "--op nosuchop selects none of the"
expect_exit 4 "show" -- "$FERRY" show all.db --op nosuchop

# An operator under its public name with its internal one as op_alias: either selects it.
sed 's/"op":"Relu"/"op":"Relu","op_alias":"onnx.defs.InternalRelu"/' corpus.jsonl > alias.jsonl
"$FERRY" wrap alias.jsonl -o aliased -q >/dev/null
expect_exit 0 "the public name" -- "$FERRY" run aliased --collect-only --op Relu
contains "selects it" "$out" "$nrelu tests selected"
expect_exit 0 "the internal one" -- "$FERRY" run aliased --collect-only --op onnx.defs.InternalRelu
contains "selects it too, listed by its public name" "$out" "  Relu  "
finish
