"""ferry.oracle.adapters._run_openvino_onnx: OpenVINO's ONNX frontend as ferry runs it, the frontend
module of the openvino-onnx adapter: a reproducer inlines it whole (ferry/oracle/reproducer.py), after
the ONNX runtime and the narrow dtypes' module (_narrow.py), so it imports only numpy, onnx and openvino;
ov_onnx_reproduce() is what a reproducer calls.

Core.read_model parses the ONNX bytes with the ONNX frontend (the path a user's model.onnx takes, and
convert_model's for a file); the model is compiled for the CPU in f32 (OpenVINO would otherwise pick
bf16 on CPUs that have it, and a lower precision is not a conversion bug), one thread.
Narrow tensors (found by running 2026.4): an input goes in as an ov.Tensor of its element type, whose
.data is a view of the raw bits (bf16 as float16, f8 as uint8, i4/u4/f4 packed as int8/uint8); an
output comes back as the same raw bits, and is read as the dtype the model declares for it.
"""

import numpy as np
import onnx

# OpenVINO 2023.1 put the runtime's classes at the package's top level; 2023.0 has them in
# openvino.runtime only.
try:
    from openvino import Core, Tensor, Type
except ImportError:
    from openvino.runtime import Core, Tensor, Type

if __name__ != "__main__":  # in ferry; a reproducer has these inlined above this module
    from ferry.oracle.adapters._narrow import NARROW_BY_ELEMENT, narrow_as_declared, narrow_name, narrow_to_bits

# ml_dtypes name: OpenVINO's element type name (where this release has it)
_OV_NARROW = {"bfloat16": "bf16", "float8_e4m3fn": "f8e4m3", "float8_e5m2": "f8e5m2", "float8_e8m0fnu": "f8e8m0",
              "int4": "i4", "uint4": "u4", "float4_e2m1fn": "f4e2m1", "uint2": "u2"}


_OV_ONNX_CORE = []


def _ov_onnx_core():
    """One Core per process: a new one loads the CPU plugin again (about 14 ms a test)."""
    if not _OV_ONNX_CORE:
        _OV_ONNX_CORE.append(Core())
    return _OV_ONNX_CORE[0]


def ov_onnx_compile(model_bytes):
    """The compiled model, the graph input (its position) that each of its inputs is, and the ml_dtypes
    name (or None) each graph output declares.

    OpenVINO's model has one Parameter per graph input, in order, but not always under its name (the
    ONNX frontend renames a Parameter that an identity such as inference-mode Dropout passes through to
    the output's name), and compiling drops a Parameter nothing uses and may rename one (an identity
    Einsum's takes the output's name, keeping the input's among its tensor names). So each compiled
    input is traced back to its Parameter, by a tensor name they share, else by the node's name, and
    fed by position."""
    declared = [NARROW_BY_ELEMENT.get(o.type.tensor_type.elem_type) for o in
                onnx.load_model_from_string(model_bytes).graph.output]
    core = _ov_onnx_core()
    model = core.read_model(model=model_bytes, weights=b"")
    parameters = [(set(port.get_names()), port.get_node().get_friendly_name()) for port in model.inputs]
    compiled = core.compile_model(model, "CPU", {"INFERENCE_PRECISION_HINT": "f32", "INFERENCE_NUM_THREADS": "1"})
    order = []
    for port in compiled.inputs:
        names, node = set(port.get_names()), port.get_node().get_friendly_name()
        found = [k for k, (n, _) in enumerate(parameters) if n & names] or \
            [k for k, (_, f) in enumerate(parameters) if f == node]
        if len(found) != 1:
            raise RuntimeError(f"ferry: cannot tell which graph input the compiled model's input {node} is")
        order.append(found[0])
    return compiled, order, declared


def _feed(value):
    name = narrow_name(value.dtype) if isinstance(value, np.ndarray) else None
    if name is None:
        return value
    ov_type = getattr(Type, _OV_NARROW.get(name, ""), None)
    if ov_type is None:  # no such element type in OpenVINO: its own error says so
        raise TypeError(f"ferry: cannot feed {name}: this OpenVINO has no element type for it")
    tensor = Tensor(ov_type, list(value.shape))
    data = tensor.data
    np.copyto(data, narrow_to_bits(value).view(data.dtype).reshape(data.shape))
    return tensor


def ov_onnx_run(compiled, inputs):
    """Run on inputs (name -> array, in graph input order); the outputs as numpy arrays, in order."""
    compiled, order, declared = compiled
    request = compiled.create_infer_request()
    values = list(inputs.values())
    request.infer({k: _feed(values[position]) for k, position in enumerate(order)})
    outputs = []
    for k in range(len(compiled.outputs)):
        tensor = request.get_output_tensor(k)
        array = np.array(tensor.data, copy=True)
        if declared[k] is not None:
            array = narrow_as_declared(array, declared[k], tuple(tensor.shape))
        outputs.append(array)
    return outputs


def ov_onnx_reproduce(model_bytes, inputs):
    """The outputs of OpenVINO's ONNX frontend on the model (bytes) and inputs, as ferry ran it."""
    return ov_onnx_run(ov_onnx_compile(model_bytes), inputs)
