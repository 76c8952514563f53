"""tvm-tflite: TVM's Relax frontend for TensorFlow Lite on a Keras model, as a ferry frontend
(the interface is in ferry/oracle/driver.py).

The template exported the single-layer Keras model (model.export) and converted it with the TFLite
converter (model.tflite); "load" reads and parses the flatbuffer (the tflite package), "compile"
converts it with tvm.relax.frontend.tflite.from_tflite, given the inputs' shapes and dtypes, builds
it for llvm and loads it on the Relax VM, "execute" runs the VM's main. The flatbuffer's serving
signature names the inputs in_K and the outputs output_K; the graph's own order may differ, so
inputs and outputs are matched through it. A model the converter refused is unsupported here.

tvm_compile() and tvm_run() are self-contained: REPRODUCER carries their source.
"""

import inspect
import os

os.environ.setdefault("TVM_NUM_THREADS", "1")  # before tvm starts its thread pool

import numpy as np  # noqa: E402

from ferry.extract import tfload  # noqa: E402

tfload.load()  # first: TensorFlow as ferry imports it, before tflite and tvm

import tflite  # noqa: E402
import tvm  # noqa: E402
from tvm import relax  # noqa: E402
from tvm.relax.frontend.tflite import from_tflite  # noqa: E402

from ferry.templates import keras as template_keras  # noqa: E402

NAME = "tvm-tflite"
LIBRARY = "keras"
FORMAT = "tflite"
PACKAGE = "tvm"
SUMMARY = "TVM Relax from_tflite on the TFLite converter's flatbuffer, built for llvm"


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


def version():
    return tvm.__version__


def load(testdir):
    """The flatbuffer, and the test's inputs, whose shapes and dtypes from_tflite is given."""
    with open(template_keras.serialized(testdir, "tflite"), "rb") as f:
        return f.read(), template_keras.testdir_inputs(testdir)


def compile(loaded):
    flatbuffer, example = loaded
    return tvm_compile(flatbuffer, example)


def execute(compiled, inputs):
    return tvm_run(compiled, template_keras.ordered_inputs(inputs))


REPRODUCER = "\n".join([
    "import tflite",
    "import tvm",
    "from tvm import relax",
    "from tvm.relax.frontend.tflite import from_tflite",
    "",
    inspect.getsource(tvm_compile),
    inspect.getsource(tvm_run),
    "saved_model = ferry_export(model, inputs, tempfile.mkdtemp())",
    "outputs = tvm_run(tvm_compile(ferry_tflite(saved_model), inputs), inputs)",
])
