/* test-jsonl.c: reading a corpus never stops at a bad line; each is named as FILE:LINE, a line
 * beyond JSONL_MAX_LINE too; appending mends a torn last line rather than join it. */
#include <cjson/cJSON.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "fsutil.h"
#include "jsonl.h"
#include "tap.h"

#define NMSG 8

/* A record whose "source" annotation nests levels of arrays. */
static void put_nested(FILE *fp, int levels)
{
	fputs("{\"op\":\"Deep\",\"library\":\"onnx\",\"source\":", fp);
	for (int i = 0; i < levels; i++)
		fputc('[', fp);
	for (int i = 0; i < levels; i++)
		fputc(']', fp);
	fputs("}\n", fp);
}

int main(void)
{
	char path[] = "/tmp/ferry-test-jsonl-XXXXXX";
	int fd = mkstemp(path);
	FILE *fp = fdopen(fd, "w");
	struct jsonl_reader r;
	struct instance in;
	struct err e = ERR_INIT;
	char msgs[NMSG][256] = { "" };
	int good = 0, nbad = 0, st;
	cJSON *j;

	plan(37);
	fputs("{\"op\":\"Relu\",\"library\":\"onnx\"}\n"
	      "\n"
	      "{\"op\":\"Add\",\"library\":\"onnx\",\"params\":{\"axis\":{\"int\":\"x\"}}}\n"
	      "{\"op\":\"Mul\",\"library\":\"onnx\"}\r\n"
	      "not json at all\n"
	      "{\"op\":\"Conv\",\"library\":\"onnx\",\"inputs\":[{\"tensor\":{\"dtype\":\"float32\",\"shape\":[1e19]}}]}\n"
	      "{\"op\":\"Div\",\"library\":\"onnx\",\"op\":\"Mod\"}\n", fp);
	put_nested(fp, 1200);
	fputs("{\"op\":\"A\",\"library\":\"onnx\"}{\"op\":\"B\",\"library\":\"onnx\"}\n"
	      "{\"op\":\"Sub\",\"library\":\"onnx\",\"params\":{\"k\"", fp);
	fclose(fp);

	ok(jsonl_open(&r, path, &e) == 0, "open");
	while ((st = jsonl_next(&r, &in, &e)) != JSONL_END && st != JSONL_FAIL) {
		if (st == JSONL_OK) {
			good++;
			record_release(&in);
		} else if (nbad < NMSG) {
			snprintf(msgs[nbad++], sizeof(msgs[0]), "%s", e.msg + strlen(path));
		}
	}
	is_int(good, 2, "the two good records are read");
	is_int(nbad, 7, "seven bad lines");
	is_int((long long)r.bad, 7, "the reader counts them");
	is(msgs[0], ":3: params.axis: 'x' is not an integer", "a wrong type names line 3 and the member");
	is(msgs[1], ":5: malformed JSON at column 1", "garbage names line 5");
	is(msgs[2], ":6: inputs[0]: shape[0] is 1e+19; a dimension is an integer from 0 to 2^53 or null (unknown)",
	   "a dimension beyond int64 names line 6");
	is(msgs[3], ":7: member 'op' appears twice", "a duplicated member names line 7");
	is(msgs[4], ":8: JSON nested too deep at column 139 (more than 100 levels)", "1200 levels name line 8 as too deep");
	is(msgs[5], ":9: malformed JSON at column 28 (text after the value)", "two records on line 9");
	is(msgs[6], ":10: truncated JSON (the line ends inside a value)", "a truncated last line names line 10");
	is_int(e.code, EXIT_INPUT, "bad lines are bad input");
	jsonl_close(&r);

	/* jsonl_next_json, the reader of queues and manifests, says the same. */
	fp = fopen(path, "w");
	put_nested(fp, 100);
	fputs("{\"a\":1} x\n[1]\n{\"a\":1}\n", fp);
	fclose(fp);
	ok(jsonl_open(&r, path, &e) == 0, "open again");
	is_int(jsonl_next_json(&r, &j, &e), JSONL_BAD, "101 levels are one too many");
	is(e.msg + strlen(path), ":1: JSON nested too deep at column 139 (more than 100 levels)", "and say so");
	is_int(jsonl_next_json(&r, &j, &e), JSONL_BAD, "text after the object");
	is_int(jsonl_next_json(&r, &j, &e), JSONL_BAD, "an array is not an object");
	st = jsonl_next_json(&r, &j, &e);
	is_int(st, JSONL_OK, "an object reads");
	cJSON_Delete(j);
	jsonl_close(&r);

	ok(jsonl_open(&r, "/nonexistent/corpus.jsonl", &e) < 0 &&
	   strcmp(e.msg, "cannot open '/nonexistent/corpus.jsonl': No such file or directory") == 0,
	   "a missing file names itself and the reason");
	is_int(e.code, EXIT_INPUT, "a missing input file is bad input");

	/* A line one byte beyond the limit is a bad line, and the next one reads. */
	fp = fopen(path, "w");
	fputs("{\"op\":\"Relu\",\"library\":\"onnx\",\"source\":{\"test\":\"", fp);
	for (size_t i = 0; i < JSONL_MAX_LINE; i++)
		putc(' ', fp);
	fputs("\"}}\n{\"op\":\"Abs\",\"library\":\"onnx\"}\n", fp);
	fclose(fp);
	ok(jsonl_open(&r, path, &e) == 0, "open a file with a line too long");
	is_int(jsonl_next(&r, &in, &e), JSONL_BAD, "a line longer than the limit is a bad line");
	is(e.msg + strlen(path), ":1: line longer than 64 MiB", "... named by file and line");
	ok(r.cap <= JSONL_MAX_LINE + 1, "... and not held whole");
	st = jsonl_next(&r, &in, &e);
	is_int(st, JSONL_OK, "the next line reads");
	if (st == JSONL_OK) {
		is(in.op, "Abs", "... as itself, line %zu", r.lineno);
		record_release(&in);
	} else {
		ok(0, "... as itself");
	}
	jsonl_close(&r);
	err_release(&e);

	/* Appending: a torn last line is cut off, never joined to the next. */
	{
		struct jsonl_writer w = JSONL_WRITER_INIT;
		struct buf text = BUF_INIT;
		size_t cut = 0;

		fp = fopen(path, "w");
		fputs("{\"a\":1}\n{\"a\":2,\"b\":[1,", fp);
		fclose(fp);
		ok(jsonl_append_open(&w, path, JSONL_FOLLOW, &cut, &e) == 0, "open a file with a torn last line to append");
		is_int((long long)cut, (long long)strlen("{\"a\":2,\"b\":[1,"), "the torn line's bytes are cut");
		ok(jsonl_append(&w, "{\"a\":3}", 7, &e) == 0, "append a line");
		jsonl_append_close(&w);
		fs_read(path, &text, &e);
		is(text.data, "{\"a\":1}\n{\"a\":3}\n", "whole lines only, the new one on a line of its own");

		/* A whole last line that lacks only its newline is ended, not cut. */
		fp = fopen(path, "w");
		fputs("{\"a\":1}\n{\"a\":2}", fp);
		fclose(fp);
		ok(jsonl_append_open(&w, path, JSONL_FOLLOW, &cut, &e) == 0 && cut == 0, "a whole unended last line is not cut");
		jsonl_append(&w, "{\"a\":3}", 7, &e);
		jsonl_append_close(&w);
		buf_reset(&text);
		fs_read(path, &text, &e);
		is(text.data, "{\"a\":1}\n{\"a\":2}\n{\"a\":3}\n", "... but ended");

		/* A file of one torn line is emptied. */
		fp = fopen(path, "w");
		fputs("{\"a\":", fp);
		fclose(fp);
		st = jsonl_append_open(&w, path, JSONL_FOLLOW, &cut, &e);
		ok(st == 0 && cut == 5 && w.size == 0, "a file of one torn line is emptied (%zu bytes cut)", cut);
		jsonl_append_close(&w);

		/* A write that fails part-way, here at a file size limit as it would on a full disk,
		 * leaves the file as it was: whole lines. */
		{
			struct rlimit old, lim;

			fp = fopen(path, "w");
			fputs("{\"a\":1}\n", fp);
			fclose(fp);
			jsonl_append_open(&w, path, JSONL_FOLLOW, &cut, &e);
			signal(SIGXFSZ, SIG_IGN);
			getrlimit(RLIMIT_FSIZE, &old);
			lim = old;
			lim.rlim_cur = 12;
			setrlimit(RLIMIT_FSIZE, &lim);
			st = jsonl_append(&w, "{\"b\":22222}", 11, &e);
			setrlimit(RLIMIT_FSIZE, &old);
			ok(st < 0 && strstr(e.msg, "File too large"), "a write cut short fails: %s", e.msg);
			err_release(&e);
			buf_reset(&text);
			fs_read(path, &text, &e);
			is(text.data, "{\"a\":1}\n", "... and what it wrote is taken back");
			ok(jsonl_append(&w, "{\"c\":3}", 7, &e) == 0, "the next line goes on");
			jsonl_append_close(&w);
			buf_reset(&text);
			fs_read(path, &text, &e);
			is(text.data, "{\"a\":1}\n{\"c\":3}\n", "... after the whole lines");
		}
		buf_release(&text);
	}
	unlink(path);
	return done();
}
