"""ferry.oracle.registry: the frontends, as their adapters declare them.

The frontend list has one source: the adapters' own module-level declarations. An adapter declares

    NAME      its frontend's name in ferry ("openvino-pytorch")
    LIBRARY   the source library whose models it takes ("onnx", "torch", "keras": a template's name)
    FORMAT    the model file it reads from a test directory (model.<FORMAT>)
    PACKAGE   the Python package that is the frontend (crashes are grouped by its innermost frame)
    SUMMARY   optional: one line for 'ferry run --help'

and implements version(), load(testdir), compile(loaded) and execute(compiled, inputs) (the driver,
ferry/oracle/driver.py, says what each does). frontends() reads the declarations with ast, without
importing any adapter, so that listing or checking a name never imports torch or openvino; check()
verifies a module that has been imported, when a worker loads it.

Adapters are ferry's own (this package's adapters/, one module per frontend, helpers named _*) and
the user's: adapter_<NAME>.py in the directories of FERRY_ADAPTERS, which come first.
"""

import os

from ferry.templates.registry import literals

DECLARED = ("NAME", "LIBRARY", "FORMAT", "PACKAGE")
FUNCTIONS = ("version", "load", "compile", "execute")

_ADAPTERS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "adapters")


class AdapterError(Exception):
    """An adapter that does not implement the interface, or none at all; the message names its file,
    or where ferry looked. ferry prints the message alone, without a traceback (lib/py.c)."""

    ferry_plain = True


def declarations(path, literal=DECLARED):
    """{NAME, LIBRARY, FORMAT, PACKAGE, SUMMARY, path} of the adapter file at path. The names in
    literal must be assigned string literals at module level (AdapterError naming the file and what
    is missing otherwise); the others are None where computed (a user's adapter may compute its
    LIBRARY, and is then run as NAME:LIBRARY; check() verifies them once it is imported)."""
    try:
        found = literals(path, set(DECLARED) | {"SUMMARY"})
    except (OSError, SyntaxError, ValueError) as e:
        raise AdapterError(f"adapter '{path}': cannot read its declarations: {e}") from None
    problems = [f"{key} (a string literal at module level)" for key in literal
                if not isinstance(found.get(key), str) or not found[key]]
    if problems:
        raise AdapterError(f"adapter '{path}' does not declare " + ", ".join(problems))
    d = {key: found[key] if isinstance(found.get(key), str) and found[key] else None for key in DECLARED}
    d["SUMMARY"] = found["SUMMARY"] if isinstance(found.get("SUMMARY"), str) else ""
    d["path"] = path
    return d


def user_dirs():
    """The directories of FERRY_ADAPTERS, in order."""
    return [d for d in os.environ.get("FERRY_ADAPTERS", "").split(os.pathsep) if d]


def _files():
    """(frontend name, path, ferry's own) of every adapter, the user's first; the first of a name wins."""
    seen = set()
    for d in user_dirs():
        try:
            names = sorted(os.listdir(d))
        except OSError:
            continue
        for f in names:
            name = f[len("adapter_"):-3]
            if f.startswith("adapter_") and f.endswith(".py") and valid_name(name) and name not in seen:
                seen.add(name)
                yield name, os.path.join(d, f), False
    for f in sorted(os.listdir(_ADAPTERS)):
        if f.endswith(".py") and not f.startswith("_"):
            name = f[:-3].replace("_", "-")
            if name not in seen:
                seen.add(name)
                yield name, os.path.join(_ADAPTERS, f), True


def frontends():
    """The declarations of every adapter, the user's first, each checked; see declarations()."""
    found = []
    for name, path, own in _files():
        d = declarations(path, DECLARED if own else ("NAME",))
        if d["NAME"] != name:
            raise AdapterError(f"adapter '{path}' declares NAME = {d['NAME']!r}; its file says {name!r}")
        found.append(d)
    return found


def table():
    """frontends() as text for the C side: one line per frontend, NAME TAB LIBRARY TAB SUMMARY
    (LIBRARY empty where a user's adapter computes it)."""
    return "".join(f"{d['NAME']}\t{d['LIBRARY'] or ''}\t{' '.join(d['SUMMARY'].split())}\n" for d in frontends())


def format_of(name):
    """The FORMAT the adapter of frontend name declares, read from its file, or "" where it
    computes it (the metamorphic oracle mutates models of the onnx format only)."""
    for found, _, _ in _files():
        if found == name:
            return next(d["FORMAT"] or "" for d in frontends() if d["NAME"] == name)
    return ""


def batches(name):
    """Whether the adapter of frontend name declares BATCH = True (a literal at module level: it
    takes part in ferry run --batch, ferry/oracle/batch.py): "1" or "", read from its file as
    format_of() reads FORMAT."""
    for found, path, _ in _files():
        if found == name:
            try:
                return "1" if literals(path, {"BATCH"}).get("BATCH") is True else ""
            except (OSError, SyntaxError, ValueError):
                return ""
    return ""


def valid_name(name):
    """Whether name can name a frontend: letters, digits, '-' and '_', not starting with either."""
    return (isinstance(name, str) and bool(name) and name[0] not in "_-"
            and all(c.isascii() and (c.isalnum() or c in "_-") for c in name))


def module_name(name):
    """The module of ferry's own adapter for a frontend ("openvino-pytorch" ->
    "ferry.oracle.adapters.openvino_pytorch")."""
    if not valid_name(name):
        raise ValueError(f"{name!r} is not a frontend name")
    return "ferry.oracle.adapters." + name.replace("-", "_")


def user_adapter_path(name):
    """The file adapter_<name>.py in the first directory of FERRY_ADAPTERS that has one, or None."""
    module_name(name)  # the same names as ferry's own
    for d in user_dirs():
        path = os.path.join(d, f"adapter_{name}.py")
        if os.path.isfile(path):
            return path
    return None


def user_adapter_location(name):
    """The absolute path of the user's adapter of name, or "" where the adapter is ferry's own: the
    file whose source ferry run records the hash of in the store (oracle/locations.c); never where it
    is, since a store names no code."""
    path = user_adapter_path(name)
    return os.path.abspath(path) if path else ""


def own_adapter(name):
    """Whether ferry has an adapter of its own for frontend name (oracle/adapters/<name>.py)."""
    return valid_name(name) and os.path.isfile(os.path.join(_ADAPTERS, name.replace("-", "_") + ".py"))


# The frontends that the store being read was run with the user's adapter of, which FERRY_ADAPTERS
# does not hold (oracle/locations.h LOCATIONS_UNHELD): ferry's own adapter of that name is not it.
_UNHELD = "FERRY_STORE_ADAPTERS"


def store_user_adapter(name):
    """Whether the store being read was run with the user's adapter of name, and FERRY_ADAPTERS holds
    none: no adapter of ferry's own stands in for it."""
    return name in os.environ.get(_UNHELD, "").split(os.pathsep)


def missing(name):
    """AdapterError for a frontend that has no adapter: neither ferry's own (or the store was run with
    the user's of that name) nor one of FERRY_ADAPTERS, the only place ferry looks for the user's."""
    dirs = user_dirs()
    where = (f"no directory of FERRY_ADAPTERS ({os.pathsep.join(dirs)}) holds adapter_{name}.py" if dirs
             else "FERRY_ADAPTERS is not set")
    whose = ("the store was run with a user's adapter of it (ferry loads no adapter a store names)"
             if store_user_adapter(name) else "ferry has none of that name")
    return AdapterError(f"no adapter for frontend '{name}': {whose}, and {where}; "
                        f"set FERRY_ADAPTERS to the directory that holds adapter_{name}.py")


def check(module, where):
    """Raise AdapterError unless the imported adapter module implements the interface: the
    declarations as strings, the functions callable. where names its file in the message."""
    problems = []
    for key in DECLARED:
        value = getattr(module, key, None)
        if value is None:
            problems.append(f"{key} is missing")
        elif not isinstance(value, str) or not value:
            problems.append(f"{key} is {type(value).__name__}, not a non-empty string")
    for key in FUNCTIONS:
        value = getattr(module, key, None)
        if value is None:
            problems.append(f"{key}() is missing")
        elif not callable(value):
            problems.append(f"{key} is {type(value).__name__}, not a function")
    if problems:
        raise AdapterError(f"adapter '{where}' does not implement the adapter interface: " + "; ".join(problems))
