/* test-dedup.c: what groups failures into one bug and what keeps them apart. */
#include <stdlib.h>
#include <string.h>

#include "dedup.h"
#include "tap.h"

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

#define CHECK_STR(got_expr, want, ...) do { char *g_ = (got_expr); is(g_, want, __VA_ARGS__); free(g_); } while (0)

int main(void)
{
	char *a, *b;

	plan(11);
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
	is(a, b, "crashes that differ in names and operators only are one bug");
	free(b);
	b = sig("crash", "execute", "Fail", "onnxruntime/capi/x.py:run", "Type Error: T bound to float and int64 in node 'n1'", "Add");
	ok(strcmp(a, b) != 0, "another stage is another bug");
	free(b);
	b = sig("crash", "compile", "Fail", "onnxruntime/capi/x.py:run", "Shape mismatch in node 'n1'", "Add");
	ok(strcmp(a, b) != 0, "another message is another bug");
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
