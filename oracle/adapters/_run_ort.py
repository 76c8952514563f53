"""ferry.oracle.adapters._run_ort: ONNX Runtime as ferry runs it, the frontend module of the ort
adapter (and of torch-onnx-ort's): a reproducer inlines it whole (ferry/oracle/reproducer.py), so it
imports only numpy and onnxruntime (and, in ferry, the narrow dtypes' module
_narrow.py), and ort_reproduce() is what a reproducer calls.
"""

import numpy as np
import onnxruntime

if __name__ != "__main__":  # in ferry; a reproducer has the narrow dtypes' module inlined above this one
    from ferry.oracle.adapters._narrow import NARROW_TYPES, narrow_from_bits, narrow_name, narrow_to_bits


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
    arrays) go in and come out as OrtValues over their raw bits instead (_narrow.py converts)."""
    import ctypes

    narrow = {  # ONNX Runtime's name of each type: ml_dtypes'
        "tensor(bfloat16)": "bfloat16", "tensor(float8e4m3fn)": "float8_e4m3fn",
        "tensor(float8e4m3fnuz)": "float8_e4m3fnuz", "tensor(float8e5m2)": "float8_e5m2",
        "tensor(float8e5m2fnuz)": "float8_e5m2fnuz", "tensor(uint4)": "uint4", "tensor(int4)": "int4",
        "tensor(float4e2m1)": "float4_e2m1fn", "tensor(float8e8m0)": "float8_e8m0fnu",
        "tensor(uint2)": "uint2", "tensor(int2)": "int2",
    }

    def to_ort(value):
        if not isinstance(value, np.ndarray) or narrow_name(value.dtype) is None:
            return value
        raw = narrow_to_bits(value)
        ortvalue = onnxruntime.OrtValue.ortvalue_from_shape_and_type(list(value.shape),
                                                                     NARROW_TYPES[value.dtype.name][0])
        ctypes.memmove(ortvalue.data_ptr(), raw.ctypes.data, raw.nbytes)
        return ortvalue

    def from_ort(ortvalue):
        if ortvalue.data_type() not in narrow:
            return ortvalue.numpy()
        raw = ctypes.string_at(ortvalue.data_ptr(), ortvalue.tensor_size_in_bytes())
        return narrow_from_bits(raw, narrow[ortvalue.data_type()], ortvalue.shape())

    feeds = {name: to_ort(value) for name, value in inputs.items()}
    if not any(o.type in narrow for o in session.get_outputs()):
        return session.run(None, feeds)
    feeds = {name: v if isinstance(v, onnxruntime.OrtValue) else onnxruntime.OrtValue.ortvalue_from_numpy(v)
             for name, v in feeds.items()}
    return [from_ort(v) for v in session.run_with_ort_values(None, feeds)]


def ort_reproduce(model_bytes, inputs):
    """The outputs of ONNX Runtime on the model (bytes) and inputs (name -> array), as ferry ran it."""
    return ort_run(ort_session(model_bytes), inputs)
