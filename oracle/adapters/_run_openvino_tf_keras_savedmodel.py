"""ferry.oracle.adapters._run_openvino_tf_keras_savedmodel: OpenVINO's TensorFlow frontend on a Keras 2
model saved as a SavedModel, as ferry runs it: the frontend module of the openvino-tf-keras-savedmodel
adapter, which imports only the standard library, numpy, tensorflow and openvino, and in ferry (below)
the compile and run of _run_openvino_tf_keras.py, which a reproducer pastes above it;
ov_savedmodel_reproduce() is what a reproducer calls.
"""

import tempfile
import warnings

import tensorflow as tf

if __name__ != "__main__":  # in ferry; a reproducer has these inlined above this module
    from ferry.oracle.adapters._run_openvino_tf_keras import ov_compile, ov_run


def ov_savedmodel_save(model, directory):
    """Save the Keras 2 model as a SavedModel into directory (Keras 2's model.save, TensorFlow's
    format) with a serving signature that takes in_K and gives output_K, the model's outputs in
    order; returns directory. The signature is the model's call in inference mode over its own input
    specs (the batch dimension left unknown), as model.save writes it by default, but with outputs
    named by position rather than by the layer's name."""
    specs = [tf.TensorSpec(t.shape, t.dtype, name=f"in_{k}") for k, t in enumerate(model.inputs)]

    @tf.function(input_signature=specs)
    def serving(*feeds):
        outputs = tf.nest.flatten(model(list(feeds), training=False))
        return {f"output_{k}": t for k, t in enumerate(outputs)}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model.save(directory, save_format="tf", signatures={"serving_default": serving})
    return directory


def ov_savedmodel_reproduce(model, inputs):
    """The Keras 2 model saved as a SavedModel, converted by OpenVINO from its directory, compiled and
    run on inputs."""
    return ov_run(ov_compile(ov_savedmodel_save(model, tempfile.mkdtemp())), inputs)
