"""A fault-injecting frontend for ferry's injection test (tests/integration/injection.sh): the real
frontend named by FERRY_WRONG_OF (ort, inductor, tflite, ...), whose outputs get one extra output, so
that every test it runs is a mismatch. Every valid instance of the hostile corpus then becomes a
failure, and ferry report and ferry show write its reproducer, which the test runs. It is never a
stand-in for a real frontend's results; reproducers run the real frontend's REPRODUCE."""
import importlib
import os

import numpy as np

_real = importlib.import_module("ferry.oracle.adapters." + os.environ["FERRY_WRONG_OF"].replace("-", "_"))

NAME = "wrong"
LIBRARY = _real.LIBRARY
FORMAT = _real.FORMAT
PACKAGE = _real.PACKAGE
REPRODUCE = _real.REPRODUCE


def version():
    return "always wrong " + _real.version()


def load(testdir):
    return _real.load(testdir)


def compile(loaded):
    return _real.compile(loaded)


def execute(compiled, inputs):
    return list(_real.execute(compiled, inputs)) + [np.zeros(1, dtype=np.float32)]
