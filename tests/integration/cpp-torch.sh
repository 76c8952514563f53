#!/bin/sh
# The C++ harvester's libtorch records through the real pipeline: ferry's libtorch-style test file
# (tests/data/cpp/torch/) harvested with libclang, wrapped with the torch template and run through
# OpenVINO's PyTorch frontend.
. "${top_srcdir:-$(dirname "$0")/../..}/tests/setup"
"$FERRY" --version 2>&1 | grep -q 'libclang' || skip_all "ferry was built without libclang"
need_python_module torch
need_python_module openvino
plan 6

cp "$top_srcdir/tests/data/cpp/torch/api_test.cpp" .
expect_exit 0 "harvest torch --cpp" -- "$FERRY" harvest torch --cpp api_test.cpp -q -o corpus.jsonl
expect_exit 0 "wrap the harvested instances with the torch template" -- "$FERRY" wrap corpus.jsonl -o w -j 2 -q
contains "every instance is valid" "$out" "valid              12"
expect_exit 0 "run them through OpenVINO's PyTorch frontend" -- "$FERRY" run w -F openvino-pytorch -o store.db -j 2 -q
contains "every instance ran" "$out" "ran now              12"
contains "the modules and functionals it converts pass" "$out" "pass               7"
finish
