/* wrapped.h: the layout of a wrap directory, shared by the commands that write and read it:
 *   DIR/wrapped.jsonl           one record per wrapped instance, with its "wrap" annotation
 *   DIR/tests/ab/abcdef.../     one directory per instance (model, inputs, references), named by id */
#ifndef FERRY_WRAPPED_H
#define FERRY_WRAPPED_H

#include <stddef.h>

#include "err.h"
#include "record.h"
#include "strmap.h"

#define WRAPPED_FILE "wrapped.jsonl"

/* A wrapped instance as the run needs it. */
struct wrapped {
	struct instance in;
	char *line;       /* the whole record line, annotation included */
	int valid;
	int random;
	char *reason;     /* why it is invalid, or NULL */
	char *undefined;  /* why its inputs lie in the operator's undefined domain, or NULL */
	int undefined_values; /* the undefined concerns its values alone (a reference that is not
			       * finite): a crash is still a crash */
	char *dir;        /* absolute path of its test directory */
};

/* DIR/tests/<first two hex digits>/<id>. Caller frees. */
char *wrapped_test_dir(const char *dir, const char *id);

/* Add the ids of path's records to set (a missing file adds none). Bad lines are skipped: their
 * instances will be wrapped again. */
int wrapped_done_ids(const char *path, struct strmap *set, struct err *e);

/* Load DIR/wrapped.jsonl into *out (*n entries; the caller frees with wrapped_free). Bad lines are
 * counted in *bad and their messages ("FILE:LINE: why") passed to warn (may be NULL) with ctx. */
int wrapped_load(const char *dir, struct wrapped **out, size_t *n, size_t *bad,
		 void (*warn)(void *ctx, const char *msg), void *ctx, struct err *e);
void wrapped_free(struct wrapped *w, size_t n);

#endif
