"""ferry.oracle.regress: a found bug as a test in the form its compiler keeps its own tests, and a
whole store's failures as the expected-failure lists those projects keep.

One bug (ferry show STORE BUG -o DIR; reproducer.export calls export() here), by the frontend:
  openvino-*   a pytest file in the manner of OpenVINO's layer tests: a class with create_model,
               _prepare_input and _reference, and a test method under pytest marks that compiles the
               model with openvino.Core on the CPU and compares its outputs with the reference
  tvm-*        a pytest file in the manner of TVM's frontend tests: a check_correctness function
               comparing TVM's outputs (from_onnx, tvm.compile for llvm, the Relax VM) with the
               reference, and a test function that calls it on the model
  iree-*       the ONNX backend test-data directory (the template's export()) and the entry of the
               bug's test in the JSON config of IREE's ONNX operator suite (iree-test-suites onnx_ops)
  other        the template's export(): the ONNX backend test-data directory, or for PyTorch a plain
               pytest test that runs the reproducer
The OpenVINO and TVM files are standalone: the ONNX model in ONNX's text syntax (or base64), the
inputs and the reference outputs ferry compared with as literals, numpy, onnx, pytest and the
frontend's public API, nothing of ferry and nothing of the projects' own test harnesses. Where a
literal cannot carry the test (a model of another library than ONNX, a narrow dtype or a sequence the
frontend's plain API does not take as numpy arrays) the test class or function runs the reproducer,
written beside it, in a process of its own. Each fails while the bug shows, at ferry's tolerance.

A whole store (ferry report STORE --xfail DIR; xfail() here), per frontend, the tests named as show
-o names their directories (test_OP_ID, regress_name()):
  iree_onnx_ops.json     IREE's per-target config: expected_compile_failures, expected_run_failures
  onnx_backend_exclude.txt  one regex a line for onnx.backend.test.BackendTest.exclude()
  conftest.py            pytest xfail marks: every collected test whose name holds a failing test's
                         id is marked xfail(strict=True) with its bug as the reason
"""

import base64
import json
import os
import re

from ferry.oracle import driver
from ferry.oracle.reproducer import _QUOTES, _comment, _minimal_value, onnx_text, reproducer
from ferry.templates import _files

# the stages whose failure IREE's suite sees as iree-compile's (import included); any other, as
# iree-run-module's (a crash while running, or outputs that differ from the expected ones)
_COMPILE_STAGES = ("wrap", "load", "compile")


def regress_name(op, ident):
    """The name of a test's exported directory and its test in every list: test_OP_ID, OP with what is
    not an ASCII letter or digit as '_', the id's first 12 hex digits (ferry show -o's name)."""
    slug = "".join(c if c.isascii() and c.isalnum() else "_" for c in str(op))
    return f"test_{slug}_{_ident(ident)}"


def _ident(ident):
    return "".join(c for c in str(ident or "") if c in "0123456789abcdef")[:12]


def family(frontend):
    """The compiler whose test format a frontend's bug is written in: openvino, tvm, iree or None."""
    for name in ("openvino", "tvm", "iree"):
        if frontend == name or frontend.startswith(name + "-"):
            return name
    return None


def export(library, record_json, testdir, outdir, frontend, atol, rtol, outcome, stage):
    """Write the bug's test in its compiler's format into outdir (see the module's text); a frontend
    of no family known here gets the template's export. Returns outdir."""
    from ferry.oracle import reproducer as rp

    name = family(driver.load_adapter(frontend).NAME)
    if name in ("openvino", "tvm") and library not in ("onnx", "torch"):
        # A Keras model: the SavedModel the compiler's TensorFlow frontend reads, and the test beside it.
        rp.export_template(library, record_json, testdir, outdir, frontend)
    if name in ("openvino", "tvm"):
        return _export_style(name, library, record_json, testdir, outdir, frontend, float(atol), float(rtol))
    rp.export_template(library, record_json, testdir, outdir, frontend)
    if name == "iree":
        record = json.loads(record_json)
        entry = iree_config([{"name": regress_name(record.get("op", "?"), record.get("id")),
                              "outcome": outcome, "stage": stage}], None)
        with _files.create(os.path.join(outdir, "iree_onnx_ops.json"), "w") as f:
            f.write(entry)
    return outdir


# --- the literals of a standalone test -------------------------------------------------------------

def _onnx_literals(testdir):
    """(model expression, inputs dict literal, reference list literal, imports, random) of an ONNX test,
    or None where a literal would not carry it (a sequence, or a dtype numpy has not: the frontends'
    plain APIs take neither as a numpy array)."""
    import numpy as np
    import onnx
    import onnx.parser
    import onnx.printer

    meta = driver._meta(testdir)
    if any(e["kind"] == "sequence" for e in meta["inputs"] + meta["outputs"]):
        return None
    # a dtype numpy stores in a wider one ("stored": bfloat16 as float32) is one numpy has not
    if any("stored" in e or not hasattr(np, str(e.get("dtype"))) for e in meta["inputs"] + meta["outputs"]):
        return None
    inputs = driver.test_inputs(testdir, meta)
    wants = [driver._read(testdir, e, as_input=False) for e in meta["outputs"]]
    if any(np.asarray(a).dtype.kind in "OV" for a in list(inputs.values()) + wants):
        return None
    model = onnx.load(os.path.join(testdir, "model.onnx"))
    text = onnx_text(model)
    imports = {"import numpy as np", "import onnx"}
    if text is not None:
        expr = f"onnx.parser.parse_model({_QUOTES}\n{text}\n{_QUOTES})"
        imports.add("import onnx.parser")
    else:
        expr = f"onnx.load_from_string(base64.b64decode({base64.b64encode(model.SerializeToString()).decode()!r}))"
        imports.add("import base64")
    feeds = "".join(f"            {name!r}: {_minimal_value(v, imports)},\n" for name, v in inputs.items())
    want = "".join(f"            {_minimal_value(v, imports)},\n" for v in wants)
    return expr, "{\n" + feeds + "        }", "[\n" + want + "        ]", imports, bool(meta.get("random", False))


_ASSERT_CLOSE = '''

def assert_close(got, want, atol=ATOL, rtol=RTOL, values=True):
    """Outputs against the reference: count, dtype and shape, then values within
    |got - want| <= atol + rtol * |want| (NaN and Inf in the same places); values=False for an
    operator whose values are random (its dtype and shape are still checked)."""
    assert len(got) == len(want), f"{len(got)} outputs, the reference has {len(want)}"
    for k, (g, w) in enumerate(zip(got, want)):
        g, w = np.asarray(g), np.asarray(w)
        assert (g.dtype, g.shape) == (w.dtype, w.shape), \\
            f"output {k}: {g.dtype} {list(g.shape)}, the reference {w.dtype} {list(w.shape)}"
        if not values:
            continue
        if w.dtype.kind in "biufc":
            wide = np.complex128 if w.dtype.kind == "c" else np.float64
            np.testing.assert_allclose(g.astype(wide), w.astype(wide), atol=atol, rtol=rtol, equal_nan=True,
                                       err_msg=f"output {k}")
        else:
            np.testing.assert_array_equal(g, w, err_msg=f"output {k}")
'''

_RUN_SCRIPT = '''

def run_reproducer(name):
    """Run ferry's reproducer beside this file in a process of its own (a crash of the frontend fails
    the test, not the runner): it exits 1 while the bug shows, 0 once the frontend agrees."""
    script = os.path.join(os.path.dirname(os.path.abspath(__file__)), name)
    run = subprocess.run([sys.executable, script], capture_output=True, text=True)
    assert run.returncode == 0, run.stdout[-4000:] + run.stderr[-4000:]
'''

_OV_INFER = '''
    def _infer(self, model, inputs, ie_device):
        """Compile with OpenVINO (ONNX frontend: Core.read_model) in f32 and run, inputs by position."""
        core = ov.Core()
        ov_model = core.read_model(model=model.SerializeToString(), weights=b"")
        compiled = core.compile_model(ov_model, ie_device, {"INFERENCE_PRECISION_HINT": "f32"})
        request = compiled.create_infer_request()
        request.infer(list(inputs.values()))
        return [np.array(request.get_output_tensor(k).data, copy=True) for k in range(len(compiled.outputs))]
'''

_TVM_CHECK = '''

def check_correctness(model, inputs, expected, atol=ATOL, rtol=RTOL, values=True):
    """TVM's outputs for the ONNX model (relax.frontend.onnx.from_onnx, built for llvm, run on the Relax
    VM) against the expected ones."""
    mod = from_onnx(model)
    vm = relax.VirtualMachine(tvm.compile(mod, target="llvm"), tvm.cpu())
    result = vm["main"](*[tvm.runtime.tensor(np.asarray(v)) for v in inputs.values()])
    items = list(result) if len(expected) != 1 and not hasattr(result, "numpy") else [result]
    got = [np.array(list(x), dtype=np.int64) if not hasattr(x, "numpy") else x.numpy() for x in items]
    assert_close(got, expected, atol, rtol, values)
'''


def _export_style(name, library, record_json, testdir, outdir, frontend, atol, rtol):
    """The OpenVINO or TVM pytest file, outdir/test_ferry_<op>_<id>.py (see the module's text)."""
    record = json.loads(record_json)
    ident = _ident(record.get("id"))
    test = regress_name(record.get("op", "?"), ident)
    what = f"{_comment(record.get('op', '?'))} on {_comment(frontend)} (ferry instance {_comment(record.get('id'))})"
    parts = _onnx_literals(testdir) if library == "onnx" else None
    os.close(_files.open_dir(outdir, 1))  # DIR/test_OP_ID: ferry's, in the user's DIR
    imports = {"import numpy as np", "import pytest"}
    if parts is None:
        script = f"ferry_reproducer_{ident}.py"
        with _files.create(os.path.join(outdir, script), "w") as f:
            f.write(reproducer(library, record_json, testdir, frontend, atol, rtol))
        imports |= {"import os", "import subprocess", "import sys"}
        helpers = _RUN_SCRIPT
    else:
        model, feeds, want, more, random = parts
        imports |= more
        helpers = _ASSERT_CLOSE
    if name == "openvino":
        imports.add("import openvino as ov")
        body = _openvino_body(test, what, parts, helpers)
    else:
        imports |= {"import tvm", "from tvm import relax", "from tvm.relax.frontend.onnx import from_onnx"}
        body = _tvm_body(test, what, parts, helpers)
    if parts is not None:
        body = body.replace("@MODEL@", model).replace("@FEEDS@", feeds).replace("@WANT@", want) \
            .replace("@VALUES@", repr(not random))
    style = "OpenVINO's layer tests" if name == "openvino" else "TVM's frontend tests"
    head = (f"# Regression test exported by ferry: {what}.\n"
            f"# In the manner of {style}, standalone (plain pytest). It fails while the bug shows:\n"
            f"# the frontend raises, or an output differs beyond |got - want| <= {atol!r} + {rtol!r} * |want|.\n")
    order = sorted(imports, key=lambda x: (x.startswith("from") or x.split()[1].split(".")[0] in
                                           ("numpy", "onnx", "pytest", "openvino", "tvm"), x))
    text = head + "".join(line + "\n" for line in order) + f"\nATOL, RTOL = {atol!r}, {rtol!r}\n" + helpers + body
    with _files.create(os.path.join(outdir, f"test_ferry_{test[len('test_'):].lower()}.py"), "w") as f:
        f.write(text)
    return outdir


def _openvino_body(test, what, parts, helpers):
    cls = "Test" + "".join(w[:1].upper() + w[1:] for w in test[len("test_"):].split("_"))
    if parts is None:
        script = f"ferry_reproducer_{test.rsplit('_', 1)[1]}.py"
        return (f"\n\nclass {cls}:\n    {'Regression test exported by ferry: ' + what!r}\n\n"
                f"    @pytest.mark.nightly\n    @pytest.mark.precommit\n"
                f"    def {test}(self):\n        run_reproducer({script!r})\n")
    return (f"\n\nclass {cls}:\n    {'Regression test exported by ferry: ' + what!r}\n\n"
            "    def create_model(self):\n        return @MODEL@\n\n"
            "    def _prepare_input(self):\n        return @FEEDS@\n\n"
            "    def _reference(self):\n        \"\"\"The reference outputs ferry compared with.\"\"\"\n"
            "        return @WANT@\n" + _OV_INFER +
            "\n    @pytest.mark.nightly\n    @pytest.mark.precommit\n"
            "    @pytest.mark.parametrize(\"ie_device, precision\", [(\"CPU\", \"FP32\")])\n"
            f"    def {test}(self, ie_device, precision):\n"
            "        got = self._infer(self.create_model(), self._prepare_input(), ie_device)\n"
            "        assert_close(got, self._reference(), values=@VALUES@)\n")


def _tvm_body(test, what, parts, helpers):
    if parts is None:
        script = f"ferry_reproducer_{test.rsplit('_', 1)[1]}.py"
        return f"\n\ndef {test}():\n    {'Regression test exported by ferry: ' + what!r}\n    run_reproducer({script!r})\n"
    return (_TVM_CHECK +
            f"\n\ndef {test}():\n    {'Regression test exported by ferry: ' + what!r}\n"
            "    model = @MODEL@\n    inputs = @FEEDS@\n    expected = @WANT@\n"
            "    check_correctness(model, inputs, expected, values=@VALUES@)\n")


# --- a whole store's expected failures -------------------------------------------------------------

def iree_config(failures, config_name):
    """The JSON of IREE's per-target config of its ONNX operator suite (iree-test-suites onnx_ops) that
    expects these failures: each a dict with name, outcome, stage; sorted, one name a line. With
    config_name None, only the two lists (the entry of one bug, to merge into a config)."""
    compile_, run = set(), set()
    for f in failures:
        (compile_ if f.get("stage") in _COMPILE_STAGES else run).add(f["name"])
    doc = {} if config_name is None else {
        "config_name": config_name,
        "iree_compile_flags": ["--iree-hal-target-backends=llvm-cpu"],
        "iree_run_module_flags": ["--device=local-task"],
        "skip_compile_tests": [], "skip_run_tests": []}
    doc["expected_compile_failures"] = sorted(compile_)
    doc["expected_run_failures"] = sorted(run)
    return json.dumps(doc, indent=2) + "\n"


def backend_excludes(failures):
    """onnx.backend.test.BackendTest.exclude() patterns, one a line: a failing test's directory is
    test_OP_ID, which the runner names test_OP_ID_<device> (a comment line gives its bug)."""
    lines = []
    for f in sorted(failures, key=lambda f: f["name"]):
        lines.append(f"# {_comment(f.get('bug', '?'))}: {_comment(f.get('outcome', '?'))} "
                     f"{_comment(f.get('message') or '')[:120]}".rstrip() + "\n")
        lines.append(f"^{re.escape(f['name'])}_\n")
    return "".join(lines)


_CONFTEST = '''
import pytest


def pytest_collection_modifyitems(config, items):
    """Mark xfail (strict: a test that passes again fails the run, so the list is kept honest) every
    test whose name holds the id of a test ferry found failing, with its bug as the reason."""
    for item in items:
        for ident, reason in XFAIL.items():
            if "_" + ident in item.name:
                item.add_marker(pytest.mark.xfail(reason=reason, strict=True))
                break
'''


def pytest_conftest(frontend, failures):
    """A conftest.py that marks the failing tests xfail by their ids (ferry's pytest files and the ONNX
    backend runner's tests both carry the id in their names)."""
    marks = {}
    for f in sorted(failures, key=lambda f: f["name"]):
        ident = f["name"].rsplit("_", 1)[1]
        marks[ident] = f"ferry bug {f.get('bug', '?')} of {frontend}: {f.get('outcome', '?')} {f.get('op', '')}".strip()
    body = "".join(f"    {k!r}: {v!r},\n" for k, v in marks.items())
    return (f'"""Expected failures of {_comment(frontend)}, written by ferry report --xfail."""\n'
            f"{_CONFTEST}\n\nXFAIL = {{\n{body}}}\n")


def xfail(failures_json, outdir):
    """Write outdir/FRONTEND/{iree_onnx_ops.json, onnx_backend_exclude.txt, conftest.py} for each
    frontend of failures_json (a JSON list of {frontend, library, id, op, outcome, stage, bug,
    message}); the IREE config for IREE frontends, the backend list for ONNX ones. Returns a line a
    file written."""
    by_frontend = {}
    for f in json.loads(failures_json):
        f["name"] = regress_name(f.get("op", "?"), f.get("id"))
        by_frontend.setdefault(f["frontend"], []).append(f)
    os.close(_files.open_dir(outdir, 0))
    written = []
    for frontend, failures in sorted(by_frontend.items()):
        where = os.path.join(outdir, _files.plain(frontend))
        os.close(_files.open_dir(where, 1))
        files = {"conftest.py": pytest_conftest(frontend, failures)}
        if all(f.get("library") == "onnx" for f in failures):
            files["onnx_backend_exclude.txt"] = backend_excludes(failures)
        if family(frontend) == "iree":
            files["iree_onnx_ops.json"] = iree_config(failures, f"ferry_{frontend.replace('-', '_')}")
        for name, text in files.items():
            with _files.create(os.path.join(where, name), "w") as f:
                f.write(text)
            written.append(f"{where}/{name}: {len(failures)} failing tests")
    return "".join(line + "\n" for line in written)
