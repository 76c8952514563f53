"""ferry.extract.instrument_tf_keras: while switched on, records every Keras 2 (tf_keras) layer call.

    with Recorder(sink) as recorder:
        recorder.source = {"suite": "docstrings", "test": "tf_keras.layers.Dense"}
        with recorder.recording():
            ... any tf_keras code ...

Keras 2 is its own library here (the records' library "tf_keras"), beside Keras 3 (instrument_keras):
the models that OpenVINO's layer tests and most production TensorFlow models are built with, whose
graphs differ from what Keras 3 exports. Each record (lib/record.h's form, without "id") is a layer
call, kind "layer": op is the class's public name ("tf_keras.layers.Conv2D", the name tf_keras.layers
exports it under that is the class's own); params are the layer's get_config() less "name" (Keras 2's
canonical form: nested initializers, regularizers and constraints are the plain dictionaries Keras 2
serializes them to, which the template rebuilds only from an allow-list); inputs are the positional
arguments of the call, tensors with None dimensions where the call is symbolic (a functional model
being built, or the graph of a model's call), a Python list of numbers given as the layer's inputs
the tensor TensorFlow makes of it; context has the call's keyword arguments. Only the
outermost call of a public layer is a record (the layers a model calls are recorded, a layer's inner
layers are not); calls that raise are not.
"""

import os

import numpy as np

from ferry.extract import tfload

tf = tfload.load()  # before tf_keras, which imports it too

import tf_keras  # noqa: E402
from tf_keras.src.engine.base_layer import Layer  # noqa: E402
from tf_keras.src.engine.keras_tensor import KerasTensor  # noqa: E402

from ferry.extract import recorder  # noqa: E402
from ferry.extract import values as ferry_values  # noqa: E402

_DIR = os.path.dirname(os.path.abspath(tf_keras.__file__))
_PARENT = os.path.dirname(_DIR)
_TF_DIR = os.path.dirname(os.path.abspath(tf.__file__))
_HERE = (os.path.abspath(__file__), recorder.FILE)
# Base classes and containers, not operators.
_NOT_OPERATORS = ("Layer", "InputLayer", "Wrapper", "InputSpec")


def public_names():
    """{class: public name} of the layers tf_keras.layers exports, each under its own class name
    where it is exported so (Conv2D, not its alias Convolution2D)."""
    found = {}
    for name in sorted(dir(tf_keras.layers)):
        obj = getattr(tf_keras.layers, name)
        if (isinstance(obj, type) and issubclass(obj, Layer) and not issubclass(obj, tf_keras.Model)
                and name not in _NOT_OPERATORS):
            if obj not in found or name == obj.__name__:
                found[obj] = f"tf_keras.layers.{name}"
    return found


def _judge(path):
    """call_site's judge: the instrumentation and TensorFlow's plumbing are passed over, tf_keras's
    own code is passed over too (a model calling its layers is how a user's model runs), and any
    other file is the caller."""
    path = os.path.abspath(path)
    if path in _HERE or path.startswith(_TF_DIR + os.sep) or path.startswith(_DIR + os.sep):
        return recorder.PASS
    return path


def _symbolic(value):
    return isinstance(value, KerasTensor) or (tf.is_tensor(value) and not hasattr(value, "numpy"))


def _numbers(value):
    """Whether value is a Python number or a (nested) list or tuple of them only."""
    if isinstance(value, (list, tuple)):
        return bool(value) and all(_numbers(v) for v in value)
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _shape(value):
    return [None if d is None else int(d) for d in value.shape.as_list()] if value.shape.rank is not None else None


def encode(value):
    """A call's argument as a tagged value: a tensor with its values (eager), its dtype and shape with
    None dimensions (symbolic), anything else as ferry_values encodes it."""
    if _symbolic(value):
        shape = _shape(value)
        if shape is None:
            return {"opaque": f"a tensor of unknown rank ({value.dtype.name})"}
        return {"tensor": {"dtype": ferry_values.dtype_name(np.dtype(value.dtype.as_numpy_dtype)), "shape": shape}}
    if isinstance(value, (tf.Tensor, tf.Variable)):
        return ferry_values.tensor(np.asarray(value))
    if isinstance(value, list):
        return {"list": [encode(v) for v in value]}
    if isinstance(value, tuple):
        return {"tuple": [encode(v) for v in value]}
    return ferry_values.encode(value)


def _output(value):
    """One output of a call: dtype and shape only."""
    if _symbolic(value):
        return {"tensor": {"dtype": ferry_values.dtype_name(np.dtype(value.dtype.as_numpy_dtype)),
                           "shape": _shape(value) or []}}
    return ferry_values.tensor(np.asarray(value), keep=False)


def _as_tensor(inputs):
    """A layer's inputs as the layer computes on them: a Python list of numbers (ReLU()([-3.0, 1.0]))
    is the tensor TensorFlow makes of it."""
    return tf.convert_to_tensor(inputs) if _numbers(inputs) else inputs


class Recorder(recorder.Recorder):
    """The instrumentation: install by entering, record inside recording(), remove by leaving."""

    LIBRARY = "tf_keras"

    def __init__(self, sink):
        super().__init__(sink, tf_keras.__version__)
        self._names = public_names()

    def install(self):
        for cls in {Layer} | set(self._names):
            if "__call__" in cls.__dict__:
                self.patch(cls, "__call__", self.wrap(cls.__dict__["__call__"], self._layer_call))

    def is_tensor(self, value):
        return tf.is_tensor(value) or isinstance(value, (tf.Variable, np.ndarray, KerasTensor))

    def output(self, value):
        return _output(value)

    def _layer_call(self, frame, args, kwargs):
        """The pending record of a layer's call (recorder.Recorder.wrap's intercept)."""
        layer, args = args[0], args[1:]
        op = self._names.get(type(layer))
        if op is None:
            return None
        site = recorder.call_site(frame, _judge)
        if site is not None and site[0].startswith(_PARENT + os.sep):
            site = os.path.relpath(site[0], _PARENT), site[1]
        return self.guard(self._encode, op, layer, args, kwargs, site)

    def _encode(self, op, layer, args, kwargs, site):
        config = dict(layer.get_config())
        config.pop("name", None)
        record = {"library": "tf_keras", "library_version": self._version, "op": op, "kind": "layer",
                  "params": {k: ferry_values.encode(v) for k, v in config.items()},
                  "inputs": [encode(_as_tensor(a) if k == 0 else a) for k, a in enumerate(args)]}
        if kwargs:
            record["context"] = {"kwargs": {"dict": {k: encode(v) for k, v in kwargs.items()}}}
        return record, site
