"""bench/generate/support.py: generated graphs blind against graphs that know the frontend.

For each ONNX frontend installed: the probes (ferry generate --probes, each operator's simplest vertex
in every type signature it takes) run once through it (ferry run --probe-only), then N graphs are
generated blind (ferry generate) and N knowing what it lacks (ferry generate -F --support), the same
seed, and both run through it. One table: the probes' count and CPU time, and per corpus the share of
graphs the frontend called unsupported, the operators drawn, the unique bugs (ferry bugs) and the
valid tests per CPU-second. CPU time is the command's and its workers' (getrusage of the children)."""
import argparse
import json
import os
import re
import resource
import sqlite3
import subprocess
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "batch"))
from bench import installed  # noqa: E402  (bench/batch/bench.py: which frontends are installed)


def timed(cmd):
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.monotonic()
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime), time.monotonic() - start


def fresh(path):
    for suffix in ("", "-wal", "-shm"):
        if os.path.exists(path + suffix):
            os.remove(path + suffix)
    return path


def ops_of(corpus):
    ops = set()
    for line in open(corpus):
        ops.update(re.findall(r'"op":"([A-Za-z.]+)"', line))
    ops.discard("graph")
    return ops


def measure(args, fe, corpus, name):
    w = os.path.join(args.work, f"{fe}-{name}")
    store = fresh(w + ".db")
    subprocess.run([args.ferry, "wrap", corpus, "-o", w + ".wrapped", "-q"], check=True,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    cpu, wall = timed([args.ferry, "run", w + ".wrapped", "-F", fe, "-o", store, "-q", "--no-probe",
                       "-j", str(args.j)])
    with sqlite3.connect(store) as db:
        outcomes = dict(db.execute("SELECT outcome, count(*) FROM results WHERE frontend = ? GROUP BY 1", (fe,)))
    out = subprocess.run([args.ferry, "bugs", store, "--json"], check=True, capture_output=True, text=True).stdout
    bugs = sum(1 for b in json.loads(out)["bugs"] if b["frontend"] == fe)
    ran = sum(outcomes.values())
    return {"unsupported": outcomes.get("unsupported", 0), "ran": ran, "bugs": bugs, "ops": len(ops_of(corpus)),
            "valid_per_cpu": (ran - outcomes.get("unsupported", 0)) / cpu if cpu else 0.0, "cpu": cpu}


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--ferry", required=True)
    p.add_argument("--work", required=True)
    p.add_argument("-n", type=int, default=300)
    p.add_argument("-j", type=int, default=1)
    p.add_argument("--frontends", default="ort tvm-onnx openvino-onnx iree-onnx")
    args = p.parse_args()
    os.makedirs(args.work, exist_ok=True)
    probes = os.path.join(args.work, "probes.jsonl")
    subprocess.run([args.ferry, "generate", "--probes", "-o", probes, "-q"], check=True)
    subprocess.run([args.ferry, "wrap", probes, "-o", probes + ".wrapped", "-q"], check=True,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    nprobes = sum(1 for _ in open(probes))
    blind = os.path.join(args.work, "blind.jsonl")
    subprocess.run([args.ferry, "generate", "-n", str(args.n), "-o", blind, "-q"], check=True,
                   stdout=subprocess.DEVNULL)
    print(f"{args.n} graphs each (ferry generate --seed 1), blind and knowing the frontend; {nprobes} probes, "
          f"{args.j} worker(s)")
    print(f"{'frontend':14} {'probes cpu-s':>12}  {'unsupported':>21}  {'operators':>9}  {'unique bugs':>11}"
          f"  {'valid tests/cpu-s':>17}")
    print(f"{'':14} {'':>12}  {'blind':>10} {'known':>10}  {'bl':>4} {'kn':>4}  {'bl':>5} {'kn':>5}"
          f"  {'bl':>8} {'kn':>8}")
    for fe in args.frontends.split():
        if not installed(fe):
            print(f"{fe:14} not installed: left out")
            continue
        store = fresh(os.path.join(args.work, f"{fe}-support.db"))
        pcpu, _ = timed([args.ferry, "run", probes + ".wrapped", "-F", fe, "-o", store, "-q", "--probe-only",
                         "-j", str(args.j)])
        known = os.path.join(args.work, f"{fe}-known.jsonl")
        subprocess.run([args.ferry, "generate", "-n", str(args.n), "-F", fe, "--support", store, "-o", known,
                        "-q"], check=True, stdout=subprocess.DEVNULL)
        b, k = measure(args, fe, blind, "blind"), measure(args, fe, known, "known")
        share = lambda m: f"{m['unsupported']}/{m['ran']} {100.0 * m['unsupported'] / max(m['ran'], 1):3.0f}%"
        print(f"{fe:14} {pcpu:12.1f}  {share(b):>10} {share(k):>10}  {b['ops']:4} {k['ops']:4}  "
              f"{b['bugs']:5} {k['bugs']:5}  {b['valid_per_cpu']:8.2f} {k['valid_per_cpu']:8.2f}")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
