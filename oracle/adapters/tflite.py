"""tflite: TensorFlow Lite as a ferry frontend (the interface is in ferry/oracle/driver.py): the TFLite
converter on a Keras model's SavedModel, then the TFLite interpreter.

The template exported the single-layer Keras model with model.export (saved_model/, a serving
signature taking in_K and giving output_K); "load" finds it, "compile" converts it with TFLite's
converter (TFLite's own operators only, as a model for a device without TensorFlow is made) and
loads the flatbuffer in the interpreter with one thread, "execute" runs the serving signature. A
converter that refuses an operator it has no kernel for is unsupported, not a bug; one that crashes
otherwise is a crash in "compile".

tflite_run() is self-contained and ferry_tflite() comes from the template: REPRODUCER carries both.
"""

import inspect
import warnings

import numpy as np

from ferry.templates import keras as template_keras  # imports tensorflow as ferry must (extract/tfload.py)
from ferry.templates.runtime_keras import ferry_tflite  # noqa: E402

tf = template_keras.tf

NAME = "tflite"
LIBRARY = "keras"
FORMAT = "savedmodel"
PACKAGE = "tensorflow"
SUMMARY = 'the TFLite converter, then the TFLite interpreter, one thread'


def tflite_run(flatbuffer, inputs):
    """Run a flatbuffer's serving signature in the TFLite interpreter on a list of numpy arrays
    (input K is in_K); the outputs in output_K order."""
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # tf.lite.Interpreter's notice that it moves to ai_edge_litert
        interpreter = tf.lite.Interpreter(model_content=flatbuffer, num_threads=1)
    runner = interpreter.get_signature_runner("serving_default")
    feeds = {f"in_{k}": (x.astype(bytes) if x.dtype.kind in "OU" else x) for k, x in enumerate(inputs)}
    result = runner(**feeds)
    return [np.asarray(result[f"output_{k}"]) for k in range(len(result))]


def version():
    return tf.__version__


def load(testdir):
    return template_keras.serialized(testdir, "saved_model")


def compile(loaded):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return ferry_tflite(loaded)


def execute(compiled, inputs):
    return tflite_run(compiled, template_keras.ordered_inputs(inputs))


REPRODUCER = "\n".join([
    inspect.getsource(tflite_run),
    "saved_model = ferry_export(model, inputs, tempfile.mkdtemp())",
    "outputs = tflite_run(ferry_tflite(saved_model), inputs)",
])
