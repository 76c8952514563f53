"""bench/wrap/same.py BEFORE AFTER: whether two wraps of the same corpus made the same tests.

Each instance must have the same status (and reason) in both wrapped.jsonl files; each valid test
the same meta.json but for the model files (which --frontend leaves out, and whose errors name
paths) and the same inputs and reference outputs, array by array (NaN equal to NaN). Prints one
line per difference and a count; exits 1 on any difference.
"""

import json
import os
import sys

import numpy as np

FORMAT_KEYS = {"torchscript", "torchscript_error", "torchscript_by", "export", "export_error", "frozen", "freeze_error",
               "saved_model", "saved_model_error", "tflite", "tflite_error"}


def wrapped(top):
    out = {}
    with open(os.path.join(top, "wrapped.jsonl")) as f:
        for line in f:
            record = json.loads(line)
            out[record["id"]] = record["wrap"]
    return out


def same_arrays(a, b):
    if a.dtype != b.dtype or a.shape != b.shape:
        return False
    if a.dtype.kind in "fc":
        return bool(np.array_equal(a, b, equal_nan=True))
    return bool(np.array_equal(a, b))


def main(before, after):
    wb, wa = wrapped(before), wrapped(after)
    problems, tests = [], 0
    for id_ in sorted(set(wb) | set(wa)):
        if id_ not in wb or id_ not in wa:
            problems.append(f"{id_}: wrapped in {'after' if id_ in wa else 'before'} only")
            continue
        b, a = wb[id_], wa[id_]
        if (b["status"], b.get("reason"), b["random"]) != (a["status"], a.get("reason"), a["random"]):
            problems.append(f"{id_}: {b['status']} {b.get('reason', '')[:80]!r} before, "
                            f"{a['status']} {a.get('reason', '')[:80]!r} after")
            continue
        if b["status"] != "ok":
            continue
        tests += 1
        db, da = os.path.join(before, b["dir"]), os.path.join(after, a["dir"])
        with open(os.path.join(db, "meta.json")) as f:
            mb = json.load(f)
        with open(os.path.join(da, "meta.json")) as f:
            ma = json.load(f)
        if {k: v for k, v in mb.items() if k not in FORMAT_KEYS} != {k: v for k, v in ma.items() if k not in FORMAT_KEYS}:
            problems.append(f"{id_}: meta.json differs")
            continue
        for key in ("torchscript", "export", "saved_model", "tflite"):  # a file both made: both or neither
            if key in ma and key in mb and bool(ma[key]) != bool(mb[key]):
                problems.append(f"{id_}: {key} {mb.get(key)!r} before, {ma[key]!r} after")
        for entry in mb["inputs"] + mb["outputs"]:
            for name in entry["files"]:
                x = np.load(os.path.join(db, name), allow_pickle=False)
                y = np.load(os.path.join(da, name), allow_pickle=False)
                if not same_arrays(x, y):
                    problems.append(f"{id_}: {name} differs")
    for p in problems:
        print(f"  {p}")
    print(f"  {len(wb)} instances, {tests} valid tests compared: {len(problems)} differences")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], sys.argv[2]))
