"""A hostile frontend for ferry's own tests of its runner: ONNX Runtime, except that the model's
operator picks a way to misbehave towards the worker process itself (where adapter_fault.py crashes
and hangs like a compiler, this one attacks the worker's streams, process tree and exit). It is
never a stand-in for a real frontend's results.

    Tanh       writes garbage to stdout, to fd 1 and to every pipe it can write to (the protocol
               stream among them), with and without newlines, a line of 9 MB among them, in
               load, compile and execute; then runs normally
    Sin        closes every descriptor (os.closerange(0, 1024)) in compile, then returns
    Selu       closes every descriptor above stderr in compile, then hangs
    Cos        forks a child that calls setsid() and sleeps forever, writing its pid to
               $HOSTILE_PIDS/Cos; then runs normally (the worker lives on)
    Log        double-forks a daemon (setsid) that writes to stderr forever, pid in
               $HOSTILE_PIDS/Log; then runs normally
    Reciprocal stops itself with SIGSTOP in compile
    Softsign   sys.exit(0) in load
    Sign       sys.exit(3) in execute
    Erf        os._exit(0) in compile
    Identity   sends itself SIGTERM in execute
    Softplus   forks a child that kills its parent's process group with SIGKILL, in compile
    Atan       answers, then exits (status 0) at the start of the next request, before reading
               it: the worker's stdin is swapped for a pipe held open by a child, which waits for
               the real stdin to hold a request and then exits, so that the worker reads end of file
               (a thread could not do it: the worker holds the GIL while it waits for a request)

With HOSTILE_UNTAKEN=1 in the environment, every worker does what Atan does as soon as it has
imported this module: it says it is ready, and exits at its first request, before taking it.
"""
import os
import select
import signal
import stat
import sys
import time

import onnx

from ferry.oracle.adapters import ort

NAME = "hostile"
LIBRARY = "onnx"
FORMAT = "onnx"
PACKAGE = "onnxruntime"
REPRODUCE = ort.REPRODUCE


def version():
    return "hostile " + ort.version()


def _garbage(where):
    print(f"hostile adapter: print() in {where}")
    sys.stdout.flush()
    os.write(1, f"hostile adapter: raw write to fd 1 in {where}, no newline \x00\xff".encode("latin-1"))
    for name in os.listdir("/proc/self/fd"):
        fd = int(name)
        try:
            if not stat.S_ISFIFO(os.fstat(fd).st_mode):
                continue
            os.write(fd, b'\xff\x00 garbage {"event": "resu')  # an unfinished line
            os.write(fd, b"\nnot json at all\n[1, 2, 3]\n{\"no_event\": 1}\n{\"event\": 42}\n")
            # a long line, never finished; in execute longer than any event may be
            os.write(fd, b"x" * ((9 if where == "execute" else 1) << 20))
        except OSError:
            pass


def _pidfile(op, pid):
    path = os.path.join(os.environ["HOSTILE_PIDS"], op)
    with open(path + ".tmp", "w") as f:
        f.write(f"{pid}\n")
    os.rename(path + ".tmp", path)


def _started(ready_w):
    """Says that the child has written its pid file, and so is past the point where it could be
    killed unseen: the run kills every stray it finds whenever a worker stops, and on a fast machine
    it could otherwise end before the child got that far, and the check that nothing outlives the
    run would pass without a child to check."""
    os.write(ready_w, b"!")
    os.close(ready_w)


def _wait_started(ready_r, ready_w):
    os.close(ready_w)
    os.read(ready_r, 1)
    os.close(ready_r)


def _setsid_child(op):
    """A child in a session of its own, outside the worker's process group; the worker goes on once
    the child has written its pid file."""
    ready_r, ready_w = os.pipe()
    pid = os.fork()
    if pid == 0:
        try:
            os.close(ready_r)
            os.setsid()
            _pidfile(op, os.getpid())
            _started(ready_w)
            while True:
                time.sleep(1)
        finally:
            os._exit(0)
    _wait_started(ready_r, ready_w)


def _daemon(op):
    """The classic double fork: the grandchild's parent exits, orphaning it. It exits only once the
    grandchild has written its pid file: an orphan is the run's stray from then on."""
    pid = os.fork()
    if pid == 0:
        try:
            ready_r, ready_w = os.pipe()
            os.setsid()
            if os.fork() == 0:
                os.close(ready_r)
                signal.signal(signal.SIGPIPE, signal.SIG_IGN)
                _pidfile(op, os.getpid())
                _started(ready_w)
                while True:
                    try:
                        os.write(2, b"hostile daemon: still here\n")
                    except OSError:
                        pass
                    time.sleep(0.2)
            _wait_started(ready_r, ready_w)
        finally:
            os._exit(0)
    os.waitpid(pid, 0)


def _exit_at_next_request():
    r, w = os.pipe()
    if os.fork() == 0:
        try:
            os.close(r)
            select.select([0], [], [])  # the next request has come; it stays unread
        finally:
            os._exit(0)  # and w with it: the worker's stdin ends
    os.close(w)
    os.dup2(r, 0)
    os.close(r)


def load(testdir):
    op = onnx.load(os.path.join(testdir, "model.onnx")).graph.node[0].op_type
    if op == "Tanh":
        _garbage("load")
    if op == "Softsign":
        sys.exit(0)
    return op, ort.load(testdir)


def compile(loaded):
    op, model = loaded
    if op == "Tanh":
        _garbage("compile")
    if op == "Sin":
        os.closerange(0, 1024)
    if op == "Selu":
        os.closerange(3, 1024)
        time.sleep(3600)
    if op == "Cos":
        _setsid_child(op)
    if op == "Log":
        _daemon(op)
    if op == "Reciprocal":
        os.kill(os.getpid(), signal.SIGSTOP)
    if op == "Erf":
        os._exit(0)
    if op == "Softplus":
        if os.fork() == 0:
            os.killpg(os.getpgid(os.getppid()), signal.SIGKILL)
            os._exit(0)
        time.sleep(60)
    return op, ort.compile(model)


def execute(compiled, inputs):
    op, session = compiled
    if op == "Tanh":
        _garbage("execute")
    if op == "Sign":
        sys.exit(3)
    if op == "Identity":
        os.kill(os.getpid(), signal.SIGTERM)
        time.sleep(60)
    outputs = ort.execute(session, inputs)
    if op == "Atan":
        _exit_at_next_request()
    return outputs


if os.environ.get("HOSTILE_UNTAKEN") == "1":
    _exit_at_next_request()
