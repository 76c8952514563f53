"""torch-onnx-ort: PyTorch's ONNX exporter, then ONNX Runtime, as a ferry frontend (the
interface is in ferry/oracle/driver.py).

The exporter starts from the eager module: "load" builds it again from the instance the template
saved (record.json; the same seed gives the same weights), "compile" exports it with
torch.onnx.export (the torch.export-based exporter, dynamo=True) and opens the ONNX model in an
ONNX Runtime session (CPU, all graph optimizations, one thread, as the ort frontend does), and
"execute" runs the session. The exporter names forward's inputs inputs_0, inputs_1, ... (or names
derived from those); an input the exported graph does not use is left out of it, and of the feeds.

onnx_export() and onnx_run() live in _run_torch_onnx_ort.py, the frontend module a reproducer inlines
whole (after ort's, _run_ort.py).
"""

import onnxruntime
import torch

from ferry.oracle.adapters._run_ort import ort_session
from ferry.oracle.adapters._run_torch_onnx_ort import onnx_export, onnx_reproduce, onnx_run
from ferry.templates import torch as template_torch

NAME = "torch-onnx-ort"
LIBRARY = "torch"
FORMAT = "json"
PACKAGE = "torch"
SUMMARY = "PyTorch's ONNX exporter (torch.onnx.export), then ONNX Runtime"
BATCH = True  # measured: bench/batch/run.sh

torch.set_num_threads(1)


def version():
    return f"{torch.__version__} onnxruntime {onnxruntime.__version__}"


def load(testdir):
    meta = template_torch.testdir_meta(testdir)
    module, _ = template_torch.load_testdir(testdir)
    return module, template_torch.testdir_example(testdir, meta), meta



def batch_load(module, example, meta):
    """What load() gives, for a module of many tests (ferry.oracle.batch)."""
    return module, example, meta


def compile(loaded):
    module, example, meta = loaded
    return ort_session(onnx_export(module, example)), meta


def execute(compiled, inputs):
    session, meta = compiled
    return onnx_run(session, template_torch.driver_inputs(meta, inputs))


REPRODUCE = onnx_reproduce
