"""ferry.extract.values: Python and numpy values <-> the type-tagged JSON values of an instance record.

The tagged form is specified in lib/record.h: every value is an object with exactly one member naming
its type ({"int": 3}, {"tensor": {...}}, ...). encode() goes from a live value to that form and is what
the harvesters use; decode() rebuilds a live value from the tags alone, for the templates. Nothing here
evaluates a string from a record, and nothing here knows a particular deep-learning library: numpy (and
ml_dtypes, for the narrow float and int types numpy lacks) is all it needs. A name in a record (a
callable, a dataclass, a configured class) is looked up in an allow-list the library's template fills
(allow()), never in the loaded modules.
"""

import base64
import dataclasses
import math

import numpy as np

# Integers beyond this magnitude are written as decimal strings: a JSON reader may hold numbers as doubles.
EXACT_INT = 2 ** 53

# How many elements a tensor may have and still keep its values (see tensor()).
KEEP_INT = 4096
KEEP_FLOAT = 16
KEEP_STRING = 64


class Unmigratable(ValueError):
    """decode() met a value that cannot be rebuilt (opaque, or a callable that is not allowed)."""


class Graph:
    """A decoded {"graph": ...} value: the serialized graph and the format it is in."""

    def __init__(self, fmt, data):
        self.format = fmt
        self.data = data

    def __repr__(self):
        return f"Graph({self.format!r}, <{len(self.data)} bytes>)"


# --- dtypes -------------------------------------------------------------------------------------------

def dtype_name(dtype):
    """The record's name of a numpy dtype: numpy's own name, "string" for every kind of string."""
    try:
        return _dtype_names[dtype]
    except (KeyError, TypeError):  # not seen yet, or a dtype-like value that cannot be a key
        pass
    found = np.dtype(dtype)
    name = "string" if found.kind in "OUS" else found.name
    try:
        _dtype_names[dtype] = name
    except TypeError:
        pass
    return name


# dtype (or the type or name it was given as) -> its record name: numpy's dtype.name takes
# microseconds, and the harvest asks it for every tensor of every call it records.
_dtype_names = {}


def dtype_from_name(name):
    """The numpy dtype a record's dtype name stands for (object for "string")."""
    if name == "string":
        return np.dtype(object)
    try:
        return np.dtype(name)
    except TypeError:
        # bfloat16, float8_*, int4 and the like exist only in ml_dtypes; the name must be a dtype
        # there, not just any attribute of the module.
        import ml_dtypes
        found = getattr(ml_dtypes, name, None)
        if not isinstance(found, type) or not issubclass(found, np.generic):
            raise Unmigratable(f"unknown dtype {name!r}") from None
        return np.dtype(found)


def dtype_category(name):
    """One of "bool", "int", "float", "complex", "string" for a record's dtype name."""
    if name in ("bool", "string"):
        return name
    if name.startswith(("int", "uint")):
        return "int"
    if name.startswith(("float", "bfloat")):
        return "float"
    if name.startswith("complex"):
        return "complex"
    raise Unmigratable(f"unknown dtype {name!r}")


# --- encoding -----------------------------------------------------------------------------------------

def encode_int(i):
    return {"int": _int_json(i)}


def _float_json(f):
    """A float as the record spells it: a JSON number, or "nan", "inf", "-inf"."""
    f = float(f)
    if math.isnan(f):
        return "nan"
    if math.isinf(f):
        return "inf" if f > 0 else "-inf"
    return f


def encode_float(f):
    """A float; a numpy scalar of a narrower type (an ONNX float attribute is a float32) is written
    in the shortest form that reads back as that type."""
    if isinstance(f, np.generic) and f.dtype.itemsize < 8:
        return {"float": _narrow_float_json(f, f.dtype)}
    return {"float": _float_json(f)}


def _int_json(i):
    i = int(i)
    return i if -EXACT_INT <= i <= EXACT_INT else str(i)


def _narrow_float_json(x, dtype):
    """An element of a float type narrower than double, in the shortest decimal that reads back as it.

    float(x) is exact but long (0.1f becomes 0.10000000149011612); str(x) is numpy's short form, used
    when it provably reads back to the same element, so records stay short and readable."""
    exact = float(x)
    if not math.isfinite(exact):
        return _float_json(exact)
    short = float(str(x))
    if np.array(short, dtype=dtype) == x:
        return short
    return exact


def tensor(array, keep=None):
    """Encode an array as a tagged tensor.

    keep=None applies the record's policy: values are kept for integer and bool tensors of at most
    KEEP_INT elements, float tensors of at most KEEP_FLOAT and string tensors of at most KEEP_STRING,
    since those are the ones whose values an operator tends to depend on (indices, shapes, masks,
    scalars); larger numeric tensors keep only a range for the template to draw from. A float tensor
    of whole numbers counts as an integer one: a test chose such values on purpose (a cast's exact
    cases, indices held as floats), and values drawn from its range would not be whole. keep=True
    keeps the values whatever the size (attribute tensors), keep=False dtype and shape only (outputs)."""
    array = np.asarray(array)
    name = dtype_name(array.dtype)
    category = dtype_category(name)
    out = {"dtype": name, "shape": [int(d) for d in array.shape]}
    if keep is False:
        return {"tensor": out}
    if keep is None:
        keep = array.size <= _KEEP.get(category, 0) or (
            category == "float" and array.size <= KEEP_INT and _whole(array.reshape(-1)))
    if keep:
        flat = array.reshape(-1)
        if not flat.size:  # nothing to keep, whatever the dtype (an empty complex tensor too)
            out["values"] = []
        elif category == "bool":
            out["values"] = flat.tolist()
        elif category == "int":
            out["values"] = _int_values(flat)
        elif category == "float":
            out["values"] = _float_values(flat)
        elif category == "string":
            out["values"] = [_text(x) for x in flat]
        else:
            raise ValueError(f"cannot keep the values of a {name} tensor")
        return {"tensor": out}
    bounds = _range(array, category)
    if bounds is not None:
        out["range"] = bounds
    return {"tensor": out}


_KEEP = {"bool": KEEP_INT, "int": KEEP_INT, "float": KEEP_FLOAT, "string": KEEP_STRING}

# The largest magnitude up to which every whole number of a float type is one of its values, so
# that the shortest decimal that reads back as it is the whole number itself (see _float_values).
_WHOLE_EXACT = {"float16": 2.0 ** 11, "bfloat16": 2.0 ** 8, "float32": 2.0 ** 24, "float64": 2.0 ** 53}


def _int_values(flat):
    """[_int_json(x) for x in flat], without a Python call per element when no element is beyond
    EXACT_INT (the tensors kept are indices and shapes: thousands of small integers)."""
    values = flat.tolist()
    if flat.dtype.itemsize < 8 or -EXACT_INT <= min(values) and max(values) <= EXACT_INT:
        return values
    return [_int_json(x) for x in values]


def _float_values(flat):
    """A float array's elements as the record spells them (_float_json, or _narrow_float_json for a
    type narrower than double). A finite whole number no larger than _WHOLE_EXACT says is its own
    shortest form, so that only the other elements pay for the string round trip (the float tensors
    kept are mostly whole: a test's exact cases, indices held as floats)."""
    wide = flat.astype(np.float64)
    exact = wide.tolist()
    limit = _WHOLE_EXACT.get(dtype_name(flat.dtype)) if flat.dtype.itemsize < 8 else _WHOLE_EXACT["float64"]
    if limit is None:
        return [_narrow_float_json(x, flat.dtype) for x in flat]
    with np.errstate(invalid="ignore"):
        fast = (np.abs(wide) <= limit) & (np.floor(wide) == wide)
    if fast.all():
        return exact
    if flat.dtype.itemsize >= 8:
        return [e if f else _float_json(e) for e, f in zip(exact, fast.tolist())]
    return [e if f else _narrow_float_json(x, flat.dtype) for e, f, x in zip(exact, fast.tolist(), flat)]


def _whole(flat):
    """Whether every finite element is a whole number (NaN and infinities do not count against)."""
    numbers = flat.astype(np.float64)
    return bool(np.all(~np.isfinite(numbers) | (np.floor(numbers) == numbers)))


def _text(x):
    """A string element as str; bytes must be UTF-8 (a string tensor of other bytes is not data we
    can carry as JSON text)."""
    return x.decode("utf-8") if isinstance(x, bytes) else str(x)


# Elements a range is computed over at a time: the temporaries (a finiteness mask, the finite
# elements, a flattened block of a non-contiguous array) stay this small whatever the tensor's size.
# A whole-array computation made several copies of it, some in float64: a test's 512 MiB float32
# input cost the harvest 2.5 GiB more than the test itself.
RANGE_BLOCK = 1 << 20


def _blocks(array):
    """The elements of array as 1-d blocks of about RANGE_BLOCK elements (views where numpy can)."""
    if array.size <= RANGE_BLOCK or array.ndim == 0:
        yield array.reshape(-1)
    elif array.ndim == 1:
        for i in range(0, array.shape[0], RANGE_BLOCK):
            yield array[i:i + RANGE_BLOCK]
    else:
        rows = max(1, RANGE_BLOCK // max(1, array.size // array.shape[0]))
        for i in range(0, array.shape[0], rows):
            if rows == 1:
                yield from _blocks(array[i])
            else:
                yield array[i:i + rows].reshape(-1)


def _range(array, category):
    """[floor(min finite), ceil(max finite)] as floats, None when there is nothing finite to bound.
    A complex tensor is bounded over its real and imaginary parts together. Computed block by block
    (RANGE_BLOCK), never on a copy of the whole array."""
    if category not in ("int", "float", "complex"):
        return None
    lo = hi = None
    for block in _blocks(array):
        for part in ((block.real, block.imag) if category == "complex" else (block,)):
            if part.size == 0:
                continue
            if category != "int":
                part = part[np.isfinite(part)]
                if part.size == 0:
                    continue
            mn, mx = float(part.min()), float(part.max())
            lo = mn if lo is None or mn < lo else lo
            hi = mx if hi is None or mx > hi else hi
    if lo is None:
        return None
    return [float(math.floor(lo)), float(math.ceil(hi))]


def qualified_name(fn):
    module = getattr(fn, "__module__", None)
    name = getattr(fn, "__qualname__", None) or getattr(fn, "__name__", None)
    if name is None:
        return None
    return f"{module}.{name}" if module else name


# Encoders for the types of a particular library (torch.Tensor, torch.dtype, ...), consulted by encode()
# before it gives up on a value. A library's harvester registers them; this module stays library-free.
_encoders = []


def register_encoder(kind, fn):
    """Have encode() turn instances of kind (a type or a tuple of types) into fn(value), a tagged value.
    Registering the same kind again replaces its encoder."""
    for i, (k, _) in enumerate(_encoders):
        if k is kind:
            _encoders[i] = (kind, fn)
            return
    _encoders.append((kind, fn))


def dataclass_value(obj):
    """An instance of a dataclass (an options object), which has no tag of its own: a dict whose
    members are "__dataclass__", the class by its qualified name, and "fields", its init fields.
    decode() rebuilds it by calling the class, and only a dataclass, with those fields."""
    fields = {f.name: encode(getattr(obj, f.name)) for f in dataclasses.fields(obj) if f.init}
    return {"dict": {"__dataclass__": {"callable": qualified_name(type(obj))}, "fields": {"dict": fields}}}


def object_value(class_name, config):
    """An object that its class rebuilds from a configuration (an initializer, a regularizer, a layer
    held by another layer), which has no tag of its own: a dict whose members are "__object__", the
    class by its qualified name, and "config", the tagged configuration (a dict of tagged values).
    decode() rebuilds it with the class's from_config(config), and only for a class that has one."""
    return {"dict": {"__object__": {"callable": class_name}, "config": config}}


def is_object_value(body):
    """Whether the body of a {"dict": ...} value is an object_value()."""
    return (sorted(body) == ["__object__", "config"] and "callable" in body["__object__"]
            and "dict" in body["config"])


def first_opaque(value):
    """The text of the first opaque value inside a tagged value (or a dict or list of them), or None."""
    if isinstance(value, dict):
        if len(value) == 1:
            if "opaque" in value:
                return value["opaque"]
            body = value.get("tensor")
            if isinstance(body, dict) and "shape" in body and "dtype" in body:
                return None  # a tensor's body holds numbers (thousands of them), never a value
        items = value.values()
    elif isinstance(value, list):
        items = value
    else:
        return None
    for v in items:
        # only a dict or a list can hold an opaque value: the numbers of a kept tensor's values
        # are passed over without a call each
        if isinstance(v, (dict, list)):
            found = first_opaque(v)
            if found is not None:
                return found
    return None


def slice_value(s):
    """A Python slice, which has no tag of its own: a dict whose one member is "__slice__", holding
    (start, stop, step). decode() turns it back into a slice."""
    return {"dict": {"__slice__": {"tuple": [encode(s.start), encode(s.stop), encode(s.step)]}}}


def encode(value):
    """Encode any value with its type tag; what has no tag of its own becomes {"opaque": repr}."""
    if value is None:
        return {"none": None}
    if isinstance(value, (bool, np.bool_)):
        return {"bool": bool(value)}
    if isinstance(value, (int, np.integer)):
        return encode_int(value)
    if isinstance(value, (float, np.floating)):
        return encode_float(value)
    if isinstance(value, str):
        return {"str": value}
    for kind, fn in _encoders:  # before the generic sequences: a library's types may subclass tuple
        if isinstance(value, kind):
            return fn(value)
    if isinstance(value, list):
        return {"list": [encode(v) for v in value]}
    if isinstance(value, tuple):
        return {"tuple": [encode(v) for v in value]}
    if isinstance(value, dict) and all(isinstance(k, str) for k in value):
        return {"dict": {k: encode(v) for k, v in value.items()}}
    if isinstance(value, np.dtype) or (isinstance(value, type) and issubclass(value, np.generic)):
        return {"dtype": dtype_name(value)}
    if isinstance(value, np.ndarray):
        try:
            return tensor(value)
        except (ValueError, UnicodeDecodeError):
            return {"opaque": repr(value)}
    if isinstance(value, slice):
        return slice_value(value)
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return dataclass_value(value)
    if value is Ellipsis:
        return {"callable": "builtins.Ellipsis"}
    if callable(value):
        name = qualified_name(value)
        # a lambda or a function local to another is not reachable by its name
        if name is not None and "<" not in name:
            return {"callable": name}
    return {"opaque": _short_repr(value)}


def _short_repr(value, limit=200):
    """repr() for an opaque value, on one line and cut short: an opaque value is there to be read."""
    try:
        text = " ".join(repr(value).split())
    except Exception as e:  # a repr that fails tells as much as any
        text = f"<{type(value).__name__}: repr failed: {type(e).__name__}>"
    return text if len(text) <= limit else text[:limit - 3] + "..."


# --- decoding -----------------------------------------------------------------------------------------

def decode_float(f):
    return float(f)  # float("nan"), float("inf") and float("-inf") read the record's spellings


def decode_int(i):
    return int(i)  # a big integer arrives as a decimal string


def tensor_array(t, fill=None):
    """The numpy array a tagged tensor's body stands for.

    Kept values are rebuilt exactly. A tensor without values needs fill(dtype_name, shape, range) to
    make some (range is [lo, hi] or None); without fill it cannot be rebuilt."""
    name = t["dtype"]
    dtype = dtype_from_name(name)
    shape = t["shape"]
    if "values" not in t:
        if fill is None:
            raise Unmigratable(f"a {name} tensor of shape {shape} without values")
        return fill(name, shape, t.get("range"))
    category = dtype_category(name)
    values = t["values"]
    if category == "float":
        values = [decode_float(v) for v in values]
    elif category == "int":
        values = [decode_int(v) for v in values]
    if any(d is None for d in shape):
        raise Unmigratable(f"tensor values with an unknown dimension in shape {shape}")
    if category == "string":
        array = np.empty(len(values), dtype=object)
        array[:] = values
    else:
        # Into a type that holds the record's numbers exactly, then one conversion to the dtype (for
        # float32 the double nearest the decimal rounded once more): the same steps whatever the dtype.
        wide = {"float": np.float64, "int": object, "bool": bool}.get(category)
        array = np.array(values, dtype=wide).astype(dtype)
    return array.reshape(shape)


# The names a record may use for a callable (an operator passed as an argument, an options dataclass,
# a class rebuilt from its configuration, a constant such as a memory format): name -> object. A
# library's template fills it (allow()) with what it enumerated from the library's public API; nothing
# outside it is ever reachable from a record. Ellipsis is the one Python value records name.
_allowed = {"builtins.Ellipsis": Ellipsis}


def allow(table):
    """Let resolve_callable() find the objects of table (name -> object): a template's allow-list,
    enumerated once from its library's public namespaces, never from a record."""
    _allowed.update(table)


def resolve_callable(name):
    """The object a name denotes in the allow-list: a dictionary lookup, never an import nor a walk
    through attributes (from a loaded module "torch.os.system" would reach a shell)."""
    found = _allowed.get(name) if isinstance(name, str) else None
    if found is None:
        raise Unmigratable(f"{_short_repr(name)} is not an operator or value ferry allows")
    return found


def decode(value, fill=None, convert=None):
    """Rebuild a live value from a tagged value. Tensors become numpy arrays (fill as in
    tensor_array), dtypes numpy dtypes, graphs Graph objects; opaque values raise Unmigratable.
    convert maps tags to functions of the tag's body that replace the default for that tag at every
    depth (a library's template makes its own tensors and dtypes: {"dtype": torch_dtype, ...})."""
    (tag, body), = value.items()
    if convert and tag in convert:
        return convert[tag](body)
    if tag == "none":
        return None
    if tag in ("bool", "str"):
        return body
    if tag == "int":
        return decode_int(body)
    if tag == "float":
        return decode_float(body)
    if tag == "list":
        return [decode(v, fill, convert) for v in body]
    if tag == "tuple":
        return tuple(decode(v, fill, convert) for v in body)
    if tag == "dict":
        if list(body) == ["__slice__"]:
            return slice(*decode(body["__slice__"], fill, convert))
        if sorted(body) == ["__dataclass__", "fields"] and "callable" in body["__dataclass__"]:
            cls = resolve_callable(body["__dataclass__"]["callable"])
            if not (isinstance(cls, type) and dataclasses.is_dataclass(cls)):
                raise Unmigratable(f"{body['__dataclass__']['callable']!r} is not a dataclass")
            return cls(**decode(body["fields"], fill, convert))
        if is_object_value(body):
            cls = resolve_callable(body["__object__"]["callable"])
            if not (isinstance(cls, type) and callable(getattr(cls, "from_config", None))):
                raise Unmigratable(f"{body['__object__']['callable']!r} is not a class with from_config")
            return cls.from_config(decode(body["config"], fill, convert))
        return {k: decode(v, fill, convert) for k, v in body.items()}
    if tag == "dtype":
        return dtype_from_name(body)
    if tag == "tensor":
        return tensor_array(body, fill)
    if tag == "graph":
        return Graph(body["format"], base64.b64decode(body["data"]))
    if tag == "callable":
        return resolve_callable(body)
    if tag == "opaque":
        raise Unmigratable(f"opaque value {body}")
    raise ValueError(f"unknown value tag {tag!r}")
