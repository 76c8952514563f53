"""openvino-pytorch: OpenVINO's PyTorch frontend on TorchScript, as a ferry frontend (the
interface is in ferry/oracle/driver.py).

The template traced the module to TorchScript (model.ts); "load" reads it back, "compile" hands it
to openvino.convert_model (OpenVINO's TorchScript path) and compiles the result for the CPU in f32
(OpenVINO would otherwise pick bf16 on CPUs that have it, and a lower precision is not a
conversion bug), one thread. A module PyTorch could not trace is unsupported here, not a bug.

ov_convert(), ov_compile() and ov_run() are self-contained (the last two, shared with the other OpenVINO PyTorch
adapter, live in _openvino_torch.py): REPRODUCER carries their source.
"""

import inspect

import openvino
import torch

from ferry.oracle.adapters import _openvino as ferry_openvino
from ferry.oracle.adapters._openvino_torch import ov_compile, ov_run
from ferry.templates import torch as template_torch

ferry_openvino.off()  # no telemetry process per conversion

NAME = "openvino-pytorch"
LIBRARY = "torch"
FORMAT = "ts"
PACKAGE = "openvino"
SUMMARY = "OpenVINO's PyTorch frontend on TorchScript (torch.jit.trace), CPU"

torch.set_num_threads(1)


def ov_convert(model, inputs):
    """OpenVINO's model of a TorchScript module (or of a module, which OpenVINO traces itself)."""
    return openvino.convert_model(model, example_input=tuple(inputs))


def version():
    return openvino.__version__


def load(testdir):
    path = template_torch.serialized(testdir, "torchscript")
    meta = template_torch.testdir_meta(testdir)
    return torch.jit.load(path), template_torch.testdir_example(testdir, meta), meta


def compile(loaded):
    scripted, example, meta = loaded
    return ov_compile(ov_convert(scripted, example)), meta


def execute(compiled, inputs):
    compiled, meta = compiled
    return ov_run(compiled, template_torch.driver_inputs(meta, inputs))


REPRODUCER = "\n".join([
    "import openvino",
    "",
    inspect.getsource(ov_convert),
    inspect.getsource(ov_compile),
    inspect.getsource(ov_run),
    "scripted = torch.jit.trace(module, tuple(inputs), check_trace=False, strict=False)",
    "outputs = ov_run(ov_compile(ov_convert(scripted, inputs)), inputs)",
])
