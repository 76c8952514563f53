"""ferry.oracle.issue: one bug as an issue text a compiler team can act on (ferry file, report/file.h).

compose() takes ferry show --json's document of the bug, with what report/file.c added (the test's
directory, the adapter, the representative's one-change neighbours and its results under other
releases), and gives back the files ferry file writes: issue.md and repro.py. The reproducer is the
short one of ferry.oracle.filing (only the frontend's public API and the library), else ferry's full
one, said so; it runs once here, in a process of its own with a time limit, and what it printed (the
elements that differ, or what the frontend raised) goes into the text.

Everything in the document is data: names and messages are quoted into Markdown, never evaluated.
"""

import json
import os
import platform
import re
import subprocess
import sys
import tempfile

from ferry.oracle import driver

RUN_SECONDS = 600  # the reproducer's time here: a compiler's first build of a model can take minutes
OUTPUT_LINES = 40   # of what it printed, in the text
LIBRARY_NAMES = {"onnx": "ONNX", "torch": "PyTorch", "keras": "Keras", "tf_keras": "Keras 2 (tf_keras)"}
LIBRARY_MODULES = {"onnx": "onnx", "torch": "torch", "keras": "keras", "tf_keras": "tf_keras"}
REFERENCES = {
    "onnx": "the outputs the ONNX test expects (ONNX's reference implementation's, for a test ferry varied)",
    "torch": "eager PyTorch's outputs on the same inputs",
    "keras": "Keras's own outputs (its eager call) on the same inputs",
    "tf_keras": "Keras 2's own outputs (its eager call) on the same inputs",
}


def compose(doc_json):
    """The files of the issue, as JSON: {"issue.md": text, "repro.py": script}."""
    doc = json.loads(doc_json)
    adapter = driver.load_adapter(doc["adapter"])
    library = doc.get("library") or adapter.LIBRARY
    record = doc.get("record") or {}
    script, short_why = _script(library, record, doc, adapter)
    printed, status = _run(script)
    if not short_why and status == 0 and doc.get("outcome") not in (None, "pass"):
        # The short script does not show what ferry saw (a check of ferry's that the public API
        # cannot make, such as OpenVINO's torch.compile backend falling back to PyTorch): the full one.
        from ferry.oracle import reproducer

        short_why = "the short reproducer does not show the bug here (it printed no bug)"
        script = reproducer.reproducer(library, json.dumps(record), doc["testdir"], adapter.NAME,
                                       str(doc.get("atol")), str(doc.get("rtol")))
        printed, status = _run(script)
    text = _issue(doc, adapter, library, record, script, short_why, printed, status)
    return json.dumps({"issue.md": text, "repro.py": script})


def _script(library, record, doc, adapter):
    """The reproducer and, when it is ferry's full one, why the short one could not be made."""
    from ferry.oracle import reproducer

    record_json = json.dumps(record)
    atol, rtol = str(doc.get("atol")), str(doc.get("rtol"))
    try:
        from ferry.oracle import filing
    except ImportError as e:  # not built yet for this library: the full one, said so
        why = f"no short reproducer here ({e})"
    else:
        try:
            return filing.script(library, record_json, doc["testdir"], adapter.NAME, atol, rtol), None
        except ValueError as e:
            why = str(e)
    return reproducer.reproducer(library, record_json, doc["testdir"], adapter.NAME, atol, rtol), why


def _run(script):
    """Run the reproducer as a user would, in a scratch directory: what it printed, and its status
    (None: it ran out of time)."""
    with tempfile.TemporaryDirectory(prefix="ferry-file-") as d:
        path = os.path.join(d, "repro.py")
        with open(path, "w") as f:
            f.write(script)
        try:
            run = subprocess.run([sys.executable, path], cwd=d, capture_output=True, text=True,
                                 timeout=RUN_SECONDS, stdin=subprocess.DEVNULL)
        except subprocess.TimeoutExpired as e:
            out = e.stdout.decode(errors="replace") if isinstance(e.stdout, bytes) else (e.stdout or "")
            return out + f"\n(stopped after {RUN_SECONDS} s)\n", None
    out = run.stdout
    if run.stderr and (run.returncode not in (0, 1) or len(out.splitlines()) < 3):
        # died, or said little (ferry's full reproducer prints the frontend's traceback there): its
        # last words say how
        out += "".join(run.stderr.splitlines(True)[-10:])
    if run.returncode < 0:
        out += f"\n(killed by signal {-run.returncode})\n"
    return out, run.returncode


def product(adapter):
    """The frontend's name for a title: its summary up to the first detail ("OpenVINO's ONNX
    frontend (Core.read_model), CPU" -> "OpenVINO's ONNX frontend")."""
    summary = getattr(adapter, "SUMMARY", "") or adapter.NAME
    name = re.split(r"[,:(]", summary)[0].strip()
    return name[:1].upper() + name[1:] if name else adapter.NAME


def _operators(ops):
    names = [o for o in (ops or "").split(",") if o and o != "graph"]
    if not names:
        return "a generated graph" if "graph" in (ops or "") else "a test"
    if len(names) <= 2:
        return " and ".join(names)
    more = len(names) - 2
    return f"{names[0]}, {names[1]} and {more} more operator{'s' if more > 1 else ''}"


def _symptom(doc):
    outcome, exc = doc.get("outcome"), doc.get("exc_type") or ""
    line = doc.get("line") or ""
    if outcome == "crash" and exc.startswith("signal "):
        m = re.search(r"\((SIG\w+)\)", line)
        return f"crashes ({m.group(1) if m else exc})"
    if outcome == "crash":
        return f"raises {exc}" if exc else "fails"
    if outcome == "timeout":
        return "hangs"
    if outcome == "oom":
        return "runs out of memory"
    if outcome == "mismatch":
        m = re.search(r"(?:NaN|Inf) mismatch \(first at \[[^\]]*\]: got (\S+), want ([^)\s]+)\)", line)
        if m:  # what it gives for what: "gives -3.4028234663852886e+38 instead of -inf"
            return f"gives {m.group(1)} instead of {m.group(2)}"
        kinds = {"shape": "wrong output shapes", "dtype": "outputs of the wrong dtype", "NaN": "NaN in other places",
                 "Inf": "infinities in other places"}
        for word, what in kinds.items():
            if word in line:
                return f"gives {what}"
        return "gives wrong results"
    if outcome == "inconsistent":
        return "computes another result after a rewrite that keeps the function"
    return outcome or "fails"


def _trigger_clause(trigger):
    """What a title can say of the trigger: the failing side of "fails for X; passes for Y" (a
    contrast), nothing of "fails alike ..." (no change made it pass)."""
    if not trigger or trigger.startswith("fails alike"):
        return ""
    first = trigger.split(";")[0].strip()
    return first[len("fails "):] if first.startswith("fails ") else ""


TITLE_QUOTE = 80  # the longest decisive line a title quotes


def _quote(doc):
    """The crash's decisive line, without its exception type, when it is short enough for a title."""
    if doc.get("outcome") != "crash" or (doc.get("exc_type") or "").startswith("signal "):
        return ""
    line = " ".join((doc.get("line") or "").split())
    exc = doc.get("exc_type") or ""
    if exc and line.startswith(exc + ":"):
        line = line[len(exc) + 1:].strip()
    return line if 0 < len(line) <= TITLE_QUOTE else ""


def title(doc, adapter):
    where = _operators(doc.get("operators"))
    clause = _trigger_clause(doc.get("trigger"))
    quote = _quote(doc)
    return (f"{product(adapter)} {_symptom(doc)} on {where}" + (f", {clause}" if clause else "")
            + (f': "{quote}"' if quote else ""))


def _library_version(library):
    try:
        module = __import__(LIBRARY_MODULES.get(library, library))
        return getattr(module, "__version__", "?")
    except Exception:  # a library that does not import here: the issue says so
        return "not importable here"


def _md(text):
    """Text inside Markdown's inline code: no backtick breaks out of it."""
    return str(text).replace("`", "'")


def _elements(printed, library, record, testdir):
    """The lines "  [i, j] got G want W" of what the reproducer printed, as a table, with the float64
    reference at each index where the library gives one."""
    rows, output = [], 0
    for line in printed.splitlines():
        m = re.match(r"output (\d+):", line)
        if m:
            output = int(m.group(1))
        m = re.match(r"\s+\[([\d, ]*)\] got (\S+) want (\S+)", line)
        if m:
            rows.append((output, tuple(int(x) for x in m.group(1).split(",") if x.strip()), m.group(2), m.group(3)))
    if not rows:
        return ""
    ref = None
    try:
        from ferry.oracle import filing

        ref = filing.reference64(library, json.dumps(record), testdir)
    except Exception:  # no float64 reference: the table goes without its column
        ref = None
    head = "| output | index | got | want |" + (" float64 reference |" if ref else "")
    out = [head, "|" + "---|" * (5 if ref else 4)]
    for output, index, got, want in rows:
        cells = [str(output), f"`{list(index)}`", f"`{_md(got)}`", f"`{_md(want)}`"]
        if ref:
            try:
                cells.append(f"`{float(ref[output][index])!r}`")
            except Exception:  # not a float output, or no such element
                cells.append("")
        out.append("| " + " | ".join(cells) + " |")
    return "\n".join(out) + "\n"


def _neighbours(doc):
    passing = sorted({n["change"] for n in doc.get("neighbours") or [] if n.get("outcome") == "pass"})
    failing = sorted({n["change"] for n in doc.get("neighbours") or []
                      if n.get("outcome") not in ("pass", None) and n.get("bug") == doc.get("bug")})
    return passing, failing


def _releases(doc):
    rows = []
    for r in doc.get("releases") or []:
        rows.append(f"| `{_md(r.get('version') or r.get('label'))}` | {_md(r.get('outcome'))} |")
    return rows


def _issue(doc, adapter, library, record, script, short_why, printed, status):
    lines = script.count("\n") + (not script.endswith("\n"))
    release = doc.get("release") or adapter.version()
    out = [f"# {title(doc, adapter)}", ""]
    out += ["## Environment", "",
            f"- {product(adapter)} (`{_md(adapter.PACKAGE)}`): `{_md(release)}`",
            f"- {LIBRARY_NAMES.get(library, library)}: `{_md(_library_version(library))}`, "
            f"numpy `{_md(_library_version('numpy'))}`",
            f"- Python `{platform.python_version()}` on `{_md(platform.platform())}`", ""]
    out += ["## What happens", ""]
    what = doc.get("line") or doc.get("message") or ""
    out += [f"{product(adapter)} {_symptom(doc)} on `{_md(record.get('op', '?'))}`"
            + (f" ({doc.get('tests')} tests of {_operators(doc.get('operators'))} fail the same way)."
               if (doc.get("tests") or 0) > 1 else "."),
            "", "```", what.strip()[:2000], "```", ""]
    needs = list(dict.fromkeys([adapter.PACKAGE, LIBRARY_MODULES.get(library, library)]))  # torch once
    out += ["## Reproducer", "",
            "Needs only " + ", ".join(f"`{_md(n)}`" for n in needs) + f" and numpy; {lines} lines. It exits with "
            "status 1 while the bug shows and 0 once it is fixed.", ""]
    if short_why:  # too long to paste: attached
        out += [f"The reproducer is attached (repro.py): ferry's full one, since {_md(short_why)}.", ""]
    else:
        out += ["```python", script.rstrip("\n"), "```", ""]
    shown = printed.splitlines()
    out += ["Here it printed" + (f" (exit status {status}):" if status is not None else ":"), "", "```"]
    out += shown[:OUTPUT_LINES] + ([f"... ({len(shown) - OUTPUT_LINES} more lines)"] if len(shown) > OUTPUT_LINES else [])
    out += ["```", ""]
    table = _elements(printed, library, record, doc.get("testdir", ""))
    if table:
        out += ["The elements that differ:", "", table]
    if doc.get("outcome") == "mismatch":
        out += ["## Compared with", "",
                f"The reference is {REFERENCES.get(library, 'the library' + chr(39) + 's own outputs')}. "
                f"An element differs when |got - want| > atol + rtol * |want|, with atol = {doc.get('atol')!r} and "
                f"rtol = {doc.get('rtol')!r} (ferry's tolerance for the output's dtype); integers and booleans "
                "must be equal, and NaN and infinity must be in the same places.", ""]
    passing, failing = _neighbours(doc)
    if doc.get("trigger") or passing or failing:
        out += ["## What triggers it", ""]
        if doc.get("trigger"):
            out += [f"It {doc['trigger']}.", ""]
        if passing:
            out += ["The same test with one change passes: " + ", ".join(f"`{_md(c)}`" for c in passing) + "."]
        if failing:
            out += ["It still fails with: " + ", ".join(f"`{_md(c)}`" for c in failing) + "."]
        out += [""]
    rows = _releases(doc)
    out += ["## Releases", ""]
    if doc.get("bisect"):
        out += [f"Affected releases (ferry bisect): {_md(doc['bisect'])}.", ""]
    if len(rows) > 1:
        out += ["The reproducer's test under each release ferry ran it on:", "", "| release | outcome |", "|---|---|"]
        out += rows + [""]
    elif not doc.get("bisect"):
        out += [f"Seen in `{_md(release)}`; no other release was tried.", ""]
    out += ["---", f"Found by ferry (bug `{_md(doc.get('bug'))}`, test `{_md(doc.get('representative'))}`).", ""]
    return "\n".join(out)
