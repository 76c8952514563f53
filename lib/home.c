/* home.c: where ferry's own files are (see home.h). */
#include "config.h"

#include "home.h"
#include "buf.h"
#include "fsutil.h"
#include "xalloc.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The configured directories come from config.h, not from the compiler's command line: configure
 * rewrites config.h only when they change, and make then rebuilds this file (automake's dependency
 * tracking), where a -D that changed in the Makefile would leave the old object in place. */

static const struct {
	const char *build;     /* in the build tree: a path under the source or build tree */
	const char *installed; /* under pkgdatadir */
	const char *env;       /* an environment variable that, set, is the one place; or NULL */
} kinds[] = {
	[HOME_PYTHON] = { ABS_TOP_BUILDDIR "/python", "python", "FERRY_PYDIR" },
	[HOME_TOLERANCES] = { ABS_TOP_SRCDIR "/oracle/tolerances", "tolerances", NULL },
	[HOME_SPECS] = { ABS_TOP_SRCDIR "/gen/specs", "specs", NULL },
	[HOME_COUNTS] = { ABS_TOP_SRCDIR "/corpora/counts", "counts", NULL },
};

/* The path of to relative to from, both absolute and taken as written (no symbolic link is
 * resolved: configure's values are what make install used). Caller frees. */
static char *relative(const char *from, const char *to)
{
	struct buf out = BUF_INIT;
	const char *f = from, *t = to;

	/* Skip the components the two share. */
	for (;;) {
		size_t fn, tn;

		f += strspn(f, "/");
		t += strspn(t, "/");
		fn = strcspn(f, "/");
		tn = strcspn(t, "/");
		if (!fn || fn != tn || strncmp(f, t, fn))
			break;
		f += fn;
		t += tn;
	}
	/* Up once per component left in from, then down what is left of to. */
	while (*f) {
		size_t fn = strcspn(f, "/");

		if (fn && !(fn == 1 && *f == '.'))
			buf_adds(&out, out.len ? "/.." : "..");
		f += fn;
		f += strspn(f, "/");
	}
	if (*t)
		buf_addf(&out, "%s%s", out.len ? "/" : "", t);
	if (!out.len)
		buf_adds(&out, ".");
	return buf_detach(&out);
}

#define HOME_MAX 3

/* The directories of a kind, in the order they are searched, each with why it is one (for
 * messages: "FERRY_PYDIR", "ferry runs from its build tree", "beside the binary /x/bin/ferry"). */
struct home_places {
	size_t n;
	char *dir[HOME_MAX];
	char *why[HOME_MAX];
};

static void add_place(struct home_places *p, char *dir, char *why)
{
	for (size_t i = 0; i < p->n; i++)
		if (!strcmp(p->dir[i], dir)) {
			free(dir);
			free(why);
			return;
		}
	p->dir[p->n] = dir;
	p->why[p->n] = why;
	p->n++;
}

static void places(enum home_kind kind, struct home_places *p)
{
	const char *env = kinds[kind].env ? getenv(kinds[kind].env) : NULL;
	char *exe, *bindir, *slash;

	p->n = 0;
	if (env && *env) {
		add_place(p, xstrdup(env), xstrdup(kinds[kind].env));
		return;
	}
	exe = fs_self_exe();
	bindir = xstrdup(exe);
	slash = strrchr(bindir, '/');
	if (slash)
		*slash = '\0';
	/* Unit and CLI tests run the binaries where make left them: the build tree's files, so that a
	 * change to the sources needs no make install. */
	if (!strcmp(bindir, ABS_TOP_BUILDDIR) || !strcmp(bindir, ABS_TOP_BUILDDIR "/tests/unit")) {
		add_place(p, xstrdup(kinds[kind].build), xasprintf("ferry runs from its build tree"));
	} else {
		if (slash) {
			char *rel = relative(FERRY_BINDIR, FERRY_PKGDATADIR), *r = rel;

			/* /opt/ferry/bin and ../share/ferry: /opt/ferry/share/ferry, as messages say it. */
			while (!strncmp(r, "../", 3) && (slash = strrchr(bindir, '/'))) {
				*slash = '\0';
				r += 3;
			}
			add_place(p, xasprintf("%s/%s/%s", bindir, r, kinds[kind].installed),
				  xasprintf("beside the binary %s", exe));
			free(rel);
		}
		add_place(p, xasprintf("%s/%s", FERRY_PKGDATADIR, kinds[kind].installed),
			  xstrdup("the configured pkgdatadir"));
	}
	free(bindir);
	free(exe);
}

static void places_release(struct home_places *p)
{
	for (size_t i = 0; i < p->n; i++) {
		free(p->dir[i]);
		free(p->why[i]);
	}
	p->n = 0;
}

/* The path of the first place of kind that holds the file what (a path relative to it), or NULL
 * with where listing every path looked at, for a message: "'PATH' (WHY), ...". */
static char *find(enum home_kind kind, const char *what, struct buf *where)
{
	struct home_places p;
	char *found = NULL;

	places(kind, &p);
	for (size_t i = 0; i < p.n && !found; i++) {
		char *path = xasprintf("%s/%s", p.dir[i], what);

		if (access(path, R_OK) == 0)
			found = path;
		else
			free(path);
		buf_addf(where, "%s'%s/%s' (%s)", i ? ", " : "", p.dir[i], what, p.why[i]);
	}
	places_release(&p);
	return found;
}

char *home_python_dir(struct err *e)
{
	static const char marker[] = "/ferry/__init__.py";
	struct buf where = BUF_INIT;
	char *found = find(HOME_PYTHON, marker + 1, &where);

	/* The message is the whole story: the package, every path tried, and the two ways out. */
	if (found)
		found[strlen(found) - strlen(marker)] = '\0';
	else
		err_set(e, EXIT_ENV, "cannot find ferry's Python package: looked in %s; set FERRY_PYDIR to the "
			"directory that holds ferry/, or install ferry (make install)", where.data);
	buf_release(&where);
	return found;
}

char *home_tolerances(const char *arg, struct err *e)
{
	struct buf where = BUF_INIT;
	size_t n = strlen(arg);
	char *name = NULL, *path = NULL;

	/* A path as given: it has a slash, or the file is there (a file in the current directory named
	 * like one of ferry's is the user's, as it always was). */
	if (strchr(arg, '/') || fs_exists(arg)) {
		path = xstrdup(arg);
		goto out;
	}
	if (!n || arg[0] == '.') {
		err_set(e, EXIT_INPUT, "cannot open '%s': No such file or directory", arg);
		goto out;
	}
	name = n > 4 && !strcmp(arg + n - 4, ".txt") ? xstrdup(arg) : xasprintf("%s.txt", arg);
	if (!(path = find(HOME_TOLERANCES, name, &where)))
		err_set(e, EXIT_INPUT, "no tolerance file '%s': no such file, and none of ferry's by that name "
			"(looked in %s)", arg, where.data);
out:
	buf_release(&where);
	free(name);
	return path;
}

char *home_file(enum home_kind kind, const char *name)
{
	struct buf where = BUF_INIT;
	char *path = find(kind, name, &where);

	buf_release(&where);
	return path;
}

char *home_specs_dir(void)
{
	struct home_places p;
	char *dir = NULL;

	places(HOME_SPECS, &p);
	for (size_t i = 0; i < p.n && !dir; i++)
		if (fs_is_dir(p.dir[i]))
			dir = xstrdup(p.dir[i]);
	if (!dir && p.n)
		dir = xstrdup(p.dir[p.n - 1]);
	places_release(&p);
	return dir;
}

char *home_cache_dir(void)
{
	const char *home = getenv("FERRY_HOME"), *xdg = getenv("XDG_CACHE_HOME"), *user = getenv("HOME");

	if (home && *home)
		return xstrdup(home);
	if (xdg && *xdg)
		return xasprintf("%s/ferry", xdg);
	return xasprintf("%s/.cache/ferry", user && *user ? user : "/tmp");
}
