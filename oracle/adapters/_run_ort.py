"""ferry.oracle.adapters._run_ort: ONNX Runtime as ferry runs it, the frontend module of the ort
adapter (and of torch-onnx-ort's): a reproducer inlines it whole (ferry/oracle/reproducer.py), so it
imports only numpy and onnxruntime, and ort_reproduce() is what a reproducer calls.
"""

import numpy as np
import onnxruntime


def ort_session(model_bytes):
    """A CPU session with every graph optimisation, one thread, and logging down to fatal errors
    (every error that matters comes back as an exception; warnings would flood a worker's stderr)."""
    options = onnxruntime.SessionOptions()
    options.graph_optimization_level = onnxruntime.GraphOptimizationLevel.ORT_ENABLE_ALL
    options.intra_op_num_threads = 1
    options.inter_op_num_threads = 1
    options.log_severity_level = 4
    return onnxruntime.InferenceSession(model_bytes, options, providers=["CPUExecutionProvider"])


def ort_run(session, inputs):
    """Run the session on inputs (name -> array, or list of arrays for a sequence); return the outputs.

    ONNX Runtime's Python binding takes and gives numpy arrays only for the dtypes numpy has (and
    hands float8e4m3fn back as uint8). Tensors of bfloat16, float8 and sub-byte types (ml_dtypes
    arrays) go in and come out as OrtValues over their raw bits instead. ONNX packs sub-byte elements
    into bytes, first element in the lowest bits; ml_dtypes keeps one per byte, as its low bits."""
    import ctypes

    import ml_dtypes

    narrow = {  # ONNX Runtime's type: ONNX element type, ml_dtypes name, bits per element
        "tensor(bfloat16)": (16, "bfloat16", 16),
        "tensor(float8e4m3fn)": (17, "float8_e4m3fn", 8),
        "tensor(float8e4m3fnuz)": (18, "float8_e4m3fnuz", 8),
        "tensor(float8e5m2)": (19, "float8_e5m2", 8),
        "tensor(float8e5m2fnuz)": (20, "float8_e5m2fnuz", 8),
        "tensor(uint4)": (21, "uint4", 4),
        "tensor(int4)": (22, "int4", 4),
        "tensor(float4e2m1)": (23, "float4_e2m1fn", 4),
        "tensor(float8e8m0)": (24, "float8_e8m0fnu", 8),
        "tensor(uint2)": (25, "uint2", 2),
        "tensor(int2)": (26, "int2", 2),
    }
    by_name = {name: (element, bits) for element, name, bits in narrow.values()}

    def to_ort(value):
        if not isinstance(value, np.ndarray) or value.dtype.name not in by_name:
            return value
        element, bits = by_name[value.dtype.name]
        raw = np.ascontiguousarray(value).reshape(-1).view(np.uint16 if bits == 16 else np.uint8)
        if bits < 8:
            per_byte = 8 // bits
            padded = np.append(raw & ((1 << bits) - 1), np.zeros(-raw.size % per_byte, np.uint8))
            lanes = padded.reshape(-1, per_byte).astype(np.uint8)
            raw = np.bitwise_or.reduce(lanes << (bits * np.arange(per_byte, dtype=np.uint8)), axis=1)
            raw = raw.astype(np.uint8)
        ortvalue = onnxruntime.OrtValue.ortvalue_from_shape_and_type(list(value.shape), element)
        ctypes.memmove(ortvalue.data_ptr(), raw.ctypes.data, raw.nbytes)
        return ortvalue

    def from_ort(ortvalue):
        if ortvalue.data_type() not in narrow:
            return ortvalue.numpy()
        _, name, bits = narrow[ortvalue.data_type()]
        shape = ortvalue.shape()
        raw = np.frombuffer(ctypes.string_at(ortvalue.data_ptr(), ortvalue.tensor_size_in_bytes()), np.uint8)
        if bits == 16:
            raw = raw.view(np.uint16)
        elif bits < 8:
            shifts = bits * np.arange(8 // bits, dtype=np.uint8)
            raw = ((raw[:, None] >> shifts) & ((1 << bits) - 1)).reshape(-1)[:int(np.prod(shape))]
        return raw.view(getattr(ml_dtypes, name)).reshape(shape)

    feeds = {name: to_ort(value) for name, value in inputs.items()}
    if not any(o.type in narrow for o in session.get_outputs()):
        return session.run(None, feeds)
    feeds = {name: v if isinstance(v, onnxruntime.OrtValue) else onnxruntime.OrtValue.ortvalue_from_numpy(v)
             for name, v in feeds.items()}
    return [from_ort(v) for v in session.run_with_ort_values(None, feeds)]


def ort_reproduce(model_bytes, inputs):
    """The outputs of ONNX Runtime on the model (bytes) and inputs (name -> array), as ferry ran it."""
    return ort_run(ort_session(model_bytes), inputs)
