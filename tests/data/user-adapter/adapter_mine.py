"""A user's adapter in one file, for tests/cli/user-adapter.sh: ONNX Runtime answering one too much, so
that every test fails and has a reproducer, which pastes this file whole after the frontend module it
takes names from. Never a stand-in for a real frontend's results."""
import os

import onnxruntime

if os.environ.get("MINE_LOADS"):  # the test counts how often a process loads this file
    with open(os.environ["MINE_LOADS"], "a") as f:
        f.write("loaded\n")

if __name__ != "__main__":
    from ferry.oracle.adapters._run_ort import ort_run, ort_session

NAME = "mine"
LIBRARY = "onnx"
FORMAT = "onnx"
PACKAGE = "onnxruntime"
SUMMARY = "ONNX Runtime, off by one"


def version():
    return onnxruntime.__version__


def load(testdir):
    with open(os.path.join(testdir, "model.onnx"), "rb") as f:
        return f.read()


def compile(loaded):
    return ort_session(loaded)


def execute(compiled, inputs):
    return [o + 1 for o in ort_run(compiled, inputs)]


def reproduce(model_bytes, inputs):
    return execute(compile(model_bytes), inputs)


REPRODUCE = reproduce
