"""Printing tests for tests/integration/harvest-isolation.sh: print to sys.stdout and write to file
descriptors 1 and 2 directly. With the corpus on ferry's standard output, none of it may land there."""

import os
import sys

import torch


def test_sin_then_print():
    torch.sin(torch.ones(2, 3))
    print("garbage on sys.stdout")
    sys.stdout.flush()
    os.write(1, b"garbage on fd 1\n")
    os.write(2, b"garbage on fd 2\n")


def test_sinh_after_print():
    print("garbage on sys.stdout, from a failing test")
    os.write(1, b"more garbage on fd 1\n")
    torch.sinh(torch.ones(2, 3))
    assert False
