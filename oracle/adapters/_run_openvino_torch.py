"""ferry.oracle.adapters._run_openvino_torch: what OpenVINO's two PyTorch paths share (openvino_pytorch on
TorchScript, openvino_export on an ExportedProgram): compiling an OpenVINO model for the CPU
and running it on torch tensors. It is the frontend module of both: a reproducer inlines it whole
(ferry/oracle/reproducer.py), after the PyTorch runtime, so it imports only numpy, openvino, torch and,
in ferry (below), the runtime's names; ov_trace_reproduce() and ov_export_reproduce() are what a
reproducer calls."""

import numpy as np
import openvino
import torch

if __name__ != "__main__":  # in ferry; a reproducer has the runtime inlined above this module
    from ferry.templates.runtime_torch import ferry_feed, ferry_script


def ov_convert(model, inputs):
    """OpenVINO's model of a TorchScript module (or of a module, which OpenVINO traces itself)."""
    return openvino.convert_model(model, example_input=tuple(inputs))


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


def ov_trace_reproduce(module, inputs):
    """openvino-pytorch: the module traced to TorchScript and frozen (as the template saved it),
    converted, compiled and run on inputs."""
    scripted, _ = ferry_script(module, inputs)
    return ov_run(ov_compile(ov_convert(scripted, inputs)), inputs)


def ov_export_reproduce(module, inputs):
    """openvino-export: the module exported (torch.export), converted, compiled and run on inputs."""
    exported = torch.export.export(module, tuple(inputs))
    return ov_run(ov_compile(openvino.convert_model(exported)), inputs)
