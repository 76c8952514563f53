/* main.c: the ferry command. It finds the subcommand, answers --help, starts what the subcommand
 * declares it needs (the embedded interpreter), runs it, and makes sure that what it printed to
 * stdout really reached its destination before reporting success. */
#include "py.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clang.h"
#include "cmd.h"
#include "config.h"
#include "esc.h"

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
	&cmd_file_entry,
	&cmd_reduce_entry,
	&cmd_bisect_entry,
	&cmd_triage_entry,
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

static const struct cmd_entry *find(const char *name)
{
	for (size_t i = 0; i < N_COMMANDS; i++)
		if (!strcmp(commands[i]->name, name))
			return commands[i];
	return NULL;
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
		cmd_usage(c, stdout);
		return finish_stdout(EXIT_OK);
	}
	if (!(c = find(argv[1])))
		return cmd_usage_error(NULL, "'%s' is not a ferry command", argv[1]);
	if (has_help_flag(argc - 1, argv + 1)) {
		cmd_usage(c, stdout);
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
