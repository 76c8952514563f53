"""ferry.oracle.adapters._run_openvino_torch: what OpenVINO's two PyTorch paths share (openvino_pytorch on
TorchScript, openvino_export on an ExportedProgram): compiling an OpenVINO model for the CPU
and running it on torch tensors. It is the frontend module of both: a reproducer inlines it whole
(ferry/oracle/reproducer.py), after the PyTorch runtime, so it imports only numpy, openvino, torch and,
in ferry (below), the runtime's names; ov_trace_reproduce() and ov_export_reproduce() are what a
reproducer calls."""

import numpy as np
import torch

# OpenVINO 2023.1 put the converter and the runtime's classes at the package's top level. Before it
# (2023.0, the oldest release with a wheel for Python 3.11) the classes live in openvino.runtime and
# the PyTorch converter is the Model Optimizer's convert_model, in the openvino-dev package; it takes
# the same model and example_input. Nothing else differs for ferry's two PyTorch paths.
try:
    from openvino import Core, Tensor, Type, convert_model
except ImportError:
    from openvino.runtime import Core, Tensor, Type
    try:
        from openvino.tools.mo import convert_model
    except ImportError as e:  # the openvino wheel alone: the converter is another package
        raise ImportError(f"this OpenVINO converts models with the Model Optimizer of openvino-dev: install "
                          f"openvino-dev of the same release beside it ({e})") from e

if __name__ != "__main__":  # in ferry; a reproducer has the runtime inlined above this module
    from ferry.templates.runtime_torch import ferry_feed, ferry_script


def ov_convert(model, inputs):
    """OpenVINO's model of a TorchScript module (or of a module, which OpenVINO traces itself)."""
    return convert_model(model, example_input=tuple(inputs))


def ov_convert_exported(exported):
    """OpenVINO's model of an ExportedProgram (a release without that path says so as it refuses it)."""
    return convert_model(exported)


def ov_compile(ov_model):
    core = Core()
    return core.compile_model(ov_model, "CPU", {"INFERENCE_PRECISION_HINT": "f32", "INFERENCE_NUM_THREADS": "1"})


def ov_run(compiled, inputs):
    """Run on a list of torch tensors; the outputs as numpy arrays, in order. bfloat16 goes in and
    comes out as its bits (OpenVINO's Python API labels them float16)."""
    feeds = []
    for t in inputs:
        array = ferry_feed(t)
        if array.dtype.name == "bfloat16":
            tensor = Tensor(Type.bf16, list(array.shape))
            np.copyto(tensor.data, array.view(np.uint16).view(np.float16))
            array = tensor
        feeds.append(array)
    result = compiled(feeds)
    outputs = []
    for k, port in enumerate(compiled.outputs):
        array = np.asarray(result[k])
        if port.get_element_type() == Type.bf16:
            import ml_dtypes
            array = array.view(np.uint16).view(ml_dtypes.bfloat16)
        outputs.append(array)
    return outputs


def ov_trace_reproduce(module, inputs):
    """openvino-pytorch: the module traced (or, where tracing fails, scripted) to TorchScript and
    frozen, as the template saved it, converted, compiled and run on inputs."""
    scripted, _, _ = ferry_script(module, inputs)
    return ov_run(ov_compile(ov_convert(scripted, inputs)), inputs)


def ov_export_reproduce(module, inputs):
    """openvino-export: the module exported (torch.export), converted, compiled and run on inputs."""
    exported = torch.export.export(module, tuple(inputs))
    return ov_run(ov_compile(ov_convert_exported(exported)), inputs)
