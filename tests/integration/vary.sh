#!/bin/sh
# ferry vary on three instances of each library (tests/data/vary/corpus.jsonl), every candidate
# tried (a large --per-instance): the library decides, and this test asserts, per operator, which
# variants it accepted and which it rejected, and why. PyTorch's softmax has no integer kernel and
# no dimension 2 in a matrix; its relu none for bool; a Conv2d takes a float64 input only with its
# weights made float64 too, and no kernel larger than its input; a ReLU6, which holds no weights,
# is given no dtype= argument (its constructor takes none): skipped, not tried. Keras's Dense refuses a
# non-positive units and an int16 policy; its pool a zero pool size and a window larger than its
# input. onnx's type constraints refuse a uint8 Relu; a MaxPool window larger than its input,
# where the reference evaluator gives an empty output and shape inference a one-element one, is
# dropped as inconsistent; ReduceSum's keepdims, a flag, is varied to 0 and never to 1024. The
# kept variants wrap, and each names its parent.
. "${top_srcdir:-$(dirname "$0")/../..}/tests/setup"
need_python_module torch
need_python_module keras
need_python_module tensorflow
need_python_module onnx
py=${FERRY_PYTHON:-$top_srcdir/.venv/bin/python}
plan 32

cp "$top_srcdir/tests/data/vary/corpus.jsonl" corpus.jsonl
expect_exit 0 "vary every candidate of 10 instances" -- \
	"$FERRY" vary corpus.jsonl -o variants.jsonl --per-instance 100 -j 2 -q
contains "the summary counts ReLU6's five dtype= candidates skipped, not tried" "$out" "skipped, not tried   5"

# what OP LABEL: "kept", or "dropped: " and the first line of the library's reason
what() {
	"$py" - variants.jsonl.log "$1" "$2" <<'PY'
import json, sys
log, op, label = sys.argv[1:]
rows = [r for r in map(json.loads, open(log)) if r["op"] == op and r["vary"] == label]
if len(rows) != 1:
    print(f"{len(rows)} candidates")
elif rows[0]["status"] == "dropped":
    print("dropped: " + rows[0].get("reason", "").split("\n")[0])
else:
    print(rows[0]["status"])
PY
}
# is OP LABEL WANT: the candidate's verdict starts with WANT
is() {
	got=$(what "$1" "$2")
	case $got in
	"$3"*) check "$1 $2: $3" -- true ;;
	*) check "$1 $2: $3 (got '$got')" -- false ;;
	esac
}

is torch.softmax dtype:float64 kept
is torch.softmax dtype:int32 "dropped: NotImplementedError: \"softmax_lastdim_kernel_impl\" not implemented for 'Int'"
is torch.softmax param:dim=2 "dropped: IndexError: Dimension out of range"
is torch.softmax param:dim=-1 kept
is torch.nn.functional.relu dtype:int16 kept
is torch.nn.functional.relu dtype:bool "dropped: RuntimeError: Boolean inputs not supported for relu"
is torch.nn.Conv2d dtype:float64 "dropped: RuntimeError: Input type (double) and bias type (float) should be the same"
is torch.nn.Conv2d dtype:float64+weights kept
is torch.nn.Conv2d spatial:kernel-1 "dropped: RuntimeError: Calculated padded input size per channel: (2 x 2). Kernel size: (3 x 3)."
is torch.nn.Conv2d rank:-1 kept
is torch.nn.ReLU6 dtype:float64 kept
is torch.nn.ReLU6 dtype:float64+weights "0 candidates"
is keras.layers.Dense param:units=0 "dropped: ValueError: Received an invalid value for \`units\`, expected a positive integer."
is keras.layers.Dense dtype:int16 "dropped: ValueError: Argument \`dtype\` got invalid value <dtype: 'int16'>."
is keras.layers.Dense dtype:float16 kept
is keras.layers.MaxPooling2D "param:pool_size=(0,0)" "dropped: ValueError: The \`pool_size\` argument must be a tuple of 2 integers."
is keras.layers.MaxPooling2D spatial:kernel-1 "dropped: ValueError: Computed output size would be zero or negative."
is keras.layers.MaxPooling2D dtype:int16 kept
is keras.ops.add dtype:int8 kept
is Relu dtype:int8 kept
is Relu dtype:uint8 "dropped: InferenceError: [ShapeInferenceError] (op_type:Relu): X typestr: T, has unsupported type: tensor(uint8)"
is MaxPool spatial:kernel-1 "dropped: OutsideSpec: MaxPool: spatial dimension 0 of 1 (padded 1) is smaller than the kernel's window of 2: the output's size would be below 1"
is ReduceSum param:keepdims=0 kept
is ReduceSum param:keepdims=1024 "0 candidates"

n=$(wc -l < variants.jsonl)
check "the kept variants are the log's kept ($n)" -- \
	[ "$n" -eq "$("$py" -c 'import json, sys; print(sum(json.loads(l)["status"] == "kept" for l in open(sys.argv[1])))' variants.jsonl.log)" ]
expect_exit 0 "the corpus and its variants wrap together" -- \
	"$FERRY" wrap corpus.jsonl variants.jsonl -o wrapped -j 2 -q
invalid=$("$py" -c 'import json, sys; print(sum(json.loads(l)["wrap"]["status"] != "ok" for l in open(sys.argv[1])))' wrapped/wrapped.jsonl)
check "every variant wraps valid ($invalid invalid)" -- [ "$invalid" -eq 0 ]
check "each variant names its parent, an instance of the corpus, and what changed" -- "$py" - wrapped/wrapped.jsonl <<'PY'
import json, sys
records = [json.loads(line) for line in open(sys.argv[1])]
corpus = {r["id"] for r in records if "variant" not in r}
variants = [r["variant"] for r in records if "variant" in r]
sys.exit(not variants or not all(v.get("parent") in corpus and v.get("vary") for v in variants))
PY
expect_exit 0 "the same command again" -- \
	"$FERRY" vary corpus.jsonl -o variants.jsonl --per-instance 100 -j 2 -q
check "... tries nothing again and writes nothing twice" -- [ "$(wc -l < variants.jsonl)" -eq "$n" ]
