/* counts.h: how often a compiler's own frontend tests use each operator, the COUNTS input of
 * `ferry rank` (operators the compiler tests rarely come first) and the output of `ferry count-tests`.
 *
 * A counts file is one JSON object:
 *
 *   {"format": "ferry-counts 1",
 *    "library": "onnx",                      the namespace of the operator names (a record's "library")
 *    "frontend": "tvm-relax-onnx",           free text, for people
 *    "compiler": "tvm", "compiler_version": "0.27.dev0",
 *    "made_by": "ferry count-tests ...",     how the counts were made, so that they can be made again
 *    "sources": ["tests/python/relax/test_frontend_onnx.py", ...],
 *    "counts": {"Abs": 3, "Conv": 41, ...}}
 *
 * Only "format" and "counts" are required. Ownership: struct counts owns every string in it. */
#ifndef FERRY_COUNTS_H
#define FERRY_COUNTS_H

#include <stddef.h>
#include <stdint.h>

#include "buf.h"
#include "err.h"
#include "intern.h"

#define COUNTS_FORMAT "ferry-counts 1"

struct counts {
	struct intern ops;     /* operator names, scope 0; ids index count[] */
	uint64_t *count;
	size_t cap;
	char *library;         /* NULL when the file does not say */
	char *frontend;
	char *compiler;
	char *compiler_version;
	char *made_by;
	char **sources;
	size_t nsources;
};

#define COUNTS_INIT { INTERN_INIT, NULL, 0, NULL, NULL, NULL, NULL, NULL, NULL, 0 }

void counts_init(struct counts *c);
void counts_release(struct counts *c);

/* Read a counts file. A malformed file fails with "FILE: counts.NAME: ..." (exit code: bad input). */
int counts_load(struct counts *c, const char *path, struct err *e);
/* Parse counts from text; name is used in messages. */
int counts_parse(struct counts *c, const char *text, size_t len, const char *name, struct err *e);

/* Add n uses of an operator. */
void counts_add(struct counts *c, const char *op, uint64_t n);
/* The count of an operator, 0 when absent. */
uint64_t counts_get(const struct counts *c, const char *op);
size_t counts_size(const struct counts *c);
const char *counts_name(const struct counts *c, size_t i);
uint64_t counts_value(const struct counts *c, size_t i);

/* Append the counts file (operators sorted by name, one per line, so that files diff well). */
void counts_write(const struct counts *c, struct buf *out);

/* Count the operators that C++ test sources construct OpTester objects for: OpTester test("Conv", 11),
 * OpTester("Relu"), std::make_unique<OpTester>("Add") -- ONNX Runtime's operator tests. Comments and
 * other string literals are skipped. Adds to c. */
void counts_scan_cpp(struct counts *c, const char *text, size_t len);

/* Count the ONNX operations in MLIR text as the ONNX importer of torch-mlir and IREE writes them:
 * %0 = torch.operator "onnx.Add"(%a, %b) -- the models of IREE's ONNX operator tests
 * (iree-org/iree-test-suites onnx_ops), one per node of the ONNX test model. Commented-out lines
 * are skipped. Adds to c. */
void counts_scan_mlir(struct counts *c, const char *text, size_t len);

#endif
