"""ferry.oracle.adapters._tvm_tflite: TVM's Relax frontend for TensorFlow Lite on a flatbuffer, what
the frontend modules of tvm-tflite (a Keras 3 model's flatbuffer) and tvm-tflite-tf-keras (a Keras 2
model's) share. It imports only numpy, tflite and tvm: a reproducer pastes it whole above the frontend
module that names it in its ferry statement.
"""

import os
import re

os.environ.setdefault("TVM_NUM_THREADS", "1")  # before tvm starts its thread pool

import numpy as np  # noqa: E402
import tflite  # noqa: E402
import tvm  # noqa: E402
from tvm import relax  # noqa: E402
from tvm.relax.frontend.tflite import from_tflite  # noqa: E402


def tvm_compile(flatbuffer, inputs, out_names=None):
    """(VM, input order, output order) for a TFLite flatbuffer: the graph converted by Relax's
    TFLite frontend with the shapes and dtypes of inputs (a list, input K is in_K), built for llvm.
    The orders say which in_K each graph input is and which output K each graph output is: output K
    is the signature's output_K, or out_names[K] where given (a Keras 2 model's output names, which
    its converter signs the outputs with, in an order of the graph's own)."""
    model = tflite.Model.GetRootAsModel(flatbuffer, 0)
    graph = model.Subgraphs(0)
    names = {}  # tensor index -> signature name
    for s in range(model.SignatureDefsLength()):
        sig = model.SignatureDefs(s)
        for get, count in ((sig.Inputs, sig.InputsLength()), (sig.Outputs, sig.OutputsLength())):
            for j in range(count):
                names[get(j).TensorIndex()] = get(j).Name().decode()

    def position(tensor, prefix, k):
        name = names.get(tensor) or graph.Tensors(tensor).Name().decode()
        if prefix == "output_" and out_names and name in out_names:
            return out_names.index(name)
        found = re.search(prefix + r"([0-9]+)", name)
        return int(found.group(1)) if found else k

    in_order = [position(graph.Inputs(j), "in_", j) for j in range(graph.InputsLength())]
    out_order = [position(graph.Outputs(j), "output_", j) for j in range(graph.OutputsLength())]
    tensor_names = [graph.Tensors(graph.Inputs(j)).Name().decode() for j in range(graph.InputsLength())]
    shapes = {n: tuple(inputs[k].shape) for n, k in zip(tensor_names, in_order)}
    dtypes = {n: ("string" if inputs[k].dtype.kind in "OUS" else str(inputs[k].dtype))
              for n, k in zip(tensor_names, in_order)}
    mod = from_tflite(model, shape_dict=shapes, dtype_dict=dtypes)
    executable = tvm.compile(mod, target="llvm")
    return relax.VirtualMachine(executable, tvm.cpu()), in_order, out_order


def tvm_run(compiled, inputs):
    """Run on a list of numpy arrays (input K is in_K); the outputs in output_K order."""
    vm, in_order, out_order = compiled
    result = vm["main"](*[tvm.runtime.tensor(np.ascontiguousarray(inputs[k])) for k in in_order])

    def flat(v):
        if isinstance(v, (list, tuple)) or type(v).__name__ in ("Array", "ADT", "Tuple"):
            return [x for item in v for x in flat(item)]
        return [v.numpy()]
    values = flat(result)
    out = [None] * len(values)
    for j, value in enumerate(values):
        out[out_order[j] if j < len(out_order) and out_order[j] < len(values) else j] = value
    return out
