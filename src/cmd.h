/* cmd.h: the subcommand table. Each src/cmd-NAME.c opens with a comment saying what the command
 * does, and exports one struct cmd_entry; src/main.c lists them. main() parses nothing but the
 * command name and --help/-h: it prints usage itself, starts the embedded interpreter when the
 * entry asks for it, calls fn with argv[0] = the command name (ready for cmd_parse), and checks
 * that stdout was really written before exiting with fn's return value (an enum ferry_exit).
 * src/cmd.c holds what every command shares (its messages, the defaults of -j and -m), so that a
 * command needs nothing from main.c, and main.c nothing from a command but its entry. */
#ifndef FERRY_CMD_H
#define FERRY_CMD_H

#include <stdio.h>

#include "err.h"
#include "opts.h"

enum cmd_needs {
	CMD_NEEDS_NOTHING = 0,
	CMD_NEEDS_PYTHON = 1 << 0, /* the embedded interpreter, started before fn runs */
};

struct cmd_entry {
	const char *name;
	int (*fn)(int argc, char **argv);
	unsigned needs;
	const char *usage;       /* "usage: ferry NAME ARGS\n", then what it does, before the options */
	const struct opt *opts;  /* the options (opts.h): parsed by opts_parse, listed by opts_usage */
	const char *more;        /* NULL, or text after the options */
	const char *summary;     /* one line for "ferry help" */
	void (*help)(FILE *fp);  /* NULL, or what the usage text says last, known only at run time */
};

/* Parse argv (argv[0] is the command's name) with c->opts into the command's options struct at
 * base (set to its defaults before). Returns the index of the first argument that is not an option
 * (optind is left there too), or -1 after printing a usage error ("ferry: error: ..." and the hint
 * to see --help). */
int cmd_parse(const struct cmd_entry *c, int argc, char **argv, void *base);
/* The usage text: c->usage, the Options section made from c->opts, c->more, then c->help's. */
void cmd_usage(const struct cmd_entry *c, FILE *fp);

/* Print "ferry: error: <e->msg>" (and e->detail) to stderr; return e->code. */
int cmd_error(const struct err *e);
/* Print "ferry: error: <fmt>" and the usage hint of the current command; return EXIT_USAGE. */
int cmd_usage_error(const struct cmd_entry *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Print a warning line "ferry: warning: ..." to stderr. */
void cmd_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* cmd_warn(line), for engines that pass what they have to say to a callback (ctx unused). */
void cmd_warn_line(void *ctx, const char *line);
/* The user's --python or FERRY_PYTHON, else the configured virtualenv interpreter. */
const char *cmd_python(void);


extern const struct cmd_entry cmd_harvest_entry, cmd_wrap_entry, cmd_rank_entry, cmd_run_entry,
	cmd_report_entry, cmd_bugs_entry, cmd_show_entry, cmd_check_entry, cmd_baseline_entry, cmd_merge_entry,
	cmd_apfd_entry, cmd_count_tests_entry, cmd_worker_entry, cmd_harvest_child_entry, cmd_vary_entry,
	cmd_coverage_entry, cmd_generate_entry, cmd_reduce_entry, cmd_go_entry, cmd_harvest_cpp_child_entry,
	cmd_file_entry, cmd_bisect_entry, cmd_triage_entry;

#endif
