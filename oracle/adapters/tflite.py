"""tflite: TensorFlow Lite as a ferry frontend (the interface is in ferry/oracle/driver.py): the TFLite
converter on a Keras model's SavedModel, then the TFLite interpreter.

The template exported the single-layer Keras model with model.export (saved_model/, a serving
signature taking in_K and giving output_K); "load" finds it, "compile" converts it with TFLite's
converter (TFLite's own operators only, as a model for a device without TensorFlow is made) and
loads the flatbuffer in the interpreter with one thread, "execute" runs the serving signature. A
converter that refuses an operator it has no kernel for is unsupported, not a bug; one that crashes
otherwise is a crash in "compile".

tflite_run() lives in _run_tflite.py, the frontend module a reproducer inlines whole; ferry_tflite() is
the Keras runtime's.
"""

import warnings

from ferry.oracle.adapters._run_tflite import tflite_reproduce, tflite_run  # noqa: E402
from ferry.templates import keras as template_keras  # imports tensorflow as ferry must (extract/tfload.py)
from ferry.templates.runtime_keras import ferry_tflite  # noqa: E402

tf = template_keras.tf

NAME = "tflite"
LIBRARY = "keras"
FORMAT = "savedmodel"
PACKAGE = "tensorflow"
SUMMARY = 'the TFLite converter, then the TFLite interpreter, one thread'


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


REPRODUCE = tflite_reproduce
