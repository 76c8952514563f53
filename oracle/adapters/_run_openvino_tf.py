"""ferry.oracle.adapters._run_openvino_tf: OpenVINO's TensorFlow frontend as ferry runs it, the
frontend module of the openvino-tf adapter: a reproducer inlines it whole (ferry/oracle/reproducer.py),
after the Keras runtime, so it imports only numpy, openvino and, in ferry (below), the runtime's
names; ov_reproduce() is what a reproducer calls. In ferry, TensorFlow is imported first (the adapter).
"""

import tempfile

import numpy as np

# OpenVINO 2023.1 put the converter and the runtime's classes at the package's top level. Before it
# (2023.0, the oldest release with a wheel for Python 3.11) Core lives in openvino.runtime and the
# converter is the Model Optimizer's convert_model, in the openvino-dev package; it takes the same
# SavedModel directory.
try:
    from openvino import Core, convert_model
except ImportError:
    from openvino.runtime import Core
    try:
        from openvino.tools.mo import convert_model
    except ImportError as e:  # the openvino wheel alone: the converter is another package
        raise ImportError(f"this OpenVINO converts models with the Model Optimizer of openvino-dev: install "
                          f"openvino-dev of the same release beside it ({e})") from e

if __name__ != "__main__":  # in ferry; a reproducer has the runtime inlined above this module
    from ferry.templates.runtime_keras import ferry_export


def ov_compile(saved_model):
    """The SavedModel directory converted by OpenVINO's TensorFlow frontend, compiled for the CPU."""
    core = Core()
    return core.compile_model(convert_model(saved_model), "CPU",
                              {"INFERENCE_PRECISION_HINT": "f32", "INFERENCE_NUM_THREADS": "1"})


def ov_run(compiled, inputs):
    """Run on a list of numpy arrays (input K is in_K); the outputs as numpy arrays in output_K
    order (by position where the converted model lost the names)."""
    def index(port, prefix, k):
        for name in port.get_names():
            tail = name.split(":")[0].rsplit("/", 1)[-1]
            if tail.startswith(prefix) and tail[len(prefix):].isdigit():
                return int(tail[len(prefix):])
        return k
    feeds = {}
    for k, port in enumerate(compiled.inputs):
        x = inputs[index(port, "in_", k)]
        feeds[port] = x.astype(bytes) if x.dtype.kind in "OU" else x
    result = compiled(feeds)
    order = sorted(range(len(compiled.outputs)), key=lambda k: index(compiled.outputs[k], "output_", k))
    return [np.asarray(result[compiled.outputs[k]]) for k in order]


def ov_reproduce(model, inputs):
    """The Keras model exported as a SavedModel, converted by OpenVINO, compiled and run on inputs."""
    return ov_run(ov_compile(ferry_export(model, inputs, tempfile.mkdtemp())), inputs)
