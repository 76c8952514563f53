"""ferry.oracle.adapters._openvino_torch: what OpenVINO's two PyTorch paths share (openvino_pytorch on
TorchScript, openvino_export on an ExportedProgram): compiling an OpenVINO model for the CPU
and running it on torch tensors. Both functions need only numpy, openvino and ferry_feed, which the
PyTorch runtime declares and a reproducer inlines, so the adapters' REPRODUCER carries their source as it is."""

import numpy as np
import openvino

from ferry.templates.runtime_torch import ferry_feed


def ov_compile(ov_model):
    core = openvino.Core()
    return core.compile_model(ov_model, "CPU", {"INFERENCE_PRECISION_HINT": "f32", "INFERENCE_NUM_THREADS": "1"})


def ov_run(compiled, inputs):
    """Run on a list of torch tensors; the outputs as numpy arrays, in order. bfloat16 goes in and
    comes out as its bits (OpenVINO's Python API labels them float16)."""
    feeds = []
    for t in inputs:
        array = ferry_feed(t)
        if array.dtype.name == "bfloat16":
            tensor = openvino.Tensor(openvino.Type.bf16, list(array.shape))
            np.copyto(tensor.data, array.view(np.uint16).view(np.float16))
            array = tensor
        feeds.append(array)
    result = compiled(feeds)
    outputs = []
    for k, port in enumerate(compiled.outputs):
        array = np.asarray(result[k])
        if port.get_element_type() == openvino.Type.bf16:
            import ml_dtypes
            array = array.view(np.uint16).view(ml_dtypes.bfloat16)
        outputs.append(array)
    return outputs
