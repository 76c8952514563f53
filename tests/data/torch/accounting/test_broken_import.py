"""A pytest file that cannot be imported (tests/integration/harvest-accounting.sh)."""

import torch  # noqa: F401
import ferry_no_such_module_for_the_test  # noqa: F401


def test_never_runs():
    pass
