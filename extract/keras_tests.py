"""ferry.extract.keras_tests: Keras's own layer and ops tests, taken from the source distribution of
the installed Keras version on the package index.

    message = keras_tests.prepare(suites_json, has_pytest)    # ferry harvest, before any child runs
    files = keras_tests.files("layer-tests")                  # a harvest child: the files to run

The tests are Keras's richest test knowledge (run_layer_test builds each layer many ways; the ops
tests call every keras.ops function), and the wheel does not always carry them: the source
distribution does. prepare() runs in ferry harvest's own process, never in the sandboxed children,
which have no business reaching the network: it reads the sdist's URL and sha256 from the index's
JSON API ($FERRY_PYPI, default https://pypi.org/pypi), downloads it once, checks the hash, and
extracts only the test files of the suites into the cache:

    $FERRY_CACHE (default $XDG_CACHE_HOME/ferry, else ~/.cache/ferry)
        keras-VERSION.tar.gz        the sdist, as verified
        keras-VERSION-tests/        keras/src/layers/**/*_test.py, keras/src/ops/*_test.py,
                                    ferry's conftest.py (keras_conftest.py) and a pytest.ini

It returns "" when the tests are there, else one line that says why they are not (offline, a hash
that does not match, a version the index does not have): the harvest says it and runs the rest. It
sets FERRY_CACHE to the cache's absolute path for the children (their HOME is a scratch directory).
Nothing here evaluates what it downloads: the tests run later, in the sandboxed child, like any
pytest path.

Which files run ($FERRY_KERAS_TESTS, set by ferry harvest --keras-tests): "default" is DEFAULT,
"all" every extracted file, else a comma-separated list of globs over the paths under keras/src
("layers/convolutional/*,ops/nn_test.py"). DEFAULT is every file: on 2 shared cores the ops tests
take 1.5 min and the layer tests a few minutes (README.md has the numbers), so a whole
`ferry harvest keras` stays within minutes; a subset is for a quicker look.
"""

import json
import os
import re
import urllib.error
import urllib.request

from ferry.extract import source_tests
from ferry.extract.source_tests import TIMEOUT, Unavailable, cache_dir  # noqa: F401 (this module's API)

SUITES = {"layer-tests": re.compile(r"keras/src/layers/(?:[A-Za-z0-9_]+/)*[A-Za-z0-9_]+_test\.py"),
          "ops-tests": re.compile(r"keras/src/ops/[A-Za-z0-9_]+_test\.py")}
INDEX = "https://pypi.org/pypi"
# The files run by default (globs under keras/src): see the module's comment and README.md.
DEFAULT = ("*",)
# What the test files need besides the files themselves (ferry's own, not Keras's).
_CONFTEST = os.path.join(os.path.dirname(os.path.abspath(__file__)), "keras_conftest.py")


def installed_version():
    """The installed Keras's version, read from its metadata (Keras itself is not imported)."""
    return source_tests.installed_version("keras", "Keras")


def tests_dir(version=None):
    return os.path.join(cache_dir(), f"keras-{version or installed_version()}-tests")


def prepare(suites_json="[]", has_pytest="0"):
    """For ferry harvest keras: fetch the tests when the suites to run need them (the ones given, or
    the default ones when neither --suite nor --pytest is given). Returns "" or the line to say."""
    return source_tests.prepare(suites_json, has_pytest, SUITES, lambda: fetch() and "", "Keras's own tests")


def fetch(version=None, index=None):
    """Make sure the tests of Keras version (the installed one) are in the cache; returns their
    directory. Raises Unavailable."""
    version = version or installed_version()
    if not re.fullmatch(r"[A-Za-z0-9.+!_-]+", version):
        raise Unavailable(f"Keras's version {version!r} is not one the index can have")
    target = tests_dir(version)
    if os.path.isfile(os.path.join(target, "pytest.ini")):
        return target
    cache = source_tests.make_cache()
    sdist = os.path.join(cache, f"keras-{version}.tar.gz")
    url, sha256 = sdist_url(version, index or os.environ.get("FERRY_PYPI") or INDEX)
    if not (os.path.isfile(sdist) and source_tests.sha256(sdist) == sha256):
        source_tests.download(url, sdist, sha256)
    source_tests.extract(sdist, f"keras-{version}/", SUITES, target, "Keras",
                         f"the source distribution of keras {version} holds no test files",
                         [("conftest.py", _CONFTEST)])
    return target


def sdist_url(version, index):
    """(URL, sha256) of Keras version's source distribution, from the index's JSON API."""
    base = index.rstrip("/")
    data = None
    for where in (f"{base}/keras/{version}/json", f"{base}/keras/json"):
        try:
            with urllib.request.urlopen(where, timeout=TIMEOUT) as r:
                data = json.load(r)
            break
        except urllib.error.HTTPError as e:
            if e.code != 404:
                raise Unavailable(f"the package index at {base} answered {e.code} {e.reason}") from None
        except (urllib.error.URLError, OSError, ValueError) as e:
            raise Unavailable(f"cannot reach the package index at {base} ({source_tests.why(e)}); offline?") from None
    if data is None:
        raise Unavailable(f"the package index at {base} has no keras {version}")
    urls = data.get("urls") if data.get("info", {}).get("version") == version else None
    if urls is None:
        urls = data.get("releases", {}).get(version, [])
    for u in urls:
        if u.get("packagetype") == "sdist" and u.get("url") and u.get("digests", {}).get("sha256"):
            return u["url"], u["digests"]["sha256"].lower()
    raise Unavailable(f"the package index at {base} has no source distribution of keras {version}")


def files(suite, selection=None):
    """The test files of a suite to run in a child, sorted (absolute paths), from the cache; []
    when they are not there (prepare() has said why)."""
    selection = selection if selection is not None else os.environ.get("FERRY_KERAS_TESTS", "default")
    return source_tests.files(tests_dir(), "keras", SUITES[suite], selection, DEFAULT)
