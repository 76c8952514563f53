"""Unit tests of the shared Recorder (extract/recorder.py) on a toy library of plain Python
(tests/unit/toylib): patching undone, outermost calls only, per-object constructor arguments, test
code only."""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))  # toylib

import toylib  # noqa: E402
from tap import done, is_, ok  # noqa: E402

from ferry.extract import recorder  # noqa: E402

TOYLIB = os.path.dirname(os.path.abspath(toylib.__file__)) + os.sep


def judge(path):
    if path == recorder.FILE:
        return recorder.PASS
    return None if path.startswith(TOYLIB) else path


class ToyRecorder(recorder.Recorder):
    LIBRARY = "toylib"
    fail_install = False

    def __init__(self, sink):
        super().__init__(sink, "1.0")

    def install(self):
        for name in ("add", "double", "fail", "apply"):
            original = vars(toylib)[name]
            self.patch(toylib, name, self.wrap(original, self._intercept(f"toylib.{name}")))
        self.patch(toylib.Scale, "__init__", self._wrap_init(vars(toylib.Scale)["__init__"]))
        self.patch(toylib.Scale, "__call__", self.wrap(vars(toylib.Scale)["__call__"], self._layer))
        if self.fail_install:
            raise RuntimeError("install failed half-way")

    def is_tensor(self, value):
        return isinstance(value, toylib.Box)

    def output(self, value):
        return {"box": value.n}

    def _intercept(self, op):
        def intercept(frame, args, kwargs):
            site = recorder.call_site(frame, judge)
            if site is None:
                return None
            return self.guard(lambda: ({"op": op, "inputs": [getattr(a, "n", None) for a in args]}, site))
        return intercept

    def _wrap_init(self, original):
        def __init__(obj, *args, **kwargs):
            self.keep_constructor(obj, lambda: self.arguments(original, obj, args, kwargs))
            original(obj, *args, **kwargs)
        return __init__

    def _layer(self, frame, args, kwargs):
        site = recorder.call_site(frame, judge)
        layer = args[0]
        return self.guard(lambda: ({"op": "toylib.Scale", "params": self.constructor_of(layer)}, site))


originals = {name: vars(toylib)[name] for name in ("add", "double", "fail", "apply")}
init, call = vars(toylib.Scale)["__init__"], vars(toylib.Scale)["__call__"]


def restored():
    return all(vars(toylib)[n] is f for n, f in originals.items()) and vars(toylib.Scale)["__init__"] is init \
        and vars(toylib.Scale)["__call__"] is call


# --- patching is undone on leaving, even after an exception
records = []
try:
    with ToyRecorder(records.append) as rec:
        ok(toylib.add is not originals["add"], "entering patches the library")
        raise KeyError("a test's exception")
except KeyError:
    pass
ok(restored(), "leaving after an exception restores every patched attribute")
bad = ToyRecorder(records.append)
bad.fail_install = True
try:
    with bad:
        pass
    ok(False, "an install that fails raises")
except RuntimeError:
    ok(restored(), "an install that fails half-way is undone")
with ToyRecorder(records.append):
    try:
        with ToyRecorder(records.append):
            pass
        ok(False, "a second recorder of one library is refused")
    except RuntimeError as e:
        ok("already installed" in str(e), "a second recorder of one library is refused")
ok(restored(), "... and the first one still restores everything")

# --- outermost calls, test code only, per-object constructor arguments
records = []
with ToyRecorder(records.append) as rec:
    small, big = toylib.Scale(2), toylib.Scale(factor=10, bias=1)
    toylib.add(toylib.Box(1), toylib.Box(2))  # not recording
    with rec.recording():
        toylib.double(toylib.Box(3))
        toylib.apply(lambda b: toylib.add(b, b), toylib.Box(2))  # the add is the test's code, nested
        toylib.helper(toylib.Box(4))
        big(toylib.Box(1))
        small(toylib.Box(1))
        try:
            toylib.fail(toylib.Box(5))
        except ValueError:
            ok(True, "a call that raises still raises")
ops = [r["op"] for r in records]
is_(ops, ["toylib.double", "toylib.apply", "toylib.Scale", "toylib.Scale"],
    "only outermost calls of test code, inside recording(): no add inside double or apply, nothing "
    "from the library's own helper, no add inside a layer")
is_(records[0]["outputs"], [{"box": 6}], "the output is encoded by the library's recorder")
# realpath on both sides: in a build outside the source tree the test runs as BUILD/../tests/unit/...
is_(os.path.realpath(records[0]["source"]["file"]), os.path.realpath(__file__), "the call site is the test's file")
is_(records[2].get("params"), {"factor": 10, "bias": 1}, "two live objects: the first call has its own object's arguments")
is_(records[3].get("params"), {"factor": 2}, "... and the second the other's")
is_(rec.dropped, {"the call raised": 1}, "a call that raises is counted as not recorded")
ok(restored(), "leaving restores the library")

done()
