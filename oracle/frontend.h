/* frontend.h: a frontend as a session runs it: its adapter, the library whose models it takes, the
 * interpreter its workers run under (NAME@PYTHON) and its label in the store, parsed from the command
 * line; and the command of its workers. Apart from session.h so that what needs only a frontend
 * (oracle/locations.c) does not include the session. Implemented in oracle/session/frontend.c.
 * Ownership: a struct frontend owns its strings (frontend_release). */
#ifndef FERRY_FRONTEND_H
#define FERRY_FRONTEND_H

#include "err.h"
#include "runner.h"

struct frontend {
	char *name;      /* the adapter's NAME: its module, patterns file, tolerances */
	char *library;   /* the source library whose models it takes */
	char *python;    /* NAME@PYTHON: the interpreter its workers run under; NULL: ferry's own */
	char *label;     /* its key in the store and in everything printed: NAME, or NAME@VERSION for
			  * NAME@PYTHON (session_frontend_label) */
	char *why;       /* NAME@PYTHON whose worker could not start: why (it is reported unavailable,
			  * under the label NAME@PYTHON, and not started again) */
	int batch;       /* its adapter declares BATCH = True: it takes part in --batch */
};

/* The frontends, as their adapters declare them (ferry's own and FERRY_ADAPTERS'): lines of
 * "NAME\tLIBRARY\tSUMMARY\n", LIBRARY empty where a user's adapter computes it. Needs the
 * interpreter (py_start). Caller frees; NULL with e filled on failure. */
char *session_frontend_table(struct err *e);
/* Parse "NAME" or "NAME:LIBRARY" (the library must be the adapter's, or name it where the adapter
 * does not declare it), either followed by "@PYTHON": the interpreter of another virtualenv, which
 * must exist and be the Python version ferry embeds (EXIT_USAGE otherwise), into f (released by
 * frontend_release; its label is NAME until session_frontend_label). Needs the interpreter. */
int session_frontend(const char *spec, struct frontend *f, struct err *e);
/* For NAME@PYTHON: start one of its workers (with ro's limits) to learn the release, and label it
 * NAME@VERSION (the version up to its first character other than a letter, digit, '.', '+' or '_':
 * the release without the build). A worker that cannot start (its package missing under PYTHON) is no error: f->why
 * says why and the label is NAME@PYTHON. Nothing to do for NAME. */
int session_frontend_label(struct frontend *f, const struct runner_opts *ro, struct err *e);
/* The characters of a version's release number, the part a label keeps. */
#define SESSION_RELEASE_CHARS "0123456789.+_abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"

void frontend_release(struct frontend *f);
/* The adapter NAME behind a store's frontend label (NAME, or NAME@VERSION): what its patterns,
 * tolerances and reproducers are found by. Caller frees. */
char *session_adapter_name(const char *label);

/* The worker command of a frontend (wargv: self, "worker", "--run", NAME) and its environment
 * (env, room for 2: FERRY_PYTHON for NAME@PYTHON; the caller frees env[0]); then the runner options
 * for its workers, base's with that command and environment. */
void session_worker_command(const struct frontend *fe, const char *self, const char *wargv[5], char **env);
void session_worker_opts(struct runner_opts *o, const struct runner_opts *base, const char *const *wargv,
			 char **env);

#endif
