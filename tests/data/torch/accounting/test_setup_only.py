"""A pytest file whose tests make only set-up calls and writes into out= tensors: ferry harvest
records no instance from it, and says why (tests/integration/harvest-accounting.sh)."""

import torch


def test_construct_and_query():
    x = torch.tensor([[1.0, 2.0], [3.0, 4.0]])
    y = x.clone().detach()
    assert y.size() == (2, 2) and x.shape[0] == 2


def test_out_tensor():
    x = torch.tensor([1.0, 2.0])
    out = torch.empty(2)
    torch.add(x, x, out=out)
    assert out.tolist() == [2.0, 4.0]
