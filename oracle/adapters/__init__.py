"""ferry.oracle.adapters: one module per compiler frontend, named after it with '_' for '-'
(frontend "openvino-pytorch" is openvino_pytorch.py). Modules whose names start with '_' are
helpers that adapters share, not frontends. The interface is in ferry/oracle/driver.py."""
