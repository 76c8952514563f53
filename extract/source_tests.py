"""ferry.extract.source_tests: what keras_tests (Keras 3's tests, from its sdist on the package index)
and tf_keras_tests (Keras 2's, from an archive of its source tree) share: the cache, a download
that is hashed as it is written, the extraction of only the test files of an archive, and the
choice of the files a child runs.

    $FERRY_CACHE (default $XDG_CACHE_HOME/ferry, else ~/.cache/ferry)

Everything here runs in ferry harvest's own process (before any child), except files(), which the
sandboxed child calls on what is already extracted. Nothing here evaluates what it downloads.
"""

import fnmatch
import hashlib
import json
import os
import shutil
import tarfile
import tempfile
import urllib.error
import urllib.request

TIMEOUT = 30  # seconds per request
# A test file is source code: one larger than this is no test file but an archive built to fill the disk.
MAX_TEST_FILE = 16 << 20
# What makes the extracted directory the rootdir of the tests' pytest run.
PYTEST_INI = "[pytest]\n# written by ferry: this directory is the rootdir of {what}'s tests\n"


class Unavailable(Exception):
    """A library's tests cannot be had; the message says why, in one line."""


def cache_dir():
    """The cache's directory (see the module's comment); not created."""
    given = os.environ.get("FERRY_CACHE")
    if given:
        return os.path.abspath(given)
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.abspath(os.path.join(base, "ferry"))


def installed_version(dist, name):
    """The installed version of distribution dist, read from its metadata (nothing is imported)."""
    from importlib import metadata
    try:
        return metadata.version(dist)
    except metadata.PackageNotFoundError:
        raise Unavailable(f"{name} is not installed") from None


def prepare(suites_json, has_pytest, suites, fetch, what):
    """For ferry harvest: fetch() the library's own tests when the suites to run need them (those
    given, or the default ones when neither --suite nor --pytest is given), with FERRY_CACHE set for
    the children. Returns "" or the line to say (fetch() returns it, or what and why it failed)."""
    given = json.loads(suites_json) or ([] if has_pytest == "1" else list(suites))
    wanted = [s for s in given if s in suites]
    os.environ["FERRY_CACHE"] = cache_dir()
    if not wanted:
        return ""
    try:
        return fetch() or ""
    except Unavailable as e:
        return f"{what} are not harvested ({', '.join(wanted)}): {e}"


def make_cache():
    """cache_dir(), created. Raises Unavailable."""
    cache = cache_dir()
    try:
        os.makedirs(cache, exist_ok=True)
    except OSError as e:
        raise Unavailable(f"cannot create the cache '{cache}': {e.strerror}") from None
    return cache


def why(e):
    """An exception of urllib or the system, in a few words."""
    reason = getattr(e, "reason", None)
    return str(reason if reason is not None else e) or type(e).__name__


def sha256(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def download(url, dest, expected=None):
    """Download url (http, https or file) to dest and return its sha256; with expected, it is kept
    only when its sha256 is that one. Raises Unavailable."""
    part = dest + ".part"
    h = hashlib.sha256()
    try:
        with urllib.request.urlopen(url, timeout=TIMEOUT) as r, open(part, "wb") as f:
            for block in iter(lambda: r.read(1 << 20), b""):
                h.update(block)
                f.write(block)
    except (urllib.error.URLError, OSError, ValueError) as e:
        remove(part)
        raise Unavailable(f"cannot download {url} ({why(e)}); offline?") from None
    if expected is not None and h.hexdigest() != expected:
        remove(part)
        raise Unavailable(f"{url} does not have the sha256 the index gives ({h.hexdigest()}, "
                          f"not {expected}): not used")
    os.replace(part, dest)
    return h.hexdigest()


def remove(path):
    try:
        os.unlink(path)
    except OSError:
        pass


def extract(archive, prefix, suites, target, what, empty, extras=(), place=None):
    """Write the test files of a .tar.gz archive (and only them: regular files whose names, less
    the prefix, a pattern of suites takes) into target, with extras ((name, path to copy) pairs)
    and a pytest.ini naming what; whole or not at all; empty is the line to say when it holds none
    of them. prefix None strips the first component, whatever it is
    (an archive of a tagged source tree, named by whoever made it). place(name, data) -> (name,
    data), when given, says where a file goes and what it holds there (a source tree's file as its
    package's build lays it out). Raises Unavailable."""
    tmp = tempfile.mkdtemp(prefix=".tests-", dir=os.path.dirname(target))
    n = 0
    try:
        with tarfile.open(archive, "r:gz") as tar:
            for member in tar:
                name = _strip(member.name, prefix)
                if not member.isfile() or name is None or not any(p.fullmatch(name) for p in suites.values()):
                    continue
                with tar.extractfile(member) as src:
                    data = src.read(MAX_TEST_FILE + 1)
                if len(data) > MAX_TEST_FILE:
                    raise Unavailable(f"'{archive}' holds a test file of over {MAX_TEST_FILE >> 20} MB: {name}")
                if place is not None:
                    name, data = place(name, data)
                out = os.path.join(tmp, *name.split("/"))
                os.makedirs(os.path.dirname(out), exist_ok=True)
                with open(out, "wb") as dst:
                    dst.write(data)
                n += 1
        if not n:
            raise Unavailable(empty)
        for name, path in extras:
            shutil.copyfile(path, os.path.join(tmp, name))
        with open(os.path.join(tmp, "pytest.ini"), "w", encoding="utf-8") as f:
            f.write(PYTEST_INI.format(what=what))
        if os.path.isdir(target):  # a half-made one from a run that was killed, or a stale one
            shutil.rmtree(target)
        os.rename(tmp, target)
    except (tarfile.TarError, EOFError, OSError) as e:
        raise Unavailable(f"cannot extract the tests from '{archive}': {e}") from None
    finally:
        if os.path.isdir(tmp):
            shutil.rmtree(tmp, ignore_errors=True)
    return n


def _strip(name, prefix):
    if prefix is not None:
        return name[len(prefix):] if name.startswith(prefix) else None
    first, sep, rest = name.partition("/")
    return rest if sep and first not in ("", ".", "..") else None


def files(root, package, pattern, selection, default):
    """The test files under root/package/src that pattern takes (on their paths under root) and
    the selection picks, sorted absolute paths: selection "" or "default" is the globs of default,
    "all" every file, else comma-separated globs over the paths under package/src."""
    globs = default if selection in ("", "default") else \
        ("*",) if selection == "all" else tuple(g.strip() for g in selection.split(",") if g.strip())
    base = f"{package}/src/"
    out = []
    for here, dirs, names in os.walk(os.path.join(root, package, "src")):
        dirs.sort()
        for name in names:
            path = os.path.join(here, name)
            rel = os.path.relpath(path, root).replace(os.sep, "/")
            if pattern.fullmatch(rel) and any(fnmatch.fnmatchcase(rel[len(base):], g) for g in globs):
                out.append(path)
    return sorted(out)
