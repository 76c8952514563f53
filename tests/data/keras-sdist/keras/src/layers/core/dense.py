"""Not a test file: never extracted."""
