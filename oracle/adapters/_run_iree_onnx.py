"""ferry.oracle.adapters._run_iree_onnx: IREE on ONNX as ferry runs it, the frontend module of the
iree-onnx adapter: a reproducer inlines it whole (ferry/oracle/reproducer.py), after the ONNX runtime
and the narrow dtypes' module (_narrow.py), so it imports only numpy, onnx and iree; iree_onnx_reproduce()
is what a reproducer calls.

The model is imported to MLIR (the torch dialect's onnx ops) by iree-base-compiler's ONNX importer as
iree-import-onnx does it (iree/compiler/tools/import_onnx: the checker, then shape inference with data
propagation, then the importer; the model's opset is left as it is), compiled by iree-compile for the
llvm-cpu backend with a generic target CPU and float64 kept (IREE_FLAGS), and run by
iree-base-runtime on the local-sync driver (the caller's thread, no pool). The module's function has
the graph's name. IREE 3.13 takes and gives ml_dtypes arrays for bfloat16 and the float8s (found by
running it); an output is read as the dtype the model declares all the same, and an unsigned
integer, which IREE gives back as the signed integer of its width (_UNSIGNED), too.
"""

import numpy as np
import onnx
from iree import runtime as iree_runtime
from iree.compiler import compile_str, ir
from iree.compiler.extras import onnx_importer

if __name__ != "__main__":  # in ferry; a reproducer has these inlined above this module
    from ferry.oracle.adapters._narrow import NARROW_BY_ELEMENT, narrow_as_declared

# A generic target CPU, so that results do not depend on the machine. And float64 kept: iree-compile
# demotes it to float32 by default (for targets without it), and then the function still declares its
# float64 arguments but reads them as float32 buffers, so that every float64 model fails at the call
# ("buffer view byte length 80 exceeds backing buffer byte length 40"): no test of anything.
# ONNX's unsigned integer types (TensorProto element type: numpy's name). IREE's integers are signless
# (the torch dialect's unsigned tensors become iN in linalg), and its runtime hands an iN result back as
# numpy's signed intN: the same bits, read as the type the model declares.
_UNSIGNED = {2: "uint8", 4: "uint16", 12: "uint32", 13: "uint64"}

IREE_FLAGS = ["--iree-llvmcpu-target-cpu=generic", "--iree-input-demote-f64-to-f32=false"]


def iree_onnx_import(model_bytes):
    """The model's MLIR text, as iree-import-onnx writes it."""
    model = onnx.load_model_from_string(model_bytes)
    onnx.checker.check_model(model)
    model = onnx.shape_inference.infer_shapes(model, data_prop=True)
    context = ir.Context()
    info = onnx_importer.ModelInfo(model)
    module = info.create_module(context=context).operation
    importer = onnx_importer.NodeImporter.define_function(info.main_graph, module)
    importer.import_all()
    module.verify()
    return module.get_asm(assume_verified=True)


def iree_onnx_compile(model_bytes):
    """The runtime's function for the model, compiled for llvm-cpu, and the ml_dtypes name (or None)
    each graph output declares."""
    graph = onnx.load_model_from_string(model_bytes).graph
    declared = [NARROW_BY_ELEMENT.get(o.type.tensor_type.elem_type) or _UNSIGNED.get(o.type.tensor_type.elem_type)
                for o in graph.output]
    vmfb = compile_str(iree_onnx_import(model_bytes), target_backends=["llvm-cpu"], input_type="onnx",
                       extra_args=IREE_FLAGS)
    context = iree_runtime.SystemContext(config=iree_runtime.Config("local-sync"))
    module = iree_runtime.VmModule.copy_buffer(context.instance, vmfb)
    context.add_vm_module(module)
    names = [n for n in module.function_names if not n.endswith("$async") and n != "__init"]
    if len(names) != 1:
        raise RuntimeError(f"ferry: the compiled module has functions {names}, not one for the graph")
    return context.modules[module.name][names[0]], declared


def iree_onnx_run(compiled, inputs):
    """Run on inputs (name -> array, in graph input order); the outputs as numpy arrays, in order."""
    function, declared = compiled
    # np.asarray, not np.ascontiguousarray: that one makes a scalar a 1-d array
    result = function(*[np.asarray(v, order="C") for v in inputs.values()])
    results = list(result) if isinstance(result, (list, tuple)) else [result]
    # to_host() maps the device buffer, which the DeviceArray keeps alive only as long as that one
    # array lives; a view of it (.view() below, for unsigned and narrow types) does not keep it, and
    # ASan saw the comparison read the buffer after IREE had freed it: a copy is ferry's own
    outputs = [np.array(r.to_host(), copy=True) if hasattr(r, "to_host") else np.asarray(r) for r in results]
    if len(outputs) == len(declared):
        outputs = [_as_declared(o, d) for o, d in zip(outputs, declared)]
    return outputs


def _as_declared(value, declared):
    if declared in _UNSIGNED.values():  # signless bits: only a signed integer of that width is read so
        want = np.dtype(declared)
        if value.dtype.kind == "i" and value.dtype.itemsize == want.itemsize:
            return value.view(want)
        return value
    return narrow_as_declared(value, declared) if declared else value


def iree_onnx_reproduce(model_bytes, inputs):
    """The outputs of IREE on the model (bytes) and inputs, as ferry ran it."""
    return iree_onnx_run(iree_onnx_compile(model_bytes), inputs)
