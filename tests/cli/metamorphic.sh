#!/bin/sh
# The metamorphic oracle's options: its name, -k and --seed only with it, ONNX frontends only, and
# not with --one (tests/integration/metamorphic.sh runs it).
. "${top_srcdir:-$(dirname "$0")/../..}/tests/setup"
plan 12
expect_exit 2 "an unknown oracle is a usage error" -- "$FERRY" run wrapped -F ort -o s.db --oracle nope
contains "naming the oracles" "$err" "no oracle 'nope' (reference, metamorphic)"
expect_exit 2 "-k without the metamorphic oracle" -- "$FERRY" run wrapped -F ort -o s.db -k 3
contains "says whose it is" "$err" "-k is the metamorphic oracle's"
expect_exit 2 "--seed too" -- "$FERRY" check wrapped -F ort -o s.db --seed 3
expect_exit 2 "a frontend that takes no ONNX models" -- "$FERRY" run wrapped -F inductor -o s.db --oracle metamorphic
contains "is named" "$err" "frontend 'inductor' does not take them (it takes torch models)"
expect_exit 2 "in ferry check too, among others" -- \
	"$FERRY" check wrapped -F ort,tvm-tflite -o s.db --oracle metamorphic
contains "the one named" "$err" "frontend 'tvm-tflite'"
expect_exit 2 "-k must be a count" -- "$FERRY" run wrapped -F ort -o s.db --oracle metamorphic -k 0
expect_exit 2 "--one runs the reference oracle only" -- "$FERRY" run --one wrapped/tests/00/x -F ort --oracle metamorphic
check "nothing was written" -- test ! -e s.db
finish
