"""Unit test of ferry.oracle.driver.load_npy, the worker's reader of a test's .npy files: the same
arrays as np.load (dtype, shape, values, C order), writable, for what np.save writes, and np.load's
own answer (its error) for anything else: Fortran order, format 2.0, a pickled object array, a short
file, a file that is not .npy at all."""

import os
import sys
import tempfile

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from tap import done, ok  # noqa: E402

from ferry.oracle.driver import load_npy  # noqa: E402

tmp = tempfile.mkdtemp()
path = os.path.join(tmp, "a.npy")


def same(a, label):
    b, want = load_npy(path), np.load(path, allow_pickle=False)
    ok(b.dtype == want.dtype and b.shape == want.shape and np.array_equal(b, want, equal_nan=b.dtype.kind in "fc")
       and b.flags.writeable and b.flags.c_contiguous == want.flags.c_contiguous, label)


rng = np.random.default_rng(0)
arrays = [
    ("float32 3x4x5", rng.standard_normal((3, 4, 5)).astype(np.float32)),
    ("float16 with nan and inf", np.array([np.nan, np.inf, -np.inf, 1.5], np.float16)),
    ("float64, 300x300 (720 kB)", rng.standard_normal((300, 300))),
    ("int8", np.arange(-5, 5, dtype=np.int8)),
    ("uint64", np.array([0, 2**64 - 1], np.uint64)),
    ("bool", np.array([True, False, True])),
    ("complex64", np.array([1 + 2j, -3j], np.complex64)),
    ("big-endian float32", np.arange(6, dtype=">f4").reshape(2, 3)),
    ("strings", np.array(["ab", "c", ""])),
    ("a scalar (shape ())", np.float32(3.5).reshape(())),
    ("empty (0,)", np.zeros((0,), np.float32)),
    ("empty (2, 0, 3)", np.zeros((2, 0, 3), np.int64)),
    ("Fortran order (np.load's path)", np.asfortranarray(np.arange(12).reshape(3, 4))),
]
for label, a in arrays:
    np.save(path, a)
    same(a, label)

with open(path, "wb") as f:  # format 2.0: a four-byte header length
    np.lib.format.write_array(f, np.arange(7, dtype=np.int16), version=(2, 0))
same(None, "format 2.0")

for label, write in [
    ("a pickled object array", lambda: np.save(path, np.array([{"a": 1}], dtype=object), allow_pickle=True)),
    ("a short file", lambda: open(path, "wb").write(open(os.path.join(tmp, "full.npy"), "rb").read()[:-3])),
    ("not an npy file", lambda: open(path, "w").write("hello")),
]:
    np.save(os.path.join(tmp, "full.npy"), np.arange(10, dtype=np.float64))
    write()
    errors = []
    for reader in (load_npy, lambda p: np.load(p, allow_pickle=False)):
        try:
            reader(path)
            errors.append(None)
        except Exception as e:  # noqa: BLE001 (the errors themselves are compared)
            errors.append((type(e), str(e)))
    ok(errors[0] is not None and errors[0] == errors[1], f"{label}: np.load's error ({errors[0]})")

done()
