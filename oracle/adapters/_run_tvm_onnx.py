"""ferry.oracle.adapters._run_tvm_onnx: TVM Relax's ONNX frontend as ferry runs it, the frontend
module of the tvm-onnx adapter: a reproducer inlines it whole (ferry/oracle/reproducer.py), after the
ONNX runtime and the narrow dtypes' module (_narrow.py), so it imports only numpy, onnx and tvm;
tvm_onnx_reproduce() is what a reproducer calls.

relax.frontend.onnx.from_onnx converts the model (its initializers as constants), tvm.compile builds it
for llvm and the Relax VM runs main. TVM 0.27 takes and gives ml_dtypes arrays for bfloat16, the float8s
and float4 (found by running it); an output is read as the dtype the model declares all the same.
"""

import os

os.environ.setdefault("TVM_NUM_THREADS", "1")  # before tvm starts its thread pool

import numpy as np  # noqa: E402
import onnx  # noqa: E402
import tvm  # noqa: E402
from tvm import relax  # noqa: E402
from tvm.relax.frontend.onnx import from_onnx  # noqa: E402

if __name__ != "__main__":  # in ferry; a reproducer has these inlined above this module
    from ferry.oracle.adapters._narrow import NARROW_BY_ELEMENT, narrow_as_declared


def tvm_onnx_compile(model_bytes):
    """The Relax VM running the model, built for llvm on the CPU, and each graph output's ml_dtypes
    name (or None) and whether it is a sequence."""
    model = onnx.load_model_from_string(model_bytes)
    declared = [(NARROW_BY_ELEMENT.get(o.type.tensor_type.elem_type), o.type.HasField("sequence_type"))
                for o in model.graph.output]
    mod = from_onnx(model)
    executable = tvm.compile(mod, target="llvm")
    return relax.VirtualMachine(executable, tvm.cpu()), declared


def tvm_onnx_run(compiled, inputs):
    """Run on inputs (name -> array, in graph input order); the outputs in graph output order, each a
    numpy array (a list of them for a sequence output). main returns the one output itself, or a tuple
    of them; a sequence is a tuple of tensors; a shape the graph computed (Shape's output) is read as
    the int64 tensor ONNX's Shape gives."""
    vm, declared = compiled
    # np.asarray, not np.ascontiguousarray: that one makes a scalar a 1-d array
    result = vm["main"](*[tvm.runtime.tensor(np.asarray(v, order="C")) for v in inputs.values()])

    def tuple_like(v):
        return isinstance(v, (list, tuple)) or type(v).__name__ in ("Array", "ADT", "Tuple")

    def array(v, narrow):
        if type(v).__name__ in ("Shape", "ShapeTuple"):
            return np.array(list(v), dtype=np.int64)
        value = v.numpy()
        return narrow_as_declared(value, narrow) if narrow else value

    items = list(result) if len(declared) != 1 and tuple_like(result) else [result]
    outputs = []
    for k, item in enumerate(items):
        narrow, sequence = declared[k] if k < len(declared) else (None, False)
        # a sequence as TVM gave it: a tuple of tensors (anything else is compared as it came)
        outputs.append([array(x, narrow) for x in item] if sequence and tuple_like(item) else array(item, narrow))
    return outputs


def tvm_onnx_reproduce(model_bytes, inputs):
    """The outputs of TVM's ONNX frontend on the model (bytes) and inputs, as ferry ran it."""
    return tvm_onnx_run(tvm_onnx_compile(model_bytes), inputs)
