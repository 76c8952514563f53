"""ferry.templates: one template per source library (onnx, torch, keras): a record becomes a
single-operator model, its inputs and the reference outputs the library computes, and reproducers.
A template imports ferry.extract.values, never the driver nor an adapter."""
