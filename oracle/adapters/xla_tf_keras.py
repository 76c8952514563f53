"""xla-tf-keras: XLA on a Keras 2 (tf_keras) model object, as a ferry frontend (the interface is in
ferry/oracle/driver.py).

"load" rebuilds the test's Keras 2 model (the template's model()) and wraps its inference call in
tf.function(jit_compile=True): that is how Keras 2 users meet XLA, on the model in memory (TensorFlow's
XLA guide, and Keras 2's own compile(jit_compile=True), which puts the model's step under the same
tf.function), not by exporting a SavedModel first (xla-tf's path, Keras 3 having no jit_compile of its
own on TensorFlow's graphs); "compile" calls it once on the test's inputs, which is when XLA
compiles; "execute" calls it again and returns the outputs in the model's order. TensorFlow runs on
one thread. An operation XLA has no kernel for is unsupported (oracle/unsupported/xla-tf-keras.txt),
not a bug.

xla_tf_keras_load() and xla_tf_keras_run() live in _run_xla_tf_keras.py, the frontend module.
"""

from ferry.extract import tfload

tf = tfload.load(keras2=True)  # first: tf.keras is Keras 2 (the frontend module imports it too)

from ferry.oracle import driver  # noqa: E402
from ferry.oracle.adapters._run_xla_tf_keras import (  # noqa: E402
    xla_tf_keras_load,
    xla_tf_keras_reproduce,
    xla_tf_keras_run,
)
from ferry.templates import tf_keras as template_tf_keras  # noqa: E402

NAME = "xla-tf-keras"
LIBRARY = "tf_keras"
FORMAT = "h5"
PACKAGE = "tensorflow"
SUMMARY = "XLA on the Keras 2 model object: its call under tf.function(jit_compile=True), CPU"


def version():
    return tf.__version__


def load(testdir):
    return xla_tf_keras_load(template_tf_keras.model(testdir)), testdir


def compile(loaded):
    compiled, testdir = loaded
    # the first call on the test's shapes is when XLA compiles
    xla_tf_keras_run(compiled, template_tf_keras.ordered_inputs(driver.test_inputs(testdir)))
    return compiled


def execute(compiled, inputs):
    return xla_tf_keras_run(compiled, template_tf_keras.ordered_inputs(inputs))


REPRODUCE = xla_tf_keras_reproduce
