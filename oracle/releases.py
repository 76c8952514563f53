"""ferry.oracle.releases: the releases of a frontend's package that pip can install here, and a
virtualenv of its own for each, for ferry bisect (doc/bisect.md). Run by ferry as a program:

    python -m ferry.oracle.releases list PACKAGE FIRST LAST
        one JSON object per release of PACKAGE from FIRST to LAST (either may be ""), oldest first:
        {"version", "date", "numpy", "numpy_note"}; numpy is the newest numpy uploaded before the
        release that has a wheel for this interpreter (its "day"), numpy_note why it is another
    python -m ferry.oracle.releases make PACKAGE VERSION NUMPY LIBRARY DIR
        DIR becomes a virtualenv of the base interpreter of this one (the Python ferry embeds)
        holding PACKAGE==VERSION, numpy no newer than NUMPY, and what an adapter of LIBRARY needs;
        prints {"python", "numpy"} (what is installed), or exits 5 with {"unavailable": why}
        when pip cannot install it; both answers are kept in DIR, so the second time installs
        nothing.

Only PyPI's JSON API and pip are used: no index of names is downloaded. Errors go to stderr in one
line; exit 3 for the network or pip, 4 for a package PyPI does not know.
"""

import json
import os
import shutil
import subprocess
import sys
import urllib.error
import urllib.request

from pip._vendor.packaging import tags
from pip._vendor.packaging.utils import parse_wheel_filename
from pip._vendor.packaging.version import InvalidVersion, Version

PYPI = os.environ.get("FERRY_PYPI", "https://pypi.org/pypi")
STAMP = ".ferry-release"
FAILED = ".ferry-unavailable"
# What an adapter's worker imports beside the frontend, by the adapter's LIBRARY. torch 2.13.0 is
# the CPU build on this disk (a plain "torch" would take a CUDA build of several GB).
NEEDS = {"onnx": ["onnx"], "torch": ["torch==2.13.0"]}


class Failed(Exception):
    def __init__(self, code, msg):
        super().__init__(msg)
        self.code = code


def pypi(package):
    """PyPI's JSON document of package."""
    url = f"{PYPI}/{package}/json"
    try:
        with urllib.request.urlopen(url, timeout=60) as r:
            return json.load(r)
    except urllib.error.HTTPError as e:
        if e.code == 404:
            raise Failed(4, f"no package '{package}' on PyPI ({url})") from None
        raise Failed(3, f"cannot read '{url}': {e}") from None
    except (urllib.error.URLError, OSError, ValueError) as e:
        raise Failed(3, f"cannot read '{url}': {e}") from None


def installable(doc):
    """{Version: first upload date} of the final releases of doc with a wheel for this interpreter
    and platform (a release with only a source archive would be built here: not one to bisect)."""
    ours = set(tags.sys_tags())
    out = {}
    for text, files in doc.get("releases", {}).items():
        try:
            v = Version(text)
        except InvalidVersion:
            continue
        if v.is_prerelease or v.is_devrelease:
            continue
        dates = [f["upload_time_iso_8601"] for f in files if not f.get("yanked")]
        wheels = [f["filename"] for f in files if not f.get("yanked") and f["filename"].endswith(".whl")]
        ok = False
        for name in wheels:
            try:
                ok = bool(parse_wheel_filename(name)[3] & ours)
            except Exception:  # a malformed name is no wheel pip takes
                continue
            if ok:
                break
        if ok and dates:
            out[v] = (text, min(dates))
    return out


def in_range(v, first, last):
    return (not first or v >= Version(first)) and (not last or v <= Version(last))


def numpy_of_day(numpys, date):
    """The newest numpy uploaded before date, and a note when that is not one for this Python."""
    before = [(d, v) for v, (_, d) in numpys.items() if d < date]
    if before:
        return max(before, key=lambda x: x[1])[1], ""
    oldest = min(numpys)
    return oldest, "the oldest numpy for this Python; none was released for it before"


def do_list(package, first, last):
    for bound in (first, last):
        if bound:
            try:
                Version(bound)
            except InvalidVersion:
                raise Failed(2, f"'{bound}' is no version") from None
    releases = installable(pypi(package))
    numpys = installable(pypi("numpy"))
    for v in sorted(releases):
        if not in_range(v, first, last):
            continue
        text, date = releases[v]
        n, note = numpy_of_day(numpys, date)
        print(json.dumps({"version": text, "date": date, "numpy": numpys[n][0], "numpy_note": note}))


def base_python():
    """The interpreter this virtualenv (ferry's) was made from: a new one of the same Python."""
    return getattr(sys, "_base_executable", None) or sys.executable


def answer(path):
    with open(path, encoding="utf-8") as f:
        return json.load(f)


def do_make(package, version, numpy, library, dest):
    for name, code in ((STAMP, 0), (FAILED, 5)):
        path = os.path.join(dest, name)
        if os.path.exists(path):
            print(json.dumps(answer(path)))
            return code
    # A directory without either answer is a make that was interrupted: begin again.
    if os.path.exists(dest):
        shutil.rmtree(dest)
    os.makedirs(os.path.dirname(os.path.abspath(dest)), exist_ok=True)
    r = subprocess.run([base_python(), "-m", "venv", dest], capture_output=True, text=True)
    if r.returncode:
        raise Failed(3, f"cannot make a virtualenv in '{dest}': {r.stderr.strip()}")
    py = os.path.join(dest, "bin", "python")
    want = [f"{package}=={version}", f"numpy<={numpy}"] + NEEDS.get(library, [])
    r = subprocess.run([py, "-m", "pip", "install", "-q", "--disable-pip-version-check",
                        "--only-binary=:all:"] + want, capture_output=True, text=True)
    if r.returncode:
        lines = [x for x in (r.stderr or r.stdout).splitlines() if x.strip()]
        why = {"unavailable": "pip install %s: %s" % (" ".join(want), lines[-1] if lines else "failed")}
        with open(os.path.join(dest, FAILED), "w", encoding="utf-8") as f:
            json.dump(why, f)
        print(json.dumps(why))
        return 5
    r = subprocess.run([py, "-c", "from importlib import metadata; print(metadata.version('numpy'))"],
                       capture_output=True, text=True)
    got = {"python": py, "numpy": r.stdout.strip() or "?", "installed": want}
    with open(os.path.join(dest, STAMP), "w", encoding="utf-8") as f:
        json.dump(got, f)
    print(json.dumps(got))
    return 0


def main(argv):
    try:
        if len(argv) == 4 and argv[0] == "list":
            do_list(*argv[1:])
            return 0
        if len(argv) == 6 and argv[0] == "make":
            return do_make(*argv[1:])
        raise Failed(2, "usage: python -m ferry.oracle.releases list PACKAGE FIRST LAST | "
                        "make PACKAGE VERSION NUMPY LIBRARY DIR")
    except Failed as e:
        print(str(e), file=sys.stderr)
        return e.code


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
