"""openvino-export: OpenVINO's PyTorch frontend on an ExportedProgram, as a ferry frontend (the
interface is in ferry/oracle/driver.py).

The template exported the module with torch.export (model.pt2); "load" reads it back, "compile"
hands it to openvino.convert_model (OpenVINO's torch.export path) and compiles the result for the
CPU in f32, one thread. A module PyTorch could not export is ferry's error here, never a bug. A
release whose converter has no ExportedProgram path at all (OpenVINO 2023.0: "Unknown model type:
<class 'torch.export.exported_program.ExportedProgram'>") is unavailable for the format, said once.

ov_compile() and ov_run(), shared with the other OpenVINO PyTorch adapter, live in
_run_openvino_torch.py, the frontend module a reproducer inlines whole.
"""

import torch

from ferry.oracle import driver
from ferry.oracle.adapters import _openvino as ferry_openvino
from ferry.oracle.adapters._run_openvino_torch import ov_compile, ov_convert_exported, ov_export_reproduce, ov_run
from ferry.templates import torch as template_torch

ferry_openvino.off()  # no telemetry process per conversion

NAME = "openvino-export"
LIBRARY = "torch"
FORMAT = "pt2"
PACKAGE = "openvino"
SUMMARY = "OpenVINO's PyTorch frontend on an ExportedProgram (torch.export), CPU"

torch.set_num_threads(1)


def version():
    return ferry_openvino.version()


def load(testdir):
    return template_torch.load_exported(testdir), template_torch.testdir_meta(testdir)


def compile(loaded):
    exported, meta = loaded
    try:
        ov_model = ov_convert_exported(exported)
    except Exception as e:
        if _no_exported_path(e):
            raise driver.FormatUnavailable(f"{type(e).__name__}: {e}") from e
        raise
    return ov_compile(ov_model), meta


def _no_exported_path(e):
    """Whether the converter refused the ExportedProgram by its type, before reading it: it knows no
    such model at all (a converter that read it and failed has a bug to report instead)."""
    text = str(e)
    return "Unknown model type" in text and "ExportedProgram" in text


def execute(compiled, inputs):
    compiled, meta = compiled
    return ov_run(compiled, template_torch.driver_inputs(meta, inputs))


REPRODUCE = ov_export_reproduce
