/* jsonl.h: reading JSON Lines files (corpora, queues, manifests) so that one bad line never stops the
 * read: each bad line is reported as "FILE:LINE: reason", skipped and counted, and the caller goes on. */
#ifndef FERRY_JSONL_H
#define FERRY_JSONL_H

#include <stdio.h>

#include "err.h"
#include "record.h"

struct cJSON;

struct jsonl_reader {
	FILE *fp;
	char *path;       /* owned; "-" reads standard input */
	size_t lineno;    /* the line last read, from 1 */
	char *line;       /* owned; the text of the line last read */
	size_t cap;
	size_t records;   /* good lines so far */
	size_t bad;       /* lines skipped so far */
};

#define JSONL_READER_INIT { NULL, NULL, 0, NULL, 0, 0, 0 }

enum jsonl_status {
	JSONL_FAIL = -2,  /* the file could not be read: stop */
	JSONL_BAD = -1,   /* this line is bad (e says "FILE:LINE: why"); the next call goes on */
	JSONL_END = 0,
	JSONL_OK = 1,
};

int jsonl_open(struct jsonl_reader *r, const char *path, struct err *e);
void jsonl_close(struct jsonl_reader *r);

/* The next instance record. Blank lines are passed over. */
enum jsonl_status jsonl_next(struct jsonl_reader *r, struct instance *in, struct err *e);
/* The next line as a JSON object (new reference, the caller cJSON_Delete()s it). */
enum jsonl_status jsonl_next_json(struct jsonl_reader *r, struct cJSON **out, struct err *e);
/* The next line of a queue as an id (*id: the caller's to free): a JSON object's "id" (ferry rank's
 * queue, a corpus, a wrapped.jsonl), or a plain id, the line itself (one id per line, as a user
 * writes a sample by hand or with grep). Lines starting with '#' are passed over. */
enum jsonl_status jsonl_next_id(struct jsonl_reader *r, char **id, struct err *e);
/* The same two, passing bad lines over without a word (r->bad counts them): JSONL_OK, JSONL_END,
 * or JSONL_FAIL with e filled. For files that ferry wrote and reads back. */
enum jsonl_status jsonl_good_json(struct jsonl_reader *r, struct cJSON **out, struct err *e);
enum jsonl_status jsonl_good_id(struct jsonl_reader *r, char **id, struct err *e);

#endif
