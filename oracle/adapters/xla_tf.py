"""xla-tf: XLA on a Keras model's SavedModel, as a ferry frontend (the interface is in
ferry/oracle/driver.py).

The template exported the single-layer Keras model with model.export (saved_model/, a serving
signature taking in_K and giving output_K). "load" reads it with tf.saved_model.load and wraps its
serving function in tf.function(jit_compile=True), so that XLA compiles the whole serving graph for the
CPU; "compile" calls it once on the test's inputs, which is when XLA compiles; "execute" calls it
again and returns the outputs in output_K order. TensorFlow runs on one thread. An operation XLA has
no kernel for is unsupported (oracle/unsupported/xla-tf.txt), not a bug; a model Keras could not export
is ferry's error.

xla_load() and xla_run() live in _run_xla_tf.py, the frontend module a reproducer inlines whole.
"""

from ferry.extract import tfload

tfload.load()  # first: TensorFlow as ferry imports it

from ferry.oracle import driver  # noqa: E402
from ferry.oracle.adapters._run_xla_tf import xla_load, xla_reproduce, xla_run  # noqa: E402
from ferry.templates import keras as template_keras  # noqa: E402

tf = template_keras.tf

NAME = "xla-tf"
LIBRARY = "keras"
FORMAT = "savedmodel"
PACKAGE = "tensorflow"
SUMMARY = "XLA on the Keras model's SavedModel: its serving function under tf.function(jit_compile=True), CPU"


def version():
    return tf.__version__


def load(testdir):
    return xla_load(template_keras.serialized(testdir, "saved_model")), testdir


def compile(loaded):
    compiled, testdir = loaded
    xla_run(compiled, _example(testdir))  # the first call on the test's shapes is when XLA compiles
    return compiled


def _example(testdir):
    """The test's inputs as the driver will feed them, in in_K order."""
    return template_keras.ordered_inputs(driver.test_inputs(testdir))


def execute(compiled, inputs):
    return xla_run(compiled, template_keras.ordered_inputs(inputs))


REPRODUCE = xla_reproduce
