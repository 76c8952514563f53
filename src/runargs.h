/* runargs.h: the command line of a run (a struct runopts, pipeline/runopts.h), as ferry run, ferry
 * check and ferry go take it. */
#ifndef FERRY_RUNARGS_H
#define FERRY_RUNARGS_H

#include <stdio.h>

#include "cmd.h"
#include "runopts.h"

/* The options of the set, a fragment for a command's table: OPT_INCLUDE(runopts_options, OFFSET),
 * OFFSET that of a struct runopts in the command's options struct (runopts_init'ed in place: it
 * points to itself). */
extern const struct opt runopts_options[];

/* After cmd_parse: check what is required, record the command line. 0, or -1 after printing a usage
 * error. */
int runopts_finish(struct runopts *r, const struct cmd_entry *c, const char *wrapdir, int argc, char **argv);
/* The help text after the usage of run and check: the frontends, from their adapters. */
void runopts_help(FILE *fp);
/* -F's list (comma-separated NAME, NAME:LIBRARY, NAME@PYTHON), added to r's frontends. */
int runopts_add_frontends(struct runopts *r, const char *list, struct err *e);
/* --op and --test for a command's own table (value: a struct select). */
int runopts_parse_op(void *value, const char *arg, struct err *e);
int runopts_parse_test(void *value, const char *arg, struct err *e);

#endif
