"""ferry.templates.registry: the source libraries, as their templates declare them.

The library list has one source, as the frontend list has (ferry/oracle/registry.py): the libraries'
own module-level declarations. A template is a module of this package (templates/<LIBRARY>.py) that
declares, as literals,

    LIBRARY      its library's name: the "library" of its records, the file's own name
    DTYPES       the dtypes ferry vary tries for its instances
    TOLERANCES   its file of tolerances in oracle/tolerances/, or "" for none
    VERSIONS     the distributions ferry --version lists for it (the library first, then what it
                 runs on)
    COUNT_ROOTS  the module names ferry count-tests resolves a compiler test's names under, the
                 first the one its records name operators by (the others count as it); empty
                 where its names are not counted so
    RUNTIME      the module of this package that a reproducer carries whole (runtime_<LIBRARY>)
    EXPORT       what ferry show -o writes: "template" (the template's export()) or "pytest" (a
                 pytest test that runs the reproducer)

and its harvester, ferry/extract/harvest_<LIBRARY>.py (whose harvest() the harvest child calls),

    SUITES       the suites of its harvest, a tuple of names; none where the harvest takes no
                 --suite and no --pytest
    FILTER_OPS   whether it passes over the tests that no --filter glob can match, by operator or
                 test name (ferry harvest then turns --op and --test into such globs; default False)
    SANDBOX_READS  optional: a module of ferry.extract whose prepare() fetches the library's own
                 tests before the harvest (in ferry harvest's process) and whose tests_dir() names
                 the directory the harvest's sandbox shows them in

table() gives the C side (lib/libraries.c) what it needs, without importing any template: the
declarations are read with ast, so that listing the libraries never imports torch or keras.
"""

import ast
import functools
import importlib
import json
import os

DECLARED = {"LIBRARY": str, "DTYPES": tuple, "TOLERANCES": str, "VERSIONS": tuple, "COUNT_ROOTS": tuple,
            "RUNTIME": str, "EXPORT": str}
HARVESTER = {"SUITES": (), "FILTER_OPS": False, "SANDBOX_READS": ""}
EXPORTS = ("template", "pytest")

_HERE = os.path.dirname(os.path.abspath(__file__))
_EXTRACT = os.path.join(os.path.dirname(_HERE), "extract")


class LibraryError(Exception):
    """A template whose declarations are missing or malformed; the message names its file. ferry
    prints the message alone, without a traceback (lib/py.c)."""

    ferry_plain = True


def literals(path, wanted):
    """The module-level NAME = literal assignments of a Python file whose NAME is in wanted, without
    running it; a value that is no literal is None. The adapters' declarations are read with it too
    (ferry/oracle/registry.py)."""
    with open(path, "rb") as f:
        tree = ast.parse(f.read(), filename=path)
    found = {}
    for node in tree.body:
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            name, value = node.targets[0].id, node.value
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name) and node.value is not None:
            name, value = node.target.id, node.value
        else:
            continue
        if name in wanted:
            try:
                found[name] = ast.literal_eval(value)
            except (ValueError, TypeError, SyntaxError, RecursionError, MemoryError):  # no literal, or a hostile one
                found[name] = None
    return found


def _valid_name(name):
    """A library's name: lowercase letters, digits and '_', starting with a letter (lib/py.c's
    py_template_module takes no other)."""
    return (isinstance(name, str) and 0 < len(name) <= 32 and "a" <= name[0] <= "z"
            and all(c.isascii() and (c.islower() or c.isdigit() or c == "_") for c in name))


def _declaration(path):
    """The declarations of the template at path, checked; None where the module declares no LIBRARY
    (a helper of the templates, not a template)."""
    try:
        found = literals(path, DECLARED)
    except (OSError, SyntaxError, ValueError) as e:
        raise LibraryError(f"template '{path}': cannot read its declarations: {e}") from None
    if "LIBRARY" not in found:
        return None
    problems = [f"{key} (a {kind.__name__} literal at module level)" for key, kind in DECLARED.items()
                if not isinstance(found.get(key), kind)]
    if problems:
        raise LibraryError(f"template '{path}' does not declare " + ", ".join(problems))
    d = {key: found[key] for key in DECLARED}
    stem = os.path.basename(path)[:-3]
    if d["LIBRARY"] != stem or not _valid_name(stem):
        raise LibraryError(f"template '{path}' declares LIBRARY = {d['LIBRARY']!r}; its file says {stem!r}")
    harvester = os.path.join(_EXTRACT, f"harvest_{stem}.py")
    try:
        found = literals(harvester, HARVESTER) if os.path.exists(harvester) else {}
    except (OSError, SyntaxError, ValueError) as e:
        raise LibraryError(f"harvester '{harvester}': cannot read its declarations: {e}") from None
    for key, default in HARVESTER.items():
        d[key] = found.get(key, default)
        if not isinstance(d[key], type(default)):
            raise LibraryError(f"harvester '{harvester}' declares {key} as no {type(default).__name__} literal")
    strings = [("SUITES", d["SUITES"]), ("DTYPES", d["DTYPES"]), ("VERSIONS", d["VERSIONS"]),
               ("COUNT_ROOTS", d["COUNT_ROOTS"])]
    bad = [key for key, v in strings if not all(isinstance(x, str) and x and x.isprintable() and "\t" not in x
                                                 and "," not in x for x in v)]
    if bad or d["EXPORT"] not in EXPORTS or not d["VERSIONS"] or not d["RUNTIME"].isidentifier():
        raise LibraryError(f"template '{path}' declares {', '.join(bad) or 'EXPORT, VERSIONS or RUNTIME'} wrongly")
    d["path"] = path
    return d


@functools.cache
def libraries():
    """The declarations of every template and its harvester, in the order of their names (read once
    per process; the caller must not change them)."""
    found = []
    for f in sorted(os.listdir(_HERE)):
        if f.endswith(".py") and not f.startswith("_") and f != "registry.py":
            d = _declaration(os.path.join(_HERE, f))
            if d is not None:
                found.append(d)
    return found


def names():
    """The libraries' names, in order."""
    return [d["LIBRARY"] for d in libraries()]


def get(name):
    """The declarations of library name; LibraryError where no template declares it."""
    for d in libraries():
        if d["LIBRARY"] == name:
            return d
    raise LibraryError(f"no template for library {name!r} (known: {', '.join(names())})")


def template_module(name):
    """The module of library name's template ("ferry.templates.NAME"), or "" where no template
    declares it (lib/py.c: a record's "library" reaches no other module)."""
    return f"ferry.templates.{name}" if name in names() else ""


def table():
    """libraries() as text for the C side: one line per library, NAME TAB SUITES TAB FILTER_OPS TAB
    DTYPES TAB TOLERANCES, lists comma-separated, flags 0 or 1."""
    return "".join(f"{d['LIBRARY']}\t{','.join(d['SUITES'])}\t{int(d['FILTER_OPS'])}\t{','.join(d['DTYPES'])}\t"
                   f"{d['TOLERANCES']}\n" for d in libraries())


def _tests_module(name):
    module = get(name)["SANDBOX_READS"]
    if not module:
        return None
    if not module.isidentifier():
        raise LibraryError(f"library {name!r} declares SANDBOX_READS = {module!r}, not a module name")
    return importlib.import_module(f"ferry.extract.{module}")


def sandbox_reads(name):
    """The directory the harvest's sandbox shows for library name besides the interpreter's (its own
    tests, fetched before the harvest), or None."""
    module = _tests_module(name)
    return module.tests_dir() if module else None


def prepare_tests(name, suites_json, has_pytest, env_json="{}"):
    """Before a harvest of library name with the suites given (a JSON list) and pytest paths or
    not ("1", "0"): fetch its own tests where it declares where they come from. env_json holds the
    variables ferry harvest's options set (this interpreter read its environment before). "" or a
    line to say (why they are not harvested)."""
    os.environ.update(json.loads(env_json))
    module = _tests_module(name)
    return module.prepare(suites_json, has_pytest) if module else ""
