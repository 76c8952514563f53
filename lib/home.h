/* home.h: where ferry's own files are: its Python package, the tolerance files and the operator
 * specs (issue 17). A ferry that runs from its build tree uses the source tree's files, so that an
 * edit needs no make. Anywhere else ferry looks beside its own binary first (/proc/self/exe, then
 * the configured pkgdatadir taken relative to the configured bindir: BIN/../share/ferry), so that a
 * tree installed with "make install prefix=DIR", or staged with DESTDIR and moved into place, finds
 * its own files; then in the pkgdatadir configure was given. FERRY_PYDIR, when set, is the one
 * place of the Python package.
 *
 * Ownership: every returned char * belongs to the caller. */
#ifndef FERRY_HOME_H
#define FERRY_HOME_H

#include <stddef.h>

#include "err.h"

enum home_kind {
	HOME_PYTHON,     /* the directory that holds the package ferry/ (put on sys.path) */
	HOME_TOLERANCES, /* tolerance files, NAME.txt (oracle/tolerances/ in the source tree) */
	HOME_SPECS,      /* operator specs, *.spec (gen/specs/ in the source tree) */
	HOME_COUNTS,     /* compiler-test operator counts, NAME.json (corpora/counts/ in the source tree) */
};

/* The directory holding ferry's Python package (DIR/ferry/__init__.py), or NULL with e (EXIT_ENV)
 * saying where it looked and that FERRY_PYDIR overrides. Caller frees. */
char *home_python_dir(struct err *e);

/* A tolerance file as --tolerances takes it: a file path as given when it exists or names a
 * directory (has a '/'); else a name, NAME or NAME.txt, looked up among the installed (or the
 * build tree's) tolerance files. NULL with e (EXIT_INPUT) naming where it looked. Caller frees. */
char *home_tolerances(const char *arg, struct err *e);

/* The first readable DIR/name among the places of kind, or NULL when there is none: for a file
 * ferry ships and uses when it is there. Caller frees. */
char *home_file(enum home_kind kind, const char *name);

/* The specs' directory: the first place of HOME_SPECS that exists, else the last one looked in (the
 * reader of specs then says it is missing). Caller frees. */
char *home_specs_dir(void);

/* Where ferry keeps what it makes once and reuses (ferry bisect's virtualenvs, in releases/):
 * $FERRY_HOME when set, else $XDG_CACHE_HOME/ferry, else ~/.cache/ferry. Caller frees. */
char *home_cache_dir(void);

#endif
