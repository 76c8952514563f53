"""harvest_onnx: the operator instances of ONNX's own node tests (onnx/backend/test/case/node).

Each node test is a small model with one data set. Every node of it becomes an instance: the single node
of a plain test, and each node of the function-expanded tests (*_expanded), whose inner nodes are seen
with the concrete values the reference evaluator computes for them on the test's data. The C side calls
harvest() through the embedded interpreter of a harvest child (channel); records go back through
ferry.emit, one JSON text each, in the form of lib/record.h (without "id": the C side computes it from
the canonical form). Each node test is one test for channel: numbered, and skipped when an
earlier process did it.
"""

import base64
import fnmatch
import json
import os
import sys
import warnings
import zlib

import numpy as np
import onnx
from onnx import AttributeProto, numpy_helper

from ferry.extract import channel
from ferry.extract import values as ferry_values

SUITE = "onnx-node"
PROGRESS_EVERY = 50

# Where each test case was defined, filled while the test-case modules are imported (see _collect).
_origins = {}


def harvest(ferry, patterns):
    """Emit the instances of every node test whose name matches one of the fnmatch patterns (all of
    them when patterns is empty). Returns {"tests": number of tests read}."""
    with warnings.catch_warnings():
        # The tests divide by zero and overflow on purpose; numpy's warnings about it are noise here.
        warnings.simplefilter("ignore")
        return _harvest(ferry, patterns)


def _harvest(ferry, patterns):
    cases = [c for c in _collect()
             if not patterns or any(fnmatch.fnmatchcase(c.name, p) for p in patterns)]
    read = 0
    for done, case in enumerate(cases, 1):
        if channel.begin(ferry, case.name):
            try:
                records = _case_records(case)
            except Exception as e:  # a test we cannot read is reported and skipped, whatever the cause
                ferry.skip(_one_line(e), case.name)
            else:
                for record in records:
                    ferry.emit(json.dumps(record, separators=(",", ":"), allow_nan=False))
                read += 1
            channel.finish(ferry, {"tests": read})
        if done % PROGRESS_EVERY == 0 or done == len(cases):
            ferry.progress(done, len(cases), SUITE)
    return {"tests": read}


def _one_line(e):
    return f"{type(e).__name__}: {e}".splitlines()[0]


# --- the test cases ------------------------------------------------------------------------------------

def _collect():
    """Every node test case the installed onnx knows.

    The test-case modules build their cases at import time by calling expect(); expect is wrapped
    for that import so that each case's defining file and line is known (source.file, source.line).
    Some cases draw their data from numpy's global generator without seeding it; it is seeded here,
    so that two harvests give the same values, and so the same instance ids."""
    saved = np.random.get_state()
    np.random.seed(0)
    try:
        return _import_cases()
    finally:
        np.random.set_state(saved)


def _import_cases():
    import onnx.backend.test.case.node as node_cases
    from onnx.backend.test import loader

    real_expect = node_cases.expect

    def expect(*args, **kwargs):
        before = len(node_cases._NodeTestCases)
        real_expect(*args, **kwargs)
        caller = sys._getframe(1)
        for case in node_cases._NodeTestCases[before:]:
            _origins[case.name] = (caller.f_code.co_filename, caller.f_lineno)

    node_cases.expect = expect
    try:
        if os.path.isdir(os.path.join(loader.DATA_DIR, "node")):
            return loader.load_model_tests(kind="node")
        return node_cases.collect_testcases(None)
    finally:
        node_cases.expect = real_expect


def _case_data(case):
    """The model and its first data set (inputs, outputs), from memory or from the data directory."""
    if case.model is not None:
        model = case.model
        inputs, outputs = case.data_sets[0]
        return model, [_live(x) for x in inputs], [_live(x) for x in outputs]
    model = onnx.load(os.path.join(case.model_dir, "model.onnx"))
    data_dir = os.path.join(case.model_dir, "test_data_set_0")

    def read(prefix, infos):
        return [_read_value(os.path.join(data_dir, f"{prefix}_{i}.pb"), info.type)
                for i, info in enumerate(infos)
                if os.path.exists(os.path.join(data_dir, f"{prefix}_{i}.pb"))]

    return model, read("input", model.graph.input), read("output", model.graph.output)


def _read_value(path, type_proto):
    with open(path, "rb") as f:
        data = f.read()
    kind = type_proto.WhichOneof("value")
    if kind == "sequence_type":
        return [_live(x) for x in numpy_helper.to_list(onnx.SequenceProto.FromString(data))]
    if kind == "optional_type":
        optional = onnx.OptionalProto.FromString(data)
        if not any(optional.HasField(f) for f in ("tensor_value", "sequence_value")):
            return None  # an empty optional; to_optional would trip over its undefined element type
        return _live(numpy_helper.to_optional(optional))
    return numpy_helper.to_array(onnx.TensorProto.FromString(data))


def _live(x):
    """A data-set entry as an ndarray, a list of them (a sequence) or None (an empty optional)."""
    if x is None:
        return None
    if isinstance(x, onnx.TensorProto):
        return numpy_helper.to_array(x)
    if isinstance(x, list):
        return [_live(e) for e in x]
    return np.asarray(x)


def _domain(d):
    return "" if d in ("", "ai.onnx") else d


def _case_records(case):
    model, inputs, outputs = _case_data(case)
    graph = model.graph
    opsets = {_domain(o.domain): o.version for o in model.opset_import}
    values = {info.name: v for info, v in zip(graph.input, inputs)}
    values.update((t.name, numpy_helper.to_array(t)) for t in graph.initializer)
    types = {}
    if len(graph.node) == 1:
        values.update((info.name, v) for info, v in zip(graph.output, outputs))
    else:
        values, types = _inner_values(model, values)

    origin = _origins.get(case.name)
    source = {"suite": SUITE, "test": case.name}
    if origin is not None:
        onnx_parent = os.path.dirname(os.path.dirname(onnx.__file__))
        source["file"] = os.path.relpath(origin[0], onnx_parent)
        source["line"] = origin[1]
    return [_record(node, index, opsets, values, types, source)
            for index, node in enumerate(graph.node)]


_RANDOM_OPS = {"RandomUniform", "RandomUniformLike", "RandomNormal", "RandomNormalLike", "Multinomial",
               "Bernoulli"}


def _seeded(model):
    """The model with a seed on every random node that has none. The reference evaluator seeds an
    unseeded random node from the operating system, so the values it feeds to the nodes after it
    (test_bernoulli_expanded's Greater and Cast) would differ between harvests, and with them the
    ids of those instances. Only this evaluated copy changes; the records keep the test's own
    attributes."""
    if not any(n.op_type in _RANDOM_OPS and not any(a.name == "seed" for a in n.attribute)
               for n in model.graph.node):
        return model
    copy = onnx.ModelProto.FromString(model.SerializeToString())
    for node in copy.graph.node:
        if node.op_type in _RANDOM_OPS and not any(a.name == "seed" for a in node.attribute):
            node.attribute.append(onnx.helper.make_attribute("seed", float(zlib.crc32(node.output[0].encode()))))
    return copy


def _inner_values(model, feeds):
    """The value of every name in a multi-node test graph, computed by the reference evaluator on the
    test's inputs. Where the evaluator fails, shape inference still gives types and shapes: returns
    (values, types) with types only for names that have no value."""
    from onnx.reference import ReferenceEvaluator
    try:
        computed = ReferenceEvaluator(_seeded(model)).run(None, feeds, intermediate=True)
    except Exception:  # the evaluator lacks or rejects an op: fall back to types alone
        inferred = onnx.shape_inference.infer_shapes(model).graph
        types = {vi.name: vi.type for vi in list(inferred.value_info) + list(inferred.output)}
        return feeds, types
    values = dict(feeds)
    values.update((k, _live(v)) for k, v in computed.items() if k)
    return values, {}


# --- one node, one record ------------------------------------------------------------------------------

def _record(node, index, opsets, values, types, source):
    domain = _domain(node.domain)
    context = {"opset": ferry_values.encode_int(opsets.get(domain, onnx.defs.onnx_opset_version()))}
    if domain:
        context["domain"] = {"str": domain}
    return {
        "library": "onnx",
        "library_version": onnx.__version__,
        "op": f"{domain}.{node.op_type}" if domain else node.op_type,
        "kind": "node",
        "context": context,
        "params": {a.name: _attribute(a, values) for a in node.attribute},
        "inputs": [_runtime_value(name, values, types, keep=None) for name in node.input],
        "outputs": [_runtime_value(name, values, types, keep=False) for name in node.output],
        "source": dict(source, node=index),
    }


def _runtime_value(name, values, types, keep):
    """A node input or output: kept values per the record's policy (keep=None) or dtype and shape
    only (keep=False); "" is an omitted optional input or output."""
    if name == "":
        return {"none": None}
    if name in values:
        return _encode_live(values[name], keep)
    if name in types:
        return _encode_type(types[name])
    return {"opaque": f"value of {name!r} unknown"}


def _encode_live(v, keep):
    if v is None:
        return {"none": None}
    if isinstance(v, list):
        if not v:  # {"list": []} would not say what the sequence holds
            return {"opaque": "an empty sequence"}
        return {"list": [_encode_live(e, keep) for e in v]}
    try:
        return ferry_values.tensor(v, keep)
    except (ValueError, UnicodeDecodeError) as e:
        return {"opaque": f"{_one_line(e)}: {v!r}"}


def _encode_type(t):
    """A value known only by its type (shape inference): a tensor with dtype and shape, no data."""
    if t.WhichOneof("value") != "tensor_type" or not t.tensor_type.HasField("shape"):
        return {"opaque": str(t).replace("\n", " ").strip()}
    dtype = onnx.helper.tensor_dtype_to_np_dtype(t.tensor_type.elem_type)
    shape = [d.dim_value if d.HasField("dim_value") else None for d in t.tensor_type.shape.dim]
    return {"tensor": {"dtype": ferry_values.dtype_name(dtype), "shape": shape}}


def _attribute(a, values):
    A = AttributeProto
    if a.type == A.FLOAT:
        return ferry_values.encode_float(np.float32(a.f))
    if a.type == A.INT:
        return ferry_values.encode_int(a.i)
    if a.type == A.STRING:
        return _string(a.s)
    if a.type == A.TENSOR:
        return _tensor_attribute(a.t)
    if a.type == A.GRAPH:
        return _graph(a.g, a.name, values)
    if a.type == A.FLOATS:
        return {"list": [ferry_values.encode_float(np.float32(f)) for f in a.floats]}
    if a.type == A.INTS:
        return {"list": [ferry_values.encode_int(i) for i in a.ints]}
    if a.type == A.STRINGS:
        return {"list": [_string(s) for s in a.strings]}
    if a.type == A.TENSORS:
        return {"list": [_tensor_attribute(t) for t in a.tensors]}
    if a.type == A.GRAPHS:
        return {"list": [_graph(g, a.name, values) for g in a.graphs]}
    # sparse tensors and type protos have no tagged form
    return {"opaque": str(onnx.helper.get_attribute_value(a)).replace("\n", " ").strip()}


def _string(b):
    try:
        return {"str": b.decode("utf-8")}
    except UnicodeDecodeError:
        return {"opaque": repr(b)}


def _tensor_attribute(t):
    # An attribute tensor is part of the operator's definition (Constant's value, ConstantOfShape's
    # fill): its values always matter, whatever its size.
    try:
        return ferry_values.tensor(numpy_helper.to_array(t), keep=True)
    except (ValueError, UnicodeDecodeError) as e:
        return {"opaque": _one_line(e)}


# --- graph attributes ------------------------------------------------------------------------------------

def _graph(g, attr_name, values):
    """A graph attribute as a self-contained graph.

    A subgraph may read values of the enclosing graph by name (a Loop body using a tensor computed
    before the Loop). Alone in a single-node model those names would dangle, so each one is captured:
    a Constant (or a SequenceConstruct of Constants) at the top of the subgraph produces the value it
    had in the test. All names are then renamed in order of appearance, so that the same subgraph
    from two tests (whose expanded names carry the test name) is the same parameter."""
    g = onnx.GraphProto.FromString(g.SerializeToString())
    captured = []
    for name in _free_names(g, set()):
        nodes = _capture(name, values.get(name))
        if nodes is None:
            return {"opaque": f"graph {attr_name!r} reads outer value {name!r} of unknown value"}
        captured.extend(nodes)
    body = captured + list(g.node)
    del g.node[:]
    g.node.extend(body)
    _rename(g, attr_name, {})
    return {"graph": {"format": "onnx", "data": base64.b64encode(g.SerializeToString()).decode("ascii")}}


def _free_names(g, outer_defined):
    """Names g reads but does not define, in order of first use (nested subgraphs included)."""
    defined = set(outer_defined)
    defined.update(i.name for i in g.input)
    defined.update(t.name for t in g.initializer)
    defined.update(s.values.name for s in g.sparse_initializer)
    free = []

    def use(name):
        if name and name not in defined and name not in free:
            free.append(name)

    for node in g.node:
        for name in node.input:
            use(name)
        for sub in _subgraphs(node):
            for name in _free_names(sub, defined):
                use(name)
        defined.update(node.output)
    for o in g.output:
        use(o.name)
    return [n for n in free if n not in outer_defined]


def _subgraphs(node):
    for a in node.attribute:
        if a.type == AttributeProto.GRAPH:
            yield a.g
        elif a.type == AttributeProto.GRAPHS:
            yield from a.graphs


def _capture(name, v):
    """Nodes producing the outer value v under name, or None when v cannot be made a constant."""
    make = onnx.helper.make_node
    if isinstance(v, np.ndarray):
        return [make("Constant", [], [name], value=numpy_helper.from_array(v))]
    if isinstance(v, list) and v and all(isinstance(e, np.ndarray) for e in v):
        parts = [f"{name}__{i}" for i in range(len(v))]
        nodes = [make("Constant", [], [p], value=numpy_helper.from_array(e)) for p, e in zip(parts, v)]
        return nodes + [make("SequenceConstruct", parts, [name])]
    return None


def _rename(g, graph_name, names):
    """Rename every value in g (and its subgraphs) to v0, v1, ... in order of appearance, and drop node
    names, attribute tensor names and doc strings, which carry the test's name but no meaning."""
    def new(name):
        if not name:
            return name
        if name not in names:
            names[name] = f"v{len(names)}"
        return names[name]

    g.name = graph_name
    g.doc_string = ""
    for info in list(g.input) + list(g.output) + list(g.value_info):
        info.name = new(info.name)
    for t in g.initializer:
        t.name = new(t.name)
    for s in g.sparse_initializer:
        s.values.name = new(s.values.name)
        s.indices.name = new(s.indices.name)
    for node in g.node:
        node.name = ""
        node.doc_string = ""
        node.input[:] = [new(n) for n in node.input]
        node.output[:] = [new(n) for n in node.output]
        for a in node.attribute:
            if a.type == AttributeProto.TENSOR:
                a.t.name = ""
            elif a.type == AttributeProto.GRAPH:
                _rename(a.g, a.name, names)
            elif a.type == AttributeProto.GRAPHS:
                for sub in a.graphs:
                    _rename(sub, a.name, names)
