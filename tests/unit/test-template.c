/* test-template.c: templates learned from messages (report/template.h): what varies among lines
 * that are otherwise the same becomes <*>, numbers <#>, and lines that share too little stay apart;
 * the order the lines come in does not change what is learnt. */
#include <stdlib.h>
#include <string.h>

#include "tap.h"
#include "template.h"

/* The template line belongs to, after learning lines. */
static char *match(const char *const *lines, size_t n, const char *line)
{
	struct template_set *t = template_new();
	struct buf out = BUF_INIT;

	template_learn_all(t, lines, n);
	template_match(t, line, &out);
	template_free(t);
	return out.data ? out.data : strdup("");
}

static void check(const char *const *lines, size_t n, const char *line, const char *want, const char *name)
{
	char *got = match(lines, n, line);

	is(got, want, "%s", name);
	free(got);
}

int main(void)
{
	static const char *const zero[] = {
		"out_0 has zero dimension which is not allowed", "in_0 has zero dimension which is not allowed",
		"in_1 has zero dimension which is not allowed",
	};
	static const char *const keys[] = { "torch.int16", "torch.bfloat16" };
	static const char *const headed[] = { "dtype: torch.int16", "dtype: torch.complex64" };
	static const char *const ranks[] = {
		"uses T.float32 on the LHS (Type of R.Tensor((3,), dtype=\"float32\"))",
		"uses T.float32 on the LHS (Type of R.Tensor((), dtype=\"float32\"))",
	};
	static const char *const tuples[] = {
		"there exists (T.int64(3),) and (T.int64(4),) that are unequal.",
		"there exists (T.int64(2),) and (T.int64(5),) that are unequal.",
	};
	static const char *const calls[] = {
		"However, R.power(in_0, in_1) uses datatype T.int32 on the LHS",
		"However, R.power(x1, x2) uses datatype T.int64 on the LHS",
		"However, R.multiply(lv1, in_0) uses datatype T.float32 on the LHS",
	};
	static const char *const llvm[] = { "%10 = fcmp oeq i1 %6, %9, !dbg !39", "%9 = fcmp oeq i1 %5, %8, !dbg !40" };
	static const char *const checks[] = {
		"Check 'a == b' failed at src/x.cpp:12:", "Check 'c < d' failed at src/y.cpp:40:",
	};
	static const char *const dtypes[] = {
		"Argument element types do not match (input arg element type: i16, arg_pad element type: f32)",
		"Argument element types do not match (input arg element type: u8, arg_pad element type: f32)",
		"Constant delta required for Range.",
	};
	static const char *const fwd[] = { "a b c d e", "a b c d x", "a b y d x" };
	static const char *const back[] = { "a b y d x", "a b c d x", "a b c d e" };
	struct template_set *t = template_new();

	plan(17);
	check(zero, 3, "out_0 has zero dimension which is not allowed", "<*> has zero dimension which is not allowed",
	      "a node's name that varies among otherwise equal lines becomes <*>");
	check(zero, 3, "weights has zero dimension which is not allowed", "<*> has zero dimension which is not allowed",
	      "... and a line not learnt matches the template");
	check(keys, 2, "torch.int16", "<*>", "a line that is one value varies as a value: a KeyError's key");
	check(headed, 2, "dtype: torch.int16", "dtype: <*>", "so does the value after a heading");
	check(headed, 2, "fails: now", "fails: now", "but not a value under another heading");
	check(ranks, 2, "uses T.float32 on the LHS (Type of R.Tensor((2, 3, 4), dtype=\"float32\"))",
	      "uses T.float32 on the LHS (Type of <*> dtype=\"float32\"))",
	      "a shape is one token, whatever its rank: lines of one cause keep one length");
	check(tuples, 2, "there exists (T.int64(3), T.int64(4)) and (T.int64(4), T.int64(5)) that are unequal.",
	      "there exists <*> and <*> that are unequal.",
	      "a tuple of dotted names is one token too, whatever its length (TVM's shapes)");
	check(calls, 3, "However, R.power(x2, x3) uses datatype T.float64 on the LHS",
	      "However, R.power(<*>) uses datatype <*> on the LHS",
	      "a call keeps its operation, its arguments vary");
	check(calls, 3, "However, R.multiply(lv2, in_1) uses datatype T.float16 on the LHS",
	      "However, R.multiply(lv1, in_0) uses datatype T.float32 on the LHS",
	      "... and a call of another operation is another template");
	check(llvm, 2, "%17 = fcmp oeq i1 %13, %16, !dbg !42", "<#> = fcmp oeq i1 <#> <#> !dbg <#>",
	      "LLVM's numbered values and metadata are numbers");
	check(checks, 2, "Check 'a == b' failed at src/x.cpp:12:", "Check 'a == b' failed at src/x.cpp:12:",
	      "two checks that differ in their condition and their place stay apart");
	check(dtypes, 3, "Argument element types do not match (input arg element type: boolean, arg_pad element type: "
	      "f32)", "Argument element types do not match (input arg element type: <*> arg_pad element type: f32)",
	      "a dtype that varies becomes <*>, the one that does not stays");
	check(dtypes, 3, "Constant delta required for Range.", "Constant delta required for Range.",
	      "a line of another length is its own template");
	check(zero, 3, "Range 0 3 gave 1632543764", "Range <#> <#> gave <#>",
	      "a line that matches nothing is its own tokens, numbers as <#>");
	{
		char *a = match(fwd, 3, "a b c d e"), *b = match(back, 3, "a b c d e");

		is(a, b, "the order lines come in does not change the template (%s)", a);
		free(a);
		free(b);
	}
	template_learn_all(t, zero, 3);
	template_learn_all(t, zero, 3);
	ok(template_count(t) == 1, "lines learnt twice make one template (%zu)", template_count(t));
	template_learn_all(t, dtypes, 3);
	ok(template_count(t) == 3, "three templates in all (%zu)", template_count(t));
	template_free(t);
	return done();
}
