"""tvm-pytorch: TVM's Relax frontend for PyTorch, as a ferry frontend (the interface is in
ferry/oracle/driver.py).

The template exported the module with torch.export (model.pt2); "load" reads it back, "compile"
converts it with tvm.relax.frontend.torch.from_exported_program, builds it for llvm and loads it on
the Relax VM, "execute" runs the VM's main. A module PyTorch could not export is unsupported here,
not a bug.

tvm_compile() and tvm_run() are self-contained: REPRODUCER carries their source.
"""

import inspect
import os

os.environ.setdefault("TVM_NUM_THREADS", "1")  # before tvm starts its thread pool

import torch  # noqa: E402
import tvm  # noqa: E402
from tvm import relax  # noqa: E402
from tvm.relax.frontend.torch import from_exported_program  # noqa: E402

from ferry.templates import torch as template_torch  # noqa: E402
from ferry.templates.runtime_torch import ferry_feed  # noqa: E402

NAME = "tvm-pytorch"
LIBRARY = "torch"
FORMAT = "pt2"
PACKAGE = "tvm"
SUMMARY = 'TVM Relax from_exported_program, built for llvm, run on the Relax VM'

torch.set_num_threads(1)


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



def version():
    return tvm.__version__


def load(testdir):
    return template_torch.load_exported(testdir), template_torch.testdir_meta(testdir)


def compile(loaded):
    exported, meta = loaded
    return tvm_compile(exported), meta


def execute(compiled, inputs):
    vm, meta = compiled
    return tvm_run(vm, template_torch.driver_inputs(meta, inputs))


REPRODUCER = "\n".join([
    "import tvm",
    "from tvm import relax",
    "from tvm.relax.frontend.torch import from_exported_program",
    "",
    inspect.getsource(tvm_compile),
    inspect.getsource(tvm_run),
    "outputs = tvm_run(tvm_compile(torch.export.export(module, tuple(inputs))), inputs)",
])
