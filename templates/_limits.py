"""The limits of ONNX operators' specifications that onnx's checker, its strict shape inference and its
reference evaluator leave unchecked: an instance beyond one is no test of a frontend (whatever a
frontend makes of it says nothing), so vary never keeps one and wrap refuses it.

Each limit is the operator's documented rule (onnx.defs' text for the operator, quoted in the reason),
read from the one node of a node test, the shapes of its inputs and the values of its constant ones.
No limit is about what a frontend supports: that is the frontends' to say.
"""

import numpy as np
import onnx


class OutsideSpec(Exception):
    """An instance beyond a limit of its operator's specification."""


def _attr(node, name, default=None):
    for a in node.attribute:
        if a.name == name:
            return onnx.helper.get_attribute_value(a)
    return default


def _unidirectional(small, big):
    """Whether shape small broadcasts to shape big in one direction (onnx's Broadcasting.md)."""
    if len(small) > len(big):
        return False
    return all(s in (1, b) for s, b in zip(reversed(small), reversed(big)))


def _floating(a):
    """Whether an input's values are of a floating-point type (bfloat16's numpy type is of kind V)."""
    return a is not None and (a.dtype.kind == "f" or "float" in a.dtype.name)


def _mod(node, shapes, values, opset):
    if opset < 28 and _floating(values[0]) and _attr(node, "fmod", 0) == 0:
        return ("fmod 0 on a floating-point input before opset 28 (Mod-13: \"If the input type is floating "
                "point, then fmod attribute must be set to 1\")")
    return None


def _layer_norm(node, shapes, values, opset):
    x = shapes[0]
    axis = _attr(node, "axis", -1)
    if x is None:
        return None
    if not -len(x) <= axis < len(x):
        return f"axis {axis} is outside [-r, r) for X of rank {len(x)} (\"axis' allowed range is [-r, r)\")"
    for name, s in zip(("Scale", "B"), shapes[1:3]):
        if s is not None and not _unidirectional(s, x):
            return (f"{name} of shape {list(s)} does not broadcast to X of shape {list(x)} (\"Scale and B "
                    "should be unidirectional broadcastable to tensor X\")")
    return None


def _reverse_sequence(node, shapes, values, opset):
    batch, time = _attr(node, "batch_axis", 1), _attr(node, "time_axis", 0)
    if {batch, time} != {0, 1}:
        return (f"batch_axis {batch} and time_axis {time} are not 0 and 1, one each (\"batch_axis: must be "
                "one of 1 (default), or 0\", \"time_axis: must be one of 0 (default), or 1\")")
    return None


def _depth_to_space(node, shapes, values, opset):
    mode = _attr(node, "mode", b"DCR")
    mode = mode.decode() if isinstance(mode, bytes) else mode
    if mode not in ("DCR", "CRD"):
        return f"mode {mode!r} is neither DCR nor CRD (the two orders the operator defines)"
    return None


def _nms(node, shapes, values, opset):
    boxes, scores = shapes[0], shapes[1]
    if boxes is None or scores is None or len(boxes) != 3 or len(scores) != 3:
        return None
    if boxes[0] != scores[0] or boxes[1] != scores[2]:
        return (f"boxes {list(boxes)} and scores {list(scores)} disagree (\"boxes: [num_batches, "
                "spatial_dimension, 4]\", \"scores: [num_batches, num_classes, spatial_dimension]\")")
    return None


def _class_loss(node, shapes, values, opset):
    scores, labels = shapes[0], shapes[1]
    if scores is None or labels is None or len(scores) < 2:
        return None
    if list(labels) != [scores[0], *scores[2:]]:
        return (f"the target's shape {list(labels)} is not the input's {list(scores)} without its class "
                "dimension (\"(N, C, d1, ..., dk)\" and \"(N, d1, ..., dk)\")")
    target = values[1]
    ignore = _attr(node, "ignore_index")
    if target is not None and target.size:
        t = np.asarray(target)
        bad = (t < 0) | (t >= scores[1])
        if ignore is not None:
            bad &= t != ignore
        if bad.any():
            return (f"a target value {int(t[bad].flat[0])} is outside [0, {scores[1]}) and is not ignore_index "
                    f"{ignore} (\"the target values should either be in the range [0, C) or have the value "
                    "ignore_index\")")
    return None


# Where a convolution's weight is among its inputs: its kernel is the weight's spatial shape.
_WEIGHT = {"Conv": 1, "ConvInteger": 1, "QLinearConv": 3, "ConvTranspose": 1}


def _pool(node, shapes, values, opset):
    """A pooling or convolution whose kernel's window is larger than a padded spatial dimension."""
    x = shapes[0]
    kernel = _attr(node, "kernel_shape")
    w = _WEIGHT.get(node.op_type)
    if not kernel and w is not None and len(shapes) > w and shapes[w] is not None:
        kernel = list(shapes[w][2:])
    if x is None or not kernel or len(x) != len(kernel) + 2:
        return None
    auto_pad = _attr(node, "auto_pad", b"NOTSET")
    auto_pad = auto_pad.decode() if isinstance(auto_pad, bytes) else auto_pad
    if auto_pad not in ("NOTSET", "VALID"):
        return None
    n = len(kernel)
    pads = _attr(node, "pads") or [0] * (2 * n)
    dilations = _attr(node, "dilations") or [1] * n
    for i, (size, k) in enumerate(zip(x[2:], kernel)):
        padded = size + (pads[i] + pads[i + n] if auto_pad == "NOTSET" else 0)
        window = (k - 1) * dilations[i] + 1
        if size > 0 and padded < window:
            return (f"spatial dimension {i} of {size} (padded {padded}) is smaller than the kernel's window "
                    f"of {window}: the output's size would be below 1")
    return None


def _kernel_of_weight(node, shapes, values, opset):
    """A convolution's kernel_shape that is not its weight's spatial shape ("If not present, should be
    inferred from input W"), then what _pool checks of one that is not transposed."""
    w = _WEIGHT[node.op_type]
    kernel = _attr(node, "kernel_shape")
    weight = shapes[w] if len(shapes) > w else None
    if kernel and weight is not None and list(kernel) != list(weight[2:]):
        return (f"kernel_shape {list(kernel)} is not the weight's spatial shape {list(weight[2:])} (\"If not "
                "present, should be inferred from input W\")")
    return None if node.op_type == "ConvTranspose" else _pool(node, shapes, values, opset)


_LIMITS = {
    "Mod": _mod,
    "LayerNormalization": _layer_norm,
    "ReverseSequence": _reverse_sequence,
    "DepthToSpace": _depth_to_space,
    "NonMaxSuppression": _nms,
    "SoftmaxCrossEntropyLoss": _class_loss,
    "NegativeLogLikelihoodLoss": _class_loss,
    "AveragePool": _pool,
    "MaxPool": _pool,
    "LpPool": _pool,
    "Conv": _kernel_of_weight,
    "ConvInteger": _kernel_of_weight,
    "QLinearConv": _kernel_of_weight,
    "ConvTranspose": _kernel_of_weight,
}


def check(model, feeds):
    """Raise OutsideSpec where the one node of model (in the default domain) is beyond a limit of its
    operator's specification; feeds: the graph inputs' values by name (its constants among them)."""
    if len(model.graph.node) != 1:
        return
    node = model.graph.node[0]
    limit = _LIMITS.get(node.op_type) if node.domain in ("", "ai.onnx") else None
    if limit is None:
        return
    known = dict(feeds)
    for init in model.graph.initializer:
        known.setdefault(init.name, onnx.numpy_helper.to_array(init))
    values = [np.asarray(known[name]) if name in known else None for name in node.input]
    shapes = [v.shape if v is not None else None for v in values]
    opset = next((o.version for o in model.opset_import if o.domain in ("", "ai.onnx")), 0)
    why = limit(node, shapes, values, opset)
    if why:
        raise OutsideSpec(f"{node.op_type}: {why}")
