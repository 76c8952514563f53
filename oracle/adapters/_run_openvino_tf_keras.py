"""ferry.oracle.adapters._run_openvino_tf_keras: OpenVINO's TensorFlow frontend on a Keras 2 model
object, as ferry runs it: the frontend module of the openvino-tf-keras adapter, which imports only
numpy and openvino; ov_reproduce() is what a reproducer calls. In ferry, TensorFlow is imported first
(the adapter).
"""

import numpy as np

# OpenVINO 2023.1 put the converter and the runtime's classes at the package's top level; before it
# they are openvino.runtime's Core and the Model Optimizer's convert_model (openvino-dev).
try:
    from openvino import Core, convert_model
except ImportError:
    from openvino.runtime import Core
    try:
        from openvino.tools.mo import convert_model
    except ImportError as e:  # the openvino wheel alone: the converter is another package
        raise ImportError(f"this OpenVINO converts models with the Model Optimizer of openvino-dev: install "
                          f"openvino-dev of the same release beside it ({e})") from e


def ov_compile(model):
    """The Keras 2 model object converted by openvino.convert_model (in memory, as a user hands it
    over; or a SavedModel directory), compiled for the CPU in f32, one thread."""
    return Core().compile_model(convert_model(model), "CPU",
                                {"INFERENCE_PRECISION_HINT": "f32", "INFERENCE_NUM_THREADS": "1"})


def ov_index(port, prefix, k):
    """K of a port named PREFIX K (in_K, output_K), else its position k."""
    for name in port.get_names():
        name = name.split(":")[0]
        if name.startswith(prefix) and name[len(prefix):].isdigit():
            return int(name[len(prefix):])
    return k


def ov_run(compiled, inputs):
    """Run on a list of numpy arrays (input K is the model's in_K: by name, else by position); the
    outputs as numpy arrays in the model's output order (output_K where a SavedModel's signature
    named them so, openvino-tf-keras-savedmodel's, else the converted model's order)."""
    feeds = {}
    for k, port in enumerate(compiled.inputs):
        x = inputs[ov_index(port, "in_", k)]
        feeds[port] = x.astype(bytes) if x.dtype.kind in "OU" else x
    result = compiled(feeds)
    order = sorted(range(len(compiled.outputs)), key=lambda k: ov_index(compiled.outputs[k], "output_", k))
    return [np.asarray(result[compiled.outputs[k]]) for k in order]


def ov_reproduce(model, inputs):
    """The Keras 2 model converted by OpenVINO, compiled and run on inputs."""
    return ov_run(ov_compile(model), inputs)
