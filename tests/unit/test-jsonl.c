/* test-jsonl.c: reading a corpus never stops at a bad line; each is named as FILE:LINE. */
#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "jsonl.h"
#include "tap.h"

int main(void)
{
	char path[] = "/tmp/ferry-test-jsonl-XXXXXX";
	int fd = mkstemp(path);
	FILE *fp = fdopen(fd, "w");
	struct jsonl_reader r;
	struct instance in;
	struct err e = ERR_INIT;
	char msgs[4][256] = { "", "", "", "" };
	int good = 0, nbad = 0, st;

	plan(10);
	fputs("{\"op\":\"Relu\",\"library\":\"onnx\"}\n"
	      "\n"
	      "{\"op\":\"Add\",\"library\":\"onnx\",\"params\":{\"axis\":{\"int\":\"x\"}}}\n"
	      "{\"op\":\"Mul\",\"library\":\"onnx\"}\r\n"
	      "not json at all\n"
	      "{\"op\":\"Sub\",\"library\":\"onnx\",\"params\":{\"k\"", fp);
	fclose(fp);

	ok(jsonl_open(&r, path, &e) == 0, "open");
	while ((st = jsonl_next(&r, &in, &e)) != JSONL_END && st != JSONL_FAIL) {
		if (st == JSONL_OK) {
			good++;
			record_release(&in);
		} else if (nbad < 4) {
			snprintf(msgs[nbad++], sizeof(msgs[0]), "%s", e.msg + strlen(path));
		}
	}
	is_int(good, 2, "the two good records are read");
	is_int(nbad, 3, "three bad lines");
	is_int((long long)r.bad, 3, "the reader counts them");
	is(msgs[0], ":3: params.axis: 'x' is not an integer", "a wrong type names line 3 and the member");
	is(msgs[1], ":5: malformed JSON at column 1", "garbage names line 5");
	is(msgs[2], ":6: truncated JSON (the line ends inside a value)", "a truncated last line names line 6");
	is_int(e.code, EXIT_INPUT, "bad lines are bad input");
	jsonl_close(&r);

	ok(jsonl_open(&r, "/nonexistent/corpus.jsonl", &e) < 0 &&
	   strcmp(e.msg, "cannot open '/nonexistent/corpus.jsonl': No such file or directory") == 0,
	   "a missing file names itself and the reason");
	is_int(e.code, EXIT_INPUT, "a missing input file is bad input");
	unlink(path);
	return done();
}
