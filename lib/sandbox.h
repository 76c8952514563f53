/* sandbox.h: where ferry runs code it does not trust (third-party test suites, harvested by ferry
 * harvest). Such code gets a scratch directory of its own, made fresh for each process and removed
 * after it, to be its working directory, HOME and TMPDIR; and, where the machine allows it, a
 * bubblewrap sandbox (the bwrap program, Debian package bubblewrap) in which the whole file system is
 * read-only except that scratch directory, with a private /dev, /proc and process-id namespace.
 *
 * bwrap is looked up at run time ($FERRY_BWRAP, else bwrap in PATH) and tried once with a trivial
 * command, so that a machine where it is missing or cannot make namespaces (a container without the
 * privileges) is found out before any test runs; the caller then says so and goes on unsandboxed.
 *
 * Ownership: returned char * and char ** belong to the caller; the strings inside an argv that
 * sandbox_argv returns are borrowed from its arguments. */
#ifndef FERRY_SANDBOX_H
#define FERRY_SANDBOX_H

#include "err.h"

/* Find bwrap and check that it can make a sandbox here. Returns its path (caller frees), or NULL
 * with e saying why not: its message is one line naming the missing package or bwrap's own
 * complaint. */
char *sandbox_find(struct err *e);

/* The argv that runs argv (NULL-terminated) inside the sandbox of bwrap (when not NULL) with the
 * scratch directory as its writable working directory; without bwrap, a copy of argv. NULL-terminated,
 * caller frees the array only. */
const char **sandbox_argv(const char *bwrap, const char *scratch, const char *const *argv);

/* Make a fresh scratch directory under $TMPDIR (else /tmp), with home/ and tmp/ in it. Returns its
 * path (caller frees) or NULL. */
char *sandbox_scratch_new(struct err *e);
/* Remove a scratch directory and everything in it, whatever the code that ran there left: files made
 * read-only or unreadable, and symbolic links, which are removed and never followed. */
int sandbox_scratch_remove(const char *dir, struct err *e);

#endif
