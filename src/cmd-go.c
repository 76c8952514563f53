/* cmd-go.c: ferry go [LIBRARY...] -F LIST [-o DIR]
 *
 * From a library's tests to a bug list in one command, in a project directory: harvest, rank,
 * (vary, generate,) wrap what will run, run every frontend, bugs, report, each stage skipped when
 * its output is current (pipeline/go.h). This file parses the command line: the libraries, the
 * frontends (by default those of the libraries named) and the options of the run. */
#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "go.h"
#include "harvest.h"
#include "libraries.h"
#include "progress.h"
#include "py.h"
#include "runargs.h"
#include "session.h"
#include "xalloc.h"

static const char usage[] =
	"usage: ferry go [LIBRARY...] -F LIST [-o DIR] [options]\n"
	"\n"
	"From the tests of LIBRARY (onnx, torch, keras, tf_keras; default: the libraries of the\n"
	"frontends) to a bug list, in the project directory DIR: harvest, rank, (vary, generate,) wrap\n"
	"what will run, run each frontend, bugs, report. Each library's files go to DIR/LIBRARY/. A stage\n"
	"whose output is current is skipped; the same command run again goes on where it stopped.\n";

static const char more[] =
	"Files, in DIR/LIBRARY/: corpus.jsonl (harvest), queue.jsonl and queue-COUNTS.jsonl (one per\n"
	"counts file, ranked), sample.ids and sample-COUNTS.ids (what runs, one id per line), wrapped/,\n"
	"results.db, bugs.txt (ferry bugs), report.txt and reproducers/ (ferry report -o), html/index.html\n"
	"(ferry report --html: the bugs as one page, named in the last lines; not with --no-html); with --vary,\n"
	"vary-parents.jsonl (the samples' tests), variants.jsonl and queue-variants*.jsonl; with\n"
	"--generate, generate-probes.jsonl (each operator in each type signature, probed as drawn),\n"
	"generated*.jsonl (one per queue) and queue-generated*.jsonl. The variants and graphs run after\n"
	"the sample, in their queues' order: -n and --per-op bound the harvested tests only.\n"
	"Then, unless --no-triggers, each bug's simplest test's one-change neighbours (another dtype,\n"
	"rank or shape, a parameter at its default or the corpus's common value) run on its frontend:\n"
	"trigger-parents.jsonl, triggers.jsonl (and .log), the store's neighbours table.\n"
	"The frontends' counts: ort onnxruntime-cpu, tvm-onnx tvm-relax-onnx, iree-onnx iree-onnx,\n"
	"tvm-pytorch tvm-relax-torch (corpora/counts/); the others rank without counts.\n"
	"A corpus.jsonl that ferry go did not harvest (no corpus.jsonl.args beside it) is refused, not\n"
	"taken for the library's.\n";

#define AT(f) offsetof(struct go_opts, f)

static int parse_frontends(void *value, const char *list, struct err *e)
{
	return runopts_add_frontends(value, list, e);
}

static int parse_rerun(void *value, const char *arg, struct err *e)
{
	if (session_rerun_parse(arg, value) < 0)
		return err_set(e, EXIT_USAGE, "--rerun takes failed, errors or all, not '%s'", arg);
	return 0;
}

static const struct opt options[] = {
	OPT_CALL('F', "frontend", "LIST", "frontends to run, comma-separated, as ferry run takes them (default:\n"
		 "every frontend of the libraries named)", AT(r), parse_frontends),
	OPT_STRING('o', "output", "DIR", "the project directory (default: the current directory)", AT(output)),
	OPT_CALL(0, "op", "GLOB", "only instances whose operator matches GLOB: a word found in the name, or a\n"
		 "glob of the whole name or its last dotted part; lower case ignores case\n"
		 "(comma-separated, repeatable)", AT(r.select), runopts_parse_op),
	OPT_CALL(0, "test", "GLOB", "only instances whose source test matches GLOB: a word found in it, or a\n"
		 "glob of it whole; lower case ignores case (comma-separated, repeatable)",
		 AT(r.select), runopts_parse_test),
	OPT_LIST('s', "suite", "NAME", "torch, keras, tf_keras: harvest this suite (repeatable; default: all)",
		 AT(suites)),
	OPT_INT('n', "limit", "N", "run the top N tests of each frontend's queue (after --per-op)", AT(limit), 1,
		1 << 30),
	OPT_INT(0, "per-op", "K", "take at most K tests of an operator down each queue", AT(per_op), 1, 1 << 30),
	OPT_INT(0, "vary", "K", "also run up to K variants of each test of the sample (ferry vary; default 0)",
		AT(vary_k), 0, 1000),
	OPT_INT(0, "generate", "N", "onnx: also run N generated graphs (ferry generate --seed 1), none in dtypes\n"
		"a frontend lacks (probed first, once per release; default 0)",
		AT(generate_n), 0, 1000000),
	OPT_INT(0, "triggers", "K", "run up to K one-change neighbours of each bug's simplest test on its\n"
		"frontend, to tell what triggers it (default 6)", AT(triggers), 1, 100),
	OPT_INT(0, "trigger-bugs", "N", "the neighbours of at most N bugs of a library (default 100)",
		AT(trigger_bugs), 1, 1 << 30),
	OPT_FLAG(0, "no-triggers", "run no neighbours of the bugs", AT(no_triggers)),
	OPT_FLAG(0, "no-html", "write no page (DIR/LIBRARY/html/index.html)", AT(no_html)),
	OPT_SECONDS(0, "budget", "SECS", "start no test after SECS seconds from the start of the command", AT(budget)),
	OPT_STRING(0, "counts", "FILE", "rank every queue against these counts (default: each frontend's own)",
		   AT(counts_opt)),
	OPT_STRING(0, "tolerances", "F", "per-operator tolerances (default: ferry's for the library, where it has\n"
		   "them)", AT(tolerances_opt)),
	OPT_CALL(0, "rerun", "WHAT", "run again tests that have a result: failed, errors (crash, timeout, oom)\n"
		 "or all", AT(r.s.rerun), parse_rerun),
	OPT_INT(0, "maxfail", "N", "start no test after N failures, then exit 5", AT(r.maxfail), 1, 1 << 30),
	OPT_FLAG('x', "exitfirst", "--maxfail 1: stop at the first failure", AT(r.exitfirst)),
	OPT_FLAG(0, "collect-only", "harvest, then list the instances --op and --test select (id, operator,\n"
		 "test, kind) and how many; wrap and run nothing", AT(r.collect_only)),
	OPT_INT('j', "jobs", "N", "worker processes (default: the number of cores)", AT(r.s.runner.jobs), 1, 256),
	OPT_SECONDS('t', "timeout", "SECS", "time one test may take (default 60)", AT(r.s.runner.timeout)),
	OPT_INT(0, "batch", "K", "up to K tests in one model on the frontends that take batches, as ferry run\n"
		"--batch (default 1: none)", AT(r.s.batch), 1, 1024),
	OPT_SECONDS(0, "harvest-timeout", "SECS", "time one test of the library's, or one sample of an OpInfo or\n"
		    "ModuleInfo entry, may take in the harvest (default 300)", AT(harvest_timeout)),
	OPT_SIZE('m', "memory", "SIZE", "memory one worker may use, e.g. 4G (default: a share of the machine's)",
		 AT(r.memory)),
	OPT_FLAG('q', "quiet", "no progress lines", AT(quiet)),
	OPT_FLAG(0, "json", "print one JSON document on stdout (the text goes to stderr): each library's\n"
		 "stages, files, counts by outcome and failures (doc/json.md)", AT(r.json)),
	OPT_END(),
};

/* -F absent: every frontend of the libraries named, as their adapters declare them. */
static int default_frontends(struct runopts *ro, const char *const *libs, size_t nlibs, struct err *e)
{
	char *table = NULL;
	int r = -1;

	if (py_start(cmd_python(), 0, e) < 0 || !(table = session_frontend_table(e)))
		goto out;
	for (const char *line = table; *line; line += strcspn(line, "\n"), line += *line == '\n') {
		size_t n = strcspn(line, "\t\n");
		const char *lib = line + n;
		size_t libn;

		if (*lib != '\t')
			continue;
		libn = strcspn(++lib, "\t\n");
		for (size_t i = 0; i < nlibs; i++)
			if (strlen(libs[i]) == libn && !strncmp(lib, libs[i], libn)) {
				char *name = xstrndup(line, n);

				r = runopts_add_frontends(ro, name, e);
				free(name);
				if (r < 0)
					goto out;
			}
	}
	r = 0;
out:
	free(table);
	return r;
}

static int cmd_go(int argc, char **argv)
{
	struct go_opts args = { 0 }, *a = &args;
	struct runopts *ro = &a->r;
	const char **libs = NULL;
	size_t nlibs = 0, max_libs;
	const char *dir;
	struct stage_io io = { stdout, cmd_warn_line, cmd_error, cmd_python(), NULL };
	struct warnlog warnings;
	struct err e = ERR_INIT;
	double start = progress_now();
	int code = EXIT_OK, has_suites;

	runopts_init(ro, cmd_warn_line);
	if (cmd_parse(&cmd_go_entry, argc, argv, a) < 0) {
		code = EXIT_USAGE;
		goto out;
	}
	ro->quiet = a->quiet;
	dir = a->output ? a->output : ".";
	if (libraries_load(cmd_python(), &e) < 0) {
		code = cmd_error(&e);
		goto out;
	}
	max_libs = libraries_count();
	libs = xcalloc(max_libs + 1, sizeof(*libs));
	for (int i = optind; i < argc; i++) {
		if (harvest_source(argv[i], &has_suites) < 0) {
			struct buf known = BUF_INIT;

			libraries_names(&known);
			code = cmd_usage_error(&cmd_go_entry, "unknown library '%s' (%s)", argv[i], known.data);
			buf_release(&known);
			goto out;
		}
		for (size_t k = 0; k < nlibs; k++)
			if (!strcmp(libs[k], argv[i])) {
				code = cmd_usage_error(&cmd_go_entry, "library '%s' named twice", argv[i]);
				goto out;
			}
		libs[nlibs++] = argv[i];
	}
	if (!ro->nfes && !nlibs) {
		code = cmd_usage_error(&cmd_go_entry, "name a LIBRARY or the frontends (-F)");
		goto out;
	}
	if (!ro->nfes && default_frontends(ro, libs, nlibs, &e) < 0) {
		code = cmd_error(&e);
		goto out;
	}
	/* The libraries are the frontends' when none is named; a frontend of another is a mistake. */
	for (size_t i = 0; i < ro->nfes; i++) {
		size_t k;

		for (k = 0; k < nlibs && strcmp(libs[k], ro->fes[i].library); k++)
			;
		if (k < nlibs)
			continue;
		if (optind < argc) {
			code = cmd_usage_error(&cmd_go_entry, "frontend '%s' takes %s models, and %s is not among the "
					       "libraries named", ro->fes[i].label, ro->fes[i].library,
					       ro->fes[i].library);
			goto out;
		}
		if (harvest_source(ro->fes[i].library, &has_suites) < 0 || nlibs == max_libs) {
			code = cmd_usage_error(&cmd_go_entry, "frontend '%s' takes %s models, which ferry cannot "
					       "harvest", ro->fes[i].label, ro->fes[i].library);
			goto out;
		}
		libs[nlibs++] = ro->fes[i].library;
	}
	ro->s.store = dir;
	if (runopts_finish(ro, &cmd_go_entry, dir, argc, argv) < 0) {
		code = EXIT_USAGE;
		goto out;
	}
	if (ro->json) {
		/* stdout is the document's alone; the stages still say what they do, on stderr. */
		io.out = stderr;
		a->json = cJSON_CreateObject();
		cJSON_AddStringToObject(a->json, "command", "go");
		cJSON_AddStringToObject(a->json, "dir", dir);
		cJSON_AddArrayToObject(a->json, "libraries");
	}
	warnlog_open(&warnings, dir);
	io.warnings = &warnings;
	code = go_run(a, libs, nlibs, dir, start, &io);
	warnlog_close(&warnings);
	if (a->json) {
		cJSON_AddNumberToObject(a->json, "exit", code);
		runopts_json_print(a->json);
		a->json = NULL;
	}
out:
	free(libs);
	opts_list_release(&a->suites);
	runopts_release(ro);
	err_release(&e);
	return code;
}

const struct cmd_entry cmd_go_entry = {
	.name = "go", .fn = cmd_go, .needs = CMD_NEEDS_NOTHING, .usage = usage, .opts = options, .more = more,
	.summary = "from libraries and frontends to a bug list, every stage in one command",
};
