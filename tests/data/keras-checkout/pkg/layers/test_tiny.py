"""A test deep in a checkout that imports its root conftest.py."""

import unittest

from conftest import ones
from keras import layers


def test_dense():
    assert layers.Dense(2)(ones(1, 3)).shape == (1, 2)


class Subtests(unittest.TestCase):
    def test_widths(self):
        for units in (1, 2, 3):
            with self.subTest(units=units):
                self.assertEqual(layers.Dense(units)(ones(1, 3)).shape, (1, units))
