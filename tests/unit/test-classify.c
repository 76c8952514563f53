/* test-classify.c: oracle/classify.c with pattern files written to a temporary directory. */
#include "classify.h"
#include "tap.h"
#include "xalloc.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char *write_file(const char *dir, const char *name, const char *text, size_t len)
{
	char *path = xasprintf("%s/%s", dir, name);
	FILE *f = fopen(path, "wb");

	if (f) {
		fwrite(text, 1, len, f);
		fclose(f);
	}
	return path;
}

#define WRITE(dir, name, lit) write_file((dir), (name), (lit), sizeof(lit) - 1)

/* The line of the pattern that matches message, 0 for none. */
static int match_line(const struct classify *c, const char *message)
{
	const struct classify_pattern *p = NULL;

	return classify_match(c, message, &p) ? p->line : 0;
}

int main(void)
{
	char tmpl[] = "/tmp/ferry-test-classify-XXXXXX";
	char *dir = mkdtemp(tmpl), *main_path, *extra_path, *bad_path, *nul_path, *empty_path, *missing;
	struct classify c = CLASSIFY_INIT, *heap;
	const struct classify_pattern *which = NULL;
	struct err e = ERR_INIT;

	if (!dir) {
		printf("1..0 # SKIP cannot create a temporary directory\n");
		return 0;
	}
	plan(27);
	main_path = WRITE(dir, "ort.txt",
			  "# patterns for a test frontend\n"
			  "\n"
			  "   \t\n"
			  "not supported\n"
			  "^NotImplementedError\n"
			  "unsupported (op|operator) type\r\n"
			  "#not a pattern\n"
			  "opset [0-9]+ is under development");
	extra_path = WRITE(dir, "common.txt", "foo.*bar\n");
	bad_path = WRITE(dir, "bad.txt", "fine\n(unclosed\n");
	nul_path = WRITE(dir, "nul.txt", "a\0b\n");
	empty_path = WRITE(dir, "empty.txt", "");
	missing = xasprintf("%s/missing.txt", dir);

	ok(classify_load(&c, main_path, &e) == 0, "load a pattern file: %s", e.msg);
	is_int((long long)c.n, 4, "four patterns: comments and blank lines skipped");
	ok(c.n == 4 && c.patterns[0].line == 4 && c.patterns[3].line == 8 &&
	   strcmp(c.patterns[0].path, main_path) == 0 &&
	   strcmp(c.patterns[2].text, "unsupported (op|operator) type") == 0,
	   "each pattern keeps its file, line and text (CR stripped)");

	is_int(match_line(&c, "Operator Foo is NOT SUPPORTED yet"), 4, "case-insensitive match anywhere");
	is_int(match_line(&c, "Traceback (most recent call last):\n  File \"x.py\", line 3, in f\n"
			      "NotImplementedError: Conv3d"), 5, "'^' matches at the start of a traceback line");
	is_int(match_line(&c, "RuntimeError: raised NotImplementedError"), 0, "but not in the middle of one");
	is_int(match_line(&c, "Unsupported OP type: Foo"), 6, "a pattern from a CRLF line");
	is_int(match_line(&c, "Opset 99 is under development"), 8, "the last line, without a newline");
	is_int(match_line(&c, "#not a pattern"), 0, "comment lines are not patterns");
	which = NULL;
	ok(!classify_match(&c, "Segmentation fault", &which) && which == NULL,
	   "no match: false, which untouched");
	ok(!classify_match(&c, NULL, NULL), "a NULL message matches nothing");
	ok(classify_match(&c, "not supported", NULL), "which may be NULL");

	ok(classify_load(&c, extra_path, &e) == 0 && c.n == 5, "a second file adds to the first");
	ok(strcmp(c.patterns[4].path, extra_path) == 0 && c.patterns[4].line == 1, "its pattern names its own file");
	is_int(match_line(&c, "foo and bar"), 1, "foo.*bar matches on one line");
	ok(!classify_match(&c, "foo\nbar", NULL), "'.' does not cross a newline");

	ok(classify_load(&c, bad_path, &e) < 0, "a bad regular expression is an error");
	{
		char *want = xasprintf("%s:2: bad regular expression '(unclosed': ", bad_path);

		ok(strncmp(e.msg, want, strlen(want)) == 0 && strlen(e.msg) > strlen(want),
		   "naming file:line and regerror's text: %s", e.msg);
		free(want);
	}
	is_int(e.code, EXIT_INPUT, "with the bad-input exit code");
	is_int((long long)c.n, 5, "and nothing of that file is added (not even its good first line)");
	ok(!classify_match(&c, "fine", NULL), "'fine' was not added");
	err_release(&e);

	ok(classify_load(&c, nul_path, &e) < 0 && strstr(e.msg, ":1: NUL byte"), "a NUL byte: %s", e.msg);
	err_release(&e);
	ok(classify_load(&c, missing, &e) < 0 && strstr(e.msg, "cannot open") && strstr(e.msg, "missing.txt"),
	   "a missing file: %s", e.msg);
	is_int(e.code, EXIT_ENV, "is an environment error");
	err_release(&e);
	ok(classify_load(&c, empty_path, &e) == 0 && c.n == 5, "an empty file adds nothing");

	heap = xmalloc(sizeof(*heap));
	classify_init(heap);
	ok(classify_load(heap, main_path, &e) == 0 && heap->n == 4, "a heap-allocated set");
	classify_free(heap);
	classify_free(NULL);
	classify_release(&c);
	ok(c.n == 0 && c.patterns == NULL && !classify_match(&c, "not supported", NULL),
	   "after release nothing matches");

	unlink(main_path);
	unlink(extra_path);
	unlink(bad_path);
	unlink(nul_path);
	unlink(empty_path);
	rmdir(dir);
	free(main_path);
	free(extra_path);
	free(bad_path);
	free(nul_path);
	free(empty_path);
	free(missing);
	err_release(&e);
	return done();
}
