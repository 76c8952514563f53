"""ferry.templates.onnx_subgraph: the subgraphs of an ONNX test, each an ordinary test directory, for
ferry reduce (src/cmd-reduce.c): the smallest subgraph of a failing multi-node model that still fails
the same way is the bug's reproducer (GenCoG's reducer, node by node).

It works on any wrapped ONNX test directory (model.onnx, input_K.npy, ref_K.npy, meta.json, as
ferry/templates/onnx.py describes them), whatever made the model: a generated graph, or a node test,
which has nothing to reduce.

plan(testdir) says what to try: the model's nodes and the candidate subgraphs, smallest first: each
node alone, then each node with its producers, with theirs, and so on, at most 4 per node. write()
makes one candidate a test directory: its cut tensors (those its nodes read but no node of it makes)
become graph inputs holding the values the original model's reference run gave them (one run of
onnx.reference over the original model with every intermediate tensor exposed, kept for the next
candidate of the same test), its initializers stay initializers, its outputs are the tensors it makes
that none of its nodes reads, and their references are computed again by onnx.reference on the
subgraph. Node and tensor names are the original's, so that a frontend's message about a node reads
the same in the subgraph.

Both take and return strings (JSON), as lib/py.c's py_call_strings passes them. reproducer_test()
makes a reduced test directory's part of a reproducer script (ferry show).
"""

import base64
import json
import os

import numpy as np
import onnx
from onnx import helper
from onnx.reference import ReferenceEvaluator

from ferry.extract import values as ferry_values
from ferry.templates import _files
from ferry.templates import onnx as onnx_template
from ferry.templates.runtime_onnx import ferry_dtype

# Candidates per node of the model: the bound on what a reduction tries.
CANDIDATES_PER_NODE = 4

# The last test whose intermediate values were computed: (testdir, model, {tensor name: value}).
_cache = [None]


def plan(testdir):
    """{"nodes": N, "ops": [each node's op_type, in order], "random": whether meta.json says the
    outputs are random, "candidates": [[node index, ...], ...]}: the candidates smallest first, none
    for a model of one node."""
    model = onnx.load(os.path.join(testdir, "model.onnx"))
    with open(os.path.join(testdir, "meta.json")) as f:
        random = bool(json.load(f).get("random", False))
    nodes = list(model.graph.node)
    return json.dumps({"nodes": len(nodes), "ops": [n.op_type for n in nodes], "random": random,
                       "candidates": _candidates(nodes) if len(nodes) > 1 else []})


def _candidates(nodes):
    made = {}
    for k, node in enumerate(nodes):
        for output in node.output:
            if output:
                made[output] = k
    producers = [{made[name] for name in _reads(node) if name in made} for node in nodes]
    seen, found = set(), []
    for k in range(len(nodes)):
        group = frozenset([k])
        while group not in seen and len(group) < len(nodes):
            seen.add(group)
            found.append(group)
            group = group | frozenset(p for member in group for p in producers[member])
    found.sort(key=lambda g: (len(g), max(g), sorted(g)))
    return [sorted(g) for g in found[:CANDIDATES_PER_NODE * len(nodes)]]


def _reads(node):
    """The tensors a node reads: its inputs, and the outer names its subgraphs (If, Loop, Scan) use."""
    names = [name for name in node.input if name]
    for attribute in node.attribute:
        graphs = [attribute.g] if attribute.type == onnx.AttributeProto.GRAPH else list(attribute.graphs)
        for graph in graphs:
            names.extend(_outer_names(graph))
    return names


def _outer_names(graph):
    inner = {i.name for i in graph.input} | {t.name for t in graph.initializer}
    used = []
    for node in graph.node:
        used.extend(name for name in _reads(node) if name not in inner)
        inner.update(node.output)
    used.extend(o.name for o in graph.output if o.name not in inner)
    return used


def write(testdir, nodes_json, outdir):
    """Write the subgraph of the nodes (indexes into the model's, as plan() gave them) as a test
    directory outdir. Returns {"status": "ok", "nodes": M, "ops": [...]} or {"status": "invalid",
    "reason": ...} when the subgraph cannot be made (a cut tensor that is no tensor) or onnx rejects it."""
    model, values = _intermediates(testdir)
    with open(os.path.join(testdir, "meta.json")) as f:
        meta = json.load(f)
    keep = [model.graph.node[k] for k in json.loads(nodes_json)]
    try:
        sub, feeds = _subgraph(model, keep, values)
        onnx.checker.check_model(sub, full_check=True)
        refs = ReferenceEvaluator(sub).run(None, feeds)
    except Exception as e:  # the subgraph cannot stand alone: not a candidate
        return json.dumps({"status": "invalid", "reason": f"{type(e).__name__}: {e}"[:2000]})
    _write(outdir, meta, sub, keep, feeds, refs)
    return json.dumps({"status": "ok", "nodes": len(keep), "ops": [n.op_type for n in keep]})


def _intermediates(testdir):
    """The model and every tensor's value in the original's reference run (inputs, initializers and
    each node's outputs), computed once per test: the candidates of one reduction come one after
    another."""
    if _cache[0] is not None and _cache[0][0] == testdir:
        return _cache[0][1], _cache[0][2]
    model = onnx.load(os.path.join(testdir, "model.onnx"))
    with open(os.path.join(testdir, "meta.json")) as f:
        meta = json.load(f)
    feeds = {}
    for entry in meta["inputs"]:
        if entry["kind"] != "tensor":  # a sequence input: held, but no subgraph cuts at it
            feeds[entry["name"]] = [_load(testdir, name, entry) for name in entry["files"]]
            continue
        feeds[entry["name"]] = _load(testdir, entry["files"][0], entry)
    names = [o for node in model.graph.node for o in node.output if o]
    values = dict(feeds)
    values.update(zip(names, ReferenceEvaluator(model).run(names, feeds)))
    for t in model.graph.initializer:
        values.setdefault(t.name, onnx.numpy_helper.to_array(t))
    _cache[0] = (testdir, model, values)
    return model, values


def _load(testdir, name, entry):
    value = np.load(os.path.join(testdir, name), allow_pickle=False)
    return value.astype(ferry_dtype(entry["dtype"])) if "stored" in entry else value


def _subgraph(model, keep, values):
    """The model of nodes keep alone, and its feeds."""
    initializers = {t.name: t for t in model.graph.initializer}
    made = {o for node in keep for o in node.output if o}
    read = [name for node in keep for name in _reads(node)]
    cut = []
    for name in read:
        if name not in made and name not in initializers and name not in cut:
            cut.append(name)
    consumed = set(read)
    outputs = [o for node in keep for o in node.output if o and o not in consumed]
    outputs += [o.name for o in model.graph.output if o.name in made and o.name in consumed]
    feeds = {}
    for name in cut:
        value = values.get(name)
        if not isinstance(value, np.ndarray):
            raise ValueError(f"the cut tensor {name!r} is not a tensor")
        feeds[name] = value
    graph = helper.make_graph(
        keep, model.graph.name or "subgraph",
        [_info(name, feeds[name]) for name in cut],
        [_info(name, values[name]) for name in outputs],
        [initializers[name] for name in dict.fromkeys(read) if name in initializers and name not in made])
    sub = helper.make_model(graph, opset_imports=list(model.opset_import), ir_version=model.ir_version)
    return sub, feeds


def _info(name, value):
    value = np.asarray(value)
    return helper.make_tensor_value_info(name, helper.np_dtype_to_tensor_dtype(value.dtype), list(value.shape))


def _write(outdir, meta, sub, keep, feeds, refs):
    os.close(_files.open_dir(outdir, 1))  # the candidate cK, in the directory ferry reduce made for it
    with _files.create(os.path.join(outdir, "model.onnx")) as f:
        f.write(sub.SerializeToString())
    out = {
        "id": meta.get("id"), "op": keep[0].op_type if len(keep) == 1 else "graph",
        "opset": meta.get("opset"), "random": meta.get("random", False),
        "opset_imports": meta.get("opset_imports"), "ir_version": sub.ir_version,
        "reduced_from": {"nodes": [n.name for n in keep]},
        "inputs": [onnx_template._save(outdir, "input", k, i.name, "tensor", _dtype(feeds[i.name]), feeds[i.name])
                   for k, i in enumerate(sub.graph.input)],
        "outputs": [onnx_template._save(outdir, "ref", k, o.name, "tensor", _dtype(ref), ref)
                    for k, (o, ref) in enumerate(zip(sub.graph.output, refs))],
    }
    with _files.create(os.path.join(outdir, "meta.json"), "w") as f:
        json.dump(out, f, indent=1)


def _dtype(value):
    return ferry_values.dtype_name(np.asarray(value).dtype)


# --- reproducer ----------------------------------------------------------------------------------------

def reproducer_test(record_json, testdir):
    """The test's own part of a reproducer for a reduced test directory, as
    ferry.templates.onnx.reproducer_test gives one for a record (ferry/oracle/reproducer.py assembles
    the script): the subgraph has no record to rebuild it from, so the script carries its model and
    inputs as they are, the model's bytes and each input's .npy file in base64, and runs
    onnx.reference on them. record_json is the original test's record, named in the header."""
    record = json.loads(record_json)
    with open(os.path.join(testdir, "meta.json")) as f:
        meta = json.load(f)
    with open(os.path.join(testdir, "model.onnx"), "rb") as f:
        model = f.read()
    nodes = len(onnx.load_from_string(model).graph.node)
    inputs = []
    for entry in meta["inputs"]:
        with open(os.path.join(testdir, entry["files"][0]), "rb") as f:
            data = base64.b64encode(f.read()).decode("ascii")
        real = f", {entry['dtype']!r}" if "stored" in entry else ""
        inputs.append(f"    {entry['name']!r}: _array({data!r}{real}),")
    source = record.get("source", {})
    test = f'''RANDOM = {bool(meta.get("random", False))!r}  # True for random outputs: then only dtypes and shapes are compared

# the subgraph ferry reduce left of the failing model: {nodes} node(s)
MODEL = base64.b64decode({base64.b64encode(model).decode("ascii")!r})
model = onnx.load_from_string(MODEL)


def _array(data, dtype=None):
    value = np.load(io.BytesIO(base64.b64decode(data)), allow_pickle=False)
    return value if dtype is None else value.astype(ferry_dtype(dtype))


inputs = {{
{chr(10).join(inputs)}
}}
''' + onnx_template._run("MODEL")
    ops = ", ".join(n.op_type for n in onnx.load_from_string(model).graph.node)
    return {"what": f"{ops} (reduced from {record.get('op', '?')}, opset {meta.get('opset')})",
            "instance": record.get("id", "-"),
            "source": " ".join(str(source[k]) for k in ("suite", "test", "node") if k in source),
            "reference": "onnx.reference", "name": "ONNX", "op": str(meta.get("op", "")),
            "imports": "import base64\nimport io\nimport sys\nimport traceback\n\nimport onnx\nimport onnx.reference\n",
            "test": test}
