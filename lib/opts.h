/* opts.h: a command's options, declared once. Each src/cmd-NAME.c declares a table of struct opt
 * (a short and a long name, the argument's name, its kind, the help text and where in the
 * command's own options struct it goes); opts_parse() parses argv with it on top of getopt_long into
 * a struct the caller passes, and opts_usage() writes the usage text's Options section from the same
 * table, so that what a command takes and what its help says cannot drift apart (as git's
 * parse-options and tmux's args do). A table names offsets, not variables: a command's options live
 * in a struct of the call's own (set to its defaults before opts_parse), never in file-scope state
 * that one call could leave behind for the next. Nothing here prints. */
#ifndef FERRY_OPTS_H
#define FERRY_OPTS_H

#include <stddef.h>
#include <unistd.h> /* optind */

#include "buf.h"
#include "err.h"

enum opt_kind {
	OPT_KIND_END,
	OPT_KIND_FLAG,     /* int: set to 1 */
	OPT_KIND_STRING,   /* const char *: the argument (borrowed from argv); the last one wins */
	OPT_KIND_INT,      /* int: a whole number in [lo, hi] */
	OPT_KIND_DOUBLE,   /* double: a number, 0 or more */
	OPT_KIND_SECONDS,  /* double: a number of seconds, more than 0 (opts_parse_seconds) */
	OPT_KIND_SIZE,     /* unsigned long long: a size such as 512M or 4G, more than 0 */
	OPT_KIND_LIST,     /* struct opts_list: each argument, in order (repeatable) */
	OPT_KIND_CALL,     /* parse(value, arg, e): 0, or -1 with e->msg, said as a usage error */
	OPT_KIND_INCLUDE,  /* the options of another table, here (a shared fragment), at offset */
};

struct opt {
	char short_name;        /* 0: a long option only */
	const char *long_name;
	const char *arg;        /* the argument's name in the usage text; NULL for a flag */
	enum opt_kind kind;
	const char *help;       /* lines after the first start with '\n' and are indented to match */
	size_t offset;          /* where the value is, from the start of the struct opts_parse fills */
	int lo, hi;             /* OPT_KIND_INT */
	int (*parse)(void *value, const char *arg, struct err *e);
	const struct opt *include;
};

/* The arguments of a repeatable option: borrowed from argv; the array is the list's. */
struct opts_list {
	const char **v;
	size_t n, cap;
};

void opts_list_release(struct opts_list *l);

/* off: offsetof(struct X, field) of the command's options struct. */
#define OPT_FLAG(s, l, help, off) { s, l, NULL, OPT_KIND_FLAG, help, off, 0, 0, NULL, NULL }
#define OPT_STRING(s, l, a, help, off) { s, l, a, OPT_KIND_STRING, help, off, 0, 0, NULL, NULL }
#define OPT_INT(s, l, a, help, off, lo, hi) { s, l, a, OPT_KIND_INT, help, off, lo, hi, NULL, NULL }
#define OPT_DOUBLE(s, l, a, help, off) { s, l, a, OPT_KIND_DOUBLE, help, off, 0, 0, NULL, NULL }
#define OPT_SECONDS(s, l, a, help, off) { s, l, a, OPT_KIND_SECONDS, help, off, 0, 0, NULL, NULL }
#define OPT_SIZE(s, l, a, help, off) { s, l, a, OPT_KIND_SIZE, help, off, 0, 0, NULL, NULL }
#define OPT_LIST(s, l, a, help, off) { s, l, a, OPT_KIND_LIST, help, off, 0, 0, NULL, NULL }
#define OPT_CALL(s, l, a, help, off, fn) { s, l, a, OPT_KIND_CALL, help, off, 0, 0, fn, NULL }
/* The options of table t, whose offsets count from offset off of the including struct. */
#define OPT_INCLUDE(t, off) { 0, NULL, NULL, OPT_KIND_INCLUDE, NULL, off, 0, 0, NULL, t }
#define OPT_END() { 0, NULL, NULL, OPT_KIND_END, NULL, 0, 0, 0, NULL, NULL }

/* Parse argv (argv[0] is the command's name) with table into the struct at base. Returns the index
 * of the first argument that is not an option (getopt_long moves those to the end; optind is left
 * there too), or -1 with e->code EXIT_USAGE and e->msg ("unknown option '-x'"). */
int opts_parse(const struct opt *table, int argc, char **argv, void *base, struct err *e);

/* The Options section of the usage text ("\nOptions:\n" and a row per option; nothing when the
 * table has none), appended to out. */
void opts_usage(const struct opt *table, struct buf *out);

/* Option values: 0, or -1 when text is not a whole number in [lo, hi] / a non-negative number of
 * seconds / a size such as 512M or 4G. */
int opts_parse_int(const char *text, int lo, int hi, int *out);
int opts_parse_seconds(const char *text, double *out);
int opts_parse_size(const char *text, unsigned long long *out);

/* Workers by default: the cores this process may use. */
int opts_default_jobs(void);
/* Memory each of jobs workers may use by default: an equal share of three quarters of the
 * machine's memory, so that workers that all grow at once still leave ferry room. */
unsigned long long opts_default_memory(int jobs);

#endif
