"""ferry.oracle.adapters._run_tvm_tflite: TVM's Relax frontend for TensorFlow Lite as ferry runs it,
the frontend module of the tvm-tflite adapter: a reproducer inlines it whole
(ferry/oracle/reproducer.py), after the Keras runtime, so it imports only numpy, tflite, tvm and, in
ferry (below), the runtime's names; tvm_reproduce() is what a reproducer calls. In ferry, TensorFlow is
imported first (the adapter).
"""

import os
import tempfile

os.environ.setdefault("TVM_NUM_THREADS", "1")  # before tvm starts its thread pool

import numpy as np  # noqa: E402
import tflite  # noqa: E402
import tvm  # noqa: E402
from tvm import relax  # noqa: E402
from tvm.relax.frontend.tflite import from_tflite  # noqa: E402

if __name__ != "__main__":  # in ferry; a reproducer has the runtime inlined above this module
    from ferry.templates.runtime_keras import ferry_export, ferry_tflite


def tvm_compile(flatbuffer, inputs):
    """(VM, input order, output order) for a TFLite flatbuffer: the graph converted by Relax's
    TFLite frontend with the shapes and dtypes of inputs (a list, input K is in_K), built for llvm.
    The orders say which in_K each graph input is and which output_K each graph output is."""
    model = tflite.Model.GetRootAsModel(flatbuffer, 0)
    graph = model.Subgraphs(0)
    names = {}  # tensor index -> signature name
    for s in range(model.SignatureDefsLength()):
        sig = model.SignatureDefs(s)
        for get, count in ((sig.Inputs, sig.InputsLength()), (sig.Outputs, sig.OutputsLength())):
            for j in range(count):
                names[get(j).TensorIndex()] = get(j).Name().decode()

    def position(tensor, prefix, k):
        import re
        name = names.get(tensor) or graph.Tensors(tensor).Name().decode()
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


def tvm_reproduce(model, inputs):
    """The Keras model exported, converted for TFLite, then converted by TVM, built and run on inputs."""
    return tvm_run(tvm_compile(ferry_tflite(ferry_export(model, inputs, tempfile.mkdtemp())), inputs), inputs)
