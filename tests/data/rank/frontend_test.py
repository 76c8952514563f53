"""A frontend test in the style of TVM's: the docstring says "Conv", which must not count."""
import onnx
from onnx import helper
import torch
import torch.nn.functional as F
from torch import nn


def verify_unary(op_name, shape):
    node = helper.make_node(op_name, ["x"], ["y"])
    return node


def test_conv():
    node = onnx.helper.make_node("Conv", inputs=["x", "w"], outputs=["y"], kernel_shape=[3, 3])
    node2 = helper.make_node(op_type="Conv", inputs=["x", "w"], outputs=["y"])


def test_unary():
    verify_unary("Relu", [3])
    for op in ["Relu", "Sigmoid", "not_an_op"]:
        verify_unary(op, [2])


class M(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 3, 1)

    def forward(self, x):
        return F.relu(torch.add(self.conv(x), 1)).relu()
