"""ferry.oracle.adapters._openvino: what an adapter of an OpenVINO frontend does before it converts anything,
and the release's version.

openvino.convert_model sends usage telemetry: each call starts a process (a fork of the worker, which
holds the frontend and the whole interpreter) that tries to reach the network. In a worker that
converts a model per test that is a fork per test, and a worker must not talk to the network at
all. off() points the converter's telemetry at OpenVINO's own stub (the class it falls back to when
the openvino_telemetry package is missing); nothing else about the conversion changes. OpenVINO
2023.0 converts through the Model Optimizer of openvino-dev (openvino.tools.mo), which holds the same
two references under its own names.
"""


def off():
    """Switch OpenVINO's conversion telemetry off in this process (idempotent)."""
    try:
        from openvino.tools.ovc import convert_impl, telemetry_stub, telemetry_utils
    except ImportError:
        try:  # before 2023.1: the Model Optimizer's converter
            from openvino.tools.mo import convert_impl
            from openvino.tools.mo.utils import telemetry_stub, telemetry_utils
        except ImportError:  # an OpenVINO without the converter's Python part: nothing to switch off
            return
    convert_impl.tm = telemetry_stub
    telemetry_utils.tm = telemetry_stub


def version():
    """The release's version string: openvino.__version__ came with 2023.1; get_version() is in every
    release (under openvino.runtime, where 2023.0 has it)."""
    import openvino
    if hasattr(openvino, "__version__"):
        return openvino.__version__
    from openvino.runtime import get_version
    return get_version()
