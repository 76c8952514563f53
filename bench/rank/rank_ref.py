"""rank_ref.py: a straightforward Python implementation of ferry's OPERA ranking, for the benchmark
only (it is not part of ferry). It reads the same JSON Lines corpus, computes the same subspaces
(prioritize/subspace.h) as tuples instead of hashes, and runs the same greedy (prioritize/opera.h):
per-operator counts of unseen single and pair features, lowered through postings as features become
seen, a lazy heap per operator, and a merge in turns by (turn, score, seeded position). Ties follow the
seeded order, which it takes from `bench-rank --order` (the seeded order at the command's default seed, as
queue lines; the random strategy's queue is not it, since its seed is derived apart), so that its
queue can be compared line by line with ferry's.

    python3 rank_ref.py CORPUS SEEDED_QUEUE [-o QUEUE] [--counts COUNTS]

Prints "load SECONDS rank SECONDS" on stderr: load is reading and parsing the corpus and computing
the subspaces, rank the rest.
"""

import argparse
import heapq
import json
import math
import sys
import time

PAIR_SLOTS = 64
EXACT = 9007199254740992.0


def int_class(i):
    return "<-1" if i < -1 else ">1" if i > 1 else str(i)


def float_class(f):
    if math.isnan(f):
        return "nan"
    if math.isinf(f):
        return "inf" if f > 0 else "-inf"
    return "0" if f == 0 else ">0" if f > 0 else "<0"


def num(x):
    return float(x) if x not in ("nan", "inf", "-inf") else float(x)


def kept_value(x):
    if isinstance(x, bool):
        return ("bool", x)
    if isinstance(x, (int, float)):
        d = float(x)
        if d == math.floor(d) and abs(d) < EXACT:
            return ("int", int_class(int(d)))
        return ("float", float_class(d))
    if isinstance(x, str):
        if x in ("nan", "inf", "-inf"):
            return ("float", float_class(float(x)))
        return ("int", "<-1" if x.startswith("-") else ">1")
    return ("none",)


def sub(v):
    (tag, x), = v.items()
    if tag == "none":
        return ("none",)
    if tag == "bool":
        return ("bool", x)
    if tag == "int":
        return ("int", int_class(int(x)))
    if tag == "float":
        return ("float", float_class(num(x)))
    if tag in ("str", "dtype", "callable"):
        return (tag, x)
    if tag == "opaque":
        return ("opaque",)
    if tag == "graph":
        return ("graph", x.get("format"))
    if tag in ("list", "tuple"):
        return (tag, min(len(x), 6), tuple(sub(i) for i in x[:6]))
    if tag == "dict":
        return ("dict", tuple((k, sub(x[k])) for k in sorted(x)))
    if tag == "tensor":
        shape = x.get("shape", [])
        dims = tuple("none" if d is None else int_class(d) for d in shape[:6])
        vals = x.get("values")
        kept = tuple(kept_value(i) for i in vals) if isinstance(vals, list) and len(vals) <= 8 else None
        return ("tensor", x.get("dtype"), min(len(shape), 6), dims, kept)
    raise ValueError(f"unknown value type {tag}")


def has_opaque(v):
    if isinstance(v, dict):
        return "opaque" in v or any(has_opaque(i) for i in v.values())
    if isinstance(v, list):
        return any(has_opaque(i) for i in v)
    return False


def load(path):
    """(id, op, tier, {param: subspace}) per line, in corpus order."""
    out = []
    with open(path) as f:
        for line in f:
            if not line.strip():
                continue
            r = json.loads(line)
            params = {k: sub(v) for k, v in r.get("params", {}).items()}
            for i, v in enumerate(r.get("inputs", [])):
                params[f"inputs[{i}]"] = sub(v)
            identity = [r.get(k) for k in ("context", "params", "inputs", "outputs")]
            if has_opaque(identity):
                tier = 2
            elif (r.get("wrap") or {}).get("status") == "invalid":
                tier = 1
            else:
                tier = 0
            out.append((r["id"], r["op"], tier, params))
    return out


def op_sequence(rows, score_of_op, positions):
    """The greedy sequence of one operator: [(score, position, index)]. rows: (index, params)."""
    names = {}
    for _, params in rows:
        for k in params:
            names.setdefault(k, len(names))
    P = max(len(names), 1)
    Pc = min(P, PAIR_SLOTS)
    F = P + Pc * (Pc - 1) // 2
    order = list(names)
    feats = []
    for _, params in rows:
        # An absent parameter is at its default, a subspace of its own.
        vec = [params.get(n, ("default",)) for n in order] if order else [("pseudo",)]
        f = [(a, vec[a]) for a in range(P)]
        f += [(a, b, vec[a], vec[b]) for a in range(Pc) for b in range(a + 1, Pc)]
        feats.append(f)
    postings = {}
    for j, f in enumerate(feats):
        for x in f:
            postings.setdefault(x, []).append(j)
    count = [F] * len(rows)
    done = [False] * len(rows)
    seen = set()
    heap = [(-F, positions[rows[j][0]], j) for j in range(len(rows))]
    heapq.heapify(heap)
    seq = []
    while heap:
        c, pos, j = heapq.heappop(heap)
        if done[j] or -c != count[j]:
            continue
        done[j] = True
        seq.append((score_of_op * (count[j] / F) if count[j] else 0.0, pos, rows[j][0]))
        for x in feats[j]:
            if x in seen:
                continue
            seen.add(x)
            for i in postings[x]:
                if not done[i]:
                    count[i] -= 1
                    heapq.heappush(heap, (-count[i], positions[rows[i][0]], i))
    return seq


def rank(records, positions, counts):
    by_tier_op = {}
    per_op = {}
    for i, (_, op, tier, params) in enumerate(records):
        by_tier_op.setdefault(tier, {}).setdefault(op, []).append((i, params))
        per_op[op] = per_op.get(op, 0) + 1
    out = []
    for tier in sorted(by_tier_op):
        seqs = []
        for op, rows in by_tier_op[tier].items():
            s = (per_op[op] + 1) / (counts.get(op, 0) + 1) if counts is not None else 1.0
            seqs.append(op_sequence(rows, s, positions))
        # Operators take turns (the k-th instance of each before any's (k+1)-th), the better score first
        # within a turn; then the instances with nothing new, in the seeded order.
        keys = [(0, k, -sc, pos, i) if sc else (1, 0, 0, pos, i)
                for s in seqs for k, (sc, pos, i) in enumerate(s)]
        out.extend(key[-1] for key in sorted(keys))
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("corpus")
    ap.add_argument("seeded", help="the seeded order, from `bench-rank --order`")
    ap.add_argument("-o", "--output")
    ap.add_argument("--counts")
    a = ap.parse_args()
    t0 = time.perf_counter()
    records = load(a.corpus)
    t1 = time.perf_counter()
    # The k-th instance (in corpus order) with a given id takes the k-th place of that id in the seeded
    # queue, as ferry's stable sort does for duplicate ids.
    places = {}
    with open(a.seeded) as f:
        for k, line in enumerate(f):
            places.setdefault(json.loads(line)["id"], []).append(k)
    positions = {}
    taken = {}
    for i, (rid, _, _, _) in enumerate(records):
        n = taken.get(rid, 0)
        positions[i] = places[rid][n]
        taken[rid] = n + 1
    counts = None
    if a.counts:
        with open(a.counts) as f:
            counts = json.load(f)["counts"]
    order = rank(records, positions, counts)
    t2 = time.perf_counter()
    print(f"load {t1 - t0:.3f} rank {t2 - t1:.3f}", file=sys.stderr)
    if a.output:
        with open(a.output, "w") as f:
            for i in order:
                f.write(records[i][0] + "\n")


if __name__ == "__main__":
    main()
