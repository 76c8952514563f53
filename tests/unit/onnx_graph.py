"""Unit tests of the ONNX template on records of kind "graph" (ferry generate's multi-node graphs):
the model of their nodes, a node's wrong claim named by its index and operator, the search for
finite outputs and the marking of graphs that have none, validate(), and a reproducer that rebuilds
the very model and inputs of the test directory. Prints TAP; run by tests/unit/test-onnx-graph.sh."""

import copy
import json
import os
import tempfile
import warnings

warnings.simplefilter("ignore")

import numpy as np  # noqa: E402
import onnx  # noqa: E402
from tap import done, is_, ok  # noqa: E402

from ferry.templates import onnx as template  # noqa: E402
from ferry.templates import runtime_onnx  # noqa: E402

here = os.path.dirname(os.path.abspath(__file__))
with open(os.path.join(here, "..", "data", "gen-graphs", "graphs.jsonl")) as f:
    GRAPHS = {json.loads(line)["source"]["test"]: json.loads(line) for line in f}


def wrap(rec):
    d = tempfile.mkdtemp()
    result = template.wrap(json.dumps(rec), d)
    meta = None
    if os.path.exists(os.path.join(d, "meta.json")):
        with open(os.path.join(d, "meta.json")) as f:
            meta = json.load(f)
    return result, meta, d


# --- every valid graph wraps; its model passes the checker with strict shape inference
for name, rec in GRAPHS.items():
    if name == "wrong-maxpool-claim":
        continue
    result, meta, d = wrap(rec)
    if not is_(result.get("status"), "ok", f"{name} wraps ({result.get('reason', '')[:200]})"):
        continue
    model = onnx.load(os.path.join(d, "model.onnx"))
    try:
        onnx.checker.check_model(model, full_check=True)
        checked = True
    except Exception as e:  # noqa: BLE001 - the test reports it
        checked = str(e)
    ok(checked is True, f"{name}: model.onnx passes the checker with strict inference")
    nodes = rec["graph"]["nodes"]
    ok([n.name for n in model.graph.node] == [f"n{k}" for k in range(len(nodes))]
       and [n.op_type for n in model.graph.node] == [n["op"] for n in nodes], f"{name}: nodes n0.. in order")
    is_((meta["op"], meta["ops"], meta["nodes"]), ("graph", sorted({n["op"] for n in nodes}), len(nodes)),
        f"{name}: meta says graph, its op types and node count")
    ok(len(meta["inputs"]) == len(rec["inputs"]) and len(meta["outputs"]) == len(rec["outputs"]),
       f"{name}: one input_K per graph input, one ref_K per graph output")

# --- constants are initializers: exact values kept, ranged ones drawn from the id's seed
result, meta, d = wrap(GRAPHS["conv-relu-maxpool"])
model = onnx.load(os.path.join(d, "model.onnx"))
inits = {t.name: onnx.numpy_helper.to_array(t) for t in model.graph.initializer}
plan = template._GraphPlan(GRAPHS["conv-relu-maxpool"])
want = runtime_onnx.ferry_input(plan.seed, [template.CONSTANT_KEY, 0], "float32", [4, 3, 3, 3], [-1, 1])
ok(sorted(inits) == ["c0", "c1"] and np.array_equal(inits["c0"], want),
   "the weights are initializers drawn from the record's seed")
ok([i.name for i in model.graph.input] == ["x0"], "... and not graph inputs")
result, meta, d = wrap(GRAPHS["reshape-const-transpose"])
inits = {t.name: onnx.numpy_helper.to_array(t) for t in onnx.load(os.path.join(d, "model.onnx")).graph.initializer}
ok(inits["c0"].tolist() == [6, 4] and inits["c0"].dtype == np.int64, "a kept shape is an exact int64 initializer")

# --- the same record, the same test; another id, other values
a, _, da = wrap(GRAPHS["matmul-add-softmax"])
b, _, db = wrap(GRAPHS["matmul-add-softmax"])
same = all(open(os.path.join(da, f), "rb").read() == open(os.path.join(db, f), "rb").read()
           for f in ("model.onnx", "input_0.npy", "ref_0.npy"))
ok(same, "wrapping twice writes the same model, inputs and references")
other = dict(GRAPHS["matmul-add-softmax"], id="0123456789abcdef0123456789abcdef")
_, _, dc = wrap(other)
ok(not np.array_equal(np.load(os.path.join(da, "input_0.npy")), np.load(os.path.join(dc, "input_0.npy"))),
   "another id draws other input values")

# --- a node's wrong claim: invalid, naming the node's index and operator, and both shapes
result, _, _ = wrap(GRAPHS["wrong-maxpool-claim"])
is_(result, {"status": "invalid", "reason": "SpecDisagrees: spec disagrees with ONNX shape inference: node 3 "
             "(MaxPool) output 0: spec [1,4,2,2], onnx [1,4,3,3]"}, "a wrong MaxPool claim names node 3 (MaxPool)")
wrong = copy.deepcopy(GRAPHS["matmul-add-softmax"])
wrong["graph"]["nodes"][1]["types"][0]["dtype"] = "float16"
is_(wrap(wrong)[0].get("reason"), "SpecDisagrees: spec disagrees with ONNX shape inference: node 1 (Add) "
    "output 0: spec float16, onnx float32", "a wrong dtype claim names node 1 (Add)")
# NonZero's output size depends on the values: shape inference cannot say it, the reference does.
nonzero = {"library": "onnx", "kind": "graph", "op": "graph", "context": {"opset": {"int": 17}},
           "params": {"nodes": {"int": 2}, "ops": {"list": [{"str": "Abs"}, {"str": "NonZero"}]}},
           "inputs": [{"tensor": {"dtype": "float32", "shape": [4], "range": [0.5, 2]}}],
           "outputs": [{"tensor": {"dtype": "int64", "shape": [1, 2]}}],
           "graph": {"inputs": ["x0"], "constants": [],
                     "nodes": [{"op": "Abs", "inputs": ["x0"], "outputs": ["t0"], "params": {},
                                "types": [{"dtype": "float32", "shape": [4]}]},
                               {"op": "NonZero", "inputs": ["t0"], "outputs": ["t1"], "params": {},
                                "types": [{"dtype": "int64", "shape": [1, 2]}]}],
                     "outputs": ["t1"]}}
is_(wrap(nonzero)[0].get("reason"), "SpecDisagrees: spec disagrees with the ONNX reference: node 1 (NonZero) "
    "output 0: spec [1,2], reference [1,4]", "a claim only the reference refutes names node 1 (NonZero)")
broken = copy.deepcopy(GRAPHS["matmul-add-softmax"])
broken["graph"]["nodes"][1]["inputs"] = ["t9", "c1"]
is_(wrap(broken)[0].get("reason"), "ValueError: graph.nodes[1].inputs[0]: no input, constant or earlier node "
    "makes 't9'", "a node using a tensor nothing makes is invalid, named")

# --- finite outputs where a range gives them; marked where none does
result, meta, d = wrap(GRAPHS["sqrt-log-needs-positive"])
ok("undefined" not in result and meta.get("bounds") == [0.5, 2.0], "Sqrt then Log: inputs drawn from [0.5, 2]")
ok(np.isfinite(np.load(os.path.join(d, "ref_0.npy"))).all(), "... and the reference is finite")
result, meta, d = wrap(GRAPHS["conv-relu-maxpool"])
ok("bounds" not in meta, "a graph finite on its own ranges keeps them")
is_(wrap(GRAPHS["exp-neg-log-nan"])[0].get("undefined"), "the reference is NaN everywhere",
    "Log of -Exp: NaN for every input, marked undefined")
is_(wrap(GRAPHS["reciprocal-of-zero-inf"])[0].get("undefined"), template.NOT_FINITE,
    "1 / (x - x): Inf for every input, marked undefined")
is_(wrap(GRAPHS["int-div-by-zero"])[0].get("undefined"), "node 1 (Div): integer division by zero",
    "an integer division by zero inside the graph: the guard names the node")

# --- values in question, not conversions: a node that jumps near its boundary, float16 rounding
def graph(dtype, xs, constants, nodes, out_type):
    return {"library": "onnx", "kind": "graph", "op": "graph", "context": {"opset": {"int": 17}},
            "params": {}, "source": {"suite": "hand", "test": "boundary"},
            "inputs": [{"tensor": {"dtype": dtype, "shape": [len(xs)], "values": xs}}],
            "outputs": [{"tensor": out_type}],
            "graph": {"inputs": ["x0"],
                      "constants": [{"name": f"c{j}", "tensor": {"dtype": dtype, "shape": [len(v)], "values": v}}
                                    for j, v in enumerate(constants)],
                      "nodes": [{"op": op, "inputs": ins, "outputs": [f"t{k}"], "params": {},
                                 "types": [out_type if k == len(nodes) - 1 else {"dtype": dtype, "shape": [len(xs)]}]}
                                for k, (op, ins) in enumerate(nodes)],
                      "outputs": [f"t{len(nodes) - 1}"]}}


f32 = {"dtype": "float32", "shape": [2]}
result = wrap(graph("float32", [0.25, 1.0], [[2.0, 2.0]], [("Mul", ["x0", "c0"]), ("Round", ["t0"])], f32))[0]
ok(result.get("undefined", "").startswith("node 1 (Round): an input lies within the oracle's tolerance of a half")
   and result.get("undefined_values") is True, "Round of a computed half: its values in question, crashes still count")
result = wrap(graph("float32", [0.5, 1.0], [], [("Round", ["x0"])], f32))[0]
ok("undefined" not in result, "Round of an exact graph input is not marked: its half is the same everywhere")
result = wrap(graph("float32", [0.3, 1.7], [[2.0, 2.0]], [("Mul", ["x0", "c0"]), ("Round", ["t0"])], f32))[0]
ok("undefined" not in result, "Round of computed values far from a half is not marked")
result = wrap(graph("float32", [1.0, 2.0], [[1.0002, 5.0]], [("Exp", ["x0"]), ("Log", ["t0"]), ("Less", ["t1", "c0"])],
                    {"dtype": "bool", "shape": [2]}))[0]
ok(result.get("undefined", "").startswith("node 2 (Less): its inputs are within the oracle's tolerance"),
   "Less of a computed value and a constant 2e-4 apart is marked")
# float16: exp(2) rounds to 7.390625 (7.389056 in float32); less 7.38, times 100, float16 says 1.17
# where float32 says 1.01: beyond the float16 tolerance, so float16's own rounding decides
f16 = {"dtype": "float16", "shape": [1]}
half = graph("float16", [2.0], [[7.38], [100.0]], [("Exp", ["x0"]), ("Sub", ["t0", "c0"]), ("Mul", ["t1", "c1"])], f16)
half["graph"]["nodes"][2]["types"] = [f16]
half["graph"]["nodes"][0]["types"] = half["graph"]["nodes"][1]["types"] = [f16]
result = wrap(half)[0]
ok(result.get("undefined", "").startswith("output 0: computed in float32 it lands beyond the float16 tolerance")
   and result.get("undefined_values") is True, "a float16 graph its own rounding decides is marked")
half["graph"]["constants"][0]["tensor"]["values"] = [0.0]
half["graph"]["constants"][1]["tensor"]["values"] = [1.0]
ok("undefined" not in wrap(half)[0], "... exp(2) less 0, times 1: float16 and float32 agree within the oracle's bound")
cast = graph("float32", [300.0, 2.0], [[1.0, 1.0]], [("Mul", ["x0", "c0"]), ("Cast", ["t0"])],
             {"dtype": "uint8", "shape": [2]})
cast["graph"]["nodes"][1]["params"] = {"to": {"int": onnx.TensorProto.UINT8}}
result = wrap(cast)[0]
ok(result.get("undefined", "").startswith("node 1 (Cast): a value NaN or beyond the range of uint8")
   and result.get("undefined_values") is True, "a float cast to uint8 beyond its range is undefined")

# --- validate(): the same judgement, writing nothing; outputs the reference's
r = template.validate(json.dumps(GRAPHS["conv-relu-maxpool"]))
is_((r.get("status"), json.loads(r.get("outputs", "null"))),
    ("ok", [{"tensor": {"dtype": "float32", "shape": [1, 4, 3, 3]}}]), "validate() of a graph: ok, its outputs")
r = template.validate(json.dumps(GRAPHS["wrong-maxpool-claim"]))
ok(r.get("status") == "invalid" and "node 3 (MaxPool)" in r.get("reason", ""), "validate() finds the wrong claim")
is_(template.validate(json.dumps(GRAPHS["exp-neg-log-nan"])).get("undefined"), "the reference is NaN everywhere",
    "validate() says a NaN graph is undefined")

# --- the reproducer's lines build the same model and inputs as the test directory
for name in ("conv-relu-maxpool", "sqrt-log-needs-positive", "split-two-outputs"):
    rec = GRAPHS[name]
    _, meta, d = wrap(rec)
    test = template.reproducer_test(json.dumps(rec), d)
    scope = {name: getattr(runtime_onnx, name) for name in dir(runtime_onnx) if name.startswith("ferry_")}
    scope["np"] = np
    exec(test["test"].split("try:")[0], scope)  # the literals, up to the runs
    built = scope["model"].SerializeToString() == open(os.path.join(d, "model.onnx"), "rb").read()
    feeds = all(np.array_equal(scope["inputs"][e["name"]], np.load(os.path.join(d, e["files"][0])))
                for e in meta["inputs"])
    ok(built and feeds, f"{name}: the reproducer's model and inputs are the test's, byte for byte")
    ok(test["what"].startswith(f"a graph of {len(rec['graph']['nodes'])} nodes"), f"{name}: its header says a graph")

done()
