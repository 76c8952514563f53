#!/bin/sh
# Models built the way real models are (issue 11): a functional convolution's weight and bias are
# constants of the model, so OpenVINO converts it (with the weight as an input its CPU plugin
# answered "unsupported"); the TorchScript is frozen, so a pooling stride of None is a constant,
# not an empty list construct. ferry wrap --weights input keeps every tensor an input. Calls the
# tracer refuses (constant_pad_nd's bool value, gradient's float spacings) are scripted, meta.json
# says so, and openvino-pytorch loads what was made (and passes constant_pad_nd).
. "${top_srcdir:-$(dirname "$0")/../..}/tests/setup"
need_python_module torch
need_python_module openvino
py=${FERRY_PYTHON:-$top_srcdir/.venv/bin/python}
sql() { "$py" -c 'import sqlite3, sys; print("\n".join("|".join(map(str, r)) for r in sqlite3.connect(sys.argv[1]).execute(sys.argv[2])))' "$@"; }
plan 15

corpus=$top_srcdir/tests/data/torch/models.jsonl
expect_exit 0 "wrap F.conv2d and F.max_pool2d(stride=None)" -- "$FERRY" wrap "$corpus" -o wrapped -q -j 1
conv=$(grep '"op":"torch.nn.functional.conv2d"' wrapped/wrapped.jsonl | sed -n 's/.*"dir":"\([^"]*\)".*/\1/p')
pool=$(grep '"op":"torch.nn.functional.max_pool2d"' wrapped/wrapped.jsonl | sed -n 's/.*"dir":"\([^"]*\)".*/\1/p')
n=$(ls wrapped/$conv/input_*.npy | wc -l)
check "the convolution has one input, its data ($n)" -- [ "$n" -eq 1 ]
graph() {  # graph DIR: the saved TorchScript's graph inputs (less self), and the node making max_pool2d's stride
	"$py" -c '
import sys, torch
g = torch.jit.load(sys.argv[1] + "/model.ts").graph
print(len(list(g.inputs())) - 1)
for n in g.nodes():
    if n.kind() == "aten::max_pool2d":
        print(list(n.inputs())[2].node().kind())' "$1"
}
g=$(graph "wrapped/$conv")
check "the convolution's TorchScript graph has one input ($g)" -- [ "$g" = 1 ]
g=$(graph "wrapped/$pool" | tail -1)
check "the frozen max_pool2d's stride is a constant, not prim::ListConstruct ($g)" -- [ "$g" = prim::Constant ]
check "meta says how the model was made" -- grep -q '"weights": "constant"' "wrapped/$conv/meta.json"

expect_exit 0 "run openvino-pytorch" -- "$FERRY" run wrapped -F openvino-pytorch -o results.db -j 1 -q
c=$(sql results.db "SELECT r.outcome FROM results r JOIN instances i USING(id) WHERE i.op = 'torch.nn.functional.conv2d'")
check "openvino-pytorch converts F.conv2d with a constant weight and agrees ($c)" -- [ "$c" = pass ]
p=$(sql results.db "SELECT r.outcome FROM results r JOIN instances i USING(id) WHERE i.op = 'torch.nn.functional.max_pool2d'")
check "... and the frozen max_pool2d ($p)" -- [ "$p" = pass ]
for op in constant_pad_nd gradient; do
	d=$(grep "\"op\":\"torch.$op\"" wrapped/wrapped.jsonl | sed -n 's/.*"dir":"\([^"]*\)".*/\1/p')
	check "torch.$op, which tracing refuses, is scripted" -- grep -q '"torchscript_by": "script"' "wrapped/$d/meta.json"
	# past loading: OpenVINO's verdict (its converter has no aten::gradient), not ferry's error
	o=$(sql results.db "SELECT r.outcome || ':' || coalesce(r.stage, '') FROM results r JOIN instances i USING(id)
		WHERE i.op = 'torch.$op'")
	check "... and openvino-pytorch loads it and converts or compiles it ($o)" -- \
		sh -c 'case $1 in pass: | *:compile | *:execute) exit 0 ;; esac; exit 1' - "$o"
done

expect_exit 0 "wrap --weights input" -- "$FERRY" wrap "$corpus" -o inputs -q -j 1 --weights input
n=$(ls inputs/$conv/input_*.npy | wc -l)
check "every tensor of the convolution is an input ($n)" -- [ "$n" -eq 3 ]
expect_exit 2 "--weights takes constant or input" -- "$FERRY" wrap "$corpus" -o other --weights sideways
finish
