"""tvm-tflite: TVM's Relax frontend for TensorFlow Lite on a Keras model, as a ferry frontend
(the interface is in ferry/oracle/driver.py).

The template exported the single-layer Keras model (model.export) and converted it with the TFLite
converter (model.tflite); "load" reads and parses the flatbuffer (the tflite package), "compile"
converts it with tvm.relax.frontend.tflite.from_tflite, given the inputs' shapes and dtypes, builds
it for llvm and loads it on the Relax VM, "execute" runs the VM's main. The flatbuffer's serving
signature names the inputs in_K and the outputs output_K; the graph's own order may differ, so
inputs and outputs are matched through it. A model the converter refused is unsupported here.

tvm_compile() and tvm_run() live in _run_tvm_tflite.py, the frontend module a reproducer inlines whole.
"""

import os

os.environ.setdefault("TVM_NUM_THREADS", "1")  # before tvm starts its thread pool

from ferry.extract import tfload  # noqa: E402

tfload.load()  # first: TensorFlow as ferry imports it, before tflite and tvm

import tvm  # noqa: E402

from ferry.oracle.adapters._run_tvm_tflite import tvm_compile, tvm_reproduce, tvm_run  # noqa: E402
from ferry.templates import keras as template_keras  # noqa: E402

NAME = "tvm-tflite"
LIBRARY = "keras"
FORMAT = "tflite"
PACKAGE = "tvm"
SUMMARY = "TVM Relax from_tflite on the TFLite converter's flatbuffer, built for llvm"


def version():
    return tvm.__version__


def load(testdir):
    """The flatbuffer, and the test's inputs, whose shapes and dtypes from_tflite is given."""
    with open(template_keras.serialized(testdir, "tflite"), "rb") as f:
        return f.read(), template_keras.testdir_inputs(testdir)


def compile(loaded):
    flatbuffer, example = loaded
    return tvm_compile(flatbuffer, example)


def execute(compiled, inputs):
    return tvm_run(compiled, template_keras.ordered_inputs(inputs))


REPRODUCE = tvm_reproduce
