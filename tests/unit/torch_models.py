"""Unit tests of the PyTorch template's models (templates/torch.py, templates/runtime_torch.py): which
tensors are data (forward inputs) and which weights (constants of the module), the frozen TorchScript,
and the guards that mark outputs a frontend may answer anything for (undefined domains, integer
overflow, uninitialised memory). Real PyTorch, real records. Prints TAP; run by
tests/unit/test-torch-models.sh."""

import json
import os
import shutil
import tempfile
import warnings

import numpy as np
import torch

warnings.simplefilter("ignore")

from ferry.templates import torch as template_torch  # noqa: E402

results = []
work = tempfile.mkdtemp(prefix="ferry-torch-models-")


def ok(cond, name):
    results.append((bool(cond), name))


def t(dtype, shape, values=None):
    body = {"dtype": dtype, "shape": shape}
    if values is not None:
        body["values"] = values
    return {"tensor": body}


def record(op, inputs, params=None, kind=None, weights=None):
    r = {"library": "torch", "op": op, "kind": kind or ("method" if ".Tensor." in op else "function"),
         "inputs": inputs, "params": params or {}, "context": {}, "outputs": []}
    if weights:
        r["wrap_options"] = {"weights": weights}
    return r


def wrap(r):
    """(wrap's result, meta.json or {}, the test directory)."""
    d = tempfile.mkdtemp(dir=work)
    got = template_torch.wrap(json.dumps(r), d)
    meta = {}
    if os.path.exists(os.path.join(d, "meta.json")):
        with open(os.path.join(d, "meta.json")) as f:
            meta = json.load(f)
    return got, meta, d


# --- data and weights ------------------------------------------------------------------------------------
conv = record("torch.nn.functional.conv2d", [t("float32", [1, 3, 8, 8]), t("float32", [4, 3, 3, 3]),
                                             t("float32", [4])], {"padding": {"int": 1}})
got, meta, conv_dir = wrap(conv)
ok(got["status"] == "ok" and got["ninputs"] == 1, f"F.conv2d: one forward input, the data ({got})")
ok(meta.get("weights") == "constant" and meta.get("data") == [0], f"meta says so: data [0], weights constant ({meta})")
module, inputs = template_torch.load_testdir(conv_dir)
buffers = sorted(tuple(b.shape) for b in module.buffers())
ok(buffers == [(4,), (4, 3, 3, 3)] and len(inputs) == 1, f"the weight and bias are buffers of the module ({buffers})")
scripted = torch.jit.load(os.path.join(conv_dir, "model.ts"))
graph_inputs = [i for i in scripted.graph.inputs()][1:]  # self first
ok(len(graph_inputs) == 1, f"the TorchScript graph has one input ({len(graph_inputs)})")
exported = torch.export.load(os.path.join(conv_dir, "model.pt2"))
user = [s for s in exported.graph_signature.input_specs if s.kind == torch.export.graph_signature.InputKind.USER_INPUT]
ok(len(user) == 1, f"the ExportedProgram has one user input, the weights are buffers ({len(user)})")

got_in, meta_in, in_dir = wrap(dict(conv, wrap_options={"weights": "input"}))
ok(got_in["status"] == "ok" and got_in["ninputs"] == 3 and meta_in.get("weights") == "input",
   f"--weights input: every tensor a forward input ({got_in}, {meta_in.get('weights')})")
ref_c = torch.from_numpy(__import__("numpy").load(os.path.join(conv_dir, "ref_0.npy")))
ref_i = torch.from_numpy(__import__("numpy").load(os.path.join(in_dir, "ref_0.npy")))
ok(torch.equal(ref_c, ref_i), "the weights have the same values either way (the same reference)")
ok(template_torch.wrap(json.dumps(dict(conv, wrap_options={"weights": "sideways"})), work)["status"] == "invalid",
   "an unknown weights option makes the instance invalid")
with open(os.path.join(conv_dir, "record.json")) as f:
    ok("wrap_options" not in json.load(f), "the saved record does not carry the wrap options (meta does)")

cases = [
    ("torch.add: both operands are data", record("torch.add", [t("float32", [3]), t("float32", [3])]), 2),
    ("torch.cat: every tensor of its list is data",
     record("torch.cat", [{"list": [t("float32", [2]), t("float32", [3])]}]), 2),
    ("torch.where: condition, input and other are data",
     record("torch.where", [t("bool", [3]), t("float32", [3]), t("float32", [3])]), 3),
    ("Tensor.index_select: the index is data",
     record("torch.Tensor.index_select", [t("float32", [5]), {"int": 0}, t("int64", [2], [0, 3])]), 2),
    ("F.linear: the input only", record("torch.nn.functional.linear",
                                        [t("float32", [2, 3]), t("float32", [4, 3]), t("float32", [4])]), 1),
    ("F.cross_entropy: input and target are data, the class weight a constant",
     record("torch.nn.functional.cross_entropy", [t("float32", [2, 3]), t("int64", [2], [0, 2])],
            {"weight": t("float32", [3])}), 2),
    ("torch.clamp: tensor bounds are constants",
     record("torch.clamp", [t("float32", [3]), t("float32", [3]), t("float32", [3])]), 1),
    ("Tensor.__rsub__: Python's operators take data", record("torch.Tensor.__rsub__", [t("float32", [3]), t("float32", [3])]), 2),
    ("nn.Conv2d: a module's parameters are its state, forward's tensors data",
     record("torch.nn.Conv2d", [t("float32", [1, 2, 5, 5])], {"in_channels": {"int": 2}, "out_channels": {"int": 3},
                                                            "kernel_size": {"int": 3}}, kind="module"), 1),
]
for name, r, want in cases:
    got, meta, _ = wrap(r)
    ok(got.get("ninputs") == want, f"{name}: {want} inputs ({got}, data {meta.get('data')})")

# A reproducer builds the same module: the weights as FerryConst literals.
test = template_torch.reproducer_test(json.dumps(conv), conv_dir)["test"]
ok("FerryConst(ferry_tensor(SEED, [1]" in test and "FerrySlot(0)" in test and "FerrySlot(1)" not in test,
   "the reproducer holds the weights as FerryConst literals, the data as FerrySlot(0)")

# --- the frozen TorchScript --------------------------------------------------------------------------------
pool = record("torch.nn.functional.max_pool2d", [t("float32", [1, 2, 6, 6]), {"int": 2}], {"stride": {"none": None}})
got, meta, pool_dir = wrap(pool)
ok(got["status"] == "ok" and meta.get("frozen") is True, f"max_pool2d with stride=None: frozen ({meta.get('frozen')})")
graph = torch.jit.load(os.path.join(pool_dir, "model.ts")).graph
node = next(n for n in graph.nodes() if n.kind() == "aten::max_pool2d")
stride = list(node.inputs())[2].node()
ok(stride.kind() == "prim::Constant", f"the saved graph's stride is a constant, not a list construct ({stride.kind()})")

# Calls the tracer refuses are scripted: a bool Scalar (constant_pad_nd's value, bitwise_xor's
# other) fails the tracer's alias analysis, torch.gradient's float spacings are "a list of arbitrary
# type". The saved model loads, runs to the reference, and meta.json says how it was made.
scripted = [
    ("constant_pad_nd with value=True", record("torch.constant_pad_nd", [t("bool", [2, 3]), {"list": [
        {"int": 1}, {"int": 2}]}, {"bool": True}])),
    ("bitwise_xor with other=True", record("torch.bitwise_xor", [t("bool", [2, 3])], {"other": {"bool": True}})),
    ("Tensor.bitwise_xor with True", record("torch.Tensor.bitwise_xor", [t("bool", [2, 3]), {"bool": True}])),
    ("gradient with float spacings", record("torch.gradient", [t("float32", [4, 4, 4])], {
        "spacing": {"list": [{"float": 2.0}, {"float": 1.0}]}, "dim": {"tuple": [{"int": 0}, {"int": 1}]},
        "edge_order": {"int": 2}})),
]
for name, r in scripted:
    got, meta, d = wrap(r)
    same = False
    if meta.get("torchscript"):
        example = template_torch.testdir_example(d, meta)
        outs = [template_torch.ferry_numpy(o) for o in torch.jit.load(os.path.join(d, "model.ts"))(*example)]
        refs = [np.load(os.path.join(d, e["files"][0])) for e in meta["outputs"]]
        same = len(outs) == len(refs) and all(np.array_equal(a, b) for a, b in zip(outs, refs))
    ok(got["status"] == "ok" and meta.get("torchscript_by") == "script" and meta.get("frozen") and same,
       f"{name}: scripted, frozen, the reference's outputs ({meta.get('torchscript_by')}, "
       f"{meta.get('torchscript_error', '')[:200]})")
got, meta, _ = wrap(record("torch.bitwise_xor", [t("int32", [2, 3])], {"other": {"int": 3}}))
ok(meta.get("torchscript_by") == "trace", f"bitwise_xor with other=3 is traced, as before ({meta.get('torchscript_by')})")


# --- undefined domains and overflow ------------------------------------------------------------------------
def undefined(r):
    got, _, _ = wrap(r)
    return got.get("status"), got.get("undefined")


guards = [
    ("int8 matmul that overflows", "integer overflow",
     record("torch.matmul", [t("int8", [2, 2], [100, 100, 100, 100]), t("int8", [2, 2], [1, 1, 1, 1])]),
     record("torch.matmul", [t("int8", [2, 2], [10, 10, 10, 10]), t("int8", [2, 2], [1, 1, 1, 1])])),
    ("uint8 add that wraps around", "integer overflow",
     record("torch.add", [t("uint8", [2], [200, 1]), t("uint8", [2], [100, 1])]),
     record("torch.add", [t("uint8", [2], [20, 1]), t("uint8", [2], [100, 1])])),
    ("int16 multiplication that overflows", "integer overflow",
     record("torch.Tensor.__mul__", [t("int16", [2], [300, 2]), t("int16", [2], [300, 2])]),
     record("torch.Tensor.__mul__", [t("int16", [2], [30, 2]), t("int16", [2], [30, 2])])),
    ("int8 addmm with a constant bias", "integer overflow",
     record("torch.addmm", [t("int8", [1, 1], [120]), t("int8", [1, 1], [10]), t("int8", [1, 1], [1])]),
     record("torch.addmm", [t("int8", [1, 1], [12]), t("int8", [1, 1], [10]), t("int8", [1, 1], [1])])),
    ("integer pow with a negative exponent", "negative exponent",
     record("torch.pow", [t("int32", [3], [2, 3, 4]), t("int32", [3], [1, -1, 2])]),
     record("torch.pow", [t("int32", [3], [2, 3, 4]), t("int32", [3], [1, 1, 2])])),
    ("a Python int to a negative integer power (2 ** x: __rpow__, operands reversed)", "negative exponent",
     record("torch.Tensor.__rpow__", [t("int64", [2], [-1, 2]), {"int": 2}]),
     record("torch.Tensor.__rpow__", [t("int64", [2], [1, 2]), {"int": 2}])),
    ("integer floor division of the lowest value by -1", "division overflow",
     record("torch.floor_divide", [t("int32", [2], [-2147483648, 4]), t("int32", [2], [-1, 2])]),
     record("torch.floor_divide", [t("int32", [2], [-2147483647, 4]), t("int32", [2], [-1, 2])])),
    ("shift by the bit width", "shift by",
     record("torch.bitwise_left_shift", [t("int8", [2], [1, 2]), t("int8", [2], [8, 1])]),
     record("torch.bitwise_left_shift", [t("int8", [2], [1, 2]), t("int8", [2], [7, 1])])),
    ("a right shift operator by a negative amount", "shift by",
     record("torch.Tensor.__rshift__", [t("int32", [2], [16, 2]), t("int32", [2], [-1, 1])]),
     record("torch.Tensor.__rshift__", [t("int32", [2], [16, 2]), t("int32", [2], [31, 1])])),
    ("a cast of NaN to int32", "non-finite",
     record("torch.Tensor.to", [t("float32", [2], [float("nan"), 1.0]), {"dtype": "int32"}]),
     record("torch.Tensor.to", [t("float32", [2], [2.5, 1.0]), {"dtype": "int32"}])),
    ("a cast of 300 to uint8", "out-of-range",
     record("torch.Tensor.to", [t("float32", [2], [300.0, 1.0]), {"dtype": "uint8"}]),
     record("torch.Tensor.to", [t("float32", [2], [255.0, 1.0]), {"dtype": "uint8"}])),
]
for name, reason, bad, good in guards:
    status, why = undefined(bad)
    ok(status == "ok" and why and reason in why, f"{name}: undefined ({status}, {why})")
    status, why = undefined(good)
    ok(status == "ok" and not why, f"... and not on an input in the domain ({status}, {why})")
status, why = undefined(record("torch.floor_divide", [t("int32", [2], [5, 4]), t("int32", [2], [0, 2])]))
ok(status == "invalid" and why is None,
   "integer division by zero: eager PyTorch raises, so the instance is invalid and reaches no frontend")
status, why = undefined(record("torch.Tensor.__pow__", [t("int64", [2], [2, 3]), {"int": -2}]))
ok(status == "invalid", "a tensor to a negative Python int power: eager PyTorch refuses, the instance is invalid")
status, why = undefined(record("torch.div", [t("int32", [2], [5, 4]), t("int32", [2], [0, 2])]))
ok(status == "ok" and not why, "true division of integers by zero is IEEE's inf, defined: not flagged")
status, why = undefined(record("torch.sum", [t("int8", [3], [100, 100, 100])]))
ok(status == "ok" and not why, "an int8 sum is computed in int64 by PyTorch: no overflow, not flagged")

# --- uninitialised memory ------------------------------------------------------------------------------------
for op, inputs in (("torch.empty", [{"int": 3}, {"int": 4}]), ("torch.empty_like", [t("float32", [2, 3])]),
                   ("torch.Tensor.new_empty", [t("float32", [2]), {"list": [{"int": 3}]}])):
    got, meta, _ = wrap(record(op, inputs))
    ok(got.get("random") is True and "uninitialised" in meta.get("random_reason", ""),
       f"{op}: compared by shape and dtype only, with the reason ({got}, {meta.get('random_reason')})")
got, meta, _ = wrap(record("torch.zeros_like", [t("float32", [2, 3])]))
ok(got.get("random") is False and "random_reason" not in meta, "zeros_like is compared by value")

# --- unknown dimensions, resolved together ---------------------------------------------------------------
# A record may leave dimensions unknown (None). They are resolved across the call's tensors at wrap
# time, not each alone as 1 ((None, 3) with (2, None) was (1, 3) with (2, 1), which cat, matmul's
# inner dimension and a convolution's channels reject), and the test directory, build() and the
# reproducer's literals hold the same concrete shapes.


def saved(d, meta, which="inputs"):
    return [tuple(np.load(os.path.join(d, e["files"][0])).shape) for e in meta.get(which, [])]


got, meta, d = wrap(record("torch.add", [t("float32", [None, 3]), t("float32", [2, None])]))
ok(got["status"] == "ok" and saved(d, meta) == [(2, 3), (2, 3)],
   f"torch.add (None, 3) with (2, None): both (2, 3), each size from the other ({got}, {saved(d, meta)})")
ok(meta.get("filled_shapes") == {"inputs[0]": [2, 3], "inputs[1]": [2, 3]},
   f"meta.json's filled_shapes names the tensors so fixed ({meta.get('filled_shapes')})")
test = template_torch.reproducer_test(open(os.path.join(d, "record.json")).read(), d)["test"]
ok("ferry_tensor(SEED, [0], 'float32', [2, 3], None)" in test and "None, 3]" not in test and "2, None]" not in test,
   "the reproducer's literals hold the resolved shapes")
module, inputs = template_torch.load_testdir(d)
ok([tuple(x.shape) for x in inputs] == [(2, 3), (2, 3)], "build() (the adapters' path) makes the same shapes")

got, meta, d = wrap(record("torch.cat", [{"list": [t("float32", [None, 3]), t("float32", [2, None])]}]))
ok(got["status"] == "ok" and saved(d, meta) == [(2, 3), (2, 3)] and saved(d, meta, "outputs") == [(4, 3)],
   f"torch.cat of (None, 3) and (2, None): (2, 3) twice, concatenated to (4, 3) ({got}, {saved(d, meta)})")

got, meta, d = wrap(record("torch.matmul", [t("float32", [3, None]), t("float32", [None, 5])]))
shapes = saved(d, meta)
ok(got["status"] == "ok" and len(shapes) == 2 and shapes[0][1] == shapes[1][0] and shapes[0][1] > 1
   and saved(d, meta, "outputs") == [(3, 5)],
   f"torch.matmul (3, None) @ (None, 5): the inner dimensions agree, not degenerate ({got}, {shapes})")

got, meta, d = wrap(record("torch.bmm", [t("float32", [None, 3, None]), t("float32", [4, None, 5])]))
shapes = saved(d, meta)
ok(got["status"] == "ok" and len(shapes) == 2 and shapes[0][0] == shapes[1][0] == 4 and shapes[0][2] == shapes[1][1],
   f"torch.bmm: the batch from the other operand, the inner dimensions agree ({got}, {shapes})")

got, meta, d = wrap(record("torch.nn.functional.conv2d", [t("float32", [1, None, 8, 8]), t("float32", [4, 3, 3, 3])]))
ok(got["status"] == "ok" and saved(d, meta) == [(1, 3, 8, 8)],
   f"F.conv2d: the input's unknown channels are the constant weight's ({got}, {saved(d, meta)})")

got, meta, d = wrap(record("torch.reshape", [t("int64", [None, 2], [1, 2, 3, 4, 5, 6]), {"tuple": [{"int": -1}]}]))
ok(got["status"] == "ok" and saved(d, meta) == [(3, 2)],
   f"a tensor with kept values: its number of values fixes the unknown dimension ({got}, {saved(d, meta)})")

r = record("torch.add", [t("float32", [None, None]), t("float32", [None])])
r["outputs"] = [t("float32", [4, 6])]
got, meta, d = wrap(r)
ok(got["status"] == "ok" and saved(d, meta) == [(4, 6), (6,)],
   f"sizes no input knows come from the recorded output's shape ({got}, {saved(d, meta)})")

r = record("torch.nn.Linear", [t("float32", [None, None])], {"in_features": {"int": 3}, "out_features": {"int": 4}},
           kind="module")
r["outputs"] = [t("float32", [5, 4])]
got, meta, d = wrap(r)
ok(got["status"] == "ok" and saved(d, meta) == [(5, 3)] and saved(d, meta, "outputs") == [(5, 4)],
   f"nn.Linear: the features its weight wants (an int argument), the batch of its recorded output ({got}, {saved(d, meta)})")

got, meta, d = wrap(record("torch.add", [t("float32", [2, 3]), t("float32", [3])]))
ok(got["status"] == "ok" and "filled_shapes" not in meta, "a record with every dimension known: no filled_shapes")

# a library's message is kept whole: torch.export and Keras put the cause after a first line of context
cause = ValueError("Exception encountered when calling X.call().\n\n\x1b[1mthe real cause\x1b[0m")
ok("the real cause" in template_torch._whole(cause) and "\x1b" not in template_torch._whole(cause),
   f"torch: a message kept whole ({template_torch._whole(cause)!r})")

shutil.rmtree(work, ignore_errors=True)
print(f"1..{len(results)}")
for k, (good, name) in enumerate(results, 1):
    print(f"{'ok' if good else 'not ok'} {k} - {name}")
