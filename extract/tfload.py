"""ferry.extract.tfload: TensorFlow imported the way it must be inside a ferry process.

Every module of ferry's that needs TensorFlow (the Keras instrumentation, the Keras template, the
TFLite adapter) imports it through here, first, before keras:

    tf = tfload.load()

Its logging is quieted (TF_CPP_MIN_LOG_LEVEL, and oneDNN's notice about its own kernels, which are
switched off so that the reference outputs do not depend on the machine's vector unit). A worker's
stderr is kept for crashes; TensorFlow's start-up chatter would fill it.
Its libraries are loaded as any Python extension's are. (They were once loaded with RTLD_DEEPBIND,
because the ferry executable linked libclang and TensorFlow's own LLVM bound to that one's symbols;
libclang is now loaded only by the C++ harvester, with RTLD_LOCAL: lib/clang.h.)
"""

import os
import sys

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
os.environ.setdefault("TF_ENABLE_ONEDNN_OPTS", "0")


def load(keras2=False):
    """The tensorflow module, imported as the module's comment says. keras2: tf.keras is Keras 2
    (tf_keras), as its users make it (TF_USE_LEGACY_KERAS=1, which TensorFlow reads at its import,
    2.15 onward): a frontend's converter that takes a Keras model object tells it by tf.keras.Model
    (OpenVINO's before 2023.1 asks a model of any other class for input shapes), so the frontends
    that take a Keras 2 model object import TensorFlow so, first in their process."""
    if keras2:
        os.environ["TF_USE_LEGACY_KERAS"] = "1"
    if "tensorflow" in sys.modules:
        return sys.modules["tensorflow"]
    import tensorflow
    tensorflow.get_logger().setLevel("ERROR")  # retracing notices, AutoGraph's complaints
    return tensorflow
