"""run.py: does ferry's order find more causes than random orders at equal budget? `make bench-rank-causes`
(on demand, never in make check; bench/README.md).

For each results store of a full run (every test of its set was run on every frontend, so any order of
them can be replayed from the store), on a scratch copy:
  1. `ferry bugs COPY --json` groups the failures as the checkout does (the copy's bugs table too);
  2. the store's instances are the tests: the harvested ones (no "variant", no "graph") alone, and with
     their variants (records with "variant"); generated graphs are left out (ranked apart by ferry go);
  3. per frontend, `ferry rank` orders each set as ferry go does (the frontend's own counts from
     corpora/counts/ where ferry go has one: ort, tvm-onnx, iree-onnx, tvm-pytorch) with `--seed` 1 to
     K (the seed that breaks its ties: one seed is one draw of ferry's order too), and `ferry rank
     --strategy random --seed S` orders it for each of N seeds;
  4. each order is cut to the tests that have a result on the frontend, and scored by what its prefix
     finds, three ways:
       bugs   ferry's bugs of kind "bug" (causes as the checkout groups them; "lacks" and the other
              kinds listed apart are not counted);
       labels the hand-labelled frontend-bug causes of bench/causes/labels.jsonl (only the sample of
              failures that is labelled reveals its cause);
       rules  the same hand-written rules (bench/causes/make-labels.py) applied to every failure of the
              store, without the labels' sample cap: every failure a frontend-bug rule matches reveals
              its cause;
     APFD (`ferry apfd` on a test_id,cause CSV) and the causes found in the first 10%, 25% and 50% of
     the tests; each as mean, min and max over the seeds.
A store's NAME must be the labels' store name (onnx-main, onnx-old, torch-main) for the labels and the
rules to apply; another name gets the bugs measure only.

usage: run.py --ferry FERRY [--seeds N] [--ferry-seeds K] [--work DIR] [--json FILE] NAME=STORE...
exit: 0, 2 usage, 3 when ferry fails, 4 when a store is unreadable
"""

import argparse
import collections
import importlib.util
import json
import math
import os
import shutil
import sqlite3
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.dirname(os.path.dirname(HERE))
CAUSES = os.path.join(TOP, "bench", "causes")
# ferry go's own counts per frontend (src/cmd-go.c); the others rank without counts.
COUNTS = {"ort": "onnxruntime-cpu", "tvm-onnx": "tvm-relax-onnx", "iree-onnx": "iree-onnx",
          "tvm-pytorch": "tvm-relax-torch"}
BUDGETS = (0.10, 0.25, 0.50)
MEASURES = ("bugs", "labels", "rules")


def die(code, msg):
    sys.stderr.write("bench-rank-causes: %s\n" % msg)
    sys.exit(code)


def ferry(args, path):
    try:
        return subprocess.run([args.ferry] + path, check=True, capture_output=True, text=True).stdout
    except (OSError, subprocess.CalledProcessError) as e:
        die(3, "%s %s failed: %s" % (args.ferry, " ".join(path), (getattr(e, "stderr", "") or str(e)).strip()))


def copy_store(src, dst):
    if not os.path.isfile(src):
        die(4, "no store %s" % src)
    try:
        s = sqlite3.connect("file:%s?mode=ro" % src, uri=True)
        d = sqlite3.connect(dst)
        s.backup(d)
        d.close()
        s.close()
    except sqlite3.Error as e:
        die(4, "cannot read the store %s: %s" % (src, e))


def rule_causes(stores):
    """{(store, frontend, test): cause} for every failure a frontend-bug rule of make-labels.py matches,
    the rules applied in their order (the first that matches claims the failure), without the cap."""
    spec = importlib.util.spec_from_file_location("make_labels", os.path.join(CAUSES, "make-labels.py"))
    ml = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(ml)
    rows = []
    for name, path in stores.items():
        if name in ml.STORES:
            rows += ml.load(path, name)
    ml.MESSAGES.update({(d["store"], d["fe"], d["id"]): d["msg"] for d in rows})
    if "onnx-main" in stores:
        c = sqlite3.connect("file:%s?mode=ro" % stores["onnx-main"], uri=True)
        ml.CURRENT_OV.update(c.execute("SELECT id, outcome FROM results WHERE frontend = 'openvino-onnx'").fetchall())
    out, claimed = {}, set()
    for rule in ml.RULES:
        for d in rows:
            key = (d["store"], d["fe"], d["id"])
            if key in claimed or not ml.store_ok(rule["store"], d["store"]) or not ml.re.search(rule["fe"], d["fe"]):
                continue
            if d["outcome"] not in rule["outcome"] or (rule["op"] and d["op"] != rule["op"]):
                continue
            m = ml.re.search(rule["msg"], d["msg"], ml.re.S | ml.re.M)
            if not m or (rule["pred"] and not rule["pred"](d)):
                continue
            fill = {"op": d["op"]}
            if "{aten}" in rule["cause"]:
                fill["aten"] = m.group(1)
            if "{onnxop}" in rule["cause"]:
                fill["onnxop"] = m.group(1)
            if "{op}" in rule["cause"] and m.lastindex:
                fill["op"] = m.group(m.lastindex)
            claimed.add(key)
            if rule["kind"] == "frontend-bug":
                out[key] = rule["cause"].format(**fill)
    return out


def read_queue(path):
    with open(path) as f:
        return [json.loads(line)["id"] for line in f if line.strip()]


def found_at(queue, reveals, k):
    seen = set()
    for t in queue[:k]:
        seen.update(reveals.get(t, ()))
    return len(seen)


def apfd(args, reveals, queues, scratch):
    """ferry apfd's APFD of each queue (label -> ids) for the test -> causes map."""
    csv = os.path.join(scratch, "reveals.csv")
    with open(csv, "w") as f:
        f.write("test_id,bug_id\n")
        for t, cs in sorted(reveals.items()):
            for c in sorted(cs):
                f.write("%s,%s\n" % (t, c.replace(",", ";")))
    files = []
    for label, q in queues.items():
        p = os.path.join(scratch, "q-%s.txt" % label)
        with open(p, "w") as f:
            f.write("".join(t + "\n" for t in q))
        files.append("%s=%s" % (label, p))
    out = ferry(args, ["apfd", "--bugs", csv, "--format", "csv"] + files).splitlines()
    head = out[0].split(",")
    res = {}
    for line in out[1:]:
        cells = dict(zip(head, line.split(",")))
        res[cells["queue"].strip('"')] = float(cells["apfd"]) if cells["apfd"] else None
    return res


def stats(xs):
    xs = [x for x in xs if x is not None]
    if not xs:
        return None
    return (sum(xs) / len(xs), min(xs), max(xs))


def measure_store(args, name, src, rules, labels, work):
    copy = os.path.join(work, name + ".db")
    copy_store(src, copy)
    bugs = json.loads(ferry(args, ["bugs", copy, "--json"]))["bugs"]
    db = sqlite3.connect(copy)
    sets = {"harvested": [], "with-variants": []}
    for (rec,) in db.execute("SELECT record FROM instances ORDER BY id"):
        r = json.loads(rec)
        if "graph" in r:
            continue
        line = rec if rec.endswith("\n") else rec + "\n"
        if "variant" not in r:
            sets["harvested"].append(line)
        sets["with-variants"].append(line)
    frontends = [fe for (fe,) in db.execute("SELECT DISTINCT frontend FROM results ORDER BY frontend") if "~" not in fe]
    ran = collections.defaultdict(set)
    for fe, test in db.execute("SELECT frontend, id FROM results"):
        ran[fe].add(test)
    rows = []
    for setname, lines in sets.items():
        corpus = os.path.join(work, "%s-%s.jsonl" % (name, setname))
        with open(corpus, "w") as f:
            f.writelines(lines)
        randoms = {}
        for s in range(1, args.seeds + 1):
            q = os.path.join(work, "%s-%s-random%d.jsonl" % (name, setname, s))
            ferry(args, ["rank", corpus, "-o", q, "--strategy", "random", "--seed", str(s), "-q"])
            randoms["random%d" % s] = read_queue(q)
        for fe in frontends:
            base = fe.split("@")[0]
            counts = ["--counts", os.path.join(TOP, "corpora", "counts", COUNTS[base] + ".json")] if base in COUNTS else []
            queues = {}
            for s in range(1, args.ferry_seeds + 1):
                q = os.path.join(work, "%s-%s-ferry%d-%s.jsonl" % (name, setname, s, fe))
                ferry(args, ["rank", corpus, "-o", q, "--seed", str(s), "-q"] + counts)
                queues["ferry%d" % s] = read_queue(q)
            mine = list(queues)
            queues.update(randoms)
            queues = {k: [t for t in v if t in ran[fe]] for k, v in queues.items()}
            n = len(queues["ferry1"])
            inset = set(queues["ferry1"])
            reveal = {m: collections.defaultdict(set) for m in MEASURES}
            for b in bugs:
                if b["frontend"] == fe and b.get("kind", "bug") == "bug":
                    for mem in b["members"]:
                        reveal["bugs"][mem["id"]].add(b["bug"])
            for (store, lfe, test), cause in labels.items():
                if store == name and lfe == fe:
                    reveal["labels"][test].add(cause)
            for (store, rfe, test), cause in rules.items():
                if store == name and rfe == fe:
                    reveal["rules"][test].add(cause)
            for m in MEASURES:
                rv = {t: cs for t, cs in reveal[m].items() if t in inset}
                total = len({c for cs in rv.values() for c in cs})
                if not total:
                    continue
                with tempfile.TemporaryDirectory(dir=work) as scratch:
                    a = apfd(args, rv, queues, scratch)
                row = {"store": name, "frontend": fe, "set": setname, "measure": m, "tests": n, "causes": total,
                       "apfd": stats([a[k] for k in mine])[0], "apfd_ferry": stats([a[k] for k in mine]),
                       "apfd_random": stats([a[k] for k in randoms])}
                for b in BUDGETS:
                    k = math.ceil(b * n)
                    found = stats([found_at(queues[f], rv, k) for f in mine])
                    row["at%d" % round(b * 100)] = found[0]
                    row["at%d_ferry" % round(b * 100)] = found
                    row["at%d_random" % round(b * 100)] = stats([found_at(queues[r], rv, k) for r in randoms])
                rows.append(row)
    db.close()
    return rows


def cell(v, fmt):
    return "-" if v is None else fmt % v


def rand(s, fmt):
    return "-" if s is None else ((fmt + " [" + fmt + "-" + fmt + "]") % s)


def print_table(rows, seeds, ferry_seeds):
    one = ferry_seeds == 1
    print("ferry's order (%s) against %d random orders (mean [min-max]); causes found in the first 10/25/50%% "
          "of the tests" % ("its default seed" if one else "mean [min-max] over %d tie-breaking seeds" % ferry_seeds,
                            seeds))
    fw = 6 if one else 19
    head = "%-10s %-22s %-13s %-6s %6s %6s " + ("%-*s %-19s " + "%-*s %-16s " * 3)
    print(head % ("store", "frontend", "set", "meas", "tests", "causes", fw, "APFD", "APFD random", fw - 1, "@10",
                  "random", fw - 1, "@25", "random", fw - 1, "@50", "random"))
    for r in rows:
        def mine(k, f, r=r):
            return f % r[k] if one else rand(r[k + "_ferry"], f)
        print(head % (r["store"], r["frontend"], r["set"], r["measure"], r["tests"], r["causes"],
                      fw, mine("apfd", "%.3f"), rand(r["apfd_random"], "%.3f"),
                      fw - 1, mine("at10", "%d" if one else "%.1f"), rand(r["at10_random"], "%.1f"),
                      fw - 1, mine("at25", "%d" if one else "%.1f"), rand(r["at25_random"], "%.1f"),
                      fw - 1, mine("at50", "%d" if one else "%.1f"), rand(r["at50_random"], "%.1f")))
    print()
    print("summed over the frontends: causes found by ferry's order%s / by random's mean, and the number of "
          "frontends where ferry's order finds more (+), as many (=), fewer (-) than random's mean"
          % ("" if one else " (its mean)"))
    stores = list(dict.fromkeys(r["store"] for r in rows))
    for store, m, s in [(st, m, s) for st in stores + ["all"] for m in MEASURES for s in ("harvested", "with-variants")]:
        sel = [r for r in rows if r["measure"] == m and r["set"] == s and store in ("all", r["store"])]
        if sel:
            parts = []
            for b in (10, 25, 50):
                f = sum(r["at%d" % b] for r in sel)
                rm = sum(r["at%d_random" % b][0] for r in sel)
                win = sum(r["at%d" % b] > r["at%d_random" % b][0] + 1e-9 for r in sel)
                lose = sum(r["at%d" % b] < r["at%d_random" % b][0] - 1e-9 for r in sel)
                parts.append(("@%d %4d/%6.1f" if one else "@%d %6.1f/%6.1f") % (b, f, rm)
                             + " (%d+ %d= %d-)" % (win, len(sel) - win - lose, lose))
            ap = [r for r in sel if r["apfd"] is not None and r["apfd_random"]]
            aw = sum(r["apfd"] > r["apfd_random"][0] for r in ap)
            print("%-10s %-6s %-13s %s  APFD above random's mean: %d of %d" % (store, m, s, "  ".join(parts), aw,
                                                                             len(ap)))


def main():
    ap = argparse.ArgumentParser(description="APFD and causes found at equal budget, ferry's order against random")
    ap.add_argument("--ferry", required=True)
    ap.add_argument("--seeds", type=int, default=10, help="random orders (seeds 1..N), default 10")
    ap.add_argument("--ferry-seeds", type=int, default=1,
                    help="ferry's order with tie-breaking seeds 1..N (default 1, ferry rank's default)")
    ap.add_argument("--work", help="scratch directory (default a temporary one, removed at the end)")
    ap.add_argument("--labels", default=os.path.join(CAUSES, "labels.jsonl"))
    ap.add_argument("--json", metavar="FILE", help="also write the rows as JSON")
    ap.add_argument("stores", nargs="+", metavar="NAME=STORE")
    args = ap.parse_args()
    if args.seeds < 1 or args.ferry_seeds < 1:
        die(2, "--seeds and --ferry-seeds must be 1 or more")
    stores = {}
    for s in args.stores:
        if "=" not in s:
            die(2, "expected NAME=STORE, got '%s'" % s)
        name, path = s.split("=", 1)
        if not os.path.isfile(path):
            die(4, "no store %s" % path)
        stores[name] = path
    try:
        with open(args.labels) as f:
            labels = {(lab["store"], lab["frontend"], lab["test"]): lab["cause"]
                      for lab in map(json.loads, (x for x in f if x.strip())) if lab["kind"] == "frontend-bug"}
    except (OSError, ValueError, KeyError) as e:
        die(4, "cannot read the labels %s: %s" % (args.labels, e))
    own = args.work is None
    work = tempfile.mkdtemp(prefix="bench-rank-causes.") if own else args.work
    os.makedirs(work, exist_ok=True)
    try:
        rules = rule_causes(stores)
        rows = []
        for name, path in stores.items():
            rows += measure_store(args, name, path, rules, labels, work)
    finally:
        if own:
            shutil.rmtree(work, ignore_errors=True)
    print_table(rows, args.seeds, args.ferry_seeds)
    if args.json:
        with open(args.json, "w") as f:
            json.dump(rows, f, indent=1)


if __name__ == "__main__":
    main()
