"""The cost of PyTorch's instrumentation: the shipped suites (or the ones named) harvested in this
process twice, with the instrumentation and without it (harvest_torch's instrument=False runs the
same cases, calls and modules with nothing patched and nothing recorded), each in a fresh process.

    .venv/bin/python bench/torch/bench_harvest.py [--suite NAME]... [--filter GLOB]... [--mode both|on|off]

Prints one line per mode: seconds, cases run, records made; then the slowdown. The records are
counted and dropped, not written: what is measured is the instrumentation, not ferry's corpus I/O
(bench/torch/run.sh times the real ferry harvest as well)."""

import argparse
import json
import os
import subprocess
import sys
import time

top = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


class Sink:
    """Stands in for ferry's built-in module: counts the records."""

    def __init__(self):
        self.records = 0
        self.skips = 0

    def emit(self, text):
        self.records += 1

    def skip(self, reason, where):
        self.skips += 1

    def progress(self, done, total, label=""):
        pass


def one(mode, suites, patterns):
    sys.path.insert(0, os.path.join(top, "python"))  # the build tree's ferry package (make)
    from ferry.extract import harvest_torch
    sink = Sink()
    start = time.perf_counter()
    counts = harvest_torch.harvest(sink, patterns, suites=suites or None, instrument=(mode == "on"))
    seconds = time.perf_counter() - start
    print(json.dumps({"mode": mode, "seconds": round(seconds, 2), "tests": counts["tests"],
                      "records": sink.records}))


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--suite", action="append", default=[])
    ap.add_argument("--filter", action="append", default=[])
    ap.add_argument("--mode", default="both", choices=("both", "on", "off"))
    args = ap.parse_args()
    if args.mode != "both":
        one(args.mode, args.suite, args.filter)
        return
    results = {}
    for mode in ("off", "on"):
        cmd = [sys.executable, __file__, "--mode", mode]
        for s in args.suite:
            cmd += ["--suite", s]
        for f in args.filter:
            cmd += ["--filter", f]
        out = subprocess.run(cmd, check=True, stdout=subprocess.PIPE, text=True).stdout
        results[mode] = json.loads(out.strip().splitlines()[-1])
        r = results[mode]
        print(f"instrumentation {mode:3}: {r['seconds']:8.1f} s  {r['tests']:7} cases  {r['records']:7} records")
    print(f"slowdown: {results['on']['seconds'] / results['off']['seconds']:.2f}x")


if __name__ == "__main__":
    main()
