/* file.h: ferry file's engine: one bug as what a compiler team accepts upstream. Into DIR, an issue
 * text in Markdown (issue.md: a title that states the cause, the versions, a reproducer of about 30
 * lines that needs only the frontend and the library, what the reproducer printed here, what it was
 * compared with and at what tolerance, what does not trigger it, the releases it affects), the
 * reproducer alone (repro.py), and the regression test in the compiler's own format. show.c resolves
 * the bug and fills the document that file_issue reads. */
#ifndef FERRY_FILE_H
#define FERRY_FILE_H

#include <cjson/cJSON.h>
#include <stdio.h>

#include "db.h"
#include "err.h"

/* doc: ferry show --json's document of the bug (with "library", "testdir" and "adapter" added); it
 * gains "neighbours" and "releases". Writes DIR/issue.md and DIR/repro.py (outdir NULL: prints the
 * issue text on out). 0, or -1 with e. */
int file_issue(struct db *db, cJSON *doc, const char *python, const char *outdir, FILE *out, struct err *e);

#endif
