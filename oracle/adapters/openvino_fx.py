"""openvino-fx: OpenVINO's torch.compile backend, as a ferry frontend (the interface is in
ferry/oracle/driver.py).

Like TorchInductor it starts from the eager module: "load" builds it again from the instance the
template saved (record.json), "compile" wraps it in torch.compile(backend="openvino", fullgraph=True)
for the CPU in f32, one thread, and calls it once on the example inputs, which is when Dynamo captures
the graph and OpenVINO converts and compiles its partitions; "execute" calls the compiled module. A
fallback to PyTorch is OpenVINO's failure, not a pass (_run_openvino_fx.py says how it is seen). A
release without the backend (OpenVINO 2023.0 has no openvino.torch) is unavailable for the format.

ov_fx_compile() and ov_fx_run() live in _run_openvino_fx.py, the frontend module a reproducer inlines whole.
"""

import torch

from ferry.oracle import driver
from ferry.oracle.adapters import _openvino as ferry_openvino
from ferry.templates import torch as template_torch

try:
    from ferry.oracle.adapters import _run_openvino_fx as ferry_fx
    _missing = None
except ImportError as e:  # no openvino.torch: a release before the backend (openvino itself is checked below)
    import openvino  # noqa: F401  a missing OpenVINO is a missing frontend, not a release without the backend
    if not (e.name or "").startswith("openvino."):  # anything else missing (torch's inside, numpy) is a failure
        raise
    ferry_fx, _missing = None, e

ferry_openvino.off()  # no telemetry process per conversion

NAME = "openvino-fx"
LIBRARY = "torch"
FORMAT = "json"
PACKAGE = "openvino"
SUMMARY = 'OpenVINO\'s torch.compile backend: torch.compile(backend="openvino"), CPU'
# Batches give every test its outcome alone (a batch where any operator fell back to PyTorch fails
# and is split: the fallback may be the whole of one test), but do not pay: on 200 tests of a
# PyTorch sample 0.72x the tests per CPU-second, since two in five tests fall back in part and end
# alone after a failed batch (bench/README.md). So no BATCH: every test runs alone.
BATCH = False

torch.set_num_threads(1)


def version():
    return ferry_openvino.version()


def load(testdir):
    if _missing is not None:
        raise driver.FormatUnavailable(f"no torch.compile backend: {type(_missing).__name__}: {_missing}")
    meta = template_torch.testdir_meta(testdir)
    module, _ = template_torch.load_testdir(testdir)
    return module, template_torch.testdir_example(testdir, meta), meta



def batch_load(module, example, meta):
    """What load() gives, for a module of many tests (ferry.oracle.batch)."""
    if _missing is not None:
        raise driver.FormatUnavailable(f"no torch.compile backend: {type(_missing).__name__}: {_missing}")
    return module, example, dict(meta, batch=True)


def compile(loaded):
    module, example, meta = loaded
    return ferry_fx.ov_fx_compile(module, example, batch=meta.get("batch", False)), meta


def execute(compiled, inputs):
    compiled, meta = compiled
    return template_torch.adapter_outputs(ferry_fx.ov_fx_run(compiled, template_torch.driver_inputs(meta, inputs)))


REPRODUCE = ferry_fx.ov_fx_reproduce if ferry_fx is not None else None
