"""A frontend for ferry's test of stderr between tests (tests/integration/stderr-split.sh): ONNX
Runtime, except that compiling a test writes 256 KiB of lines to stderr, each naming the test's
directory, so that each result's stderr can be checked to be its own test's. Never a stand-in for a
real frontend's results."""
import os
import sys

from ferry.oracle.adapters import ort

NAME = "stderrtag"
LIBRARY = "onnx"
FORMAT = "onnx"
PACKAGE = "onnxruntime"
REPRODUCE = ort.REPRODUCE


def version():
    return "stderr-tagging " + ort.version()


def load(testdir):
    return os.path.basename(testdir.rstrip("/")), ort.load(testdir)


def compile(loaded):
    tag, model = loaded
    line = f"stderr of test {tag}\n"
    sys.stderr.write(line * (262144 // len(line)))
    return ort.compile(model)


def execute(compiled, inputs):
    return ort.execute(compiled, inputs)
