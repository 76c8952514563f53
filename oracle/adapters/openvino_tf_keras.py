"""openvino-tf-keras: OpenVINO's TensorFlow frontend on a Keras 2 (tf_keras) model object, as a ferry
frontend (the interface is in ferry/oracle/driver.py).

"load" rebuilds the test's Keras 2 model (the template's model(): from record.json, with the weights
wrap saved), "compile" hands the model object to openvino.convert_model, as OpenVINO's own layer tests
and most users do with Keras 2 models, and compiles the result for the CPU in f32, one thread;
"execute" feeds the inputs by name and returns the outputs in the model's order.

ov_compile() and ov_run() live in _run_openvino_tf_keras.py, the frontend module.
"""

from ferry.extract import tfload

tfload.load(keras2=True)  # first: with tf.keras Keras 2, before openvino


from ferry.oracle.adapters import _openvino as ferry_openvino  # noqa: E402
from ferry.oracle.adapters._run_openvino_tf_keras import ov_compile, ov_reproduce, ov_run  # noqa: E402
from ferry.templates import tf_keras as template_tf_keras  # noqa: E402

ferry_openvino.off()  # no telemetry process per conversion

NAME = "openvino-tf-keras"
LIBRARY = "tf_keras"
FORMAT = "h5"
PACKAGE = "openvino"
SUMMARY = "OpenVINO's convert_model on the Keras 2 model object (its TensorFlow frontend), CPU"


def version():
    return ferry_openvino.version()


def load(testdir):
    return template_tf_keras.model(testdir)


def compile(loaded):
    return ov_compile(loaded)


def execute(compiled, inputs):
    return ov_run(compiled, template_tf_keras.ordered_inputs(inputs))


REPRODUCE = ov_reproduce
