"""The floor for ferry's runner benchmark: the same adapter and the same tests, in one Python process,
in a bare loop (no isolation, no store). Also the one-process-per-test baseline (OPERA's way), which
runs this file once per test with --one.

usage: floor.py WRAPDIR IDFILE [--one]"""
import json
import os
import sys
import time

import numpy as np


def main():
    wrapdir, idfile = sys.argv[1], sys.argv[2]
    ids = [line.strip() for line in open(idfile) if line.strip()]
    start = time.perf_counter()
    from ferry.oracle import driver as ferry_driver
    adapter = ferry_driver.load_adapter("ort")
    outcomes = {}
    for test_id in ids:
        testdir = os.path.join(wrapdir, "tests", test_id[:2], test_id)
        verdict = ferry_driver.run(adapter, testdir)
        if verdict[0] == "ok":
            same = all(o.shape == r.shape and np.allclose(o, r, atol=1e-3, rtol=1e-3, equal_nan=True)
                       for o, r in zip(verdict[1], verdict[2]))
            outcome = "pass" if same else "mismatch"
        else:
            outcome = verdict[0]
        outcomes[outcome] = outcomes.get(outcome, 0) + 1
    print(json.dumps({"seconds": time.perf_counter() - start, "tests": len(ids), "outcomes": outcomes}))


if __name__ == "__main__":
    main()
