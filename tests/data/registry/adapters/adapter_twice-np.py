"""A frontend of "twice" (tests/cli/libraries.sh): numpy doubles the input as the library does."""

NAME = "twice-np"
LIBRARY = "twice"
FORMAT = "npy"
PACKAGE = "numpy"


def version():
    import numpy
    return numpy.__version__


def load(testdir):
    return testdir


def compile(loaded):
    return loaded


def execute(compiled, inputs):
    return [inputs["x"] * 2]
