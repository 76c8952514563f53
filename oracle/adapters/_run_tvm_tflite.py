"""ferry.oracle.adapters._run_tvm_tflite: TVM's Relax frontend for TensorFlow Lite as ferry runs it,
the frontend module of the tvm-tflite adapter: a reproducer inlines it whole
(ferry/oracle/reproducer.py), after the Keras runtime and _tvm_tflite.py (Relax's TFLite frontend on
a flatbuffer, which tvm-tflite-tf-keras shares), so it imports their names only in ferry (below);
tvm_reproduce() is what a reproducer calls. In ferry, TensorFlow is imported first (the adapter).
"""

import tempfile

if __name__ != "__main__":  # in ferry; a reproducer has these inlined above this module
    from ferry.oracle.adapters._tvm_tflite import tvm_compile, tvm_run
    from ferry.templates.runtime_keras import ferry_export, ferry_tflite


def tvm_reproduce(model, inputs):
    """The Keras model exported, converted for TFLite, then converted by TVM, built and run on inputs."""
    return tvm_run(tvm_compile(ferry_tflite(ferry_export(model, inputs, tempfile.mkdtemp())), inputs), inputs)
