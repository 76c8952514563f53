#!/bin/sh
# ferry wrap CORPUS... -o DIR: several corpora (a corpus and its variants) wrapped into one directory
# as if they were one file: an id in two of them is wrapped once, a bad line or an invalid instance is
# named by the file and line it is on, and a wrap run again (or with a corpus added) resumes.
. "${top_srcdir:-$(dirname "$0")/../..}/tests/setup"
need_python_module onnx
plan 20

# The corpus: Relu, a truncated line, Neg.
cat > corpus.jsonl <<'JSON'
{"library":"onnx","op":"Relu","kind":"node","context":{"opset":{"int":14}},"params":{},"inputs":[{"tensor":{"dtype":"float32","shape":[2,3]}}],"outputs":[{"tensor":{"dtype":"float32","shape":[2,3]}}]}
{"library":"onnx","op":"Abs","kind":"node","context":{"opset":{"int":13}},"params":{},"inputs":[{"tensor":{"dtype":"float32","shape":[2
{"library":"onnx","op":"Neg","kind":"node","context":{"opset":{"int":13}},"params":{},"inputs":[{"tensor":{"dtype":"float32","shape":[4]}}],"outputs":[{"tensor":{"dtype":"float32","shape":[4]}}]}
JSON
# Its variants: the corpus's Neg again (one test), a float16 Relu with its provenance, a bad line, and
# an operator the library does not have (invalid).
cat > variants.jsonl <<'JSON'
{"library":"onnx","op":"Neg","kind":"node","context":{"opset":{"int":13}},"params":{},"inputs":[{"tensor":{"dtype":"float32","shape":[4]}}],"outputs":[{"tensor":{"dtype":"float32","shape":[4]}}]}
{"library":"onnx","op":"Relu","kind":"node","context":{"opset":{"int":14}},"params":{},"inputs":[{"tensor":{"dtype":"float16","shape":[2,3]}}],"outputs":[{"tensor":{"dtype":"float16","shape":[2,3]}}],"variant":{"parent":"d4af705aa3a25143d883e71d1e5530e5","vary":"dtype:float16"}}
{"library":"onnx","op":"Transpose","kind":"node","context":{"opset":{"int":13}},"params":{"perm":{"list":[{"int":1},{"float":"zero"}]}},"inputs":[{"tensor":{"dtype":"float32","shape":[2,3]}}]}
{"library":"onnx","op":"NoSuchOperator","kind":"node","context":{"opset":{"int":13}},"params":{},"inputs":[{"tensor":{"dtype":"float32","shape":[2,3]}}],"outputs":[{"tensor":{"dtype":"float32","shape":[2,3]}}]}
JSON

expect_exit 0 "wrap of two corpora" -- "$FERRY" wrap corpus.jsonl variants.jsonl -o wrapped -j 1 -q
contains "the summary names both corpora" "$out" "wrap corpus.jsonl, variants.jsonl -> wrapped:"
contains "four distinct instances are wrapped" "$out" "wrapped now          4"
contains "the Neg in both corpora is wrapped once" "$out" "already wrapped      1"
contains "a bad line of the first corpus is named by its file and line" "$err" "corpus.jsonl:2: truncated JSON"
contains "a bad line of the second corpus is named by its own file and line" "$err" "variants.jsonl:3: params.perm[1]: 'zero' is not a float"
contains "an invalid instance of the second is named by its own file and line" "$err" "variants.jsonl:4: NoSuchOperator is invalid"
contains "the summary counts the bad lines of both" "$out" "bad corpus lines     2"
lines=$(wc -l < wrapped/wrapped.jsonl)
ids=$(sed 's/^{"id":"\([0-9a-f]*\)".*/\1/' wrapped/wrapped.jsonl | sort -u | wc -l)
check "wrapped.jsonl has one line per distinct id (got $lines lines, $ids ids)" -- [ "$lines" -eq 4 -a "$ids" -eq 4 ]
made=0
for d in $(sed -n 's/.*"status":"ok".*"dir":"\([^"]*\)".*/\1/p' wrapped/wrapped.jsonl); do
	[ -d "wrapped/$d" ] && made=$((made + 1))
done
check "the three valid ones have their test directory (got $made)" -- [ "$made" -eq 3 ]
check "a variant keeps its provenance" -- grep -q '"variant":{"parent":"d4af705aa3a25143d883e71d1e5530e5","vary":"dtype:float16"}' wrapped/wrapped.jsonl

# Wrapping the joined file gives the same tests.
cat corpus.jsonl variants.jsonl > joined.jsonl
"$FERRY" wrap joined.jsonl -o wrapped-joined -j 1 -q >/dev/null 2>&1
sed 's/^{"id":"\([0-9a-f]*\)".*/\1/' wrapped/wrapped.jsonl | sort > a.txt
sed 's/^{"id":"\([0-9a-f]*\)".*/\1/' wrapped-joined/wrapped.jsonl | sort > b.txt
check "the same tests as a wrap of the two files joined" -- cmp -s a.txt b.txt

expect_exit 0 "the same wrap again resumes" -- "$FERRY" wrap corpus.jsonl variants.jsonl -o wrapped -j 1 -q
contains "nothing is wrapped twice" "$out" "already wrapped      5"
lines=$(wc -l < wrapped/wrapped.jsonl)
check "wrapped.jsonl still has one line per instance (got $lines)" -- [ "$lines" -eq 4 ]

# Variants made after the corpus was wrapped: adding their file wraps only what is new.
"$FERRY" wrap corpus.jsonl -o later -j 1 -q >/dev/null 2>&1
expect_exit 0 "wrap with the variants added to a wrapped corpus" -- "$FERRY" wrap corpus.jsonl variants.jsonl -o later -j 1 -q
contains "only the variants are wrapped now" "$out" "wrapped now          2"
contains "the corpus's and the repeated Neg are already wrapped" "$out" "already wrapped      3"

expect_exit 4 "a missing second corpus is bad input, found before anything is wrapped" -- "$FERRY" wrap corpus.jsonl nosuch.jsonl -o w2 -q
check "and nothing is made" -- [ ! -e w2 ]
finish
