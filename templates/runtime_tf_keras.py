"""ferry.templates.runtime_tf_keras: what the Keras 2 template (ferry/templates/tf_keras.py) and its
adapters share: the layer rebuilt from its record through an allow-list, its single-layer model, the
generated inputs, the model's run and the comparison of outputs. It imports nothing of ferry but
runtime_compare, so that a reproducer can carry it whole.

A configuration is Keras 2's own (get_config): nested objects are plain dictionaries
{"module", "class_name", "config", ...} that Keras 2 deserializes by name. Before Keras sees one,
every such dictionary is checked here: its class must be one of the classes tf_keras exports for
layers, initializers, regularizers and constraints (never Lambda, whose configuration carries Python
bytecode), and no dictionary may carry code ("function", a "__lambda__" class): a record is data.
"""

import numpy as np
import tensorflow as tf
import tf_keras

if __name__ != "__main__":  # a reproducer pastes runtime_compare above this module instead
    from ferry.templates.runtime_compare import ferry_compare_arrays

# Classes whose configuration rebuilds Python code, or that are no operator.
_REFUSED = ("Lambda", "Layer", "InputLayer", "Wrapper")


def ferry_classes():
    """The allow-list: class name -> class, of every class tf_keras.layers, .initializers,
    .regularizers and .constraints export (the names Keras 2 serializes them by), less _REFUSED.
    Enumerated once from tf_keras's public modules; a record's name is looked up here."""
    table = {}
    for module in (tf_keras.constraints, tf_keras.regularizers, tf_keras.initializers, tf_keras.layers):
        for name in dir(module):
            obj = getattr(module, name)
            if isinstance(obj, type) and not name.startswith("_") and name not in _REFUSED \
                    and str(getattr(obj, "__module__", "")).startswith("tf_keras."):
                table[name] = obj
                table.setdefault(obj.__name__, obj)
    return table


def ferry_resolve(op):
    """The layer class a record's op names ("tf_keras.layers.Dense"), from the allow-list."""
    table = getattr(ferry_resolve, "table", None)
    if table is None:
        table = ferry_resolve.table = ferry_classes()
    name = op[len("tf_keras.layers."):] if isinstance(op, str) and op.startswith("tf_keras.layers.") else None
    found = table.get(name)
    if found is None or not issubclass(found, tf_keras.layers.Layer):
        raise LookupError(f"{op!r} is not a tf_keras layer ferry allows")
    return found


def ferry_check_config(value, where="the configuration"):
    """Raise ValueError where a configuration holds a class outside the allow-list or code."""
    if isinstance(value, dict):
        if "function" in value or "function_type" in value:
            raise ValueError(f"{where} holds a function ({sorted(value)})")
        if "class_name" in value:
            ferry_resolve("tf_keras.layers.Dense")  # fills the table
            name = value["class_name"]
            if not isinstance(name, str) or name not in ferry_resolve.table:
                raise ValueError(f"{where} names the class {name!r}, which ferry does not allow")
        for k, v in value.items():
            ferry_check_config(v, f"{where}[{k!r}]")
    elif isinstance(value, (list, tuple)):
        for k, v in enumerate(value):
            ferry_check_config(v, f"{where}[{k}]")


def ferry_input(seed, key, dtype, shape, bounds, whole=False):
    """Deterministic data for a tensor whose values the record did not keep: uniform in bounds
    ([lo, hi]) when given, else standard normal floats, small integers, random bools; whole numbers
    in bounds when whole (indices a layer casts, in a float tensor). seed comes from the instance id;
    key tells the tensors apart. Strings are short ones ("s3")."""
    rng = np.random.default_rng([seed, *key])
    if whole and bounds and dtype != "bool" and dtype != "string":
        array = rng.integers(int(bounds[0]), int(bounds[1]), endpoint=True, size=shape, dtype=np.int64)
        return array.astype(dtype if dtype != "bfloat16" else tf.bfloat16.as_numpy_dtype)
    if dtype == "bool":
        return rng.integers(0, 2, size=shape).astype(bool)
    if dtype == "string":
        return np.array([f"s{i}" for i in rng.integers(0, 8, size=shape).reshape(-1)], dtype=object).reshape(shape)
    if dtype.startswith(("int", "uint")):
        lo, hi = bounds if bounds else ((0, 5) if dtype.startswith("uint") else (-5, 5))
        info = np.iinfo(dtype)
        lo, hi = max(int(lo), int(info.min)), min(int(hi), int(info.max))
        return rng.integers(lo, hi, endpoint=True, size=shape, dtype=np.int64).astype(dtype)
    array = rng.uniform(bounds[0], bounds[1], size=shape) if bounds else rng.standard_normal(size=shape)
    return array.astype(dtype if dtype != "bfloat16" else tf.bfloat16.as_numpy_dtype)


class FerrySlot:
    """Where model input k goes in the call's arguments."""

    def __init__(self, k):
        self.k = k

    def __repr__(self):
        return f"FerrySlot({self.k})"


def ferry_fill(v, inputs):
    """v with each FerrySlot k replaced by inputs[k], through lists, tuples and dicts."""
    if isinstance(v, FerrySlot):
        return inputs[v.k]
    if isinstance(v, list):
        return [ferry_fill(x, inputs) for x in v]
    if isinstance(v, tuple):
        return tuple(ferry_fill(x, inputs) for x in v)
    if isinstance(v, dict):
        return {k: ferry_fill(x, inputs) for k, x in v.items()}
    return v


def ferry_model(seed, op, config, args, kwargs, specs):
    """The single-layer functional Keras 2 model ("ferry_model", its layer "ferry_layer"): Keras
    seeded, the layer rebuilt from its checked configuration, one tf_keras.Input per spec ((shape,
    dtype), batch included, named in_K) in the arguments' FerrySlots, the call's tensors as outputs."""
    cls = ferry_resolve(op)
    ferry_check_config(config)
    tf_keras.utils.set_random_seed(seed % 2 ** 32)
    # fixed names: Keras numbers its layers and models per process (dense_7, model_116), and a
    # frontend's message that names them would differ from test to test of the same failure
    layer = cls.from_config(dict(config, name="ferry_layer"))
    inputs = [tf_keras.Input(batch_size=shape[0] if shape else None, shape=tuple(shape[1:]), dtype=dtype,
                             name=f"in_{k}") for k, (shape, dtype) in enumerate(specs)]
    out = layer(*ferry_fill(args, inputs), **ferry_fill(kwargs, inputs))
    outputs = [t for t in tf.nest.flatten(out) if tf_keras.backend.is_keras_tensor(t)]
    if not outputs:
        raise ValueError("the call returns no tensor")
    return tf_keras.Model(inputs=inputs, outputs=outputs, name="ferry_model")


def ferry_call(model, inputs):
    """The model called eagerly by Keras 2 on a list of numpy arrays; its outputs as numpy arrays."""
    out = model([tf.constant(x.astype(bytes) if x.dtype == object else x) for x in inputs], training=False)
    return [np.asarray(t) for t in tf.nest.flatten(out)]


def ferry_compare(outputs, reference, atol, rtol, random=False):
    """Problems found comparing a frontend's outputs with the reference (empty: none)."""
    if len(outputs) != len(reference):
        return [f"{len(outputs)} outputs, the reference has {len(reference)}"]
    problems = [ferry_compare_arrays(f"output {k}", o, r, atol, rtol, random)
                for k, (o, r) in enumerate(zip(outputs, reference))]
    return [p for p in problems if p]
