"""A layer test in the way of Keras's own: it imports skip_if_backend from the root conftest.py."""

import numpy as np
from conftest import skip_if_backend
from keras import layers


@skip_if_backend("numpy", "not on numpy")
def test_dense():
    assert layers.Dense(3)(np.ones((2, 4), "float32")).shape == (2, 3)


def test_flatten():
    assert layers.Flatten()(np.ones((2, 3, 4), "float32")).shape == (2, 12)
