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

import fnmatch
import hashlib
import json
import os
import re
import shutil
import tarfile
import tempfile
import urllib.error
import urllib.request

SUITES = {"layer-tests": re.compile(r"keras/src/layers/(?:[A-Za-z0-9_]+/)*[A-Za-z0-9_]+_test\.py"),
          "ops-tests": re.compile(r"keras/src/ops/[A-Za-z0-9_]+_test\.py")}
INDEX = "https://pypi.org/pypi"
TIMEOUT = 30  # seconds per request
# The files run by default (globs under keras/src): see the module's comment and README.md.
DEFAULT = ("*",)
# What the test files need besides the files themselves (ferry's own, not Keras's).
_CONFTEST = os.path.join(os.path.dirname(os.path.abspath(__file__)), "keras_conftest.py")
_PYTEST_INI = "[pytest]\n# written by ferry: this directory is the rootdir of Keras's tests\n"


class Unavailable(Exception):
    """Keras's tests cannot be had; the message says why, in one line."""


def cache_dir():
    """The cache's directory (see the module's comment); not created."""
    given = os.environ.get("FERRY_CACHE")
    if given:
        return os.path.abspath(given)
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.abspath(os.path.join(base, "ferry"))


def installed_version():
    """The installed Keras's version, read from its metadata (Keras itself is not imported)."""
    from importlib import metadata
    try:
        return metadata.version("keras")
    except metadata.PackageNotFoundError:
        raise Unavailable("Keras is not installed") from None


def tests_dir(version=None):
    return os.path.join(cache_dir(), f"keras-{version or installed_version()}-tests")


def prepare(suites_json="[]", has_pytest="0"):
    """For ferry harvest keras: fetch the tests when the suites to run need them (the ones given, or
    the default ones when neither --suite nor --pytest is given). Returns "" or the line to say."""
    suites = json.loads(suites_json) or ([] if has_pytest == "1" else list(SUITES))
    wanted = [s for s in suites if s in SUITES]
    os.environ["FERRY_CACHE"] = cache_dir()
    if not wanted:
        return ""
    try:
        fetch()
    except Unavailable as e:
        return f"Keras's own tests are not harvested ({', '.join(wanted)}): {e}"
    return ""


def fetch(version=None, index=None):
    """Make sure the tests of Keras version (the installed one) are in the cache; returns their
    directory. Raises Unavailable."""
    version = version or installed_version()
    if not re.fullmatch(r"[A-Za-z0-9.+!_-]+", version):
        raise Unavailable(f"Keras's version {version!r} is not one the index can have")
    target = tests_dir(version)
    if os.path.isfile(os.path.join(target, "pytest.ini")):
        return target
    cache = cache_dir()
    try:
        os.makedirs(cache, exist_ok=True)
    except OSError as e:
        raise Unavailable(f"cannot create the cache '{cache}': {e.strerror}") from None
    sdist = os.path.join(cache, f"keras-{version}.tar.gz")
    url, sha256 = sdist_url(version, index or os.environ.get("FERRY_PYPI") or INDEX)
    if not (os.path.isfile(sdist) and _sha256(sdist) == sha256):
        _download(url, sdist, sha256)
    _extract(sdist, version, target)
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
            raise Unavailable(f"cannot reach the package index at {base} ({_why(e)}); offline?") from None
    if data is None:
        raise Unavailable(f"the package index at {base} has no keras {version}")
    urls = data.get("urls") if data.get("info", {}).get("version") == version else None
    if urls is None:
        urls = data.get("releases", {}).get(version, [])
    for u in urls:
        if u.get("packagetype") == "sdist" and u.get("url") and u.get("digests", {}).get("sha256"):
            return u["url"], u["digests"]["sha256"].lower()
    raise Unavailable(f"the package index at {base} has no source distribution of keras {version}")


def _why(e):
    reason = getattr(e, "reason", None)
    return str(reason if reason is not None else e) or type(e).__name__


def _sha256(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def _download(url, dest, sha256):
    """Download url to dest, kept only when its sha256 is the index's."""
    part = dest + ".part"
    h = hashlib.sha256()
    try:
        with urllib.request.urlopen(url, timeout=TIMEOUT) as r, open(part, "wb") as f:
            for block in iter(lambda: r.read(1 << 20), b""):
                h.update(block)
                f.write(block)
    except (urllib.error.URLError, OSError, ValueError) as e:
        _remove(part)
        raise Unavailable(f"cannot download {url} ({_why(e)}); offline?") from None
    if h.hexdigest() != sha256:
        _remove(part)
        raise Unavailable(f"{url} does not have the sha256 the index gives ({h.hexdigest()}, "
                          f"not {sha256}): not used")
    os.replace(part, dest)


def _remove(path):
    try:
        os.unlink(path)
    except OSError:
        pass


def _extract(sdist, version, target):
    """Write the test files of the sdist (and only them: regular files whose names SUITES take)
    into target, with ferry's conftest.py and pytest.ini; whole or not at all."""
    prefix = f"keras-{version}/"
    tmp = tempfile.mkdtemp(prefix=".keras-tests-", dir=os.path.dirname(target))
    n = 0
    try:
        with tarfile.open(sdist, "r:gz") as tar:
            for member in tar:
                name = member.name[len(prefix):] if member.name.startswith(prefix) else None
                if not member.isfile() or name is None or not any(p.fullmatch(name) for p in SUITES.values()):
                    continue
                out = os.path.join(tmp, *name.split("/"))
                os.makedirs(os.path.dirname(out), exist_ok=True)
                with tar.extractfile(member) as src, open(out, "wb") as dst:
                    shutil.copyfileobj(src, dst)
                n += 1
        if not n:
            raise Unavailable(f"the source distribution of keras {version} holds no test files")
        shutil.copyfile(_CONFTEST, os.path.join(tmp, "conftest.py"))
        with open(os.path.join(tmp, "pytest.ini"), "w", encoding="utf-8") as f:
            f.write(_PYTEST_INI)
        if os.path.isdir(target):  # a half-made one from a run that was killed
            shutil.rmtree(target)
        os.rename(tmp, target)
    except (tarfile.TarError, EOFError, OSError) as e:
        raise Unavailable(f"cannot extract the tests from '{sdist}': {e}") from None
    finally:
        if os.path.isdir(tmp):
            shutil.rmtree(tmp, ignore_errors=True)


def files(suite, selection=None):
    """The test files of a suite to run in a child, sorted (absolute paths), from the cache; []
    when they are not there (prepare() has said why)."""
    root = tests_dir()
    selection = selection if selection is not None else os.environ.get("FERRY_KERAS_TESTS", "default")
    globs = DEFAULT if selection in ("", "default") else \
        ("*",) if selection == "all" else tuple(g.strip() for g in selection.split(",") if g.strip())
    out = []
    for here, dirs, names in os.walk(os.path.join(root, "keras", "src")):
        dirs.sort()
        for name in names:
            path = os.path.join(here, name)
            rel = os.path.relpath(path, root).replace(os.sep, "/")
            under = rel[len("keras/src/"):]
            if SUITES[suite].fullmatch(rel) and any(fnmatch.fnmatchcase(under, g) for g in globs):
                out.append(path)
    return sorted(out)
