"""ferry.prioritize: the Python half of ranking: count_tests (operator uses in Python test files)."""
