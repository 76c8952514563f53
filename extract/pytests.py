"""ferry.extract.pytests: run pytest tests in this process, with each test's call phase wrapped by the harvester.

A library's harvester records what a test does while it runs (instrument_keras, instrument_torch); this
module runs the tests and knows nothing of any library:

    tests, failed, collected = pytests.run(path, around, progress)

around(item) returns a context manager entered for each test's call phase (the harvester switches its
recording on there and labels it with item.nodeid); progress(done, total) is called after each test,
done counting the tests over (a test with subtests once), so that it never passes total.
In a harvest child (channel), skip is the number of tests at the start that an earlier process
ran (they are deselected: pytest collects in the same order every time), started(item) is called as
each test starts, before its fixtures, and finished(done, failed) once it is over, teardown and all,
with the counts of this run so far.
A test that fails or errors is counted and the run goes on: a library's own tests fail here for many
reasons (a missing optional dependency, another version of the library) that say nothing about the
operator usages they make before failing. A test file that cannot be imported is no test: it is
reported through not_imported(file, why) (why: the exception's last line, whole) by the process that
collected it first, and the others run. stop() is asked after each test; a message from it ends the
run (the harvest's output failed, say). Returns (tests run, tests that failed or errored, tests
collected).

The rootdir is where the path's project keeps its pytest configuration (the nearest directory above
it with a pytest.ini, or a pyproject.toml, tox.ini or setup.cfg that configures pytest), else the
path's own directory: the conftest.py files between that root and the tests are loaded, as when the
project's own developers run them (a Keras checkout's root conftest.py registers its markers and is
imported by its tests as "conftest").

pytest's terminal output goes to stderr, since standard output may be the corpus; capturing is at the
level of sys, not of file descriptors, so that what ferry writes is never captured.
"""

import os
import sys

# The files that make a directory a pytest rootdir, and what each must hold to count (None: nothing).
_INI = (("pytest.ini", None), (".pytest.ini", None), ("pyproject.toml", "[tool.pytest"),
        ("tox.ini", "[pytest]"), ("setup.cfg", "[tool:pytest]"))


def rootdir(path):
    """The rootdir to run path's tests under; see the module's comment."""
    start = os.path.abspath(path if os.path.isdir(path) else os.path.dirname(os.path.abspath(path)))
    here = start
    while True:
        for name, needs in _INI:
            ini = os.path.join(here, name)
            if os.path.isfile(ini):
                if needs is None:
                    return here
                try:
                    with open(ini, encoding="utf-8", errors="replace") as f:
                        if needs in f.read():
                            return here
                except OSError:
                    pass
        up = os.path.dirname(here)
        if up == here:
            return start
        here = up


def import_error(report):
    """Why a test file could not be collected: the last line of pytest's report that names the
    exception ("E   ModuleNotFoundError: No module named 'jax'"), whole."""
    text = str(report.longrepr or "").rstrip()
    lines = [line[1:].strip() for line in text.splitlines() if line.startswith("E ")]
    if lines:
        return lines[-1]
    return text.splitlines()[-1].strip() if text else "collection failed"


def run(path, around, progress, stop=lambda: None, import_mode=None, extra_args=(), skip=0,
        started=lambda item: None, finished=lambda done, failed: None,
        not_imported=lambda file, why: None):
    """Run the tests of path (a file or a directory, or a list of them under one rootdir) in this
    process; see the module's comment.
    import_mode "importlib" imports test modules without touching sys.path, for a checkout of a
    library's own source tree whose packages would otherwise shadow (or clash with) the installed
    library's. Raises FileNotFoundError for a path that does not exist."""
    import pytest

    paths = [path] if isinstance(path, str) else list(path)
    for p in paths:
        if not os.path.exists(p):
            raise FileNotFoundError(f"no such pytest path: {p!r}")
    root = rootdir(paths[0])

    class Counter:
        """Counts each test once, when it is over (its call phase with every subtest, or a setup
        that did not pass), and reports progress."""

        def __init__(self):
            self.total = 0
            self.collected = 0
            self.done = 0
            self.failed = 0
            self.item_failed = False

        @pytest.hookimpl(trylast=True)  # after any reordering by conftest files and plugins
        def pytest_collection_modifyitems(self, session, config, items):
            self.collected = len(items)
            self.total = len(items)
            if skip:
                config.hook.pytest_deselected(items=items[:skip])
                items[:] = items[skip:]

        def pytest_collectreport(self, report):
            # a test file that cannot be imported: said once, by the process that collected it first
            if report.failed and not skip:
                where = str(getattr(report, "fspath", "") or report.nodeid)
                not_imported(os.path.relpath(where, root) if os.path.isabs(where) else where,
                             import_error(report))

        def pytest_runtest_logreport(self, report):
            if report.failed:
                self.item_failed = True

        def item_over(self):
            self.done += 1
            if self.item_failed:
                self.failed += 1
            self.item_failed = False
            progress(min(skip + self.done, self.total), self.total)

    counter = Counter()

    class Wrap:
        @pytest.hookimpl(hookwrapper=True)
        def pytest_runtest_protocol(self, item, nextitem):
            started(item)
            counter.item_failed = False
            yield
            counter.item_over()
            finished(counter.done, counter.failed)

        @pytest.hookimpl(hookwrapper=True)
        def pytest_runtest_call(self, item):
            with around(item):
                yield
            why = stop()
            if why:
                pytest.exit(why, returncode=3)

    # no:randomly: a plugin that shuffles the tests would break the numbering that skip relies on
    args = [*paths, "-q", "-p", "no:cacheprovider", "-p", "no:randomly", "--capture=sys", "-o", "addopts=",
            "--rootdir", root, "--confcutdir", root, "-W", "ignore", "--continue-on-collection-errors",
            "--tb=line"]
    if import_mode:
        args += ["--import-mode", import_mode]
    args += list(extra_args)
    saved_stdout, saved_argv = sys.stdout, sys.argv
    conftests = {name for name in sys.modules if name == "conftest" or name.endswith(".conftest")}
    # pytest's own reporter (a dot per test, a line per file) would break ferry's progress line on the
    # terminal: what ferry needs of it comes through the hooks above (counts, import failures)
    quiet = open(os.devnull, "w")
    sys.stdout = quiet
    sys.argv = paths[:1]
    try:
        pytest.main(args, plugins=[counter, Wrap()])
    finally:
        sys.stdout, sys.argv = saved_stdout, saved_argv
        quiet.close()
        # a later path's "conftest" is its own project's, not this one's
        for name in [n for n in sys.modules if (n == "conftest" or n.endswith(".conftest")) and n not in conftests]:
            del sys.modules[name]
    return counter.done, counter.failed, counter.collected
