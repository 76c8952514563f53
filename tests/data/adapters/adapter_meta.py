"""A fault-injecting frontend for ferry's tests of its metamorphic oracle (tests/integration/metamorphic.sh):
ONNX Runtime, except on mutated models, which it recognises by their nodes' names (ferry_m<K>_...,
oracle/metamorphic.py), as FERRY_META_FAULT says:

    pair:A,B     the outputs one too large where the nodes of mutations A and B are both present:
                 a wrong result that needs exactly those two mutations (and what they depend on)
    pair:A,B:segv
                 the same, and a segfault in compile where A is present without B: only reduction
                 ever builds that model, so the reduction dies and the run goes on
    crash        an exception in compile for any mutated model: a crash of m' alone

It stands in for a compiler that miscompiles or crashes; it is never a stand-in for a real frontend's
results.
"""
import ctypes
import os

import onnx
import onnxruntime

if __name__ != "__main__":  # a reproducer pastes this file whole after the frontend module it names
    from ferry.oracle.adapters._run_ort import ort_run, ort_session

NAME = "meta"
LIBRARY = "onnx"
FORMAT = "onnx"
PACKAGE = "onnxruntime"


def version():
    return "metamorphic-fault " + onnxruntime.__version__


def load(testdir):
    with open(os.path.join(testdir, "model.onnx"), "rb") as f:
        return f.read()


def compile(loaded):
    model = onnx.load_from_string(loaded)
    present = {n.name.split("_")[1] for n in model.graph.node if n.name.startswith("ferry_m")}
    fault = os.environ.get("FERRY_META_FAULT", "")
    wrong = False
    if fault == "crash" and present:
        raise RuntimeError("injected: the mutated model does not compile")
    if fault.startswith("pair:"):
        parts = fault.split(":")
        a, b = (f"m{x}" for x in parts[1].split(","))
        wrong = a in present and b in present
        if len(parts) > 2 and parts[2] == "segv" and a in present and b not in present:
            ctypes.string_at(0)  # a read of address 0: SIGSEGV in native code
    return wrong, ort_session(loaded)


def execute(compiled, inputs):
    wrong, session = compiled
    outputs = ort_run(session, inputs)
    return [o + 1 for o in outputs] if wrong else outputs


def reproduce(model_bytes, inputs):
    return execute(compile(model_bytes), inputs)


REPRODUCE = reproduce
