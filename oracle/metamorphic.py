"""ferry.oracle.metamorphic: MT-DLComp's metamorphic relations on ONNX models, and their reduction.

A mutation turns a model m into a model m' that computes the same function: it inserts a value that
is zero and folds it into a tensor t of the graph, as t + zero or t * (1 + zero). A compiler cannot
prove the value zero, so it computes it; a compiler whose m and m' disagree has a bug, and no
reference is needed to say so (Xiao et al., "Metamorphic Testing of Deep Learning Compilers",
SIGMETRICS 2022). Two relations make the zero:
  uoc   the universal obscure condition: Relu(-(d * d)), d = i - j over two tensors i and j of the
        graph, reduced to a scalar (ReduceSum). It is zero for every input on which i and j are
        finite (inf - inf is NaN), so i and j are taken among the tensors that are finite on the
        reference run, cast to float32 (where that keeps them finite), and where their shapes
        differ (or are not known statically) d is taken between their first elements (Reshape,
        Slice), so that it is valid for any shapes;
  pioc  the per-input obscure condition: the reference computes a node's output O for the test's
        inputs, and the zero is ReduceMean((n - O) * w), O a constant and w = 1e-3 / (max|O| + 1):
        zero for this input only. The scale w keeps a frontend's error in n, as far as the value
        oracle's tolerance allows it, a thousandth of that in the zero; a frontend that computes n
        grossly wrong makes m' differ from m. Only n that are finite and not empty on the reference run.
Either zero may carry "junk": a subgraph over another tensor of the graph that ends bounded (Tanh
of Sin, Exp, Abs, ... of a bounded value: finite whatever the input), multiplied by the zero and
added to it, which exercises more of the compiler while changing nothing.

Targets are the float16, float32 and float64 tensors of the graph that depend on its inputs (graph
inputs, and node outputs: the producer's output is renamed and the fold takes its name, so every
consumer, subgraphs' outer-scope references included, reads the folded value); other tensors are
counted as skipped by dtype (an integer tensor often carries a shape or an index, which a frontend
may need as a constant). The operands of a zero never descend from its target (no cycle) and never
come from junk (junk is each mutation's own, so removing it keeps every other mutation whole).

Mutations are applied one after the other (m1 ... mk), each a record, ready for JSON:
    {"index", "kind": "uoc"|"pioc", "target", "target_op", "fold": "add"|"mul", "operands",
     "nodes": [names of the inserted nodes, junk apart], "junk": [names of the junk nodes],
     "initializers": [names], "depends": [indices of earlier mutations whose tensors it uses],
     "rewire": "producer"|"input", "pre": the name the target's old value takes (or the folded
     value's, for a graph input), "zero", "gated": the zero before and after its junk}
target_op is the operator producing the target (for a graph input, the one consuming it; an
operator inserted by an earlier mutation is "OP (inserted)"). Every mutation is checked when it is
made: the mutated model must pass onnx.checker (full_check) and strict shape inference, and give
the original's outputs on the reference (onnx.reference) for the test's inputs. A mutation that
fails is ferry's bug, never a frontend's: it is counted (with its reason) and dropped.

apply() rebuilds the model of any subset of a chain (with the mutations it depends on), from the
original and the fully mutated model, with or without each mutation's junk; reduce() finds the
smallest one that still fails a predicate: delta debugging (ddmin) over the chain, then each junk
removed where the failure stays.

This module imports only numpy and onnx: ferry's worker (ferry.oracle.metamorphic_run) runs
frontends on what it makes, and it can be used, and is tested, alone.
"""

import copy
import heapq
import time
import warnings

import numpy as np
import onnx
from onnx import checker, defs, helper, numpy_helper, shape_inference
from onnx.reference import ReferenceEvaluator

KINDS = ("uoc", "pioc")
FOLDS = ("add", "mul")
# The oldest default-domain opset whose Add, Sub, Mul broadcast as today's (a model stamped older is
# raised to it where none of its nodes changes schema).
MIN_OPSET = 7
_PREFIX = "ferry_m"
_TARGETS = frozenset(np.dtype(t) for t in (np.float16, np.float32, np.float64))
_PIOC = frozenset(np.dtype(t) for t in (np.float16, np.float32, np.float64, np.int32, np.int64, np.bool_))
_BOUNDED = ("Sin", "Cos", "Tanh", "Sigmoid")
# Ops of the junk's middle: from values in [-1, 1], two of them stay below e^e.
_MIDDLE = ("Abs", "Neg", "Sin", "Cos", "Tanh", "Sigmoid", "Exp", "Square", "Double")
_F32 = np.dtype(np.float32)
# PIOC's w = _PIOC_SCALE / (max|O| + 1): a frontend whose n is within the value oracle's tolerance of
# O (1e-3 + 1e-3 |O|) makes a zero of about 1e-6, which no fold or junk lifts past that tolerance.
_PIOC_SCALE = 1e-3
_INT64_MAX = np.iinfo(np.int64).max


class MutationError(Exception):
    """A model ferry cannot mutate at all (its opset, or the reference cannot run it)."""


class _OutOfTime(Exception):
    pass


# --- graphs ---------------------------------------------------------------------------------------

def _subgraphs(node):
    for attr in node.attribute:
        if attr.type == onnx.AttributeProto.GRAPH:
            yield attr.g
        elif attr.type == onnx.AttributeProto.GRAPHS:
            yield from attr.graphs


def _outer_names(graph):
    """The names a subgraph reads from the scopes around it."""
    defined = {v.name for v in graph.input} | {t.name for t in graph.initializer}
    defined |= {t.values.name for t in graph.sparse_initializer}
    used = []
    for node in graph.node:
        used += [x for x in _reads(node) if x not in defined]
        defined.update(o for o in node.output if o)
    return used


def _reads(node):
    """What a node reads: its inputs and its subgraphs' outer-scope references."""
    names = [x for x in node.input if x]
    for g in _subgraphs(node):
        names += _outer_names(g)
    return names


def _all_names(graph, out=None):
    out = set() if out is None else out
    out.update(v.name for v in graph.input)
    out.update(v.name for v in graph.output)
    out.update(t.name for t in graph.initializer)
    for node in graph.node:
        out.add(node.name)
        out.update(node.input)
        out.update(node.output)
        for g in _subgraphs(node):
            _all_names(g, out)
    return out


def _toposort(graph):
    """Order the graph's nodes so that each comes after the producers of what it reads, keeping the
    given order where it can (a heap of positions)."""
    nodes = list(graph.node)
    producer = {o: k for k, n in enumerate(nodes) for o in n.output if o}
    waits = [set() for _ in nodes]
    users = [[] for _ in nodes]
    for k, n in enumerate(nodes):
        for x in _reads(n):
            p = producer.get(x)
            if p is not None and p != k and p not in waits[k]:
                waits[k].add(p)
                users[p].append(k)
    ready = [k for k in range(len(nodes)) if not waits[k]]
    heapq.heapify(ready)
    order = []
    while ready:
        k = heapq.heappop(ready)
        order.append(k)
        for u in users[k]:
            waits[u].discard(k)
            if not waits[u]:
                heapq.heappush(ready, u)
    if len(order) != len(nodes):
        raise MutationError("the mutated graph has a cycle")
    del graph.node[:]
    graph.node.extend(nodes[k] for k in order)


def default_opset(model):
    for imp in model.opset_import:
        if imp.domain in ("", "ai.onnx"):
            return imp.version
    return None


def _domain_nodes(graph):
    for node in graph.node:
        yield node
        for g in _subgraphs(node):
            yield from _domain_nodes(g)


def _raise_opset(model, version):
    """Raise the default domain's opset to version if no node changes schema; whether it did."""
    old = default_opset(model)
    for node in _domain_nodes(model.graph):
        if node.domain not in ("", "ai.onnx"):
            continue
        try:
            if defs.get_schema(node.op_type, old, "").since_version != \
                    defs.get_schema(node.op_type, version, "").since_version:
                return False
        except Exception:  # an operator the schemas do not know: leave the model alone
            return False
    for imp in model.opset_import:
        if imp.domain in ("", "ai.onnx"):
            imp.version = version
    model.ir_version = max(model.ir_version, helper.find_min_ir_version_for(list(model.opset_import)))
    return True


def count_nodes(model):
    """The nodes of the model's main graph."""
    return len(model.graph.node)


# --- the reference --------------------------------------------------------------------------------

def _node_outputs(model):
    return [o for n in model.graph.node for o in n.output if o]


def reference_values(model, feeds):
    """Every top-level tensor's value on the reference run: name -> value (an array, a list for a
    sequence, None for an empty optional); the graph inputs are the feeds."""
    names = _node_outputs(model)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        got = ReferenceEvaluator(model).run(names, dict(feeds))
    values = dict(feeds)
    values.update(zip(names, got))
    for t in model.graph.initializer:
        values.setdefault(t.name, numpy_helper.to_array(t))
    return values


def _same(a, b):
    """Whether two reference values are the same: dtype, shape and values, NaN equal to NaN (and -0
    to 0, as the value oracle has it)."""
    if isinstance(a, (list, tuple)) or isinstance(b, (list, tuple)):
        return isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)) and len(a) == len(b) and \
            all(_same(x, y) for x, y in zip(a, b))
    if a is None or b is None:
        return a is None and b is None
    a, b = np.asarray(a), np.asarray(b)
    if a.dtype != b.dtype or a.shape != b.shape:
        return False
    if a.dtype.kind in "fc":
        return bool(np.array_equal(a, b, equal_nan=True))
    return bool(np.array_equal(a, b))


def _outputs_of(model, values):
    return [values.get(o.name) for o in model.graph.output]


def _shape_only(a, b):
    """For models whose outputs are random: dtypes and shapes."""
    if isinstance(a, (list, tuple)) or isinstance(b, (list, tuple)):
        return isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)) and len(a) == len(b)
    if a is None or b is None:
        return a is None and b is None
    a, b = np.asarray(a), np.asarray(b)
    return a.dtype == b.dtype and a.shape == b.shape


def check(model):
    """Raise unless the model passes onnx.checker (full_check) and strict shape inference."""
    checker.check_model(model, full_check=True)
    shape_inference.infer_shapes(model, check_type=True, strict_mode=True)


# --- what a graph offers --------------------------------------------------------------------------

def _finite32(value):
    """Whether the value is a numeric array that stays finite as float32."""
    if not isinstance(value, np.ndarray) or value.dtype.kind not in "biuf":
        return False
    if value.dtype.kind != "f":
        return True
    with np.errstate(over="ignore", invalid="ignore"):
        return bool(np.isfinite(value.astype(np.float32)).all())


def _static_shapes(model):
    """name -> shape for the tensors whose shape shape inference knows fully."""
    try:
        inferred = shape_inference.infer_shapes(model)
    except Exception:
        return {}
    shapes = {}
    g = inferred.graph
    for v in list(g.input) + list(g.output) + list(g.value_info):
        t = v.type.tensor_type
        if v.type.HasField("tensor_type") and t.HasField("shape") and \
                all(d.HasField("dim_value") for d in t.shape.dim):
            shapes[v.name] = tuple(d.dim_value for d in t.shape.dim)
    return shapes


class _Graph:
    """The current model, as the next mutation sees it."""

    def __init__(self, model, values, junk, created):
        g = model.graph
        self.created = created  # what earlier mutations made
        self.model = model
        self.values = values
        self.inits = {t.name for t in g.initializer}
        self.inputs = [v.name for v in g.input if v.name not in self.inits]
        self.producer = {o: n for n in g.node for o in n.output if o}
        self.consumers = {}
        for n in g.node:
            for x in set(_reads(n)):
                self.consumers.setdefault(x, []).append(n)
        # Tensors that depend on a graph input: constants (and what only constants make) a compiler
        # may fold, and a zero made of them could be proved.
        self.runtime = set(self.inputs)
        for n in g.node:
            if any(x in self.runtime for x in _reads(n)):
                self.runtime.update(o for o in n.output if o)
        self.junk = junk
        self.names = _all_names(g)
        self.shapes = _static_shapes(model)

    def descendants(self, t):
        seen, todo = {t}, [t]
        while todo:
            for n in self.consumers.get(todo.pop(), []):
                for o in n.output:
                    if o and o not in seen:
                        seen.add(o)
                        todo.append(o)
        return seen

    def tensors(self):
        """The runtime tensors, graph inputs first, then in node order."""
        out = list(self.inputs)
        out += [o for n in self.model.graph.node for o in n.output if o and o in self.runtime]
        return [t for t in out if t not in self.junk]


# --- making nodes ---------------------------------------------------------------------------------

class _Maker:
    """The nodes and constants of one mutation, named ferry_m<index>_..., in the model's opset and IR
    version (constants as initializers, or Constant nodes where the IR version predates initializers
    that are not graph inputs)."""

    def __init__(self, graph, index, opset, ir_version):
        self.taken = graph.names
        self.prefix = f"{_PREFIX}{index}_"
        self.opset = opset
        self.constant_nodes = ir_version < 4
        self.nodes, self.inits, self.created = [], [], set()
        self.count = 0

    def name(self, hint):
        while True:
            self.count += 1
            n = f"{self.prefix}{hint}{self.count}"
            if n not in self.taken:
                self.taken.add(n)
                return n

    def op(self, op_type, inputs, **attrs):
        out = self.name(op_type.lower())
        self.nodes.append(helper.make_node(op_type, list(inputs), [out], name=self.name("n_"), **attrs))
        self.created.add(out)
        return out

    def const(self, array, hint="c"):
        out = self.name(hint)
        tensor = numpy_helper.from_array(np.asarray(array), out)
        if self.constant_nodes:
            self.nodes.append(helper.make_node("Constant", [], [out], name=self.name("n_"), value=tensor))
        else:
            self.inits.append(tensor)
        self.created.add(out)
        return out

    def to(self, x, have, want):
        """x (of dtype have) as dtype want: a Cast only where they differ."""
        if np.dtype(have) == np.dtype(want):
            return x
        return self.op("Cast", [x], to=helper.np_dtype_to_tensor_dtype(np.dtype(want)))

    def element(self, x, last=False):
        """x's first (or last) element as a tensor of shape [1] (or [1, 1]), [0] (or [1, 0]) when x is
        empty. A Constant node holds only floats before opset 9: there x (a float) is flattened by
        Flatten, with no shape to give."""
        start, end = (-1, _INT64_MAX) if last else (0, 1)
        if self.constant_nodes and self.opset < 9:
            return self.op("Slice", [self.op("Flatten", [x], axis=0)], starts=[start], ends=[end], axes=[1])
        flat = self.op("Reshape", [x, self.const(np.array([-1], np.int64))])
        if self.opset < 10:
            return self.op("Slice", [flat], starts=[start], ends=[end], axes=[0])
        return self.op("Slice", [flat, self.const(np.array([start], np.int64)),
                                 self.const(np.array([end], np.int64)), self.const(np.array([0], np.int64))])

    def reduce(self, op_type, x):
        """A scalar: every axis reduced (no axes given: the same in every opset)."""
        return self.op(op_type, [x], keepdims=0)


# --- one mutation ---------------------------------------------------------------------------------

def _operands(graph, t, rewire):
    """The tensors a zero for target t may read: runtime, finite as float32, not descending from t
    (t itself is its old value: the producer's renamed output, or the graph input)."""
    below = graph.descendants(t)
    out = []
    for x in graph.tensors():
        if x in below and x != t:
            continue
        if _finite32(graph.values.get(x)):
            out.append(x)
    return out


def _target_op(graph, t, inserted):
    node = graph.producer.get(t)
    if node is None:  # a graph input: the operator it feeds, the model's own first
        users = sorted(graph.consumers.get(t, []), key=lambda n: n.name in inserted)
        node = users[0] if users else None
    if node is None:
        return "input"
    return f"{node.op_type} (inserted)" if node.name in inserted else node.op_type


def _junk(mk, rng, graph, sources):
    """A bounded subgraph over a source tensor, reduced to a scalar: finite whatever it reads."""
    x = _pick(rng, sources, graph)
    v = graph.values[x]
    y = mk.op(_BOUNDED[rng.integers(len(_BOUNDED))], [mk.to(x, v.dtype, _F32)])
    for _ in range(int(rng.integers(1, 3))):
        op = _MIDDLE[rng.integers(len(_MIDDLE))]
        if op == "Square":
            y = mk.op("Mul", [y, y])
        elif op == "Double":
            y = mk.op("Add", [y, y])
        else:
            y = mk.op(op, [y])
    return mk.reduce("ReduceMean", mk.op("Tanh", [y])), x


def _pick(rng, names, graph):
    """One of names, the model's own tensors three times in four where there are both: a mutation
    is mostly about the model, sometimes about an earlier mutation (which it then depends on)."""
    own = [x for x in names if x not in graph.created]
    if own and len(own) < len(names) and rng.random() < 0.75:
        names = own
    return names[rng.integers(len(names))]


def _build(graph, rng, index, kind, opset, ir_version, inserted):
    """One mutation of the current model: (record, nodes, initializers), or None where the graph
    offers no target or no operand."""
    targets = [t for t in graph.tensors()
               if isinstance(graph.values.get(t), np.ndarray) and graph.values[t].dtype in _TARGETS]
    if not targets:
        return None
    t = _pick(rng, targets, graph)
    rewire = "input" if t in graph.inputs else "producer"
    mk = _Maker(graph, index, opset, ir_version)
    pre = mk.name("pre")
    operands = _operands(graph, t, rewire)
    # t's own old value, read under the name it has once the fold takes t
    own = pre if rewire == "producer" else t
    rec = {"index": index, "kind": kind, "target": t, "target_op": _target_op(graph, t, inserted),
           "fold": FOLDS[rng.integers(len(FOLDS))], "rewire": rewire, "pre": pre}
    if kind == "pioc":
        # (a Constant node holds only floats before opset 9: O too)
        floats_only = ir_version < 4 and opset < 9
        choices = [x for x in operands if graph.values[x].dtype in _PIOC and graph.values[x].size > 0
                   and (graph.values[x].dtype.kind == "f" or not floats_only)]
        if not choices:
            return None
        n = _pick(rng, choices, graph)
        value = graph.values[n]
        name = own if n == t else n
        o = mk.const(value, "o")
        if value.dtype == np.bool_:
            d = mk.to(mk.op("Xor", [name, o]), np.bool_, _F32)
        else:
            d = mk.to(mk.op("Sub", [name, o]), value.dtype, _F32)
        scale = np.float32(_PIOC_SCALE / (float(np.max(np.abs(value.astype(np.float64)))) + 1.0))
        zero = mk.reduce("ReduceMean", mk.op("Mul", [d, mk.const(np.array(scale, np.float32), "w")]))
        rec["operands"] = [n]
    else:
        if not operands:
            return None
        i = _pick(rng, operands, graph)
        others = [x for x in operands if x != i]
        j = _pick(rng, others, graph) if others else i
        vi, vj = graph.values[i], graph.values[j]
        a = mk.to(own if i == t else i, vi.dtype, _F32)
        b = mk.to(own if j == t else j, vj.dtype, _F32)
        if i == j:
            a, b = mk.element(a), mk.element(a, last=True)
        elif not (graph.shapes.get(i) is not None and graph.shapes.get(i) == graph.shapes.get(j)):
            a, b = mk.element(a), mk.element(b)
        d = mk.op("Sub", [a, b])
        zero = mk.reduce("ReduceSum", mk.op("Relu", [mk.op("Neg", [mk.op("Mul", [d, d])])]))
        rec["operands"] = [i, j]
    main_nodes, main_inits = list(mk.nodes), list(mk.inits)
    gated, junk_nodes, junk_inits = zero, [], []
    sources = [x for x in operands if graph.values[x].size > 0]
    if sources and rng.random() < 0.5:
        js, source = _junk(mk, rng, graph, sources)
        if source == t:
            # the junk reads t's old value too
            for node in mk.nodes[len(main_nodes):]:
                node.input[:] = [own if x == t else x for x in node.input]
        gated = mk.op("Add", [zero, mk.op("Mul", [js, zero])])
        junk_nodes, junk_inits = mk.nodes[len(main_nodes):], mk.inits[len(main_inits):]
        mk.nodes, mk.inits = list(main_nodes), list(main_inits)
    dtype = graph.values[t].dtype
    z = mk.to(gated, _F32, dtype)
    if rec["fold"] == "add":
        mk.op("Add", [own, z])
    else:
        mk.op("Mul", [own, mk.op("Add", [mk.const(np.array(1, dtype), "one"), z])])
    # the fold takes t's name (a graph input's consumers read the folded value under pre instead)
    mk.nodes[-1].output[0] = t if rewire == "producer" else pre
    rec["zero"], rec["gated"] = zero, gated
    rec["nodes"] = [n.name for n in mk.nodes]
    rec["junk"] = [n.name for n in junk_nodes]
    rec["initializers"] = [i.name for i in mk.inits + junk_inits]
    return rec, mk.nodes + junk_nodes, mk.inits + junk_inits


def _insert(model, rec, nodes, inits):
    """Put a mutation's nodes into the model: rename the target's producer output (or point the
    graph input's consumers at the folded value), add the nodes and constants, order the graph."""
    g = model.graph
    own = {n.name for n in nodes}
    t, pre = rec["target"], rec["pre"]
    if rec["rewire"] == "producer":
        found = False
        for node in g.node:
            for k, o in enumerate(node.output):
                if o == t:
                    node.output[k] = pre
                    found = True
        if not found:
            raise MutationError(f"no node produces '{t}'")
    else:
        for node in g.node:
            if node.name not in own:
                node.input[:] = [pre if x == t else x for x in node.input]
    g.node.extend(nodes)
    g.initializer.extend(inits)
    _toposort(g)


def _creates(rec):
    """The names a mutation brings into the graph."""
    return (set(rec["_outputs"]) - {rec["target"]}) | {rec["pre"]} | set(rec["initializers"])


def _depends(chain, rec, nodes):
    reads = {x for n in nodes for x in _reads(n)} | {rec["target"]}
    mine = {o for n in nodes for o in n.output} | {rec["pre"]} | set(rec["initializers"])
    reads -= mine - {rec["target"]}  # the fold's output takes the target's name, whoever made it
    return sorted(q["index"] for q in chain if reads & _creates(q))


# --- the chain ------------------------------------------------------------------------------------

class Mutated:
    """What mutate() made: model (m'), chain (the records), and stats: tried, applied, dropped (with
    reasons, first lines, counted), skipped targets (by dtype) and why nothing applied, if so."""

    def __init__(self, model, chain, stats):
        self.model, self.chain, self.stats = model, chain, stats


def _skipped(model, values, graph):
    counts = {}
    for t in graph.tensors():
        v = values.get(t)
        if isinstance(v, np.ndarray) and v.dtype in _TARGETS:
            continue
        what = str(v.dtype) if isinstance(v, np.ndarray) else "sequence" if isinstance(v, list) else "optional"
        counts[what] = counts.get(what, 0) + 1
    return counts


def _drop(stats, e):
    text = str(e).strip()
    why = f"{type(e).__name__}: {text.splitlines()[0] if text else ''}"[:200]
    stats["dropped"] += 1
    stats["dropped_reasons"][why] = stats["dropped_reasons"].get(why, 0) + 1


def mutate(model, feeds, k, seed, random=False, kinds=KINDS):
    """Apply k mutations to a copy of model (an onnx.ModelProto), each checked as the module says;
    feeds: graph input name -> value. seed (an int) decides every choice; kinds, the relations drawn
    from. random: the model's outputs vary from run to run, so the reference check compares dtypes
    and shapes only. Returns Mutated. Raises MutationError for a model that cannot be mutated at all."""
    rng = np.random.default_rng(seed)
    m = copy.deepcopy(model)
    opset = default_opset(m)
    stats = {"tried": 0, "applied": 0, "dropped": 0, "dropped_reasons": {}, "skipped": {}}
    if opset is None:
        raise MutationError("the model imports no default-domain opset")
    if opset < MIN_OPSET and not _raise_opset(m, MIN_OPSET):
        raise MutationError(f"opset {opset} predates today's broadcasting (opset {MIN_OPSET})")
    opset = default_opset(m)
    try:
        values = reference_values(m, feeds)
    except Exception as e:
        raise MutationError(f"the reference cannot run the model: {type(e).__name__}: {e}") from e
    want = _outputs_of(m, values)
    junk, inserted, created, chain = set(), set(), set(), []
    graph = _Graph(m, values, junk, created)
    stats["skipped"] = _skipped(m, values, graph)
    attempts = 0
    while len(chain) < k and attempts < 3 * k:
        attempts += 1
        kind = kinds[rng.integers(len(kinds))]
        try:
            built = _build(graph, rng, len(chain), kind, opset, m.ir_version, inserted)
            if built is None and kind == "pioc" and "uoc" in kinds:
                built = _build(graph, rng, len(chain), "uoc", opset, m.ir_version, inserted)
        except Exception as e:  # ferry's own bug: counted and dropped, never a frontend's
            _drop(stats, e)
            continue
        if built is None:
            stats["none"] = "no float16, float32 or float64 tensor depends on the inputs" \
                if not any(isinstance(graph.values.get(t), np.ndarray) and graph.values[t].dtype in _TARGETS
                           for t in graph.tensors()) else "no operand for a zero"
            break
        stats["tried"] += 1
        rec, nodes, inits = built
        candidate = copy.deepcopy(m)
        try:
            _insert(candidate, rec, copy.deepcopy(nodes), inits)
            check(candidate)
            got = reference_values(candidate, feeds)
            same = _shape_only if random else _same
            outs = _outputs_of(candidate, got)
            if len(outs) != len(want) or not all(same(a, b) for a, b in zip(outs, want)):
                raise MutationError("the reference gives other outputs")
        except Exception as e:  # ferry's own bug: counted and dropped, never a frontend's
            _drop(stats, e)
            continue
        rec["_outputs"] = [o for n in nodes for o in n.output]
        rec["depends"] = _depends(chain, rec, nodes)
        chain.append(rec)
        junk.update(o for n in nodes if n.name in rec["junk"] for o in n.output)
        inserted.update(n.name for n in nodes)
        created.update(_creates(rec))
        m, values = candidate, got
        graph = _Graph(m, values, junk, created)
    stats["applied"] = len(chain)
    return Mutated(m, [public(r) for r in chain], stats)


def public(rec):
    """A record without what only mutate() needs."""
    return {k: v for k, v in rec.items() if not k.startswith("_")}


def closure(chain, keep):
    """keep (indices) with every mutation they depend on, in chain order."""
    out, todo = set(), list(keep)
    while todo:
        q = todo.pop()
        if q not in out:
            out.add(q)
            todo += chain[q]["depends"]
    return sorted(out)


def apply(original, mutated, chain, keep, no_junk=()):
    """The original model with the mutations of keep (and those they depend on), their nodes taken
    from mutated (the fully mutated model), in chain order; the mutations of no_junk without their
    junk (their fold reads the plain zero)."""
    m = copy.deepcopy(original)
    if default_opset(m) < MIN_OPSET:
        _raise_opset(m, MIN_OPSET)
    nodes = {n.name: n for n in mutated.graph.node}
    inits = {t.name: t for t in mutated.graph.initializer}
    for q in closure(chain, keep):
        rec = chain[q]
        names = rec["nodes"] + ([] if q in no_junk else rec["junk"])
        mine = [copy.deepcopy(nodes[n]) for n in names]
        # As q made them: the later mutations' renames undone, the latest first (a later one that
        # targets a tensor of q's renamed q's node, or pointed q's reading of a graph input away).
        for later in reversed(chain[q + 1:]):
            for n in mine:
                if later["rewire"] == "producer":
                    n.output[:] = [later["target"] if o == later["pre"] else o for o in n.output]
                else:
                    n.input[:] = [later["target"] if x == later["pre"] else x for x in n.input]
        if q in no_junk:
            for n in mine:
                n.input[:] = [rec["zero"] if x == rec["gated"] else x for x in n.input]
        used = {x for n in mine for x in n.input}
        _insert(m, rec, mine, [inits[i] for i in rec["initializers"] if i in inits and i in used])
    return m


# --- reduction ------------------------------------------------------------------------------------

def _chunks(items, n):
    size, rest = divmod(len(items), n)
    out, at = [], 0
    for k in range(n):
        step = size + (1 if k < rest else 0)
        out.append(items[at:at + step])
        at += step
    return [c for c in out if c]


def ddmin(items, fails):
    """Zeller's delta debugging: a 1-minimal sublist of items (a list) for which fails(sublist) is
    true, given that it is true for items."""
    n = 2
    while len(items) >= 2:
        chunks = _chunks(items, n)
        for c in chunks:
            if fails(c):
                items, n = c, 2
                break
        else:
            for c in chunks:
                rest = [x for x in items if x not in c]
                if fails(rest):
                    items, n = rest, max(n - 1, 2)
                    break
            else:
                if n >= len(items):
                    break
                n = min(2 * n, len(items))
    return items


def reduce(original, mutated, chain, fails, seconds=None):
    """The smallest m' that still fails: fails(model) says whether a model (an apply() of the chain)
    shows the failure. ddmin over the chain, each candidate with its dependencies, then each remaining
    mutation's junk removed where the failure stays. seconds bounds the time: when it runs out the
    smallest failing model found so far is the answer. Returns a dict: keep (indices), no_junk, model,
    tests (predicate calls), complete (False: time ran out, or the whole chain did not fail)."""
    deadline = None if seconds is None else time.monotonic() + seconds
    seen = {}
    every = list(range(len(chain)))
    best = {"keep": every, "no_junk": frozenset()}

    def test(keep, no_junk=frozenset()):
        key = (tuple(closure(chain, keep)), frozenset(no_junk))
        if key not in seen:
            if deadline is not None and time.monotonic() > deadline:
                raise _OutOfTime()
            seen[key] = bool(fails(apply(original, mutated, chain, list(key[0]), key[1])))
            # the smallest failing model so far, should time run out
            if seen[key] and (len(key[0]), -len(key[1])) < (len(best["keep"]), -len(best["no_junk"])):
                best.update(keep=list(key[0]), no_junk=key[1])
        return seen[key]

    complete = True
    try:
        if not chain or not test(every):
            return {"keep": every, "no_junk": [], "model": mutated, "tests": len(seen), "complete": False}
        keep = closure(chain, ddmin(every, lambda sub: bool(sub) and test(sub)))
        # ddmin's answer is minimal as a set of choices; its closure may still hold a mutation that
        # only came in as another's dependency: each one whose removal keeps the failure goes
        for q in reversed(list(keep)):
            rest = [x for x in keep if x != q]
            if rest and closure(chain, rest) == rest and test(rest):
                keep = rest
        no_junk = set()
        for q in keep:
            if chain[q]["junk"] and test(keep, no_junk | {q}):
                no_junk.add(q)
        best.update(keep=keep, no_junk=frozenset(no_junk))
    except _OutOfTime:
        complete = False
    keep, no_junk = best["keep"], sorted(best["no_junk"])
    return {"keep": keep, "no_junk": no_junk, "model": apply(original, mutated, chain, keep, no_junk),
            "tests": len(seen), "complete": complete}
