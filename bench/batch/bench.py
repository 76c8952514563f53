"""bench/batch/bench.py: ferry run --batch K against --batch 1 (bench/batch/run.sh says what and why).

Each run is one ferry command; its CPU time is the command's and its children's (the workers, which
the runner reaps), read from getrusage(RUSAGE_CHILDREN) around it."""
import argparse
import importlib.util
import os
import resource
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import time

MODULES = {"ort": "onnxruntime", "tvm-onnx": "tvm", "openvino-onnx": "openvino", "iree-onnx": "iree.runtime",
           "inductor": "torch", "torch-onnx-ort": "onnxruntime", "tvm-pytorch": "tvm", "openvino-fx": "openvino"}


def installed(fe):
    if importlib.util.find_spec(MODULES.get(fe, fe).split(".")[0]) is None:
        return False
    return fe != "iree-onnx" or shutil.which("iree-compile") or os.path.exists(
        os.path.join(os.path.dirname(sys.executable), "iree-compile"))


def run(args, fe, k):
    store = os.path.join(args.work, f"{fe}-batch{k}.db")
    for suffix in ("", "-wal", "-shm"):
        if os.path.exists(store + suffix):
            os.remove(store + suffix)
    cmd = [args.ferry, "run", args.wrapped, "-F", fe, "-o", store, "-q", "-j", str(args.j),
           "--queue", args.queue, "-n", str(args.n), "--batch", str(k)]
    # TorchInductor keeps compiled kernels across processes: each run compiles into a cache of its own.
    cache = tempfile.mkdtemp(prefix="ferry-bench-inductor-")
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.monotonic()
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL, env=dict(os.environ, TORCHINDUCTOR_CACHE_DIR=cache))
    wall = time.monotonic() - start
    shutil.rmtree(cache, ignore_errors=True)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    with sqlite3.connect(store) as db:
        rows = db.execute("SELECT r.id, i.op, r.outcome, coalesce(r.batch, 0) FROM results r JOIN instances i"
                          " USING(id) WHERE r.frontend = ?", (fe,)).fetchall()
    return {"cpu": cpu, "wall": wall, "outcomes": {r[0]: (r[1], r[2]) for r in rows},
            "batched": sum(1 for r in rows if r[3] > 1)}


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--ferry", required=True)
    p.add_argument("--wrapped", required=True)
    p.add_argument("--queue", required=True)
    p.add_argument("--work", required=True)
    p.add_argument("-n", type=int, default=200)
    p.add_argument("-j", type=int, default=1)
    p.add_argument("--batches", default="1 8 32")
    p.add_argument("--frontends", default="ort tvm-onnx openvino-onnx iree-onnx")
    args = p.parse_args()
    batches = [int(k) for k in args.batches.split()]
    if batches[0] != 1:
        batches.insert(0, 1)
    lines, diffs = [], []
    for fe in args.frontends.split():
        if not installed(fe):
            lines.append(f"{fe:<14} not installed: left out")
            continue
        base = None
        for k in batches:
            print(f"== {fe} --batch {k}", file=sys.stderr, flush=True)
            r = run(args, fe, k)
            n = len(r["outcomes"])
            rate = n / r["cpu"] if r["cpu"] > 0 else float("nan")
            if base is None:
                base = r
                base_rate = rate
            same = sum(1 for t, o in r["outcomes"].items() if base["outcomes"].get(t, (None, None))[1] == o[1])
            for t, (op, o) in sorted(r["outcomes"].items()):
                b = base["outcomes"].get(t, (op, None))[1]
                if b != o:
                    diffs.append(f"  {fe} --batch {k}: {op} {t[:12]}: {b} alone, {o} batched")
            fails = sum(1 for _, o in r["outcomes"].values() if o != "pass")
            lines.append(f"{fe:<14} {k:>5} {n:>6} {fails:>6} {r['batched']:>8} {r['cpu']:>9.1f} {r['wall']:>8.1f}"
                         f" {rate:>10.2f} {rate / base_rate:>7.2f}x {same:>5}/{n}")
    print(f"{'frontend':<14} {'batch':>5} {'tests':>6} {'fails':>6} {'batched':>8} {'cpu s':>9} {'wall s':>8}"
          f" {'tests/cpu':>10} {'ratio':>8} {'same outcome':>12}")
    print("\n".join(lines))
    print("differences from --batch 1:" if diffs else "differences from --batch 1: none")
    print("\n".join(diffs))


if __name__ == "__main__":
    main()
