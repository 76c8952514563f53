/* test-select.c: --op and --test, one meaning in every stage (lib/select.h), and queues read as ids
 * whatever their form (jsonl_next_id). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "jsonl.h"
#include "select.h"
#include "tap.h"

static void selection(void)
{
	struct select s = SELECT_INIT;
	char *d;

	ok(select_match(&s, "Conv", "test_conv") && !select_any(&s), "no globs select everything");
	select_add(&s, 1, "Conv2d,conv*,,");
	ok(select_any(&s) && s.nops == 2, "comma-separated globs, empty ones dropped");
	ok(select_match(&s, "torch.nn.Conv2d", NULL), "an operator glob matches the part after the last dot");
	ok(select_match(&s, "torch.nn.functional.conv1d", NULL), "a glob too");
	ok(select_match(&s, "Conv2d", NULL), "or the whole name");
	ok(!select_match(&s, "torch.nn.Linear", NULL), "and nothing else");
	ok(!select_op_matches("conv*", "torch.nn.Conv2d.x"), "a glob: only the last dotted part");
	select_add(&s, 0, "test_conv*");
	ok(select_match(&s, "Conv2d", "test_conv_pads"), "operator and test both match");
	ok(!select_match(&s, "Conv2d", "x.test_conv_pads"), "a test glob matches the whole test name");
	ok(!select_match(&s, "Conv2d", NULL), "a record without a test is not selected by a test glob");
	ok(!select_match(&s, "Relu", "test_conv_pads"), "nor one whose operator does not match");
	d = select_describe(&s);
	ok(!strcmp(d, "--op Conv2d,conv* --test test_conv*"), "described as it was given (%s)", d);
	free(d);
	select_release(&s);
	ok(!select_any(&s), "released");
}

/* pytest's -k and ripgrep's smart case: a word is a substring, lower case ignores case. */
static void words_and_case(void)
{
	struct select s = SELECT_INIT;
	char *w;

	ok(select_test_matches("autopad", "test_conv_with_autopad_same"), "a word matches inside a test name");
	ok(!select_test_matches("autopad", "test_conv_pads"), "and not a name without it");
	ok(select_test_matches("AUTOPAD", "test_AUTOPAD") && !select_test_matches("AUTOPAD", "test_autopad"),
	   "a capital makes the word case-sensitive");
	ok(select_test_matches("test_CONV*", "test_CONV_x") && !select_test_matches("test_CONV*", "test_conv_x"),
	   "and a glob");
	ok(select_test_matches("test_conv*", "TEST_CONV_X"), "a glob in lower case ignores case");
	ok(!select_test_matches("conv*", "test_conv"), "a glob still matches the whole test name");
	ok(!select_test_matches("x", NULL) && !select_op_matches("x", NULL), "no name matches no pattern");
	ok(select_op_matches("tensordot", "torch.tensordot"), "an operator word matches inside its name");
	ok(select_op_matches("conv2d", "torch.nn.Conv2d") && !select_op_matches("Conv2d", "torch.nn.conv2d"),
	   "smart case for operators");
	ok(select_op_matches("CONV*", "torch.nn.CONV") && select_op_matches("conv*", "torch.nn.Conv2d"),
	   "an operator glob matches after the last dot, smart case too");
	ok(select_op_matches("torch.nn.*", "torch.nn.Conv2d") && !select_op_matches("nn.*", "torch.nn.Conv2d"),
	   "or the whole name");
	select_add(&s, 1, "torch.functional.tensordot");
	ok(select_match(&s, "torch.functional.tensordot", NULL) && !select_match(&s, "torch.tensordot", NULL),
	   "an internal name selects only itself by name");
	select_release(&s);
	w = select_widen("Auto_pad");
	ok(!strcmp(w, "*Auto_pad*"), "a word widens to a glob around it (%s)", w);
	free(w);
	w = select_widen("conv*");
	ok(!strcmp(w, "[cC][oO][nN][vV]*"), "lower case widens to both cases (%s)", w);
	free(w);
	w = select_widen("[a-c]x");
	ok(!strcmp(w, "*"), "a bracket without capitals passes everything (%s)", w);
	free(w);
}

static void queue_ids(void)
{
	char path[] = "/tmp/ferry-test-select.XXXXXX";
	int fd = mkstemp(path);
	FILE *fp = fdopen(fd, "w");
	struct jsonl_reader r;
	struct err e = ERR_INIT;
	enum jsonl_status st;
	char *id, got[256] = "";
	size_t bad = 0;

	fputs("{\"rank\":1,\"id\":\"aa\",\"op\":\"Conv\"}\n  bb  \n# a comment\n\ncc\n{\"no\":\"id\"}\n"
	      "two words\n{\"id\":\"dd\"}\n", fp);
	fclose(fp);
	ok(jsonl_open(&r, path, &e) == 0, "open a queue");
	while ((st = jsonl_next_id(&r, &id, &e)) != JSONL_END && st != JSONL_FAIL) {
		if (st == JSONL_BAD) {
			bad++;
			err_release(&e);
			continue;
		}
		strcat(got, id);
		strcat(got, " ");
		free(id);
	}
	jsonl_close(&r);
	unlink(path);
	ok(!strcmp(got, "aa bb cc dd "), "JSON lines and plain ids, in order, comments passed over (%s)", got);
	ok(bad == 2, "a line without an id and a line of two words are bad (%zu)", bad);
}

int main(void)
{
	plan(31);
	selection();
	words_and_case();
	queue_ids();
	return done();
}
