/* runopts.h: what ferry run and ferry check share on the command line: the options that shape a
 * session (oracle/session.h), the progress line it draws, and the summary it prints. */
#ifndef FERRY_RUNOPTS_H
#define FERRY_RUNOPTS_H

#include <getopt.h>
#include <stdio.h>

#include "cmd.h"
#include "progress.h"
#include "session.h"

#define RUNOPTS_MAX_FRONTENDS 16

struct runopts {
	struct session_opts s;
	struct frontend fes[RUNOPTS_MAX_FRONTENDS];
	size_t nfes;
	int quiet;
	struct progress progress;
	char label[160];
	char *command;
};

enum {
	RUNOPT_QUEUE = 256, RUNOPT_ATOL, RUNOPT_RTOL, RUNOPT_TOLERANCES, RUNOPT_BUDGET, RUNOPT_SHARD,
	RUNOPT_FIRST_FREE, /* commands number their own long options from here */
};

#define RUNOPTS_SHORT "F:o:n:j:t:m:q"
#define RUNOPTS_LONG \
	{ "frontend", required_argument, NULL, 'F' }, \
	{ "output", required_argument, NULL, 'o' }, \
	{ "queue", required_argument, NULL, RUNOPT_QUEUE }, \
	{ "limit", required_argument, NULL, 'n' }, \
	{ "budget", required_argument, NULL, RUNOPT_BUDGET }, \
	{ "shard", required_argument, NULL, RUNOPT_SHARD }, \
	{ "jobs", required_argument, NULL, 'j' }, \
	{ "timeout", required_argument, NULL, 't' }, \
	{ "memory", required_argument, NULL, 'm' }, \
	{ "atol", required_argument, NULL, RUNOPT_ATOL }, \
	{ "rtol", required_argument, NULL, RUNOPT_RTOL }, \
	{ "tolerances", required_argument, NULL, RUNOPT_TOLERANCES }, \
	{ "quiet", no_argument, NULL, 'q' }

#define RUNOPTS_USAGE \
	"  -F, --frontend LIST  frontends to run, comma-separated (listed below), NAME:LIBRARY for an\n" \
	"                       adapter of your own that does not declare its LIBRARY\n" \
	"  -o, --output STORE   the results store to create or resume\n" \
	"      --queue FILE     run in this order (a queue from ferry rank; others are not run)\n" \
	"  -n, --limit N        run at most N tests per frontend this time (the top N of the queue)\n" \
	"      --budget SECS    start no test after SECS seconds (the running ones finish)\n" \
	"      --shard I/N      take every N-th test of the queue from offset I (0 <= I < N)\n" \
	"  -j, --jobs N         worker processes (default: the number of cores)\n" \
	"  -t, --timeout SECS   time one test may take (default 60)\n" \
	"  -m, --memory SIZE    memory one worker may use, e.g. 4G (default: a share of the machine's)\n" \
	"      --atol X         absolute tolerance of the value oracle (default 1e-3)\n" \
	"      --rtol X         relative tolerance of the value oracle (default 1e-3)\n" \
	"      --tolerances F   per-operator tolerances: lines of OP DTYPE FRONTEND ATOL RTOL REASON\n" \
	"  -q, --quiet          no progress line\n"

void runopts_init(struct runopts *r);
void runopts_release(struct runopts *r);
/* Take one option of the shared set: 1 taken, 0 not one of them, -1 a usage error (printed). */
int runopts_option(struct runopts *r, const struct cmd_entry *c, int opt, const char *arg);
/* After getopt: check what is required, record the command line. 0, or -1 after printing a usage error. */
int runopts_finish(struct runopts *r, const struct cmd_entry *c, const char *wrapdir, int argc, char **argv);
/* The help text after the usage of run and check: the frontends, from their adapters. */
void runopts_help(FILE *fp);
/* Print what each frontend's run did. */
void runopts_print(const struct runopts *r, const struct session_result *res);

#endif
