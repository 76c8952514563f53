"""ferry.extract.harvest_tf_keras: the test knowledge of Keras 2 (the tf_keras package), under the
instrumentation of instrument_tf_keras.

Suites:
  docstrings  the examples in the documentation of every layer tf_keras.layers exports, run as
              documented; they write tf.keras, which is Keras 2 here (their namespace's tf is
              TensorFlow with tf_keras as its keras, as TF_USE_LEGACY_KERAS=1 makes it, without
              changing this process's TensorFlow)
and pytest files or directories, run under the instrumentation.
"""

import contextlib
import doctest
import inspect
import io
import types
import warnings

import numpy as np

from ferry.extract import harvest_common, tfload

tf = tfload.load()  # first: before tf_keras, which imports it too

import tf_keras  # noqa: E402

from ferry.extract import instrument_tf_keras  # noqa: E402

SUITES = ("docstrings",)
# The registry's (ferry/templates/registry.py): --op and --test prune the tests.
FILTER_OPS = True
PROGRESS_EVERY = 10


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
        if "docstrings" in (suites or ()):
            _docstrings(h)
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
