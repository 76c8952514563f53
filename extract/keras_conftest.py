"""The conftest.py that ferry puts at the root of the Keras test files it takes from Keras's source
distribution (extract/keras_tests.py), which ships its tests without the one at the root of Keras's
repository: the markers the tests use are registered, and skip_if_backend, which some test files
import from "conftest", is there. Written for ferry; the tests run against the installed Keras."""

import pytest
from keras.src.backend import backend


def pytest_configure(config):
    config.addinivalue_line("markers", "requires_trainable_backend: the test trains a model")
    config.addinivalue_line("markers", "multi_device: the test needs several devices")


def pytest_collection_modifyitems(config, items):
    untrainable = pytest.mark.skipif(backend() in ("numpy", "openvino"), reason="no trainer on this backend")
    one_device = pytest.mark.skip(reason="needs several devices")
    for item in items:
        if "requires_trainable_backend" in item.keywords:
            item.add_marker(untrainable)
        if "multi_device" in item.keywords:
            item.add_marker(one_device)


def skip_if_backend(given_backend, reason):
    return pytest.mark.skipif(backend() == given_backend, reason=reason)
