"""instrument_keras: while switched on, records every Keras layer and keras.ops instance that runs.

    with Recorder(sink) as recorder:           # installs the instrumentation
        recorder.source = {"suite": "docstrings", "test": "keras.layers.Conv2D"}
        with recorder.recording():             # records the calls made inside, in this thread
            ... any Keras code ...
                                               # leaving the outer block removes every trace of it

Each record (lib/record.h's form, without "id") goes to sink(record) as a dict:

- Keras layers, kind "layer": op is the class's public name ("keras.layers.Conv2DTranspose", from
  Keras's own export registry); params are the layer object's configuration: its get_config() (Keras's
  canonical form, every default filled in) less "name", completed with the arguments its constructor
  was given that the configuration does not hold, or those arguments alone where get_config fails;
  inputs are the positional arguments of the call (tensors with their None dimensions when the call is
  symbolic, a functional model being built); context has the call's keyword arguments ("kwargs": a
  mask, training=...) when there are any.
- keras.ops functions, kind "op": op is the public name ("keras.ops.matmul"); inputs are the
  positional arguments, params the keyword arguments. Only calls given a tensor (or array) are
  recorded: keras.ops.ones((2, 3)) makes a test's input, it is not a usage of an operator; nor are
  the SETUP functions, with which tests build, convert and inspect their inputs and outputs
  (convert_to_tensor, convert_to_numpy, shape, ...): they are counted under their own reason.
- outputs are the dtypes and shapes of what the call returned; library_version is Keras's version;
  source is the recorder's current source with "file" and "line" of the call site (the first frame
  outside Keras's own plumbing) unless the source names them.

Values: Keras objects inside a configuration or an argument (initializers, regularizers, constraints,
nested layers, dtype policies) are serialized by Keras (serialize_keras_object) and become
ferry_values.object_value(public class name, config), which the template rebuilds with the class's
from_config: never by evaluating anything. A dtype policy that is only a name ("float32",
"mixed_float16") is that string; a function (an activation) is a callable by its public name; a
Python lambda cannot be migrated and is opaque.

How, without editing anything on disk:
- Constructors: Layer.__new__, which Keras calls once per object with the constructor's arguments,
  is wrapped: the arguments are kept per object (a WeakKeyDictionary), so two live Conv2D objects
  keep two sets of arguments, and a call is always paired with its own object's.
- Layer calls: Layer.__call__ and every override of it in a public layer class are wrapped. Only the
  outermost call of a public layer is an instance: the layers a Bidirectional or a
  MultiHeadAttention calls inside are part of it. Models (Sequential, functional models) are not
  layers here, so the layers they call are recorded, as a model's layers are what real models use.
- keras.ops: each public op function is replaced, in every loaded Keras module that holds it, by a
  wrapper. An op call is recorded when the code that made it is not Keras's own (a test, a
  documentation example), or is Keras's applications (the architectures, whose ops are model code);
  ops inside a recorded layer call or inside Keras's machinery (losses, optimizers, the trainer) are
  not. Calls that raise, calls in other threads and calls of the instrumentation itself are never
  recorded; what was dropped is counted in recorder.dropped.
"""

import os
import sys
import types

import numpy as np

from ferry.extract import tfload

tf = tfload.load()  # before keras, which imports it too

import keras  # noqa: E402
from keras.src import api_export  # noqa: E402
from keras.src.backend.common.keras_tensor import KerasTensor  # noqa: E402
from keras.src.backend.common.variables import Variable as KerasVariable  # noqa: E402
from keras.src.layers.layer import Layer  # noqa: E402
from keras.src.saving import serialization_lib  # noqa: E402

from ferry.extract import recorder  # noqa: E402
from ferry.extract import values as ferry_values  # noqa: E402

_KERAS_DIR = os.path.dirname(os.path.abspath(keras.__file__))
_KERAS_PARENT = os.path.dirname(_KERAS_DIR)
_TF_DIR = os.path.dirname(os.path.abspath(tf.__file__))
# Keras code whose calls are model code (test knowledge), not machinery.
_KNOWLEDGE_DIRS = tuple(os.path.join(_KERAS_DIR, "src", d) + os.sep for d in ("applications",))
# keras.ops functions that tests call to build, convert or inspect values, not as operators: never
# recorded (a model converter meets them as no operator, or as an identity); counted by reason, in
# the words instrument_torch uses for the same kinds of call.
SETUP = {f"keras.ops.{n}": why for why, names in (
    ("set-up: tensor construction", ("convert_to_tensor", "array")),
    ("set-up: copy or detach", ("copy",)),
    ("set-up: conversion out of Keras", ("convert_to_numpy",)),
    ("shape query", ("shape", "ndim", "size", "dtype", "is_tensor"))) for n in names}
# The instrumentation's own files.
_HERE = (os.path.abspath(__file__), recorder.FILE)


def public_names():
    """{object: public name} of Keras's exported layers (keras.layers.*, Layer subclasses but the
    base classes) and op functions (keras.ops.*), from Keras's own export registry."""
    out = {}
    for obj, name in api_export.REGISTERED_OBJS_TO_NAMES.items():
        if name.startswith("keras.layers.") and isinstance(obj, type) and issubclass(obj, Layer):
            if name not in ("keras.layers.Layer", "keras.layers.InputLayer", "keras.layers.Wrapper"):
                out[obj] = name
        elif name.startswith("keras.ops.") and isinstance(obj, types.FunctionType):
            out[obj] = name
    return out


class Recorder(recorder.Recorder):
    """The instrumentation: install by entering, record inside recording(), remove by leaving."""

    LIBRARY = "Keras"

    def __init__(self, sink):
        super().__init__(sink, keras.__version__)
        self._names = public_names()

    # --- what is patched --------------------------------------------------------------------------------

    def install(self):
        new = Layer.__dict__["__new__"]
        self.patch(Layer, "__new__", staticmethod(self._wrap_new(getattr(new, "__func__", new))))
        owners = {Layer} | {cls for cls in self._names if isinstance(cls, type)}
        for cls in owners:
            if "__call__" in cls.__dict__:
                self.patch(cls, "__call__", self.wrap(cls.__dict__["__call__"], self._layer_call))
        ops = {fn: name for fn, name in self._names.items() if isinstance(fn, types.FunctionType)}
        wrappers = {}
        for modname, module in list(sys.modules.items()):
            if module is None or not (modname == "keras" or modname.startswith("keras.")):
                continue
            for attr, value in list(vars(module).items()):
                if isinstance(value, types.FunctionType) and value in ops:
                    if value not in wrappers:
                        wrappers[value] = self._wrap_op(value, ops[value])
                    self.patch(module, attr, wrappers[value])

    def is_tensor(self, value):
        return isinstance(value, (KerasTensor, KerasVariable, np.ndarray)) or tf.is_tensor(value) \
            or isinstance(value, tf.Variable)

    def output(self, value):
        return _output(value)

    # --- constructors ---------------------------------------------------------------------------------

    def _wrap_new(self, original):
        rec = self

        def __new__(cls, *args, **kwargs):
            obj = original(cls, *args, **kwargs)
            if cls in rec._names:  # an argument list that does not bind: get_config alone will do
                rec.keep_constructor(obj, lambda: rec.arguments(cls.__init__, obj, args, kwargs))
            return obj
        return __new__

    # --- layer calls ----------------------------------------------------------------------------------

    def _layer_call(self, frame, args, kwargs):
        """The pending record of a layer's call (recorder.Recorder.wrap's intercept)."""
        layer, args = args[0], args[1:]
        op = self._names.get(type(layer))
        if op is None:
            return None
        site = recorder.call_site(frame, _in_keras_for_layer)
        if site is None and frame is not None:  # nothing but Keras: its outermost frame then
            site = os.path.relpath(frame.f_code.co_filename, _KERAS_PARENT), frame.f_lineno
        return self.guard(self._encode_layer_call, op, layer, args, kwargs, site)

    def _encode_layer_call(self, op, layer, args, kwargs, site):
        record = {
            "library": "keras", "library_version": self._version, "op": op, "kind": "layer",
            "params": self._layer_params(layer),
            "inputs": [encode(a) for a in args],
        }
        if kwargs:
            record["context"] = {"kwargs": {"dict": {k: encode(v) for k, v in kwargs.items()}}}
        return record, site

    def _layer_params(self, layer):
        """The layer's configuration as tagged values (see the module's comment)."""
        given = self.constructor_of(layer) or {}
        try:
            config = dict(layer.get_config())
        except Exception:  # NotImplementedError for a layer whose arguments Keras cannot serialize
            config = None
        params = {}
        if config is not None:
            config.pop("name", None)
            params = {k: config_value(v) for k, v in config.items()}
        for k, v in given.items():
            if k != "name" and k not in params and (config is None or k not in config):
                params[k] = encode(v)
        if config is None and not given:
            return {"__config__": {"opaque": f"{type(layer).__name__}: neither get_config nor its "
                                             f"constructor's arguments are known"}}
        return params

    # --- op calls -------------------------------------------------------------------------------------

    def _wrap_op(self, original, op):
        def intercept(frame, args, kwargs):
            site = recorder.call_site(frame, _in_keras_for_op)
            if site is None:
                return None
            if op in SETUP:
                return self.drop(SETUP[op])
            return self.guard(self._encode_op_call, op, args, kwargs, site)
        wrapper = self.wrap(original, intercept)
        wrapper.__ferry_original__ = original
        return wrapper

    def _encode_op_call(self, op, args, kwargs, site):
        if self.tensorless(args, kwargs):
            return self.drop("no tensor argument")
        record = {
            "library": "keras", "library_version": self._version, "op": op, "kind": "op",
            "params": {k: encode(v) for k, v in kwargs.items()},
            "inputs": [encode(a) for a in args],
        }
        return record, site


def _in_keras_for_op(path):
    """call_site's judge for an op: the code a call was made for is the first frame that is neither
    Keras's plumbing, TensorFlow's nor the instrumentation's; None when that code is Keras's own
    (but its applications): the call is the machinery's, not an instance."""
    if path in _HERE or path.startswith(_TF_DIR + os.sep):
        return recorder.PASS
    if path.startswith(_KERAS_DIR + os.sep):
        return os.path.relpath(path, _KERAS_PARENT) if path.startswith(_KNOWLEDGE_DIRS) else None
    return path


def _in_keras_for_layer(path):
    """_in_keras_for_op for a layer, whose calls by Keras's own code are passed over (a layer that a
    model calls is the model's code's)."""
    if path.startswith(_KERAS_DIR + os.sep) and not path.startswith(_KNOWLEDGE_DIRS):
        return recorder.PASS
    return _in_keras_for_op(path)


# --- Keras's and TensorFlow's values as tagged values -------------------------------------------------

def _shape(shape):
    return [None if d is None else int(d) for d in shape]


def encode_tensor(t, keep=None):
    """A Keras symbolic tensor, a TensorFlow tensor or variable, or a Keras variable, as a tagged
    tensor: dtype and shape (None where unknown until run time), and the values where
    ferry_values.tensor's policy keeps them (keep as there) and they exist (not in a symbolic call)."""
    if isinstance(t, KerasTensor):
        if t.sparse or t.ragged:
            return {"opaque": f"a {'sparse' if t.sparse else 'ragged'} tensor"}
        return {"tensor": {"dtype": _dtype(t.dtype), "shape": _shape(t.shape)}}
    if isinstance(t, KerasVariable):
        t = t.value
    if isinstance(t, (tf.SparseTensor, tf.RaggedTensor)):
        return {"opaque": f"a {'sparse' if isinstance(t, tf.SparseTensor) else 'ragged'} tensor"}
    if not tf.is_tensor(t) and not isinstance(t, tf.Variable):
        return {"opaque": f"a tensor of class {type(t).__name__}"}
    dtype = _dtype(t.dtype)
    if t.shape.rank is None:
        return {"opaque": f"a {dtype} tensor of unknown rank"}
    shape = _shape(t.shape)
    if keep is False or None in shape or not hasattr(t, "numpy"):
        return {"tensor": {"dtype": dtype, "shape": shape}}
    try:
        array = t.numpy()
    except Exception:  # a graph tensor inside tf.function: no values to keep
        return {"tensor": {"dtype": dtype, "shape": shape}}
    try:
        out = ferry_values.tensor(array, keep)
    except (ValueError, UnicodeDecodeError) as e:
        return {"opaque": f"a {dtype} tensor: {str(e)[:60]}"}
    out["tensor"]["dtype"] = dtype
    return out


def _dtype(dtype):
    """The record's name of a Keras or TensorFlow dtype ("float32", "bfloat16", "string", ...)."""
    name = getattr(dtype, "name", dtype)
    return str(name)


def _output(value):
    if isinstance(value, (KerasTensor, KerasVariable)) or tf.is_tensor(value):
        return encode_tensor(value, keep=False)
    if isinstance(value, np.ndarray):
        return ferry_values.tensor(value, keep=False)
    if isinstance(value, (tuple, list)):
        tag = "list" if isinstance(value, list) else "tuple"
        return {tag: [_output(v) for v in value]}
    if isinstance(value, dict):
        return {"dict": {str(k): _output(v) for k, v in value.items()}}
    return encode(value)


def encode(value):
    """ferry_values.encode, with this module's encoders registered."""
    return ferry_values.encode(value)


def public_name(obj):
    """The public name of a Keras class or function ("keras.initializers.GlorotUniform"), else its
    qualified name."""
    try:
        name = api_export.REGISTERED_OBJS_TO_NAMES.get(obj)
    except TypeError:  # unhashable
        name = None
    return name or ferry_values.qualified_name(obj)


def config_value(v):
    """A value of a Keras configuration (get_config(), serialize_keras_object()) as a tagged value:
    plain data as it is, a serialized object as an object_value, a serialized function as a
    callable, arrays as tensors."""
    if isinstance(v, dict) and "class_name" in v and "config" in v:
        return _serialized(v)
    if isinstance(v, dict) and all(isinstance(k, str) for k in v):
        return {"dict": {k: config_value(x) for k, x in v.items()}}
    if isinstance(v, list):
        return {"list": [config_value(x) for x in v]}
    if isinstance(v, tuple):
        return {"tuple": [config_value(x) for x in v]}
    return encode(v)


def _serialized(d):
    cls, module, config = d["class_name"], d.get("module"), d["config"]
    if cls == "__lambda__":
        return {"opaque": "a Python lambda"}
    if cls in ("__tensor__", "__numpy__"):
        array = np.array(config["value"], dtype=ferry_values.dtype_from_name(config["dtype"]))
        return ferry_values.tensor(array, keep=True)
    if cls == "__bytes__":
        return {"opaque": "bytes"}
    if cls == "__slice__":
        return ferry_values.slice_value(slice(*(serialization_lib.deserialize_keras_object(config[k])
                                                for k in ("start", "stop", "step"))))
    if cls == "__ellipsis__":
        return {"callable": "builtins.Ellipsis"}
    if cls == "function":
        fn = _lookup(module, config) if isinstance(config, str) else None
        if fn is not None:
            return {"callable": public_name(fn)}
        return {"opaque": f"function {module}.{config}"}
    if cls.startswith("__"):
        return {"opaque": f"a serialized {cls.strip('_')}"}
    if cls == "DTypePolicy" and isinstance(config, dict) and list(config) == ["name"]:
        return {"str": config["name"]}
    klass = _lookup(module, cls) if module else None
    name = public_name(klass) if klass is not None else f"{module}.{cls}"
    if not isinstance(config, dict):
        return {"opaque": f"{name} with a configuration that is not a dict"}
    inner = dict(config)
    if klass is not None and issubclass_safe(klass, Layer):
        inner.pop("name", None)  # a nested layer's name is no more part of a usage than the outer one's
    return ferry_values.object_value(name, {"dict": {k: config_value(x) for k, x in inner.items()}})


def issubclass_safe(a, b):
    return isinstance(a, type) and issubclass(a, b)


def _lookup(module, name):
    mod = sys.modules.get(module or "")
    return getattr(mod, name, None) if mod is not None else None


def _encode_keras_object(obj):
    """An initializer, regularizer, constraint, dtype policy or layer given as an argument: as
    Keras serializes it."""
    try:
        return config_value(serialization_lib.serialize_keras_object(obj))
    except Exception as e:  # an object Keras cannot serialize
        return {"opaque": f"a {type(obj).__name__}: {type(e).__name__}"}


def _encode_function(fn):
    name = public_name(fn)
    if name is None or "<" in name:
        return {"opaque": f"a Python {'lambda' if getattr(fn, '__name__', '') == '<lambda>' else 'function'}"}
    return {"callable": name}


def _saveables():
    from keras.src import constraints, dtype_policies, initializers, regularizers
    from keras.src.saving.keras_saveable import KerasSaveable
    return (KerasSaveable, initializers.Initializer, regularizers.Regularizer, constraints.Constraint,
            dtype_policies.DTypePolicy)


ferry_values.register_encoder((KerasTensor, KerasVariable, tf.Tensor, tf.Variable, tf.SparseTensor,
                               tf.RaggedTensor), encode_tensor)
ferry_values.register_encoder(tf.DType, lambda d: {"dtype": d.name})
ferry_values.register_encoder(tf.TensorShape, lambda s: {"tuple": [ferry_values.encode(d) for d in s.as_list()]}
                              if s.rank is not None else {"none": None})
ferry_values.register_encoder(_saveables(), _encode_keras_object)
ferry_values.register_encoder(types.FunctionType, _encode_function)
