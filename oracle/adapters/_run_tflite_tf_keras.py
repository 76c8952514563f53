"""ferry.oracle.adapters._run_tflite_tf_keras: the TFLite converter on a Keras 2 model object, then
the TFLite interpreter, as ferry runs them: the frontend module of the tflite-tf-keras adapter, which
imports only numpy and tensorflow; tflite_reproduce() is what a reproducer calls.
"""

import warnings

import numpy as np
import tensorflow as tf


def tflite_convert(model):
    """(the flatbuffer, the model's output names): the Keras 2 model converted from memory
    (TFLiteConverter.from_keras_model), TFLite's own operators only."""
    converter = tf.lite.TFLiteConverter.from_keras_model(model)
    converter.target_spec.supported_ops = [tf.lite.OpsSet.TFLITE_BUILTINS]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return converter.convert(), list(model.output_names)


def tflite_run(compiled, inputs):
    """Run the flatbuffer's serving signature on a list of numpy arrays (input K is in_K); the
    outputs in the model's output order."""
    flatbuffer, names = compiled
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # tf.lite.Interpreter's notice that it moves to ai_edge_litert
        interpreter = tf.lite.Interpreter(model_content=flatbuffer, num_threads=1)
    runner = interpreter.get_signature_runner("serving_default")
    result = runner(**{f"in_{k}": (x.astype(bytes) if x.dtype.kind in "OU" else x) for k, x in enumerate(inputs)})
    return [np.asarray(result[n]) for n in names]


def tflite_reproduce(model, inputs):
    """The Keras 2 model converted for TFLite and run by its interpreter."""
    return tflite_run(tflite_convert(model), inputs)
