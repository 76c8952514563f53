"""ferry.oracle.adapters._run_openvino_fx: OpenVINO's torch.compile backend as ferry runs it, the frontend
module of the openvino-fx adapter: a reproducer inlines it whole (ferry/oracle/reproducer.py), after the
PyTorch runtime, so it imports only torch, openvino and, in ferry (below), the runtime's names;
ov_fx_reproduce() is what a reproducer calls.

The backend falls back to PyTorch without a word where OpenVINO fails: a graph it cannot convert goes
to TorchInductor (backend.fx_openvino's except clause calls compile_fx), a partition whose conversion,
compilation or inference raises runs eagerly from then on (execute.OpenVINOGraphModule), and operators
outside its support table are left out of the partitions, to run eagerly. A test whose outputs came
from PyTorch tested nothing of OpenVINO, so ov_fx_compile() watches each fallback and raises what
OpenVINO raised (the exception itself, its traceback inside openvino, which names the bug), or
OpenVINOFellBack where no operator of the graph reached OpenVINO. The watching wraps two of the
backend's module-level functions (execute.openvino_execute: its exception is noted, then passed on as
before; backend.compile_fx: the exception being handled is raised instead of compiling with Inductor);
nothing else about the compilation changes.
"""

import sys

import openvino.torch  # noqa: F401  registers the "openvino" backend (2023.1 on)
import torch
import torch._dynamo
from openvino.frontend.pytorch.torchdynamo import backend as ov_fx_backend
from openvino.frontend.pytorch.torchdynamo import execute as ov_fx_execute

if __name__ != "__main__":  # in ferry; a reproducer has the runtime inlined above this module
    from ferry.templates.runtime_torch import ferry_flatten, ferry_numpy

# CPU, f32 (OpenVINO would otherwise pick bf16 on CPUs that have it), one thread. "testing" lets a
# partition of a single operator go to OpenVINO (else the backend leaves it to PyTorch, and a model of
# one operator never reaches OpenVINO); OpenVINO's own tests of the backend set it for that reason.
OV_FX_OPTIONS = {"device": "CPU", "config": {"INFERENCE_PRECISION_HINT": "f32", "INFERENCE_NUM_THREADS": "1"},
                 "testing": 1}


class OpenVINOFellBack(Exception):
    """No operator of the graph ran in OpenVINO: the backend left them all to PyTorch."""


_fx_failures = []  # what OpenVINO raised where the backend fell back, since the last ov_fx_compile()


def _ov_fx_watch():
    """Wrap the backend's two fallbacks once per process (see the module's doc)."""
    if getattr(ov_fx_execute.openvino_execute, "_ferry_watched", False):
        return
    run_partition = ov_fx_execute.openvino_execute

    def openvino_execute(*args, **kwargs):
        try:
            return run_partition(*args, **kwargs)
        except Exception as e:
            _fx_failures.append(e)
            raise

    def compile_fx(*args, **kwargs):
        # called in the backend's except clause: raise what OpenVINO raised, not compile with Inductor
        e = sys.exc_info()[1]
        if e is None:
            raise OpenVINOFellBack("OpenVINO's torch.compile backend handed the graph to TorchInductor")
        raise e

    openvino_execute._ferry_watched = True
    ov_fx_execute.openvino_execute = openvino_execute
    ov_fx_backend.compile_fx = compile_fx


def _ov_fx_partitions():
    """(OpenVINO partitions, operators left to PyTorch) of the graphs the backend has run."""
    parts, eager = 0, []
    for gm in ov_fx_execute.partitioned_modules.values():
        parts += sum(1 for _, m in gm.named_children() if isinstance(m, ov_fx_execute.OpenVINOGraphModule))
        eager += [str(n.target) for n in gm.graph.nodes if n.op == "call_function"]
    return parts, eager


def ov_fx_compile(module, inputs, batch=False):
    """The module compiled by torch.compile(backend="openvino"), compiled now (by a first call on
    inputs); raises what OpenVINO raised where the backend fell back to PyTorch (see the module's doc).
    A batch of tests (batch=True) raises as well where any operator was left to PyTorch: it may be
    the whole of one test, which alone would have run in PyTorch only."""
    _ov_fx_watch()
    torch._dynamo.reset()
    ov_fx_execute.clear_caches()
    del _fx_failures[:]
    compiled = torch.compile(module, backend="openvino", fullgraph=True, options=OV_FX_OPTIONS)
    try:
        with torch.no_grad():
            compiled(*[t.clone() for t in inputs])
    except torch._dynamo.exc.BackendCompilerFailed as e:
        raise e.inner_exception from None  # OpenVINO's own exception, with its traceback
    except torch._dynamo.exc.Unsupported as e:
        # Dynamo turns an exception of the backend into a graph break ("Backend compiler exception"),
        # an error under fullgraph=True: the backend's own exception is its cause
        if e.__cause__ is not None and str(e).startswith("Backend compiler exception"):
            raise e.__cause__ from None
        raise
    if _fx_failures:
        raise _fx_failures[0]
    parts, eager = _ov_fx_partitions()
    if (parts == 0 and eager) or (batch and set(eager) - {"<built-in function getitem>"}):
        # the operators, not the tuple indexing that comes with them (operator.getitem)
        ops = sorted(set(eager) - {"<built-in function getitem>"}) or sorted(set(eager))
        raise OpenVINOFellBack("OpenVINO's torch.compile backend does not support " + ", ".join(ops)
                               + ": the graph ran in PyTorch")
    return compiled


def ov_fx_run(compiled, inputs):
    """Run on a list of torch tensors; the output tensors, in order. A partition whose inference fails
    now falls back as at compile time: raised the same way."""
    del _fx_failures[:]
    with torch.no_grad():
        outputs = ferry_flatten(compiled(*inputs))
    if _fx_failures:
        raise _fx_failures[0]
    return outputs


def ov_fx_reproduce(module, inputs):
    """The outputs of the module compiled by OpenVINO's torch.compile backend on inputs (a list of
    tensors), as numpy arrays."""
    return [ferry_numpy(t) for t in ov_fx_run(ov_fx_compile(module, inputs), inputs)]
