"""count_tests.py: how often a compiler's Python frontend tests use each operator, for `ferry count-tests`.

The files are parsed with the ast module, never imported or run: a compiler's test suite imports the
compiler, and counting must work without it.

What counts as a use depends on the library whose operators are counted:

  onnx        every string literal that is the name of an ONNX operator (any domain the installed onnx
              package knows), outside docstrings: helper.make_node("Conv", ...), op_type="Conv",
              verify_unary("Relu", ...), parametrize lists of op names. Frontend tests name ONNX
              operators by string, in many helper styles, and CamelCase operator names seldom occur
              as strings for any other reason.
  torch,      names that resolve, through the file's imports, to a name under one of the library's
  keras, ...  top modules, as its template declares them (COUNT_ROOTS, ferry/templates/registry.py;
  tensorflow  tensorflow's: tensorflow) (nn.Conv2d with `from torch import nn` is torch.nn.Conv2d;
              F.relu with `import torch.nn.functional as F` is torch.nn.functional.relu), where they are
              - called inside a class body: the models under test (their __init__, forward, call);
                calls in the test functions themselves make inputs and run the compiler
                (torch.randn, torch.export.export) and are not operator uses;
              - or passed as values, not called, anywhere: the operator tables that tests are
                parametrized over ((torch.abs, R.abs), ...). Dtypes, base classes and a few
                non-operator names (torch.Tensor, torch.device, ...) are left out.
              Methods on values (x.relu()) cannot be resolved without running the code and are
              not counted.
              Names are counted under the first of the roots, the namespace the library's corpus
              uses: keras's roots make tf.keras.layers.Dense (tensorflow.keras.layers.Dense) and
              tf_keras.layers.Dense count as keras.layers.Dense (OpenVINO's
              tensorflow2_keras_tests build models so).
              For torch, a string literal "aten::NAME" (or "aten::NAME.overload") counts as
              torch.NAME: OpenVINO's PyTorch layer tests name the aten operator each test checks
              for in the converted graph (return Model(), ref_net, "aten::addcmul"), because the
              model's forward often calls it as a method (x.addcmul(...)), which is not counted.
              ferry's torch corpus names the same operator torch.NAME, torch.Tensor.NAME or
              torch.nn.functional.NAME; only torch.NAME gets the count.

A file that does not parse is reported in the result under the key "" (its path, for the caller to
warn about), never silently dropped.
"""

import ast
import re

_ATEN = re.compile(r"aten::([A-Za-z_][A-Za-z0-9_]*)(?:\.[A-Za-z0-9_]+)?$")

# Not a source library: the namespace of the TensorFlow frontends' own tests.
_TENSORFLOW = {"tensorflow": ("tensorflow",)}


def _roots():
    """{library: its roots}: the libraries whose templates declare COUNT_ROOTS, and tensorflow."""
    from ferry.templates import registry

    roots = {d["LIBRARY"]: d["COUNT_ROOTS"] for d in registry.libraries() if d["COUNT_ROOTS"]}
    return {**roots, **_TENSORFLOW}


def _onnx_names():
    from onnx import defs

    return {s.name for s in defs.get_all_schemas_with_history()}


def _docstring_nodes(tree):
    """The Constant nodes that are docstrings (module, class, function)."""
    out = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            body = getattr(node, "body", None)
            if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
                out.add(id(body[0].value))
    return out


def _count_onnx(tree, names, counts):
    skip = _docstring_nodes(tree)
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in skip:
            if node.value in names:
                counts[node.value] = counts.get(node.value, 0) + 1


def _aliases(tree):
    """Local name -> qualified name, from the file's imports (at any level)."""
    alias = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for a in node.names:
                if a.asname:
                    alias[a.asname] = a.name
                else:
                    top = a.name.split(".")[0]
                    alias[top] = top
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            for a in node.names:
                if a.name != "*":
                    alias[a.asname or a.name] = node.module + "." + a.name
    return alias


def _dotted(expr):
    parts = []
    while isinstance(expr, ast.Attribute):
        parts.append(expr.attr)
        expr = expr.value
    if not isinstance(expr, ast.Name):
        return None
    parts.append(expr.id)
    return list(reversed(parts))


def _class_calls(tree):
    """The calls inside class bodies, each once (nested classes are walked with their outer one)."""
    seen = set()
    for cls in ast.walk(tree):
        if isinstance(cls, ast.ClassDef):
            for node in ast.walk(cls):
                if isinstance(node, ast.Call) and id(node) not in seen:
                    seen.add(id(node))
                    yield node


_NOT_OPS = re.compile(r"(u?int\d*|float\d*.*|bfloat16|complex\d*|c?half|cfloat|double|long|short|bool|"
                      r"q?u?int\d+|Tensor|Size|device|dtype|Generator|no_grad|inference_mode|"
                      r"manual_seed|testing|Module|Sequential|ModuleList|ModuleDict|Parameter|"
                      r"export|fx|jit|cuda|backends|float_power_dummy)$")


def _value_refs(tree):
    """Attribute chains used as values (neither called nor a base class nor inside a longer chain)."""
    skip = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            skip.add(id(node.func))
        elif isinstance(node, ast.ClassDef):
            skip.update(id(b) for b in node.bases)
        elif isinstance(node, ast.Attribute):
            skip.add(id(node.value))
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and id(node) not in skip and isinstance(node.ctx, ast.Load):
            yield node


def _qualify(expr, alias, roots):
    parts = _dotted(expr)
    if not parts or parts[0] not in alias:
        return None
    name = ".".join([alias[parts[0]]] + parts[1:])
    if not any(name.startswith(root + ".") for root in roots):
        return None
    for other in roots[1:]:  # another spelling of the first root's namespace
        if name.startswith(other + "."):
            return roots[0] + name[len(other):]
    return name


def _count_aten(tree, counts):
    skip = _docstring_nodes(tree)
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in skip:
            m = _ATEN.match(node.value)
            if m:
                name = "torch." + m.group(1)
                counts[name] = counts.get(name, 0) + 1


def _count_calls(tree, roots, counts):
    alias = _aliases(tree)
    for node in _class_calls(tree):
        name = _qualify(node.func, alias, roots)
        if name:
            counts[name] = counts.get(name, 0) + 1
    for node in _value_refs(tree):
        name = _qualify(node, alias, roots)
        if name and not _NOT_OPS.match(name.rsplit(".", 1)[1]):
            counts[name] = counts.get(name, 0) + 1


def count(paths, library="onnx"):
    """Count operator uses in the Python files at paths; returns {operator: count}, and under the key
    "" a list of the files that could not be parsed (with why)."""
    counts = {}
    failed = []
    if library == "onnx":
        names = _onnx_names()
    elif library in _roots():
        roots = _roots()[library]
    else:
        raise ValueError(f"cannot count Python tests for library '{library}' "
                         f"(known: onnx, {', '.join(sorted(_roots()))})")
    for path in paths:
        try:
            with open(path, "rb") as f:
                tree = ast.parse(f.read(), filename=path)
        except (OSError, SyntaxError, ValueError) as e:
            failed.append(f"{path}: {e}")
            continue
        if library == "onnx":
            _count_onnx(tree, names, counts)
        else:
            _count_calls(tree, roots, counts)
            if library == "torch":
                _count_aten(tree, counts)
    if failed:
        counts[""] = failed
    return counts
