"""ferry.extract.harvest_tf_keras: the test knowledge of Keras 2 (the tf_keras package), under the
instrumentation of instrument_tf_keras.

Suites:
  docstrings  the examples in the documentation of every layer tf_keras.layers exports, run as
              documented; they write tf.keras, which is Keras 2 here (their namespace's tf is
              TensorFlow with tf_keras as its keras, as TF_USE_LEGACY_KERAS=1 makes it, without
              changing this process's TensorFlow)
  applications every architecture of tf_keras.applications, built as documented with weights=None
              (nothing is downloaded) at the smallest input it takes of SIZES (a small model
              wraps into a test that runs fast), else at its default: the layers as real models
              use them, called symbolically (batch None)
  layer-tests tf-keras's own layer tests (tf_keras/src/layers/**/*_test.py, which build each layer
              through tf_keras.src.testing_infra.test_utils.layer_test), of the installed version,
              from an archive of its source tree: ferry harvest fetched them into the cache before
              this process started (tf_keras_tests.py); run like pytest paths
and pytest files or directories, run under the instrumentation.
"""

import contextlib
import doctest
import inspect
import io
import types
import warnings

import numpy as np

from ferry.extract import harvest_common, tf_keras_tests, tfload

tf = tfload.load()  # first: before tf_keras, which imports it too

import tf_keras  # noqa: E402

from ferry.extract import instrument_tf_keras  # noqa: E402

SUITES = ("docstrings", "applications", "layer-tests")
# The registry's (ferry/templates/registry.py): --op and --test prune the tests; the sandbox shows
# tf-keras's own tests, fetched before the harvest.
FILTER_OPS = True
SANDBOX_READS = "tf_keras_tests"
PROGRESS_EVERY = 10
# The square inputs an architecture is tried at, smallest first (32 is the least most of them take;
# the Inception ones want 75), before its default (None).
SIZES = (32, 75, None)


def harvest(ferry, patterns, suites=None, pytest=None):
    """Emit the instances of the given suites (all when neither suites nor pytest is given) and of the
    pytest paths; patterns (fnmatch) keep the records whose op or test matches one of them, and pass
    over the docstrings that cannot match. Returns counts: {"tests": docstrings run, ...}."""
    suites = harvest_common.suites("tf_keras", SUITES, suites, pytest)
    tf.config.threading.set_intra_op_parallelism_threads(1)
    tf.config.threading.set_inter_op_parallelism_threads(1)
    h = harvest_common.Harvest(ferry, patterns, PROGRESS_EVERY)
    with warnings.catch_warnings(), instrument_tf_keras.Recorder(h.emit) as recorder:
        warnings.simplefilter("ignore")
        h.recorder = recorder
        for suite in suites or ():
            {"docstrings": _docstrings, "applications": _applications, "layer-tests": _layer_tests}[suite](h)
        for path in pytest or ():
            h.pytest(path, _seed, import_mode="importlib")
        h.check()
    return h.counts()


def _seed():
    tf_keras.utils.set_random_seed(0)


class _TensorFlow(types.ModuleType):
    """TensorFlow as the examples see it: tf.keras is tf_keras, the rest is TensorFlow's."""

    def __init__(self):
        super().__init__("tensorflow")
        self.keras = tf_keras

    def __getattr__(self, name):
        return getattr(tf, name)


def _namespace():
    """What a docstring's examples take for granted: tf (with Keras 2 as tf.keras), keras, np and the
    layers unqualified."""
    namespace = {name: getattr(tf_keras.layers, name) for name in dir(tf_keras.layers) if not name.startswith("_")}
    namespace.update(tf=_TensorFlow(), keras=tf_keras, np=np, numpy=np, layers=tf_keras.layers,
                     Sequential=tf_keras.Sequential, Model=tf_keras.Model, Input=tf_keras.Input,
                     __name__="__ferry_docstring__")
    return namespace


def _docstrings(h):
    layers = sorted((name, cls) for cls, name in instrument_tf_keras.public_names().items() if h.wanted(name))
    for done, (name, cls) in enumerate(layers, 1):
        examples = [e.source for e in doctest.DocTestParser().get_examples(inspect.getdoc(cls) or "")]
        if examples and h.begin(name):
            h.tests += 1
            _run_examples(h, name, cls, examples)
            h.finish()
        h.progress(done, len(layers), "docstrings")


def _run_examples(h, name, cls, examples):
    source = {"suite": "docstrings", "test": name}
    where = harvest_common.where(cls, tf_keras)
    if where is not None:
        source["file"], source["line"] = where
    namespace = _namespace()
    tf_keras.backend.clear_session()
    _seed()
    for k, example in enumerate(examples):
        h.recorder.source = dict(source, example=k)
        try:
            code = compile(example, f"<docstring of {name}>", "exec")
        except SyntaxError:  # a sketch rather than an example
            h.count_failure("docstring examples failed")
            continue
        with h.recorder.recording(), contextlib.redirect_stdout(io.StringIO()):
            try:
                exec(code, namespace)  # the library's own documented example, not record data
            except Exception:  # an example that needs data, a download or another backend
                h.count_failure("docstring examples failed")
        h.check()


# --- tf_keras.applications ------------------------------------------------------------------------------

def application_builders():
    """[(public name, builder)] of every architecture tf_keras.applications exports."""
    return [(f"tf_keras.applications.{name}", getattr(tf_keras.applications, name))
            for name in sorted(dir(tf_keras.applications))
            if name[:1].isupper() and isinstance(getattr(tf_keras.applications, name), types.FunctionType)]


def _applications(h):
    builders = [(n, b) for n, b in application_builders() if h.wanted(n, n.rsplit(".", 1)[-1])]
    for done, (name, build) in enumerate(builders, 1):
        if h.begin(name):
            h.tests += 1
            h.recorder.source = {"suite": "applications", "test": name}
            _application(h, name, build)
            h.check()
            h.finish()
        h.progress(done, len(builders), "applications")
    tf_keras.backend.clear_session()


def _application(h, name, build):
    """Build one architecture at the first size of SIZES it takes; only that build's records are
    emitted (an input too small may fail in a layer deep in the model, after others recorded)."""
    why = None
    for size in SIZES:
        kept = []
        tf_keras.backend.clear_session()
        _seed()
        h.recorder.sink = kept.append
        try:
            with h.recorder.recording():
                build(weights=None, **({"input_shape": (size, size, 3)} if size else {}))
        except Exception as e:  # too small for it, or an architecture this build cannot make
            why = why or type(e).__name__
            continue
        finally:
            h.recorder.sink = h.emit
        for record in kept:
            h.emit(record)
        return
    h.ferry.skip(f"application failed: {why}", name)


# --- tf-keras's own layer tests -------------------------------------------------------------------------

def _layer_tests(h):
    files = tf_keras_tests.files("layer-tests")
    if not files:  # not fetched: ferry harvest has said why
        h.ferry.skip(f"tf-keras's layer-tests are not in the cache {tf_keras_tests.cache_dir()!r}", "layer-tests")
        return
    h.pytest(files, _seed, import_mode="importlib", suite="layer-tests")
