"""ferry.templates._reproducer: the end of every reproducer's test, after its model and inputs, the
same for each library: the reference run, the frontend's (run_frontend) and ferry_compare's verdict
with the script's ATOL and RTOL, which make the script's exit status: 2 when the reference itself
failed (the script then shows nothing about the frontend), 1 when the frontend raised or disagrees,
0 otherwise. ferry/oracle/reproducer.py defines FRONTEND, OP, ATOL, RTOL and run_frontend above it.

A template says only what is its library's: the lines that compute the reference, what run_frontend
is given, the first input (what ferry_compare breaks ties with) and the reference's name. These are
the template's own source text, never a record's (a record's strings are in the test's literals,
as repr()). The literals of a test's values are shared the same way: lit() walks a tagged value
(ferry.extract.values) and asks the template for what is its library's own."""

import json
import math
import os

from ferry.extract import values as ferry_values


def testdir_meta(testdir):
    """The test directory's meta.json (what the template reads of it: whether the test is random,
    its weights, its bounds), or {} where there is none: a record's reproducer needs no test directory."""
    path = os.path.join(testdir, "meta.json")
    if not os.path.exists(path):
        return {}
    with open(path) as f:
        return json.load(f)


def tail(reference, frontend_args, first_input, name, failed=None):
    """The test's last lines. reference: the lines that set `reference`, indented four spaces (the
    body of a try); frontend_args: run_frontend's arguments; first_input: the expression of the first
    input, or of None; name: the reference's, as "no bug: F agrees with NAME" says; failed: what
    failed when the reference raised (default: name), as "FAILED itself failed" says."""
    return f'''try:
{reference}
except Exception:
    traceback.print_exc()
    print(f"{failed or name} itself failed: this reproducer shows nothing about {{FRONTEND}}")
    sys.exit(2)
try:
    outputs = run_frontend({frontend_args})
except Exception:
    traceback.print_exc()
    print(f"BUG: {{FRONTEND}} raised")
    sys.exit(1)
problems = ferry_compare(list(outputs), reference, ATOL, RTOL, RANDOM, ties=(OP, {first_input}))
for problem in problems:
    print("BUG:", problem)
if not problems:
    print(f"no bug: {{FRONTEND}} agrees with {name}")
sys.exit(1 if problems else 0)
'''


# --- literals: the test's values as source text ----------------------------------------------------------

def float_lit(f):
    """Source text of a float; NaN and the infinities, which repr cannot spell, as float()."""
    if math.isnan(f):
        return "float('nan')"
    if math.isinf(f):
        return "float('inf')" if f > 0 else "-float('inf')"
    return repr(f)


def values_lit(values, category):
    """Source text of a tensor's kept values (as a record encodes them) of a dtype category: floats
    and whole numbers decoded, the others (bools, complex pairs) as they are."""
    if category == "float":
        return "[" + ", ".join(float_lit(ferry_values.decode_float(v)) for v in values) + "]"
    if category == "int":
        return repr([ferry_values.decode_int(v) for v in values])
    return repr(values)


def slot_lit(tagged, tensor, special_dict, constant):
    """Source text of a call's argument whose tensors are filled in by the script (a slot, or the
    template's constant): tensor(body) spells each tensor, lists, tuples and plain dicts (not
    special_dict(body)) are walked, and anything else is constant(tagged)."""
    tag, body = next(iter(tagged.items()))
    if tag == "tensor":
        return tensor(body)
    if tag in ("list", "tuple"):
        items = [slot_lit(v, tensor, special_dict, constant) for v in body]
        return "[" + ", ".join(items) + "]" if tag == "list" else "(" + "".join(i + ", " for i in items) + ")"
    if tag == "dict" and not special_dict(body):
        return "{" + ", ".join(f"{k!r}: {slot_lit(v, tensor, special_dict, constant)}" for k, v in body.items()) + "}"
    return constant(tagged)


def lit(tagged, key, own, counter=None):
    """Source text that rebuilds a constant tagged value (ferry.extract.values) as the template's
    _decode does. What is the library's own (its tensors, dtypes and special dicts: not slices) is
    own(tag, body, key, counter)'s text, or None where it is not; counter numbers the tensors met,
    each keyed key + [n] as _decode keys them, and goes on across the calls of one value."""
    if counter is None:
        counter = [0]
    tag, body = next(iter(tagged.items()))
    if tag == "none":
        return "None"
    if tag in ("bool", "str"):
        return repr(body)
    if tag == "int":
        return repr(ferry_values.decode_int(body))
    if tag == "float":
        return float_lit(ferry_values.decode_float(body))
    if tag == "callable":
        return f"ferry_resolve({body!r})"
    if tag == "list":
        return "[" + ", ".join(lit(v, key, own, counter) for v in body) + "]"
    if tag == "tuple":
        return "(" + "".join(lit(v, key, own, counter) + ", " for v in body) + ")"
    if tag == "dict" and list(body) == ["__slice__"]:
        return "slice" + lit(body["__slice__"], key, own, counter)
    text = own(tag, body, key, counter)
    if text is not None:
        return text
    if tag == "dict":
        return "{" + ", ".join(f"{k!r}: {lit(v, key, own, counter)}" for k, v in body.items()) + "}"
    raise ferry_values.Unmigratable(f"no literal for a {tag} value")
