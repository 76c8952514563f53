"""ferry.oracle.reproducer: standalone reproducer scripts, and the tests ferry show -o exports.

A reproducer is assembled from three parts, each pasted whole:
  1. the library's runtime, ferry/templates/runtime_<LIBRARY>.py: builds the model and inputs and
     compares outputs, as the template did in ferry (after ferry/templates/runtime_compare.py, whose
     judgement of outputs every runtime shares);
  2. the frontend module of the adapter: the module that defines the adapter's REPRODUCE function
     (ferry/oracle/adapters/_run_ort.py, ...), which runs the frontend as the adapter did in ferry;
  3. the test's own part, from the template: reproducer_test(record, testdir) gives the record's
     literal model-building and input lines and how to run the reference.
Imports go one way: this module imports the templates and the adapters, never the reverse.

A frontend module imports only the standard library, numpy and the frontend's packages, and the
names it takes from ferry (its library's runtime, or another frontend module) in one statement,
    if __name__ != "__main__":
        from ferry.templates.runtime_torch import ferry_feed
which the script leaves out, as those names are pasted above it (another frontend module named there
is pasted first). Nothing else of ferry reaches a script; every string from a record is a repr
literal in it (the template's part) or a comment line made safe (_comment).
"""

import ast
import importlib
import os
import sys

from ferry.oracle import driver
from ferry.templates import _files, registry

_RULE = "-" * 100


def reproducer(library, record_json, testdir, frontend, atol=None, rtol=None):
    """A standalone Python script that rebuilds the record's model and inputs, runs the library (the
    reference) and the frontend on them and exits 1 if the frontend raises or disagrees beyond
    |got - want| <= atol + rtol * |want| (the tolerance that judged the result; the template's default
    when None), 0 otherwise; 2 if the reference itself fails."""
    template = _template(library)
    adapter = driver.load_adapter(frontend)
    if adapter.LIBRARY != library:
        raise ValueError(f"frontend {frontend!r} takes {adapter.LIBRARY} models, not {library}")
    reproduce = getattr(adapter, "REPRODUCE", None)
    if not callable(reproduce):
        raise ValueError(f"adapter {adapter.NAME!r} declares no REPRODUCE function: it has no reproducer")
    return _script(library, template, template.reproducer_test(record_json, testdir), record_json, adapter,
                   reproduce, atol, rtol)


def reduced(library, record_json, testdir, frontend, atol=None, rtol=None):
    """The reproducer of a test directory that ferry reduce made of the record's failing model (a
    subgraph, which no record describes): as reproducer(), with the subgraph's model and inputs carried
    as they are (ferry.templates.onnx_subgraph.reproducer_test)."""
    if library != "onnx":
        raise ValueError(f"ferry reduce makes ONNX tests, not {library} ones")
    from ferry.templates import onnx_subgraph
    adapter = driver.load_adapter(frontend)
    reproduce = getattr(adapter, "REPRODUCE", None)
    if not callable(reproduce):
        raise ValueError(f"adapter {adapter.NAME!r} declares no REPRODUCE function: it has no reproducer")
    return _script(library, _template(library), onnx_subgraph.reproducer_test(record_json, testdir), record_json,
                   adapter, reproduce, atol, rtol)


def _script(library, template, test, record_json, adapter, reproduce, atol, rtol):
    atol = template.ATOL if atol is None else float(atol)
    rtol = template.RTOL if rtol is None else float(rtol)
    pasted = []
    runtime = "".join(_module_text(_runtime_module(library), library, pasted))
    frontend_text = "".join(_module_text(reproduce.__module__, library, pasted))
    name = _comment(adapter.NAME)
    return (f"#!/usr/bin/env python3\n"
            f"# ferry reproducer: {_comment(test['what'])} on {name} {_comment(adapter.version())}\n"
            f"# instance {_comment(test['instance'])}, from {_comment(test['source'])}\n"
            f"{_variant_line(record_json)}"
            f"# Exit status 1: the bug shows ({name} raises, or its outputs differ from {test['reference']}\n"
            f"# beyond |got - want| <= {atol!r} + {rtol!r} * |want|, or NaN in other places); 0: it does not.\n"
            f"{test['imports']}\n{runtime}\n{frontend_text}\n"
            f"FRONTEND = {adapter.NAME!r}\nrun_frontend = {reproduce.__name__}\n"
            f"ATOL = {atol!r}\nRTOL = {rtol!r}\n"
            f"# (float16 and bfloat16 values also pass within FERRY_HALF_ULPS ulps; indices of tie operators\n"
            f"# such as topk pass where they point at elements equal to the reference's: see ferry_compare)\n"
            f"OP = {test.get('op', _op(record_json))!r}\n{test['test']}")


def _op(record_json):
    """The record's operator name, as a string (the tie table's key), or ""."""
    import json
    try:
        return str(json.loads(record_json).get("op", ""))
    except (ValueError, AttributeError):
        return ""


def _variant_line(record_json):
    """A header line naming the parent a variant (ferry vary) was derived from and how, or ""."""
    import json
    try:
        variant = json.loads(record_json).get("variant")
    except (ValueError, AttributeError):
        return ""
    if not isinstance(variant, dict) or "parent" not in variant:
        return ""
    return f"# variant of {_comment(variant['parent'])} ({_comment(variant.get('vary', '?'))})\n"


def export(library, record_json, testdir, outdir, frontend, atol="nan", rtol="nan", outcome="", stage=""):
    """Write the test in its compiler's own format, chosen by the frontend (ferry.oracle.regress: a
    pytest file in the manner of OpenVINO's or TVM's own tests, the backend test-data directory and
    IREE's config entry), else by the library (export_template). atol and rtol (strings, as the C
    side passes them; "nan": the template's) judged the result; outcome and stage are the failure's.
    Returns outdir."""
    from ferry.oracle import regress

    template = _template(library)
    atol = template.ATOL if atol in ("", "nan") else float(atol)
    rtol = template.RTOL if rtol in ("", "nan") else float(rtol)
    return regress.export(library, record_json, testdir, outdir, frontend, atol, rtol, outcome, stage or None)


def export_template(library, record_json, testdir, outdir, frontend):
    """Write the test in the library's own format (the template's export()); for PyTorch, a pytest
    test that runs the reproducer. Returns outdir."""
    if registry.get(library)["EXPORT"] == "pytest":
        return _export_pytest(library, record_json, testdir, outdir, frontend)
    return _template(library).export(record_json, testdir, outdir, frontend)


def _export_pytest(library, record_json, testdir, outdir, frontend):
    """Write the test as a pytest test function, so that a found bug becomes a regression test of
    the frontend's own suite: outdir/test_ferry_<op>_<id>.py fails while the bug shows, and passes
    once the frontend agrees with eager PyTorch. The reproducer it runs is written beside it, as a
    script, so that it keeps running in a process of its own (a frontend crash must not take the
    test runner down). File and function names keep only ASCII letters and digits of the record's
    op and id; its text appears only as string literals."""
    import json
    import os

    script_text = reproducer(library, record_json, testdir, frontend)  # first: it refuses what is not allowed
    record = json.loads(record_json)
    slug = "".join(c if c.isascii() and c.isalnum() else "_" for c in str(record["op"])).strip("_").lower()[:80]
    ident = "".join(c for c in str(record.get("id") or "") if c in "0123456789abcdef")[:12]
    os.close(_files.open_dir(outdir, 1))  # DIR/test_OP_ID: ferry's, in the user's DIR
    script = f"ferry_reproducer_{ident}.py"
    with _files.create(os.path.join(outdir, script), "w") as f:
        f.write(script_text)
    module_doc = f"Regression test exported by ferry: {record['op']} on {frontend}."
    test_doc = f"The frontend must agree with eager PyTorch on this usage (ferry instance {record.get('id')})."
    with _files.create(os.path.join(outdir, f"test_ferry_{slug}_{ident}.py"), "w") as f:
        f.write(f'''{module_doc!r}
import os
import subprocess
import sys


def test_{slug}_{ident}():
    {test_doc!r}
    script = os.path.join(os.path.dirname(os.path.abspath(__file__)), {script!r})
    run = subprocess.run([sys.executable, script], capture_output=True, text=True)
    assert run.returncode == 0, run.stdout + run.stderr
''')
    return outdir


def _template(library):
    if library not in registry.names():
        raise ValueError(f"no template for library {library!r}")
    return importlib.import_module(f"ferry.templates.{library}")


def _runtime_module(library):
    """The runtime a reproducer of the library carries whole, as its template declares it."""
    return f"ferry.templates.{registry.get(library)['RUNTIME']}"


_COMPARE = "ferry.templates.runtime_compare"


def _source(module_name):
    importlib.import_module(module_name)
    with open(sys.modules[module_name].__file__) as f:
        return f.read()


def _paste(title, module_name, text=None):
    """A module's text, whole, between two comment lines that name it."""
    text = _source(module_name) if text is None else text
    if module_name.startswith("ferry."):
        path = "ferry/" + module_name.split(".", 1)[1].replace(".", "/") + ".py"
    else:  # a user's adapter, loaded by its path (driver.load_adapter)
        path = _comment(os.path.basename(sys.modules[module_name].__file__))
    head = f"# --- {_comment(title)} ({path}, whole) "
    return f"{head}{_RULE[len(head):]}\n{text.rstrip()}\n# --- end of {path} {_RULE[len(path) + 14:]}\n"


def _title(module_name):
    short = module_name.rsplit(".", 1)[-1]
    if not module_name.startswith("ferry."):  # a user's adapter: driver.load_adapter's name for it
        return f"the {short.removeprefix('ferry_user_adapter_')} adapter"
    if short == "runtime_compare":
        return "ferry's comparison of outputs"
    if short.startswith("runtime_"):
        return f"ferry's {short[len('runtime_'):]} runtime"
    return f"the {short} frontend"


def _module_text(module_name, library, pasted):
    """A module's text for a script, after the modules it takes names from (each pasted once), without
    its statement of ferry imports. A runtime may take names from runtime_compare; a frontend module
    from its library's runtime and from other frontend modules (ferry.oracle.adapters._*). Any other
    import of ferry, or one outside that statement, is refused."""
    if module_name in pasted:
        return []
    pasted.append(module_name)
    text = _source(module_name)
    lines = text.splitlines(keepends=True)
    parts, cut = [], None
    for node in ast.parse(text).body:
        names = [a.name for a in node.names] if isinstance(node, ast.Import) else \
            [node.module or ""] if isinstance(node, ast.ImportFrom) else []
        if any(n == "ferry" or n.startswith("ferry.") for n in names):
            raise ValueError(f"module {module_name} imports ferry outside its "
                             "'if __name__ != \"__main__\":' statement")
        if not (isinstance(node, ast.If) and ast.unparse(node.test) == "__name__ != '__main__'"):
            continue
        for imp in node.body:
            if not isinstance(imp, ast.ImportFrom) or node.orelse:
                raise ValueError(f"module {module_name}: its ferry statement may only import names")
            module = imp.module or ""
            if module in (_runtime_module(library), _COMPARE) or module.startswith("ferry.oracle.adapters._"):
                parts += _module_text(module, library, pasted)
                continue
            raise ValueError(f"module {module_name} imports {module}, not a runtime or frontend module")
        cut = (node.lineno - 1, node.end_lineno)
    if cut is not None:
        lines[cut[0]:cut[1]] = ["# (ferry's imports of names pasted above left out)\n"]
    return parts + [_paste(_title(module_name), module_name, "".join(lines))]


def _comment(text):
    """Text for a comment line of a generated script: one line of printable characters. A line
    break ends a comment and makes the rest code (Python ends lines at \\r too); the other
    characters that are not printable are escaped, as they would stop the script from compiling."""
    return "".join(c if c.isprintable() else ascii(c)[1:-1] for c in " ".join(str(text).split()))


# --- the minimal reproducer (ferry show --minimal) -----------------------------------------------

_MINIMAL_TEST = """

def flat(outputs):
    return [np.asarray(x) for o in outputs for x in (o if isinstance(o, (list, tuple)) else [o])]


try:
    got = flat(run_frontend(model.SerializeToString(), inputs))
except Exception as e:
    print(f"{FRONTEND} raised {type(e).__name__}: {e}")
    sys.exit(1)
np.set_printoptions(precision=8, threshold=200, linewidth=100)
bug = len(got) != len(want)
print(f"{FRONTEND} gives {len(got)} outputs, the reference {len(want)}")
for k, (g, w) in enumerate(zip(got, want)):
    why = ""
    if g.shape != w.shape or g.dtype != w.dtype:
        why = "another dtype or shape"
    elif not RANDOM and w.dtype.kind not in "biufc" and not np.array_equal(g, w):
        why = "other values"
    elif not RANDOM and w.dtype.kind in "biufc":
        a, b = (x.astype(np.complex128 if x.dtype.kind == "c" else np.float64) for x in (g, w))
        far = ~np.isclose(a, b, atol=ATOL, rtol=RTOL, equal_nan=True)  # NaN and Inf must be in the same places
        if far.any():
            why = (f"{int(far.sum())} of {far.size} elements beyond |got - want| <= ATOL + RTOL * |want|, "
                   f"the largest difference {float(np.nanmax(np.abs(a - b)[far]))!r}")
    bug = bug or bool(why)
    print(f"output {k}: {why or 'agrees'}\\n  got  {g.dtype} {list(g.shape)}:\\n{g}\\n  want {w.dtype} {list(w.shape)}:\\n{w}")
print("BUG" if bug else "no bug")
sys.exit(1 if bug else 0)
"""


_STDLIB = ("import base64", "import sys")
_QUOTES = "'" * 3


def minimal(library, record_json, testdir, frontend, atol=None, rtol=None):
    """The shortest standalone script for a failing ONNX test: the model in ONNX's text syntax
    (onnx.parser; base64 where the text would not give the same model back), the inputs ferry ran and
    the reference outputs it compared with as literals, the frontend run as ferry ran it (its frontend
    module, whole, as reproducer() carries it), and got and want printed; exit 1 while the bug shows."""
    import base64
    import json

    import onnx

    adapter = driver.load_adapter(frontend)
    reproduce = getattr(adapter, "REPRODUCE", None)
    if library != "onnx" or adapter.LIBRARY != "onnx" or adapter.FORMAT != "onnx":
        raise ValueError(f"--minimal writes scripts of ONNX tests on ONNX frontends, not of a {library} test on "
                         f"{adapter.NAME}: ferry show without --minimal gives its reproducer")
    if not callable(reproduce):
        raise ValueError(f"adapter {adapter.NAME!r} declares no REPRODUCE function: it has no reproducer")
    meta = driver._meta(testdir)
    template = _template(library)
    atol = template.ATOL if atol is None else float(atol)
    rtol = template.RTOL if rtol is None else float(rtol)
    model = onnx.load(os.path.join(testdir, "model.onnx"))
    text = onnx_text(model)
    same = text is not None
    if same:
        model_line = f"model = onnx.parser.parse_model({_QUOTES}\n{text}\n{_QUOTES})"  # ONNX's text syntax
    else:
        model_line = f"model = onnx.load_from_string(base64.b64decode({base64.b64encode(model.SerializeToString()).decode()!r}))"
    inputs = driver.test_inputs(testdir, meta)
    wants = []
    for entry in meta["outputs"]:
        value = driver._read(testdir, entry, as_input=False)
        wants += value if isinstance(value, list) else [value]
    imports = {"import sys", "import numpy as np", "import onnx"}
    feeds = ",\n".join(f"    {name!r}: {_minimal_value(value, imports)}" for name, value in inputs.items())
    want = ",\n".join(f"    {_minimal_value(value, imports)}" for value in wants)
    if not same:
        imports.add("import base64")
    else:
        imports.add("import onnx.parser")
    pasted = []
    frontend_text = "".join(_module_text(reproduce.__module__, library, pasted))
    record = json.loads(record_json) if record_json else {}
    return (f"#!/usr/bin/env python3\n"
            f"# ferry minimal reproducer: {_comment(record.get('op', meta.get('op', '?')))} on {_comment(adapter.NAME)} "
            f"{_comment(adapter.version())}, instance {_comment(record.get('id', meta.get('id', '?')))}\n"
            f"# Prints got and want. Exit status 1 while the bug shows ({_comment(adapter.NAME)} raises, or an output\n"
            f"# differs from the reference beyond |got - want| <= {atol!r} + {rtol!r} * |want|), 0 once it does not.\n"
            + "".join(line + "\n" for line in sorted(imports, key=lambda x: (x not in _STDLIB, x)))
            + f"\nnan, inf = float('nan'), float('inf')\n\n{frontend_text}\n"
            f"FRONTEND = {adapter.NAME!r}\nrun_frontend = {reproduce.__name__}\n"
            f"ATOL, RTOL = {atol!r}, {rtol!r}\nRANDOM = {bool(meta.get('random', False))!r}\n\n"
            f"{model_line}\ninputs = {{\n{feeds},\n}}\nwant = [\n{want},\n]\n{_MINIMAL_TEST}")


def onnx_text(model):
    """The model in ONNX's text syntax (its header on one line), where the parser gives the same model
    back and the text fits a triple-quoted literal; else None (then base64 carries it). Every script
    that writes a model as text (minimal, ferry.oracle.filing, ferry.oracle.regress) takes it here."""
    import onnx.parser
    import onnx.printer

    text = onnx.printer.to_text(model)
    if text.startswith("<"):
        end = text.index(">")
        text = "<" + " ".join(text[1:end].split()) + ">" + text[end + 1:]
    try:
        back = onnx.parser.parse_model(text)
    except Exception:  # the printer writes what the parser cannot read back (some attribute forms)
        return None
    same = (_plain(back.graph) == _plain(model.graph) and back.ir_version == model.ir_version
            and list(back.opset_import) == list(model.opset_import))
    if not same or not all(c.isprintable() or c == "\n" for c in text) or "\\" in text or _QUOTES in text \
            or text.endswith("'"):
        return None
    return text


def _plain(graph):
    """A copy of graph with the default domain unset wherever it is set to "" (the parser sets it,
    the template does not: the same model)."""
    import onnx

    graph = onnx.GraphProto.FromString(graph.SerializeToString())
    todo = [graph]
    while todo:
        for node in todo.pop().node:
            if node.HasField("domain") and not node.domain:
                node.ClearField("domain")
            for a in node.attribute:
                todo += ([a.g] if a.HasField("g") else []) + list(a.graphs)
    return graph


def _minimal_value(value, imports):
    """A literal for an array (a list of them: a sequence input) as the test ran it."""
    import numpy as np

    if isinstance(value, list):
        return "[" + ", ".join(_minimal_value(v, imports) for v in value) + "]"
    a = np.asarray(value)
    name = a.dtype.name
    if a.dtype.kind == "O":
        return f"np.array({a.tolist()!r}, dtype=object)"
    if a.dtype.kind == "V" or not hasattr(np, name):  # bfloat16, float8, int4: ml_dtypes' types
        imports.add("import ml_dtypes")
        wide = a.astype(np.float64 if a.dtype.kind not in "iu" else np.int64)
        return f"np.array({wide.tolist()!r}).astype(ml_dtypes.{name})"
    # numpy's own dtypes: float32 values are exact as Python floats, and repr spells them back exactly
    return f"np.array({a.tolist()!r}, dtype=np.{name})"


# --- the metamorphic oracle -----------------------------------------------------------------------

_METAMORPHIC_TEST = '''
HERE = os.path.dirname(os.path.abspath(__file__))


def ferry_dtype(name):
    """The numpy dtype of a dtype name (ml_dtypes' for bfloat16, float8, int4, ...)."""
    try:
        return np.dtype(name)
    except TypeError:
        import ml_dtypes
        return np.dtype(getattr(ml_dtypes, name))


def inputs():
    feeds = {}
    for name, kind, dtype, files in INPUTS:
        arrays = [np.load(os.path.join(HERE, f), allow_pickle=False) for f in files]
        if dtype is not None:
            arrays = [a.astype(ferry_dtype(dtype)) for a in arrays]
        feeds[name] = arrays if kind == "sequence" else arrays[0]
    return feeds


def flat(outputs):
    return [np.asarray(x) for o in outputs for x in (o if isinstance(o, (list, tuple)) else [o])]


def differ(got, want):
    """Where m' (got) and m (want) disagree beyond |got - want| <= ATOL + RTOL * |want|, or with NaN
    and Inf in other places: a line, or None."""
    if got.dtype != want.dtype or got.shape != want.shape:
        return f"dtype {got.dtype} {list(got.shape)} on m', {want.dtype} {list(want.shape)} on m"
    if got.dtype.kind not in "biufc":
        return None if np.array_equal(got, want) else "values differ"
    g, w = got.astype(np.complex128 if got.dtype.kind == "c" else np.float64), want.astype(
        np.complex128 if want.dtype.kind == "c" else np.float64)
    if not np.array_equal(np.isnan(g), np.isnan(w)) or not np.array_equal(np.isinf(g), np.isinf(w)):
        return "NaN or Inf in other places"
    finite = np.isfinite(g) & np.isfinite(w)
    if not np.array_equal(g[~finite & ~np.isnan(g)], w[~finite & ~np.isnan(w)]):
        return "Inf of another sign"
    bad = finite & (np.abs(g - w) > ATOL + RTOL * np.abs(w))
    if not bad.any():
        return None
    k = np.unravel_index(int(np.argmax(np.where(bad, np.abs(g - w), -1))), g.shape) if g.ndim else ()
    return (f"max |m' - m| = {float(np.max(np.abs(g - w)[bad]))!r} at {list(map(int, k))} (m' {g[k].item()!r}, m {w[k].item()!r}), "
            f"{int(bad.sum())} of {g.size} elements beyond the tolerance")


def main():
    feeds = inputs()
    with open(os.path.join(HERE, "original.onnx"), "rb") as f:
        m = run_frontend(f.read(), feeds)
    with open(os.path.join(HERE, "mutated.onnx"), "rb") as f:
        mutated = run_frontend(f.read(), feeds)
    a, b = flat(mutated), flat(m)
    if len(a) != len(b):
        print(f"{FRONTEND}: m' gives {len(a)} outputs, m {len(b)}")
        return 1
    shown = False
    for k, (x, y) in enumerate(zip(a, b)):
        why = differ(x, y)
        if why:
            print(f"{FRONTEND}: output {k}: {why}")
            shown = True
    if not shown:
        print(f"{FRONTEND}: m and m' agree")
    return 1 if shown else 0


if __name__ == "__main__":
    sys.exit(main())
'''


def metamorphic(testdir, frontend, atol, rtol, seed, k, reduced, model_b64, outputs_b64, outdir):
    """The reproducer of an inconsistency (or of a crash of a mutated model): a script that runs the
    frontend as ferry did on original.onnx (m) and mutated.onnx (the reduced m', or the whole m'
    where no reduction was kept) with the test's inputs, and prints where their outputs differ; exit
    1 while the bug shows. With outdir (not ""), writes there the script (reproducer.py), the two
    models, the inputs (input_K.npy) and both outputs as the frontend gave them in the reduction
    (output_m_K.npy, output_mutated_K.npy, where kept). The arguments are strings: reduced is the
    reduction's JSON (keep, no_junk) or "", model_b64 and outputs_b64 base64 or "". Returns the script."""
    import base64
    import io
    import json
    import shutil

    import numpy as np
    import onnx

    from ferry.oracle import metamorphic as mt
    from ferry.oracle import metamorphic_run

    adapter = driver.load_adapter(frontend)
    reproduce = getattr(adapter, "REPRODUCE", None)
    if adapter.FORMAT != "onnx" or not callable(reproduce):
        raise ValueError(f"adapter {adapter.NAME!r} takes no ONNX model or declares no REPRODUCE function")
    meta = driver._meta(testdir)
    mutated = base64.b64decode(model_b64) if model_b64 else None
    if mutated is None:  # not kept in the store: made again, as the run made it
        inputs = driver.test_inputs(testdir, meta)
        model, made = metamorphic_run._mutate(testdir, meta, inputs, int(k), int(seed))
        if isinstance(made, str):
            raise ValueError(f"the mutation no longer applies: {made}")
        done = json.loads(reduced) if reduced else {}
        keep = done.get("keep", list(range(len(made.chain))))
        mutated = mt.apply(model, made.model, made.chain, keep, done.get("no_junk", [])).SerializeToString()
    pasted = []
    frontend_text = "".join(_module_text(reproduce.__module__, "onnx", pasted))
    spec = [(e["name"], e["kind"], e["dtype"] if "stored" in e else None, e["files"]) for e in meta["inputs"]]
    script = (f"#!/usr/bin/env python3\n"
              f"# ferry reproducer, metamorphic oracle: {_comment(meta.get('op', '?'))} on {_comment(adapter.NAME)} "
              f"{_comment(adapter.version())}\n"
              f"# instance {_comment(meta.get('id', '?'))}: original.onnx (m) and mutated.onnx (m', which computes\n"
              f"# the same function) run through the frontend on the same inputs. Exit status 1: the bug shows\n"
              f"# (their outputs differ beyond |m' - m| <= {float(atol)!r} + {float(rtol)!r} * |m|, or NaN and Inf\n"
              f"# in other places, or the frontend raises); 0: it does not.\n"
              f"import os\nimport sys\n\nimport numpy as np\n\n{frontend_text}\n"
              f"FRONTEND = {adapter.NAME!r}\nrun_frontend = {reproduce.__name__}\n"
              f"ATOL = {float(atol)!r}\nRTOL = {float(rtol)!r}\nINPUTS = {spec!r}\n{_METAMORPHIC_TEST}")
    if not outdir:
        return script
    # DIR is the user's; the files in it are ferry's, none written through a link planted there, and
    # the names meta.json and the store give are data: each a plain file name of DIR, or refused.
    os.close(_files.open_dir(outdir, 0))

    def copy(src, name):
        with open(src, "rb") as f, _files.create(os.path.join(outdir, _files.plain(name))) as out:
            shutil.copyfileobj(f, out)

    copy(os.path.join(testdir, "model.onnx"), "original.onnx")
    with _files.create(os.path.join(outdir, "mutated.onnx")) as f:
        f.write(mutated)
    onnx.checker.check_model(os.path.join(outdir, "mutated.onnx"))
    for entry in meta["inputs"]:
        for name in entry["files"]:
            copy(os.path.join(testdir, _files.plain(name)), name)
    if outputs_b64:
        with np.load(io.BytesIO(base64.b64decode(outputs_b64)), allow_pickle=False) as saved:
            for name in saved.files:
                side, _, rest = name.partition("_")
                with _files.create(os.path.join(outdir, _files.plain(f"output_{side}_{rest}.npy"))) as f:
                    np.save(f, saved[name])
    with _files.create(os.path.join(outdir, "reproducer.py"), "w") as f:
        f.write(script)
    return script
