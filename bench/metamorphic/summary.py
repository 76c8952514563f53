"""summary.py WORK FRONTEND...: the metamorphic oracle's numbers per frontend, from the stores that
bench/metamorphic/run.sh leaves in WORK (FRONTEND-metamorphic.db, FRONTEND-reference.db): a table in
Markdown on standard output."""

import json
import os
import sqlite3
import statistics
import sys


def numbers(work, fe):
    meta = os.path.join(work, f"{fe}-metamorphic.db")
    ref = os.path.join(work, f"{fe}-reference.db")
    if not os.path.exists(meta):
        return None
    db = sqlite3.connect(meta)
    rows = db.execute("SELECT m.stats, m.reduced_nodes, m.reduced, r.seconds, r.id"
                      " FROM mutations m JOIN results r USING(frontend, id) WHERE m.frontend = ?", (fe,)).fetchall()
    tests = db.execute("SELECT count(*) FROM results WHERE frontend = ?", (fe,)).fetchone()[0]
    made = held = mutated = 0
    ratios, seconds = [], {}
    for stats, reduced_nodes, reduced, secs, test in rows:
        s = json.loads(stats or "{}")
        made += s.get("applied", 0) + s.get("dropped", 0)
        held += s.get("applied", 0)
        if s.get("applied", 0):
            mutated += 1
            seconds[test] = secs
        if reduced_nodes and reduced and json.loads(reduced).get("first_nodes"):
            ratios.append(json.loads(reduced)["first_nodes"] / reduced_nodes)
    outcomes = dict(db.execute("SELECT outcome, count(*) FROM results WHERE frontend = ? GROUP BY outcome", (fe,)))
    bugs = db.execute("SELECT count(*) FROM bugs WHERE frontend = ? AND outcome = 'inconsistent'", (fe,)).fetchone()[0]
    crash_m2 = db.execute("SELECT count(*) FROM results WHERE frontend = ? AND message LIKE '%the mutated model (m'')%'",
                          (fe,)).fetchone()[0]
    time_ratio = None
    if os.path.exists(ref) and seconds:
        plain = dict(sqlite3.connect(ref).execute("SELECT id, seconds FROM results WHERE frontend = ?", (fe,)))
        both = [(seconds[t], plain[t]) for t in seconds if plain.get(t)]
        if both:
            time_ratio = (statistics.mean(a for a, _ in both) / statistics.mean(b for _, b in both), len(both))
    return {"tests": tests, "mutated": mutated, "made": made, "held": held, "outcomes": outcomes,
            "inconsistent": outcomes.get("inconsistent", 0), "bugs": bugs, "ratios": ratios,
            "time": time_ratio, "crash_m2": crash_m2}


def main():
    work, frontends = sys.argv[1], sys.argv[2:]
    print("| frontend | tests | mutated models | validity | inconsistent | unique bugs | m' crashes | "
          "reduction (first / reduced nodes) | time, mutated / unmutated test |")
    print("|---|---:|---:|---:|---:|---:|---:|---|---|")
    for fe in frontends:
        n = numbers(work, fe)
        if n is None:
            print(f"| {fe} | unavailable | | | | | | | |")
            continue
        validity = f"{100 * n['held'] / n['made']:.1f}% ({n['held']}/{n['made']})" if n["made"] else "-"
        red = (f"{statistics.mean(n['ratios']):.1f}x (median {statistics.median(n['ratios']):.1f}x, "
               f"{len(n['ratios'])} reduced)") if n["ratios"] else "-"
        tm = f"{n['time'][0]:.2f}x ({n['time'][1]} tests)" if n["time"] else "-"
        print(f"| {fe} | {n['tests']} | {n['mutated']} | {validity} | {n['inconsistent']} | {n['bugs']} | "
              f"{n['crash_m2']} | {red} | {tm} |")
    print()
    for fe in frontends:
        n = numbers(work, fe)
        if n:
            print(f"{fe}: outcomes {json.dumps(n['outcomes'], sort_keys=True)}")


if __name__ == "__main__":
    main()
