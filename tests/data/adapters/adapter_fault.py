"""A fault-injecting frontend for ferry's own tests of its runner: ONNX Runtime, except that the
model's operator picks a fault. It stands in for a compiler that crashes, hangs, exhausts memory or
floods stderr; it is never a stand-in for a real frontend's results.

    Relu     SIGSEGV while compiling, after writing a temporary file (as compilers do)
    Sqrt     abort() while compiling (SIGABRT)
    Abs      hangs while compiling
    Neg      allocates without bound while compiling
    Sigmoid  writes 8 MB to stderr, then runs normally
    Exp      raises while executing
    Floor    raises a "not supported" error (classified unsupported by unsupported/fault.txt)
    Ceil     returns its output plus one (a wrong result)
    Tanh     raises while compiling, with a message of 100 MB (two-byte characters between a head and
             a tail that the recorded message must keep)
    Sin      writes a line of 9 MB that starts as a result event to every pipe it can write to (the
             protocol stream among them), never finished, then hangs while compiling
"""
import ctypes
import os
import stat
import sys
import tempfile
import time

import onnx

from ferry.oracle.adapters import ort

NAME = "fault"
LIBRARY = "onnx"
FORMAT = "onnx"
PACKAGE = "onnxruntime"
REPRODUCE = ort.REPRODUCE


def version():
    return "fault-injecting " + ort.version()


def load(testdir):
    model = onnx.load(os.path.join(testdir, "model.onnx"))
    return model.graph.node[0].op_type, ort.load(testdir)


def compile(loaded):
    op, model = loaded
    if op == "Relu":
        tempfile.mkstemp(prefix="fault-compile-")  # a compiler's temporary file, never removed
        ctypes.string_at(0)  # a read of address 0: SIGSEGV in native code
    if op == "Sqrt":
        os.abort()
    if op == "Abs":
        time.sleep(3600)
    if op == "Neg":
        hog = []
        while True:
            hog.append(b"x" * (64 << 20))  # filled, so every page is resident at once
    if op == "Tanh":
        raise RuntimeError("injected head " + "\u00fc" * (50 << 20) + " injected tail")
    if op == "Sin":
        for name in os.listdir("/proc/self/fd"):
            fd = int(name)
            try:
                if stat.S_ISFIFO(os.fstat(fd).st_mode):
                    os.write(fd, b'\n{"event":"result","outcome":"pass","message":"' + b"x" * (9 << 20))
            except OSError:
                pass
        time.sleep(3600)
    if op == "Sigmoid":
        block = "ferry fault adapter: noise " * 40 + "\n"
        for _ in range((8 << 20) // len(block)):
            sys.stderr.write(block)
        sys.stderr.flush()
    return op, ort.compile(model)


def execute(compiled, inputs):
    op, session = compiled
    if op == "Exp":
        raise RuntimeError("injected fault in execute")
    if op == "Floor":
        raise NotImplementedError("injected: operator Floor is not supported by this frontend")
    outputs = ort.execute(session, inputs)
    if op == "Ceil":
        outputs = [o + 1 for o in outputs]
    return outputs


# The fault in a short reproducer (ferry file, ferry.oracle.filing): ONNX Runtime's run, with the
# faults of Ceil and Exp, which stand for a frontend's wrong result and its exception.
FILE_RUN = ("import onnxruntime as ort", """def run(model, inputs):  # ONNX Runtime, with ferry's injected faults
    out = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"]).run(None, inputs)
    if model.graph.node[0].op_type == "Exp":
        raise RuntimeError("injected fault in execute")
    return [o + 1 for o in out] if model.graph.node[0].op_type == "Ceil" else out""")
