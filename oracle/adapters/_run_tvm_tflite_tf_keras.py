"""ferry.oracle.adapters._run_tvm_tflite_tf_keras: TVM's Relax frontend for TensorFlow Lite on a Keras 2
model object, as ferry runs it: the frontend module of the tvm-tflite-tf-keras adapter. The model goes
through the TFLite converter from memory (_run_tflite_tf_keras.py's tflite_convert, as a Keras 2 user
converts it) and the flatbuffer through Relax's from_tflite (_tvm_tflite.py, which tvm-tflite shares);
a reproducer pastes both above this module, whose names it takes only in ferry (below).
tvm_tf_keras_reproduce() is what a reproducer calls.
"""

if __name__ != "__main__":  # in ferry; a reproducer has these inlined above this module
    from ferry.oracle.adapters._run_tflite_tf_keras import tflite_convert
    from ferry.oracle.adapters._tvm_tflite import tvm_compile, tvm_run


def tvm_tf_keras_compile(model, inputs):
    """The Keras 2 model converted for TFLite from memory, then by Relax's TFLite frontend with the
    shapes and dtypes of inputs (a list, input K is in_K), built for llvm. The converter signs the
    outputs with the model's output names, so they say which output each graph output is."""
    flatbuffer, names = tflite_convert(model)
    return tvm_compile(flatbuffer, inputs, names)


def tvm_tf_keras_reproduce(model, inputs):
    """The Keras 2 model converted for TFLite, then by TVM, built and run on inputs."""
    return tvm_run(tvm_tf_keras_compile(model, inputs), inputs)
