"""tflite-tf-keras: the TFLite converter on a Keras 2 (tf_keras) model object, then the TFLite
interpreter, as a ferry frontend (the interface is in ferry/oracle/driver.py).

"load" rebuilds the test's Keras 2 model (the template's model()), "compile" converts it from memory
(TFLiteConverter.from_keras_model, TFLite's own operators only) and "execute" runs the serving
signature with one thread. A converter that refuses an operator it has no kernel for is
unsupported, not a bug.
"""

from ferry.extract import tfload

tf = tfload.load(keras2=True)  # first: tf.keras is Keras 2 (the frontend module imports it too)

from ferry.oracle.adapters._run_tflite_tf_keras import tflite_convert, tflite_reproduce, tflite_run  # noqa: E402
from ferry.templates import tf_keras as template_tf_keras  # noqa: E402

NAME = "tflite-tf-keras"
LIBRARY = "tf_keras"
FORMAT = "h5"
PACKAGE = "tensorflow"
SUMMARY = "the TFLite converter on the Keras 2 model object, then the TFLite interpreter, one thread"


def version():
    return tf.__version__


def load(testdir):
    return template_tf_keras.model(testdir)


def compile(loaded):
    return tflite_convert(loaded)


def execute(compiled, inputs):
    return tflite_run(compiled, template_tf_keras.ordered_inputs(inputs))


REPRODUCE = tflite_reproduce
