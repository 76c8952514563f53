#!/usr/bin/env python3
"""bench/file/run.py: what ferry file makes of a sample of real bugs (issue 32's numbers), on demand.

For each store given (the main job's: work/onnx/results.db, work/torch/results.db...), the first
--per-frontend bugs of kind "bug" of each frontend in filing order (ferry bugs --json; bugs of one
operator, generated graphs left out), `ferry file STORE BUG -o OUT/BUG`, then per bug:
  - the lines of issue.md and of repro.py, and whether repro.py is the short one (no ferry code);
  - repro.py run standalone in a clean virtualenv that holds only the frontend and the library
    (--venvs FILE: lines "ADAPTER PYTHON"; bench/file/venvs.sh makes them): its exit status, 1
    while the bug shows, 0 once it does not, anything else broken;
  - the regression test ferry wrote beside it, run by its runner (pytest for a .py file, onnx's
    backend runner for a test-data directory, through the project's venv): fails (the bug shows),
    passes, or none;
  - with --bisect SPEC per adapter (ADAPTER=PKG==FIRST..), ferry bisect's verdict (bounded by
    --max-releases).
Prints one row per bug and the totals; --json writes them too.
"""

import argparse
import collections
import json
import os
import subprocess
import sys
import time


def run(argv, timeout=900, **kw):
    try:
        return subprocess.run(argv, capture_output=True, text=True, timeout=timeout, stdin=subprocess.DEVNULL, **kw)
    except subprocess.TimeoutExpired:
        return None


def pick(ferry, store, per_frontend):
    doc = json.loads(run([ferry, "bugs", store, "--json"]).stdout)
    taken = collections.Counter()
    for b in doc["bugs"]:
        ops = [o for o in b["operators"].split(",") if o]
        if b["kind"] != "bug" or ops == ["graph"] or len(ops) != 1 or "@" in b["frontend"]:
            continue
        if taken[b["frontend"]] < per_frontend:
            taken[b["frontend"]] += 1
            yield b


def regression_test(outdir, project_python, ort_python):
    """Run what ferry file wrote as the regression test by the compiler's runner: a pytest file by
    pytest, a backend test-data directory of ONNX Runtime's by ONNX's backend runner with
    onnxruntime.backend (in ort_python's clean venv: backend_ort.py). 'fails', 'passes', 'data dir'
    (one no runner here reads: IREE's suite needs iree-import-onnx's model.mlir) or 'none'."""
    for name in sorted(os.listdir(outdir)):
        path = os.path.join(outdir, name)
        if not name.startswith("test_"):
            continue
        if name.endswith(".py") or (os.path.isdir(path) and any(f.endswith(".py") for f in os.listdir(path))):
            r = run([project_python, "-m", "pytest", "-q", "-p", "no:cacheprovider", path], cwd=outdir)
            return "timeout" if r is None else ("passes" if r.returncode == 0 else "fails")
        if os.path.isdir(path) and ort_python:
            r = run([ort_python, os.path.join(os.path.dirname(os.path.abspath(__file__)), "backend_ort.py"), path])
            return "timeout" if r is None else ("passes (onnx runner)" if r.returncode == 0 else "fails (onnx runner)")
        if os.path.isdir(path):
            return "data dir"
    return "none"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--ferry", required=True)
    ap.add_argument("--python", required=True, help="the project's venv python (for the regression tests)")
    ap.add_argument("--venvs", help="lines ADAPTER PYTHON: clean virtualenvs to run repro.py in")
    ap.add_argument("--per-frontend", type=int, default=5)
    ap.add_argument("--out", default="work/bench-file")
    ap.add_argument("--bisect", action="append", default=[], help="ADAPTER=PKG==FIRST..LAST")
    ap.add_argument("--max-releases", default="4")
    ap.add_argument("--json")
    ap.add_argument("stores", nargs="+")
    a = ap.parse_args()
    venvs = {}
    if a.venvs:
        for line in open(a.venvs):
            if line.strip() and not line.startswith("#"):
                name, python = line.split()
                venvs[name] = python
    bisects = dict(x.split("=", 1) for x in a.bisect)
    rows = []
    for store in a.stores:
        for b in pick(a.ferry, store, a.per_frontend):
            out = os.path.join(a.out, b["bug"])
            t = time.time()
            r = run([a.ferry, "file", store, b["bug"], "-o", out])
            row = {"store": store, "bug": b["bug"], "frontend": b["frontend"], "op": b["operators"],
                   "outcome": b["outcome"], "file_status": None if r is None else r.returncode,
                   "file_seconds": round(time.time() - t, 1)}
            if r is None or r.returncode != 0:
                row["error"] = "timeout" if r is None else r.stderr.strip().splitlines()[-1:]
                rows.append(row)
                print(json.dumps(row), file=sys.stderr)
                continue
            issue = open(os.path.join(out, "issue.md")).read()
            repro = open(os.path.join(out, "repro.py")).read()
            row["issue_lines"] = issue.count("\n")
            row["repro_lines"] = repro.count("\n")
            row["short"] = "import ferry" not in repro and "from ferry" not in repro and "--- ferry" not in repro
            adapter = b["frontend"].split("@")[0].split("~")[0]
            python = venvs.get(adapter)
            if python:
                rr = run([python, "repro.py"], cwd=out)
                row["standalone"] = "timeout" if rr is None else rr.returncode
            row["regression"] = regression_test(out, a.python, venvs.get("ort") if adapter == "ort" else None)
            if adapter in bisects:
                rb = run([a.ferry, "bisect", store, b["bug"], "--releases", bisects[adapter], "--max-releases",
                          a.max_releases, "--json"], timeout=3600)
                try:
                    v = json.loads(rb.stdout)
                    row["bisect"] = {k: v.get(k) for k in ("first_bad", "last_good", "fixed_in", "still_in")}
                except Exception:
                    row["bisect"] = "failed"
            rows.append(row)
            print(f"{row['bug']} {row['frontend']:<15} {row['op'][:20]:<20} issue {row['issue_lines']:>4} "
                  f"repro {row['repro_lines']:>4}{'' if row['short'] else ' (full)'} standalone {row.get('standalone', '-')} "
                  f"regression {row['regression']} {row.get('bisect', '')}", flush=True)
    done = [r for r in rows if "issue_lines" in r]
    shorts = [r for r in done if r["short"]]
    print(f"\n{len(rows)} bugs of {len({r['frontend'] for r in rows})} frontends; ferry file failed on "
          f"{len(rows) - len(done)}")
    if done:
        lines = sorted(r["repro_lines"] for r in shorts) or [0]
        print(f"short reproducers {len(shorts)} of {len(done)}; their lines: median {lines[len(lines) // 2]}, "
              f"max {lines[-1]}; <= 30 lines: {sum(x <= 30 for x in lines if shorts)}")
        issues = sorted(r["issue_lines"] for r in done)
        print(f"issue text lines: median {issues[len(issues) // 2]}, max {issues[-1]}")
        st = collections.Counter(str(r.get("standalone", "not run")) for r in done)
        print("standalone in a clean venv (exit status: bugs): " + ", ".join(f"{k}: {v}" for k, v in sorted(st.items())))
        rg = collections.Counter(r["regression"] for r in done)
        print("regression test: " + ", ".join(f"{k}: {v}" for k, v in sorted(rg.items())))
    if a.json:
        with open(a.json, "w") as f:
            json.dump(rows, f, indent=1)


if __name__ == "__main__":
    main()
