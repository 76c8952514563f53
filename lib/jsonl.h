/* jsonl.h: reading JSON Lines files (corpora, queues, manifests) so that one bad line never stops the
 * read: each bad line is reported as "FILE:LINE: reason", skipped and counted, and the caller goes on;
 * and appending to the files that ferry writes and reads back, a line whole or not at all. */
#ifndef FERRY_JSONL_H
#define FERRY_JSONL_H

#include <stdio.h>

#include "err.h"
#include "record.h"

struct cJSON;

/* The longest line a reader takes: a longer one is a bad line ("line longer than 64 MiB"), passed
 * over without being held in memory, and the next line goes on. No instance record comes near it;
 * a line that does is a corrupt file or an attack, which would otherwise cost its size in memory
 * several times over and minutes of parsing. */
#define JSONL_MAX_LINE ((size_t)64 << 20)

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

/* Appending to a JSON Lines file that ferry writes and reads back (wrapped.jsonl, vary's variants
 * and their log), one writer at a time (lib/lock.h): each line is one write of the whole line, and
 * one that fails part-way (a full disk) is cut off again, so that the file holds whole lines only.
 * A last line without its newline is what a writer killed in the middle of one left: the next
 * writer cuts it off when it opens the file (or ends it with its newline, when it is whole), so
 * that a line appended later never joins it. */
struct jsonl_writer {
	int fd;
	char *path;       /* owned */
	long long size;   /* the file's length: where the next line starts */
};

#define JSONL_WRITER_INIT { -1, NULL, 0 }

/* How jsonl_append_open treats a symbolic link at path: the user's output file may be one (their
 * choice), a file inside a directory of ferry's own may not (fsutil.h, fs_dir_beneath). */
enum jsonl_link { JSONL_FOLLOW = 0, JSONL_NOFOLLOW = 1 };

/* Open path for appending (created if missing), mending its end as above: *cut (may be NULL) gets
 * the bytes of a torn last line cut off, 0 when there was none. Only for the file's one writer,
 * holding its lock. 0, or -1 with e filled (EXIT_ENV; EXIT_INPUT for a link refused by
 * JSONL_NOFOLLOW, naming it). */
int jsonl_append_open(struct jsonl_writer *w, const char *path, enum jsonl_link link, size_t *cut, struct err *e);
/* Append line (len bytes, no newline) and a newline, whole or not at all. 0, or -1 with e filled
 * (EXIT_ENV; the file is as it was). */
int jsonl_append(struct jsonl_writer *w, const char *line, size_t len, struct err *e);
/* Close; safe on a writer never opened. */
void jsonl_append_close(struct jsonl_writer *w);

#endif
