/* locations.h: which of the user's adapters a store was run with (issue 17; issue 27: a store is data).
 * ferry run and ferry check record each one by its frontend's name and a hash of its source (the
 * store's meta table, db_set_adapter), never where it was: a store is a file people hand each other,
 * and nothing it says is loaded or used as a path to code. The commands that read a store later
 * (show, report, reduce) find adapters only where the user points them (FERRY_ADAPTERS) and say so
 * where the store was run with one the user does not point to, or with other source. */
#ifndef FERRY_LOCATIONS_H
#define FERRY_LOCATIONS_H

#include <stddef.h>

#include "db.h"
#include "err.h"
#include "frontend.h"

/* The environment variable that lists (':'-separated) the frontends a store was run with the user's
 * adapter of and that FERRY_ADAPTERS does not hold: ferry's own adapter of that name does not stand in
 * for it, the commands that need it say what is missing (ferry/oracle/registry.py). Set by
 * locations_check, for this process and its workers. */
#define LOCATIONS_UNHELD "FERRY_STORE_ADAPTERS"

/* Record in the store, for each of the n frontends whose adapter is the user's (a file of
 * FERRY_ADAPTERS), the hash of its source: "xxh3:HEX", then " unsupported xxh3:HEX" where
 * unsupported/NAME.txt is beside it. ferry's own need no record. Needs the interpreter (py_start). */
int locations_record(struct db *d, const struct frontend *fes, size_t n, struct err *e);

/* Hold the user's adapters the store recorded against those of FERRY_ADAPTERS: warn(ctx, line) says,
 * one line each, which one FERRY_ADAPTERS does not hold (and LOCATIONS_UNHELD gets its name) and which
 * it holds with other source than the store's hash (or other unsupported patterns). A record of an
 * older ferry names a path: shown in the line, never loaded. store names the store in the lines. */
int locations_check(struct db *d, const char *store, void (*warn)(void *ctx, const char *line), void *ctx,
		    struct err *e);

#endif
