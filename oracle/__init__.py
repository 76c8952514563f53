"""ferry.oracle: driver (what a worker runs for each test) and the frontend adapters (adapters/)."""
