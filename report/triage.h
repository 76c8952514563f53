/* triage.h: the triage file, where people's decisions about bugs live, kept in the compiler's own
 * repository beside its code so that a decision is reviewed once and read by every later run. Text,
 * one decision a line, '#' comments:
 *
 *   BUG STATUS [ARG]          BUG the 12-digit id ferry bugs shows
 *       signature SIG         (indented, optional) what the bug was grouped by (dedup.h)
 *
 * STATUS is new, filed URL-or-#N, not-a-bug REASON, duplicate BUG, or fixed RELEASE. A bug's id is a
 * hash of its signature, and a signature's message template is learnt from the store's messages, so
 * a later run with more tests of one cause can give the cause a template with more wildcards, and a
 * new id: a decision finds its bug by id, else by signature, either one's <*> standing for one token
 * of the other (a signature's fields, between '|', are never crossed). ferry triage writes the
 * signature with the id, so a decision outlives that. A decision whose bug is still in the store
 * (triage_bind) is that bug's alone: its signature finds no other. */
#ifndef FERRY_TRIAGE_H
#define FERRY_TRIAGE_H

#include <stddef.h>

#include "buf.h"
#include "db.h"
#include "err.h"
#include "strmap.h"

/* The file's name when a command is given none: in the current directory, the repository's root in
 * a CI job. */
#define TRIAGE_DEFAULT "ferry-triage.txt"

enum triage_status {
	TRIAGE_NEW,
	TRIAGE_FILED,       /* reported upstream: known */
	TRIAGE_NOT_A_BUG,   /* known, with its reason */
	TRIAGE_DUPLICATE,   /* another bug's: known */
	TRIAGE_FIXED,       /* fixed in a release: showing again is a regression */
	TRIAGE_STATUS_COUNT
};

struct triage_entry {
	char *bug;                  /* the id, 12 hex digits */
	enum triage_status status;
	char *arg;                  /* the link, reason, other bug or release, or NULL (new) */
	char *signature;            /* or NULL */
	size_t line, sig_line;      /* where they stand in the file's lines (0-based; sig_line 0: none) */
};

struct triage {
	char *path;                 /* owned */
	char **lines;               /* the file's lines as read, comments included, without newlines */
	size_t nlines, lcap;
	struct triage_entry *v;
	size_t n, cap;
	struct strmap present;      /* the store's bug ids (triage_bind), or empty */
};

#define TRIAGE_INIT { NULL, NULL, 0, 0, NULL, 0, 0, STRMAP_INIT }

/* Read the triage file at path into t. A missing file is an empty one when missing_ok, else
 * EXIT_INPUT; a bad line is EXIT_INPUT naming path:line. 0, or -1 with e. */
int triage_load(struct triage *t, const char *path, int missing_ok, struct err *e);
void triage_release(struct triage *t);

/* Whether the file at path reads as a triage file rather than a baseline (baseline.h): its first
 * line that is not a comment begins with a bug id and a status. */
int triage_is_file(const char *path);

/* The decision about the bug of that id and signature (either may be NULL), or NULL. */
const struct triage_entry *triage_find(const struct triage *t, const char *bug, const char *signature);
/* Note the bugs the store d holds now (after its grouping), so that a decision on one of them is found
 * by its id only, never by another bug's signature. 0, or -1 with e. */
int triage_bind(struct triage *t, struct db *d, struct err *e);

/* Whether a failure of a bug so decided is known (filed, not a bug, a duplicate): CI passes on it. */
int triage_known(const struct triage_entry *te);

/* Parse a status's name; -1 when it is none. */
int triage_status_parse(const char *name);
const char *triage_status_name(enum triage_status s);

/* Append the decision as people read it: "filed #123", "not a bug: REASON", "duplicate of BUG",
 * "fixed in R", "new". */
void triage_label(const struct triage_entry *te, struct buf *out);
/* The decision te into the JSON object o, as --json of bugs and report give it: status, arg (or
 * null), as (the bug it was made on) and label (triage_label's). */
void triage_json(const struct triage_entry *te, struct cJSON *o);

/* Set the decision about bug, with its signature (or NULL), editing t's lines in place: an entry of
 * that id is rewritten where it stands, else one is added at the end; comments and order stay. arg is
 * checked against the status (EXIT_USAGE with what it needs). 0, or -1 with e. */
int triage_set(struct triage *t, const char *bug, enum triage_status s, const char *arg, const char *signature,
	       struct err *e);

/* Map each member test of the store's bugs that t decides to its decision: "FRONTEND\x1fTEST" -> the
 * entry (borrowed from t) as ptr, into out (released with strmap_release). The bugs as the store
 * holds them (dedup_rebuild first). 0, or -1 with e. */
int triage_tests(struct db *d, struct triage *t, struct strmap *out, struct err *e);

/* Write t's lines back to its path, atomically. 0, or -1 with e. */
int triage_save(const struct triage *t, struct err *e);

#endif
