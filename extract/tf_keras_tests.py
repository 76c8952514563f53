"""ferry.extract.tf_keras_tests: Keras 2's own layer tests, taken from an archive of the tf-keras source
tree of the installed version.

    message = tf_keras_tests.prepare(suites_json, has_pytest)    # ferry harvest, before any child runs
    files = tf_keras_tests.files("layer-tests")                  # a harvest child: the files to run

The tests (tf_keras/layers/**/*_test.py in the repository, which build each layer through
tf_keras.testing_infra.test_utils.layer_test) are in neither the wheel nor the source
distribution on the package index: only in the repository, keras-team/tf-keras, at the tag
v<VERSION>. The build that makes the wheel moves the package under tf_keras/src and points its imports
there; each test file is moved and pointed the same way (_place), and then what it imports besides
(tf_keras.src.testing_infra, the preprocessing tests' helpers) the wheel has. The archive comes from

    $FERRY_TF_KERAS_ARCHIVE (ferry harvest --tf-keras-archive): a URL (https, file) or a file,
    else https://codeload.github.com/keras-team/tf-keras/tar.gz/refs/tags/v<VERSION>

Nobody publishes a hash of that archive, so there is nothing to check a download against: its
sha256 is recorded beside it when it is downloaded, and a cached archive whose hash is no longer
the recorded one is refused (removing it downloads it again). As for keras_tests, prepare() runs in
ferry harvest's own process, never in the sandboxed children, and extracts only the test files:

    $FERRY_CACHE (source_tests.cache_dir())
        tf_keras-VERSION-src.tar.gz          the archive, as downloaded (or copied from the file given)
        tf_keras-VERSION-src.tar.gz.sha256   its sha256 and where it came from, recorded then
        tf_keras-VERSION-tests/              tf_keras/src/layers/**/*_test.py and a pytest.ini

It returns "" when the tests are there (the first download says what it recorded), else one line
that says why they are not: the harvest says it and runs the rest. Which files run is chosen as for
Keras 3 ($FERRY_KERAS_TESTS, ferry harvest --keras-tests: globs under tf_keras/src).
"""

import os
import re
import shutil
import urllib.parse
import urllib.request

from ferry.extract import source_tests
from ferry.extract.source_tests import Unavailable, cache_dir

# The built layout (tf_keras/src/layers/..., as the wheel has it) or the repository's (tf_keras/layers/...,
# which the tf-keras build moves under src/ and whose imports it rewrites: _place).
SUITES = {"layer-tests": re.compile(r"tf_keras/(?:src/)?layers/(?:[A-Za-z0-9_]+/)*[A-Za-z0-9_]+_test\.py")}
URL = "https://codeload.github.com/keras-team/tf-keras/tar.gz/refs/tags/v{version}"
# The files run by default (globs under tf_keras/src).
DEFAULT = ("*",)


def installed_version():
    """The installed tf_keras's version, read from its metadata (tf_keras itself is not imported)."""
    return source_tests.installed_version("tf_keras", "tf_keras")


def tests_dir(version=None):
    return os.path.join(cache_dir(), f"tf_keras-{version or installed_version()}-tests")


def prepare(suites_json="[]", has_pytest="0"):
    """For ferry harvest tf_keras: fetch the tests when the suites to run need them (the ones given,
    or the default ones when neither --suite nor --pytest is given). Returns "" or the line to say."""
    return source_tests.prepare(suites_json, has_pytest, SUITES, lambda: fetch()[1], "Keras 2's own tests")


def source(version):
    """(URL to read, what to record as its origin, the local file or None) of the archive."""
    given = os.environ.get("FERRY_TF_KERAS_ARCHIVE") or URL.format(version=version)
    if re.match(r"[A-Za-z][A-Za-z0-9+.-]*://", given):
        local = urllib.request.url2pathname(urllib.parse.urlparse(given).path) \
            if given.startswith("file:") else None
        return given, given, local
    path = os.path.abspath(given)
    return "file://" + urllib.request.pathname2url(path), path, path


def fetch(version=None):
    """Make sure the tests of tf_keras version (the installed one) are in the cache; returns their
    directory and the line to say ("" but on a download). Raises Unavailable."""
    version = version or installed_version()
    if not re.fullmatch(r"[A-Za-z0-9.+!_-]+", version):
        raise Unavailable(f"tf_keras's version {version!r} is not one a tag can have")
    url, origin, local = source(version)
    if local is not None and not os.path.isfile(local):
        raise Unavailable(f"no archive at '{local}'")
    cache = source_tests.make_cache()
    archive = os.path.join(cache, f"tf_keras-{version}-src.tar.gz")
    target = tests_dir(version)
    recorded = _recorded(archive)
    said = ""
    if recorded and recorded[1] == origin and os.path.isfile(archive) and \
            (local is None or source_tests.sha256(local) == recorded[0]):
        digest = source_tests.sha256(archive)
        if digest != recorded[0]:
            _remove_tree(target)
            raise Unavailable(f"the cached '{archive}' no longer has the sha256 recorded when it was "
                              f"downloaded ({digest}, not {recorded[0]}): not used; remove it to download again")
    else:
        digest = source_tests.download(url, archive)
        _remove_tree(target)
        with open(archive + ".sha256", "w", encoding="utf-8") as f:
            f.write(f"{digest}  {origin}\n")
        if local is None:  # a file the user gave is theirs to vouch for
            said = (f"Keras 2's own tests: {origin} has no published hash to check; its sha256 {digest} "
                    f"is recorded in the cache, and a cached archive that changes is refused")
    mark = os.path.join(target, ".archive-sha256")
    if not (os.path.isfile(mark) and _read(mark) == digest):
        try:
            source_tests.extract(archive, None, SUITES, target, "tf_keras",
                                 f"'{origin}' holds no tf_keras/layers/**/*_test.py: no tf-keras source tree?",
                                 place=_place)
        except Unavailable:  # not the archive wanted: the next harvest downloads it again
            source_tests.remove(archive + ".sha256")
            source_tests.remove(archive)
            raise
        with open(mark, "w", encoding="utf-8") as f:
            f.write(digest)
    return target, said


# The tf-keras build (its pip_build.py) moves the package's modules under tf_keras/src and points
# their imports of tf_keras's modules there; the wheel holds only the result, so a test file from the
# repository must be moved and pointed the same way to import what the wheel has. Its imports of
# tf_keras's generated protobuf modules stay (the wheel keeps them at tf_keras/protobuf).
_IMPORTS = [
    (re.compile(rb"^(\s*)import tf_keras\s*$", re.M), rb"\1import tf_keras.src as tf_keras"),
    (re.compile(rb"^(\s*)(import|from) tf_keras\.(?!src\.|protobuf\b)", re.M), rb"\1\2 tf_keras.src."),
    (re.compile(rb"^(\s*)from tf_keras import ", re.M), rb"\1from tf_keras.src import "),
    (re.compile(rb"^(\s*)import tf_keras as ", re.M), rb"\1import tf_keras.src as "),
]


def _place(name, data):
    """A test file where the built package has it, importing what the built package has (see _IMPORTS);
    a file of the built layout as it is."""
    if name.startswith("tf_keras/src/"):
        return name, data
    for pattern, replacement in _IMPORTS:
        data = pattern.sub(replacement, data)
    return "tf_keras/src/" + name[len("tf_keras/"):], data


def _read(path):
    try:
        with open(path, encoding="utf-8") as f:
            return f.read().strip()
    except OSError:
        return ""


def _recorded(archive):
    """(sha256, origin) recorded when archive was downloaded, or None."""
    digest, _, origin = _read(archive + ".sha256").partition("  ")
    return (digest, origin) if re.fullmatch(r"[0-9a-f]{64}", digest) and origin else None


def _remove_tree(path):
    shutil.rmtree(path, ignore_errors=True)


def files(suite, selection=None):
    """The test files of a suite to run in a child, sorted (absolute paths), from the cache; []
    when they are not there (prepare() has said why)."""
    selection = selection if selection is not None else os.environ.get("FERRY_KERAS_TESTS", "default")
    return source_tests.files(tests_dir(), "tf_keras", SUITES[suite], selection, DEFAULT)
