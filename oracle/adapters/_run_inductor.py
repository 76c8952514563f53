"""ferry.oracle.adapters._run_inductor: TorchInductor as ferry runs it, the frontend module of the
inductor adapter: a reproducer inlines it whole (ferry/oracle/reproducer.py), after the PyTorch
runtime, so it imports only torch, and the runtime's names in ferry (below); inductor_reproduce() is
what a reproducer calls.
"""

import torch
import torch._dynamo

if __name__ != "__main__":  # in ferry; a reproducer has the runtime inlined above this module
    from ferry.templates.runtime_torch import ferry_flatten, ferry_numpy


def inductor_compile(module, inputs):
    """The module compiled by TorchInductor, compiled now (by a first call on inputs)."""
    torch._dynamo.reset()
    compiled = torch.compile(module, backend="inductor", fullgraph=True)
    with torch.no_grad():
        compiled(*[t.clone() for t in inputs])
    return compiled


def inductor_run(compiled, inputs):
    with torch.no_grad():
        return [ferry_numpy(t) for t in ferry_flatten(compiled(*inputs))]


def inductor_reproduce(module, inputs):
    """The outputs of the module compiled by TorchInductor on inputs (a list of tensors), as numpy arrays."""
    return inductor_run(inductor_compile(module, inputs), inputs)
