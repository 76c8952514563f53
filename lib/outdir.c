/* outdir.c: an output option's directory, claimed and cleared by its marker (outdir.h). */
#include "outdir.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "buf.h"
#include "esc.h"
#include "fsutil.h"
#include "xalloc.h"

/* What a directory holds, each entry "f PATH" or "d PATH" (PATH relative to it), a directory before
 * what is in it. */
struct listing {
	char **v;
	size_t n, cap;
};

static void listing_release(struct listing *l)
{
	for (size_t i = 0; i < l->n; i++)
		free(l->v[i]);
	free(l->v);
	memset(l, 0, sizeof(*l));
}

/* Links are listed as files and never followed: whatever a link points to is not in dir. */
static void walk(const char *root, const char *rel, struct listing *l)
{
	char *path = *rel ? xasprintf("%s/%s", root, rel) : xstrdup(root);
	DIR *d = opendir(path);
	struct dirent *de;

	while (d && (de = readdir(d))) {
		char *sub, *full;
		struct stat st;

		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, "..") || strchr(de->d_name, '\n') ||
		    (!*rel && !strcmp(de->d_name, OUTDIR_MARKER)))
			continue;
		sub = *rel ? xasprintf("%s/%s", rel, de->d_name) : xstrdup(de->d_name);
		full = xasprintf("%s/%s", root, sub);
		if (lstat(full, &st) == 0) {
			int isdir = S_ISDIR(st.st_mode);

			XGROW(l->v, l->cap, l->n + 1);
			l->v[l->n++] = xasprintf("%c %s", isdir ? 'd' : 'f', sub);
			if (isdir)
				walk(root, sub, l);
		}
		free(full);
		free(sub);
	}
	if (d)
		closedir(d);
	free(path);
}

static char *store_id(const char *store)
{
	char real[PATH_MAX];

	return realpath(store, real) ? xstrdup(real) : fs_abspath(store);
}

int outdir_same(const char *a, const char *b)
{
	char *x = store_id(a), *y = store_id(b);
	int same = !strcmp(x, y);

	free(x);
	free(y);
	return same;
}

/* The marker's store, and its entries into listed; NULL store when there is no marker. */
static int read_marker(const char *marker, char **store, struct strmap *listed, struct err *e)
{
	struct buf text = BUF_INIT;
	char *line, *next;

	*store = NULL;
	if (!fs_exists(marker))
		return 0;
	if (fs_read(marker, &text, e) < 0)
		return -1;
	for (line = text.data; line && *line; line = next) {
		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		if (!strncmp(line, "store ", 6) && !*store)
			*store = xstrdup(line + 6);
		else if ((line[0] == 'f' || line[0] == 'd') && line[1] == ' ')
			strmap_get(listed, line, NULL);
	}
	buf_release(&text);
	if (!*store)
		*store = xstrdup("");
	return 0;
}

/* Remove what the marker lists, deepest first; a directory only when nothing else is left in it
 * (what the user put there since stays, and so does the directory holding it). */
static int clear_listed(const char *dir, const struct strmap *listed, struct err *e)
{
	struct listing l = { NULL, 0, 0 };
	int r = 0;

	walk(dir, "", &l);
	for (size_t i = l.n; i-- > 0 && !r;) {
		char *path;

		if (!strmap_find(listed, l.v[i]))
			continue;
		path = xasprintf("%s/%s", dir, l.v[i] + 2);
		if (l.v[i][0] == 'f' && unlink(path) < 0 && errno != ENOENT)
			r = err_errno(e, EXIT_ENV, "cannot remove '%s'", path);
		else if (l.v[i][0] == 'd' && rmdir(path) < 0 && errno != ENOENT && errno != ENOTEMPTY &&
			 errno != EEXIST)
			r = err_errno(e, EXIT_ENV, "cannot remove '%s'", path);
		free(path);
	}
	listing_release(&l);
	return r;
}

int outdir_open(struct outdir *o, const char *dir, const char *store, int adopt, struct err *e)
{
	char *marker = xasprintf("%s/%s", dir, OUTDIR_MARKER), *theirs = NULL;
	struct strmap listed = STRMAP_INIT;
	struct listing l = { NULL, 0, 0 };
	int r = -1;

	memset(o, 0, sizeof(*o));
	o->dir = xstrdup(dir);
	o->store = store_id(store);
	if (fs_exists(dir) && !fs_is_dir(dir)) {
		err_set(e, EXIT_INPUT, "cannot write into '%s': not a directory", dir);
		goto out;
	}
	if (fs_exists(dir) && read_marker(marker, &theirs, &listed, e) < 0)
		goto out;
	/* Adopted, a directory marked for another store (a project moved or copied) is ferry's too. */
	if (theirs && strcmp(theirs, o->store) && adopt) {
		free(theirs);
		theirs = NULL;
	}
	if (theirs && strcmp(theirs, o->store)) {
		err_set(e, EXIT_INPUT, "'%s' holds what ferry wrote for another store ('%s', says %s): name a new or "
			"empty directory, or remove '%s' first", dir, esc_str(theirs), marker, dir);
		goto out;
	}
	if (!theirs && fs_exists(dir)) {
		int failed = 0;

		walk(dir, "", &l);
		for (size_t i = 0; adopt && i < l.n && !failed; i++) {
			char *path = xasprintf("%s/%s", dir, l.v[i] + 2);

			/* The top level only: fs_remove_tree takes what is under it. */
			failed = !strchr(l.v[i] + 2, '/') && fs_remove_tree(path, e) < 0;
			free(path);
		}
		if (failed)
			goto out;
		if (!adopt && l.n) {
			err_set(e, EXIT_INPUT, "'%s' holds files that ferry did not write (it has no %s): name a new "
				"or empty directory for the output, or empty '%s' first", dir, OUTDIR_MARKER, dir);
			goto out;
		}
		listing_release(&l);
	}
	if (fs_mkdirs(dir, e) < 0 || (theirs && clear_listed(dir, &listed, e) < 0))
		goto out;
	walk(dir, "", &l);
	/* What the clear left of ferry's (a directory the user put a file in) stays listed as ferry's. */
	for (size_t i = 0; i < l.n; i++)
		if (!strmap_find(&listed, l.v[i]))
			strmap_get(&o->before, l.v[i], NULL);
	o->open = 1;
	r = 0;
out:
	listing_release(&l);
	strmap_release(&listed);
	free(theirs);
	free(marker);
	return r;
}

int outdir_commit(struct outdir *o, struct err *e)
{
	char *marker;
	struct buf text = BUF_INIT;
	struct listing l = { NULL, 0, 0 };
	int r;

	if (!o->open)
		return 0;
	marker = xasprintf("%s/%s", o->dir, OUTDIR_MARKER);
	buf_addf(&text, "# ferry wrote the files below for the store below, and removes them before it writes\n"
		 "# there again; it writes into this directory for no other store\nstore %s\n", o->store);
	walk(o->dir, "", &l);
	for (size_t i = 0; i < l.n; i++)
		if (!strmap_find(&o->before, l.v[i]))
			buf_addf(&text, "%s\n", l.v[i]);
	r = fs_write_atomic(marker, text.data, text.len, e);
	listing_release(&l);
	buf_release(&text);
	free(marker);
	return r;
}

int outdir_finish(struct outdir *o, int ret, struct err *e)
{
	struct err mine = ERR_INIT;

	if (outdir_commit(o, ret < 0 ? &mine : e) < 0)
		ret = -1;
	err_release(&mine);
	outdir_release(o);
	return ret;
}

void outdir_release(struct outdir *o)
{
	free(o->dir);
	free(o->store);
	strmap_release(&o->before);
	memset(o, 0, sizeof(*o));
}
