"""tap.py: the TAP of ferry's Python unit tests (tests/unit/*.py, each run by its test-*.sh, which
finds this module beside it): ok() and is_() record a check, comment() a line under the last one,
and done() prints the plan and every line, then exits 1 if a check failed. A failed is_() shows
what it got and what it wanted as comments."""

import json
import sys

results = []


def ok(cond, name):
    results.append((bool(cond), name))
    return bool(cond)


def _shown(value):
    return json.dumps(value, default=repr)[:400]


def is_(got, want, name):
    if not ok(got == want, name):
        comment(f"got {_shown(got)}", f"want {_shown(want)}")
    return got == want


def comment(*lines):
    results.append((True, "\n".join(f"# {line}" for line in lines)))


def done():
    print(f"1..{sum(1 for _, name in results if not name.startswith('#'))}")
    n = 0
    for passed, name in results:
        if name.startswith("#"):
            print(name)
            continue
        n += 1
        print(f"{'ok' if passed else 'not ok'} {n} - {name}")
    sys.exit(0 if all(passed for passed, _ in results) else 1)
