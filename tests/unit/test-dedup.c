/* test-dedup.c: what groups failures into one bug and what keeps them apart. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dedup.h"
#include "tap.h"
#include "xalloc.h"

static char *norm(const char *msg)
{
	struct buf b = BUF_INIT;

	dedup_normalize(msg, &b);
	return buf_detach(&b);
}

static char *sig(const char *outcome, const char *stage, const char *exc, const char *frame, const char *msg,
		 const char *op)
{
	struct failure f = { "ort", op, outcome, stage, exc, frame, msg };
	struct buf b = BUF_INIT;

	dedup_signature(&f, &b);
	return buf_detach(&b);
}

static char *decisive(const char *msg)
{
	struct buf b = BUF_INIT;

	dedup_decisive(msg, &b);
	return buf_detach(&b);
}

static void unescape(const char *s, struct buf *out)
{
	for (; *s; s++) {
		if (*s != '\\' || !s[1]) {
			buf_addc(out, *s);
			continue;
		}
		s++;
		buf_addc(out, *s == 'n' ? '\n' : *s == 't' ? '\t' : *s == 'r' ? '\r' : *s);
	}
}

struct member {
	char *label, *sig, *where;
};

/* tests/data/messages/groups.txt: one label, one bug; two labels, two bugs. */
static void check_groups(void)
{
	char *path = xasprintf("%s/tests/data/messages/groups.txt", ABS_TOP_SRCDIR);
	struct member *m = NULL;
	size_t n = 0, cap = 0, wrong = 0, labels = 0;
	char *line = NULL;
	size_t lcap = 0;
	ssize_t len;
	int lineno = 0;
	FILE *f = fopen(path, "r");

	while (f && (len = getline(&line, &lcap, f)) > 0) {
		char *field[7] = { NULL }, *save = NULL, *tok;
		struct buf msg = BUF_INIT, sig = BUF_INIT;
		int k = 0;

		lineno++;
		if (line[len - 1] == '\n')
			line[--len] = '\0';
		if (!*line || *line == '#')
			continue;
		/* strsep, not strtok: a field may be empty (no frame). */
		save = line;
		while (k < 7 && (tok = strsep(&save, "\t")))
			field[k++] = tok;
		if (k != 7) {
			diag("%s:%d: %d fields, not 7", path, lineno, k);
			wrong++;
			continue;
		}
		unescape(field[6], &msg);
		{
			struct failure fl = { field[1], field[2], "crash", *field[3] ? field[3] : NULL,
					      *field[4] ? field[4] : NULL, *field[5] ? field[5] : NULL, msg.data };

			dedup_signature(&fl, &sig);
		}
		XGROW(m, cap, n + 1);
		m[n].label = xstrdup(field[0]);
		m[n].sig = buf_detach(&sig);
		m[n].where = xasprintf("line %d", lineno);
		n++;
		buf_release(&msg);
	}
	if (f)
		fclose(f);
	for (size_t i = 0; i < n; i++) {
		int first = 1;

		for (size_t j = 0; j < n; j++) {
			int same_label = !strcmp(m[i].label, m[j].label), same_sig = !strcmp(m[i].sig, m[j].sig);

			first &= !(j < i && same_label);
			if (j > i && same_label != same_sig) {
				diag("%s (%s) and %s (%s) %s one bug: %s | %s", m[i].where, m[i].label, m[j].where, m[j].label,
				     same_label ? "must be" : "must not be", m[i].sig, m[j].sig);
				wrong++;
			}
		}
		labels += first;
	}
	ok(n >= 20 && labels >= 10, "groups.txt: %zu real messages of %zu bugs", n, labels);
	ok(wrong == 0, "groups.txt: each pair of messages is one bug exactly where their label is one (%zu wrong)", wrong);
	for (size_t i = 0; i < n; i++) {
		free(m[i].label);
		free(m[i].sig);
		free(m[i].where);
	}
	free(m);
	free(line);
	free(path);
}

#define CHECK_STR(got_expr, want, ...) do { char *g_ = (got_expr); is(g_, want, __VA_ARGS__); free(g_); } while (0)

int main(void)
{
	char *a, *b;

	plan(33);
	CHECK_STR(norm("node Conv_3 at 0x7ffd1234abcd failed: shape (1, 3, 224, 224) vs [2]"),
		  "node Conv_3 at 0x# failed: shape (#, #, #, #) vs [#]",
		  "numbers and addresses go; digits inside names stay");
	CHECK_STR(norm("Status Message: /onnxruntime_src/onnxruntime/core/providers/cpu/x.cc:52 virtual bool f()"),
		  "Status Message: PATH:# virtual bool f()", "paths go");
	CHECK_STR(norm("cannot find op 'my_layer_7' in \"graph 12\"   now"), "cannot find op '*' in '*' now",
		  "quoted names go, white space folds");
	CHECK_STR(norm("value 1.5e-07 and -3.25"), "value # and -#", "floats with exponents are one number");

	a = sig("crash", "compile", "Fail", "onnxruntime/capi/x.py:run", "Type Error: T bound to float and int64 in node 'n1'", "Add");
	b = sig("crash", "compile", "Fail", "onnxruntime/capi/x.py:run", "Type Error: T bound to float and int64 in node 'n9'", "Mul");
	ok(strcmp(a, b) != 0, "the operator is part of what decides: another operator, another bug");
	free(b);
	b = sig("crash", "compile", "Fail", "onnxruntime/capi/x.py:run", "Type Error: T bound to float and int64 in node 'n9'", "Add");
	is(a, b, "crashes that differ in names only are one bug");
	free(b);
	b = sig("crash", "execute", "Fail", "onnxruntime/capi/x.py:run", "Type Error: T bound to float and int64 in node 'n1'", "Add");
	ok(strcmp(a, b) != 0, "another stage is another bug");
	free(b);
	b = sig("crash", "compile", "Fail", "onnxruntime/capi/x.py:run", "Shape mismatch in node 'n1'", "Add");
	ok(strcmp(a, b) != 0, "another message is another bug");
	free(a);
	free(b);
	a = sig("crash", "compile", "OpConversionFailure", "-", "Slice 'data' input is a scalar.", "torch.scatter_reduce");
	b = sig("crash", "compile", "OpConversionFailure", "-", "Slice 'data' input is a scalar.",
		"torch.Tensor.scatter_reduce_");
	is(a, b, "torch.X, torch.Tensor.X and the in-place X_ are one operation: one bug");
	free(b);
	b = sig("crash", "compile", "OpConversionFailure", "-", "Slice 'data' input is a scalar.",
		"torch.nn.functional.scatter_reduce");
	ok(strcmp(a, b) != 0, "a torch.nn.functional name is another operation");
	free(a);
	free(b);
	a = sig("crash", "compile", "E", "-", "bad 'x'", "torch.Tensor.__add__");
	b = sig("crash", "compile", "E", "-", "bad 'x'", "torch.Tensor.__iadd__");
	ok(strcmp(a, b) != 0, "a dunder keeps its underscores: __iadd__ is not __add__");
	free(a);
	free(b);
	/* The operator decides only where the decisive line quotes a name that normalizing hides. */
	a = sig("crash", "compile", "KeyError", "openvino/frontend/pytorch/fx_decoder.py:_get_type", "torch.bfloat16",
		"torch.argsort");
	b = sig("crash", "compile", "KeyError", "openvino/frontend/pytorch/fx_decoder.py:_get_type", "torch.bfloat16",
		"torch.nn.functional.embedding");
	is(a, b, "a line that quotes nothing, raised in one place, is one bug whichever operator reaches it");
	free(b);
	b = sig("crash", "compile", "KeyError", "openvino/frontend/pytorch/fx_decoder.py:_get_type", "torch.int16",
		"torch.argsort");
	ok(strcmp(a, b) != 0, "... and another line there is another bug");
	free(a);
	free(b);
	a = sig("crash", "compile", "AssertionError", "tvm/relax/frontend/torch/x.py:check",
		"Unsupported function types ['unique']", "torch.unique");
	b = sig("crash", "compile", "AssertionError", "tvm/relax/frontend/torch/x.py:check",
		"Unsupported function types ['unique_consecutive']", "torch.unique_consecutive");
	ok(strcmp(a, b) != 0, "a line that quotes a name keeps the operator: the name is often the operator's own");
	free(a);
	free(b);
	a = sig("crash", "execute", "ValueError", "tflite_runtime/interpreter.py:get_tensor", "Invalid tensor size.",
		"keras.layers.Softmax");
	b = sig("crash", "execute", "ValueError", "tflite_runtime/interpreter.py:get_tensor", "Invalid tensor size.",
		"keras.ops.trace");
	is(a, b, "TFLite's interpreter that cannot return an empty tensor is one bug across its operators");
	free(a);
	free(b);
	CHECK_STR(decisive("Check 'false' failed at src/frontends/common_translators/src/unconverted_ops_report.cpp:151:\n"
			   "FrontEnd API failed with OpConversionFailure:\nModel wasn't fully converted. Failed operations "
			   "detailed log:\n-- aten::searchsorted with a message:\nException happened during conversion of "
			   "operation aten::searchsorted with schema aten::searchsorted.Tensor(Tensor sorted_sequence)\n"
			   "Check 'context.input_is_none(i)' failed at src/frontends/pytorch/src/utils.cpp:70:\n"
			   "FrontEnd API failed with OpConversionFailure:\nGot more inputs than expected: 6\n"),
		  "Got more inputs than expected: 6", "OpenVINO: check locations and report headings are skipped");
	CHECK_STR(decisive("Error invoking IREE compiler tool iree-compile\nError code: 1\nDiagnostics:\n"
			   "    %0 = torch.operator \"onnx.Det\"(%arg0) : (!torch.vtensor<[1,3,2,2],f32>) -> !torch.vtensor<[1,3],f32>\n"
			   "         ^\n<stdin>:4:10: error: 'linalg.generic' op expected operand #0 rank (4) to match the "
			   "result rank of indexing_map (2)\n"),
		  "<stdin>:4:10: error: 'linalg.generic' op expected operand #0 rank (4) to match the result rank of "
		  "indexing_map (2)", "MLIR: a source line echoed above a caret is where, never what");
	CHECK_STR(decisive("Traceback (most recent call last):\nSyntaxError: invalid syntax\n    x = = 1\n        ^\n"),
		  "SyntaxError: invalid syntax", "... and the line a caret follows unindented stays");
	CHECK_STR(decisive("Failed to convert the exported program to an ONNX model. \x1b[96mThis is step 3/3\x1b[0m of "
			   "exporting the model to ONNX. Next steps:\n- If there is a missing ONNX function, implement it.\n"
			   "\n## Exception summary\n\n<class 'AssertionError'>: unique_consecutive not implemented\n"
			   "\xe2\xac\x86\xef\xb8\x8f\n<class 'torch.onnx._internal.exporter._errors.ConversionError'>: Error\n"),
		  "AssertionError: unique_consecutive not implemented",
		  "torch.onnx: banner, ANSI escapes and advice skipped; the root exception keeps its type");
	CHECK_STR(decisive("[ONNXRuntimeError] : 1 : FAIL : Non-zero status code returned while running ConvInteger node. "
			   "Name:'' Status Message: /onnxruntime_src/onnxruntime/core/providers/cpu/quantization/"
			   "conv_integer.cc:52 virtual onnxruntime::common::Status onnxruntime::ConvInteger::Compute("
			   "onnxruntime::OpKernelContext*) const IsScalarOr1ElementVector(W_Zero_Point) was false. Non "
			   "per-tensor quantization is not supported now."),
		  "IsScalarOr1ElementVector(W_Zero_Point) was false. Non per-tensor quantization is not supported now.",
		  "ONNX Runtime: status prefix, node and C++ signature skipped");
	CHECK_STR(decisive("Traceback (most recent call last):\n  File \"x.py\", line 3, in f\n    g()\n"
			   "  1: tvm::relax::Foo()\nInternalError: Check failed: (a == b) is false: bad axis"),
		  "InternalError: Check failed: (a == b) is false: bad axis", "traceback frames and a native backtrace skipped");
	CHECK_STR(decisive("Exception from src/inference/src/cpp/core.cpp:117:\n"
			   "Check 'inputDesc.isCompatible(outputDesc)' failed at src/plugins/intel_cpu/src/edge.cpp:305:\n"),
		  "check inputDesc.isCompatible(outputDesc) failed in edge.cpp", "nothing but checks: the last one's condition");
	CHECK_STR(decisive("Error invoking IREE compiler tool iree-compile\nError code: 1\nDiagnostics:\n<stdin>:4:10: "
			   "error: failed to legalize operation 'torch.aten.sum.dim_IntList' that was explicitly marked "
			   "illegal: %7 = \"torch.aten.sum.dim_IntList\"(%arg0, %6, %2, %1)\n"),
		  "<stdin>:4:10: error: failed to legalize operation 'torch.aten.sum.dim_IntList' that was explicitly "
		  "marked illegal: %7 = \"torch.aten.sum.dim_IntList\"(%arg0, %6, %2, %1)",
		  "IREE: the compiler tool's banner skipped, its first diagnostic kept");
	check_groups();
	/* MLIR's legalization failures: the operation decides, not the operands it was printed with. */
	a = sig("crash", "compile", "CompilerToolError", "iree/compiler/x.py:invoke", "Error invoking IREE compiler tool "
		"iree-compile\n<stdin>:4:10: error: failed to legalize operation 'torch.operator' that was explicitly "
		"marked illegal: %1 = \"torch.operator\"(%arg0, %arg1, %arg2, %arg3) <{name = \"onnx.Attention\"}> : "
		"(!torch.vtensor<[2,3,4,8],f32>) -> !torch.vtensor<[2,3,4,8],f32>\n", "Attention");
	b = sig("crash", "compile", "CompilerToolError", "iree/compiler/x.py:invoke", "Error invoking IREE compiler tool "
		"iree-compile\n<stdin>:4:12: error: failed to legalize operation 'torch.operator' that was explicitly "
		"marked illegal: %0:4 = \"torch.operator\"(%arg0, %arg1, %arg2, %0, %0) <{name = \"onnx.Attention\", "
		"torch.onnx.is_causal = 1 : si64}> : (!torch.vtensor<[2,4,8],f16>) -> !torch.vtensor<[2,4,8],f16>\n",
		"Attention");
	is(a, b, "MLIR: an operation that failed to legalize, whatever its operands and types, is one bug");
	free(b);
	b = sig("crash", "compile", "CompilerToolError", "iree/compiler/x.py:invoke", "Error invoking IREE compiler tool "
		"iree-compile\n<stdin>:4:12: error: failed to legalize operation 'torch.operator' that was explicitly "
		"marked illegal: %0:2 = \"torch.operator\"(%arg0) <{name = \"onnx.StringSplit\"}> : "
		"(!torch.vtensor<[2],!torch.str>) -> !torch.vtensor<[2],si64>\n", "Attention");
	ok(strcmp(a, b) != 0, "MLIR: an imported operator left as it was is told apart by its name");
	free(a);
	free(b);
	a = sig("crash", "compile", "CompilerToolError", "-", "<stdin>:4:10: error: failed to legalize operation "
		"'torch.aten.cumsum' that was explicitly marked illegal: %7 = \"torch.aten.cumsum\"(%arg0, %6, %0)", "graph");
	b = sig("crash", "compile", "CompilerToolError", "-", "<stdin>:9:10: error: failed to legalize operation "
		"'torch.aten.sum.dim_IntList' that was explicitly marked illegal: %7 = \"torch.aten.sum.dim_IntList\"(%1)",
		"graph");
	ok(strcmp(a, b) != 0, "MLIR: so is the operation that failed, though its name is quoted");
	free(b);
	b = sig("crash", "compile", "CompilerToolError", "-", "<stdin>:7:11: error: failed to legalize operation "
		"'torch.aten.cumsum' that was explicitly marked illegal: %12 = \"torch.aten.cumsum\"(%3, %2, %1) : "
		"(!torch.vtensor<[5],si32>) -> !torch.vtensor<[5],si32>", "graph");
	is(a, b, "MLIR: and the same operation in another graph is the same bug");
	free(a);
	free(b);
	a = sig("crash", "compile", "signal 11", NULL, "the worker was killed by signal 11 (SIGSEGV)", "Conv");
	b = sig("crash", "compile", "signal 11", NULL, "the worker was killed by signal 11 (SIGSEGV)", "Gemm");
	ok(strcmp(a, b) != 0, "signal deaths leave no frame, so the operator tells them apart");
	free(a);
	free(b);
	a = sig("mismatch", NULL, NULL, NULL, "output 0: max |got - want| = 0.5 at [1] (got 1, want 0.5)", "Resize");
	b = sig("mismatch", NULL, NULL, NULL, "output 0: max |got - want| = 3 at [7] (got 4, want 1)", "Resize");
	is(a, b, "value mismatches of one operator are one bug");
	free(b);
	b = sig("mismatch", NULL, NULL, NULL, "output 0: shape mismatch: got [2], want [3]", "Resize");
	ok(strcmp(a, b) != 0, "a shape mismatch is another bug than a value mismatch");
	free(b);
	b = sig("mismatch", NULL, NULL, NULL, "output 0: max |got - want| = 0.5 at [1] (got 1, want 0.5)", "Upsample");
	ok(strcmp(a, b) != 0, "a mismatch of another operator is another bug");
	free(a);
	free(b);
	return done();
}
