"""A test that hangs (tests/integration/sandbox.sh; not named test_*.py): the harness kills ferry
harvest with SIGKILL while it runs, and the next harvest must remove the scratch directory the
killed one left."""

import os
import time

import torch


def test_sign_then_hang():
    torch.sign(torch.ones(2, 3))
    os.write(2, b"hostile-hang: hanging\n")
    time.sleep(600)
