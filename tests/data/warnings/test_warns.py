"""For tests/cli/warnings-log.sh: a test whose libraries write their warnings and log lines to
stderr, as TensorFlow, absl and Python's warnings do, beside the test's own output."""

import os

import torch

os.write(2, b"/site-packages/somelib/api.py:12: FutureWarning: old_api is deprecated\n  old_api()\n")
os.write(2, b"I0000 00:00:1796567836.308347       2 cudart_stub.cc:31] Could not find cuda drivers\n")
os.write(2, b"WARNING: All log messages before absl::InitializeLog() is called are written to STDERR\n")


def test_relu():
    torch.relu(torch.ones(2, 3))
    os.write(2, b"the test's own output\n")
