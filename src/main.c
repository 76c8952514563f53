/* main.c: the ferry command. It finds the subcommand, answers --help, starts what the subcommand
 * declares it needs (the embedded interpreter), runs it, and makes sure that what it printed to
 * stdout really reached its destination before reporting success. */
#include "py.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "clang.h"
#include "cmd.h"
#include "config.h"
#include "esc.h"
#include "runopts.h"

static const struct cmd_entry *const commands[] = {
	&cmd_go_entry,
	&cmd_harvest_entry,
	&cmd_wrap_entry,
	&cmd_vary_entry,
	&cmd_generate_entry,
	&cmd_rank_entry,
	&cmd_run_entry,
	&cmd_report_entry,
	&cmd_bugs_entry,
	&cmd_show_entry,
	&cmd_reduce_entry,
	&cmd_baseline_entry,
	&cmd_check_entry,
	&cmd_merge_entry,
	&cmd_apfd_entry,
	&cmd_coverage_entry,
	&cmd_count_tests_entry,
	&cmd_worker_entry,
	&cmd_harvest_child_entry,
	&cmd_harvest_cpp_child_entry,
};

#define N_COMMANDS (sizeof(commands) / sizeof(commands[0]))

static const struct cmd_entry *current;

static const char overview[] =
	"usage: ferry COMMAND [options] [arguments]\n"
	"\n"
	"ferry carries the test knowledge of deep-learning libraries to the frontends of deep-learning\n"
	"compilers: it harvests operator usages from library test suites, wraps each one as a model,\n"
	"runs the models through compiler frontends, and reports crashes and wrong results.\n"
	"\n"
	"The pipeline, one command a stage:\n";

static void print_overview(FILE *fp)
{
	fputs(overview, fp);
	for (size_t i = 0; i < N_COMMANDS; i++)
		if (commands[i]->summary)
			fprintf(fp, "  %-12s %s\n", commands[i]->name, commands[i]->summary);
	fputs("\nferry help COMMAND (or ferry COMMAND --help) shows a command's options.\n"
	      "ferry --version shows the versions of ferry and of what it was built with.\n", fp);
}

static void print_usage(const struct cmd_entry *c)
{
	opts_usage(c, stdout);
	/* The frontends are known only at run time, from their adapters' declarations. */
	if (c == &cmd_run_entry || c == &cmd_check_entry)
		runopts_help(stdout);
}

static const struct cmd_entry *find(const char *name)
{
	for (size_t i = 0; i < N_COMMANDS; i++)
		if (!strcmp(commands[i]->name, name))
			return commands[i];
	return NULL;
}

int cmd_error(const struct err *e)
{
	fflush(stdout);
	/* Messages and details carry frontends' and libraries' text (esc.h). */
	fprintf(stderr, "ferry: error: %s\n", esc_str(e->msg));
	if (e->detail && *e->detail) {
		const char *d = esc_lines(e->detail);
		size_t n = strlen(d);

		fprintf(stderr, "%s%s", d, d[n - 1] == '\n' ? "" : "\n");
	}
	return e->code ? (int)e->code : EXIT_ENV;
}

int cmd_usage_error(const struct cmd_entry *c, const char *fmt, ...)
{
	va_list ap;

	fflush(stdout);
	fputs("ferry: error: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	if (c)
		fprintf(stderr, "\n(see 'ferry %s --help')\n", c->name);
	else
		fputs("\n(see 'ferry --help')\n", stderr);
	return EXIT_USAGE;
}

void cmd_warn(const char *fmt, ...)
{
	struct buf msg = BUF_INIT;
	va_list ap;

	fflush(stdout);
	va_start(ap, fmt);
	buf_vaddf(&msg, fmt, ap);
	va_end(ap);
	/* A warning names operators and quotes libraries' reasons (esc.h). */
	fprintf(stderr, "ferry: warning: %s\n", esc_str(msg.data));
	buf_release(&msg);
}

void cmd_warn_line(void *ctx, const char *line)
{
	(void)ctx;
	cmd_warn("%s", line);
}

const char *cmd_python(void)
{
	const char *p = getenv("FERRY_PYTHON");

	return p && *p ? p : FERRY_PYTHON;
}

int cmd_parse_int(const char *text, int lo, int hi, int *out)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(text, &end, 10);
	if (!*text || *end || errno || v < lo || v > hi)
		return -1;
	*out = (int)v;
	return 0;
}

int cmd_parse_seconds(const char *text, double *out)
{
	char *end;
	double v = strtod(text, &end);

	if (!*text || *end || !(v > 0) || v > 1e7)
		return -1;
	*out = v;
	return 0;
}

int cmd_parse_size(const char *text, unsigned long long *out)
{
	char *end;
	double v = strtod(text, &end);
	double mult = 1;

	switch (*end) {
	case 'k': case 'K': mult = 1024.0; end++; break;
	case 'm': case 'M': mult = 1024.0 * 1024; end++; break;
	case 'g': case 'G': mult = 1024.0 * 1024 * 1024; end++; break;
	case '\0': break;
	default: return -1;
	}
	if (*end == 'b' || *end == 'B')
		end++;
	if (end == text || *end || !(v >= 0))
		return -1;
	*out = (unsigned long long)(v * mult);
	return 0;
}

int cmd_default_jobs(void)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);

	return n > 0 ? (int)(n > 64 ? 64 : n) : 1;
}

unsigned long long cmd_default_memory(int jobs)
{
	long pages = sysconf(_SC_PHYS_PAGES), size = sysconf(_SC_PAGESIZE);

	if (pages <= 0 || size <= 0 || jobs < 1)
		return 0;
	return (unsigned long long)pages * (unsigned long long)size / 4 * 3 / (unsigned long long)jobs;
}

static int has_help_flag(int argc, char **argv)
{
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--"))
			return 0;
		if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h"))
			return 1;
	}
	return 0;
}

static int version(void)
{
	printf("ferry %s\n", PACKAGE_VERSION);
	printf("python %s (%s)\n", PY_VERSION, cmd_python());
	{
		struct err e = ERR_INIT;
		char *v = clang_version(&e);

		/* Loaded here only to say which; no other command but the C++ harvester loads it. */
		printf("libclang: %s\n", v ? v : e.msg);
		free(v);
		err_release(&e);
	}
	{
		struct err e = ERR_INIT;
		char *v = NULL;

		/* The libraries' and frontends' versions, from their metadata (oracle/versions.py): what a bug
		 * report needs. An interpreter that does not start costs these lines, not the command. */
		if (py_start(cmd_python(), 1, &e) < 0 ||
		    !(v = py_call_strings("ferry.oracle.versions", "text", NULL, 0, "cannot list the versions", &e)))
			printf("libraries and frontends: unknown (%s)\n", esc_str(e.msg));
		else
			fputs(esc_lines(v), stdout);
		free(v);
		err_release(&e);
	}
	return EXIT_OK;
}

/* A full disk or a closed pipe shows up only when stdout is flushed: a command must not claim
 * success for output that was lost. */
static int finish_stdout(int code)
{
	if (fflush(stdout) != 0 || ferror(stdout)) {
		if (errno != EPIPE)
			fprintf(stderr, "ferry: error: cannot write the output: %s\n", strerror(errno));
		return code ? code : EXIT_ENV;
	}
	return code;
}

int main(int argc, char **argv)
{
	const struct cmd_entry *c;
	struct err e = ERR_INIT;
	int code;

	if (argc < 2) {
		print_overview(stderr);
		return EXIT_USAGE;
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
		print_overview(stdout);
		return finish_stdout(EXIT_OK);
	}
	if (!strcmp(argv[1], "--version"))
		return finish_stdout(version());
	if (!strcmp(argv[1], "help")) {
		if (argc < 3) {
			print_overview(stdout);
			return finish_stdout(EXIT_OK);
		}
		if (!(c = find(argv[2])))
			return cmd_usage_error(NULL, "'%s' is not a ferry command", argv[2]);
		print_usage(c);
		return finish_stdout(EXIT_OK);
	}
	if (!(c = find(argv[1])))
		return cmd_usage_error(NULL, "'%s' is not a ferry command", argv[1]);
	current = c;
	if (has_help_flag(argc - 1, argv + 1)) {
		print_usage(c);
		return finish_stdout(EXIT_OK);
	}
	/* Workers and harvest children leave Ctrl-C to the ferry that owns them. */
	if ((c->needs & CMD_NEEDS_PYTHON) &&
	    py_start(cmd_python(), strcmp(c->name, "worker") && strcmp(c->name, "harvest-child"), &e) < 0)
		return cmd_error(&e);
	code = c->fn(argc - 1, argv + 1);
	code = finish_stdout(code);
	py_stop();
	return code;
}
