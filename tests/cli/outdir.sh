#!/bin/sh
# Outputs that never mix (lib/outdir.h): report -o and --html write only into a directory that is new,
# empty or ferry's for the same store, refuse another's (the user's files, another store's
# reproducers) and leave it as it was, and clear only what they wrote the time before; ferry go
# refuses a corpus.jsonl it did not harvest, harvests anew (saying so) one of another selection,
# and writes its page by default, naming it last.
. "${top_srcdir:-$(dirname "$0")/../..}/tests/setup"
need_python_module onnx
need_python_module onnxruntime
plan 26
export FERRY_ADAPTERS="$top_srcdir/tests/data/adapters"
"$FERRY" harvest onnx -q -o corpus.jsonl -f test_relu -f test_exp >/dev/null
"$FERRY" wrap corpus.jsonl -o wrapped -q >/dev/null
"$FERRY" run wrapped -F offbyone -o results.db -q --timeout 30 >/dev/null
cp results.db other.db

# report -o twice into its own directory: the second run's files only, and the user's file kept.
expect_exit 0 "report -o into a new directory" -- "$FERRY" report results.db -o out --op Exp
check "it wrote Exp's reproducers" -- sh -c 'ls out/offbyone/Exp-*.py'
check "and marked the directory with the store" -- grep -qx "store $work/results.db" out/.ferry-output
echo mine > out/offbyone/notes.txt
expect_exit 0 "report -o into it again" -- "$FERRY" report results.db -o out --op Relu
check "it wrote Relu's reproducers" -- sh -c 'ls out/offbyone/Relu-*.py'
check "and left none of the first run's" -- sh -c '! ls out/offbyone/Exp-*.py 2>/dev/null'
check "and kept the file it did not write" -- grep -qx mine out/offbyone/notes.txt
check "which the marker does not claim" -- sh -c '! grep -q notes.txt out/.ferry-output'

# Another store's directory, and one of the user's: refused, untouched.
expect_exit 4 "report -o into another store's directory" -- "$FERRY" report other.db -o out --op Exp
contains "says whose it is" "$err" "holds what ferry wrote for another store"
check "and leaves its reproducers" -- sh -c 'ls out/offbyone/Relu-*.py'
check "and writes none of its own" -- sh -c '! ls out/offbyone/Exp-*.py 2>/dev/null'
mkdir foreign
echo theirs > foreign/keep.py
expect_exit 4 "report -o into a directory of someone else's files" -- "$FERRY" report results.db -o foreign
contains "says why and what to do" "$err" "'foreign' holds files that ferry did not write"
check "and writes nothing there" -- sh -c '[ "$(ls -A foreign)" = keep.py ] && grep -qx theirs foreign/keep.py'
mkdir site
echo '<p>my page</p>' > site/index.html
expect_exit 4 "--html over an index.html ferry did not write" -- "$FERRY" report results.db --html site
check "leaves the page as it was" -- grep -qx '<p>my page</p>' site/index.html
expect_exit 0 "--html DIR -o DIR: one directory, one claim" -- "$FERRY" report results.db --html both -o both
check "the page and the reproducers side by side" -- test -s both/index.html -a -d both/offbyone

# ferry go: a corpus it did not harvest is refused, not taken for the library's.
mkdir -p proj/onnx
grep '"op":"Relu"' corpus.jsonl > proj/onnx/corpus.jsonl
cp proj/onnx/corpus.jsonl relu-only.jsonl
expect_exit 4 "ferry go on a corpus.jsonl without its stamp" -- "$FERRY" go onnx -F ort -o proj -q
contains "names the file and what to do" "$err" \
	"'proj/onnx/corpus.jsonl' is no corpus that ferry go harvested (it has no 'proj/onnx/corpus.jsonl.args')"
check "and leaves it as it was" -- cmp -s proj/onnx/corpus.jsonl relu-only.jsonl
# One it harvested for another selection is harvested anew, saying so; the page is written and named last.
printf 'harvest onnx --op Conv\n' > proj/onnx/corpus.jsonl.args
expect_exit 0 "ferry go on a corpus of another selection" -- \
	"$FERRY" go onnx -F ort --op Exp -n 2 --no-triggers -o proj -j 1 -q
contains "harvests anew, saying so" "$out" "was harvested for another selection"
check "writes the page" -- test -s proj/onnx/html/index.html
check "and names it in its last line" -- sh -c \
	'printf "%s\n" "$1" | tail -n 1 | grep -qx "the page of onnx.s bugs: proj/onnx/html/index.html"' - "$out"
finish
