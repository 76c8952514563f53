"""Benchmark of the shared pool (issue 18, item 3): the same N valid ONNX node tests on several ONNX
frontends (default ort, openvino-onnx, tvm-onnx), measured in one go:
  in turn       ferry run -F A -j 2, then -F B -j 2, then -F C -j 2 (the frontends one after another,
                as ferry ran them before the shared pool), into one fresh store
  shared -j 2   ferry run -F A,B,C -j 2: one pool of two workers for all three, into a fresh store
  shared -j 1   the same on one worker
and prints the ratios (in turn against shared, 1 against 2 workers), ferry's share of each test's time
per frontend (from the timing columns of the shared run's store), tests per CPU-hour (the CPU time of
ferry and its workers, user and system) and how busy the machine was (load averages before and after).
With FERRY_BEFORE (the ferry binary of an earlier commit: make bench-pool BEFORE=REV builds one), the
shared -j 2 run is made with it too, right after, and ferry's share is printed before and after.

usage: pool.py FERRY WORKDIR [N] [FRONTENDS]   (make bench-pool; N default 100)"""
import json
import os
import resource
import sqlite3
import statistics
import subprocess
import sys
import time


def load():
    with open("/proc/loadavg") as f:
        return " ".join(f.read().split()[:3])


def run(ferry, args):
    """Wall and CPU seconds (ferry and its workers: its children's rusage) of one ferry command."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.monotonic()
    subprocess.run([ferry, *args], check=True, stdout=subprocess.DEVNULL)
    wall = time.monotonic() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu


def fresh(path):
    for suffix in ("", "-wal", "-shm"):
        if os.path.exists(path + suffix):
            os.remove(path + suffix)
    return path


def main():
    ferry, work = sys.argv[1], sys.argv[2]
    n = int(sys.argv[3]) if len(sys.argv) > 3 else 100
    frontends = (sys.argv[4] if len(sys.argv) > 4 else "ort,openvino-onnx,tvm-onnx").split(",")
    os.makedirs(work, exist_ok=True)
    os.chdir(work)
    if not os.path.exists("corpus.jsonl"):
        subprocess.run([ferry, "harvest", "onnx", "-q", "-o", "corpus.jsonl"], check=True, stdout=subprocess.DEVNULL)
    if not os.path.exists("wrapped/wrapped.jsonl"):
        subprocess.run([ferry, "wrap", "corpus.jsonl", "-o", "wrapped", "-q"], check=True, stdout=subprocess.DEVNULL)
    # N valid node tests spread evenly over the wrap (a mix of operators), in wrap order.
    valid = [json.loads(line) for line in open("wrapped/wrapped.jsonl")]
    valid = [r["id"] for r in valid if r.get("wrap", {}).get("status") == "ok"]
    step = max(1, len(valid) // n)
    ids = valid[::step][:n]
    with open("queue.jsonl", "w") as f:
        for i in ids:
            f.write(json.dumps({"id": i}) + "\n")
    common = ["wrapped", "--queue", "queue.jsonl", "-q", "--timeout", "120"]
    load_before = load()

    in_turn_wall = in_turn_cpu = 0.0
    fresh("turn.db")
    for fe in frontends:
        wall, cpu = run(ferry, ["run", *common, "-F", fe, "-o", "turn.db", "-j", "2"])
        in_turn_wall += wall
        in_turn_cpu += cpu
    shared2_wall, shared2_cpu = run(ferry, ["run", *common, "-F", ",".join(frontends), "-o", fresh("shared2.db"),
                                            "-j", "2"])
    shared1_wall, shared1_cpu = run(ferry, ["run", *common, "-F", ",".join(frontends), "-o", fresh("shared1.db"),
                                            "-j", "1"])
    before = os.environ.get("FERRY_BEFORE")
    if before:
        before_wall, before_cpu = run(before, ["run", *common, "-F", ",".join(frontends), "-o", fresh("before.db"),
                                               "-j", "2"])
    load_after = load()

    def outcomes(path):
        db = sqlite3.connect(path)
        return dict(((f, i), o) for f, i, o in db.execute("SELECT frontend, id, outcome FROM results"))

    same = outcomes("turn.db") == outcomes("shared2.db") == outcomes("shared1.db")
    if before:
        same = same and outcomes("before.db") == outcomes("shared2.db")
    tests = len(outcomes("shared2.db"))
    print(f"tests: {len(ids)} valid ONNX node tests on {', '.join(frontends)} ({tests} results per run),"
          f" {os.cpu_count()} cores")
    print(f"machine load (1, 5, 15 min): {load_before} before, {load_after} after")
    print(f"  in turn, -j 2 each     {in_turn_wall:8.1f} s wall  {in_turn_cpu:8.1f} s CPU")
    print(f"  shared pool, -j 2      {shared2_wall:8.1f} s wall  {shared2_cpu:8.1f} s CPU")
    print(f"  shared pool, -j 1      {shared1_wall:8.1f} s wall  {shared1_cpu:8.1f} s CPU")
    print(f"shared pool against in turn (wall, -j 2): {in_turn_wall / shared2_wall:.2f}x")
    print(f"2 workers against 1 (wall, shared pool):  {shared1_wall / shared2_wall:.2f}x")
    print(f"outcomes per (frontend, test) the same in every run: {'yes' if same else 'NO'}")
    print(f"tests per CPU-hour: {3600 * tests / shared2_cpu:.0f} shared -j 2, {3600 * tests / in_turn_cpu:.0f} in turn;"
          f" per wall-hour on 2 cores: {3600 * tests / shared2_wall:.0f} shared, {3600 * tests / in_turn_wall:.0f}"
          f" in turn")
    if before:
        print(f"  before, shared -j 2    {before_wall:8.1f} s wall  {before_cpu:8.1f} s CPU ({before})")
        print(f"after against before (CPU, shared -j 2): {before_cpu / shared2_cpu:.2f}x")
    print("ferry's share of each test's time (shared -j 2; the rest is the frontend's load, compile, execute):")
    for label, path in (("before", "before.db"), ("after", "shared2.db")) if before else (("", "shared2.db"),):
        db = sqlite3.connect(path)
        for fe in frontends:
            rows = db.execute("SELECT load_seconds + compile_seconds + execute_seconds, ferry_seconds FROM results"
                              " WHERE frontend = ? AND ferry_seconds IS NOT NULL", (fe,)).fetchall()
            if not rows:
                print(f"  {label:6s} {fe:16s} no timed tests")
                continue
            frontend_s = sum(r[0] for r in rows)
            ferry_s = sum(r[1] for r in rows)
            shares = [r[1] / (r[0] + r[1]) for r in rows if r[0] + r[1] > 0]
            print(f"  {label:6s} {fe:16s} {len(rows):4d} tests  frontend {1000 * frontend_s / len(rows):8.2f} ms/test"
                  f"  ferry {1000 * ferry_s / len(rows):6.2f} ms/test"
                  f"  share {100 * ferry_s / (frontend_s + ferry_s):5.1f}% (median test"
                  f" {100 * statistics.median(shares):5.1f}%)")


if __name__ == "__main__":
    main()
