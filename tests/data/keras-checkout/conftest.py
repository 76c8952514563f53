"""The root conftest.py of a stand-in checkout: its tests import a helper from it, as Keras's do
(from conftest import skip_if_backend)."""

import numpy as np


def ones(*shape):
    return np.ones(shape, "float32")
