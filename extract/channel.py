"""ferry.extract.channel: the harvest child's end of its channel to ferry harvest.

ferry harvest (src/cmd-harvest.c) runs a source's harvest in a child process, ferry harvest-child
(src/cmd-harvest-child.c), which calls run() here. The harvesters (harvest_SOURCE.harvest) are handed
a Channel as their `ferry`: besides emit, skip and progress, it numbers the tests, the units that a
test that exits, crashes or hangs takes down with it (one OpInfo entry, one pytest item, one
docstring, one node test), and it skips the first `resume` of them: a child that replaces one that
died goes on from the test after the one that killed it. Tests come in the same order run after run
(the suites are sorted; pytest collects in a fixed order), so a number names the same test each time.
A test that yields many samples (an OpInfo or ModuleInfo entry: every sample of every dtype) numbers
them too, in the same fixed order (sample()): a sample that hangs or kills its process costs that
sample, not the rest of its test, since the next child runs the test again from the sample after it
(`resume_sample`), passing over those an earlier child did.

One line per message, a word and a JSON value, written whole the moment it is made (nothing is
buffered in this process, so what a test recorded before it died has reached ferry):

    emit RECORD           a record, as the harvester made it
    skip [reason, where]  a test that yields no instance, and why
    progress [done, total, label]
    test [index, name]    test number index starts
    sample [k, name, COUNTS]  sample k of that test starts (each sample has the timeout); COUNTS:
                          as of then, so that what ran before a sample that hangs is counted
    done COUNTS           it finished; COUNTS: this process's counts so far ({"tests": n, ...})
    end COUNTS            the harvest is complete

Harvesters also run without a Channel (bench/torch hands them a sink of its own): the functions
begin(), finish() and span() below do the right thing with either.
"""

import importlib
import json
import os


class Channel:
    def __init__(self, fd, resume=0, resume_sample=0):
        import _ferry  # the C side's module: the channel's words (pool/protocol.h); only a child of ferry has it
        self._words = _ferry
        self._fd = fd
        self.resume = resume  # the first test to run
        self.resume_sample = resume_sample  # of it, the first sample to run
        self.index = 0        # the number of the next test
        self._samples_done = 0  # of the test that runs, the samples an earlier child did

    def _send(self, word, text):
        data = memoryview(f"{word} {text}\n".encode("utf-8", "surrogateescape"))
        while data:
            data = data[os.write(self._fd, data):]

    def emit(self, text):
        self._send(self._words.CH_EMIT, text)

    def skip(self, reason, where):
        self._send(self._words.CH_SKIP, json.dumps([reason, where]))

    def progress(self, done, total, label=""):
        self._send(self._words.CH_PROGRESS, json.dumps([done, total, label]))

    def test(self, name):
        """Number the next test; True when it is to run (it was not done by an earlier process)."""
        index = self.index
        self.index += 1
        if index < self.resume:
            return False
        self._samples_done = self.resume_sample if index == self.resume else 0
        self._send(self._words.CH_TEST, json.dumps([index, name]))
        return True

    def done_before(self, k):
        """Whether sample k of the test that runs was done by an earlier process: what it did and
        said there (its records, its skips) is not to be done or said again."""
        return k < self._samples_done

    def sample(self, k, name, counts):
        """Sample k of the test that runs starts, counts being the harvest's so far; True when it is
        to run."""
        if self.done_before(k):
            return False
        self._send(self._words.CH_SAMPLE, json.dumps([k, name, counts]))
        return True

    def done(self, counts):
        self._send(self._words.CH_DONE, json.dumps(counts))

    def end(self, counts):
        self._send(self._words.CH_END, json.dumps(counts))


def begin(ferry, name):
    """A test starts: whether to run it."""
    test = getattr(ferry, "test", None)
    return test(name) if test is not None else True


def finish(ferry, counts):
    """The test that began last has finished; counts are the harvest's counts so far."""
    done = getattr(ferry, "done", None)
    if done is not None:
        done(counts)


def sample(ferry, k, name, counts):
    """Sample k (named name) of the test that began last starts, counts being the harvest's so far:
    whether to run it."""
    start = getattr(ferry, "sample", None)
    return start(k, name, counts) if start is not None else True


def done_before(ferry, k):
    """Whether sample k of the test that began last was done by an earlier process."""
    done = getattr(ferry, "done_before", None)
    return done(k) if done is not None else False


def span(ferry):
    """For a run of tests whose number is known only once they are collected (a pytest path): how
    many of them an earlier process did (to be skipped), and a function to call with their number
    once known, which moves the numbering past them."""
    if not isinstance(ferry, Channel):
        return 0, lambda n: None
    base = ferry.index
    skip = max(0, ferry.resume - base)
    ferry.index = base + skip  # the tests that run are numbered from here, by test()

    def collected(n):
        ferry.index = base + n
    return skip, collected


def run(fd, source, patterns, suites, pytest, resume, resume_sample=0):
    """The child's harvest: harvest_SOURCE.harvest with a Channel on fd, then the end line."""
    channel = Channel(fd, resume, resume_sample)
    harvester = importlib.import_module(f"ferry.extract.harvest_{source}")
    kwargs = {}
    if suites:
        kwargs["suites"] = list(suites)
    if pytest:
        kwargs["pytest"] = list(pytest)
    counts = harvester.harvest(channel, list(patterns), **kwargs)
    channel.end(counts)
