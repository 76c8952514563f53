"""inductor: TorchInductor, PyTorch's own compiler, as a ferry frontend (the interface is in
ferry/oracle/driver.py).

TorchInductor starts from the eager module: "load" builds it again from the instance the template
saved (record.json; the same seed gives the same weights), "compile" wraps it in
torch.compile(backend="inductor", fullgraph=True) and calls it once on the example inputs, which is
when Dynamo captures the graph and Inductor generates and compiles the kernels, and "execute" calls
the compiled module. Dynamo's caches are reset for each test: every test's module has the same
forward code, and Dynamo keeps only a few graphs per code object.

inductor_compile() lives in _run_inductor.py, the frontend module a reproducer inlines whole.
"""

import torch
import torch._inductor.config

from ferry.oracle.adapters._run_inductor import inductor_compile, inductor_reproduce
from ferry.templates import torch as template_torch
from ferry.templates.runtime_torch import ferry_flatten

NAME = "inductor"
LIBRARY = "torch"
FORMAT = "json"
PACKAGE = "torch"
SUMMARY = 'TorchInductor: torch.compile(backend="inductor", fullgraph=True)'
BATCH = True  # measured: bench/batch/run.sh

torch.set_num_threads(1)
torch._inductor.config.compile_threads = 1  # no pool of compiler processes inside a worker


def version():
    return torch.__version__


def load(testdir):
    meta = template_torch.testdir_meta(testdir)
    module, _ = template_torch.load_testdir(testdir)
    return module, template_torch.testdir_example(testdir, meta), meta



def batch_load(module, example, meta):
    """What load() gives, for a module of many tests (ferry.oracle.batch)."""
    return module, example, meta


def compile(loaded):
    module, example, meta = loaded
    return inductor_compile(module, example), meta


def execute(compiled, inputs):
    compiled, meta = compiled
    return template_torch.adapter_outputs(
        ferry_flatten(_run(compiled, template_torch.driver_inputs(meta, inputs))))


def _run(compiled, inputs):
    with torch.no_grad():
        return compiled(*inputs)


REPRODUCE = inductor_reproduce
