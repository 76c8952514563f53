"""Hostile pytest tests for tests/integration/harvest-isolation.sh: each calls one PyTorch operator of
its own (so that the corpus shows which tests were recorded) and then misbehaves; a well-behaved test
follows each one. ferry harvest must keep what each recorded, count each misbehaving test with its
reason, go on to the next, and keep the test code away from everything but its scratch directory."""

import os
import signal
import time

import torch

x = torch.ones(2, 3)


def test_add_then_exit():
    torch.add(x, x)
    os._exit(0)  # no exception, no report: the whole process just ends, status 0


def test_sub_after_exit():
    torch.sub(x, x)


def test_mul_then_segfault():
    torch.mul(x, x)
    os.kill(os.getpid(), signal.SIGSEGV)


def test_div_after_segfault():
    torch.div(x, x)


def test_maximum_then_hang():
    torch.maximum(x, x)
    time.sleep(3600)


def test_minimum_after_hang():
    torch.minimum(x, x)


def test_abs_then_write_outside():
    torch.abs(x)
    # the harness names a file outside the scratch directory; in the sandbox this write fails
    with open(os.environ["HOSTILE_OUTSIDE"], "w") as f:
        f.write("written by a test\n")


def test_neg_then_wreck_cwd():
    torch.neg(x)
    for name in os.listdir("."):
        os.rename(name, name + ".moved") if os.path.isdir(name) else os.remove(name)
    os.chdir("/")


def test_exp_after_chdir():
    torch.exp(x)


def test_cos_then_write_channel():
    torch.cos(x)
    # every pipe this process may write: ferry's channel is one of them
    for fd in range(3, 1024):
        try:
            if os.readlink(f"/proc/self/fd/{fd}").startswith("pipe:"):
                os.write(fd, b"garbage\n")
        except OSError:
            pass


def test_tan_after_channel():
    torch.tan(x)
