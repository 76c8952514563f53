"""The harvester of "twice", a library tests/cli/libraries.sh adds to a copy of ferry's package as
new files only (this file, templates/twice.py and a user's adapter): two examples of its one
operator, twice.double."""

import json

from ferry.extract import channel

SUITES = ("examples",)
FILTER_OPS = True


def harvest(ferry, patterns, suites=None, pytest=None):
    tests = 0
    for k, values in enumerate(([1.5, -2.0], [3.0, 4.0, 5.0])):
        if not channel.begin(ferry, f"example{k}"):
            continue
        tests += 1
        record = {"library": "twice", "library_version": "1", "op": "twice.double", "kind": "function",
                  "params": {}, "inputs": [{"tensor": {"dtype": "float32", "shape": [len(values)], "values": values}}],
                  "outputs": [{"tensor": {"dtype": "float32", "shape": [len(values)]}}],
                  "source": {"suite": "examples", "test": f"example{k}"}}
        ferry.emit(json.dumps(record))
        channel.finish(ferry, {"tests": tests})
    return {"tests": tests}
