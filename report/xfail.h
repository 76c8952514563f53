/* xfail.h: ferry report --xfail DIR: a store's failing tests as the expected-failure lists compiler
 * projects keep (ferry/oracle/regress.py writes them): per frontend, DIR/FRONTEND/conftest.py (pytest
 * xfail marks), onnx_backend_exclude.txt (onnx.backend.test.BackendTest.exclude patterns, for ONNX
 * tests) and iree_onnx_ops.json (IREE's onnx_ops config, for IREE frontends). */
#ifndef FERRY_XFAIL_H
#define FERRY_XFAIL_H

#include <stdio.h>

#include "err.h"

/* Write the lists of the failures that may be bugs (ferry's own errors aside) of frontend (NULL: each
 * frontend) of the store at path store into dir, with the templates' interpreter python, and print a
 * line per file written on out. 0, or -1 with e. */
int xfail_write(const char *store, const char *frontend, const char *dir, const char *python, FILE *out,
		struct err *e);

#endif
