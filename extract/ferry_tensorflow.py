"""ferry_tensorflow: TensorFlow imported the way it must be inside a ferry process.

Every module of ferry's that needs TensorFlow (the Keras instrumentation, the Keras template, the
TFLite adapter) imports it through here, first, before keras:

    tf = ferry_tensorflow.load()

Two things are done once, before TensorFlow's shared libraries load:
- Its logging is quieted (TF_CPP_MIN_LOG_LEVEL, and oneDNN's notice about its own kernels, which are
  switched off so that the reference outputs do not depend on the machine's vector unit). A worker's
  stderr is kept for crashes; TensorFlow's start-up chatter would fill it.
- Its libraries are loaded with RTLD_DEEPBIND, so that they bind to their own symbols first. The
  ferry executable links libclang, which brings LLVM into the process's global symbol scope;
  libtensorflow_framework carries its own copy of LLVM, and without DEEPBIND its static
  initialisers bind to the other copy's symbols and crash (SIGSEGV in
  _GLOBAL__sub_I_DebugInfoMetadata.cpp) the moment tensorflow is imported. A plain python process
  is not affected, and the flag is harmless there.
"""

import os
import sys

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
os.environ.setdefault("TF_ENABLE_ONEDNN_OPTS", "0")


def load():
    """The tensorflow module, imported as the module's comment says."""
    if "tensorflow" in sys.modules:
        return sys.modules["tensorflow"]
    flags = sys.getdlopenflags()
    deepbind = getattr(os, "RTLD_DEEPBIND", 0)
    sys.setdlopenflags(os.RTLD_NOW | os.RTLD_LOCAL | deepbind)
    try:
        import tensorflow
    finally:
        sys.setdlopenflags(flags)
    tensorflow.get_logger().setLevel("ERROR")  # retracing notices, AutoGraph's complaints
    return tensorflow
