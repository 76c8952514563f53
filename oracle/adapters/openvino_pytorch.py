"""openvino-pytorch: OpenVINO's PyTorch frontend on TorchScript, as a ferry frontend (the
interface is in ferry/oracle/driver.py).

The template traced the module to TorchScript and froze it (model.ts: weights and default arguments
are constants; a call PyTorch cannot trace is scripted, meta.json's "torchscript_by" says which);
"load" reads it back, "compile" hands it
to openvino.convert_model (OpenVINO's TorchScript path) and compiles the result for the CPU in f32
(OpenVINO would otherwise pick bf16 on CPUs that have it, and a lower precision is not a
conversion bug), one thread. A module PyTorch could not trace is unsupported here, not a bug.

ov_convert(), ov_compile() and ov_run(), shared with the other OpenVINO PyTorch adapter, live in
_run_openvino_torch.py, the frontend module a reproducer inlines whole.
"""

import torch

from ferry.oracle.adapters import _openvino as ferry_openvino
from ferry.oracle.adapters._run_openvino_torch import ov_compile, ov_convert, ov_run, ov_trace_reproduce
from ferry.templates import torch as template_torch

ferry_openvino.off()  # no telemetry process per conversion

NAME = "openvino-pytorch"
LIBRARY = "torch"
FORMAT = "ts"
PACKAGE = "openvino"
SUMMARY = "OpenVINO's PyTorch frontend on TorchScript (torch.jit.trace, else script; frozen), CPU"

torch.set_num_threads(1)


def version():
    return ferry_openvino.version()


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


REPRODUCE = ov_trace_reproduce
