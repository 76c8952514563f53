"""Check a corpus of ferry generate against onnx itself: each record (a node record or a graph
record) becomes a model, built here with onnx.helper alone (not with ferry's template, so that a
template bug cannot hide a spec bug), which must pass onnx.checker (full_check) and strict shape
inference with data propagation; every node output's inferred dtype and shape must equal the type the
spec claimed for it (a dim onnx leaves unknown agrees with any); and the model must run in
onnx.reference with inputs drawn from the records' ranges, giving outputs of the claimed shapes.

Usage: python generate_onnx.py CORPUS [--no-run]. Prints one line per disagreement, naming the
operator, and a summary; exits 1 when there is a disagreement."""

import json
import sys
import warnings

import numpy as np
import onnx
from onnx import helper, numpy_helper
from onnx.reference import ReferenceEvaluator

DTYPES = {"float16": np.float16, "float32": np.float32, "float64": np.float64, "int8": np.int8,
          "int16": np.int16, "int32": np.int32, "int64": np.int64, "uint8": np.uint8, "uint16": np.uint16,
          "uint32": np.uint32, "uint64": np.uint64, "bool": np.bool_}


def decode(value):
    tag, body = next(iter(value.items()))
    if tag == "list":
        return [decode(v) for v in body]
    return float(body) if tag == "float" else body


def attribute(op, opset, name, value):
    """An attribute of the kind the operator's schema declares (an empty list is INTS or FLOATS)."""
    kind = onnx.defs.get_schema(op, opset).attributes[name].type
    return helper.make_attribute(name, decode(value), attr_type=kind)


def draw(tensor, rng):
    dtype = DTYPES[tensor["dtype"]]
    shape = tensor["shape"]
    if "values" in tensor:
        return np.array(tensor["values"], dtype=dtype).reshape(shape)
    lo, hi = tensor.get("range", [-1, 1])
    if dtype == np.bool_:
        return rng.integers(0, 2, size=shape).astype(np.bool_)
    if np.issubdtype(dtype, np.integer):
        return rng.integers(int(lo), int(hi) + 1, size=shape).astype(dtype)
    return rng.uniform(lo, hi, size=shape).astype(dtype)


def as_graph(record):
    """The graph member of a record; a node record as a graph of one node."""
    if record["kind"] == "graph":
        return record["graph"], record["inputs"], record["outputs"]
    names, consts, inputs = [], [], []
    for k, v in enumerate(record["inputs"]):
        if "none" in v:
            names.append("")
        elif "values" in v["tensor"]:
            names.append(f"c{k}")
            consts.append({"name": f"c{k}", "tensor": v["tensor"]})
        else:
            names.append(f"x{k}")
            inputs.append(v)
    outputs = [f"t{k}" for k in range(len(record["outputs"]))]
    node = {"op": record["op"], "inputs": names, "outputs": outputs, "params": record["params"],
            "types": [v["tensor"] for v in record["outputs"]]}
    graph = {"inputs": [n for n in names if n.startswith("x")], "constants": consts, "nodes": [node],
             "outputs": outputs}
    return graph, inputs, record["outputs"]


def build(record, rng):
    graph, inputs, outputs = as_graph(record)
    opset = record["context"]["opset"]["int"]
    feeds = {}
    graph_inputs = []
    for name, v in zip(graph["inputs"], inputs):
        t = v["tensor"]
        graph_inputs.append(helper.make_tensor_value_info(name, helper.np_dtype_to_tensor_dtype(np.dtype(DTYPES[t["dtype"]])),
                                                          t["shape"]))
        feeds[name] = draw(t, rng)
    inits = [numpy_helper.from_array(draw(c["tensor"], rng), c["name"]) for c in graph["constants"]]
    nodes = []
    for k, n in enumerate(graph["nodes"]):
        node = helper.make_node(n["op"], n["inputs"], n["outputs"], name=f"n{k}")
        node.attribute.extend(attribute(n["op"], opset, a, v) for a, v in sorted(n["params"].items()))
        nodes.append(node)
    graph_outputs = [helper.make_tensor_value_info(name, helper.np_dtype_to_tensor_dtype(np.dtype(DTYPES[v["tensor"]["dtype"]])),
                                                   v["tensor"]["shape"])
                     for name, v in zip(graph["outputs"], outputs)]
    model = helper.make_model(helper.make_graph(nodes, "g", graph_inputs, graph_outputs, inits),
                              opset_imports=[helper.make_opsetid("", opset)])
    return graph, model, feeds


def claims(graph):
    """{tensor name: (op, dtype, shape)} as the specs claimed."""
    out = {}
    for n in graph["nodes"]:
        for name, t in zip(n["outputs"], n["types"]):
            out[name] = (n["op"], t["dtype"], t["shape"])
    return out


def inferred(model):
    types = {}
    for vi in list(model.graph.value_info) + list(model.graph.output):
        tt = vi.type.tensor_type
        if not tt.HasField("shape"):
            types[vi.name] = (helper.tensor_dtype_to_np_dtype(tt.elem_type).name, None)
            continue
        dims = [d.dim_value if d.HasField("dim_value") else None for d in tt.shape.dim]
        types[vi.name] = (helper.tensor_dtype_to_np_dtype(tt.elem_type).name, dims)
    return types


def agrees(dims, shape):
    """An inferred shape agrees with a claimed one dim by dim; a dim onnx leaves unknown (a data-dependent
    one, as Compress's, or one it does not compute, as OneHot's depth) agrees with any, the run checks it."""
    return len(dims) == len(shape) and all(d is None or d == s for d, s in zip(dims, shape))


def check(record, rng, run):
    graph, model, feeds = build(record, rng)
    problems = []
    onnx.checker.check_model(model, full_check=True)
    # Inference without the declared graph outputs' types, so that what it says comes from the ops.
    bare = onnx.ModelProto()
    bare.CopyFrom(model)
    for o in bare.graph.output:
        o.type.tensor_type.ClearField("shape")
    inf = onnx.shape_inference.infer_shapes(bare, strict_mode=True, data_prop=True)
    types = inferred(inf)
    for name, (op, dtype, shape) in claims(graph).items():
        got = types.get(name)
        if got is None:
            problems.append(f"{op}: no inferred type for {name}")
        elif got[0] != dtype or (got[1] is not None and not agrees(got[1], shape)):
            problems.append(f"{op}: {name} claimed {dtype}{shape}, onnx infers {got[0]}{got[1]}")
    if run and not problems:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            names = [n for n in graph["outputs"]]
            values = ReferenceEvaluator(model).run(names, feeds)
        for name, v in zip(names, values):
            op, dtype, shape = claims(graph)[name]
            if list(np.shape(v)) != shape or np.asarray(v).dtype.name != dtype:
                problems.append(f"{op}: {name} claimed {dtype}{shape}, the reference gave {np.asarray(v).dtype}{list(np.shape(v))}")
    return problems


def main(argv):
    run = "--no-run" not in argv
    path = [a for a in argv if not a.startswith("--")][0]
    rng = np.random.default_rng(0)
    records = nodes = failed = 0
    by_op = {}
    with open(path) as f:
        for line in f:
            record = json.loads(line)
            records += 1
            graph, _, _ = as_graph(record)
            nodes += len(graph["nodes"])
            try:
                problems = check(record, rng, run)
            except Exception as e:  # noqa: BLE001 -- each error is a finding to report, not a crash
                ops = sorted({n["op"] for n in graph["nodes"]})
                problems = [f"{'/'.join(ops) if len(ops) < 4 else 'graph'}: {type(e).__name__}: {str(e).splitlines()[0][:300]}"]
            for p in problems:
                failed += 1
                op = p.split(":")[0]
                by_op[op] = by_op.get(op, 0) + 1
                if by_op[op] <= 3:
                    print(f"record {records} ({record['id']}): {p}")
    print(f"# {records} records, {nodes} nodes, {failed} disagreements" + (f" by operator: {by_op}" if by_op else ""))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
