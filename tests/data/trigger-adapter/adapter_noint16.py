"""A fault-injecting adapter for tests/cli/go-triggers.sh: ONNX Runtime, except that its compile
stage raises for a model with an int16 input (a frontend bug of one dtype), so that ferry go's trigger
stage has a bug whose trigger is known: another dtype of the same test passes. Never a stand-in for a
real frontend's results: on every other model it is ONNX Runtime itself."""
import onnx
import onnxruntime

if __name__ != "__main__":
    from ferry.oracle.adapters._run_ort import ort_run, ort_session

NAME = "noint16"
LIBRARY = "onnx"
FORMAT = "onnx"
PACKAGE = "onnxruntime"
SUMMARY = "ONNX Runtime that fails every model with an int16 input"


def version():
    return onnxruntime.__version__


def load(testdir):
    with open(testdir + "/model.onnx", "rb") as f:
        return f.read()


def compile(loaded):
    model = onnx.load_from_string(loaded)
    for i in model.graph.input:
        if i.type.tensor_type.elem_type == onnx.TensorProto.INT16:
            raise RuntimeError("noint16: int16 inputs are not handled (injected fault)")
    return ort_session(loaded)


def execute(compiled, inputs):
    return ort_run(compiled, inputs)
