"""adapter_openvino-export: OpenVINO's PyTorch frontend on an ExportedProgram, as a ferry frontend (the
interface is in ferry_driver.py).

The template exported the module with torch.export (model.pt2); "load" reads it back, "compile"
hands it to openvino.convert_model (OpenVINO's torch.export path) and compiles the result for the
CPU in f32, one thread. A module PyTorch could not export is unsupported here, not a bug.

ov_compile() and ov_run() are self-contained: REPRODUCER carries their source.
"""

import inspect

import numpy as np
import openvino
import torch

import ferry_openvino
import template_torch

ferry_openvino.off()  # no telemetry process per conversion

NAME = "openvino-export"
FORMAT = "pt2"
PACKAGE = "openvino"

torch.set_num_threads(1)


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


ferry_feed = template_torch.ferry_feed


def version():
    return openvino.__version__


def load(testdir):
    return template_torch.load_exported(testdir), template_torch.testdir_meta(testdir)


def compile(loaded):
    exported, meta = loaded
    return ov_compile(openvino.convert_model(exported)), meta


def execute(compiled, inputs):
    compiled, meta = compiled
    return ov_run(compiled, template_torch.driver_inputs(meta, inputs))


REPRODUCER = "\n".join([
    "import openvino",
    "",
    inspect.getsource(ov_compile),
    inspect.getsource(ov_run),
    "exported = torch.export.export(module, tuple(inputs))",
    "outputs = ov_run(ov_compile(openvino.convert_model(exported)), inputs)",
])
