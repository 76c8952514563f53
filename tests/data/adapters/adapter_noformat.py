"""A fault-injecting frontend for ferry's own tests: ONNX Runtime, except that with
FERRY_TEST_OLD_RELEASE set it stands in for a release that cannot take the format at all (as
OpenVINO 2023.1 has no ExportedProgram path): every load fails the same way, and the adapter says so
with FormatUnavailable. Never a stand-in for a real frontend's results."""
import os

from ferry.oracle import driver
from ferry.oracle.adapters import ort

NAME = "noformat"
LIBRARY = "onnx"
FORMAT = "onnx"
PACKAGE = "onnxruntime"
REPRODUCE = ort.REPRODUCE


def version():
    return ("old " if os.environ.get("FERRY_TEST_OLD_RELEASE") else "") + ort.version()


def load(testdir):
    try:
        if os.environ.get("FERRY_TEST_OLD_RELEASE"):
            raise AttributeError("module 'onnxruntime' has no attribute 'InferenceSession'")
    except AttributeError as e:
        raise driver.FormatUnavailable(f"AttributeError: {e}") from e
    return ort.load(testdir)


def compile(loaded):
    return ort.compile(loaded)


def execute(compiled, inputs):
    return ort.execute(compiled, inputs)
