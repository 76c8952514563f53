"""ferry.oracle.metamorphic_run: the worker's side of the metamorphic oracle (ferry run --oracle
metamorphic), after ferry.oracle.driver's run() for the reference oracle.

run() mutates the test's model (ferry.oracle.metamorphic, k mutations, the choices seeded by the
run's seed and the test's id, so a worker anywhere makes the same m'), then runs the original m and
the mutated m' through the adapter with the same stages and options: m from the test directory, m'
from a temporary copy of it whose model.onnx is m'. m failing is the test failing as in any run;
m' failing is a failure of its own (the verdict says so, and the C side says "the mutated model" in
its message); their outputs side by side go to the C side's value oracle, whose disagreement is the
outcome "inconsistent". m' announces its stages with PROTO_STAGE_MUTATED after the stage's name, so
that a worker that dies in them is said to have died on the mutated model.

reduce() makes the same m' again and reduces its chain (ferry.oracle.metamorphic.reduce) against the
frontend: a candidate fails where its outputs disagree with m's by the same C comparison
(_ferry.agree); a candidate that crashes does not show this failure. It runs in a worker of its own
job, so a frontend that dies while it runs costs the reduction, never the run.
"""

import base64
import hashlib
import io
import json
import os
import shutil
import tempfile
import time

import numpy as np
import onnx

from ferry.oracle import driver
from ferry.oracle import metamorphic as mt

try:
    import _ferry
    _MUTATED = _ferry.STAGE_MUTATED
except ImportError:  # outside a worker (tests): the same word
    _ferry = None
    _MUTATED = ":mutated"

# The largest reduced model and outputs a result carries (base64, within the protocol's line).
_KEEP_BYTES = 3 << 20


def test_seed(seed, test_id):
    """The seed of one test's mutations: the run's seed and the test's id."""
    return int(hashlib.sha256(f"{int(seed)}:{test_id}".encode()).hexdigest()[:15], 16)


def _mutate(testdir, meta, inputs, k, seed):
    model = onnx.load(os.path.join(testdir, "model.onnx"))
    try:
        return model, mt.mutate(model, inputs, int(k), test_seed(seed, meta.get("id", "")),
                                random=bool(meta.get("random", False)))
    except mt.MutationError as e:
        return model, str(e)


class _Copy:
    """A temporary test directory holding model as model.onnx, the test's other files beside it."""

    def __init__(self, testdir, model):
        self.dir = tempfile.mkdtemp(prefix="ferry-mutated-")
        for f in os.listdir(testdir):
            if f != "model.onnx":
                os.symlink(os.path.join(os.path.abspath(testdir), f), os.path.join(self.dir, f))
        onnx.save(model, os.path.join(self.dir, "model.onnx"))

    def __enter__(self):
        return self.dir

    def __exit__(self, *exc):
        shutil.rmtree(self.dir, ignore_errors=True)


def _stages(adapter, testdir, inputs, suffix=""):
    """Run the adapter's stages: ("outputs", list) or a driver verdict (crash, error, unavailable)."""
    stage = driver._words.STAGE_LOAD
    try:
        driver._stage(stage + suffix)
        loaded = adapter.load(testdir)
        stage = driver._words.STAGE_COMPILE
        driver._stage(stage + suffix)
        compiled = adapter.compile(loaded)
        stage = driver._words.STAGE_EXECUTE
        driver._stage(stage + suffix)
        return ("outputs", list(adapter.execute(compiled, inputs)))
    except driver.FormatUnavailable as e:
        return (driver._words.VERDICT_UNAVAILABLE, f"{adapter.FORMAT}: {e}")
    except BaseException as e:  # the frontend's, sys.exit too: the crash oracle's to judge
        verdict = driver._crash(adapter, stage, e)
        ferrys = driver._ferrys(e, testdir)
        if ferrys == "wrap":
            return (driver._words.VERDICT_ERROR, driver._words.STAGE_WRAP) + verdict[2:]
        if ferrys:
            return (driver._words.VERDICT_ERROR,) + verdict[1:]
        return verdict


def _side_by_side(got, want, entries):
    """m' outputs beside m's, flat (sequences by element) and in types the C side reads: (ok, a, b)
    or (mismatch, message)."""
    words = driver._words
    if len(got) != len(want):
        return (words.VERDICT_MISMATCH, f"the mutated model gave {len(got)} outputs, the original {len(want)}")
    a, b = [], []
    for k, (x, y, entry) in enumerate(zip(got, want, entries)):
        if entry["kind"] == "sequence":
            if not isinstance(x, (list, tuple)) or not isinstance(y, (list, tuple)) or len(x) != len(y):
                return (words.VERDICT_MISMATCH, f"output {k}: sequences of other lengths")
            pairs = [(f"output {k}[{j}]", o, r) for j, (o, r) in enumerate(zip(x, y))]
        else:
            pairs = [(f"output {k}", x, y)]
        for where, o, r in pairs:
            o, r = np.asarray(o), np.asarray(r)
            if o.dtype != r.dtype:
                return (words.VERDICT_MISMATCH, f"{where}: dtype {o.dtype} on the mutated model, {r.dtype} on the original")
            if o.dtype.kind in "OUS":
                if o.shape != r.shape:
                    return (words.VERDICT_MISMATCH, f"{where}: shape {list(o.shape)} on the mutated model, "
                            f"{list(r.shape)} on the original")
                o, r = o.astype(str) == r.astype(str), np.ones(r.shape, dtype=bool)
            elif o.dtype.kind == "c":
                o, r = np.stack([o.real, o.imag], axis=-1), np.stack([r.real, r.imag], axis=-1)
            elif o.dtype.kind not in "biuf":  # bfloat16, float8, ...: values a float32 holds exactly
                o, r = o.astype(np.float32), r.astype(np.float32)
            a.append(np.ascontiguousarray(o))
            b.append(np.ascontiguousarray(r))
    return (words.VERDICT_OK, a, b)


def _context(meta, inputs, outputs):
    """What the value oracle needs beyond the arrays, as driver.run() gives it."""
    first = next(iter(inputs.values()), None) if inputs else None
    data = np.ascontiguousarray(first) if isinstance(first, np.ndarray) and first.dtype.kind in "biuf" else None
    dtypes = [entry["dtype"] for entry, out in zip(meta["outputs"], outputs)
              for _ in (out if entry["kind"] == "sequence" else [out])]
    return {"op": str(meta.get("op", "")), "data": data, "dtypes": dtypes}


def _frame(rec):
    """What groups an inconsistency into a bug: the mutation's kind and the operator it targets."""
    return f"{rec['kind']}:{rec['target_op']}"


def run(adapter, testdir, k, seed):
    """Run one test under the metamorphic oracle. Returns (verdict, info): verdict as driver.run()'s
    (ok with m' outputs as "outputs" and m's as "refs"; the C side compares them), info a dict:
    chain and stats (JSON text), nodes and original_nodes, note (why nothing was mutated), mutated
    (the verdict is m''s), frame (the last mutation's kind:target_op)."""
    meta = driver._meta(testdir)
    inputs = driver.test_inputs(testdir, meta)
    model, made = _mutate(testdir, meta, inputs, k, seed)
    info = {"original_nodes": mt.count_nodes(model), "mutated": False}
    if isinstance(made, str) or not made.chain:
        info["note"] = "not mutated: " + (made if isinstance(made, str) else made.stats.get("none", "no mutation held"))
    if not isinstance(made, str):
        info.update(chain=json.dumps(made.chain), stats=json.dumps(made.stats), nodes=mt.count_nodes(made.model))
        if made.chain:
            info["frame"] = _frame(made.chain[-1])
    first = _stages(adapter, testdir, inputs)
    if first[0] != "outputs":
        return first, info
    if "note" in info:
        verdict = _side_by_side(first[1], first[1], meta["outputs"])
    else:
        with _Copy(testdir, made.model) as copy:
            second = _stages(adapter, copy, inputs, _MUTATED)
        if second[0] != "outputs":
            info["mutated"] = True
            return second, info
        verdict = _side_by_side(second[1], first[1], meta["outputs"])
    if verdict[0] == driver._words.VERDICT_OK:
        verdict = verdict + (_context(meta, inputs, first[1]),)
    return verdict, info


def _npz(named):
    buf = io.BytesIO()
    np.savez(buf, **named)
    return buf.getvalue()


def _flat_named(prefix, outputs):
    out = {}
    for k, o in enumerate(outputs):
        for j, x in enumerate(o if isinstance(o, (list, tuple)) else [o]):
            x = np.asarray(x)
            if x.dtype.kind not in "biufcUS":
                x = x.astype(np.float32)
            out[f"{prefix}_{k}" + (f"_{j}" if isinstance(o, (list, tuple)) else "")] = x
    return out


def reduce(adapter, testdir, k, seed, seconds, atol, rtol, random):
    """Reduce the test's inconsistency. Returns JSON text: status (reduced; partial when time ran out;
    not reproduced when the whole chain no longer disagrees; failed when m itself no longer runs),
    keep and no_junk (mutation indices), tests (frontend runs), first_nodes and reduced_nodes, kind
    and target_op (of the last kept mutation: what the bug is grouped by), message (the reduced pair's
    disagreement), and base64 texts of the reduced model and of an npz of both outputs (m_K and
    mutated_K), left out past a few MB."""
    started = time.monotonic()
    meta = driver._meta(testdir)
    inputs = driver.test_inputs(testdir, meta)
    model, made = _mutate(testdir, meta, inputs, k, seed)
    if isinstance(made, str) or not made.chain:
        return json.dumps({"status": "failed", "message": "the mutation no longer applies"})
    first = _stages(adapter, testdir, inputs)
    if first[0] != "outputs":
        return json.dumps({"status": "failed", "message": f"the original model failed: {first[0]} {first[1:4]}"})
    want = first[1]
    last = {}

    def fails(candidate):
        with _Copy(testdir, candidate) as copy:
            got = _stages(adapter, copy, inputs, _MUTATED)
        if got[0] != "outputs":
            return False
        pair = _side_by_side(got[1], want, meta["outputs"])
        if pair[0] != driver._words.VERDICT_OK:
            agree, message = False, pair[1]
        else:
            agree, message = _ferry.agree(pair[1], pair[2], _context(meta, inputs, want), float(atol),
                                          float(rtol), bool(random))
        if agree is False:
            last[candidate.SerializeToString()] = (message, got[1])
        return agree is False

    budget = max(float(seconds) - (time.monotonic() - started), 1.0)
    result = mt.reduce(model, made.model, made.chain, fails, budget)
    reduced = result["model"]
    key = reduced.SerializeToString()
    out = {"status": "reduced" if result["complete"] else "partial", "keep": result["keep"],
           "no_junk": result["no_junk"], "tests": result["tests"], "first_nodes": mt.count_nodes(made.model),
           "reduced_nodes": mt.count_nodes(reduced)}
    if key not in last:
        out["status"] = "not reproduced"
        return json.dumps(out)
    rec = made.chain[result["keep"][-1]]
    out.update(kind=rec["kind"], target_op=rec["target_op"], message=last[key][0],
               chain=[made.chain[q] for q in result["keep"]])
    outputs = _npz({**_flat_named("m", want), **_flat_named("mutated", last[key][1])})
    if len(key) <= _KEEP_BYTES:
        out["model"] = base64.b64encode(key).decode()
        if len(key) + len(outputs) <= _KEEP_BYTES:
            out["outputs"] = base64.b64encode(outputs).decode()
    return json.dumps(out)
