"""ferry.oracle.adapters._run_torch_onnx_ort: PyTorch's ONNX exporter, then ONNX Runtime, as ferry
runs them, the frontend module of the torch-onnx-ort adapter: a reproducer inlines it whole
(ferry/oracle/reproducer.py), after the PyTorch runtime and ONNX Runtime's own frontend module
(_run_ort.py), so it imports only numpy, torch and, in ferry (below), the names of those two;
onnx_reproduce() is what a reproducer calls.
"""

import numpy as np
import torch

if __name__ != "__main__":  # in ferry; a reproducer has these inlined above this module
    from ferry.oracle.adapters._run_ort import ort_run, ort_session
    from ferry.templates.runtime_torch import ferry_feed


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


def onnx_reproduce(module, inputs):
    """The module exported to ONNX by PyTorch, then run by ONNX Runtime on inputs (a list of tensors)."""
    return onnx_run(ort_session(onnx_export(module, inputs)), inputs)
