"""ferry.extract: harvesting. values (the typed value encoding every stage shares), the
instrumentations (instrument_torch, instrument_keras), one harvester per source (harvest_SOURCE,
run by channel in the harvest child), and helpers for pytest (pytests) and TensorFlow (tfload)."""
