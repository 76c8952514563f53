"""ferry's Python side: one package whose subpackages are the source tree's folders that hold Python.

    ferry.extract      the instrumentation and the harvesters (extract/)
    ferry.templates    one template per source library: record -> model, inputs, reference (templates/)
    ferry.oracle       the worker's driver and the frontend adapters, ferry.oracle.adapters (oracle/)
    ferry.prioritize   the operator counts of test suites (prioritize/)

lib/py.c puts the directory that holds this package on sys.path, and nothing else: the build tree's
python/ (where make links the folders together) or the installed $(pkgdatadir)/python. Every module
is imported by its full name (ferry.templates.torch), so "import torch" always means PyTorch.

Imports go one way: ferry.extract.values <- instrumentation and harvesters; ferry.extract.values <-
templates <- adapters <- reproducers. A template never imports the driver or an adapter.
"""
