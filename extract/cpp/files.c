/* files.c: the C++ files under the paths a user gives, and the checkout a file is in (its top, the
 * commit, the version). */
#include <dirent.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "buf.h"
#include "cpp-int.h"
#include "fsutil.h"
#include "xalloc.h"

#ifdef HAVE_LIBCLANG

int cpp_has_suffix(const char *s, const char *suf)
{
	size_t n = strlen(s), m = strlen(suf);

	return n >= m && !strcmp(s + n - m, suf);
}

static int is_cpp(const char *name, int headers)
{
	static const char *const src[] = { ".cc", ".cpp", ".cxx" }, *const hdr[] = { ".h", ".hpp", ".inc" };

	for (size_t i = 0; i < 3; i++)
		if (cpp_has_suffix(name, src[i]) || (headers && cpp_has_suffix(name, hdr[i])))
			return 1;
	return 0;
}

struct flist {
	char **v;
	size_t n, cap;
};

static int walk(struct flist *l, const char *path, int top, int headers, struct err *e)
{
	struct stat st;
	DIR *d;
	struct dirent *de;

	if (stat(path, &st) < 0)
		return err_errno(e, EXIT_INPUT, "cannot read '%s'", path);
	if (!S_ISDIR(st.st_mode)) {
		if (top || is_cpp(path, headers)) {
			XGROW(l->v, l->cap, l->n + 1);
			l->v[l->n++] = xstrdup(path);
		}
		return 0;
	}
	if (!(d = opendir(path)))
		return err_errno(e, EXIT_INPUT, "cannot read '%s'", path);
	while ((de = readdir(d))) {
		char *sub;
		int rc;

		if (de->d_name[0] == '.')
			continue;
		sub = xasprintf("%s/%s", path, de->d_name);
		rc = walk(l, sub, 0, headers, e);
		free(sub);
		if (rc < 0) {
			closedir(d);
			return -1;
		}
	}
	closedir(d);
	return 0;
}

static int str_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

int cpp_files(const char *const *paths, size_t n, int headers, char ***files, size_t *nfiles, struct err *e)
{
	struct flist l = { NULL, 0, 0 };

	for (size_t i = 0; i < n; i++)
		if (walk(&l, paths[i], 1, headers, e) < 0) {
			for (size_t j = 0; j < l.n; j++)
				free(l.v[j]);
			free(l.v);
			return -1;
		}
	if (l.n)
		qsort(l.v, l.n, sizeof(*l.v), str_cmp);
	*files = l.v;
	*nfiles = l.n;
	return 0;
}

/* The first line of a small file, in the arena; NULL when it cannot be read. */
static const char *first_line(struct run *r, const char *path)
{
	struct buf b = BUF_INIT;
	struct err e = ERR_INIT;
	const char *line = NULL;

	if (fs_read(path, &b, &e) == 0 && b.len && b.len < 65536)
		line = cpp_arena_strndup(&r->arena, b.data, strcspn(b.data, "\r\n"));
	buf_release(&b);
	err_release(&e);
	return line;
}

/* The commit a ref names in a git directory: its loose file, else its line in packed-refs. */
static const char *git_ref(struct run *r, const char *gitdir, const char *ref)
{
	char *path = xasprintf("%s/%s", gitdir, ref);
	const char *c = first_line(r, path), *hit = NULL;

	free(path);
	if (!c || strlen(c) < 40) {
		path = xasprintf("%s/packed-refs", gitdir);
		{
			struct buf pk = BUF_INIT;
			struct err e = ERR_INIT;
			size_t len = strlen(ref);

			/* a line "<40 hex> refs/heads/main" */
			if (fs_read(path, &pk, &e) == 0)
				for (const char *q = pk.data; q && (q = strstr(q, ref)); q += len)
					if (q - pk.data >= 41 && q[-1] == ' ' && (q[len] == '\n' || !q[len])) {
						hit = cpp_arena_strndup(&r->arena, q - 41, 40);
						break;
					}
			buf_release(&pk);
			err_release(&e);
		}
		free(path);
		return hit;
	}
	return cpp_arena_strndup(&r->arena, c, 40);
}

/* The checkout a file is in: its top directory (the nearest holding .git: a directory, or in a
 * worktree or a submodule a file "gitdir: PATH"), HEAD's commit read from the git directory's files
 * rather than by running git, and the version its version file (vfile, at the top or above the
 * file) names. */
void cpp_git_of(struct run *r, const char *path, const char *vfile, const char **top, const char **commit,
		const char **version)
{
	char *abs = fs_abspath(path), *p;

	*top = *commit = *version = NULL;
	while ((p = strrchr(abs, '/'))) {
		char *dotgit, *v;
		const char *gitdir = NULL, *head;
		struct stat st;

		*p = 0;
		v = xasprintf("%s/%s", abs, vfile);
		if (!*version && vfile && fs_exists(v))
			*version = first_line(r, v);
		free(v);
		if (*top)
			continue;
		dotgit = xasprintf("%s/.git", abs);
		if (stat(dotgit, &st) == 0 && S_ISDIR(st.st_mode)) {
			gitdir = cpp_arena_strdup(&r->arena, dotgit);
		} else if (stat(dotgit, &st) == 0 && S_ISREG(st.st_mode)) {
			const char *line = first_line(r, dotgit);

			if (line && !strncmp(line, "gitdir: ", 8)) {
				char *g = line[8] == '/' ? xstrdup(line + 8) : xasprintf("%s/%s", abs, line + 8);

				gitdir = cpp_arena_strdup(&r->arena, g);
				free(g);
			}
		}
		free(dotgit);
		if (!gitdir)
			continue;
		*top = cpp_arena_strdup(&r->arena, *abs ? abs : "/");
		{
			char *hp = xasprintf("%s/HEAD", gitdir);

			head = first_line(r, hp);
			free(hp);
		}
		if (head && !strncmp(head, "ref: ", 5)) {
			/* a worktree's branches live in the common git directory its commondir names */
			char *cd = xasprintf("%s/commondir", gitdir);
			const char *common = first_line(r, cd);

			free(cd);
			*commit = git_ref(r, gitdir, head + 5);
			if (!*commit && common) {
				char *c = common[0] == '/' ? xstrdup(common) : xasprintf("%s/%s", gitdir, common);

				*commit = git_ref(r, cpp_arena_strdup(&r->arena, c), head + 5);
				free(c);
			}
		} else if (head && strlen(head) >= 40) {
			*commit = cpp_arena_strndup(&r->arena, head, 40);
		}
	}
	free(abs);
}

#else

int cpp_files(const char *const *paths, size_t n, int headers, char ***files, size_t *nfiles, struct err *e)
{
	(void)paths, (void)n, (void)headers, (void)files, (void)nfiles;
	return err_set(e, EXIT_ENV, "ferry was built without libclang (configure --without-libclang)");
}
#endif
