/* libraries.h: the source libraries ferry harvests and wraps, as their templates and harvesters
 * declare them (ferry/templates/registry.py, read through the embedded interpreter), as the
 * frontends are read from their adapters. The table is read once per process; every command that
 * names a library (harvest, go, vary, count-tests) looks it up here rather than in a list of its own,
 * so that a new library is new files only.
 *
 * Ownership: the table belongs to this module and lives until libraries_release(); what the
 * lookups return is borrowed. */
#ifndef FERRY_LIBRARIES_H
#define FERRY_LIBRARIES_H

#include <stddef.h>

#include "buf.h"
#include "err.h"

struct library {
	char *name;          /* "keras": a template's name, a record's "library" */
	int has_suites;      /* its harvest takes --suite and --pytest */
	int filter_ops;      /* its harvest passes over the tests no --filter glob can match */
	char **dtypes;       /* the dtypes ferry vary tries, NULL-terminated */
	char *tolerances;    /* its file of tolerances, NAME.txt, or "" */
};

/* Read the table through the interpreter at python (started here where it is not yet), once per
 * process. -1 with e (EXIT_ENV) where the templates cannot be read. */
int libraries_load(const char *python, struct err *e);
/* Whether the table was read. */
int libraries_loaded(void);
/* The library of that name, or NULL (unknown, or the table not read). */
const struct library *libraries_find(const char *name);
/* The number of libraries, and the i-th in the registry's order (NULL past the end). */
size_t libraries_count(void);
const struct library *libraries_at(size_t i);
/* The libraries' names, joined by ", ", appended to out ("keras, onnx, torch"). */
void libraries_names(struct buf *out);
void libraries_release(void);

#endif
