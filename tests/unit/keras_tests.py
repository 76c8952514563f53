"""Unit tests of Keras's own tests as a harvest source (extract/keras_tests.py: the sdist fetched from
a local index, checked by hash, offline), of pytest runs in a checkout (extract/pytests.py: the root
conftest.py, a test file that fails to import, progress with subtests), of set-up calls that are no
operator usages (extract/instrument_keras.py) and of Keras's whole message as an invalid reason
(templates/keras.py). Nothing here reaches the network. Prints TAP; run by
tests/unit/test-keras-tests.sh."""

import contextlib
import hashlib
import json
import os
import sys
import tarfile
import tempfile
import warnings
from importlib import metadata

warnings.simplefilter("ignore")

from ferry.extract import tfload  # noqa: E402

tfload.load()  # TensorFlow as ferry imports it, before keras

import keras  # noqa: E402
import numpy as np  # noqa: E402
from tap import done, is_, ok  # noqa: E402

from ferry.extract import instrument_keras, keras_tests, pytests  # noqa: E402
from ferry.templates import keras as template_keras  # noqa: E402

DATA = os.path.abspath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "data"))




def sdist(where, version):
    """tests/data/keras-sdist packed as Keras's sdist, with a member that climbs out and a symlink."""
    path = os.path.join(where, f"keras-{version}.tar.gz")
    with tarfile.open(path, "w:gz") as tar:
        tar.add(os.path.join(DATA, "keras-sdist"), arcname=f"keras-{version}")
        evil = tarfile.TarInfo(f"keras-{version}/keras/src/ops/../../../../escaped_test.py")
        evil.size = 0
        tar.addfile(evil)
        link = tarfile.TarInfo(f"keras-{version}/keras/src/ops/link_test.py")
        link.type, link.linkname = tarfile.SYMTYPE, "/etc/passwd"
        tar.addfile(link)
    return path


def index(where, version, url, sha256):
    """A package index's JSON API on disk (file:// URLs), as pypi.org/pypi/keras/VERSION/json."""
    d = os.path.join(where, "index", "keras", version)
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, "json"), "w") as f:
        json.dump({"info": {"version": version}, "urls": [
            {"packagetype": "bdist_wheel", "url": "file:///nonexistent.whl", "digests": {"sha256": "0" * 64}},
            {"packagetype": "sdist", "url": url, "digests": {"sha256": sha256}}]}, f)
    return "file://" + os.path.join(where, "index")


version = metadata.version("keras")
tmp = tempfile.mkdtemp(prefix="ferry-keras-tests-")
os.environ["FERRY_CACHE"] = os.path.join(tmp, "cache")
os.environ.pop("FERRY_KERAS_TESTS", None)
tarball = sdist(tmp, version)
with open(tarball, "rb") as f:
    good = hashlib.sha256(f.read()).hexdigest()

# --- a hash that does not match: nothing is extracted, and the line says so ----------------------
os.environ["FERRY_PYPI"] = index(tmp, version, "file://" + tarball, "1" * 64)
line = keras_tests.prepare("[]", "0")
ok("does not have the sha256" in line and "layer-tests, ops-tests" in line,
   f"a sdist whose hash is not the index's is refused in one line ({line!r})")
ok("\n" not in line, "... one line")
ok(not os.path.exists(keras_tests.tests_dir()), "... and nothing is extracted")
is_(keras_tests.files("layer-tests"), [], "... so a child finds no files to run")

# --- offline: an index that cannot be reached --------------------------------------------------
os.environ["FERRY_PYPI"] = "http://127.0.0.1:9/pypi"
line = keras_tests.prepare("[]", "0")
ok("cannot reach the package index" in line and "offline" in line, f"offline, the line says so ({line!r})")
is_(keras_tests.prepare('["docstrings"]', "0"), "", "no line when no suite needs Keras's tests")
is_(keras_tests.prepare("[]", "1"), "", "... nor for --pytest alone (a checkout given by the user)")

# --- the hash matches: only the test files are extracted ----------------------------------------
os.environ["FERRY_PYPI"] = index(tmp, version, "file://" + tarball, good)
is_(keras_tests.prepare('["layer-tests"]', "0"), "", "a sdist whose hash matches is taken")
root = keras_tests.tests_dir()
got = sorted(os.path.relpath(os.path.join(d, n), root) for d, _, ns in os.walk(root) for n in ns)
is_(got, ["conftest.py", "keras/src/layers/core/broken_test.py", "keras/src/layers/core/tiny_test.py",
          "keras/src/ops/tiny_test.py", "pytest.ini"],
    "only the test files are extracted (no module, no climbing member, no symlink), with a conftest")
ok(not os.path.exists(os.path.join(tmp, "escaped_test.py")), "nothing is written outside the cache")
is_([os.path.basename(p) for p in keras_tests.files("ops-tests", "all")], ["tiny_test.py"], "files: ops-tests")
is_(len(keras_tests.files("layer-tests", "all")), 2, "files: layer-tests, all")
is_(keras_tests.files("layer-tests"), keras_tests.files("layer-tests", "all"), "files: the default is all")
is_(keras_tests.files("layer-tests", "layers/core/tiny*"), [os.path.join(root, "keras/src/layers/core/tiny_test.py")],
    "files: a glob picks a subset")
os.environ["FERRY_PYPI"] = "http://127.0.0.1:9/pypi"
is_(keras_tests.prepare("[]", "0"), "", "once cached, no index is asked again")
is_(os.environ["FERRY_CACHE"], os.path.join(tmp, "cache"), "FERRY_CACHE is set for the children")

# --- pytests in the extracted tree and in a checkout ---------------------------------------------
progress, broken = [], []


def run(path):
    del progress[:], broken[:]
    return pytests.run(path, lambda item: contextlib.nullcontext(), lambda d, t: progress.append((d, t)),
                       import_mode="importlib", not_imported=lambda f, why: broken.append((f, why)))


tests, failed, collected = run(keras_tests.files("layer-tests", "all"))
is_((tests, failed, collected), (2, 0, 2), "a test that imports the root conftest.py runs and passes")
is_(broken, [("keras/src/layers/core/broken_test.py", "ModuleNotFoundError: No module named 'ferry_no_such_module'")],
    "a file that fails to import is said, with the file and the exception whole")
ok(all(d <= t for d, t in progress) and progress[-1] == (2, 2), f"progress ends at 100% ({progress})")

checkout = os.path.join(DATA, "keras-checkout")
is_(pytests.rootdir(os.path.join(checkout, "pkg", "layers", "test_tiny.py")), checkout,
    "the rootdir of a file deep in a checkout is the checkout's")
tests, failed, collected = run(os.path.join(checkout, "pkg", "layers", "test_tiny.py"))
is_((tests, failed, broken), (2, 0, []), "a checkout's test that imports its root conftest.py runs")
ok(all(d <= t for d, t in progress), f"subtests do not take progress past 100% ({progress})")
ok("conftest" not in sys.modules, "a run leaves no conftest module for the next one")

# --- set-up calls are not operator usages -------------------------------------------------------
records = []
with instrument_keras.Recorder(records.append) as rec, rec.recording():
    x = keras.ops.convert_to_tensor(np.ones((2, 3), "float32"))
    y = keras.ops.add(x, x)
    keras.ops.convert_to_numpy(y)
    keras.ops.shape(y)
    keras.ops.ndim(y)
is_([r["op"] for r in records], ["keras.ops.add"], "only the operator is recorded, not the set-up calls")
is_({k: v for k, v in rec.dropped.items() if k.startswith(("set-up", "shape"))},
    {"set-up: tensor construction": 1, "set-up: conversion out of Keras": 1, "shape query": 2},
    "... which are counted under their reasons")

# --- an invalid instance keeps Keras's message whole ---------------------------------------------
record = {"library": "keras", "op": "keras.layers.Reshape", "kind": "layer",
          "params": {"target_shape": {"tuple": [{"int": 5}]}},
          "inputs": [{"tensor": {"dtype": "float32", "shape": [2, 3]}}]}
out = template_keras.wrap(json.dumps(record), os.path.join(tmp, "wrapped"))
reason = out.get("reason", "")
is_(out.get("status"), "invalid", "a Reshape to a size that is not the input's is invalid")
ok(reason.startswith("ValueError: The total size of the tensor must be unchanged")
   and reason.split("\n", 1)[0].endswith("(calling Reshape.call())")
   and "Arguments received by Reshape.call()" in reason and "\x1b" not in reason,
   f"... with Keras's message whole, its cause first: the shapes, then where ({reason[:300]!r})")

done()
