"""A test that uses what root's capabilities allow (tests/integration/sandbox.sh; not named
test_*.py): it remounts the sandbox's read-only root read-write (MS_REMOUNT | MS_BIND, which changes
only its own mount, never the host's file system) and writes $HOSTILE_REMOUNT_TARGET, a file on the
host outside its scratch directory; it also tries a user namespace of its own, where capabilities
would come back. It says on file descriptor 2 what it has ("hostile-root: ...")."""

import ctypes
import os

import torch

MS_BIND = 4096
MS_REMOUNT = 32
CLONE_NEWUSER = 0x10000000


def say(text):
    os.write(2, f"hostile-root: {text}\n".encode())


def test_floor_then_remount_and_write():
    torch.floor(torch.ones(2, 3))
    status = {line.split(":")[0]: line.split(":")[1].strip() for line in open("/proc/self/status") if ":" in line}
    say(f"CapEff={status.get('CapEff')} NoNewPrivs={status.get('NoNewPrivs')} Seccomp={status.get('Seccomp')}")
    libc = ctypes.CDLL(None, use_errno=True)
    r = libc.mount(None, b"/", None, MS_REMOUNT | MS_BIND, None)
    say("remount: " + ("done" if r == 0 else os.strerror(ctypes.get_errno())))
    try:
        with open(os.environ["HOSTILE_REMOUNT_TARGET"], "w") as f:
            f.write("written by a test after a remount\n")
        say("host file written")
    except OSError as e:
        say(f"host file not written: {e.strerror}")
    # in a child of its own: unshare(CLONE_NEWUSER) fails with EINVAL in a process with threads
    pid = os.fork()
    if pid == 0:
        os._exit(0 if libc.unshare(CLONE_NEWUSER) == 0 else min(ctypes.get_errno(), 255) or 255)
    _, status = os.waitpid(pid, 0)
    code = os.waitstatus_to_exitcode(status)
    say("user namespace: " + ("made" if code == 0 else os.strerror(code)))
