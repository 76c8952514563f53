"""Unit tests of what the PyTorch instrumentation (extract/instrument_torch.py) records on real
PyTorch, and what it leaves out and counts: out=None recorded, out=tensor dropped; set-up calls
(construction, copies, detaches, moves, shape queries) never instances; uninitialised memory never
recorded as values; lazy modules recorded as the module they became, with their inferred arguments;
MultiheadAttention's fast path taken under the instrumentation. Prints TAP; run by
tests/unit/test-torch-harvest.sh."""

import json
import sys
import warnings
from unittest import mock

import torch

warnings.simplefilter("ignore")

from ferry.extract import instrument_torch  # noqa: E402
from ferry.templates import torch as template_torch  # noqa: E402

results = []


def ok(cond, name):
    results.append((bool(cond), name))


def is_(got, want, name):
    ok(got == want, name)
    if got != want:
        results.append((True, f"# got {json.dumps(got, default=str)[:400]}\n# want {json.dumps(want, default=str)[:400]}"))


def harvest(fn):
    """(records, dropped) of fn() run under the instrumentation, recording."""
    records = []
    with instrument_torch.Recorder(records.append) as rec, rec.recording():
        fn()
    return records, dict(rec.dropped)


def at(records, i):
    """records[i], or an empty record when there are fewer (the checks fail instead of the script)."""
    return records[i] if len(records) > i else {"op": None, "params": {}, "inputs": [{"tensor": {}}]}


def ops(records):
    return [r["op"] for r in records]


def values_anywhere(record):
    """Whether any tensor of the record's inputs and params keeps values or a range."""
    text = json.dumps([record.get("inputs"), record.get("params")])
    return '"values"' in text or '"range"' in text


# --- out=: None is the default spelled out; a tensor is a write into the caller's memory
a, b = torch.randn(3, 4), torch.randn(4, 5)
records, dropped = harvest(lambda: (torch.tensordot(a, b, dims=1, out=None), torch.add(a, a, out=torch.empty(3, 4))))
is_(ops(records), ["torch.tensordot"], "a call with out=None is recorded; one with an out= tensor is not")
is_(at(records, 0).get("op_alias"), "torch.functional.tensordot",
    "under its public name, the module PyTorch defines it in kept as its alias")
plain, _ = harvest(lambda: torch.add(a, a))
ok(ops(plain) == ["torch.add"] and "op_alias" not in at(plain, 0), "a public name has no alias")
ok("out" not in at(records, 0)["params"], "out=None is not part of the usage (it merges with the call without it)")
is_(dropped.get("writes into an out= tensor"), 1, "the out= tensor call is counted under its reason")

# --- set-up is not an operator usage
x = torch.randn(2, 3)


def setup_calls():
    torch.tensor([[1.0, 2.0]])
    torch.as_tensor([1, 2])
    torch.from_numpy(x.numpy())
    torch.zeros(2, 3)             # given no tensor: the test's own input
    x.clone()
    x.detach()
    x.contiguous()
    torch.empty(3).copy_(x[0])
    x.to(torch.float32)           # the dtype it has: only moving
    x.float()
    x.size()
    _ = x.shape
    x.numel()
    x.tolist()
    torch.empty(3).uniform_()
    x.to(torch.float64)           # a cast: an operator
    x.int()                       # a cast too
    torch.zeros_like(x)           # given a tensor: an operator (ConstantOfShape of its shape)


records, dropped = harvest(setup_calls)
is_(ops(records), ["torch.Tensor.__getitem__", "torch.Tensor.to", "torch.Tensor.int", "torch.zeros_like"],
    "construction, copies, detaches, moves, fills, conversions and shape queries are not instances; casts are")
is_(dropped.get("set-up: tensor construction"), 2, "torch.tensor, as_tensor: counted as construction (from_numpy is "
    "not overridable: PyTorch shows it to no mode)")
is_(dropped.get("set-up: conversion out of PyTorch"), 2, "numpy(), tolist(): counted as conversions")
is_(dropped.get("set-up: copy or detach"), 4, "clone, detach, contiguous, copy_: counted as copies")
is_(dropped.get("set-up: moves a tensor without changing its dtype"), 2, "to(its own dtype), float() of a float32")
is_(dropped.get("shape query"), 3, "size(), shape, numel(): counted as shape queries")
is_(dropped.get("set-up: random values"), 1, "uniform_: counted as a random fill")

# --- uninitialised memory never enters a record
e = None


def uninitialised():
    global e
    e = torch.empty(4, 5)
    torch.relu(e)                       # garbage in
    torch.relu(e[1:])                   # a view of it: garbage too
    torch.sigmoid(e + 1)                # computed from it: garbage too
    torch.relu(torch.empty_like(x))
    torch.relu(x.new_empty(2, 3))
    torch.relu(torch.empty_strided((2, 2), (2, 1)))
    w = torch.empty(2, 3)
    torch.nn.init.uniform_(w)           # written: its values are values now
    torch.relu(w)
    z = torch.empty(2, 2)
    z[:] = 1.5
    torch.relu(z)
    torch.nn.Linear(5, 2)(torch.empty(3, 5))   # a module's input too


records, dropped = harvest(uninitialised)
is_(ops(records), ["torch.relu", "torch.Tensor.__getitem__", "torch.relu", "torch.Tensor.add", "torch.sigmoid"]
    + ["torch.relu"] * 5 + ["torch.nn.Linear"], "the calls on uninitialised tensors are recorded")
written = records[8:10]  # relu(w), relu(z)
garbage = records[:8] + records[10:]
ok(len(written) == 2 and not any(values_anywhere(r) for r in garbage),
   "inputs made by empty, empty_like, new_empty, empty_strided, their views and what is computed from "
   "them are recorded by dtype and shape only")
is_(at(records, 0)["inputs"], [{"tensor": {"dtype": "float32", "shape": [4, 5]}}], "... dtype and shape kept")
ok(values_anywhere(written[0]), "a tensor written by nn.init after empty() keeps its values")
is_(written[1]["inputs"][0]["tensor"].get("values"), [1.5] * 4, "a tensor written with x[:] = v keeps them")
text = json.dumps(records)
ok("e-310" not in text and "e+223" not in text, "no denormal or huge garbage in any record")

# --- lazy modules: recorded as what they became, with what they inferred
records, dropped = harvest(lambda: (torch.nn.LazyLinear(7)(torch.randn(2, 5)), torch.nn.LazyConv2d(4, 3)(torch.randn(1, 2, 6, 6)),
                                    torch.nn.LazyBatchNorm1d()(torch.randn(4, 3))))
is_(ops(records), ["torch.nn.Linear", "torch.nn.Conv2d", "torch.nn.BatchNorm1d"],
    "lazy modules are recorded as the module they became")
is_(at(records, 0)["params"], {"out_features": {"int": 7}, "in_features": {"int": 5}}, "LazyLinear: Linear with in_features")
is_(at(records, 1)["params"].get("in_channels"), {"int": 2}, "LazyConv2d: Conv2d with in_channels")
is_(at(records, 2)["params"].get("num_features"), {"int": 3}, "LazyBatchNorm1d: BatchNorm1d with num_features")
try:
    built = template_torch._Plan(at(records, 0)).build().module
    ok(type(built) is torch.nn.Linear and built.in_features == 5 and built.out_features == 7,
       "the template rebuilds the LazyLinear's record as Linear(5, 7)")
except Exception as ex:  # noqa: BLE001
    ok(False, f"the template rebuilds the LazyLinear's record as Linear(5, 7): {type(ex).__name__}: {ex}")
records = []
with instrument_torch.Recorder(records.append) as rec:
    lazy = torch.nn.LazyLinear(3)
    lazy(torch.randn(1, 4))  # materialized before recording starts
    with rec.recording():
        lazy(torch.randn(2, 4))
is_((ops(records), at(records, 0)["params"].get("in_features")), (["torch.nn.Linear"], {"int": 4}),
    "a lazy module materialized before recording: Linear with its in_features")

# --- MultiheadAttention's fast path: with a TorchFunctionMode active has_torch_function() is true
# and the module falls back to the slow path; the instrumentation must leave PyTorch as it is.
mha = torch.nn.MultiheadAttention(8, 2, batch_first=True).eval()
q = torch.randn(2, 4, 8)
fast = torch._native_multi_head_attention


def attention():
    with torch.no_grad():
        return mha(q, q, q, need_weights=False)


with mock.patch.object(torch, "_native_multi_head_attention", wraps=fast) as plain:
    want = attention()[0]
ok(plain.call_count == 1, "without ferry, MultiheadAttention takes its fast path (the observable works)")
with mock.patch.object(torch, "_native_multi_head_attention", wraps=fast) as spy:
    records, dropped = harvest(attention)
is_(spy.call_count, 1, "under the instrumentation, MultiheadAttention still takes its fast path")
is_(ops(records), ["torch.nn.MultiheadAttention"], "... and is recorded at the module boundary")
ok(torch.overrides._is_torch_function_mode_enabled() is False, "the mode is gone after leaving")
layer = torch.nn.TransformerEncoderLayer(8, 2, dim_feedforward=16, batch_first=True).eval()
with mock.patch.object(torch, "_transformer_encoder_layer_fwd", wraps=torch._transformer_encoder_layer_fwd) as spy:
    with torch.no_grad():  # one of its conditions
        layer(q)
    plain = spy.call_count
    with torch.no_grad():
        records, dropped = harvest(lambda: layer(q))
ok(plain == 1, "without ferry, TransformerEncoderLayer takes its fast path")
is_(spy.call_count, 2, "TransformerEncoderLayer takes its fast path under the instrumentation too")


# a test's own module keeps the mode inside: its forward is test code, recorded
class Mine(torch.nn.Module):
    def forward(self, t):
        return torch.nn.functional.relu(t) * 2


records, dropped = harvest(lambda: Mine()(x))
is_(ops(records), ["torch.nn.functional.relu", "torch.Tensor.mul"], "a test's own module's forward is still recorded call by call")

# --- memory: a large input's range is computed without copies of it (the harvest of a real suite
# must stay near plain pytest's peak; whole-array float64 copies made it 2.7 times as much)
import tracemalloc  # noqa: E402

import numpy as np  # noqa: E402

from ferry.extract import values as ferry_values  # noqa: E402

big = np.random.default_rng(0).standard_normal((2048, 4096), dtype=np.float32).T  # 32 MiB, not contiguous
big[5, 7], big[9, 1] = np.inf, np.nan
tracemalloc.start()
encoded = ferry_values.tensor(big)
peak = tracemalloc.get_traced_memory()[1]
tracemalloc.stop()
finite = big[np.isfinite(big)]
is_(encoded["tensor"]["range"], [float(np.floor(finite.min())), float(np.ceil(finite.max()))],
    "the range of a large non-contiguous tensor with an inf and a NaN is its finite elements' range")
ok(peak < big.nbytes // 2, f"... computed with temporaries of less than half its size ({peak >> 20} MiB of "
   f"{big.nbytes >> 20} MiB)")
ints = np.arange(-3, 5_000_000, dtype=np.int64)
is_(ferry_values.tensor(ints)["tensor"]["range"], [-3.0, 4999999.0], "an integer tensor's range")

n = 0
for good, name in results:
    if name.startswith("#"):
        print(name)
        continue
    n += 1
    print(f"{'ok' if good else 'not ok'} {n} - {name}")
print(f"1..{n}")
sys.exit(0 if all(good for good, _ in results) else 1)
