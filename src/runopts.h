/* runopts.h: what ferry run and ferry check share on the command line: the options that shape a
 * session (oracle/session.h), the progress line it draws, and the summary it prints. */
#ifndef FERRY_RUNOPTS_H
#define FERRY_RUNOPTS_H

#include "cmd.h"
#include "progress.h"
#include "session.h"
#include "wrap.h"

#define RUNOPTS_MAX_FRONTENDS 16

struct runopts {
	struct session_opts s;
	struct frontend fes[RUNOPTS_MAX_FRONTENDS];
	size_t nfes;
	int quiet;
	int maxfail;                    /* --maxfail, or 0 */
	int limit;                      /* --limit, or -1 */
	unsigned long long memory;      /* --memory, or 0 */
	const char *oracle;             /* --oracle, or NULL */
	int mutations, seed;            /* -k and --seed (the metamorphic oracle's), or -1 */
	struct select select;           /* --op, --test */
	struct progress progress;
	char label[160];
	char *command;
};

/* The options of the set, a fragment for a command's table: OPT_INCLUDE(runopts_options, OFFSET),
 * OFFSET that of a struct runopts in the command's options struct (runopts_init'ed in place: it
 * points to itself). */
extern const struct opt runopts_options[];

void runopts_init(struct runopts *r);
void runopts_release(struct runopts *r);
/* After opts_parse: check what is required, record the command line. 0, or -1 after printing a usage error. */
int runopts_finish(struct runopts *r, const struct cmd_entry *c, const char *wrapdir, int argc, char **argv);
/* The help text after the usage of run and check: the frontends, from their adapters. */
void runopts_help(FILE *fp);
/* Add to o->formats the model files frontend fe reads: its adapter's LIBRARY and FORMAT, read without
 * importing the adapter (the interpreter must be started). *cap is the array's capacity. The array
 * and its strings are o's, to be freed with runopts_formats_free, on failure too. */
int runopts_add_format(struct wrap_opts *o, size_t *cap, const struct frontend *fe, struct err *e);
void runopts_formats_free(struct wrap_opts *o);
/* Print what each frontend's run did. */
void runopts_print(const struct runopts *r, const struct session_result *res);
/* After session_open: one line on stderr for what the queue and --op/--test selected, when they
 * left tests out (unless quiet). */
void runopts_print_selection(const struct runopts *r, const struct session *s);
/* -F's list (comma-separated NAME, NAME:LIBRARY, NAME@PYTHON), added to r's frontends. */
int runopts_add_frontends(struct runopts *r, const char *list, struct err *e);
/* --op and --test for a command's own table (value: a struct select). */
int runopts_parse_op(void *value, const char *arg, struct err *e);
int runopts_parse_test(void *value, const char *arg, struct err *e);

#endif
