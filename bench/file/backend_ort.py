"""ONNX's backend test runner (onnx.backend.test.BackendTest) with ONNX Runtime's own backend
(onnxruntime.backend), over one backend test-data directory that ferry wrote: how ORT runs ONNX's
node tests. Exit status 0 when the test passes, 1 when it fails.

    python backend_ort.py DIR/test_OP_ID"""
import os
import shutil
import sys
import tempfile
import unittest

import onnx.backend.test
import onnxruntime.backend
from onnx.backend.test.loader import load_model_tests


def main(testdir):
    with tempfile.TemporaryDirectory() as suite:
        shutil.copytree(testdir, os.path.join(suite, "ferry", os.path.basename(testdir.rstrip("/"))))
        runner = onnx.backend.test.BackendTest(onnxruntime.backend, __name__)
        runner._test_items.clear()  # ONNX's own tests are not the point: ferry's directory only
        for case in load_model_tests(data_dir=suite, kind="ferry"):
            runner._add_model_test(case, "ferry")
        suite_ = unittest.TestSuite(t for c in runner.test_cases.values()
                                    for t in unittest.defaultTestLoader.loadTestsFromTestCase(c))
        result = unittest.TextTestRunner(stream=sys.stderr, verbosity=1).run(suite_)
        return 0 if result.wasSuccessful() and result.testsRun else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
