/* cmd-wrap.c: ferry wrap CORPUS... -o DIR
 *
 * Turns each instance of one or more corpora (a corpus and its variants: ids merge across them) into
 * a single-operator model with its inputs and the reference outputs that the source library
 * computes, in ferry's workers (the engine: templates/wrap.h). An instance the library itself rejects
 * is marked invalid, with the library's reason, and never reaches a compiler. DIR gets one directory
 * per instance under tests/, and DIR/wrapped.jsonl, so running the command again picks up where an
 * interrupted one stopped (one wrap at a time writes into DIR: a second is refused, naming the
 * first). --frontend makes only the formats those frontends read (their adapters say which, so this
 * file asks the registry), --queue wraps in a queue's order. This file parses the options, shows
 * progress and the first invalid instances, and prints the summary. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "esc.h"
#include "lock.h"
#include "progress.h"
#include "runargs.h"
#include "py.h"
#include "session.h"
#include "wrap.h"
#include "xalloc.h"

static const char usage[] =
	"usage: ferry wrap CORPUS... -o DIR [options]\n"
	"\n"
	"Make a single-operator model, inputs and reference outputs for every instance of the corpora\n"
	"(an id in several is wrapped once). Writes DIR/tests/ and DIR/wrapped.jsonl; an interrupted\n"
	"wrap resumes when run again. With --frontend, only the model files those frontends read are\n"
	"made (a frontend run later that reads another makes it then); with --queue, the queue's\n"
	"instances are wrapped in its order.\n";

struct wrap_args {
	const char *output, *weights, *queue;
	int jobs, quiet, limit;
	double timeout;
	struct select sel;
	struct opts_list frontends;
};

#define AT(f) offsetof(struct wrap_args, f)

static const struct opt options[] = {
	OPT_STRING('o', "output", "DIR", "where the models go", AT(output)),
	OPT_INT('j', "jobs", "N", "worker processes (default: the number of cores)", AT(jobs), 1, 256),
	OPT_SECONDS('t', "timeout", "SECS", "time one instance may take (default 60)", AT(timeout)),
	OPT_STRING(0, "weights", "HOW", "PyTorch weights as 'constant' (default: as real models hold them) or 'input'",
		   AT(weights)),
	OPT_CALL(0, "op", "GLOB", "wrap only instances whose operator matches GLOB: a word found in the name,\n"
		 "or a glob of the whole name or its last dotted part; lower case ignores case\n"
		 "(comma-separated, repeatable)", AT(sel), runopts_parse_op),
	OPT_CALL(0, "test", "GLOB", "wrap only instances whose source test matches GLOB: a word found in it, or\n"
		 "a glob of it whole; lower case ignores case (comma-separated, repeatable)", AT(sel),
		 runopts_parse_test),
	OPT_LIST('F', "frontend", "LIST", "make only the files these frontends read (names separated by commas;\n"
		 "repeatable; NAME:LIBRARY for an adapter of your own); the instances of a\n"
		 "library none of them takes are not wrapped", AT(frontends)),
	OPT_STRING(0, "queue", "QUEUE", "wrap the instances of QUEUE (ferry rank's output), in its order", AT(queue)),
	OPT_INT('n', "limit", "N", "with --queue: only its first N lines", AT(limit), 1, 2147483647),
	OPT_FLAG('q', "quiet", "no progress line", AT(quiet)),
	OPT_END(),
};

/* Invalid instances named one by one on stderr; the summary counts the rest by reason. */
#define SHOW_INVALID 20

struct show {
	struct progress progress;
	size_t shown;
};

static void on_warn(void *ctx, const char *msg)
{
	struct show *sh = ctx;

	progress_clear(&sh->progress);
	cmd_warn("%s", msg);
}

static void on_invalid(void *ctx, const char *corpus, size_t lineno, const char *op, const char *why)
{
	struct show *sh = ctx;

	if (sh->shown++ < SHOW_INVALID) {
		progress_clear(&sh->progress);
		cmd_warn("%s:%zu: %s is invalid: %s", corpus, lineno, op, why);
	}
}

static void on_progress(void *ctx, size_t done, size_t invalid)
{
	struct show *sh = ctx;

	progress_update(&sh->progress, done, invalid);
}

/* The LIBRARY and FORMAT of each frontend of --frontend, as their adapters declare them, into
 * o->formats (runopts_add_format; freed with runopts_formats_free, on failure too). */
static int frontend_formats(const struct wrap_args *a, struct wrap_opts *o, struct err *e)
{
	size_t cap = 0;
	int r = -1;

	if (py_start(cmd_python(), 0, e) < 0)
		return -1;
	for (size_t i = 0; i < a->frontends.n; i++) {
		char *list = xstrdup(a->frontends.v[i]), *save = NULL;

		for (char *tok = strtok_r(list, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
			struct frontend fe;

			r = session_frontend(tok, &fe, e) < 0 ? -1 : runopts_add_format(o, &cap, &fe, e);
			frontend_release(&fe);
			if (r < 0) {
				free(list);
				return -1;
			}
		}
		free(list);
	}
	if (!o->nformats)
		return err_set(e, EXIT_USAGE, "--frontend names no frontend");
	return 0;
}

static void print_summary(const struct wrap *w, const struct wrap_opts *o)
{
	struct strmap_entry **v = strmap_sorted(&w->reasons);

	printf("wrap");
	for (size_t k = 0; k < o->ncorpora; k++)
		printf("%s%s", k ? ", " : " ", esc_str(o->corpora[k]));
	printf(" -> %s:\n", esc_str(o->dir));
	printf("  wrapped now          %zu\n", w->ok + w->invalid);
	printf("    valid              %zu\n", w->ok);
	printf("    random outputs     %zu\n", w->random);
	printf("    invalid            %zu\n", w->invalid);
	for (size_t i = 0; v[i] && i < 10; i++)
		printf("      %6zu  %s\n", v[i]->count, esc_str(v[i]->key));  /* the library's words */
	if (w->reasons.len > 10)
		printf("      (%zu more reasons)\n", w->reasons.len - 10);
	printf("  already wrapped      %zu\n", w->resumed);
	if (w->left_out)
		printf("  not --op/--test      %zu\n", w->left_out);
	if (o->formats)
		printf("  no frontend takes    %zu\n", w->skipped);
	if (o->queue) {
		printf("  queue lines taken    %zu\n", w->queued);
		if (w->unknown)
			printf("    not in the corpora %zu\n", w->unknown);
	}
	if (w->bad_lines)
		printf("  bad corpus lines     %zu\n", w->bad_lines);
	if (w->bad_queue)
		printf("  bad queue lines      %zu\n", w->bad_queue);
	if (w->cut)
		printf("  torn line cut        %zu bytes\n", w->cut);
	free(v);
}

static int cmd_wrap(int argc, char **argv)
{
	struct wrap_args args = { 0 }, *a = &args;
	struct wrap w;
	struct wrap_opts o;
	struct show sh;
	struct err e = ERR_INIT;
	char *command = NULL;
	int code = EXIT_OK;

	memset(&w, 0, sizeof(w));
	memset(&o, 0, sizeof(o));
	memset(&sh, 0, sizeof(sh));
	a->jobs = opts_default_jobs();
	a->timeout = 60;
	if (cmd_parse(&cmd_wrap_entry, argc, argv, a) < 0)
		return EXIT_USAGE;
	if (optind == argc)
		return cmd_usage_error(&cmd_wrap_entry, "wrap takes a CORPUS (or several)");
	if (!a->output)
		return cmd_usage_error(&cmd_wrap_entry, "no output: say where the models go with -o DIR");
	if (a->weights && strcmp(a->weights, "constant") && strcmp(a->weights, "input"))
		return cmd_usage_error(&cmd_wrap_entry, "--weights takes 'constant' or 'input'");
	if (a->limit && !a->queue)
		return cmd_usage_error(&cmd_wrap_entry, "-n takes the first N of a queue: give it with --queue");
	o.corpora = (const char *const *)argv + optind;
	o.ncorpora = (size_t)(argc - optind);
	o.weights = a->weights;
	o.select = &a->sel;
	o.dir = a->output;
	o.jobs = a->jobs;
	o.timeout = a->timeout;
	o.mem_limit = opts_default_memory(a->jobs);
	o.ctx = &sh;
	o.warn = on_warn;
	o.invalid = on_invalid;
	o.progress = on_progress;
	o.queue = a->queue;
	o.limit = (size_t)a->limit;
	o.command = command = lock_command_line(argc, argv);
	if (a->frontends.n && frontend_formats(a, &o, &e) < 0) {
		code = cmd_error(&e);
		goto out;
	}
	if (wrap_open(&w, &o, &e) < 0) {
		code = cmd_error(&e);
		goto out;
	}
	progress_start(&sh.progress, "wrap", 0, a->quiet);
	sh.progress.failed_word = "invalid";
	if (wrap_run(&w, &e) < 0) {
		progress_clear(&sh.progress);
		code = cmd_error(&e);
		if (e.code == EXIT_INTERRUPTED || (e.code == EXIT_ENV && w.ok + w.invalid))
			fprintf(stderr, "ferry: %zu instances wrapped are kept; run the same command to go on\n",
				w.ok + w.invalid);
		goto out;
	}
	progress_finish(&sh.progress);
	print_summary(&w, &o);
out:
	wrap_release(&w);
	select_release(&a->sel);
	runopts_formats_free(&o);
	opts_list_release(&a->frontends);
	err_release(&e);
	free(command);
	return code;
}

const struct cmd_entry cmd_wrap_entry = {
	.name = "wrap", .fn = cmd_wrap, .needs = CMD_NEEDS_NOTHING, .usage = usage, .opts = options,
	.summary = "make a model, inputs and reference outputs for every instance",
};
