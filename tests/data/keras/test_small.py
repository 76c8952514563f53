"""A small pytest file for ferry's Keras tests (tests/integration/keras.sh): layers in the settings
OPERA found Keras frontends get wrong, one op on arrays, two live Dense objects whose calls must each
keep their own configuration, Keras's own run_layer_test, and two tests that fail on purpose (the
harvest must count them and go on)."""

import numpy as np
import keras
from keras import layers, ops


def x(*shape):
    return np.random.default_rng(0).standard_normal(shape).astype("float32")


def test_conv2d_transpose_output_padding():
    y = layers.Conv2DTranspose(4, 3, strides=2, output_padding=1)(x(1, 5, 5, 3))
    assert y.shape == (1, 12, 12, 4)


def test_cropping2d_channels_last():
    y = layers.Cropping2D(((1, 0), (2, 1)), data_format="channels_last")(x(2, 6, 7, 3))
    assert y.shape == (2, 5, 4, 3)


def test_lstm_go_backwards():
    y = layers.LSTM(3, go_backwards=True, kernel_regularizer=keras.regularizers.L2(0.01))(x(2, 4, 5))
    assert y.shape == (2, 3)


def test_two_dense_objects():
    small, big = layers.Dense(2), layers.Dense(6, activation="relu")
    big(x(1, 3))
    small(x(1, 3))


def test_matmul():
    assert ops.matmul(x(2, 3), x(3, 4)).shape == (2, 4)


def test_symbolic_call_keeps_none():
    inputs = keras.Input(shape=(None, 8))
    keras.Model(inputs, layers.GlobalAveragePooling1D()(inputs))


def test_run_layer_test():
    from keras.src import testing

    class T(testing.TestCase):
        def runTest(self):
            self.run_layer_test(layers.Dense, init_kwargs={"units": 3}, input_shape=(2, 4),
                                expected_output_shape=(2, 3), expected_num_trainable_weights=2,
                                run_training_check=False)
    T().runTest()


def test_fails_on_purpose():
    layers.Dense(2)(x(1, 3))
    assert False, "this test fails on purpose"


def test_errors_on_purpose():
    layers.Conv2D(2, 3)(x(1, 2, 2, 3))  # too small for the kernel: Keras raises
