"""An OpInfo entry of a test's own (tests/integration/harvest-samples.sh, through FERRY_TORCH_OPINFO):
slow_add, torch.add on six samples of shapes (1,) to (6,), whose third sample sleeps
$SLOW_SAMPLE_SECONDS (default 600) first: a sample that hangs, among samples that do not."""

import os
import time

import torch
from torch.testing._internal.opinfo.core import OpInfo, SampleInput

SAMPLES = 6
SLOW = 3  # the size, and the number, of the sample that sleeps


def _samples(op_info, device, dtype, requires_grad, **kwargs):
    for n in range(1, SAMPLES + 1):
        yield SampleInput(torch.ones(n, dtype=dtype, device=device), args=(torch.ones(n, dtype=dtype, device=device),))


def _slow_add(x, y):
    if x.numel() == SLOW:
        time.sleep(float(os.environ.get("SLOW_SAMPLE_SECONDS", "600")))
    return torch.add(x, y)


op_db = [OpInfo("slow_add", op=_slow_add, dtypes=(torch.float32,), sample_inputs_func=_samples, supports_out=False,
                supports_autograd=False)]
