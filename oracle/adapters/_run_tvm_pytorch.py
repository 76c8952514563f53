"""ferry.oracle.adapters._run_tvm_pytorch: TVM's Relax frontend for PyTorch as ferry runs it, the
frontend module of the tvm-pytorch adapter: a reproducer inlines it whole (ferry/oracle/reproducer.py),
after the PyTorch runtime, so it imports only torch, tvm and, in ferry (below), the runtime's names;
tvm_reproduce() is what a reproducer calls.
"""

import os

os.environ.setdefault("TVM_NUM_THREADS", "1")  # before tvm starts its thread pool

import torch  # noqa: E402
import tvm  # noqa: E402
from tvm import relax  # noqa: E402
from tvm.relax.frontend.torch import from_exported_program  # noqa: E402

if __name__ != "__main__":  # in ferry; a reproducer has the runtime inlined above this module
    from ferry.templates.runtime_torch import ferry_feed


def tvm_compile(exported):
    """The Relax VM running the ExportedProgram's module, built for llvm on the CPU."""
    mod = from_exported_program(exported)
    executable = tvm.compile(mod, target="llvm")
    return relax.VirtualMachine(executable, tvm.cpu())


def tvm_run(vm, inputs):
    """Run on a list of torch tensors; the outputs as numpy arrays, in order (tuples opened)."""
    result = vm["main"](*[tvm.runtime.tensor(ferry_feed(t)) for t in inputs])

    def flat(v):
        if isinstance(v, (list, tuple)) or type(v).__name__ in ("Array", "ADT", "Tuple"):
            return [x for item in v for x in flat(item)]
        return [v.numpy()]
    return flat(result)


def tvm_reproduce(module, inputs):
    """The module exported (torch.export), built by TVM and run on inputs (a list of tensors)."""
    return tvm_run(tvm_compile(torch.export.export(module, tuple(inputs))), inputs)
