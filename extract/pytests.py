"""ferry.extract.pytests: run pytest tests in this process, with each test's call phase wrapped by the harvester.

A library's harvester records what a test does while it runs (instrument_keras, instrument_torch); this
module runs the tests and knows nothing of any library:

    tests, failed, collected = pytests.run(path, around, progress)

around(item) returns a context manager entered for each test's call phase (the harvester switches its
recording on there and labels it with item.nodeid); progress(done, total) is called after each test.
In a harvest child (channel), skip is the number of tests at the start that an earlier process
ran (they are deselected: pytest collects in the same order every time), started(item) is called as
each test starts, before its fixtures, and finished(done, failed) once it is over, teardown and all,
with the counts of this run so far.
A test that fails or errors, or a test file that cannot be imported, is counted and the run goes on:
a library's own tests fail here for many reasons (a missing optional dependency, another version of
the library) that say nothing about the operator usages they make before failing. stop() is asked
after each test; a message from it ends the run (the harvest's output failed, say). Returns (tests
run, tests that failed or errored, tests collected).

pytest's terminal output goes to stderr, since standard output may be the corpus; capturing is at the
level of sys, not of file descriptors, so that what ferry writes is never captured.
"""

import os
import sys


def run(path, around, progress, stop=lambda: None, import_mode=None, extra_args=(), skip=0,
        started=lambda item: None, finished=lambda done, failed: None):
    """Run the tests of path (a file or a directory) in this process; see the module's comment.
    import_mode "importlib" imports test modules without touching sys.path, for a checkout of a
    library's own source tree whose packages would otherwise shadow (or clash with) the installed
    library's. Raises FileNotFoundError for a path that does not exist."""
    import pytest

    if not os.path.exists(path):
        raise FileNotFoundError(f"no such pytest path: {path!r}")

    class Counter:
        """Counts each test once (its call phase, or a setup that did not pass) and reports progress."""

        def __init__(self):
            self.total = 0
            self.collected = 0
            self.done = 0
            self.failed = 0

        @pytest.hookimpl(trylast=True)  # after any reordering by conftest files and plugins
        def pytest_collection_modifyitems(self, session, config, items):
            self.collected = len(items)
            self.total = len(items)
            if skip:
                config.hook.pytest_deselected(items=items[:skip])
                items[:] = items[skip:]

        def pytest_collectreport(self, report):
            # a test file that cannot be imported: one failure, and the others run; counted by the
            # process that collected it first
            if report.failed and not skip:
                self.done += 1
                self.failed += 1

        def pytest_runtest_logreport(self, report):
            if report.when == "call" or (report.when == "setup" and not report.passed):
                self.done += 1
                if report.failed:
                    self.failed += 1
                progress(min(skip, self.total) + self.done, self.total)

    counter = Counter()

    class Wrap:
        @pytest.hookimpl(hookwrapper=True)
        def pytest_runtest_protocol(self, item, nextitem):
            started(item)
            yield
            finished(counter.done, counter.failed)

        @pytest.hookimpl(hookwrapper=True)
        def pytest_runtest_call(self, item):
            with around(item):
                yield
            why = stop()
            if why:
                pytest.exit(why, returncode=3)

    root = path if os.path.isdir(path) else os.path.dirname(os.path.abspath(path))
    # no:randomly: a plugin that shuffles the tests would break the numbering that skip relies on
    args = [path, "-q", "-p", "no:cacheprovider", "-p", "no:randomly", "--capture=sys", "-o", "addopts=",
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
    return counter.done, counter.failed, counter.collected
