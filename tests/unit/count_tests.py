"""Unit tests of count-tests' Python counting (prioritize/count_tests.py) on the forms compiler test
suites name operators by: OpenVINO's PyTorch layer tests (a model class calling torch.X and the
"aten::X" kind the test checks for) and its tensorflow2_keras_tests (tf.keras.layers.X, counted
under ferry's keras namespace). Prints TAP; run by tests/unit/test-count-tests.sh."""

import os
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from tap import done, is_  # noqa: E402

from ferry.prioritize import count_tests  # noqa: E402

# The shape of openvinotoolkit/openvino tests/layer_tests/pytorch_tests/test_addcmul.py: torch is
# imported inside create_model, the model calls torch.addcmul in forward, and the test names the
# aten operator it expects in the converted graph.
OV_TORCH = '''
import pytest
import numpy as np
from pytorch_layer_test_class import PytorchLayerTest


class TestAddCMul(PytorchLayerTest):
    def create_model(self, value=None):
        import torch

        class aten_addcmul(torch.nn.Module):
            def forward(self, x, y, z):
                return torch.addcmul(x, y, z, value=self.value)

        return aten_addcmul(value), None, "aten::addcmul"


class TestSub(PytorchLayerTest):
    def create_model(self):
        class aten_sub(torch.nn.Module):
            def forward(self, x, y):
                return x.sub(y)

        return aten_sub(), None, "aten::sub.Tensor"

    @pytest.mark.parametrize("kind", ["aten::relu", "aten::relu_", "not aten::x", "aten::"])
    def test_relu(self, kind):
        """aten::gelu in a docstring is no use."""
'''

# The shape of tests/layer_tests/tensorflow2_keras_tests/test_tf2_keras_dense.py, and the other two
# spellings of the keras namespace.
OV_KERAS = '''
import tensorflow as tf
import tf_keras
from tensorflow.keras import layers
from common.tf2_layer_test_class import CommonTF2LayerTest


class TestKerasDense(CommonTF2LayerTest):
    def create_keras_dense_net(self, input_names, input_shapes, units):
        x1 = tf.keras.Input(shape=input_shapes[0][1:], name=input_names[0])
        y = tf.keras.layers.Dense(units=units)(x1)
        y = layers.ReLU()(y)
        y = tf_keras.layers.Softmax()(y)
        return tf.keras.Model(inputs=[x1], outputs=[y]), None
'''


def counted(text, library):
    with tempfile.NamedTemporaryFile("w", suffix=".py", delete=False) as f:
        f.write(text)
    try:
        return count_tests.count([f.name], library)
    finally:
        os.unlink(f.name)


got = counted(OV_TORCH, "torch")
is_(got.get("torch.addcmul"), 2, "torch.addcmul: the model's call and its aten:: kind")
is_(got.get("torch.sub"), 1, "aten::sub.Tensor counts as torch.sub, the overload dropped")
is_((got.get("torch.relu"), got.get("torch.relu_")), (1, 1), "aten:: names in a parametrize list")
is_(sorted(k for k in got if k.startswith("torch.") and "aten" not in k and k not in (
    "torch.addcmul", "torch.sub", "torch.relu", "torch.relu_")), [],
    "nothing else: not the docstring's aten::gelu, nor 'not aten::x', nor 'aten::' alone")
is_(counted(OV_TORCH, "onnx").get("torch.addcmul"), None, "aten:: strings count for torch only")

got = counted(OV_KERAS, "keras")
is_(got.get("keras.layers.Dense"), 1, "tf.keras.layers.Dense counts as keras.layers.Dense")
is_(got.get("keras.layers.ReLU"), 1, "from tensorflow.keras import layers: keras.layers.ReLU")
is_(got.get("keras.layers.Softmax"), 1, "tf_keras.layers.Softmax counts as keras.layers.Softmax")
is_(sorted(k for k in got if not k.startswith("keras.")), [], "no tensorflow.keras or tf_keras names are left")
is_(got.get("keras.Input"), 1, "keras.Input is counted (it names no operator of the corpus, so it ranks nothing)")
is_(counted(OV_KERAS, "tensorflow").get("tensorflow.keras.layers.Dense"), 1,
    "with --library tensorflow the names stay tensorflow's")
done()
