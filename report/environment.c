/* environment.c: what a store's canary says of a frontend (environment.h). */
#include "environment.h"

#include <stdlib.h>

struct first {
	long long ok;
	struct buf *why;
	int seen;
};

/* The first row read (the newest) decides. */
static int first_row(void *ctx, const struct db_environment *v, struct err *e)
{
	struct first *f = ctx;

	(void)e;
	f->seen = 1;
	f->ok = v->ok;
	if (v->ok == 0)
		buf_addf(f->why, "the canary of %s%s%s gave wrong answers: %s", v->frontend,
			 v->version && *v->version ? " " : "", v->version ? v->version : "",
			 v->detail ? v->detail : "?");
	return 1;
}

int environment_broken(struct db *d, const char *frontend, struct buf *why, struct err *e)
{
	struct first f = { 1, why, 0 };
	char *version = NULL;
	int r;

	if (db_frontend_version(d, frontend, &version, e) < 0)
		return -1;
	r = version ? db_environment(d, frontend, version, NULL, first_row, &f, e) : 0;
	if (r == 0)
		r = db_environment(d, frontend, NULL, NULL, first_row, &f, e);
	free(version);
	if (r < 0)
		return -1;
	return f.seen && f.ok == 0;
}
