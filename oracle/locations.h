/* locations.h: where the user's adapters that a store was run with are (issue 17). ferry run and
 * ferry check record each one's file in the store (its meta table, db_set_adapter); the commands that
 * read a store later (show, report, reduce) put those adapters' directories on FERRY_ADAPTERS, after
 * the user's own, so that its reproducers, reductions and unsupported patterns find them without it. */
#ifndef FERRY_LOCATIONS_H
#define FERRY_LOCATIONS_H

#include <stddef.h>

#include "db.h"
#include "err.h"
#include "session.h"

/* Record in the store where the adapter of each of the n frontends is, where it is the user's (a file
 * of FERRY_ADAPTERS); ferry's own need no record. Needs the interpreter (py_start). */
int locations_record(struct db *d, const struct frontend *fes, size_t n, struct err *e);

/* Add to FERRY_ADAPTERS (this process's, the embedded interpreter's if it runs, and so every child's)
 * the directories of the adapters the store recorded, each unless a directory already on it holds an
 * adapter of that frontend: the user's FERRY_ADAPTERS comes first. An adapter that is no longer there
 * is left to the command that needs it, which says so (ferry/oracle/registry.py). */
int locations_restore(struct db *d, struct err *e);

#endif
