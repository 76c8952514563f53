"""ONNX's own backend test runner (onnx.backend.test.BackendTest) over the backend test-data
directories ferry show -o writes, with a frontend as the backend run as ferry runs it (its adapter's
load, compile, execute), and the patterns of an exclude list (ferry report --xfail's
onnx_backend_exclude.txt) given to BackendTest.exclude(). Prints one JSON line: the tests that ran,
and those that failed or raised.

    python regress_backend.py FRONTEND SUITE [EXCLUDES]

SUITE holds DIR/ferry/test_OP_ID/ (load_model_tests reads a kind's directory under data_dir)."""
import json
import os
import sys
import tempfile
import unittest

import onnx
import onnx.backend.base
import onnx.backend.test
from onnx.backend.test.loader import load_model_tests

from ferry.oracle import driver


class Rep(onnx.backend.base.BackendRep):
    def __init__(self, adapter, model):
        self.names = [i.name for i in model.graph.input if i.name not in {t.name for t in model.graph.initializer}]
        with tempfile.TemporaryDirectory() as d:
            onnx.save(model, os.path.join(d, "model.onnx"))
            self.compiled = adapter.compile(adapter.load(d))
        self.adapter = adapter

    def run(self, inputs, **kwargs):
        return self.adapter.execute(self.compiled, dict(zip(self.names, inputs)))


def backend(frontend):
    adapter = driver.load_adapter(frontend)

    class Backend(onnx.backend.base.Backend):
        @classmethod
        def prepare(cls, model, device="CPU", **kwargs):
            return Rep(adapter, model)

        @classmethod
        def supports_device(cls, device):
            return device == "CPU"

    return Backend


def main(frontend, suite, excludes=None):
    runner = onnx.backend.test.BackendTest(backend(frontend), __name__)
    runner._test_items.clear()  # ONNX's own tests are not the point: ferry's directories only
    for case in load_model_tests(data_dir=suite, kind="ferry"):
        runner._add_model_test(case, "ferry")
    if excludes:
        with open(excludes) as f:
            for line in f:
                if line.strip() and not line.startswith("#"):
                    runner.exclude(line.rstrip("\n"))
    result = unittest.TestResult()
    runner.test_suite.run(result)
    bad = sorted(t.id().rsplit(".", 1)[1] for t, _ in result.failures + result.errors)
    print(json.dumps({"ran": result.testsRun, "failed": bad, "skipped": len(result.skipped)}))


if __name__ == "__main__":
    main(*sys.argv[1:])
