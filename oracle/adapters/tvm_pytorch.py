"""tvm-pytorch: TVM's Relax frontend for PyTorch, as a ferry frontend (the interface is in
ferry/oracle/driver.py).

The template exported the module with torch.export (model.pt2); "load" reads it back, "compile"
converts it with tvm.relax.frontend.torch.from_exported_program, builds it for llvm and loads it on
the Relax VM, "execute" runs the VM's main. A module PyTorch could not export is unsupported here,
not a bug.

tvm_compile() and tvm_run() live in _run_tvm_pytorch.py, the frontend module a reproducer inlines whole.
"""

import os

os.environ.setdefault("TVM_NUM_THREADS", "1")  # before tvm starts its thread pool

import torch  # noqa: E402
import tvm  # noqa: E402

from ferry.oracle.adapters._run_tvm_pytorch import tvm_compile, tvm_reproduce, tvm_run  # noqa: E402
from ferry.templates import torch as template_torch  # noqa: E402

NAME = "tvm-pytorch"
LIBRARY = "torch"
FORMAT = "pt2"
PACKAGE = "tvm"
SUMMARY = 'TVM Relax from_exported_program, built for llvm, run on the Relax VM'
BATCH = True  # measured: bench/batch/run.sh

torch.set_num_threads(1)


def version():
    return tvm.__version__


def load(testdir):
    return template_torch.load_exported(testdir), template_torch.testdir_meta(testdir)



def batch_load(module, example, meta):
    """What load() gives, for a module of many tests (ferry.oracle.batch): its ExportedProgram, made
    as the template makes a test's model.pt2."""
    return torch.export.export(module, tuple(t.clone() for t in example)), meta


def compile(loaded):
    exported, meta = loaded
    return tvm_compile(exported), meta


def execute(compiled, inputs):
    vm, meta = compiled
    return tvm_run(vm, template_torch.driver_inputs(meta, inputs))


REPRODUCE = tvm_reproduce
