"""Unit tests of the reproducer runtimes (templates/runtime_onnx.py, runtime_torch.py,
runtime_keras.py): each imports nothing of ferry and runs with ferry off sys.path; ferry_compare
reports the first differing elements with got, want, |diff| and allowed; generated inputs are
deterministic and the ones the template wrote; a reproducer inlines its runtime whole and judges by
the tolerance it was given. Prints TAP; run by tests/unit/test-runtime.sh with the libraries the
runtimes need (a runtime whose library is missing is skipped)."""

import ast
import importlib.util
import json
import os
import subprocess
import sys
import tempfile

import numpy as np

results = []


def ok(cond, name):
    results.append((bool(cond), name))


RUNTIMES = [lib for lib in ("onnx", "torch", "keras") if importlib.util.find_spec(lib if lib != "keras" else "keras")]
here = os.path.dirname(os.path.abspath(__file__))
templates = os.path.join(here, "..", "..", "templates")

# --- no runtime imports ferry: by its syntax, and by running it where there is no ferry
def outside_main_guard(tree):
    """The nodes of a module outside its one 'if __name__ != "__main__":' statement (the imports of
    names a reproducer pastes above the module, and leaves out)."""
    guard = [n for n in tree.body if isinstance(n, ast.If) and ast.unparse(n.test) == "__name__ != '__main__'"]
    inside = {id(x) for g in guard for x in ast.walk(g)}
    return [n for n in ast.walk(tree) if id(n) not in inside], guard


for lib in ("onnx", "torch", "keras", "compare"):
    path = os.path.join(templates, f"runtime_{lib}.py")
    with open(path) as f:
        tree = ast.parse(f.read(), filename=path)
    nodes, guard = outside_main_guard(tree)
    imported = [a.name for n in nodes if isinstance(n, ast.Import) for a in n.names]
    imported += [n.module or "" for n in nodes if isinstance(n, ast.ImportFrom)]
    ok(imported and not [m for m in imported if m.split(".")[0] in ("ferry", "_ferry")],
       f"runtime_{lib} imports nothing of ferry ({', '.join(sorted(set(imported)))})")
    taken = {n.module for g in guard for n in ast.walk(g) if isinstance(n, ast.ImportFrom)}
    ok(taken <= {"ferry.templates.runtime_compare"},
       f"runtime_{lib} takes names from runtime_compare alone, in its __main__ statement ({sorted(taken)})")
    if lib == "compare":
        continue
    if lib not in RUNTIMES:
        results.append((True, f"# SKIP runtime_{lib} run alone: {lib} is not installed"))
        continue
    # -I: no PYTHONPATH, no current directory: the build tree's ferry package is out of reach; run as
    # __main__, as in a reproducer, where its statement of ferry imports is skipped
    run = subprocess.run([sys.executable, "-I", "-c", "import runpy, sys; runpy.run_path(sys.argv[1], run_name='__main__');"
                          "import importlib.util; assert importlib.util.find_spec('ferry') is None", path],
                         capture_output=True, text=True, env=dict(os.environ, TF_CPP_MIN_LOG_LEVEL="3"))
    ok(run.returncode == 0, f"runtime_{lib} runs with ferry off sys.path {run.stderr[-300:]!r}")

from ferry.templates import runtime_compare, runtime_onnx  # noqa: E402


def pasted_whole(runtime, script):
    """Whether script holds the runtime whole, but for its __main__ statement, and runtime_compare
    whole before it."""
    with open(runtime.__file__) as f:
        text = f.read()
    _, guard = outside_main_guard(ast.parse(text))
    lines = text.splitlines(keepends=True)
    for g in guard:
        del lines[g.lineno - 1:g.end_lineno]
    before, after = "".join(lines[:guard[0].lineno - 1]), "".join(lines[guard[0].lineno - 1:])
    with open(runtime_compare.__file__) as f:
        compare = f.read()
    return before in script and after in script and -1 < script.find(compare) < script.find(before)

# --- ferry_compare: the first differing elements, got and want
compare = runtime_onnx.ferry_compare
ok(compare([np.array([1.0, 2.0])], [np.array([1.0, 2.0005])], 1e-3, 1e-3) == [], "values within tolerance agree")
problems = compare([np.array([[1.0, 2.0], [3.5, 9.0]])], [np.array([[1.0, 2.0], [3.0, 4.0]])], 1e-3, 1e-3)
text = problems[0] if len(problems) == 1 else ""
lines = text.splitlines()
ok(lines and lines[0] == "output 0: 2 of 4 values differ", f"one problem that counts the differences: {lines[:1]}")
ok(len(lines) == 4 and lines[1].split() == ["index", "got", "want", "|diff|", "allowed"], "a header, then a line per difference")
ok(len(lines) == 4 and lines[2].strip().startswith("[1, 0]") and lines[2].split()[-4:] == ["3.5", "3.0", "0.5", "0.004"],
   f"first: index, got, want, |diff|, allowed: {lines[2:3]}")
ok(len(lines) == 4 and lines[3].split()[2:] == ["9.0", "4.0", "5", "0.005"], f"second difference: {lines[3:4]}")
many = compare([np.arange(100.0)], [np.zeros(100)], 0.0, 0.0)
ok(len(many) == 1 and len(many[0].splitlines()) == 2 + 5 and "99 of 100" in many[0], "only the first five differences are shown")
beyond = compare([np.array([1.5])], [np.array([1.0])], 0.4, 0.0)
ok(len(beyond) == 1 and beyond[0].splitlines()[2].split()[-1] == "0.4", f"the tolerance given is the one that judges: {beyond}")
ok(compare([np.array([1.5])], [np.array([1.0])], 0.5, 0.0) == [], "within atol: no problem")
nan = compare([np.array([np.nan, 1.0])], [np.array([0.0, 1.0])], 1e-3, 1e-3)
ok(len(nan) == 1 and "NaN in 1 places, reference 0" in nan[0] and "nan" in nan[0], f"NaN where the reference has none: {nan}")
ok(compare([np.array([np.nan, np.inf])], [np.array([np.nan, np.inf])], 1e-3, 1e-3) == [], "NaN and inf in the same places agree")
ok(compare([np.zeros(3, np.float32)], [np.zeros(3)], 1, 1) == ["output 0: float32[3], reference float64[3]"], "dtypes differ")
ok(compare([np.zeros(2)], [np.ones(2)], 0, 0, random=True) == [], "random: only dtypes and shapes")
ok(compare([], [np.ones(2)], 0, 0) == ["0 outputs, the reference has 1"], "as many outputs")
strings = compare([np.array(["a", "b"], dtype=object)], [np.array(["a", "c"], dtype=object)], 0, 0)
ok(len(strings) == 1 and "1 strings differ" in strings[0] and "[1]" in strings[0], f"strings: {strings}")
seq = compare([[np.ones(2), np.ones(2)]], [[np.ones(2), np.zeros(2)]], 0, 0)
ok(len(seq) == 1 and seq[0].startswith("output 0[1]: 2 of 2"), f"a sequence's element: {seq}")
cplx = compare([np.array([1 + 2j])], [np.array([1 + 1j])], 0, 0)
ok(len(cplx) == 1 and "[0, 1]" in cplx[0], f"complex values as pairs of reals: {cplx}")


def wrapped(template, record):
    out = tempfile.mkdtemp()
    got = template.wrap(json.dumps(record), out)
    ok(got.get("status") == "ok", f"{record['op']}: wrap ok ({got})")
    return out


# --- ONNX: the inputs from seeds, as the template wrote them; the reproducer carries the runtime whole
from ferry.oracle import reproducer as ferry_reproducer  # noqa: E402
from ferry.templates import onnx as template_onnx  # noqa: E402

record = {"id": "dc0c2db7becceb735b4810739c587abc", "context": {"opset": {"int": 14}}, "kind": "node", "library": "onnx",
          "op": "Add", "inputs": [{"tensor": {"dtype": "float32", "range": [-3, 3], "shape": [3, 4, 5]}},
                                  {"tensor": {"dtype": "float32", "shape": [3, 4, 5]}}],
          "outputs": [{"tensor": {"dtype": "float32", "shape": [3, 4, 5]}}], "params": {}}
out = wrapped(template_onnx, record)
seed = int(record["id"], 16)
a = runtime_onnx.ferry_input(seed, [0], "float32", [3, 4, 5], [-3, 3])
ok(np.array_equal(a, runtime_onnx.ferry_input(seed, [0], "float32", [3, 4, 5], [-3, 3])),
   "onnx: an input from a seed is deterministic")
ok(np.array_equal(a, np.load(os.path.join(out, "input_0.npy"))), "onnx: it is the input the template wrote")
ok(np.array_equal(runtime_onnx.ferry_input(seed, [1], "float32", [3, 4, 5], None), np.load(os.path.join(out, "input_1.npy"))),
   "onnx: the second input too")
ok(not np.array_equal(a, runtime_onnx.ferry_input(seed + 1, [0], "float32", [3, 4, 5], [-3, 3])),
   "onnx: another seed, other values")
if importlib.util.find_spec("onnxruntime"):
    script = ferry_reproducer.reproducer("onnx", json.dumps(record), out, "ort", "0.25", "0.125")
    ok(pasted_whole(runtime_onnx, script), "onnx: the reproducer inlines runtime_onnx.py whole, and runtime_compare.py")
    ok("import ferry" not in script and "from ferry" not in script, "onnx: the reproducer imports nothing of ferry")
    ok("\nATOL = 0.25\n" in script and "\nRTOL = 0.125\n" in script, "onnx: the reproducer uses the tolerance given")
    path = os.path.join(out, "repro.py")
    with open(path, "w") as f:
        f.write(script)
    run = subprocess.run([sys.executable, "-I", path], capture_output=True, text=True)
    ok(run.returncode == 0 and "no bug" in run.stdout,
       f"onnx: the reproducer runs alone ({run.returncode}: {run.stdout[-200:]}{run.stderr[-300:]})")
else:
    results.append((True, "# SKIP onnx reproducer: onnxruntime is not installed"))

# --- PyTorch: tensors from seeds, as the template made them
if "torch" in RUNTIMES:
    import torch

    from ferry.templates import runtime_torch
    from ferry.templates import torch as template_torch

    record = {"id": "0123456789abcdef0123456789abcdef", "library": "torch", "op": "torch.add", "kind": "function",
              "inputs": [{"tensor": {"dtype": "float32", "shape": [2, 3]}},
                         {"tensor": {"dtype": "int64", "shape": [3], "range": [0, 9]}}], "params": {}}
    out = wrapped(template_torch, record)
    seed = int(record["id"], 16)
    t = runtime_torch.ferry_tensor(seed, [0], "float32", [2, 3], None)
    ok(torch.equal(t, runtime_torch.ferry_tensor(seed, [0], "float32", [2, 3], None)),
       "torch: a tensor from a seed is deterministic")
    ok(np.array_equal(t.numpy(), np.load(os.path.join(out, "input_0.npy"))), "torch: it is the input the template wrote")
    u = runtime_torch.ferry_tensor(seed, [1], "int64", [3], [0, 9])
    ok(np.array_equal(u.numpy(), np.load(os.path.join(out, "input_1.npy"))) and int(u.min()) >= 0 and int(u.max()) <= 9,
       "torch: an integer tensor, in its bounds, as the template wrote it")
    try:  # the template resolves unknown dimensions with the call's other tensors; the runtime never guesses
        runtime_torch.ferry_tensor(seed, [0], "float32", [None, 3], None)
        ok(False, "torch: a tensor with an unknown dimension is refused, not filled with 1")
    except ValueError:
        ok(True, "torch: a tensor with an unknown dimension is refused, not filled with 1")
    problems = runtime_torch.ferry_compare([torch.tensor([1.0, 2.0])], [torch.tensor([1.0, 3.0])], 1e-3, 1e-3)
    ok(len(problems) == 1 and problems[0].splitlines()[2].split()[:3] == ["[1]", "2.0", "3.0"],
       f"torch: compare shows got and want {problems}")
    bf = runtime_torch.ferry_compare([torch.ones(2, dtype=torch.bfloat16)], [torch.ones(2, dtype=torch.bfloat16)], 0, 0)
    ok(bf == [], "torch: bfloat16 outputs compare as float32")
    script = ferry_reproducer.reproducer("torch", json.dumps(record), out, "inductor", "0.5", "0.25")
    ok(pasted_whole(runtime_torch, script), "torch: the reproducer inlines runtime_torch.py whole, and runtime_compare.py")
    ok("import ferry" not in script and "from ferry" not in script, "torch: the reproducer imports nothing of ferry")
    ok("\nATOL = 0.5\n" in script and "\nRTOL = 0.25\n" in script, "torch: the reproducer uses the tolerance given")

# --- the one-way rule and no source lists: templates import nothing of the oracle, and no file of
# templates/ or oracle/ builds a reproducer from inspect.getsource or a REPRODUCER string
TOP = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
for folder in ("templates", "oracle", os.path.join("oracle", "adapters")):
    for name in sorted(os.listdir(os.path.join(TOP, folder))):
        if not name.endswith(".py"):
            continue
        where = f"{folder}/{name}"
        with open(os.path.join(TOP, folder, name)) as f:
            text = f.read()
        tree = ast.parse(text)
        attrs = [n.attr for n in ast.walk(tree) if isinstance(n, ast.Attribute)]
        names = [n.id for n in ast.walk(tree) if isinstance(n, ast.Name)]
        ok("getsource" not in attrs and "getsource" not in names, f"{where}: no inspect.getsource")
        ok("REPRODUCER" not in names, f"{where}: defines no REPRODUCER string")
        imported = [a.name for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names]
        imported += [n.module or "" for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)]
        if folder == "templates":
            ok(not [m for m in imported if m == "ferry.oracle" or m.startswith("ferry.oracle.")],
               f"{where}: imports nothing of ferry.oracle")
        if folder.endswith("adapters") and name.startswith("_run_"):
            # a frontend module: ferry's names only in its 'if __name__ != "__main__":' statement
            guarded = [n for n in tree.body if isinstance(n, ast.If)
                       and ast.unparse(n.test) == "__name__ != '__main__'"]
            inside = {id(x) for g in guarded for x in ast.walk(g)}
            outside = [m for n in ast.walk(tree) if isinstance(n, (ast.Import, ast.ImportFrom)) and id(n) not in inside
                       for m in ([a.name for a in n.names] if isinstance(n, ast.Import) else [n.module or ""])]
            ok(not [m for m in outside if m.split(".")[0] == "ferry"],
               f"{where}: imports ferry only where a reproducer leaves it out")

# --- the value oracle's rules in runtime_compare, as oracle/compare.c has them (test-compare.c)
from ferry.templates import runtime_compare as rc  # noqa: E402

half = np.array([8.0, -9.1171875], dtype=np.float16)
ok(rc.ferry_compare_arrays("o", np.array([8.015625, -9.125], dtype=np.float16), half, 1e-3, 1e-3) is None,
   "float16 values 2 ulp and 1 ulp apart pass (poisson_nll_loss's -9.125 against -9.1171875)")
ok(rc.ferry_compare_arrays("o", np.array([8.0234375, -9.125], dtype=np.float16), half, 1e-3, 1e-3) is not None,
   "3 ulps apart do not")
wide = np.array([3.140625], dtype=np.float32)
ok(rc.ferry_compare_arrays("o", np.array([3.171875], dtype=np.float32), wide, 1e-3, 1e-3) is not None and
   rc.ferry_compare_arrays("o", np.array([3.171875], dtype=np.float32), wide, 1e-3, 1e-3, precision="bfloat16")
   is None, "float32 has no ulp term; bfloat16 widened to float32 has (2 ulps pass)")
ok(rc.FERRY_HALF_ULPS == int(open(os.path.join(here, "..", "..", "oracle", "compare.h")).read()
                              .split("#define COMPARE_HALF_ULPS")[1].split()[0]),
   "runtime_compare and compare.h allow the same ulps")
ok(all(f'{{ "{name}", {k}, {n} }}' in open(os.path.join(here, "..", "..", "oracle", "compare.c")).read()
       for name, (k, n) in rc.FERRY_TIE_OPS.items()), "runtime_compare's tie table is compare.c's")
if "torch" in RUNTIMES:
    import torch

    # A real tie: torch.topk on data with equal elements, and the equally right answer a frontend that
    # scans from the other end gives (the reference's indices mirrored on the flipped data).
    data = torch.tensor([[3.0, 1.0, 1.0, 0.0, 2.0], [5.0, 5.0, 2.0, 7.0, 7.0]])
    want = torch.topk(data, 2, dim=1)
    other = torch.topk(data.flip(1), 2, dim=1)
    got_idx = (data.shape[1] - 1 - other.indices)
    ok(not torch.equal(got_idx, want.indices) and torch.equal(other.values, want.values),
       "torch: the mirrored topk picks other indices, the same values")
    ok(rc.ferry_untie_outputs(("torch.topk", data.numpy()), [other.values.numpy(), got_idx.numpy()],
                              [want.values.numpy(), want.indices.numpy()])[1].tolist() == want.indices.tolist(),
       "torch.topk: indices at ties are accepted")
    bad = got_idx.clone()
    bad[0, 0] = 4  # the 2.0, not the 3.0
    ok(rc.ferry_untie_outputs(("torch.topk", data.numpy()), [other.values.numpy(), bad.numpy()],
                              [want.values.numpy(), want.indices.numpy()])[1][0, 0] == 4,
       "an index pointing at a different value stays wrong")
    am_want = torch.argmax(data, dim=1).numpy()
    am_got = (data.shape[1] - 1 - torch.argmax(data.flip(1), dim=1)).numpy()
    ok(rc.ferry_untie(am_got, am_want, data.numpy())[1] == 1, "torch.argmax: the tie in row 1 is accepted")
    ok(rc.ferry_untie(np.array(9), np.array(8), data.numpy().reshape(-1))[1] == 1 and
       rc.ferry_untie(np.array(4), np.array(8), data.numpy().reshape(-1))[1] == 0,
       "a flat argmax: 7 at 9 for 7 at 8 is a tie, 2 at 4 is not")
    ok(not rc.ferry_tie_output("torch.topk", 0, 2) and rc.ferry_tie_output("TopK", 1, 2)
       and not rc.ferry_tie_output("torch.max", 0, 1), "values outputs and one-output max have no tie rule")

# an SVD's singular vectors are unique up to sign (a phase when complex): aligned, and nothing else
if "torch" in RUNTIMES:
    import torch

    from ferry.templates import runtime_compare as rc_svd

    torch.manual_seed(0)
    a = torch.randn(2, 5, 3, dtype=torch.float64)
    U, S, V = torch.svd(a)
    ref = [U.numpy(), S.numpy(), V.numpy()]
    flip = torch.tensor([1.0, -1.0, 1.0], dtype=torch.float64)
    aligned = rc_svd.ferry_align_vectors("torch.svd", [(U * flip).numpy(), S.numpy(), (V * flip).numpy()], ref)
    ok(all(np.allclose(x, y) for x, y in zip(aligned, ref)), "svd: vectors of the other sign are agreement")
    aligned = rc_svd.ferry_align_vectors("torch.svd", [U[..., [1, 0, 2]].numpy(), S.numpy(), V.numpy()], ref)
    ok(not np.allclose(aligned[0], ref[0]), "svd: vectors in another order still differ")
    U2, S2, Vh = torch.linalg.svd(a)
    ref2 = [U2.numpy(), S2.numpy(), Vh.numpy()]
    got2 = [(U2 * torch.tensor([1.0, -1.0, 1.0, 1.0, -1.0], dtype=torch.float64)).numpy(), S2.numpy(),
            (Vh * torch.tensor([-1.0, 1.0, 1.0], dtype=torch.float64)[:, None]).numpy()]
    aligned = rc_svd.ferry_align_vectors("torch.linalg.svd", got2, ref2)
    ok(all(np.allclose(x, y) for x, y in zip(aligned, ref2)), "linalg.svd: Vh's rows and a full U's completion")
    got3 = [U.numpy().astype(np.float32), S.numpy(), V.numpy()]
    ok(rc_svd.ferry_align_vectors("torch.svd", got3, ref)[0].dtype == np.float32, "svd: another dtype is left to the oracle")

# ferry's own failure is told by who raised it, never by a message a frontend could write
from ferry.oracle import driver as ferry_driver  # noqa: E402

NotSerialized = type("NotSerialized", (Exception,), {"__module__": "ferry.templates.torch"})
ok(ferry_driver._ferrys(NotSerialized("ferry: PyTorch could not make the export model: x"), here) == "wrap",
   "a template's NotSerialized is ferry's error at stage wrap")
ok(ferry_driver._ferrys(RuntimeError("ferry: looks like ferry's"), here) is False,
   "a frontend's exception whose message begins 'ferry: ' is still the frontend's crash")

for k, (good, name) in enumerate(results, 1):
    if name.startswith("#"):
        print(name)
        continue
    print(f"{'ok' if good else 'not ok'} {k} - {name}")
print(f"1..{len(results)}")
sys.exit(0 if all(good for good, _ in results) else 1)
