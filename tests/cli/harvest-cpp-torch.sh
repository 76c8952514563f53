#!/bin/sh
# ferry harvest torch --cpp: ferry's own test file in libtorch's C++ API style (tests/data/cpp/torch/),
# read with libclang into exactly the expected records; what it cannot map counted by reason; the
# checkout's commit and version on the records, a worktree's (.git a file) included.
. "${top_srcdir:-$(dirname "$0")/../..}/tests/setup"
"$FERRY" --version 2>&1 | grep -q 'libclang' || skip_all "ferry was built without libclang"
data=$top_srcdir/tests/data/cpp/torch
plan 16

cp "$data/api_test.cpp" .
expect_exit 0 "harvest torch --cpp reads the file" -- "$FERRY" harvest torch --cpp api_test.cpp -q -o corpus.jsonl
check "the records are exactly the expected ones" -- cmp corpus.jsonl "$data/expected.jsonl"
contains "every module construction is read" "$out" "module constructions read                    6"
contains "every functional call is read" "$out" "functional calls read                        11"
contains "a call that depends on a counted loop's variable is counted" "$out" "1  a loop variable"
contains "a call meant to fail is counted, not recorded" "$out" "1  an expected failure (ASSERT_THROWS_WITH)"
contains "a C++-only module is counted" "$out" "1  a C++ module with no torch.nn counterpart"
contains "a module never called is counted" "$out" "1  a module constructed but never called on a tensor"
contains "an input computed from tensors is counted" "$out" "1  a tensor computed by arithmetic"
contains "each call of a helper of the file is followed into its body" "$out" "helper calls followed                        2"
check "the helper's default argument and the one passed both reach the functional" -- \
	test "$(grep -c '"op":"torch.nn.functional.softplus","outputs":\[\],"params":{"beta":{"float":\(2\|0.5\)}}' corpus.jsonl)" = 2
check "the range-for over a literal list is unrolled, lambda named lambd" -- \
	test "$(grep -c '"op":"torch.nn.functional.hardshrink".*"params":{"lambd"' corpus.jsonl)" = 2

# A checkout: a worktree whose .git is a file naming its git directory, with a packed branch, and a
# version.txt at the top.
mkdir -p main.git/worktrees/co co/test/cpp/api
commit=0123456789abcdef0123456789abcdef01234567
echo 'ref: refs/heads/topic' > main.git/worktrees/co/HEAD
echo '../..' > main.git/worktrees/co/commondir
printf '# pack-refs with: peeled\n%s refs/heads/topic\n' "$commit" > main.git/packed-refs
echo "gitdir: $PWD/main.git/worktrees/co" > co/.git
echo '2.7.0a0' > co/version.txt
cp api_test.cpp co/test/cpp/api/
expect_exit 0 "harvest a file of a worktree" -- "$FERRY" harvest torch --cpp co/test/cpp/api -q -o co.jsonl
check "the records name the worktree's commit and the file within it" -- \
	grep -q "\"file\":\"test/cpp/api/api_test.cpp\",\"line\":14,\"call_line\":17,\"commit\":\"$commit\"" co.jsonl
check "the records carry the checkout's version" -- grep -q '"library_version":"2.7.0a0"' co.jsonl

expect_exit 4 "a file without a test harvests nothing" -- sh -c 'echo "int x;" > none.cpp; "$1" harvest torch --cpp none.cpp -q -o n.jsonl' sh "$FERRY"
finish
