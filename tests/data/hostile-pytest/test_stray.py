"""A test that leaves a process behind in a session of its own, out of reach of a signal to its
process group (tests/integration/harvest-isolation.sh): ferry must end it when the harvest process
that started it ends. Its command line carries $HOSTILE_STRAY, so that the harness can look for it."""

import os
import subprocess
import sys

import torch


def test_cosh_then_leave_a_process():
    torch.cosh(torch.ones(2, 3))
    subprocess.Popen([sys.executable, "-c", "import time; time.sleep(300)", os.environ.get("HOSTILE_STRAY", "stray")],
                     start_new_session=True, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                     stderr=subprocess.DEVNULL)
