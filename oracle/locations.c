/* locations.c: where the user's adapters that a store was run with are (see locations.h). */
#include "locations.h"
#include "buf.h"
#include "py.h"
#include "xalloc.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int locations_record(struct db *d, const struct frontend *fes, size_t n, struct err *e)
{
	for (size_t i = 0; i < n; i++) {
		const char *args[1] = { fes[i].name };
		char *path = py_call_strings("ferry.oracle.registry", "user_adapter_location", args, 1,
					     "cannot say where an adapter is", e);
		int r = path ? 0 : -1;

		if (path && *path)
			r = db_set_adapter(d, fes[i].name, path, e);
		free(path);
		if (r < 0)
			return -1;
	}
	return 0;
}

struct restore {
	const char *user;  /* FERRY_ADAPTERS as the user set it, or NULL */
	struct buf added;  /* the directories to add, ':'-separated */
};

/* Whether a directory of the ':'-separated list holds adapter_NAME.py (registry.user_adapter_path). */
static int holds(const char *list, const char *frontend)
{
	const char *p = list;
	int found = 0;

	while (p && *p && !found) {
		size_t n = strcspn(p, ":");
		char *path = xasprintf("%.*s/adapter_%s.py", (int)n, p, frontend);

		found = n && access(path, F_OK) == 0;
		free(path);
		p += n + (p[n] == ':');
	}
	return found;
}

/* Whether a record is one that run could have written: a name ferry could have run
 * (registry.valid_name) and the absolute path of its adapter_NAME.py. A store is data. */
static int well_formed(const char *frontend, const char *path)
{
	static const char name_chars[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-";
	size_t n = strlen(frontend);
	const char *slash;

	if (!n || strspn(frontend, name_chars) != n || frontend[0] == '-' || frontend[0] == '_')
		return 0;
	if (path[0] != '/' || strchr(path, ':'))
		return 0;
	slash = strrchr(path, '/');
	return !strncmp(slash + 1, "adapter_", 8) && !strncmp(slash + 9, frontend, n) && !strcmp(slash + 9 + n, ".py");
}

static int restore_one(void *ctx, const char *frontend, const char *path, struct err *e)
{
	struct restore *r = ctx;
	const char *slash = strrchr(path, '/');
	char *dir;

	(void)e;
	if (!well_formed(frontend, path))
		return 0;
	/* The user's FERRY_ADAPTERS comes first, and one directory is enough. */
	if ((r->user && holds(r->user, frontend)) || holds(r->added.data, frontend))
		return 0;
	dir = slash == path ? xstrdup("/") : xstrndup(path, (size_t)(slash - path));
	buf_addf(&r->added, "%s%s", r->added.len ? ":" : "", dir);
	free(dir);
	return 0;
}

int locations_restore(struct db *d, struct err *e)
{
	struct restore r = { getenv("FERRY_ADAPTERS"), BUF_INIT };
	char *value = NULL;
	int ret = -1;

	if (db_adapters(d, restore_one, &r, e) < 0)
		goto out;
	ret = 0;
	if (!r.added.len)
		goto out;
	value = r.user && *r.user ? xasprintf("%s:%s", r.user, r.added.data) : xstrdup(r.added.data);
	/* The interpreter keeps its own copy of the environment (os.environ), read when it started. */
	if (setenv("FERRY_ADAPTERS", value, 1) < 0)
		ret = err_errno(e, EXIT_ENV, "cannot set FERRY_ADAPTERS");
	else if (py_started())
		ret = py_setenv("FERRY_ADAPTERS", value, e);
out:
	free(value);
	buf_release(&r.added);
	return ret;
}
