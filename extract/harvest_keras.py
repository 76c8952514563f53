"""harvest_keras: the layer and op instances of Keras's test knowledge, recorded by instrument_keras.

Suites (source.suite of each record):
    docstrings    the examples in the documentation strings of every public layer and keras.ops
                  function (doctest ">>>" examples and ```python blocks), run in order, each
                  docstring in a fresh namespace holding keras, np, ops, layers and tf; an example
                  that fails is counted and the docstring's next one runs
    applications  every architecture of keras.applications, built with weights=None (nothing is
                  downloaded): the layers as real models use them, called symbolically (batch None)
    layer-tests   Keras's own layer tests (keras/src/layers/**/*_test.py, which build each layer
                  through keras.src.testing's run_layer_test) and ops tests (keras/src/ops/*_test.py),
    ops-tests     of the installed version, from its source distribution: ferry harvest fetched them
                  into the cache before this process started (keras_tests.py); run like pytest paths
    pytest        test files or directories (a checkout of Keras's own tests; a user's own tests), run by pytest
                  in this process; a test that fails or errors is counted and the run goes on
                  (ferry harvest runs this process as a child of its own, in a scratch directory
                  and a sandbox: a test that exits, crashes or hangs is counted there, and a new
                  child goes on)

Keras's random generator is seeded before each case, so a harvest is the same run after run. The C
side calls harvest() (through channel); records go back through ferry.emit as JSON text,
problems through ferry.skip(reason, where), progress through ferry.progress(done, total, label), and
each test (a docstring, an architecture, a pytest item) is numbered, and skipped when an earlier
process did it, through channel.begin and finish.
"""

import contextlib
import doctest
import inspect
import io
import re
import types
import warnings

import numpy as np

from ferry.extract import harvest_common, keras_tests, tfload

tf = tfload.load()  # first: before keras, which imports it too

import keras  # noqa: E402

from ferry.extract import instrument_keras  # noqa: E402

SUITES = ("docstrings", "applications", "layer-tests", "ops-tests")
# The registry's (ferry/templates/registry.py): --op and --test prune the tests; the sandbox shows
# Keras's own tests, fetched before the harvest.
FILTER_OPS = True
SANDBOX_READS = "keras_tests"
PROGRESS_EVERY = 10

_FENCE = re.compile(r"```python\n(.*?)```", re.S)


def harvest(ferry, patterns, suites=None, pytest=None):
    """Emit the instances of the given suites (both shipped ones when neither suites nor pytest is
    given) and of the pytest paths. patterns (fnmatch) keep the records whose op or test matches one
    of them (all when empty); they also pass over the docstrings and architectures that cannot match.
    Returns counts: {"tests": cases run, ...}."""
    suites = harvest_common.suites("keras", SUITES, suites, pytest)
    tf.config.threading.set_intra_op_parallelism_threads(1)
    tf.config.threading.set_inter_op_parallelism_threads(1)
    h = harvest_common.Harvest(ferry, patterns, PROGRESS_EVERY)
    with warnings.catch_warnings(), instrument_keras.Recorder(h.emit) as recorder:
        warnings.simplefilter("ignore")
        h.recorder = recorder
        for suite in suites or ():
            if suite in keras_tests.SUITES:
                _keras_tests(h, suite)
            else:
                {"docstrings": _docstrings, "applications": _applications}[suite](h)
        for path in pytest or ():
            # importlib: a checkout of Keras's source tree holds a "keras" package that must not
            # shadow the installed one the instrumentation is in
            h.pytest(path, _seed, import_mode="importlib")
        h.check()
    return h.counts()


def _keras_tests(h, suite):
    files = keras_tests.files(suite)
    if not files:  # not fetched: ferry harvest has said why
        h.ferry.skip(f"Keras's {suite} are not in the cache {keras_tests.cache_dir()!r}", suite)
        return
    h.pytest(files, _seed, import_mode="importlib", suite=suite)


def _seed():
    keras.utils.set_random_seed(0)


# --- docstrings -----------------------------------------------------------------------------------------

def docstring_examples(doc):
    """The runnable examples of a docstring, in order: each doctest example's source, and each
    ```python block whole."""
    if not doc:
        return []
    doc = inspect.cleandoc(doc)
    found = []
    for example in doctest.DocTestParser().get_examples(doc):
        found.append((example.lineno, example.source))
    for match in _FENCE.finditer(doc):
        body = match.group(1)
        if ">>>" not in body:
            found.append((doc.count("\n", 0, match.start()), body))
    return [source for _, source in sorted(found, key=lambda f: f[0])]


def _docstrings(h):
    names = instrument_keras.public_names()
    documented = sorted(((name, obj) for obj, name in names.items() if h.wanted(name)), key=lambda p: p[0])
    for done, (name, obj) in enumerate(documented, 1):
        examples = docstring_examples(inspect.getdoc(obj) if isinstance(obj, type) else obj.__doc__)
        if examples and h.begin(name):
            h.tests += 1
            _run_examples(h, name, obj, examples)
            h.finish()
        h.progress(done, len(documented), "docstrings")


def _namespace():
    """What a docstring's examples take for granted: keras, numpy, ops, layers and tf, and the names
    of the layers and of keras's models unqualified (the examples write StringLookup(...),
    Sequential(...))."""
    namespace = {name: getattr(keras.layers, name) for name in dir(keras.layers) if not name.startswith("_")}
    namespace.update(Sequential=keras.Sequential, Model=keras.Model, Input=keras.Input)
    namespace.update(keras=keras, np=np, numpy=np, ops=keras.ops, layers=keras.layers, tf=tf,
                     __name__="__ferry_docstring__")
    return namespace


def _run_examples(h, name, obj, examples):
    where = harvest_common.where(obj, keras)
    source = {"suite": "docstrings", "test": name}
    if where is not None:
        source["file"], source["line"] = where
    namespace = _namespace()
    _seed()
    for k, example in enumerate(examples):
        h.recorder.source = dict(source, example=k)
        try:
            code = compile(example, f"<docstring of {name}>", "exec")
        except SyntaxError:  # a sketch rather than an example ("...", pseudo-code)
            h.count_failure("docstring examples failed")
            continue
        with h.recorder.recording(), contextlib.redirect_stdout(io.StringIO()):
            try:
                exec(code, namespace)  # the library's own documented example, not record data
            except Exception:  # an example that needs data, a download or another backend
                h.count_failure("docstring examples failed")
        h.check()


# --- keras.applications ---------------------------------------------------------------------------------

def application_builders():
    """[(public name, builder)] of every architecture in keras.applications."""
    from keras.src import api_export
    out = []
    for obj, name in api_export.REGISTERED_OBJS_TO_NAMES.items():
        last = name.rsplit(".", 1)[-1]
        if name.startswith("keras.applications.") and isinstance(obj, types.FunctionType) \
                and last[:1].isupper():
            out.append((name, obj))
    return sorted(out)


def _applications(h):
    builders = [(n, b) for n, b in application_builders() if h.wanted(n, n.rsplit(".", 1)[-1])]
    for done, (name, build) in enumerate(builders, 1):
        if not h.begin(name):
            h.progress(done, len(builders), "applications")
            continue
        h.tests += 1
        keras.utils.clear_session()
        _seed()
        source = {"suite": "applications", "test": name}
        h.recorder.source = source
        with h.recorder.recording():
            try:
                build(weights=None)
            except Exception as e:  # an architecture this build cannot make: the rest goes on
                h.ferry.skip(f"application failed: {type(e).__name__}", name)
        h.check()
        h.finish()
        h.progress(done, len(builders), "applications")
    keras.utils.clear_session()
