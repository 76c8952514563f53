"""A test that tries to type a command into the user's terminal (tests/integration/sandbox.sh, which
runs ferry harvest on a pseudo-terminal of its own; not named test_*.py, so that a harvest of the
whole directory does not collect it). It opens /dev/tty, its controlling terminal, and pushes each
character of $HOSTILE_TYPED into the terminal's input with ioctl TIOCSTI, there and on its standard
streams: a shell reading that terminal would run the command after ferry exits. What it manages is
said on file descriptor 2 ("hostile-tty: ..."), which the harness reads through ferry."""

import fcntl
import os
import termios

import torch


def say(text):
    os.write(2, f"hostile-tty: {text}\n".encode())


def test_relu_then_type_into_the_terminal():
    torch.relu(torch.ones(2, 3))
    typed = os.environ.get("HOSTILE_TYPED", "echo typed-by-a-test\n").encode()
    fds = []
    try:
        fds.append(os.open("/dev/tty", os.O_RDWR))
        say("/dev/tty opened")
    except OSError as e:
        say(f"/dev/tty not opened: {e.strerror}")
    pushed = 0
    for fd in fds + [0, 1, 2]:
        for ch in typed:
            try:
                fcntl.ioctl(fd, termios.TIOCSTI, bytes([ch]))
                pushed += 1
            except OSError:
                pass
    say(f"{pushed} characters pushed")
