"""openvino-tf: OpenVINO's TensorFlow frontend on a Keras model's SavedModel, as a ferry frontend
(the interface is in ferry/oracle/driver.py).

The template exported the single-layer Keras model with model.export (saved_model/, a serving
signature taking in_K and giving output_K); "load" finds it, "compile" hands the directory to
openvino.convert_model (OpenVINO's TensorFlow frontend) and compiles the result for the CPU in f32,
one thread; "execute" feeds the inputs by name and returns the outputs in output_K order. A model
Keras could not export is unsupported here, not a bug.

ov_compile() and ov_run() live in _run_openvino_tf.py, the frontend module a reproducer inlines whole.
"""

from ferry.extract import tfload

tfload.load()  # first: TensorFlow as ferry imports it, before openvino


from ferry.oracle.adapters import _openvino as ferry_openvino  # noqa: E402
from ferry.oracle.adapters._run_openvino_tf import ov_compile, ov_reproduce, ov_run  # noqa: E402
from ferry.templates import keras as template_keras  # noqa: E402

ferry_openvino.off()  # no telemetry process per conversion

NAME = "openvino-tf"
LIBRARY = "keras"
FORMAT = "savedmodel"
PACKAGE = "openvino"
SUMMARY = "OpenVINO's TensorFlow frontend on the Keras model's SavedModel, CPU"


def version():
    return ferry_openvino.version()


def load(testdir):
    return template_keras.serialized(testdir, "saved_model")


def compile(loaded):
    return ov_compile(loaded)


def execute(compiled, inputs):
    return ov_run(compiled, template_keras.ordered_inputs(inputs))


REPRODUCE = ov_reproduce
