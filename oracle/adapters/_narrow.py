"""ferry.oracle.adapters._narrow: the narrow dtypes (bfloat16, the float8s, float4, int4/uint4,
int2/uint2, ...) between ferry and a frontend, the one place where they are converted.

Ferry holds a tensor of a narrow dtype as an ml_dtypes array (one element per byte, or per two bytes
for bfloat16). Frontends take and give them in other forms, found by running them (a Cast to each type,
and an Identity of it):
    ONNX Runtime 1.31   OrtValues over the raw bits (to_bits/from_bits); float8e4m3fn as uint8 bits
    OpenVINO 2026.4     an ov.Tensor whose .data is the raw bits: bf16 as float16 (the same 16 bits),
                        f8e4m3, f8e5m2, f8e8m0 as uint8, i4 as int8 and u4, f4e2m1 as uint8, packed two
                        to a byte, first element in the low nibble
    TVM 0.27, IREE 3.13 ml_dtypes arrays both ways, where they have the type at all
ONNX packs sub-byte elements into bytes, first element in the lowest bits; ml_dtypes keeps one per
byte, as its low bits. narrow_as_declared() turns whatever a frontend handed back for an output into
the dtype the model declares for it (the reference's). Every name begins narrow_ or NARROW_: a
reproducer pastes this module into one namespace with the others.

A frontend module that needs these (_run_ort.py, _run_openvino_onnx.py, ...) imports them in its ferry
statement; a reproducer pastes this module whole above it, so it imports only numpy and ml_dtypes.
"""

import ml_dtypes
import numpy as np

# ml_dtypes name: (ONNX TensorProto element type, bits per element)
NARROW_TYPES = {
    "bfloat16": (16, 16),
    "float8_e4m3fn": (17, 8),
    "float8_e4m3fnuz": (18, 8),
    "float8_e5m2": (19, 8),
    "float8_e5m2fnuz": (20, 8),
    "uint4": (21, 4),
    "int4": (22, 4),
    "float4_e2m1fn": (23, 4),
    "float8_e8m0fnu": (24, 8),
    "uint2": (25, 2),
    "int2": (26, 2),
}
NARROW_BY_ELEMENT = {element: name for name, (element, _) in NARROW_TYPES.items()}


def narrow_name(dtype):
    """The ml_dtypes name of a dtype (a numpy dtype or a name) that is narrow, else None."""
    name = dtype if isinstance(dtype, str) else np.dtype(dtype).name
    return name if name in NARROW_TYPES else None


def narrow_ml_dtype(name):
    """The numpy dtype of ml_dtypes' type name."""
    return np.dtype(getattr(ml_dtypes, name))


def narrow_nbytes(name, count):
    """How many bytes count elements of the type take packed, as ONNX (and the frontends) store them."""
    bits = NARROW_TYPES[name][1]
    return (count * bits + 7) // 8


def narrow_to_bits(array):
    """The raw bits of an ml_dtypes array, flat: uint16 for bfloat16, else uint8, sub-byte elements
    packed (first element in the lowest bits of the first byte)."""
    name = narrow_name(array.dtype)
    bits = NARROW_TYPES[name][1]
    raw = np.ascontiguousarray(array).reshape(-1).view(np.uint16 if bits == 16 else np.uint8)
    if bits >= 8:
        return raw
    per_byte = 8 // bits
    padded = np.append(raw & ((1 << bits) - 1), np.zeros(-raw.size % per_byte, np.uint8))
    lanes = padded.reshape(-1, per_byte).astype(np.uint8)
    return np.bitwise_or.reduce(lanes << (bits * np.arange(per_byte, dtype=np.uint8)), axis=1).astype(np.uint8)


def narrow_from_bits(raw, name, shape):
    """The ml_dtypes array of type name and shape whose raw bits (packed as to_bits gives them) are
    the bytes of raw (any array or bytes object)."""
    bits = NARROW_TYPES[name][1]
    count = int(np.prod(shape, dtype=np.int64))
    data = np.frombuffer(raw if isinstance(raw, (bytes, bytearray)) else np.ascontiguousarray(raw).tobytes(),
                         np.uint8)
    if len(data) < narrow_nbytes(name, count):
        raise ValueError(f"{len(data)} bytes cannot hold {count} elements of {name}")
    if bits == 16:
        data = data[:2 * count].view(np.uint16)
    elif bits < 8:
        shifts = bits * np.arange(8 // bits, dtype=np.uint8)
        data = ((data[:, None] >> shifts) & ((1 << bits) - 1)).reshape(-1)
    data = data[:count]
    return data.view(narrow_ml_dtype(name)).reshape(tuple(shape))


def narrow_as_declared(value, name, shape=None):
    """The output value a frontend handed back for a tensor the model declares of type name (an
    ml_dtypes name; anything else is returned as it is), as an ml_dtypes array of that type. shape
    is the output's shape, needed where the frontend gave packed sub-byte bits (a flat array of
    bytes); without it the value's own shape is kept. A value already of the type passes unchanged;
    a float wider or narrower than the type holds values (converted, with ml_dtypes' rounding);
    any other (float16 for bfloat16, uint8 or int8 for a float8 or a packed sub-byte type) holds the
    raw bits."""
    if name not in NARROW_TYPES:
        return value
    array = np.asarray(value)
    if array.dtype == narrow_ml_dtype(name):
        return array
    shape = tuple(array.shape if shape is None else shape)
    bits = NARROW_TYPES[name][1]
    count = int(np.prod(shape, dtype=np.int64))
    if array.dtype.kind == "f" and array.dtype.itemsize * 8 != bits:
        return array.astype(narrow_ml_dtype(name)).reshape(shape)
    if array.dtype.kind not in "biuf":
        raise TypeError(f"cannot read a {array.dtype} value as {name}")
    if bits < 8 and array.size == count and array.nbytes != narrow_nbytes(name, count):
        # one element per byte (unpacked values): ml_dtypes' own conversion of the integers
        integers = array.astype(np.int8 if name.startswith("int") else np.uint8)
        return integers.astype(narrow_ml_dtype(name)).reshape(shape)
    return narrow_from_bits(array, name, shape)
