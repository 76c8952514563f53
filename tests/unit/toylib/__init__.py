"""A toy "library" for tests/unit/recorder.py: plain Python, no tensors but its own Box class."""


class Box:
    """The library's tensor."""

    def __init__(self, n):
        self.n = n


def add(a, b):
    return Box(a.n + b.n)


def double(a):
    return add(a, a)  # a nested call: only the outermost one is an instance


def fail(a):
    raise ValueError("refused")


def helper(a):
    """The library's own code calling its operator: not a test's call."""
    return add(a, Box(1))


class Scale:
    """A layer: its constructor's arguments are kept per object."""

    def __init__(self, factor, bias=0):
        self.factor, self.bias = factor, bias

    def __call__(self, a):
        return add(Box(a.n * self.factor), Box(self.bias))


def apply(fn, a):
    """Calls back into the test's code: what the callback calls is inside this call, not outermost."""
    return fn(a)
