/* wrapped.c: reading and naming the contents of a wrap directory. */
#include "wrapped.h"
#include "fsutil.h"
#include "jsonl.h"
#include "xalloc.h"

#include <cjson/cJSON.h>
#include <stdlib.h>
#include <string.h>

char *wrapped_test_dir(const char *dir, const char *id)
{
	return xasprintf("%s/tests/%.2s/%s", dir, id, id);
}

int wrapped_done_ids(const char *path, struct strmap *set, struct err *e)
{
	struct jsonl_reader r;
	cJSON *j;
	enum jsonl_status st;

	if (!fs_exists(path))
		return 0;
	if (jsonl_open(&r, path, e) < 0)
		return -1;
	while ((st = jsonl_good_json(&r, &j, e)) == JSONL_OK) {
		const cJSON *id = cJSON_GetObjectItemCaseSensitive(j, "id");

		if (cJSON_IsString(id) && cJSON_GetObjectItemCaseSensitive(j, "wrap"))
			strmap_get(set, id->valuestring, NULL);
		cJSON_Delete(j);
	}
	jsonl_close(&r);
	return st == JSONL_FAIL ? -1 : 0;
}

int wrapped_load(const char *dir, struct wrapped **out, size_t *n, size_t *bad,
		 void (*warn)(void *ctx, const char *msg), void *ctx, struct err *e)
{
	char *path = xasprintf("%s/%s", dir, WRAPPED_FILE);
	char *absdir = fs_abspath(dir);
	struct jsonl_reader r;
	struct wrapped *v = NULL;
	struct strmap seen = STRMAP_INIT;
	size_t len = 0, cap = 0;
	struct err lineerr = ERR_INIT;
	enum jsonl_status st;
	int ret = -1;

	*bad = 0;
	if (jsonl_open(&r, path, e) < 0) {
		err_prefix(e, "'%s' holds no wrapped models (run ferry wrap first)", dir);
		goto out;
	}
	for (;;) {
		struct instance in;
		const cJSON *wrap, *s, *rs, *rnd;
		struct wrapped *w;
		struct buf line = BUF_INIT;
		int created;

		st = jsonl_next(&r, &in, &lineerr);
		if (st == JSONL_END)
			break;
		if (st == JSONL_FAIL) {
			*e = lineerr;
			goto out;
		}
		if (st == JSONL_BAD) {
			(*bad)++;
			if (warn)
				warn(ctx, lineerr.msg);
			err_release(&lineerr);
			continue;
		}
		wrap = in.extra ? cJSON_GetObjectItemCaseSensitive(in.extra, "wrap") : NULL;
		if (!cJSON_IsObject(wrap)) {
			(*bad)++;
			if (warn) {
				char *m = xasprintf("%s:%zu: the record has no wrap annotation", path, r.lineno);

				warn(ctx, m);
				free(m);
			}
			record_release(&in);
			continue;
		}
		/* A later line for the same instance (a re-wrap) replaces an earlier one. */
		strmap_get(&seen, in.id, &created);
		XGROW(v, cap, len + 1);
		w = &v[len];
		if (!created) {
			for (size_t i = 0; i < len; i++)
				if (!strcmp(v[i].in.id, in.id)) {
					w = &v[i];
					break;
				}
			free(w->line);
			free(w->reason);
			free(w->undefined);
			free(w->dir);
			record_release(&w->in);
		} else {
			len++;
		}
		memset(w, 0, sizeof(*w));
		s = cJSON_GetObjectItemCaseSensitive(wrap, "status");
		rs = cJSON_GetObjectItemCaseSensitive(wrap, "reason");
		rnd = cJSON_GetObjectItemCaseSensitive(wrap, "random");
		w->valid = cJSON_IsString(s) && !strcmp(s->valuestring, "ok");
		w->random = cJSON_IsTrue(rnd);
		w->reason = cJSON_IsString(rs) ? xstrdup(rs->valuestring) : NULL;
		rs = cJSON_GetObjectItemCaseSensitive(wrap, "undefined");
		w->undefined = cJSON_IsString(rs) ? xstrdup(rs->valuestring) : NULL;
		rs = cJSON_GetObjectItemCaseSensitive(wrap, "undefined_values");
		w->undefined_values = w->undefined && cJSON_IsTrue(rs);
		w->dir = wrapped_test_dir(absdir, in.id);
		record_write(&in, &line);
		w->line = buf_detach(&line);
		w->in = in;
	}
	*out = v;
	*n = len;
	v = NULL;
	ret = 0;
out:
	jsonl_close(&r);
	strmap_release(&seen);
	free(v);
	free(path);
	free(absdir);
	return ret;
}

void wrapped_free(struct wrapped *w, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		record_release(&w[i].in);
		free(w[i].line);
		free(w[i].reason);
		free(w[i].undefined);
		free(w[i].dir);
	}
	if (n)
		free(w);
}
