"""ferry.templates.runtime_keras: what the Keras template and a reproducer of a Keras test both run.

The template (ferry/templates/keras.py) builds its models and inputs with these functions, and a
reproducer script carries this module whole, inlined at its top: Keras's random generator is seeded
from the instance id, then the layer is built (ferry_model), so its weights and the generated inputs
(ferry_input) are the same in the test directory, in every adapter and in a bug report; names
resolve through the same allow-list (ferry_operators), and ferry_compare judges a frontend's outputs
the same way. So this module imports nothing of ferry: only numpy, tensorflow and keras (ferry
imports TensorFlow its own way first; a reproducer sets TensorFlow's environment before this), but
for runtime_compare, which the reproducer pastes above it and whose import it leaves out.
"""

import keras
import numpy as np
import tensorflow as tf

if __name__ != "__main__":  # a reproducer pastes runtime_compare above this module instead
    from ferry.templates.runtime_compare import ferry_compare_arrays, ferry_untie_outputs


def ferry_operators():
    """The allow-list: name -> object, for every Keras layer, op and configured object a record may
    name. It is enumerated once from Keras's export registry (its public API, the names the harvest
    records by); a record's name is then looked up in it, never resolved by walking attributes of
    modules (from a loaded module, a walk reaches os, sys and builtins). What is in it, and why:
    - keras.layers: the layer classes, the operators of kind "layer" and the nested layers of a
      configuration (Bidirectional's, an RNN's cells); not Lambda (it can rebuild a Python function
      from bytecode), TFSMLayer or TorchModuleWrapper (they load a model from a file or a pickle);
    - keras.ops (keras.ops.image, ...): the op functions, the operators of kind "op";
    - keras.activations: functions given as arguments (activation=keras.activations.relu);
    - keras.initializers, keras.regularizers, keras.constraints, keras.dtype_policies,
      keras.quantizers, keras.random, and the base and policy classes keras exports at its top: the
      objects a layer's configuration holds, rebuilt with from_config;
    never the get, serialize and deserialize functions of these modules, which turn names and
    configurations into objects by Keras's own lookup. Each object is also entered under its
    qualified name (module.qualname, "keras.src.ops.numpy.sin"), the name a callable is recorded by
    when the registry does not know it. Only objects of Keras's own modules count."""
    from keras.src import api_export

    prefixes = ("keras.layers.", "keras.ops.", "keras.activations.", "keras.initializers.", "keras.regularizers.",
                "keras.constraints.", "keras.dtype_policies.", "keras.quantizers.", "keras.random.")
    top = {"keras.DTypePolicy", "keras.FloatDTypePolicy", "keras.InputSpec", "keras.Initializer",
           "keras.Regularizer", "keras.Quantizer"}
    loaders = {"keras.layers.Lambda", "keras.layers.TFSMLayer", "keras.layers.TorchModuleWrapper"}
    table = {"builtins.Ellipsis": Ellipsis}
    for name, obj in list(api_export.REGISTERED_NAMES_TO_OBJS.items()):
        if not (name.startswith(prefixes) or name in top) or name in loaders:
            continue
        if name.rsplit(".", 1)[-1] in ("get", "serialize", "deserialize") or not callable(obj):
            continue
        if str(getattr(obj, "__module__", None) or "").split(".")[0] != "keras":
            continue
        table[name] = obj
    for obj in list(table.values()):
        module, qualname = getattr(obj, "__module__", None), getattr(obj, "__qualname__", None)
        if module and qualname:
            table.setdefault(f"{module}.{qualname}", obj)
    return table


def ferry_resolve(name):
    """The object a record's name ("keras.layers.Conv2D") denotes: looked up in the allow-list of
    ferry_operators(), never found by walking attributes of modules."""
    table = getattr(ferry_resolve, "table", None)
    if table is None:
        table = ferry_resolve.table = ferry_operators()
    if not isinstance(name, str) or name not in table:
        raise LookupError(f"{name!r} is not a Keras layer, op or object ferry allows")
    return table[name]


def ferry_object(class_name, config):
    """An object its class rebuilds from a configuration (an initializer, a nested layer): only an
    allowed class that has from_config, and in Keras's safe mode (no Python function is rebuilt
    from bytecode, whatever the process's setting)."""
    from keras.src.saving import serialization_lib

    cls = ferry_resolve(class_name)
    if not (isinstance(cls, type) and callable(getattr(cls, "from_config", None))):
        raise TypeError(f"{class_name!r} is not a class with from_config")
    with serialization_lib.SafeModeScope(True):
        return cls.from_config(config)


def ferry_dtype(name):
    """The numpy dtype of a record's dtype name (bfloat16 and the like from ml_dtypes)."""
    if name == "string":
        return np.dtype(object)
    try:
        return np.dtype(name)
    except TypeError:
        import ml_dtypes
        found = getattr(ml_dtypes, str(name), None)
        if not (isinstance(found, type) and issubclass(found, np.generic)):
            raise TypeError(f"no dtype {name!r}") from None
        return np.dtype(found)


def ferry_input(seed, key, dtype, shape, bounds):
    """Deterministic data for a tensor whose values the record did not keep: uniform in bounds
    ([lo, hi]) when given, else standard normal floats, small integers, random bools, short strings.
    seed comes from the instance id; key (a list of small integers) tells the tensors apart."""
    rng = np.random.default_rng([seed, *key])
    if dtype == "bool":
        return rng.integers(0, 2, size=shape).astype(bool)
    if dtype == "string":
        return np.array([f"s{i}" for i in rng.integers(0, 8, size=shape).reshape(-1)], dtype=object).reshape(shape)
    if dtype.startswith(("int", "uint")):
        unsigned = dtype.startswith("uint")
        lo, hi = bounds if bounds else ((0, 5) if unsigned else (-5, 5))
        info = np.iinfo(dtype)
        lo, hi = max(int(lo), int(info.min)), min(int(hi), int(info.max))
        return rng.integers(lo, hi, endpoint=True, size=shape, dtype=np.int64).astype(dtype)
    array = rng.uniform(bounds[0], bounds[1], size=shape) if bounds else rng.standard_normal(size=shape)
    return array.astype(ferry_dtype(dtype))


def ferry_array(values, dtype, shape):
    """A tensor's kept values: the record's numbers converted once to the dtype."""
    if dtype == "string":
        return np.array(values, dtype=object).reshape(shape)
    if dtype == "bool":
        return np.array(values, dtype=bool).reshape(shape)
    if dtype.startswith(("int", "uint")):
        return np.array([int(v) for v in values], dtype=np.int64).astype(dtype).reshape(shape)
    return np.array([float(v) for v in values], dtype=np.float64).astype(ferry_dtype(dtype)).reshape(shape)


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


def ferry_model(seed, make, args, kwargs, specs):
    """The single-layer functional model: Keras seeded, the layer (or op function) made by make(),
    one keras.Input per spec ((shape, dtype), batch included) in the arguments' FerrySlots, the
    call's tensors as outputs."""
    from keras.src.saving import serialization_lib

    keras.utils.set_random_seed(seed % 2 ** 32)
    with serialization_lib.SafeModeScope(True):  # a configuration never rebuilds a Python function
        op = make()
    inputs = [keras.Input(batch_shape=tuple(shape), dtype=dtype, name=f"in_{k}")
              for k, (shape, dtype) in enumerate(specs)]
    out = op(*ferry_fill(args, inputs), **ferry_fill(kwargs, inputs))
    outputs = [t for t in keras.tree.flatten(out) if isinstance(t, keras.KerasTensor)]
    if not outputs:
        raise ValueError("the call returns no tensor")
    return keras.Model(inputs=inputs, outputs=outputs)


def ferry_call(model, inputs):
    """The model called eagerly by Keras on a list of numpy arrays; its outputs as numpy arrays."""
    out = model([keras.ops.convert_to_tensor(x) if x.dtype != object else tf.constant(x.astype(bytes))
                 for x in inputs], training=False)
    return [np.asarray(keras.ops.convert_to_numpy(t)) for t in keras.tree.flatten(out)]


def ferry_export(model, inputs, path):
    """The model as a SavedModel in path (model.export), its serving signature fixed to the shapes
    and dtypes of inputs: inputs in_K, outputs output_K."""
    specs = [tf.TensorSpec(x.shape, tf.string if x.dtype == object else x.dtype, name=f"in_{k}")
             for k, x in enumerate(inputs)]
    model.export(path, format="tf_saved_model", verbose=False, input_signature=[specs])
    return path


def ferry_tflite(saved_model):
    """The SavedModel converted to a TFLite flatbuffer, TFLite's own operators only."""
    converter = tf.lite.TFLiteConverter.from_saved_model(saved_model)
    converter.target_spec.supported_ops = [tf.lite.OpsSet.TFLITE_BUILTINS]
    return converter.convert()


def ferry_compare(outputs, reference, atol, rtol, random=False, ties=None):
    """Problems found comparing a frontend's outputs with the reference (empty: none): as many
    outputs, then each as ferry_compare_arrays judges it."""
    if len(outputs) != len(reference):
        return [f"{len(outputs)} outputs, the reference has {len(reference)}"]
    outputs = ferry_untie_outputs(ties, outputs, reference)  # ties = (op, data): indices at ties
    problems = [ferry_compare_arrays(f"output {k}", o, r, atol, rtol, random)
                for k, (o, r) in enumerate(zip(outputs, reference))]
    return [p for p in problems if p]
