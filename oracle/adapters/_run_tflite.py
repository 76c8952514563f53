"""ferry.oracle.adapters._run_tflite: the TFLite converter and interpreter as ferry runs them, the
frontend module of the tflite adapter: a reproducer inlines it whole (ferry/oracle/reproducer.py),
after the Keras runtime, so it imports only numpy, tensorflow and, in ferry (below), the runtime's
names; tflite_reproduce() is what a reproducer calls. In ferry, TensorFlow is imported first (the adapter).
"""

import tempfile

import numpy as np
import tensorflow as tf

if __name__ != "__main__":  # in ferry; a reproducer has the runtime inlined above this module
    from ferry.templates.runtime_keras import ferry_export, ferry_tflite


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


def tflite_reproduce(model, inputs):
    """The Keras model exported as a SavedModel, converted for TFLite and run by its interpreter."""
    return tflite_run(ferry_tflite(ferry_export(model, inputs, tempfile.mkdtemp())), inputs)
