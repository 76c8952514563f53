/* locations.c: which of the user's adapters a store was run with (see locations.h). */
#include "locations.h"
#include "buf.h"
#include "fsutil.h"
#include "py.h"
#include "xalloc.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <xxhash.h>

/* "xxh3:HEX" of a file's bytes, or NULL where it cannot be read. Caller frees. */
static char *file_hash(const char *path)
{
	struct buf b = BUF_INIT;
	struct err e = ERR_INIT;
	char *h = NULL;

	if (fs_read(path, &b, &e) == 0) {
		XXH128_hash_t x = XXH3_128bits(b.data, b.len);

		h = xasprintf("xxh3:%016llx%016llx", (unsigned long long)x.high64, (unsigned long long)x.low64);
	}
	buf_release(&b);
	err_release(&e);
	return h;
}

/* unsupported/NAME.txt beside the adapter file at path. Caller frees. */
static char *patterns_beside(const char *path, const char *frontend)
{
	const char *slash = strrchr(path, '/');

	return xasprintf("%.*sunsupported/%s.txt", slash ? (int)(slash - path + 1) : 0, path, frontend);
}

/* What the store keeps of the adapter file at path: its hash, and its patterns' where it has some. */
static char *record_of(const char *path, const char *frontend)
{
	char *patterns = patterns_beside(path, frontend);
	char *h = file_hash(path), *p = fs_exists(patterns) ? file_hash(patterns) : NULL;
	char *r = h && p ? xasprintf("%s unsupported %s", h, p) : h ? xstrdup(h) : NULL;

	free(patterns);
	free(h);
	free(p);
	return r;
}

int locations_record(struct db *d, const struct frontend *fes, size_t n, struct err *e)
{
	for (size_t i = 0; i < n; i++) {
		const char *args[1] = { fes[i].name };
		char *path = py_call_strings("ferry.oracle.registry", "user_adapter_location", args, 1,
					     "cannot say where an adapter is", e);
		char *rec = path && *path ? record_of(path, fes[i].name) : NULL;
		int r = path ? 0 : -1;

		if (path && *path && !rec)
			r = err_errno(e, EXIT_ENV, "cannot read the adapter '%s'", path);
		else if (rec)
			r = db_set_adapter(d, fes[i].name, rec, e);
		free(rec);
		free(path);
		if (r < 0)
			return -1;
	}
	return 0;
}

/* The adapter_NAME.py of the first directory of FERRY_ADAPTERS that holds one (as
 * registry.user_adapter_path finds it), or NULL. Caller frees. */
static char *held(const char *frontend)
{
	const char *p = getenv("FERRY_ADAPTERS");

	while (p && *p) {
		size_t n = strcspn(p, ":");
		char *path = n ? xasprintf("%.*s/adapter_%s.py", (int)n, p, frontend) : NULL;

		if (path && fs_exists(path) && !fs_is_dir(path))
			return path;
		free(path);
		p += n + (p[n] == ':');
	}
	return NULL;
}

/* Whether a name is one ferry could have run (registry.valid_name): the rest is not looked at. */
static int valid_name(const char *frontend)
{
	static const char name_chars[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-";
	size_t n = strlen(frontend);

	return n && strspn(frontend, name_chars) == n && frontend[0] != '-' && frontend[0] != '_';
}

struct check {
	const char *store;
	void (*warn)(void *ctx, const char *line);
	void *ctx;
	struct buf unheld;  /* LOCATIONS_UNHELD's value */
};

/* The word after key in a record ("xxh3:HEX unsupported xxh3:HEX"), or NULL. Caller frees. */
static char *field(const char *rec, const char *key)
{
	const char *p = key ? strstr(rec, key) : rec;
	size_t n;

	if (!p)
		return NULL;
	if (key)
		p += strlen(key);
	n = strcspn(p, " ");
	return !strncmp(p, "xxh3:", 5) && n > 5 ? xstrndup(p, n) : NULL;
}

static int check_one(void *ctx, const char *frontend, const char *rec, struct err *e)
{
	struct check *c = ctx;
	char *path, *line = NULL, *want = NULL, *want_p = NULL, *got = NULL, *got_p = NULL, *patterns = NULL;

	(void)e;
	if (!valid_name(frontend))
		return 0;
	if (!(path = held(frontend))) {
		/* An older ferry kept where the adapter was: shown as it is, never loaded. */
		int old = rec[0] == '/';

		line = xasprintf("'%s' was run with a user's adapter of '%s'%s%s%s, which FERRY_ADAPTERS does not "
				 "hold (ferry loads no adapter a store names): set FERRY_ADAPTERS to the directory "
				 "that holds adapter_%s.py to use it", c->store, frontend, old ? " (then at '" : "",
				 old ? rec : "", old ? "')" : "", frontend);
		buf_addf(&c->unheld, "%s%s", c->unheld.len ? ":" : "", frontend);
		goto out;
	}
	if (!(want = field(rec, NULL)))
		goto out;  /* an older ferry's record: no hash to hold it against */
	got = file_hash(path);
	if (!got || strcmp(got, want)) {
		line = xasprintf("the adapter '%s' is not the one '%s' was run with: its source differs (%s, the "
				 "store's %s)", path, c->store, got ? got : "unreadable", want);
		goto out;
	}
	want_p = field(rec, " unsupported ");
	patterns = patterns_beside(path, frontend);
	got_p = fs_exists(patterns) ? file_hash(patterns) : NULL;
	if ((want_p || got_p) && (!want_p || !got_p || strcmp(want_p, got_p)))
		line = xasprintf("the unsupported patterns of '%s' are not those '%s' was run with: '%s' %s", frontend,
				 c->store, patterns, !got_p ? "is not there" : !want_p ? "is new" : "differs");
out:
	if (line)
		c->warn(c->ctx, line);
	free(line);
	free(path);
	free(want);
	free(want_p);
	free(got);
	free(got_p);
	free(patterns);
	return 0;
}

int locations_check(struct db *d, const char *store, void (*warn)(void *ctx, const char *line), void *ctx,
		    struct err *e)
{
	struct check c = { store, warn, ctx, BUF_INIT };
	int ret = -1;

	if (db_adapters(d, check_one, &c, e) < 0)
		goto out;
	ret = 0;
	if (!c.unheld.len)
		goto out;
	/* The interpreter keeps its own copy of the environment (os.environ), read when it started. */
	if (setenv(LOCATIONS_UNHELD, c.unheld.data, 1) < 0)
		ret = err_errno(e, EXIT_ENV, "cannot set " LOCATIONS_UNHELD);
	else if (py_started())
		ret = py_setenv(LOCATIONS_UNHELD, c.unheld.data, e);
out:
	buf_release(&c.unheld);
	return ret;
}
