"""A test file that fails to import: the harvest must say which and why, and run the others."""

import ferry_no_such_module  # noqa: F401


def test_never():
    pass
