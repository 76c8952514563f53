"""budget.py: the part of a queue that a frontend reaches in a time budget, by the seconds each test
took in a results store (ferry run records them). bench/vary/run.sh uses it to compare, in the same
time, a queue of the harvested corpus alone with a queue of the corpus and its variants.

    python3 budget.py STORE FRONTEND SECONDS QUEUE OUT

QUEUE: a queue from ferry rank (or one id a line). OUT gets the ids, in queue order, whose tests a
run of FRONTEND would have started within SECONDS of frontend time: a test is taken while the time
spent before it is under the budget. Tests the store has no result for on FRONTEND are not counted
(they were not wrapped for it). Prints the number of tests taken and the seconds they used."""
import json
import sqlite3
import sys


def queue_ids(path):
    with open(path) as f:
        for line in f:
            line = line.strip()
            if line:
                yield json.loads(line)["id"] if line.startswith("{") else line


def main(store, frontend, seconds, queue, out):
    budget = float(seconds)
    db = sqlite3.connect(f"file:{store}?mode=ro", uri=True)
    took = dict(db.execute("SELECT id, COALESCE(seconds, 0) FROM results WHERE frontend = ?", (frontend,)))
    spent, taken = 0.0, 0
    with open(out, "w") as f:
        for test in queue_ids(queue):
            if test not in took:
                continue
            if spent >= budget:
                break
            spent += took[test]
            taken += 1
            f.write(test + "\n")
    print(f"{taken} {spent:.1f}")


if __name__ == "__main__":
    if len(sys.argv) != 6:
        sys.exit(__doc__)
    main(*sys.argv[1:])
