#!/usr/bin/env python3
"""What the main job's variants and generated graphs add: for each library directory of a ferry go
project (scripts/main's work/, or any -o DIR), each frontend's unique bugs (ferry bugs --json),
split by where their failing tests came from:

  harvested   at least one failing test is a harvested one (corpus.jsonl): found without extras
  variants    only variants (variants.jsonl) fail: found only because go ran them
  graphs      only generated graphs (generated*.jsonl) fail
  both        only variants and graphs fail

and the tests each kind ran. Usage: bench/main/extras.py DIR [FERRY]
"""
import collections
import json
import os
import sqlite3
import subprocess
import sys


def ids(path):
    if not os.path.exists(path):
        return set()
    with open(path) as f:
        return {json.loads(line)["id"] for line in f if line.strip()}


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__.strip().splitlines()[-1])
    top, ferry = sys.argv[1], sys.argv[2] if len(sys.argv) > 2 else "ferry"
    print(f"{'library':8} {'frontend':24} {'bugs':>5} {'harvested':>9} {'variants':>8} {'graphs':>6} {'both':>4}"
          f"   tests run: harvested, variants, graphs")
    totals = collections.Counter()
    for lib in sorted(os.listdir(top)):
        d = os.path.join(top, lib)
        store = os.path.join(d, "results.db")
        if not os.path.exists(store):
            continue
        kind = {}
        graphs = [f for f in sorted(os.listdir(d)) if f.startswith("generated") and f.endswith(".jsonl")]
        for name, path in [("graphs", g) for g in graphs] + [("variants", "variants.jsonl"),
                                                             ("harvested", "corpus.jsonl")]:
            for i in ids(os.path.join(d, path)):
                kind[i] = name
        out = subprocess.run([ferry, "bugs", store, "--json"], check=True, capture_output=True, text=True).stdout
        per = collections.defaultdict(collections.Counter)
        for bug in json.loads(out)["bugs"]:
            kinds = {kind.get(m["id"], "harvested") for m in bug["members"]}
            if "harvested" in kinds:
                k = "harvested"
            elif kinds == {"variants"}:
                k = "variants"
            elif kinds == {"graphs"}:
                k = "graphs"
            else:
                k = "both"
            per[bug["frontend"]][k] += 1
        ran = collections.defaultdict(collections.Counter)
        db = sqlite3.connect(f"file:{store}?mode=ro", uri=True)
        for fe, i in db.execute("SELECT frontend, id FROM results WHERE outcome != 'error'"):
            ran[fe][kind.get(i, "harvested")] += 1
        for fe in sorted(set(per) | set(ran)):
            c = per[fe]
            n = sum(c.values())
            totals.update(c)
            totals["bugs"] += n
            r = ran[fe]
            print(f"{lib:8} {fe:24} {n:5} {c['harvested']:9} {c['variants']:8} {c['graphs']:6} {c['both']:4}"
                  f"   {r['harvested']}, {r['variants']}, {r['graphs']}")
    print(f"{'all':8} {'':24} {totals['bugs']:5} {totals['harvested']:9} {totals['variants']:8} "
          f"{totals['graphs']:6} {totals['both']:4}")


if __name__ == "__main__":
    main()
