"""ferry.oracle.adapters._run_xla_tf: XLA on a Keras model's SavedModel as ferry runs it, the frontend
module of the xla-tf adapter: a reproducer inlines it whole (ferry/oracle/reproducer.py), after the
Keras runtime, so it imports only numpy, tensorflow and, in ferry (below), the runtime's names;
xla_reproduce() is what a reproducer calls. In ferry, TensorFlow is imported first (the adapter).
"""

import tempfile

import numpy as np
import tensorflow as tf

if __name__ != "__main__":  # in ferry; a reproducer has the runtime inlined above this module
    from ferry.templates.runtime_keras import ferry_export


def xla_load(saved_model):
    """The SavedModel's serving function (taking in_K, giving output_K) under
    tf.function(jit_compile=True): XLA must compile the whole of it (an operation it cannot compile
    is an error, not a fallback to TensorFlow's kernels), on the CPU. The loaded object comes along:
    the function's variables live in it."""
    loaded = tf.saved_model.load(saved_model)
    serving = loaded.signatures["serving_default"]

    @tf.function(jit_compile=True)
    def xla_serving(**feeds):
        return serving(**feeds)
    return loaded, xla_serving


def xla_run(compiled, inputs):
    """Run on a list of numpy arrays (input K is in_K), on the CPU; the outputs as numpy arrays in
    output_K order. The first call on a shape is when XLA compiles."""
    _, function = compiled
    feeds = {f"in_{k}": tf.constant(x.astype(bytes) if x.dtype.kind in "OU" else x) for k, x in enumerate(inputs)}
    with tf.device("/CPU:0"):
        result = function(**feeds)
    return [np.asarray(result[f"output_{k}"]) for k in range(len(result))]


def xla_reproduce(model, inputs):
    """The Keras model exported as a SavedModel, its serving function compiled by XLA and run on inputs."""
    return xla_run(xla_load(ferry_export(model, inputs, tempfile.mkdtemp())), inputs)
