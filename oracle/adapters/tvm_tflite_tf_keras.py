"""tvm-tflite-tf-keras: TVM's Relax frontend for TensorFlow Lite on a Keras 2 (tf_keras) model, as a
ferry frontend (the interface is in ferry/oracle/driver.py).

"load" rebuilds the test's Keras 2 model (the template's model()) and converts it from memory with
TFLiteConverter.from_keras_model (TFLite's own operators only, as tflite-tf-keras does: the way a Keras
2 user makes the flatbuffer TVM is handed); "compile" converts the flatbuffer with
tvm.relax.frontend.tflite.from_tflite, given the test's input shapes and dtypes, builds it for llvm and
loads it on the Relax VM; "execute" runs the VM's main. A model the TFLite converter cannot convert is
ferry's error here, TVM never reached (tflite-tf-keras judges the converter); an operator Relax's
frontend has none for is unsupported.

tflite_convert() and tvm_compile() live in the frontend modules _run_tflite_tf_keras.py and
_tvm_tflite.py; _run_tvm_tflite_tf_keras.py joins them for a reproducer.
"""

import os

os.environ.setdefault("TVM_NUM_THREADS", "1")  # before tvm starts its thread pool

from ferry.extract import tfload  # noqa: E402

tfload.load(keras2=True)  # first: with tf.keras Keras 2, before tflite and tvm

import tvm  # noqa: E402

from ferry.oracle import driver  # noqa: E402
from ferry.oracle.adapters._run_tflite_tf_keras import tflite_convert  # noqa: E402
from ferry.oracle.adapters._run_tvm_tflite_tf_keras import tvm_tf_keras_reproduce  # noqa: E402
from ferry.oracle.adapters._tvm_tflite import tvm_compile, tvm_run  # noqa: E402
from ferry.templates import tf_keras as template_tf_keras  # noqa: E402

NAME = "tvm-tflite-tf-keras"
LIBRARY = "tf_keras"
FORMAT = "h5"
PACKAGE = "tvm"
SUMMARY = "TVM Relax from_tflite on the TFLite converter's flatbuffer of the Keras 2 model object, llvm"


def version():
    return tvm.__version__


def load(testdir):
    """The TFLite converter's flatbuffer of the model and its output names, and the test's inputs,
    whose shapes and dtypes from_tflite is given. A model the converter cannot convert is ferry's
    error, not TVM's crash: TVM was never reached (tflite-tf-keras judges the converter)."""
    flatbuffer, names = template_tf_keras.made_for("the TFLite converter could not make the flatbuffer TVM is "
                                                   "handed", tflite_convert, template_tf_keras.model(testdir))
    return flatbuffer, names, template_tf_keras.ordered_inputs(driver.test_inputs(testdir))


def compile(loaded):
    flatbuffer, names, example = loaded
    return tvm_compile(flatbuffer, example, names)


def execute(compiled, inputs):
    return tvm_run(compiled, template_tf_keras.ordered_inputs(inputs))


REPRODUCE = tvm_tf_keras_reproduce
