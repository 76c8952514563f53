"""ferry.templates.onnx: an ONNX operator instance -> a single-node model, its inputs, ONNX's reference outputs.

wrap() writes a test directory:
    model.onnx          one node; graph inputs in_0.. (the node's present inputs, in order), outputs out_0..
    input_K.npy         the value of in_K; a sequence input is input_K_0.npy, input_K_1.npy, ...
    ref_K.npy           out_K as onnx.reference computes it; sequences as for inputs
    meta.json           {"id", "op", "opset", "random", "inputs": [...], "outputs": [...]}, one entry per
                        graph input or output: {"name", "kind": "tensor"|"sequence", "dtype", "files"},
                        and "stored": the dtype the files hold when numpy cannot save the real one
                        (bfloat16, float8, int4, ... are stored as float32, int8 or uint8, which hold
                        their values exactly; strings as numpy unicode, so no file needs pickle);
                        "opset" is the node's domain's version the model is stamped with, the lowest
                        in which the operator has the schema of the source test's opset (the source's
                        own in the record's context), "opset_imports" all of them, with "ir_version"
reproducer_test() gives the same model and inputs as lines of a standalone script for a bug report
(ferry/oracle/reproducer.py assembles it; this module imports nothing of ferry.oracle).

Both build the model with ferry_model() and make missing input values with ferry_input(), from
ferry/templates/runtime_onnx.py, which a reproducer inlines whole, so that its model and inputs are
those of the test directory bit for bit.
"""

import hashlib
import json
import os
import warnings

import numpy as np
import onnx
from onnx import helper
from onnx.reference import ReferenceEvaluator

from ferry.extract import values as ferry_values
from ferry.templates import _files, _limits, _nan, _reproducer, environment
from ferry.templates._nan import NAN_EVERYWHERE
from ferry.templates.runtime_onnx import ferry_dtype, ferry_graph_model, ferry_input, ferry_model

# The library's declarations (ferry/templates/registry.py reads them without importing this module).
LIBRARY = "onnx"
DTYPES = ("float32", "float64", "float16", "bfloat16", "int8", "int16", "int32", "int64", "uint8", "uint16",
          "uint32", "uint64", "bool")
TOLERANCES = ""
VERSIONS = ("onnx",)
COUNT_ROOTS = ()  # ONNX's operators are counted by name (ferry/prioritize/count_tests.py)
RUNTIME = "runtime_onnx"
EXPORT = "template"

ATOL = 1e-3
RTOL = 1e-3

# The dtypes numpy cannot np.save and np.load as themselves, by category, and what they are stored as.
_STORED = {"float": "float32", "int": "int8", "uint": "uint8"}


# --- from a record to the arguments of ferry_model ----------------------------------------------------

class _Plan:
    """What a record says about its model, in the terms of ferry_model and ferry_input."""

    def __init__(self, record):
        context = record.get("context", {})
        self.domain = ferry_values.decode(context["domain"]) if "domain" in context else ""
        self.opset = ferry_values.decode(context["opset"])
        op = record["op"]
        self.op_type = _operator(op, self.domain, self.opset)
        params = record.get("params", {})
        self.attributes = _attribute_kinds(self.op_type, self.domain, self.opset, params)
        # The source test's opset stamps the model only where the operator (or a node of its
        # subgraphs) needs it: a Conv node of an opset-27 test is the Conv of opset 22.
        self.opsets = _lowest_opsets(self.op_type, self.domain, _opsets(self.domain, self.opset),
                                     [_attribute_value(k, v) for _, k, v in self.attributes
                                      if k in ("GRAPH", "GRAPHS")])
        self.ir_version = _ir_version(self.opsets)
        self.seed = _seed(record)
        self.node_inputs, self.graph_inputs, self.input_values = [], [], []
        for value in record["inputs"]:
            if "none" in value:
                self.node_inputs.append("")
                continue
            name = f"in_{len(self.graph_inputs)}"
            self.node_inputs.append(name)
            self.graph_inputs.append((name, *_declared(value, with_shape=True)))
            self.input_values.append(value)
        self.node_outputs, self.graph_outputs = [], []
        for value in record["outputs"]:
            if "none" in value:
                self.node_outputs.append("")
                continue
            name = f"out_{len(self.graph_outputs)}"
            self.node_outputs.append(name)
            self.graph_outputs.append((name, *_declared(value, with_shape=False)))
        self.stamped = dict(self.opsets).get(self.domain, self.opset)

    def model_args(self, attribute_values):
        return (self.op_type, self.domain, self.opsets, self.ir_version, self.node_inputs,
                self.node_outputs, self.graph_inputs, self.graph_outputs,
                [(name, kind, v) for (name, kind, _), v in zip(self.attributes, attribute_values)])


def _operator(op, domain, opset):
    """The node's op_type: op less its domain, and only an operator of onnx's schema registry (the
    allow-list: what onnx.defs knows), with a domain name and an opset number; Unmigratable
    otherwise, which makes the instance invalid before a model is made."""
    if not isinstance(op, str) or not isinstance(domain, str) or isinstance(opset, bool) or not isinstance(opset, int):
        raise ferry_values.Unmigratable("an operator needs a name, a domain name and an opset number")
    if domain and not op.startswith(domain + "."):
        raise ferry_values.Unmigratable(f"operator {op!r} is not in its domain {domain!r}")
    op_type = op[len(domain) + 1:] if domain else op
    if not onnx.defs.has(op_type, domain):
        raise ferry_values.Unmigratable(f"{op!r} is not an operator of onnx's schema registry")
    return op_type


def _opsets(domain, version):
    """The opset imports: the node's domain and, for another domain, the default domain's opset of
    the first onnx release that shipped that version of it (the latest when onnx does not say)."""
    if not domain:
        return [("", version)]
    column = {"ai.onnx.ml": 3, "ai.onnx.preview.training": 4}.get(domain)
    default = onnx.defs.onnx_opset_version()
    if column is not None:
        default = next((row[2] for row in helper.VERSION_TABLE
                        if len(row) > column and row[column] == version), default)
    return [(domain, version), ("", default)]


def _lowest_opsets(op_type, domain, opsets, graphs):
    """The opset imports lowered, domain by domain, to the lowest version in which every node of
    the model (the operator, and the nodes of its subgraphs, graphs: serialized GraphProtos or lists
    of them) has the schema it has at the source test's version: what onnx's version converter
    would stamp. A node whose schema onnx does not know keeps its domain at the source version; the
    default domain of a node of another domain (opsets' second entry) goes down with that domain's
    release (_opsets), or to what its subgraphs need."""
    source = dict(opsets)
    need = {d: 1 for d in source}

    def use(op, dom, version):
        dom = "" if dom == "ai.onnx" and dom not in source else dom
        if dom not in source:
            return  # a domain the model does not import: the checker says so, lowering changes nothing
        try:
            since = onnx.defs.get_schema(op, source[dom], dom).since_version
        except onnx.defs.SchemaError:
            since = source[dom]
        need[dom] = max(need[dom], min(since, source[dom]))

    def walk(data):
        for node in onnx.GraphProto.FromString(data).node:
            use(node.op_type, node.domain, None)
            for a in node.attribute:
                for g in ([a.g] if a.type == onnx.AttributeProto.GRAPH else list(a.graphs)):
                    walk(g.SerializeToString())

    use(op_type, domain, None)
    for g in graphs:
        for data in (g if isinstance(g, list) else [g]):
            walk(data)
    if domain:
        lowered = _opsets(domain, need[domain])
        base = dict(lowered).get("", source.get("", 1))
        need[""] = min(source.get("", base), max(need.get("", 1), base))
    return [(d, need[d]) for d, _ in opsets]


def _ir_version(opsets):
    try:
        return helper.find_min_ir_version_for([helper.make_opsetid(d, v) for d, v in opsets], ignore_unknown=True)
    except ValueError:  # an opset newer than this onnx's version table
        return onnx.IR_VERSION


def _seed(record):
    """The instance id as a number; records without an id (hand-written ones) hash their identity."""
    if "id" in record:
        return int(record["id"], 16)
    identity = {k: record.get(k) for k in ("library", "op", "kind", "context", "params", "inputs", "outputs")}
    if record.get("kind") == "graph":  # the graph is part of a graph record's identity
        identity["graph"] = record.get("graph")
    text = json.dumps(identity, sort_keys=True, separators=(",", ":"))
    return int(hashlib.sha256(text.encode()).hexdigest()[:32], 16)


def _declared(value, with_shape):
    """(kind, dtype, shape) of a graph input or output from its tagged value. Without with_shape only
    the rank is declared: with generated inputs, data-dependent output dimensions (NonZero, Unique,
    ...) need not be the harvested ones."""
    if "tensor" in value:
        t = value["tensor"]
        if with_shape:
            return "tensor", t["dtype"], [1 if d is None else d for d in t["shape"]]
        return "tensor", t["dtype"], [None] * len(t["shape"])
    if "list" in value:
        items = value["list"]
        if not items or any("tensor" not in v for v in items):
            raise ferry_values.Unmigratable("a sequence whose element type is unknown")
        return "sequence", items[0]["tensor"]["dtype"], None
    tag, body = next(iter(value.items()))
    raise ferry_values.Unmigratable(f"opaque input or output: {body}" if tag == "opaque"
                                    else f"an input or output of type {tag}")


_TAG_KINDS = {"int": "INT", "float": "FLOAT", "str": "STRING", "tensor": "TENSOR", "graph": "GRAPH"}


def _attribute_kinds(op_type, domain, opset, params):
    """[(name, AttributeProto type name, tagged value)]: the type from the operator's schema, which
    alone can tell an empty INTS from an empty FLOATS; from the value's tag where there is no schema."""
    try:
        schema = onnx.defs.get_schema(op_type, opset, domain)
        declared = {name: a.type.name for name, a in schema.attributes.items()}
    except onnx.defs.SchemaError:
        declared = {}
    out = []
    for name in sorted(params):
        value = params[name]
        kind = declared.get(name)
        if kind is None:
            tag = next(iter(value))
            if tag == "list":
                items = value["list"]
                kind = _TAG_KINDS.get(next(iter(items[0])), "INT") + "S" if items else "INTS"
            else:
                kind = _TAG_KINDS.get(tag)
        if kind is None:
            raise ferry_values.Unmigratable(f"attribute {name!r} of type {next(iter(value))}")
        out.append((name, kind, value))
    return out


def _attribute_value(kind, value):
    """The live value ferry_model takes for a tagged attribute."""
    live = ferry_values.decode(value)
    if kind == "GRAPH":
        return _local_graph(live.data)
    if kind == "GRAPHS":
        return [_local_graph(g.data) for g in live]
    return live


def _local_graph(data):
    """A subgraph's bytes, Unmigratable if a tensor in it keeps its data in a file (external data):
    the model would read whatever path the record names."""
    def tensors(graph):
        yield from graph.initializer
        for sparse in graph.sparse_initializer:
            yield from (sparse.values, sparse.indices)
        for node in graph.node:
            for a in node.attribute:
                yield from [a.t] + list(a.tensors) + [a.sparse_tensor.values, a.sparse_tensor.indices]
                for sub in [a.g] + list(a.graphs):
                    yield from tensors(sub)
    if any(t.data_location == onnx.TensorProto.EXTERNAL for t in tensors(onnx.GraphProto.FromString(data))):
        raise ferry_values.Unmigratable("a subgraph with tensors in external files")
    return data


def _input_value(plan, k, value):
    """The live value of graph input k: kept values exactly, generated ones for the rest."""
    def fill_for(key):
        return lambda dtype, shape, bounds: ferry_input(plan.seed, key, dtype, shape, bounds)
    if "list" in value:
        return [ferry_values.decode(v, fill_for([k, j])) for j, v in enumerate(value["list"])]
    return ferry_values.decode(value, fill_for([k]))


# --- wrap ----------------------------------------------------------------------------------------------

def wrap(record_json, outdir):
    """Write the test directory of one instance. Returns {"status": "ok", "random": bool, "ninputs",
    "noutputs"}, or {"status": "invalid", "reason": "<Type>: <message>"} when the instance cannot be
    built, onnx itself rejects it (checker, shape inference, reference evaluator) or it is beyond a
    limit of its operator's specification that onnx leaves unchecked (_limits.py). A record of kind
    "graph" (ferry generate) is a model of its nodes; its result may say "undefined" where its
    outputs are NaN or Inf whatever range its inputs are drawn from (FINITE_TRIES)."""
    record_json = _without_options(record_json)
    graph = _graph_record(record_json)
    if graph is not None:
        return _wrap_graph(graph, outdir)
    try:
        with warnings.catch_warnings():
            # numpy's overflow and division warnings from the reference are expected on generated
            # inputs; in a worker's stderr they would be noise
            warnings.simplefilter("ignore")
            record, plan, model, feeds, refs, random = _build(record_json)
    except Exception as e:  # a bad record or a rejection by onnx: either way the instance is invalid
        if environment(e):  # the machine failed, not the instance: nothing to record
            raise
        return {"status": "invalid", "reason": f"{type(e).__name__}: {e}".strip()[:8000]}
    _write(outdir, record, plan, model, feeds, refs, random)
    result = {"status": "ok", "random": random, "ninputs": len(plan.graph_inputs), "noutputs": len(refs)}
    cast = _cast_undefined(plan, feeds, refs) or _overflow(plan, model, feeds, refs)
    undefined = _guard(plan, feeds) or cast or _nan.variant_undefined(record, refs, _nan_everywhere)
    _mark(result, undefined, values_only=True if cast and undefined == cast else None)
    return result


def _without_options(record_json):
    """The record without ferry wrap's options (wrap_options: the formats the requested frontends
    read, ferry/templates/_formats.py): an ONNX test has one format, its model, always made."""
    if '"wrap_options"' not in record_json:
        return record_json
    record = json.loads(record_json)
    record.pop("wrap_options", None)
    return json.dumps(record, separators=(",", ":"))


def _cast_undefined(plan, feeds, refs):
    """Why a node test's Cast or CastLike from floating point to an integer type is undefined on its
    inputs (_out_of_range), or None: the values a frontend gives there are no bug, its crash still is."""
    if plan.domain not in ("", "ai.onnx") or not plan.graph_inputs or not refs:
        return None
    return _out_of_range(plan.op_type, feeds[plan.graph_inputs[0][0]], refs[0])


# The operators whose integer result is their inputs' arithmetic, so that the same inputs in int64
# give the exact result: where it differs from the narrow type's, the narrow result overflowed.
_ARITHMETIC = {"Add", "Sub", "Mul", "Sum", "Mean", "Neg", "Abs", "Pow", "MatMul", "Gemm", "Einsum", "CumSum",
               "ReduceSum", "ReduceProd", "ReduceSumSquare", "ReduceL1"}
_NARROW = {onnx.TensorProto.INT8, onnx.TensorProto.INT16, onnx.TensorProto.INT32, onnx.TensorProto.UINT8,
           onnx.TensorProto.UINT16, onnx.TensorProto.UINT32}


def _overflow(plan, model, feeds, refs):
    """Why a node test's integer arithmetic is undefined on its inputs (its exact result, computed in
    int64 by the same reference, does not fit the narrow type: C++ leaves signed overflow undefined,
    and frontends wrap, saturate or widen), or None."""
    if plan.domain not in ("", "ai.onnx") or plan.op_type not in _ARITHMETIC:
        return None
    narrow = [np.asarray(r) for r in refs if r is not None]
    if not any(r.dtype.kind in "iu" and r.dtype.itemsize < 8 for r in narrow):
        return None
    wide = onnx.ModelProto()
    wide.CopyFrom(model)
    for v in list(wide.graph.input) + list(wide.graph.output):
        if v.type.tensor_type.elem_type in _NARROW:
            v.type.tensor_type.elem_type = onnx.TensorProto.INT64
    widened = {k: v.astype(np.int64) if isinstance(v, np.ndarray) and v.dtype.kind in "iu" and v.dtype.itemsize < 8
               else v for k, v in feeds.items()}
    try:
        exact = ReferenceEvaluator(wide).run(None, widened)
    except Exception:  # the operator takes no int64 here (or mixes types): nothing to compare with
        return None
    for r, x in zip(refs, exact):
        r, x = np.asarray(r), np.asarray(x)
        if r.dtype.kind in "iu" and r.dtype.itemsize < 8 and r.shape == x.shape and \
                not np.array_equal(r.astype(np.int64), x.astype(np.int64)):
            return f"the exact result does not fit {r.dtype.name}: the result overflows there"
    return None


def _guard(plan, feeds):
    return _undefined_domain(plan.op_type, plan.domain, plan.stamped, [feeds[name] for name, *_ in plan.graph_inputs])


# --- validate ------------------------------------------------------------------------------------------

def validate(record_json):
    """Whether onnx accepts a candidate record (ferry vary): the model and inputs of wrap(), one run
    of the reference evaluator, writing nothing. The candidate's outputs are its parent's: only their
    number and which are omitted ({"none": null}) are taken from it; their types are what onnx's
    type inference gives (which also rejects a dtype the operator's type constraints exclude) and
    their values' own, and the model declaring them must pass the checker as wrap()'s does.
    Returns {"status": "ok", "outputs": JSON text of the outputs as the harvest records them, and
    "undefined" where the reference lies in the undefined domain}, or {"status": "invalid",
    "reason": "<Type>: <message>"}. A graph record (ferry generate --validate) is judged as wrap()
    judges it, writing nothing: its outputs are the reference's."""
    graph = _graph_record(record_json)
    if graph is not None:
        return _validate_graph(graph)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            record = json.loads(record_json)
            plan = _Plan(_untyped_outputs(record))
            model = _model(plan)
            for output in model.graph.output:
                output.ClearField("type")  # inferred below, not declared
            onnx.shape_inference.infer_shapes(model, check_type=True, strict_mode=True)
            feeds = _feeds(plan)
            _limits.check(model, feeds)
            refs = ReferenceEvaluator(model).run(None, feeds)
            _agree(model, plan, feeds, refs)
            present = iter(refs)
            outputs = [v if "none" in v else _harvested(next(present)) for v in record["outputs"]]
            # the model wrap() makes of the kept variant: its declared outputs must pass the checker
            onnx.checker.check_model(_model(_Plan(dict(record, outputs=outputs))), full_check=True)
            cast = _cast_undefined(plan, feeds, refs) or _overflow(plan, model, feeds, refs)
            undefined = _guard(plan, feeds) or cast or _nan_everywhere(refs)
    except Exception as e:  # a bad record or a rejection by onnx: either way the candidate is invalid
        if environment(e):  # the machine failed, not the instance: nothing to record
            raise
        return {"status": "invalid", "reason": f"{type(e).__name__}: {e}".strip()[:8000]}
    result = {"status": "ok", "outputs": json.dumps(outputs, separators=(",", ":"))}
    _mark(result, undefined, values_only=True if cast and undefined == cast else None)
    return result


class Inconsistent(Exception):
    """onnx's shape inference and its reference evaluator disagree on a candidate's output."""


def _agree(model, plan, feeds, refs):
    """Raise Inconsistent where onnx disagrees with itself about the candidate: its shape inference,
    given the inputs whose values the record keeps as constants (axes, pads, shapes, ...), gives an
    output another rank or static shape than its reference evaluator computes. The reference
    evaluator checks little (any int is a true flag, a negative size goes through), shape inference
    holds more of the spec: where they differ, the reference cannot judge a frontend, and a
    variant built on it would report the frontend for keeping to the spec."""
    known = onnx.ModelProto()
    known.CopyFrom(model)
    for (name, kind, *_), value in zip(plan.graph_inputs, plan.input_values):
        if kind == "tensor" and "values" in value.get("tensor", {}):
            known.graph.initializer.append(onnx.numpy_helper.from_array(np.asarray(feeds[name]), name))
    inferred = onnx.shape_inference.infer_shapes(known, check_type=True, strict_mode=True, data_prop=True)
    types = {o.name: o.type for o in inferred.graph.output}
    for (name, kind, *_), ref in zip(plan.graph_outputs, refs):
        t = types.get(name)
        if kind != "tensor" or t is None or not t.HasField("tensor_type") or not t.tensor_type.HasField("shape"):
            continue
        dims = t.tensor_type.shape.dim
        got = list(np.asarray(ref).shape)
        said = [d.dim_value if d.HasField("dim_value") else None for d in dims]
        if len(said) != len(got) or any(d is not None and d != g for d, g in zip(said, got)):
            shown = "[" + ", ".join("?" if d is None else str(d) for d in said) + "]"
            raise Inconsistent(f"onnx's shape inference gives {name} the shape {shown}, its reference "
                               f"evaluator {got}")


def _untyped_outputs(record):
    """The record with each present output a float tensor of its rank (or a sequence of them): a
    stand-in for _Plan, whose declared output types validate does not use."""
    def stand_in(v):
        if "none" in v:
            return v
        if "list" in v:
            return {"list": [{"tensor": {"dtype": "float32", "shape": []}}]}
        shape = v["tensor"]["shape"] if "tensor" in v and isinstance(v["tensor"], dict) else []
        return {"tensor": {"dtype": "float32", "shape": shape if isinstance(shape, list) else []}}
    return dict(record, outputs=[stand_in(v) for v in record["outputs"]])


def _harvested(value):
    """An output value as harvest_onnx records it: a tensor's dtype and shape, a sequence as the
    list of its tensors'."""
    if isinstance(value, list):
        if not value:
            raise ValueError("the reference gives an empty sequence, whose element type a record cannot say")
        return {"list": [_harvested(v) for v in value]}
    return ferry_values.tensor(np.asarray(value), keep=False)


def _mark(result, undefined, values_only=None):
    """Say in a wrap or validate result why the test lies in the undefined domain, if it does; a
    reference that is not finite (or, in a graph, near where a node jumps) puts only the values in
    question (undefined_values): a frontend that crashes there has still crashed."""
    if undefined:
        result["undefined"] = undefined
        if values_only or (values_only is None and undefined in (NAN_EVERYWHERE, NOT_FINITE)):
            result["undefined_values"] = True


def _nan_everywhere(refs):
    """NAN_EVERYWHERE where every element of every floating or complex output is NaN (one element at
    least), else None."""
    arrays = [np.asarray(v) for r in refs for v in (r if isinstance(r, list) else [r]) if v is not None]
    return _nan.everywhere([a for a in arrays if ferry_values.dtype_category(ferry_values.dtype_name(a.dtype))
                                      in ("float", "complex")])


def _undefined_domain(op_type, domain, opset, inputs):
    """Why these inputs lie where the operator's result is undefined, or None. Frontends may answer
    anything there (C++ leaves it undefined), so a difference is flagged, not reported as a bug."""
    if domain not in ("", "ai.onnx") or len(inputs) < 2:
        return None
    a, b = (np.asarray(x) if not isinstance(x, list) else None for x in inputs[:2])
    if a is None or b is None or a.dtype.kind not in "iu" or b.dtype.kind not in "iu":
        return None
    if op_type in ("Div", "Mod") and (b == 0).any():
        return "integer division by zero"
    if op_type == "Pow" and (b < 0).any():
        return "integer power with a negative exponent"
    # Opset 28 defines shifts by the bit width or more (and tests them); before it they are undefined.
    if op_type == "BitShift" and opset < 28 and ((b < 0) | (b >= 8 * a.dtype.itemsize)).any():
        return "shift by a negative amount or by the bit width or more"
    if op_type in ("Div", "Mod") and a.dtype.kind == "i":
        lowest = np.iinfo(a.dtype).min
        if ((a == lowest) & (b == -1)).any():
            return "integer division overflow (the lowest value by -1)"
    return None


def _build(record_json):
    """The record, its plan, model, inputs, reference outputs and randomness; raises where the record
    is bad, onnx rejects the instance or it is beyond its operator's specification (_limits.py)."""
    record = json.loads(record_json)
    plan = _Plan(record)
    model = _model(plan)
    feeds = _feeds(plan)
    onnx.checker.check_model(model, full_check=True)
    _limits.check(model, feeds)
    reference = ReferenceEvaluator(model)
    refs = reference.run(None, feeds)
    # Two more runs, not one: a random operator on a few elements (Bernoulli on ten probabilities)
    # can repeat itself by chance.
    random = (any(not _same(refs, reference.run(None, feeds)) for _ in range(2))
              or _seed_matters(model, feeds, refs))
    return record, plan, model, feeds, refs, random


def _model(plan):
    return ferry_model(*plan.model_args([_attribute_value(k, v) for _, k, v in plan.attributes]))


def _feeds(plan):
    return {name: _input_value(plan, k, v) for k, ((name, *_), v) in enumerate(zip(plan.graph_inputs, plan.input_values))}


def _write(outdir, record, plan, model, feeds, refs, random):
    os.makedirs(outdir, exist_ok=True)
    with _files.create(os.path.join(outdir, "model.onnx")) as f:
        f.write(model.SerializeToString())
    meta = {
        "id": record.get("id"), "op": record["op"], "opset": plan.stamped, "random": random,
        "opset_imports": {d or "ai.onnx": v for d, v in plan.opsets}, "ir_version": plan.ir_version,
        "inputs": [_save(outdir, "input", k, name, kind, dtype, feeds[name])
                   for k, (name, kind, dtype, _) in enumerate(plan.graph_inputs)],
        "outputs": [_save(outdir, "ref", k, name, kind, dtype, ref)
                    for k, ((name, kind, dtype, _), ref) in enumerate(zip(plan.graph_outputs, refs))],
    }
    expected = _expected_outputs(record, refs)
    if expected is not None:
        meta["expected"] = expected
    with _files.create(os.path.join(outdir, "meta.json"), "w") as f:
        json.dump(meta, f, indent=1)


def _expected_outputs(record, refs):
    """A second reference: the outputs the source test itself expects (a C++ test's AddOutput values,
    kept in outputs[k].tensor.values), compared with onnx's reference evaluator at the source's own
    tolerance. Where they disagree the instance is a question for the spec, not a verdict on either:
    {"source", "agrees", "disagree": [{"output", "max_abs_diff", "where"}]}; None without such values."""
    outputs = record.get("outputs", [])
    disagree, compared = [], 0
    for k, (out, ref) in enumerate(zip(outputs, refs)):
        t = out.get("tensor") if isinstance(out, dict) else None
        if not t or "values" not in t or isinstance(ref, list):
            continue
        compared += 1
        ref = np.asarray(ref)
        category = ferry_values.dtype_category(ferry_values.dtype_name(ref.dtype))
        if category == "float":
            want = np.array([float(v) for v in t["values"]], dtype=np.float64).reshape(t["shape"])
            got = ref.astype(np.float64)
            loose = ref.dtype.itemsize < 4
            ok = got.shape == want.shape and np.allclose(got, want, rtol=1e-2 if loose else 1e-4,
                                                         atol=1e-2 if loose else 1e-5, equal_nan=True)
        else:
            want = np.array(t["values"], dtype=object).reshape(t["shape"])
            got = ref.astype(object)
            ok = got.shape == want.shape and bool(np.all(got == want))
        if not ok:
            entry = {"output": k}
            if got.shape != want.shape:
                entry["where"] = f"shape {list(got.shape)}, the test expects {list(want.shape)}"
            elif category == "float":
                diff = np.abs(got - want)
                entry["max_abs_diff"] = float(np.nanmax(np.where(np.isnan(diff), np.inf, diff)))
                entry["where"] = f"element {int(np.argmax(np.where(np.isnan(diff), np.inf, diff)))}"
            else:
                entry["where"] = f"element {int(np.argmax((got != want).reshape(-1)))}"
            disagree.append(entry)
    if not compared:
        return None
    source = record.get("source", {}).get("suite", "the source test")
    return {"source": source, "agrees": not disagree, "disagree": disagree}


def _seed_matters(model, feeds, refs):
    """Whether the outputs change with the nodes' seed attributes: an operator seeded the same way
    gives the same output twice, yet it is random, and another implementation of it will not draw
    the same numbers."""
    if not any(a.name == "seed" for node in model.graph.node for a in node.attribute):
        return False
    reseeded = onnx.ModelProto.FromString(model.SerializeToString())
    for a in (a for node in reseeded.graph.node for a in node.attribute):
        if a.name == "seed":
            if a.type == onnx.AttributeProto.FLOAT:
                a.f += 1.0
            else:
                a.i += 1
    return not _same(refs, ReferenceEvaluator(reseeded).run(None, feeds))


def _same(a, b):
    """Equal structure, dtypes, shapes and values (NaN equal to NaN)."""
    if isinstance(a, list) or isinstance(b, list):
        return (isinstance(a, list) and isinstance(b, list) and len(a) == len(b)
                and all(_same(x, y) for x, y in zip(a, b)))
    if a is None or b is None:
        return a is None and b is None
    a, b = np.asarray(a), np.asarray(b)
    if a.dtype != b.dtype or a.shape != b.shape:
        return False
    if ferry_values.dtype_category(ferry_values.dtype_name(a.dtype)) in ("float", "complex"):
        return bool(np.array_equal(a.astype(np.complex128), b.astype(np.complex128), equal_nan=True))
    return bool(np.array_equal(a, b))


def _save(outdir, prefix, k, name, kind, dtype, value):
    """Write one input or reference (a sequence as one file per element) and describe it for meta.
    dtype is the declared one; the value's own, if it has elements, is what meta records."""
    items = [np.asarray(v) for v in value] if kind == "sequence" else [np.asarray(value)]
    if items:
        dtype = ferry_values.dtype_name(items[0].dtype)
    entry = {"name": name, "kind": kind, "dtype": dtype}
    names = [f"{prefix}_{k}.npy"] if kind == "tensor" else [f"{prefix}_{k}_{j}.npy" for j in range(len(items))]
    stored = _stored_dtype(dtype)
    if stored is not None:
        entry["stored"] = stored
    for file, item in zip(names, items):
        if stored is not None:
            item = item.astype(str if stored == "str" else stored)
        with _files.create(os.path.join(outdir, file)) as f:
            np.save(f, item, allow_pickle=False)
    entry["files"] = names
    return entry


def _stored_dtype(dtype):
    """What the files of a dtype numpy cannot save hold, None for the dtypes it can."""
    if dtype == "string":
        return "str"
    real = ferry_dtype(dtype)
    try:
        if np.lib.format.descr_to_dtype(np.lib.format.dtype_to_descr(real)) == real:
            return None
    except (TypeError, ValueError):  # ml_dtypes' types save as raw bytes ('|V2') or not at all
        pass
    return _STORED["uint" if dtype.startswith("uint") else ferry_values.dtype_category(dtype)]


# --- reproducer ----------------------------------------------------------------------------------------

def reproducer_test(record_json, testdir):
    """The test's own part of a reproducer script (ferry/oracle/reproducer.py assembles the script,
    with the ONNX runtime and the frontend's module, whole): the record's model and inputs as
    literals, onnx.reference's run, the frontend's (run_frontend, on the model's bytes and the
    inputs) and ferry_compare's verdict with the script's ATOL and RTOL; every string from the
    record appears as a repr literal. testdir is read (not by the script) for whether it is random.
    Returns a dict: what, instance, source (for the header's comments), reference, name, imports, test."""
    record = json.loads(record_json)
    if isinstance(record, dict) and record.get("kind") == "graph":
        return _graph_reproducer_test(record, testdir)
    plan = _Plan(record)
    random = _reproducer.testdir_meta(testdir).get("random", False)

    attributes = ",\n".join(f"        ({name!r}, {kind!r}, {_attribute_literal(kind, value)})"
                            for name, kind, value in plan.attributes)
    attributes = f"[\n{attributes}\n    ]" if attributes else "[]"
    inputs = "\n".join(f"    {name!r}: {_input_literal(k, value)},"
                       for k, ((name, *_), value) in enumerate(zip(plan.graph_inputs, plan.input_values)))
    source = record.get("source", {})
    base64 = "import base64\n" if any(kind in ("GRAPH", "GRAPHS") for _, kind, _ in plan.attributes) else ""
    test = f'''SEED = {plan.seed}
RANDOM = {random!r}  # True for a random operator: then only dtypes and shapes are compared

model = ferry_model(
    {plan.op_type!r}, {plan.domain!r}, {plan.opsets!r}, {plan.ir_version!r},
    {plan.node_inputs!r}, {plan.node_outputs!r},
    {plan.graph_inputs!r},
    {plan.graph_outputs!r},
    {attributes})
inputs = {{
{inputs}
}}
'''
    test += _RUN
    return {"what": f"{record['op']} (opset {plan.stamped})", "instance": record.get("id", "-"),
            "source": " ".join(str(source[k]) for k in ("suite", "test", "node") if k in source),
            "reference": "onnx.reference", "name": "ONNX",
            "imports": f"{base64}import sys\nimport traceback\n\nimport onnx.reference\n", "test": test}


def _run(model_bytes):
    """The rest of a reproducer's test, after its model and inputs: onnx.reference's run, the
    frontend's on model_bytes (an expression of the script), the verdict."""
    return _reproducer.tail("    reference = onnx.reference.ReferenceEvaluator(model).run(None, inputs)",
                            f"{model_bytes}, inputs", "next(iter(inputs.values()), None)", "onnx.reference",
                            failed="the reference")


_RUN = _run("model.SerializeToString()")


def _attribute_literal(kind, value):
    if kind == "GRAPH":
        return _graph_literal(value)
    if kind == "GRAPHS":
        return "[" + ", ".join(_graph_literal(v) for v in value["list"]) + "]"
    if kind == "TENSOR":
        return _array_literal(value["tensor"])
    if kind == "TENSORS":
        return "[" + ", ".join(_array_literal(v["tensor"]) for v in value["list"]) + "]"
    return _literal(ferry_values.decode(value))


def _graph_literal(value):
    # base64 holds only [A-Za-z0-9+/=]; repr() keeps it a plain string literal all the same
    return f"base64.b64decode({value['graph']['data']!r})"


def _input_literal(k, value):
    if "list" in value:
        return "[" + ", ".join(_tensor_literal([k, j], v) for j, v in enumerate(value["list"])) + "]"
    return _tensor_literal([k], value)


def _tensor_literal(key, value):
    t = value["tensor"]
    if "values" not in t:
        return f"ferry_input(SEED, {key!r}, {t['dtype']!r}, {t['shape']!r}, {t.get('range')!r})"
    return _array_literal(t)


def _array_literal(t):
    """Source text rebuilding a tensor's kept values exactly as ferry_values.tensor_array does: the
    record's numbers converted once to the dtype (through float64 or int64 for ml_dtypes' types)."""
    name, shape = t["dtype"], t["shape"]
    category = ferry_values.dtype_category(name)
    decode = {"float": ferry_values.decode_float, "int": ferry_values.decode_int}.get(category, lambda v: v)
    values = _literal([decode(v) for v in t["values"]])
    if category == "string":
        return f"np.array({values}, dtype=object).reshape({shape!r})"
    numpy_type = getattr(np, name, None) if name.isidentifier() else None
    if isinstance(numpy_type, type) and issubclass(numpy_type, np.generic):  # numpy's own, spelt as numpy does
        return f"np.array({values}, dtype=np.{name}).reshape({shape!r})"
    wide = "np.float64" if category == "float" else "np.int64"
    return f"np.array({values}, dtype={wide}).astype(ferry_dtype({name!r})).reshape({shape!r})"


def _literal(v):
    """A Python literal for a decoded record value; floats that repr cannot spell become float()."""
    if isinstance(v, float):
        return _reproducer.float_lit(v)
    if isinstance(v, list):
        return "[" + ", ".join(_literal(x) for x in v) + "]"
    if isinstance(v, tuple):
        return "(" + "".join(_literal(x) + ", " for x in v) + ")"
    if isinstance(v, (bool, int, str, bytes)) or v is None:
        return repr(v)
    raise ferry_values.Unmigratable(f"no literal for {type(v).__name__}")


def export(record_json, testdir, outdir, frontend=None):
    """Write the test as an ONNX backend test-data directory, the format ONNX's and ONNX Runtime's
    own test runners read, so that a found bug becomes a regression test as it is:
        outdir/model.onnx, outdir/test_data_set_0/input_K.pb, outdir/test_data_set_0/output_K.pb
    Inputs and reference outputs are written in their real dtypes; the format is the same whichever
    frontend showed the bug. Returns outdir."""
    from onnx import numpy_helper

    with open(os.path.join(testdir, "meta.json")) as f:
        meta = json.load(f)
    os.close(_files.open_dir(outdir, 1))  # DIR/test_OP_ID: ferry's, in the user's DIR
    data = os.path.join(outdir, "test_data_set_0")
    os.close(_files.open_dir(data, 1))
    with open(os.path.join(testdir, "model.onnx"), "rb") as src, _files.create(os.path.join(outdir, "model.onnx")) as dst:
        dst.write(src.read())
    for prefix, entries in (("input", meta["inputs"]), ("output", meta["outputs"])):
        for k, entry in enumerate(entries):
            arrays = [np.load(os.path.join(testdir, name), allow_pickle=False) for name in entry["files"]]
            if "stored" in entry:
                arrays = [a.astype(ferry_dtype(entry["dtype"])) for a in arrays]
            if entry["dtype"] == "string":
                arrays = [a.astype(object) for a in arrays]
            if entry["kind"] == "sequence":
                proto = numpy_helper.from_list(arrays, name=entry["name"])
            else:
                proto = numpy_helper.from_array(arrays[0], name=entry["name"])
            with _files.create(os.path.join(data, f"{prefix}_{k}.pb")) as f:
                f.write(proto.SerializeToString())
    return outdir


# --- graphs: records of kind "graph" (ferry generate's multi-node graphs) -----------------------------

# The ranges tried, in this order, for float data whose values a record does not keep (graph inputs
# and ranged constants) until the reference is finite: the record's own ranges first (None), then
# ranges clear of zero (Log, Sqrt, Reciprocal, Div), then narrower ones (Exp, Pow, long products).
# Few and fixed, so a wrap is quick and the same everywhere.
FINITE_TRIES = (None, (0.5, 2.0), (-1.0, 1.0), (-0.5, 0.5), (0.0, 1.0), (0.1, 0.5))

NOT_FINITE = "the reference is not finite (NaN or Inf) for every input range tried"

# The key of constant j's generated values is [CONSTANT_KEY, j]: apart from the inputs' [k] and [k, j].
CONSTANT_KEY = 1 << 32


class SpecDisagrees(Exception):
    """A node's claimed output type (the spec's, in the record's "types") is not what onnx gives it."""


class _GraphPlan:
    """What a graph record says about its model, in the terms of ferry_graph_model and ferry_input."""

    def __init__(self, record):
        context = record.get("context", {})
        if "domain" in context and ferry_values.decode(context["domain"]) not in ("", "ai.onnx"):
            raise ferry_values.Unmigratable("a graph of another domain than ai.onnx")
        self.opset = ferry_values.decode(context["opset"])
        graph = record["graph"]
        self.seed = _seed(record)
        names, values = graph["inputs"], record["inputs"]
        if len(names) != len(values):
            raise ValueError(f"graph.inputs names {len(names)} inputs, the record has {len(values)}")
        self.graph_inputs = [(name, *_declared(v, with_shape=True)) for name, v in zip(names, values)]
        if any(kind != "tensor" for _, kind, *_ in self.graph_inputs):
            raise ferry_values.Unmigratable("a graph input that is not a tensor")
        self.input_values = values
        self.constants = [(c["name"], c["tensor"]) for c in graph.get("constants", [])]
        self.nodes = []
        # A name is made once, before it is used: what the checker holds a graph to, said here in
        # the record's own terms.
        made = set()
        for name in [n for n, *_ in self.graph_inputs] + [n for n, _ in self.constants]:
            if name in made:
                raise ValueError(f"graph: tensor {name!r} is made twice")
            made.add(name)
        for k, node in enumerate(graph["nodes"]):
            op_type = _operator(node["op"], "", self.opset)
            outputs, types = node["outputs"], node.get("types", [])
            for j, name in enumerate(node["inputs"]):
                if name and name not in made:
                    raise ValueError(f"graph.nodes[{k}].inputs[{j}]: no input, constant or earlier node makes {name!r}")
            for name in outputs:
                if name in made:
                    raise ValueError(f"graph.nodes[{k}]: tensor {name!r} is made twice")
                made.update([name] if name else [])
            if len(types) != len(outputs):
                raise ValueError(f"node {k} ({op_type}): {len(outputs)} outputs, {len(types)} types")
            self.nodes.append((op_type, list(node["inputs"]), list(outputs),
                               _attribute_kinds(op_type, "", self.opset, node.get("params", {})), types))
        names, values = graph["outputs"], record["outputs"]
        for name in names:
            if name not in made:
                raise ValueError(f"graph.outputs: nothing makes {name!r}")
        if len(names) != len(values):
            raise ValueError(f"graph.outputs names {len(names)} outputs, the record has {len(values)}")
        self.graph_outputs = [(name, *_declared(v, with_shape=False)) for name, v in zip(names, values)]
        self.ops = sorted({op for op, *_ in self.nodes})
        # As for one node: stamped with the lowest opset in which every node has the schema of the
        # record's opset.
        need = 1
        for op in self.ops:
            need = max(need, min(onnx.defs.get_schema(op, self.opset, "").since_version, self.opset))
        self.opsets = [("", need)]
        self.ir_version = _ir_version(self.opsets)
        self.stamped = need

    def model(self, constant_values):
        return ferry_graph_model(
            self.opsets, self.ir_version, self.graph_inputs,
            [(name, constant_values[name]) for name, _ in self.constants],
            [(op, "", ins, outs, [(name, kind, _attribute_value(kind, v)) for name, kind, v in attributes])
             for op, ins, outs, attributes, _ in self.nodes],
            self.graph_outputs)


def _bounded(bounds, dtype, kept_bounds):
    """The range a generated tensor of dtype is drawn from: bounds for float data, when a try sets
    them, else the record's own (kept_bounds, or None)."""
    if bounds is not None and ferry_values.dtype_category(dtype) == "float":
        return list(bounds)
    return kept_bounds


def _graph_values(plan, bounds):
    """(feeds, constants): graph input name -> value, constant name -> value, kept values exactly,
    the others drawn from the record id's seed (within bounds, for float data, when not None)."""
    def fill_for(key):
        return lambda dtype, shape, kept: ferry_input(plan.seed, key, dtype, shape, _bounded(bounds, dtype, kept))
    feeds = {name: ferry_values.decode(v, fill_for([k]))
             for k, ((name, *_), v) in enumerate(zip(plan.graph_inputs, plan.input_values))}
    constants = {name: ferry_values.tensor_array(t, fill_for([CONSTANT_KEY, j]))
                 for j, (name, t) in enumerate(plan.constants)}
    return feeds, constants


def _shape_text(dims):
    return "[" + ",".join("?" if d is None else str(d) for d in dims) + "]"


def _claims_agree(plan, types, source, short):
    """Raise SpecDisagrees at the first node output whose claimed dtype or shape is not the one
    types (output name -> (dtype name or None, dims or None; a dim None where unknown)) gives it;
    the message names source, and short beside the value it gives."""
    for k, (op, _, outs, _, claims) in enumerate(plan.nodes):
        for j, (name, claim) in enumerate(zip(outs, claims)):
            if not name or name not in types:
                continue
            dtype, dims = types[name]
            where = f"spec disagrees with {source}: node {k} ({op}) output {j}"
            if dtype is not None and dtype != claim["dtype"]:
                raise SpecDisagrees(f"{where}: spec {claim['dtype']}, {short} {dtype}")
            said = claim["shape"]
            if dims is not None and (len(dims) != len(said)
                                     or any(d is not None and s is not None and d != s for d, s in zip(dims, said))):
                raise SpecDisagrees(f"{where}: spec {_shape_text(said)}, {short} {_shape_text(dims)}")


def _inferred_types(model):
    """Output name -> (dtype name, dims) by onnx's strict shape inference (with data propagation,
    so shapes computed from constants are known), on the model with its graph outputs undeclared."""
    bare = onnx.ModelProto()
    bare.CopyFrom(model)
    for output in bare.graph.output:
        output.ClearField("type")
    inferred = onnx.shape_inference.infer_shapes(bare, check_type=True, strict_mode=True, data_prop=True)
    types = {}
    for info in list(inferred.graph.value_info) + list(inferred.graph.output):
        if not info.type.HasField("tensor_type"):
            continue
        t = info.type.tensor_type
        dtype = ferry_values.dtype_name(helper.tensor_dtype_to_np_dtype(t.elem_type)) if t.elem_type else None
        dims = ([d.dim_value if d.HasField("dim_value") else None for d in t.shape.dim]
                if t.HasField("shape") else None)
        types[info.name] = (dtype, dims)
    return types


def _not_finite(refs):
    """Whether a floating or complex output has a NaN or an Inf."""
    return any(np.asarray(r).dtype.kind in "fc" and not np.isfinite(np.asarray(r).astype(np.complex128)).all()
               for r in refs if r is not None)


def _build_graph(record):
    """(plan, model, feeds, refs, random, bounds, undefined) of a graph record; raises where the record
    is bad, where onnx rejects the graph, or where a node's claimed types are not onnx's."""
    plan = _GraphPlan(record)
    feeds, constants = _graph_values(plan, None)
    model = plan.model(constants)
    # The spec's claims against onnx's shape inference first: a wrong claim names its node, where
    # the checker's message about a graph output would not.
    _claims_agree(plan, _inferred_types(model), "ONNX shape inference", "onnx")
    onnx.checker.check_model(model, full_check=True)
    # Finite outputs where some range gives them; else the first try's, marked.
    first = None
    for bounds in FINITE_TRIES:
        if bounds is not None:
            feeds, constants = _graph_values(plan, bounds)
            model = plan.model(constants)
        reference = ReferenceEvaluator(model)
        every = reference.run(None, feeds, intermediate=True)
        refs = [every[name] for name, *_ in plan.graph_outputs]
        if first is None:
            first = (bounds, model, feeds, reference, every, refs)
        if not _not_finite(refs):
            break
    else:
        bounds, model, feeds, reference, every, refs = first
    _claims_agree(plan, {name: (ferry_values.dtype_name(np.asarray(v).dtype), list(np.asarray(v).shape))
                         for name, v in every.items() if v is not None and not isinstance(v, list)},
                  "the ONNX reference", "reference")
    random = (any(not _same(refs, reference.run(None, feeds)) for _ in range(2))
              or _seed_matters(model, feeds, refs))
    undefined = None
    for k, (op, ins, *_) in enumerate(plan.nodes):
        why = _undefined_domain(op, "", plan.stamped, [every.get(name) if name else None for name in ins])
        if why:
            undefined = f"node {k} ({op}): {why}"
            break
    values_only = False
    if undefined is None and _not_finite(refs):
        undefined, values_only = _nan_everywhere(refs) or NOT_FINITE, True
    if undefined is None:
        undefined = _near_a_boundary(plan, every) or _half_precision_unsettled(record, plan, bounds, feeds, refs)
        values_only = undefined is not None
    return plan, model, feeds, refs, random, bounds, (undefined, values_only)


def _wider(value):
    """A record's JSON value with every float16 made float32 (dtypes, and Cast's 'to' and a 'dtype'
    attribute naming FLOAT16): the same graph computed in single precision."""
    if isinstance(value, dict):
        out = {}
        for key, v in value.items():
            if key == "dtype" and v == "float16":
                v = "float32"
            elif key in ("to", "dtype") and v == {"int": onnx.TensorProto.FLOAT16}:
                v = {"int": onnx.TensorProto.FLOAT}
            out[key] = _wider(v)
        return out
    if isinstance(value, list):
        return [_wider(v) for v in value]
    return value


def _half_precision_unsettled(record, plan, bounds, feeds, refs):
    """Why a graph that computes in float16 has outputs its own rounding decides (the same graph in
    float32, on the same inputs, lands beyond the float16 tolerance of the reference), or None. A
    frontend that keeps float16 intermediates in float32, as most do on a CPU, then disagrees with
    the reference by the reference's own rounding, which is no bug."""
    if "float16" not in json.dumps(record.get("graph", {})) + json.dumps(record.get("inputs", [])):
        return None
    try:
        def wide(values):  # the same values, float16 ones held in float32
            return {name: np.asarray(v).astype(np.float32) if np.asarray(v).dtype == np.float16 else v
                    for name, v in values.items()}
        _, constants = _graph_values(plan, bounds)
        got = ReferenceEvaluator(_GraphPlan(_wider(record)).model(wide(constants))).run(None, wide(feeds))
    except Exception:  # noqa: BLE001 -- no float32 twin (an operator without float32): nothing to say
        return None
    for k, (a, b) in enumerate(zip(refs, got)):
        a = np.asarray(a)
        if a.dtype != np.float16:
            continue
        # the value oracle's own bound for float16 (compare.h): atol + rtol * |want|, or 2 steps
        x, y = a.astype(np.float64), np.asarray(b).astype(np.float64)
        bound = np.maximum(ATOL + RTOL * np.abs(x), 2 * np.spacing(np.abs(a)).astype(np.float64))
        finite = np.isfinite(x) & np.isfinite(y)
        if (np.abs(x - y)[finite] > bound[finite]).any():
            return (f"output {k}: computed in float32 it lands beyond the float16 tolerance of the "
                    "reference: float16 rounding decides it")
    return None


# Operators whose result jumps where their input crosses a value: a frontend whose rounding differs
# from the reference's by a step may land on the other side, which is no bug. Inside a graph their
# inputs are computed, so a graph is judged by how near the reference's intermediate values lie to
# such a boundary (graph inputs and constants are exact, and a single node's jump is its own).
_COMPARISONS = ("Equal", "Less", "Greater", "LessOrEqual", "GreaterOrEqual")
_ROUNDING = ("Round", "Floor", "Ceil", "Sign", "Cast", "CastLike")
_SELECTING = ("ArgMax", "ArgMin", "TopK", "Hardmax")


def _margin(a):
    """How near two results of a's dtype may be and still be rounding apart: the value oracle's
    tolerance, widened where the dtype keeps fewer bits."""
    scale = {"float16": 10.0, "bfloat16": 50.0}.get(a.dtype.name, 1.0)
    return ATOL * scale, RTOL * scale


def _near_a_boundary(plan, every):
    """Why the graph's values are in question (a node that jumps sees a computed input within the
    oracle's tolerance of where it jumps), or None."""
    exact = {name for name, *_ in plan.graph_inputs} | {name for name, _ in plan.constants}
    for k, (op, ins, outs, attributes, _) in enumerate(plan.nodes):
        if op not in _COMPARISONS + _ROUNDING + _SELECTING or not ins or not ins[0]:
            continue
        why = _out_of_range(op, every.get(ins[0]), every.get(outs[0]))
        if why:
            return f"node {k} ({op}): {why}"
        if op in _COMPARISONS and len(ins) > 1 and ins[0] == ins[1]:
            continue  # a tensor against itself: the same on every frontend
        args = [np.asarray(every[name]) if name and name in every else None for name in ins]
        if any(a is not None and a.dtype.kind == "f" and name not in exact for a, name in zip(args, ins)):
            why = _jump(op, args, {name: _attribute_value(kind, v) for name, kind, v in attributes})
            if why:
                return f"node {k} ({op}): {why}: a frontend's rounding can land on either side"
    return None


def _out_of_range(op, x, y):
    """Why a Cast from floating point to an integer type is undefined here (a value NaN or beyond
    the target's range: C++ leaves it undefined, and frontends saturate, wrap or give the lowest
    value), or None."""
    if op not in ("Cast", "CastLike") or x is None or y is None:
        return None
    x, y = np.asarray(x), np.asarray(y)
    if x.dtype.kind != "f" or y.dtype.kind not in "iu":
        return None
    info = np.iinfo(y.dtype)
    wide = x.astype(np.float64)
    if (np.isnan(wide) | (wide < info.min) | (wide >= float(info.max) + 1)).any():
        return f"a value NaN or beyond the range of {y.dtype.name}: the cast is undefined there"
    return None


def _jump(op, args, attributes):
    if args[0].dtype.kind != "f":
        return None
    x = args[0].astype(np.float64)
    atol, rtol = _margin(args[0])
    near = atol + rtol * np.abs(x)
    if op in _COMPARISONS:
        if len(args) > 1 and args[1] is not None and (np.abs(x - args[1].astype(np.float64)) <= near).any():
            return "its inputs are within the oracle's tolerance of each other"
    elif op == "Round":
        if (np.abs(np.abs(x - np.floor(x)) - 0.5) <= near).any():
            return "an input lies within the oracle's tolerance of a half"
    elif op == "Sign":
        if ((x != 0) & (np.abs(x) <= atol)).any():
            return "an input lies within the oracle's tolerance of zero"
    elif op in _ROUNDING:
        # a whole number computed exactly is whole on every frontend; one a step off is not
        off = np.abs(x - np.rint(x))
        if ((off > 0) & (off <= near)).any():
            return "an input lies within the oracle's tolerance of a whole number"
    elif x.ndim and x.size > 1:
        axis = int(attributes.get("axis", -1 if op in ("Hardmax", "TopK") else 0)) % x.ndim
        ordered = np.sort(x, axis=axis)
        if ordered.shape[axis] < 2:
            return None
        if op == "TopK":
            gaps, level = np.diff(ordered, axis=axis), np.take(ordered, range(1, ordered.shape[axis]), axis=axis)
        elif op == "ArgMin":
            gaps, level = np.take(ordered, [1], axis=axis) - np.take(ordered, [0], axis=axis), np.take(ordered, [0], axis=axis)
        else:
            gaps = np.take(ordered, [-1], axis=axis) - np.take(ordered, [-2], axis=axis)
            level = np.take(ordered, [-1], axis=axis)
        if (gaps <= atol + rtol * np.abs(level)).any():
            return "two of its candidates are within the oracle's tolerance of each other"
    return None


def _wrap_graph(record, outdir):
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            plan, model, feeds, refs, random, bounds, (undefined, values_only) = _build_graph(record)
    except Exception as e:  # a bad record or a rejection by onnx: either way the graph is invalid
        if environment(e):  # the machine failed, not the instance: nothing to record
            raise
        return {"status": "invalid", "reason": f"{type(e).__name__}: {e}".strip()[:8000]}
    os.makedirs(outdir, exist_ok=True)
    with _files.create(os.path.join(outdir, "model.onnx")) as f:
        f.write(model.SerializeToString())
    meta = {
        "id": record.get("id"), "op": "graph", "ops": plan.ops, "nodes": len(plan.nodes),
        "opset": plan.stamped, "random": random,
        "opset_imports": {d or "ai.onnx": v for d, v in plan.opsets}, "ir_version": plan.ir_version,
        "inputs": [_save(outdir, "input", k, name, kind, dtype, feeds[name])
                   for k, (name, kind, dtype, _) in enumerate(plan.graph_inputs)],
        "outputs": [_save(outdir, "ref", k, name, kind, dtype, ref)
                    for k, ((name, kind, dtype, _), ref) in enumerate(zip(plan.graph_outputs, refs))],
    }
    if bounds is not None:
        meta["bounds"] = list(bounds)  # the range float data was drawn from, not the record's
    with _files.create(os.path.join(outdir, "meta.json"), "w") as f:
        json.dump(meta, f, indent=1)
    result = {"status": "ok", "random": random, "ninputs": len(plan.graph_inputs), "noutputs": len(refs)}
    _mark(result, undefined, values_only)
    return result


def _validate_graph(record):
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            _, _, _, refs, _, _, (undefined, values_only) = _build_graph(record)
            outputs = [_harvested(r) for r in refs]
    except Exception as e:
        if environment(e):  # the machine failed, not the instance: nothing to record
            raise
        return {"status": "invalid", "reason": f"{type(e).__name__}: {e}".strip()[:8000]}
    result = {"status": "ok", "outputs": json.dumps(outputs, separators=(",", ":"))}
    _mark(result, undefined, values_only)
    return result


def _graph_reproducer_test(record, testdir):
    """reproducer_test() of a graph record: the graph's literals, then the same run as a node's."""
    plan = _GraphPlan(record)
    meta = _reproducer.testdir_meta(testdir)
    bounds = meta.get("bounds")

    def literal(key, t):
        if "values" in t:
            return _array_literal(t)
        chosen = _bounded(bounds, t["dtype"], t.get("range"))
        return f"ferry_input(SEED, {key!r}, {t['dtype']!r}, {t['shape']!r}, {chosen!r})"

    constants = "".join(f"        ({name!r}, {literal([CONSTANT_KEY, j], t)}),\n"
                        for j, (name, t) in enumerate(plan.constants))
    nodes = []
    for op, ins, outs, attributes, _ in plan.nodes:
        attrs = ", ".join(f"({name!r}, {kind!r}, {_attribute_literal(kind, v)})" for name, kind, v in attributes)
        nodes.append(f"        ({op!r}, '', {ins!r}, {outs!r}, [{attrs}]),\n")
    inputs = "\n".join(f"    {name!r}: {literal([k], value['tensor'])},"
                       for k, ((name, *_), value) in enumerate(zip(plan.graph_inputs, plan.input_values)))
    base64 = "import base64\n" if any(kind in ("GRAPH", "GRAPHS") for *_, attributes, _ in plan.nodes
                                      for _, kind, _ in attributes) else ""
    model = f'''SEED = {plan.seed}
RANDOM = {meta.get("random", False)!r}  # True for a random operator: then only dtypes and shapes are compared

# a graph of {len(plan.nodes)} nodes, n0, n1, ... in this order
model = ferry_graph_model(
    {plan.opsets!r}, {plan.ir_version!r},
    {plan.graph_inputs!r},
    [
{constants}    ],
    [
{"".join(nodes)}    ],
    {plan.graph_outputs!r})
inputs = {{
{inputs}
}}
'''
    source = record.get("source", {})
    return {"what": f"a graph of {len(plan.nodes)} nodes ({', '.join(plan.ops)}; opset {plan.stamped})",
            "instance": record.get("id", "-"),
            "source": " ".join(str(source[k]) for k in ("suite", "seed", "index") if k in source),
            "reference": "onnx.reference", "name": "ONNX",
            "imports": f"{base64}import sys\nimport traceback\n\nimport onnx.reference\n",
            "test": model + _RUN}


def _graph_record(record_json):
    """The record if it is of kind "graph", else None (also for text that is not a JSON object:
    the node path says what is wrong with it)."""
    try:
        record = json.loads(record_json)
    except ValueError:
        return None
    return record if isinstance(record, dict) and record.get("kind") == "graph" else None
