"""ferry.extract.recorder: what every library's instrumentation shares (instrument_torch, instrument_keras).

    with SomeRecorder(sink) as recorder:       # install: patch the library's attributes
        recorder.source = {"suite": "pytest", "test": "test_x.py::test_y"}
        with recorder.recording():             # record the operator calls made inside, in this thread
            ...
                                               # leave: every patched attribute is restored

A library's Recorder subclass says only what differs: which attributes to patch (install(), with
patch() and wrap()), how a call becomes a pending record (the intercept functions it hands to wrap()),
what is a tensor (is_tensor) and how an output is encoded (output). This class does the rest, the
same for every library:

- patching: patch() replaces an attribute of a class or module and remembers the original; leaving,
  or an install that fails half-way, puts every original back, last patched first.
- one at a time: a library's instrumentation is installed by one recorder at a time.
- only the outermost call: a call made inside a recorded call (the convolution inside a Conv2d
  layer), inside a constructor, or by the instrumentation's own code (busy: encoding a value may
  call the library) passes through unrecorded, as does every call in another thread or outside
  recording().
- only test code: the intercept finds the call site with call_site(), whose judge says, frame by
  frame, whether a file is passed over (the library's dispatch plumbing), is the library's own
  (the call is not recorded) or is the caller to name.
- per-object constructor arguments: keep_constructor() stores what an object's outermost constructor
  was given, keyed by the object (weakly where it can), so that two live objects of one class never
  swap arguments; constructor_of() finds them again at call time.
- never a broken test: an encoding that fails is a call not recorded (guard), counted in
  recorder.dropped by reason, like every call not recorded; a call that raises is not recorded.
- emitting: the finished record (outputs, source with the call site's file and line unless the
  source names them, "unmigratable" with the kind of its first opaque value) goes to sink(record).
"""

import functools
import inspect
import os
import re
import sys
import threading
import weakref

from ferry.extract import values

FILE = os.path.abspath(__file__)

# What a call_site judge returns for a file to pass over.
PASS = object()


class Recorder:
    """The shared instrumentation: install by entering, record inside recording(), remove by leaving."""

    LIBRARY = "the"    # the library's name, for messages
    _installed = {}    # LIBRARY -> the recorder whose instrumentation is in place

    def __init__(self, sink, version):
        self.sink = sink
        self.source = {}
        self.recorded = 0
        self.dropped = {}           # reason -> calls not recorded
        self._on = False
        self._depth = 0             # > 0 inside a recorded call or a constructor
        self._busy = False          # inside the instrumentation's own code
        self._thread = None
        self._ctor = weakref.WeakKeyDictionary()  # object -> what its constructor was given
        self._ctor_by_id = {}       # the same for the rare object that takes no weak reference
        self._patched = []          # (owner, attribute name, original)
        self._signatures = {}       # constructor -> its signature
        self._version = version

    # --- what a library's recorder says --------------------------------------------------------------

    def install(self):
        """Patch the library (patch(), wrap())."""
        raise NotImplementedError

    def remove(self):
        """Undo what install() did besides patching (called before the patches are undone)."""

    def is_tensor(self, value):
        raise NotImplementedError

    def output(self, value):
        """One output of a call as a tagged value."""
        raise NotImplementedError

    # --- switching on and off ------------------------------------------------------------------------

    def __enter__(self):
        if Recorder._installed.get(self.LIBRARY) is not None:
            raise RuntimeError(f"the {self.LIBRARY} instrumentation is already installed")
        Recorder._installed[self.LIBRARY] = self
        self._thread = threading.get_ident()
        try:
            self.install()
        except BaseException:
            self._uninstall()
            raise
        return self

    def __exit__(self, *exc):
        self._uninstall()
        return False

    def _uninstall(self):
        self._on = False
        try:
            self.remove()
        finally:
            for owner, name, original in reversed(self._patched):
                setattr(owner, name, original)
            self._patched = []
            self._ctor = weakref.WeakKeyDictionary()
            self._ctor_by_id = {}
            Recorder._installed[self.LIBRARY] = None

    def recording(self):
        """A context in which the calls made in this thread are recorded."""
        return _Switch(self)

    def patch(self, owner, name, replacement):
        """Set owner.name (a class's or a module's own attribute) to replacement until leaving."""
        self._patched.append((owner, name, vars(owner)[name]))
        setattr(owner, name, replacement)

    def idle(self):
        """Whether a call now passes through unrecorded (see the module's comment)."""
        return not self._on or self._depth or self._busy or threading.get_ident() != self._thread

    def wrap(self, original, intercept):
        """A replacement for the function original: when the recorder is not idle, it asks
        intercept(frame of the caller, args, kwargs) for the call's pending record (see guard; None:
        not to be recorded) and calls original under it."""
        recorder = self

        @functools.wraps(original)
        def wrapper(*args, **kwargs):
            __tracebackhide__ = True  # noqa: F841 (pytest leaves this frame out of a test's traceback)
            if recorder.idle():
                return original(*args, **kwargs)
            return recorder.run(intercept(sys._getframe(1), args, kwargs), original, args, kwargs)
        return wrapper

    # --- constructors ----------------------------------------------------------------------------------

    def keep_constructor(self, obj, capture):
        """Keep capture() as obj's constructor arguments, unless obj has some already (its outermost
        constructor runs first: a subclass's, before the bases' it calls) or the instrumentation is
        busy. A capture that fails keeps nothing: the object is then one made without them."""
        if self._busy or self.constructor_of(obj) is not None:
            return
        self._busy = True
        try:
            kept = capture()
            try:
                self._ctor[obj] = kept
            except TypeError:  # no weak reference to it: kept (and the object with it) until the end
                self._ctor_by_id[id(obj)] = (obj, kept)
        except Exception:  # whatever went wrong, the constructor itself must go on
            pass
        finally:
            self._busy = False

    def constructor_of(self, obj):
        """What keep_constructor kept for obj, or None."""
        try:
            found = self._ctor.get(obj)
        except TypeError:  # unhashable, or no weak reference to it
            found = None
        if found is None and id(obj) in self._ctor_by_id:
            kept_obj, kept = self._ctor_by_id[id(obj)]
            found = kept if kept_obj is obj else None
        return found

    def arguments(self, init, obj, args, kwargs):
        """{name: value} of what a constructor call init(obj, *args, **kwargs) was given, bound to
        its parameters' names (**kwargs spread out, *args as a list). Raises TypeError or ValueError
        when they do not bind."""
        signature = self._signatures.get(init)
        if signature is None:
            signature = self._signatures[init] = inspect.signature(init)
        bound = signature.bind(obj, *args, **kwargs)
        given = {}
        for i, (name, value) in enumerate(bound.arguments.items()):
            if i == 0:
                continue  # self
            kind = signature.parameters[name].kind
            if kind is inspect.Parameter.VAR_KEYWORD:
                given.update(value)
            elif kind is inspect.Parameter.VAR_POSITIONAL:
                if value:
                    given[name] = list(value)
            else:
                given[name] = value
        return given

    # --- recording a call ------------------------------------------------------------------------------

    def guard(self, fn, *args):
        """fn(*args) with the instrumentation busy (its own calls unrecorded); None if it fails (an
        encoding that cannot be done is a call not recorded, never a test broken). The intercepts
        make a call's pending record so: (record, (file, line)), or None when it is not recorded; a third
        member, a function, is called with the record once the call has returned, to complete it."""
        self._busy = True
        try:
            return fn(*args)
        except Exception as e:  # whatever went wrong, the test itself must go on
            return self.drop(f"the instrumentation failed: {type(e).__name__}")
        finally:
            self._busy = False

    def run(self, pending, fn, args, kwargs):
        """Call fn with the call recorded under pending (see guard; None: not recorded)."""
        __tracebackhide__ = True  # noqa: F841
        if pending is None:
            return fn(*args, **kwargs)
        self._depth += 1
        try:
            out = fn(*args, **kwargs)
        except BaseException:
            self.drop("the call raised")
            raise
        finally:
            self._depth -= 1
        self.guard(self._finish, pending, out)
        return out

    def _finish(self, pending, out):
        record, site = pending[:2]
        outs = list(out) if isinstance(out, (tuple, list)) else [out]
        if not any(self.holds_tensor(v) for v in outs):
            return self.drop("returns no tensor")
        if len(pending) > 2:  # what only the call itself could tell (a lazy module's inferred arguments)
            pending[2](record)
        record["outputs"] = [self.output(v) for v in outs]
        source = dict(self.source)
        if "file" not in source and site is not None:
            source["file"], source["line"] = site
        record["source"] = source
        why = unmigratable(record)
        if why:
            record["unmigratable"] = why
        self.recorded += 1
        self.sink(record)

    def drop(self, reason):
        """Count a call not recorded; None."""
        self.dropped[reason] = self.dropped.get(reason, 0) + 1
        return None

    def holds_tensor(self, value, depth=0):
        """Whether value is a tensor or holds one (in lists, tuples and dicts, three deep)."""
        if self.is_tensor(value):
            return True
        if isinstance(value, (list, tuple)) and depth < 3:
            return any(self.holds_tensor(v, depth + 1) for v in value)
        if isinstance(value, dict) and depth < 3:
            return any(self.holds_tensor(v, depth + 1) for v in value.values())
        return False

    def tensorless(self, args, kwargs):
        """Whether a call is given no tensor at all."""
        return not any(self.holds_tensor(a) for a in args) and not any(self.holds_tensor(v) for v in kwargs.values())


def call_site(frame, judge):
    """(file, line) of the code that made a call, from frame (the caller of the wrapper) outwards:
    judge(path) says of each frame's file PASS (pass over it), None (the call is the library's or
    the instrumentation's own: not recorded) or the file name to give."""
    while frame is not None:
        verdict = judge(frame.f_code.co_filename)
        if verdict is None:
            return None
        if verdict is not PASS:
            return verdict, frame.f_lineno
        frame = frame.f_back
    return None


class _Switch:
    def __init__(self, recorder):
        self.recorder = recorder

    def __enter__(self):
        self.was = self.recorder._on
        self.recorder._on = True

    def __exit__(self, *exc):
        self.recorder._on = self.was
        return False


_ADDRESS = re.compile(r" at 0x[0-9a-fA-F]+")


def unmigratable(record):
    """Why an instance cannot be migrated (the kind of its first opaque value), or None."""
    for part in ("params", "inputs", "context", "outputs"):
        found = values.first_opaque(record.get(part))
        if found is not None:
            # the kind of value, not the value itself, so that reasons can be counted
            text = re.split(r"[:(<]", _ADDRESS.sub("", found), maxsplit=1)[0].strip() or found[:60]
            return f"{part}: {text}"
    return None
