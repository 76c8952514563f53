"""The cost of PyTorch's instrumentation: the shipped suites (or the ones named) harvested in this
process with the instrumentation and without it (harvest_torch's instrument=False runs the same
cases, calls and modules with nothing patched and nothing recorded), each run in a fresh process,
and, with --before REV, with the instrumentation as it was at git revision REV as well.

    .venv/bin/python bench/torch/bench_harvest.py [--suite NAME]... [--filter GLOB]...
        [--before REV] [--repeat N] [--parallel] [--threads N] [--pydir DIR]

Prints one line per run (seconds of CPU and of wall clock, cases run, records made, a digest of the
records), then the medians per mode and the slowdowns: instrumented over uninstrumented, now and
(with --before) at REV, and the ratio of the two. The modes of a round run side by side
(--parallel) or one after another, each round in another order, so that the machine's load falls on
every mode alike. The ratios are of CPU time: on a machine
that others share, wall clock measures their load as much as ours, while the CPU time of a
process whose PyTorch runs one thread (--threads, 1 by default) measures its own work. The records
are counted and digested, not written: what is measured is the instrumentation, not ferry's corpus
I/O (bench/torch/run.sh times the real ferry harvest as well); equal digests before and after say
that the records, and so the ids ferry makes from them, did not change."""

import argparse
import hashlib
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

top = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


class Sink:
    """Stands in for ferry's built-in module: counts the records and digests them in order, with
    the directory of the ferry package measured left out (a call that harvest_torch makes itself
    names harvest_torch.py as its site, and the package before is in a scratch directory)."""

    def __init__(self, pydir):
        self.records = 0
        self.skips = 0
        self.digest = hashlib.sha256()
        self.pydir = json.dumps(os.path.abspath(pydir) + os.sep)[1:-1]

    def emit(self, text):
        self.records += 1
        self.digest.update(text.replace(self.pydir, "").encode())
        self.digest.update(b"\n")

    def skip(self, reason, where):
        self.skips += 1

    def progress(self, done, total, label=""):
        pass


def one(mode, pydir, suites, patterns, threads):
    """One harvest in this process: mode "off" uninstrumented, else instrumented, with the ferry
    package found in pydir."""
    sys.path.insert(0, pydir)
    import torch

    from ferry.extract import harvest_torch
    if threads:
        torch.set_num_threads(threads)
    sink = Sink(pydir)
    wall, cpu = time.perf_counter(), time.process_time()
    counts = harvest_torch.harvest(sink, patterns, suites=suites or None, instrument=(mode != "off"))
    cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
    print(json.dumps({"mode": mode, "cpu": round(cpu, 2), "wall": round(wall, 2), "tests": counts["tests"],
                      "records": sink.records, "digest": sink.digest.hexdigest()[:16]}))


def before_tree(rev, scratch):
    """A python/ directory holding the ferry package with extract/ as it was at git revision rev
    (the instrumentation is all of ferry that a harvest in Python imports)."""
    pkg = os.path.join(scratch, "python", "ferry")
    os.makedirs(pkg)
    with open(os.path.join(pkg, "__init__.py"), "w", encoding="utf-8"):
        pass
    archive = subprocess.run(["git", "-C", top, "archive", rev, "extract"], check=True, stdout=subprocess.PIPE).stdout
    subprocess.run(["tar", "-x", "-C", pkg], input=archive, check=True)
    return os.path.join(scratch, "python")


def command(args, mode, pydir):
    cmd = [sys.executable, __file__, "--mode", mode, "--pydir", pydir, "--threads", str(args.threads)]
    for s in args.suite:
        cmd += ["--suite", s]
    for f in args.filter:
        cmd += ["--filter", f]
    return cmd


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--suite", action="append", default=[])
    ap.add_argument("--filter", action="append", default=[])
    ap.add_argument("--before", metavar="REV", help="measure the instrumentation of git revision REV too")
    ap.add_argument("--repeat", type=int, default=1, metavar="N", help="runs per mode (medians are reported)")
    ap.add_argument("--parallel", action="store_true",
                    help="run the modes of each round at the same time (CPU time is compared, not wall clock)")
    ap.add_argument("--threads", type=int, default=1, metavar="N",
                    help="PyTorch's threads in each run (0: PyTorch's default)")
    ap.add_argument("--pydir", default=os.path.join(top, "python"),
                    help="the directory holding the ferry package to measure (the build tree's python/)")
    ap.add_argument("--mode", choices=("off", "on", "before"), help=argparse.SUPPRESS)  # one run, in this process
    args = ap.parse_args()
    if args.mode:
        one(args.mode, args.pydir, args.suite, args.filter, args.threads)
        return
    scratch = tempfile.mkdtemp(prefix="ferry-bench-")
    try:
        pydirs = {"off": args.pydir, "on": args.pydir}
        if args.before:
            pydirs["before"] = before_tree(args.before, scratch)
        runs = {mode: [] for mode in pydirs}
        modes = list(pydirs)
        for k in range(args.repeat):
            order = modes[k % len(modes):] + modes[:k % len(modes)]
            # --parallel: the modes of a round side by side, each meeting the same load
            for group in [order] if args.parallel else [[mode] for mode in order]:
                children = {mode: subprocess.Popen(command(args, mode, pydirs[mode]), stdout=subprocess.PIPE, text=True)
                            for mode in group}
                for mode, child in children.items():
                    out = child.communicate()[0]
                    if child.returncode != 0:
                        sys.exit(f"the {mode} run failed (exit {child.returncode})")
                    r = json.loads(out.strip().splitlines()[-1])
                    runs[mode].append(r)
                    print(f"{mode:6} cpu {r['cpu']:8.1f} s  wall {r['wall']:8.1f} s  {r['tests']:7} cases  "
                          f"{r['records']:7} records  digest {r['digest']}", flush=True)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    med = {mode: {k: statistics.median(r[k] for r in rs) for k in ("cpu", "wall")} for mode, rs in runs.items()}
    for mode, m in med.items():
        print(f"median {mode:6} cpu {m['cpu']:8.1f} s  wall {m['wall']:8.1f} s  ({len(runs[mode])} runs)")
    print(f"slowdown: {med['on']['cpu'] / med['off']['cpu']:.2f}x CPU ({med['on']['wall'] / med['off']['wall']:.2f}x wall)")
    if args.before:
        before = med["before"]["cpu"] / med["off"]["cpu"]
        print(f"slowdown at {args.before}: {before:.2f}x CPU ({med['before']['wall'] / med['off']['wall']:.2f}x wall); "
              f"instrumented now / then: {med['on']['cpu'] / med['before']['cpu']:.2f}")
        # round by round: the record stream of the shipped suites differs between runs started at
        # different times (seen, not yet explained), while runs started together agree
        differ = [k for k, (a, b) in enumerate(zip(runs["on"], runs["before"])) if a["digest"] != b["digest"]]
        if differ:
            sys.exit(f"records: DIFFERENT before and after in round {differ[0] + 1}"
                     + ("" if args.parallel else " (runs one after another: try --parallel)"))
        print("records: the same before and after" + (" in every round" if args.repeat > 1 else ""))


if __name__ == "__main__":
    main()
