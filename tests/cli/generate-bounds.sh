#!/bin/sh
# ferry generate against specs built to exhaust it: 10,000 levels of each construct of the spec
# language that nests (parentheses, brackets, calls, indexing, unary '-' and 'not', '?:', a chain of
# binary operators), lists nested or shared through a chain of lets and then compared, and a list
# doubled by each let. Each is bad input (exit 4) at its FILE:LINE:COL, not a stack overflow, a hang
# or an allocation without end. The test bounds ferry itself (ulimit -v, timeout).
. "${top_srcdir:-$(dirname "$0")/../..}/tests/setup"
py=${FERRY_PYTHON:-$top_srcdir/.venv/bin/python}
plan 23

# spec NAME EXPR-TEMPLATE: a block whose let a = the expression, 10,000 levels deep, on line 5
spec() {
	mkdir -p "$1"
	"$py" - "$1" <<'EOF'
import sys
name = sys.argv[1]
n = 10000
expr = {
    "paren": "(" * n + "1" + ")" * n,
    "list": "[" * n + "1" + "]" * n,
    "call": "abs(" * n + "1" + ")" * n,
    "index": "[1]" + "[0]" * n,
    "minus": "- " * n + "X.rank",
    "not": "not " * n + "1",
    "cond": "1 ? 2 : " * n + "3",
    "chain": " + ".join(["1"] * n),
}[name]
with open(f"{name}/{name}.spec", "w") as f:
    f.write("op Relu\nopset 14\ntype T in float32\ninput X: T rank 1..3\n"
            f"let a = {expr}\noutput Y: T shape X.shape\n")
EOF
}
# At most 4 GiB of address space and 5 minutes; AddressSanitizer's shadow memory cannot live under
# ulimit -v (there the timeout alone bounds it).
bounded() {
	(
		[ -n "${ASAN_OPTIONS:-}" ] || ulimit -v 4194304
		exec timeout -s KILL 300 "$@"
	)
}

for k in paren list call index minus not cond chain; do
	spec $k
	expect_exit 4 "10,000 levels of $k are bad input" -- bounded "$FERRY" generate --specs $k -n 1 -o $k.jsonl -q
	check "... at FILE:LINE:COL, saying how deep an expression may nest" -- sh -c \
		'printf "%s\n" "$1" | grep -Eq "^ferry: error: $2/$2.spec:5:[0-9]+: an expression nested more than 100 deep"' \
		- "$err" $k
done

# Values nest by lets too: each a list of the one before, compared at the end; or a list of two
# of the one before, the tree doubling while the arena holds one copy (2^60 leaves to compare).
mkdir deep dag double
"$py" - <<'EOF'
head = "op Relu\nopset 14\ntype T in float32\ninput X: T rank 1..3\nlet a0 = [1, 2]\n"
tail = "output Y: T shape X.shape\n"
with open("deep/deep.spec", "w") as f:
    f.write(head + "".join(f"let a{i} = [a{i - 1}]\n" for i in range(1, 300)) + "let eq = a299 == a299\n" + tail)
with open("dag/dag.spec", "w") as f:
    f.write(head + "".join(f"let a{i} = [a{i - 1}, a{i - 1}]\n" for i in range(1, 60)) + "let eq = a59 in [a59]\n" + tail)
with open("double/double.spec", "w") as f:
    f.write(head + "".join(f"let a{i} = a{i - 1} + a{i - 1}\n" for i in range(1, 60)) + tail)
EOF
expect_exit 4 "comparing lists nested 300 deep is bad input" -- bounded "$FERRY" generate --specs deep -n 1 -o deep.jsonl -q
contains "... at FILE:LINE:COL, saying why" "$err" \
	"deep/deep.spec:305:15: lists nested more than 100 deep or of more than 4194304 values in all cannot be compared"
start=$(date +%s)
expect_exit 4 "comparing lists shared 60 deep (2^60 leaves) is bad input" -- \
	bounded "$FERRY" generate --specs dag -n 1 -o dag.jsonl -q
took=$(($(date +%s) - start))
contains "... at FILE:LINE:COL" "$err" "dag/dag.spec:65:14: lists nested more than 100 deep"
check "... at once (took ${took}s)" -- [ "$took" -lt 60 ]
expect_exit 4 "a list doubled by each of 60 lets is bad input" -- bounded "$FERRY" generate --specs double -n 1 -o double.jsonl -q
contains "... at the let that passes the limit" "$err" "double/double.spec:24:15: a list of 1048576 values"
finish
