"""ferry.oracle.adapters._run_xla_tf_keras: XLA on a Keras 2 model object, as ferry runs it: the
frontend module of the xla-tf-keras adapter, which imports only numpy and tensorflow;
xla_tf_keras_reproduce() is what a reproducer calls.
"""

import numpy as np
import tensorflow as tf


def xla_tf_keras_load(model):
    """The model's inference call under tf.function(jit_compile=True): XLA must compile the whole of
    it (an operation it cannot compile is an error, not a fallback to TensorFlow's kernels). The model
    comes along: the function's variables live in it."""
    @tf.function(jit_compile=True)
    def xla_call(*feeds):
        return tf.nest.flatten(model(list(feeds), training=False))
    return model, xla_call


def xla_tf_keras_run(compiled, inputs):
    """Run on a list of numpy arrays (input K is the model's in_K, its K-th input), on the CPU; the
    outputs as numpy arrays in the model's output order. The first call on a shape is when XLA
    compiles."""
    _, function = compiled
    feeds = [tf.constant(x.astype(bytes) if x.dtype.kind in "OU" else x) for x in inputs]
    with tf.device("/CPU:0"):
        result = function(*feeds)
    return [np.asarray(t) for t in result]


def xla_tf_keras_reproduce(model, inputs):
    """The Keras 2 model's call compiled by XLA and run on inputs."""
    return xla_tf_keras_run(xla_tf_keras_load(model), inputs)
