"""ferry_pytest: run pytest tests in this process, with each test's call phase wrapped by the harvester.

A library's harvester records what a test does while it runs (instrument_keras, instrument_torch); this
module runs the tests and knows nothing of any library:

    tests, failed = ferry_pytest.run(path, around, progress)

around(item) returns a context manager entered for each test's call phase (the harvester switches its
recording on there and labels it with item.nodeid); progress(done, total) is called after each test.
A test that fails or errors, or a test file that cannot be imported, is counted and the run goes on:
a library's own tests fail here for many reasons (a missing optional dependency, another version of
the library) that say nothing about the operator usages they make before failing. stop() is asked
after each test; a message from it ends the run (the harvest's output failed, say). Returns (tests
run, tests that failed or errored).

pytest's terminal output goes to stderr, since standard output may be the corpus; capturing is at the
level of sys, not of file descriptors, so that what ferry writes is never captured.
"""

import os
import sys


class _Progress:
    """Counts each test once (its call phase, or a setup that did not pass) and reports progress."""

    def __init__(self, progress):
        self.progress = progress
        self.total = 0
        self.done = 0
        self.failed = 0

    def pytest_collection_modifyitems(self, session, config, items):
        self.total = len(items)

    def pytest_collectreport(self, report):
        if report.failed:  # a test file that cannot be imported: one failure, and the others run
            self.done += 1
            self.failed += 1

    def pytest_runtest_logreport(self, report):
        if report.when == "call" or (report.when == "setup" and not report.passed):
            self.done += 1
            if report.failed:
                self.failed += 1
            self.progress(self.done, self.total)


def run(path, around, progress, stop=lambda: None, import_mode=None, extra_args=()):
    """Run the tests of path (a file or a directory) in this process; see the module's comment.
    import_mode "importlib" imports test modules without touching sys.path, for a checkout of a
    library's own source tree whose packages would otherwise shadow (or clash with) the installed
    library's. Raises FileNotFoundError for a path that does not exist."""
    import pytest

    if not os.path.exists(path):
        raise FileNotFoundError(f"no such pytest path: {path!r}")
    counter = _Progress(progress)

    class Wrap:
        @pytest.hookimpl(hookwrapper=True)
        def pytest_runtest_call(self, item):
            with around(item):
                yield
            why = stop()
            if why:
                pytest.exit(why, returncode=3)

    root = path if os.path.isdir(path) else os.path.dirname(os.path.abspath(path))
    args = [path, "-q", "-p", "no:cacheprovider", "--capture=sys", "-o", "addopts=",
            "--rootdir", root, "-W", "ignore", "--continue-on-collection-errors", "--tb=line"]
    if import_mode:
        args += ["--import-mode", import_mode]
    args += list(extra_args)
    saved_stdout, saved_argv = sys.stdout, sys.argv
    sys.stdout = sys.stderr
    sys.argv = [path]
    try:
        pytest.main(args, plugins=[counter, Wrap()])
    finally:
        sys.stdout, sys.argv = saved_stdout, saved_argv
    return counter.done, counter.failed
