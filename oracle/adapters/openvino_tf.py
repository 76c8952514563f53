"""openvino-tf: OpenVINO's TensorFlow frontend on a Keras model's SavedModel, as a ferry frontend
(the interface is in ferry/oracle/driver.py).

The template exported the single-layer Keras model with model.export (saved_model/, a serving
signature taking in_K and giving output_K); "load" finds it, "compile" hands the directory to
openvino.convert_model (OpenVINO's TensorFlow frontend) and compiles the result for the CPU in f32,
one thread; "execute" feeds the inputs by name and returns the outputs in output_K order. A model
Keras could not export is unsupported here, not a bug.

ov_compile() and ov_run() are self-contained: REPRODUCER carries their source.
"""

import inspect

import numpy as np

from ferry.extract import tfload

tfload.load()  # first: TensorFlow as ferry imports it, before openvino

import openvino  # noqa: E402

from ferry.oracle.adapters import _openvino as ferry_openvino  # noqa: E402
from ferry.templates import keras as template_keras  # noqa: E402

ferry_openvino.off()  # no telemetry process per conversion

NAME = "openvino-tf"
LIBRARY = "keras"
FORMAT = "savedmodel"
PACKAGE = "openvino"
SUMMARY = "OpenVINO's TensorFlow frontend on the Keras model's SavedModel, CPU"


def ov_compile(saved_model):
    """The SavedModel directory converted by OpenVINO's TensorFlow frontend, compiled for the CPU."""
    core = openvino.Core()
    return core.compile_model(openvino.convert_model(saved_model), "CPU",
                              {"INFERENCE_PRECISION_HINT": "f32", "INFERENCE_NUM_THREADS": "1"})


def ov_run(compiled, inputs):
    """Run on a list of numpy arrays (input K is in_K); the outputs as numpy arrays in output_K
    order (by position where the converted model lost the names)."""
    def index(port, prefix, k):
        for name in port.get_names():
            tail = name.split(":")[0].rsplit("/", 1)[-1]
            if tail.startswith(prefix) and tail[len(prefix):].isdigit():
                return int(tail[len(prefix):])
        return k
    feeds = {}
    for k, port in enumerate(compiled.inputs):
        x = inputs[index(port, "in_", k)]
        feeds[port] = x.astype(bytes) if x.dtype.kind in "OU" else x
    result = compiled(feeds)
    order = sorted(range(len(compiled.outputs)), key=lambda k: index(compiled.outputs[k], "output_", k))
    return [np.asarray(result[compiled.outputs[k]]) for k in order]


def version():
    return openvino.__version__


def load(testdir):
    return template_keras.serialized(testdir, "saved_model")


def compile(loaded):
    return ov_compile(loaded)


def execute(compiled, inputs):
    return ov_run(compiled, template_keras.ordered_inputs(inputs))


REPRODUCER = "\n".join([
    "import openvino",
    "",
    inspect.getsource(ov_compile),
    inspect.getsource(ov_run),
    "saved_model = ferry_export(model, inputs, tempfile.mkdtemp())",
    "outputs = ov_run(ov_compile(saved_model), inputs)",
])
