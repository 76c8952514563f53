"""A test that reaches for the network (tests/integration/sandbox.sh, which listens outside; not
named test_*.py): it connects to the loopback listener at 127.0.0.1:$HOSTILE_PORT and to the
abstract unix socket $HOSTILE_ABSTRACT and sends each a line; and it binds that abstract name
itself, which fails with EADDRINUSE where the listener outside is in its namespace. It says on file
descriptor 2 what it managed ("hostile-net: ...")."""

import os
import socket

import torch


def say(text):
    os.write(2, f"hostile-net: {text}\n".encode())


def test_ceil_then_reach_the_network():
    torch.ceil(torch.ones(2, 3))
    abstract = "\0" + os.environ["HOSTILE_ABSTRACT"]
    try:
        with socket.create_connection(("127.0.0.1", int(os.environ["HOSTILE_PORT"])), timeout=3) as s:
            s.sendall(b"sent by a test over tcp\n")
        say("tcp connected")
    except OSError as e:
        say(f"tcp not connected: {e.strerror or e}")
    try:
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as s:
            s.settimeout(3)
            s.connect(abstract)
            s.sendall(b"sent by a test over an abstract socket\n")
        say("abstract socket connected")
    except OSError as e:
        say(f"abstract socket not connected: {e.strerror or e}")
    try:
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as s:
            s.bind(abstract)
        say("abstract name bound: a namespace of its own")
    except OSError as e:
        say(f"abstract name not bound: {e.strerror or e}")
