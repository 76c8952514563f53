"""A test that reads what is not its business (tests/integration/sandbox.sh; not named test_*.py):
the file $HOSTILE_SECRET, which lies outside the suite and the scratch directory, and the listings
of its directory and of /root, /home and /work, and the environment variable HOSTILE_TOKEN, which
the harness sets and does not pass with --env. What it sees goes to file descriptor 2
("hostile-fs: ..."), where the harness looks for the secret."""

import os

import torch


def say(text):
    os.write(2, f"hostile-fs: {text}\n".encode())


def test_round_then_read_outside():
    torch.round(torch.ones(2, 3))
    secret = os.environ["HOSTILE_SECRET"]
    try:
        with open(secret) as f:
            say(f"read {f.read().strip()}")
    except OSError as e:
        say(f"not read: {e.strerror}")
    token = os.environ.get("HOSTILE_TOKEN")
    say(f"token {token}" if token else "no token in the environment")
    for d in (os.path.dirname(secret), "/root", "/home", "/work"):
        try:
            say(f"listed {d}: {sorted(os.listdir(d))}")
        except OSError as e:
            say(f"not listed {d}: {e.strerror}")
