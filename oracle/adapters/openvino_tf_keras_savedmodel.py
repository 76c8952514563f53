"""openvino-tf-keras-savedmodel: OpenVINO's TensorFlow frontend on a Keras 2 (tf_keras) model saved as
a SavedModel, as a ferry frontend (the interface is in ferry/oracle/driver.py).

"load" rebuilds the test's Keras 2 model (the template's model()) and saves it as Keras 2 users hand a
model to OpenVINO as files: model.save(dir) in TensorFlow's SavedModel format, with a serving
signature taking in_K and giving output_K; "compile" hands the directory to openvino.convert_model and
compiles the result for the CPU in f32, one thread; "execute" feeds the inputs by name and returns the
outputs in output_K order. OpenVINO reads a SavedModel through other code than a model object
(openvino-tf-keras): the graph is the saved one, its variables restored, not a trace of the live model.

The SavedModel is written here, from the rebuilt model, not by wrap into the test directory (as Keras
3's saved_model/ is, templates/keras.py): the template stays one weights file for every Keras 2
frontend, only this frontend pays for saving, and the SavedModel is made from the very model object the
other Keras 2 frontends are given. It lives in a temporary directory removed once OpenVINO has read it.
A model Keras 2 cannot save is ferry's error: OpenVINO was never reached.

ov_savedmodel_save() lives in _run_openvino_tf_keras_savedmodel.py, the frontend module; it compiles
and runs with openvino-tf-keras's ov_compile() and ov_run().
"""

from ferry.extract import tfload

tfload.load(keras2=True)  # first: with tf.keras Keras 2, before openvino

import shutil  # noqa: E402
import tempfile  # noqa: E402

from ferry.oracle.adapters import _openvino as ferry_openvino  # noqa: E402
from ferry.oracle.adapters._run_openvino_tf_keras import ov_compile, ov_run  # noqa: E402
from ferry.oracle.adapters._run_openvino_tf_keras_savedmodel import (  # noqa: E402
    ov_savedmodel_reproduce,
    ov_savedmodel_save,
)
from ferry.templates import tf_keras as template_tf_keras  # noqa: E402

ferry_openvino.off()  # no telemetry process per conversion

NAME = "openvino-tf-keras-savedmodel"
LIBRARY = "tf_keras"
FORMAT = "h5"
PACKAGE = "openvino"
SUMMARY = "OpenVINO's TensorFlow frontend on the Keras 2 model's SavedModel (model.save), CPU"


def version():
    return ferry_openvino.version()


def load(testdir):
    """The SavedModel's directory, a temporary one that compile removes."""
    model = template_tf_keras.model(testdir)
    directory = tempfile.mkdtemp(prefix="ferry-savedmodel-")
    try:
        return template_tf_keras.made_for("Keras 2 could not save the model as a SavedModel",
                                          ov_savedmodel_save, model, directory)
    except BaseException:
        shutil.rmtree(directory, ignore_errors=True)
        raise


def compile(loaded):
    try:
        return ov_compile(loaded)
    finally:
        shutil.rmtree(loaded, ignore_errors=True)


def execute(compiled, inputs):
    return ov_run(compiled, template_tf_keras.ordered_inputs(inputs))


REPRODUCE = ov_savedmodel_reproduce
