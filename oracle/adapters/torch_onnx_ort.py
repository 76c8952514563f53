"""torch-onnx-ort: PyTorch's ONNX exporter, then ONNX Runtime, as a ferry frontend (the
interface is in ferry/oracle/driver.py).

The exporter starts from the eager module: "load" builds it again from the instance the template
saved (record.json; the same seed gives the same weights), "compile" exports it with
torch.onnx.export (the torch.export-based exporter, dynamo=True) and opens the ONNX model in an
ONNX Runtime session (CPU, all graph optimizations, one thread, as the ort frontend does), and
"execute" runs the session. The exporter names forward's inputs inputs_0, inputs_1, ... (or names
derived from those); an input the exported graph does not use is left out of it, and of the feeds.

onnx_export() and onnx_run(), with ort_session() and ort_run() of the ort adapter, are self-contained:
REPRODUCER carries their source.
"""

import inspect

import numpy as np
import onnxruntime
import torch

from ferry.oracle.adapters.ort import ort_run, ort_session
from ferry.templates import torch as template_torch
from ferry.templates.runtime_torch import ferry_feed

NAME = "torch-onnx-ort"
LIBRARY = "torch"
FORMAT = "json"
PACKAGE = "torch"
SUMMARY = "PyTorch's ONNX exporter (torch.onnx.export), then ONNX Runtime"

torch.set_num_threads(1)


def onnx_export(module, inputs):
    """The module's ONNX model (bytes), by PyTorch's exporter."""
    program = torch.onnx.export(module, tuple(inputs), dynamo=True, verbose=False)
    return program.model_proto.SerializeToString()


def onnx_run(session, inputs):
    """Run on a list of torch tensors: the model's input inputs_K (or a name the exporter derived
    from it, inputs_K_orig) is fed tensor K."""
    import re
    feeds = {}
    for i in session.get_inputs():
        k = re.match(r"inputs_([0-9]+)", i.name)
        if k is None or int(k.group(1)) >= len(inputs):
            raise ValueError(f"the exported model has an input {i.name!r} that is none of forward's")
        feeds[i.name] = ferry_feed(inputs[int(k.group(1))])
    return [np.asarray(v) for v in ort_run(session, feeds)]



def version():
    return f"{torch.__version__} onnxruntime {onnxruntime.__version__}"


def load(testdir):
    meta = template_torch.testdir_meta(testdir)
    module, _ = template_torch.load_testdir(testdir)
    return module, template_torch.testdir_example(testdir, meta), meta


def compile(loaded):
    module, example, meta = loaded
    return ort_session(onnx_export(module, example)), meta


def execute(compiled, inputs):
    session, meta = compiled
    return onnx_run(session, template_torch.driver_inputs(meta, inputs))


REPRODUCER = "\n".join([
    "import onnxruntime",
    "",
    inspect.getsource(ort_session),
    inspect.getsource(ort_run),
    inspect.getsource(onnx_export),
    inspect.getsource(onnx_run),
    "outputs = onnx_run(ort_session(onnx_export(module, inputs)), inputs)",
])
