"""Score ferry's grouping against the hand-labelled causes (bench/causes/README.md).

For each store copy, runs `FERRY bugs COPY --json` on a scratch copy (bugs rewrites the store's bugs
table) and compares the listed bugs with labels.jsonl:

  purity         share of listed bugs whose labelled members all have one cause
  fragmentation  bugs per cause, over the causes of kind frontend-bug that appear in the list: mean, max
  precision      share of listed bugs whose members are mostly (more than half) of kind frontend-bug
  recall         share of the labelled frontend-bug causes that appear in some listed bug
  kept out       share of the labelled failures of other kinds that are in no listed bug

The copies also hold what the other frontends made of each labelled test (evidence a grouping may
weigh); a listed bug with no labelled member is no bug of the labels' and is not scored.

A cause is counted per store and frontend (the same defect seen by two frontends is two causes).

usage: score.py --ferry FERRY [--labels LABELS] [--json] [--detail] STORE.db...
exit: 0, 2 usage, 3 when ferry fails, 4 when a store or the labels are unreadable
"""

import argparse
import collections
import json
import os
import shutil
import sqlite3
import subprocess
import sys
import tempfile


def bugs_of(ferry, store, scratch):
    copy = os.path.join(scratch, os.path.basename(store))
    shutil.copyfile(store, copy)
    try:
        out = subprocess.run([ferry, "bugs", copy, "--json"], check=True, capture_output=True, text=True).stdout
    except (OSError, subprocess.CalledProcessError) as e:
        err = getattr(e, "stderr", "") or str(e)
        sys.stderr.write("score: %s bugs %s failed: %s\n" % (ferry, store, err.strip()))
        sys.exit(3)
    return json.loads(out)["bugs"]


def held(store, labels):
    """The labels of the tests the copy holds a result of: refresh-limits.py takes out of a copy what
    today's ferry would never have made, and its labels with it."""
    try:
        d = sqlite3.connect("file:" + store + "?mode=ro", uri=True)
        have = set(d.execute("SELECT frontend, id FROM results"))
        d.close()
    except sqlite3.Error as e:
        sys.stderr.write("score: cannot read %s: %s\n" % (store, e))
        sys.exit(4)
    return {k: v for k, v in labels.items() if k in have}


def score(labels, bugs, detail=None):
    """labels: {(frontend, test): label} of one store; bugs: ferry's list; detail: a list to add the
    impure bugs and the split causes to, as lines."""
    pure = precise = 0
    per_cause = collections.Counter()
    listed = set()
    bugs = [b for b in bugs if any((b["frontend"], m["id"]) in labels for m in b["members"])]
    # What ferry lists apart from the bugs (a frontend lacking an operator) is not in the bug list.
    bugs = [b for b in bugs if b.get("kind", "bug") == "bug"]
    for b in bugs:
        members = [labels.get((b["frontend"], m["id"])) for m in b["members"]]
        known = [m for m in members if m]
        for m in members:
            if m:
                listed.add((m["frontend"], m["test"]))
        if len({m["cause"] for m in known}) <= 1:
            pure += 1
        elif detail is not None:
            mix = collections.Counter(m["cause"] for m in known)
            detail.append("  impure %s %s %s: %s" % (b["bug"], b["frontend"], b["operators"],
                                                       ", ".join("%s x%d" % kv for kv in mix.most_common())))
        if known and 2 * sum(m["kind"] == "frontend-bug" for m in known) > len(known):
            precise += 1
        for cause in {(m["frontend"], m["cause"]) for m in known if m["kind"] == "frontend-bug"}:
            per_cause[cause] += 1
    causes = {(m["frontend"], m["cause"]) for m in labels.values() if m["kind"] == "frontend-bug"}
    if detail is not None:
        for (fe, cause), k in per_cause.most_common():
            if k > 1:
                detail.append("  split  %s %s into %d bugs" % (fe, cause, k))
        for fe, cause in sorted(causes - set(per_cause)):
            detail.append("  missed %s %s (no listed bug)" % (fe, cause))
    others = [k for k, m in labels.items() if m["kind"] != "frontend-bug"]
    n = len(bugs)
    return {
        "failures": len(labels),
        "bugs": n,
        "purity": pure / n if n else None,
        "fragmentation_mean": sum(per_cause.values()) / len(per_cause) if per_cause else None,
        "fragmentation_max": max(per_cause.values()) if per_cause else None,
        "precision": precise / n if n else None,
        "recall": len(per_cause) / len(causes) if causes else None,
        "kept_out": sum(k not in listed for k in others) / len(others) if others else None,
        "causes": len(causes),
        # sums, for the overall row
        "_pure": pure, "_precise": precise, "_frag": list(per_cause.values()), "_others": len(others),
        "_others_out": sum(k not in listed for k in others),
    }


def overall(rows):
    n = sum(r["bugs"] for r in rows)
    frag = [x for r in rows for x in r["_frag"]]
    causes = sum(r["causes"] for r in rows)
    others = sum(r["_others"] for r in rows)
    return {
        "failures": sum(r["failures"] for r in rows), "bugs": n,
        "purity": sum(r["_pure"] for r in rows) / n if n else None,
        "fragmentation_mean": sum(frag) / len(frag) if frag else None,
        "fragmentation_max": max(frag) if frag else None,
        "precision": sum(r["_precise"] for r in rows) / n if n else None,
        "recall": len(frag) / causes if causes else None,
        "kept_out": sum(r["_others_out"] for r in rows) / others if others else None,
        "causes": causes,
    }


def fmt(v, digits=2):
    if v is None:
        return "-"
    return ("%d" % v) if isinstance(v, int) else ("%.*f" % (digits, v))


def main():
    ap = argparse.ArgumentParser(description="score ferry bugs against bench/causes/labels.jsonl")
    ap.add_argument("--ferry", required=True, help="the ferry binary")
    ap.add_argument("--labels", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), "labels.jsonl"))
    ap.add_argument("--json", action="store_true", help="print the scores as JSON")
    ap.add_argument("--detail", action="store_true", help="also list the impure bugs and the split causes")
    ap.add_argument("stores", nargs="+", metavar="STORE.db")
    args = ap.parse_args()
    try:
        with open(args.labels) as f:
            labels = [json.loads(line) for line in f if line.strip()]
    except (OSError, ValueError) as e:
        sys.stderr.write("score: cannot read the labels %s: %s\n" % (args.labels, e))
        sys.exit(4)
    by_store = collections.defaultdict(dict)
    for lab in labels:
        by_store[lab["store"]][(lab["frontend"], lab["test"])] = lab
    rows, detail = [], []
    with tempfile.TemporaryDirectory(prefix="bench-causes.") as scratch:
        for store in args.stores:
            if not os.path.isfile(store):
                sys.stderr.write("score: no store %s\n" % store)
                sys.exit(4)
            name = os.path.splitext(os.path.basename(store))[0]
            if args.detail:
                detail.append(name + ":")
            r = score(held(store, by_store.get(name, {})), bugs_of(args.ferry, store, scratch),
                      detail if args.detail else None)
            r["store"] = name
            rows.append(r)
    total = overall(rows)
    total["store"] = "overall"
    if args.json:
        print(json.dumps([{k: v for k, v in r.items() if not k.startswith("_")} for r in rows + [total]], indent=1))
        return
    head = ("store", "failures", "bugs", "causes", "purity", "frag mean", "frag max", "precision", "recall", "kept out")
    print("%-12s %8s %5s %6s %7s %9s %8s %9s %6s %8s" % head)
    for r in rows + [total]:
        print("%-12s %8s %5s %6s %7s %9s %8s %9s %6s %8s" % (
            r["store"], fmt(r["failures"]), fmt(r["bugs"]), fmt(r["causes"]), fmt(r["purity"]),
            fmt(r["fragmentation_mean"]), fmt(r["fragmentation_max"]), fmt(r["precision"]), fmt(r["recall"]),
            fmt(r["kept_out"])))
    print("goals (issue 29): purity >= 0.95, fragmentation <= 1.3 mean and 3 max, precision >= 0.8")
    if detail:
        print("\n".join(detail))


if __name__ == "__main__":
    main()
