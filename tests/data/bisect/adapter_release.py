"""A frontend whose bug comes and goes with its release, for ferry bisect's tests (doc/bisect.md):
ONNX Runtime, except that its release is the __version__ of a module ferry_fake_release that each
test's virtualenv holds, and Relu's output is one too large in releases 1.2 and 1.3 (first bad 1.2,
fixed in 1.4). A virtualenv without the module cannot load it: that release is unavailable."""
import ferry_fake_release

from ferry.oracle.adapters import ort

NAME = "release"
LIBRARY = "onnx"
FORMAT = "onnx"
PACKAGE = "ferry_fake_release"
REPRODUCE = ort.REPRODUCE


def version():
    return ferry_fake_release.__version__


def _bad():
    return ferry_fake_release.__version__ in ("1.2", "1.3")


def load(testdir):
    import os

    import onnx
    model = onnx.load(os.path.join(testdir, "model.onnx"))
    return model.graph.node[0].op_type, ort.load(testdir)


def compile(loaded):
    op, model = loaded
    return op, ort.compile(model)


def execute(compiled, inputs):
    op, session = compiled
    outputs = ort.execute(session, inputs)
    if op == "Relu" and _bad():
        return [o + 1 for o in outputs]
    return outputs
