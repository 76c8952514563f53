"""A test whose output drives a terminal (tests/integration/sandbox.sh; not named test_*.py): it
writes escape sequences (retitle the window, clear the screen, red text) to its standard error and
standard output, which ferry shows the user escaped."""

import os

import torch


def test_trunc_then_print_escapes():
    torch.trunc(torch.ones(2, 3))
    os.write(2, b"hostile-esc: \x1b]0;retitled by a test\x07\x1b[2J\x1b[31mred\x1b[0m\n")
    os.write(1, b"hostile-esc on fd 1: \x1b[2J\x9b31m\n")
