"""An ops test: the set-up calls (convert_to_tensor, convert_to_numpy, shape) are not operators."""

import numpy as np
from keras import ops


def test_add():
    x = ops.convert_to_tensor(np.arange(6, dtype="float32").reshape(2, 3))
    y = ops.add(x, x)
    assert ops.shape(y) == (2, 3)
    assert ops.convert_to_numpy(y)[1, 2] == 10
