"""ferry.extract.harvest_common: the bookkeeping every library's harvester shares (harvest_torch,
harvest_keras).

    suites = harvest_common.suites("torch", SUITES, suites, pytest)
    h = harvest_common.Harvest(ferry, patterns, progress_every=20)
    with Recorder(h.emit) as h.recorder:
        ... each test: if h.begin(name): run it under h.recorder; h.tests += 1; h.finish() ...
        for path in pytest or ():
            h.pytest(path, seed)

A Harvest keeps the records whose op or test name matches one of the patterns and sends them on
through ferry.emit as JSON text (an error there stops the harvest: check() raises it again once the
test it happened in is over), numbers the tests through channel.begin and finish, reports progress
every so many tests, and counts: tests run, failures by kind ("pytest tests failed or errored",
"docstring examples failed"), and the calls the recorder did not record. pytest() runs a pytest path
in this process (extract/pytests.py) with each test's call phase recorded and labelled with its
node id.
"""

import contextlib
import fnmatch
import inspect
import json
import os

from ferry.extract import channel, pytests

PYTEST_FAILED = "pytest tests failed or errored"
# The counts the engine reads to say why a harvest is empty (extract/harvest.c, harvest_why_empty).
NOT_RECORDED = "calls not recorded"
NOT_RECORDED_BY = "not recorded: "      # + reason: the calls not recorded for that reason
FILTERED = "instances left out by --filter"
IMPORT_FAILED = "test files that failed to import"
IMPORT_ERROR = "test file failed to import: "  # + "FILE: error": a skip reason


def where(obj, package):
    """(file relative to the directory that holds package's top folder, line) where obj (a class or
    function of the library, package its top module) is defined, or None where it has no source."""
    try:
        path = os.path.abspath(inspect.getsourcefile(obj))
        line = inspect.getsourcelines(obj)[1]
    except (TypeError, OSError):
        return None
    parent = os.path.dirname(os.path.dirname(os.path.abspath(package.__file__)))
    return (os.path.relpath(path, parent) if path.startswith(parent + os.sep) else path), line


def suites(library, known, given, pytest):
    """The suites to run: the given ones, or all known ones when neither suites nor pytest paths
    are given. Raises ValueError for a suite not known."""
    if not given and not pytest:
        given = list(known)
    unknown = [s for s in given or () if s not in known]
    if unknown:
        raise ValueError(f"unknown {library} suite {unknown[0]!r} (known: {', '.join(known)})")
    return given


class Harvest:
    def __init__(self, ferry, patterns, progress_every, failures=()):
        self.ferry = ferry
        self.patterns = list(patterns)
        self.progress_every = progress_every
        self.recorder = None
        self.tests = 0
        self.failed = dict.fromkeys(failures, 0)  # "docstring examples failed" and the like -> count
        self.error = None  # an exception from ferry.emit: the harvest stops on it
        self.filtered = 0  # records the patterns left out
        self.import_failed = 0

    def counts(self):
        counts = {"tests": self.tests}
        counts.update(self.failed)
        dropped = self.recorder.dropped if self.recorder else {}
        counts[NOT_RECORDED] = sum(dropped.values())
        for why, n in dropped.items():
            counts[NOT_RECORDED_BY + why] = n
        if self.patterns:
            counts[FILTERED] = self.filtered
        if self.import_failed:
            counts[IMPORT_FAILED] = self.import_failed
        return counts

    def count_failure(self, what):
        self.failed[what] = self.failed.get(what, 0) + 1

    def begin(self, name):
        """Whether to run the next test (channel.begin)."""
        return channel.begin(self.ferry, name)

    def finish(self):
        channel.finish(self.ferry, self.counts())

    def sample(self, k, name):
        """Whether to run sample k (named name) of the test that began last (channel.sample)."""
        return channel.sample(self.ferry, k, name, self.counts())

    def done_before(self, k):
        """Whether an earlier process did sample k of the test that began last."""
        return channel.done_before(self.ferry, k)

    def wanted(self, *names):
        return not self.patterns or any(fnmatch.fnmatchcase(n, p) for n in names for p in self.patterns)

    def emit(self, record):
        if self.error is not None:
            return
        # an operator's internal name (op_alias: torch.functional.tensordot) selects it as its public one does
        names = [record["op"], record["source"].get("test", "")] + ([record["op_alias"]] if "op_alias" in record else [])
        if not self.wanted(*names):
            self.filtered += 1
            return
        try:
            self.ferry.emit(json.dumps(record, separators=(",", ":"), allow_nan=False))
        except BaseException as e:  # a write error or an interrupt: stop the harvest, not one test
            self.error = e
            raise

    def check(self):
        if self.error is not None:
            raise self.error

    def progress(self, done, total, label):
        if done % self.progress_every == 0 or done == total:
            self.ferry.progress(done, total, label)

    def pytest(self, path, seed, import_mode=None, suite="pytest"):
        """Run the tests of a pytest path, each test's call phase recorded after seed() under
        source.suite suite; see pytests.run for import_mode. A test file that cannot be imported
        is said (ferry.skip, with the file and the exception whole) and counted."""
        @contextlib.contextmanager
        def around(item):
            seed()
            self.recorder.source = {"suite": suite, "test": item.nodeid}
            with self.recorder.recording():
                yield

        def progress(done, total):
            self.progress(done, total, suite)

        def stop():
            return f"the harvest stopped: {self.error}" if self.error is not None else None

        tests_before, failed_before = self.tests, self.failed.get(PYTEST_FAILED, 0)

        def started(item):
            channel.begin(self.ferry, item.nodeid)

        def finished(done, failed):
            self.tests, self.failed[PYTEST_FAILED] = tests_before + done, failed_before + failed
            self.finish()

        def not_imported(file, why):
            self.import_failed += 1
            self.ferry.skip(f"{IMPORT_ERROR}{file}: {why}", file)

        skip, collected = channel.span(self.ferry)
        tests, failed, n = pytests.run(path, around, progress, stop, import_mode=import_mode, skip=skip,
                                       started=started, finished=finished, not_imported=not_imported)
        collected(n)
        self.tests, self.failed[PYTEST_FAILED] = tests_before + tests, failed_before + failed
        self.check()
