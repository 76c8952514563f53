"""ferry.templates.runtime_onnx: what the ONNX template and a reproducer of an ONNX test both run.

The template (ferry/templates/onnx.py) builds its models and inputs with these functions, and a
reproducer script carries this module whole, inlined at its top: the same code makes the model and
the inputs in ferry and in a bug report, and compares a frontend's outputs with the reference. So
this module imports nothing of ferry, only numpy and onnx (and ml_dtypes, an onnx dependency, for
bfloat16, float8 and the sub-byte types), but for runtime_compare, which the reproducer pastes above
it and whose import it leaves out.
"""

import numpy as np
import onnx
from onnx import helper

if __name__ != "__main__":  # a reproducer pastes runtime_compare above this module instead
    from ferry.templates.runtime_compare import ferry_compare_arrays, ferry_untie_outputs


def ferry_dtype(name):
    """The numpy dtype for a dtype name of a ferry record."""
    if name == "string":
        return np.dtype(object)
    try:
        return np.dtype(name)
    except TypeError:
        import ml_dtypes  # bfloat16, float8_*, int4, ...: an onnx dependency
        found = getattr(ml_dtypes, str(name), None)
        if not (isinstance(found, type) and issubclass(found, np.generic)):
            raise TypeError(f"no dtype {name!r}") from None
        return np.dtype(found)


def ferry_input(seed, key, dtype, shape, bounds):
    """Deterministic data for an input whose values the record did not keep: uniform in bounds
    ([lo, hi]) when given, else standard normal floats, small integers, random bools, short strings.
    seed comes from the instance id, key ([input] or [input, element]) tells the inputs apart."""
    rng = np.random.default_rng([seed, *key])
    shape = [1 if d is None else d for d in shape]
    if dtype == "bool":
        return rng.integers(0, 2, size=shape).astype(bool)
    if dtype == "string":
        words = np.array([f"s{i}" for i in rng.integers(0, 8, size=shape).reshape(-1)], dtype=object)
        return words.reshape(shape)
    target = ferry_dtype(dtype)
    if dtype.startswith(("int", "uint")):
        unsigned = dtype.startswith("uint")
        lo, hi = bounds if bounds else ((0, 5) if unsigned else (-5, 5))
        wide = np.uint64 if unsigned else np.int64
        info = np.iinfo(wide)
        lo, hi = max(int(lo), int(info.min)), min(int(hi), int(info.max))
        return rng.integers(lo, hi, endpoint=True, size=shape, dtype=wide).astype(target)
    if dtype.startswith("complex"):
        lo, hi = bounds if bounds else (-1.0, 1.0)
        parts = rng.uniform(lo, hi, size=[2, *shape])
        return (parts[0] + 1j * parts[1]).astype(target)
    if bounds:
        return rng.uniform(bounds[0], bounds[1], size=shape).astype(target)
    return rng.standard_normal(size=shape).astype(target)


def ferry_model(op_type, domain, opsets, ir_version, node_inputs, node_outputs, graph_inputs,
                graph_outputs, attributes):
    """A model of one node. graph_inputs and graph_outputs are (name, kind, dtype, shape) with kind
    "tensor" or "sequence" (shape None: not declared); attributes are (name, type, value) with type an
    AttributeProto type name, tensors as numpy arrays and graphs as serialized GraphProto bytes."""
    graph = helper.make_graph(
        [ferry_node(op_type, domain, node_inputs, node_outputs, attributes)], "ferry",
        [ferry_value_info(*v) for v in graph_inputs], [ferry_value_info(*v) for v in graph_outputs])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid(d, v) for d, v in opsets],
                             ir_version=ir_version)


def ferry_graph_model(opsets, ir_version, graph_inputs, constants, nodes, graph_outputs):
    """A model of several nodes (a generated graph): graph_inputs and graph_outputs as for
    ferry_model; constants (name, array) are the initializers; nodes (op_type, domain, inputs,
    outputs, attributes), in a topological order, are named n0, n1, ... in that order."""
    graph = helper.make_graph(
        [ferry_node(op, domain, ins, outs, attributes, name=f"n{k}")
         for k, (op, domain, ins, outs, attributes) in enumerate(nodes)], "ferry",
        [ferry_value_info(*v) for v in graph_inputs], [ferry_value_info(*v) for v in graph_outputs],
        initializer=[onnx.numpy_helper.from_array(np.asarray(value), name) for name, value in constants])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid(d, v) for d, v in opsets],
                             ir_version=ir_version)


def ferry_value_info(name, kind, dtype, shape):
    """A graph input's or output's declaration: kind "tensor" or "sequence", shape None: not declared."""
    tensor = helper.make_tensor_type_proto(helper.np_dtype_to_tensor_dtype(ferry_dtype(dtype)), shape)
    return helper.make_value_info(name, tensor if kind == "tensor" else helper.make_sequence_type_proto(tensor))


def ferry_node(op_type, domain, inputs, outputs, attributes, name=None):
    """A node; attributes as for ferry_model."""
    def attribute_value(kind, value):
        if kind == "TENSOR":
            return onnx.numpy_helper.from_array(value)
        if kind == "TENSORS":
            return [onnx.numpy_helper.from_array(v) for v in value]
        if kind == "GRAPH":
            return onnx.GraphProto.FromString(value)
        if kind == "GRAPHS":
            return [onnx.GraphProto.FromString(v) for v in value]
        return value

    node = helper.make_node(op_type, inputs, outputs, name=name, domain=domain or None)
    node.attribute.extend(
        helper.make_attribute(n, attribute_value(kind, value), attr_type=onnx.AttributeProto.AttributeType.Value(kind))
        for n, kind, value in attributes)
    return node


def ferry_compare(outputs, reference, atol, rtol, random=False, ties=None):
    """Problems found comparing a frontend's outputs with the reference (empty: none): the same
    structure (sequences of as many elements), then each output as ferry_compare_arrays judges it."""
    if len(outputs) != len(reference):
        return [f"{len(outputs)} outputs, the reference has {len(reference)}"]
    outputs = ferry_untie_outputs(ties, outputs, reference)  # ties = (op, data): indices at ties
    problems = []
    for k, (out, ref) in enumerate(zip(outputs, reference)):
        if isinstance(ref, list):
            if not isinstance(out, list) or len(out) != len(ref):
                problems.append(f"output {k}: expected a sequence of {len(ref)}, got {type(out).__name__}")
                continue
            pairs = [(f"output {k}[{j}]", o, r) for j, (o, r) in enumerate(zip(out, ref))]
        else:
            pairs = [(f"output {k}", out, ref)]
        problems += [p for p in (ferry_compare_arrays(w, o, r, atol, rtol, random) for w, o, r in pairs) if p]
    return problems
