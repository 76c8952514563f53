"""A small pytest file for ferry's PyTorch integration test: what ferry harvest torch --pytest records
from a user's own tests. Two tests fail on purpose; the harvest must go on past them."""

import pytest
import torch
import torch.nn.functional as F


def test_two_convs_at_once():
    # Two live objects of one class: each forward call must be paired with its own constructor.
    small = torch.nn.Conv2d(3, 4, 3)
    wide = torch.nn.Conv2d(3, 8, 5, padding=2)
    x = torch.randn(1, 3, 10, 10)
    assert wide(x).shape == (1, 8, 10, 10)
    assert small(x).shape == (1, 4, 8, 8)


def test_functional_and_methods():
    x = torch.randn(2, 5)
    y = F.softmax(x, dim=1)
    assert torch.allclose(y.sum(dim=1), torch.ones(2))
    index = torch.tensor([0, 2, 4])
    assert x.index_select(1, index).shape == (2, 3)


def test_relu_in_a_model():
    model = torch.nn.Sequential(torch.nn.Linear(6, 3), torch.nn.ReLU())
    assert model(torch.randn(4, 6)).min() >= 0


def test_fails_on_purpose():
    assert torch.add(torch.ones(2), 1).sum() == 5


def test_errors_on_purpose():
    torch.matmul(torch.ones(2, 3), torch.ones(2, 3))


@pytest.mark.parametrize("p", [0.0, 0.5])
def test_dropout(p):
    assert torch.nn.Dropout(p)(torch.ones(3, 3)).shape == (3, 3)
