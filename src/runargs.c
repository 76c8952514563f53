/* runargs.c: the command line of a run (runargs.h): the options of ferry run and ferry check (one
 * table fragment), the frontends they name, what they must say before a session starts, and the
 * frontends' list in their help. */
#include "runargs.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "esc.h"
#include "fsutil.h"
#include "py.h"
#include "tolerance.h"
#include "xalloc.h"

/* One frontend as -F or a frontends file gives it: NAME, NAME:LIBRARY, NAME@PYTHON. */
static int add_frontend(struct runopts *r, const char *spec, struct err *e)
{
	/* The frontends are the adapters' declarations, which Python reads (session_frontend_table);
	 * the interpreter installs no signal handlers here: Ctrl-C is the run's. */
	if (py_start(cmd_python(), 0, e) < 0)
		return -1;
	if (r->nfes == RUNOPTS_MAX_FRONTENDS)
		return err_set(e, EXIT_USAGE, "at most %d frontends in one run", RUNOPTS_MAX_FRONTENDS);
	if (session_frontend(spec, &r->fes[r->nfes], e) < 0)
		return -1;
	r->nfes++;
	return 0;
}

int runopts_add_frontends(struct runopts *r, const char *list, struct err *e)
{
	char *names = xstrdup(list), *save = NULL;
	int ret = 0;

	for (char *tok = strtok_r(names, ",", &save); tok && ret == 0; tok = strtok_r(NULL, ",", &save))
		ret = add_frontend(r, tok, e);
	free(names);
	return ret;
}

static int parse_frontends(void *value, const char *list, struct err *e)
{
	return runopts_add_frontends(value, list, e);
}

int runopts_parse_op(void *value, const char *arg, struct err *e)
{
	(void)e;
	select_add(value, 1, arg);
	return 0;
}

int runopts_parse_test(void *value, const char *arg, struct err *e)
{
	(void)e;
	select_add(value, 0, arg);
	return 0;
}

static int parse_rerun(void *value, const char *arg, struct err *e)
{
	if (session_rerun_parse(arg, value) < 0)
		return err_set(e, EXIT_USAGE, "--rerun takes failed, errors or all, not '%s'", arg);
	return 0;
}

/* A frontends file: one frontend per line as -F takes it, '#' comments and blank lines; what a user
 * keeps to run the same releases again (openvino-pytorch@/opt/ov2023/bin/python). */
static int parse_frontends_file(void *value, const char *path, struct err *e)
{
	struct runopts *r = value;
	struct buf text = BUF_INIT;
	size_t lineno = 0;
	char *line;
	int ret = -1;

	if (fs_input_file(path, e) < 0 || fs_read(path, &text, e) < 0)
		goto out;
	for (char *p = text.data; p && *p; p = line) {
		char *end;

		lineno++;
		line = strchr(p, '\n');
		if (line)
			*line++ = '\0';
		p[strcspn(p, "#")] = '\0';
		p += strspn(p, " \t\r");
		for (end = p + strlen(p); end > p && strchr(" \t\r", end[-1]); end--)
			;
		*end = '\0';
		if (!*p)
			continue;
		if (strpbrk(p, " \t,")) {
			err_set(e, EXIT_USAGE, "%s:%zu: one frontend per line (NAME, NAME:LIBRARY or NAME@PYTHON), "
				"not '%s'", path, lineno, p);
			goto out;
		}
		if (add_frontend(r, p, e) < 0) {
			err_prefix(e, "%s:%zu", path, lineno);
			goto out;
		}
	}
	ret = 0;
out:
	buf_release(&text);
	return ret;
}

void runopts_help(FILE *fp)
{
	struct err e = ERR_INIT;
	char *table = NULL;

	fputs("\nFrontends (as their adapters declare them: ferry/oracle/adapters/, and adapter_NAME.py in\n"
	      "the directories of FERRY_ADAPTERS):\n", fp);
	if (py_start(cmd_python(), 0, &e) < 0 || !(table = session_frontend_table(&e))) {
		fprintf(fp, "  (cannot list them: %s)\n", esc_str(e.msg));
		goto out;
	}
	for (const char *line = table; *line; line += strcspn(line, "\n"), line += *line == '\n') {
		int n = (int)strcspn(line, "\t\n"), libn = 0, sumn = 0;
		const char *lib = line + n, *sum = "";
		char *text;

		if (*lib == '\t') {
			libn = (int)strcspn(++lib, "\t\n");
			if (lib[libn] == '\t')
				sum = lib + libn + 1, sumn = (int)strcspn(sum, "\n");
		}
		text = xasprintf("%.*s %s%.*s%s", sumn, sum, libn ? "(" : "(run it as NAME:LIBRARY",
				       libn, lib, libn ? " models)" : ")");

		/* Summaries are the adapters' text (esc.h): a user's adapter may say anything; names are
		 * letters, digits, - and _ (registry.valid_name). */
		fprintf(fp, "  %-18.*s %s\n", n, line, esc_str(sumn ? text : text + 1));
		free(text);
	}
out:
	free(table);
	err_release(&e);
}

static int parse_shard(void *value, const char *arg, struct err *e)
{
	struct session_opts *s = value;
	int n, i;

	if (sscanf(arg, "%d/%d%n", &i, &n, &(int){ 0 }) != 2 || n < 1 || i < 0 || i >= n ||
	    strspn(arg, "0123456789/") != strlen(arg))
		return err_set(e, EXIT_USAGE, "--shard takes I/N with 0 <= I < N, e.g. 0/4");
	s->shard = i;
	s->nshards = n;
	return 0;
}

#define AT(f) offsetof(struct runopts, f)

const struct opt runopts_options[] = {
	OPT_CALL('F', "frontend", "LIST", "frontends to run, comma-separated: the built-in ones ('ferry run --help'\n"
		 "lists them), or NAME:LIBRARY for an adapter of your own found through\n"
		 "FERRY_ADAPTERS (see README); NAME@PYTHON runs it under the interpreter of\n"
		 "another virtualenv (another release), stored as NAME@VERSION", 0, parse_frontends),
	OPT_CALL(0, "frontends", "FILE", "add the frontends of FILE, one per line as -F takes them ('#' comments)",
		 0, parse_frontends_file),
	OPT_STRING('o', "output", "STORE", "the results store to create or resume", AT(s.store)),
	OPT_STRING(0, "queue", "FILE", "run in this order (a queue from ferry rank; others are not run)",
		   AT(s.queue)),
	OPT_INT('n', "limit", "N", "the top N tests of the queue per frontend (those already in the store\n"
		"count: the same command run again finishes the same N)", AT(limit), 0, 1 << 30),
	OPT_CALL(0, "op", "GLOB", "only tests whose operator matches GLOB: a word found in the name, or a glob\n"
		 "of the whole name or its last dotted part; lower case ignores case\n"
		 "(comma-separated, repeatable)", AT(select), runopts_parse_op),
	OPT_CALL(0, "test", "GLOB", "only tests whose source test (the record's source.test) matches GLOB:\n"
		 "a word found in it, or a glob of it whole; lower case ignores case\n"
		 "(comma-separated, repeatable)", AT(select), runopts_parse_test),
	OPT_CALL(0, "rerun", "WHAT", "run again tests that have a result: failed (every failure), errors\n"
		 "(crash, timeout, oom: after fixing an adapter) or all", AT(s.rerun), parse_rerun),
	OPT_INT(0, "maxfail", "N", "start no test after N failures (the running ones finish), then exit 5",
		AT(maxfail), 1, 1 << 30),
	OPT_FLAG('x', "exitfirst", "--maxfail 1: stop at the first failure", AT(exitfirst)),
	OPT_FLAG(0, "collect-only", "list the tests that the queue, --op, --test, -n and --shard select (id,\n"
		 "operator, test, kind) and how many, and run nothing", AT(collect_only)),
	OPT_SECONDS(0, "budget", "SECS", "start no test after SECS seconds (the running ones finish)",
		    AT(s.budget)),
	OPT_CALL(0, "shard", "I/N", "take every N-th test of the queue from offset I (0 <= I < N)", AT(s),
		 parse_shard),
	OPT_INT('j', "jobs", "N", "worker processes (default: the number of cores)", AT(s.runner.jobs), 1, 256),
	OPT_SECONDS('t', "timeout", "SECS", "time one test may take (default 60)", AT(s.runner.timeout)),
	OPT_INT(0, "batch", "K", "up to K tests in one model on the frontends that take batches (tvm-onnx,\n"
		"iree-onnx, openvino-onnx, ort); a batch that fails is split in halves down to\n"
		"single tests, so every failure is a test's alone (default 1: none)",
		AT(s.batch), 1, 1024),
	OPT_SIZE('m', "memory", "SIZE", "memory one worker may use, e.g. 4G (default: a share of the machine's)",
		 AT(memory)),
	OPT_DOUBLE(0, "atol", "X", "absolute tolerance of the value oracle (default 1e-3)", AT(s.atol)),
	OPT_DOUBLE(0, "rtol", "X", "relative tolerance of the value oracle (default 1e-3)", AT(s.rtol)),
	OPT_STRING(0, "tolerances", "F", "per-operator tolerances: lines of OP DTYPE FRONTEND ATOL RTOL REASON;\n"
		   "a file, or the name of one of ferry's (torch, keras)", AT(s.tolerances)),
	OPT_FLAG(0, "no-probe", "do not probe what the frontend supports (by default the simplest test of each\n"
		 "operator and dtype runs first, once per frontend release; probes count toward\n"
		 "the progress line, not toward --limit)", AT(s.no_probe)),
	OPT_FLAG(0, "differential", "compare the frontends with each other on every test (by default only on\n"
		 "multi-node graphs): each frontend keeps its outputs in STORE.outputs, and a\n"
		 "disagreement is a result of the pair A~B", AT(s.differential)),
	OPT_FLAG('q', "quiet", "no progress line", AT(quiet)),
	OPT_FLAG(0, "json", "print one JSON document instead of the text: counts by outcome per frontend,\n"
		 "the failures with their names and bugs (doc/json.md)", AT(json)),
	OPT_STRING(0, "oracle", "NAME", "reference (default: the source library's outputs) or metamorphic (each\n"
		   "model against mutations of it that compute the same function, ONNX frontends;\n"
		   "each inconsistency reduced when it is found; a store holds one oracle's)", AT(oracle)),
	OPT_INT('k', "mutations", "N", "mutations per model, metamorphic oracle (default 3)", AT(mutations), 1,
		1000),
	OPT_INT(0, "seed", "S", "the seed of the mutations, metamorphic oracle (default 0)", AT(seed), 0,
		2147483647),
	OPT_END(),
};

/* --oracle, -k and --seed: the metamorphic oracle takes ONNX frontends only, and the other options
 * are its own. */
static int check_oracle(struct runopts *r, const struct cmd_entry *c)
{
	struct err e = ERR_INIT;

	if (r->oracle && strcmp(r->oracle, "reference") && !session_metamorphic(r->oracle)) {
		cmd_usage_error(c, "no oracle '%s' (reference, metamorphic)", r->oracle);
		return -1;
	}
	if (!session_metamorphic(r->oracle)) {
		if (r->mutations >= 0 || r->seed >= 0) {
			cmd_usage_error(c, "%s is the metamorphic oracle's: add --oracle metamorphic",
					r->mutations >= 0 ? "-k" : "--seed");
			return -1;
		}
		return 0;
	}
	r->s.oracle = r->oracle;
	r->s.mutations = r->mutations >= 0 ? r->mutations : 3;
	r->s.seed = r->seed >= 0 ? r->seed : 0;
	if (session_check_metamorphic(r->fes, r->nfes, &e) < 0) {
		if (e.code == EXIT_USAGE)
			cmd_usage_error(c, "%s", e.msg);
		else
			cmd_error(&e);
		err_release(&e);
		return -1;
	}
	return 0;
}

/* NAME@PYTHON is stored as NAME@VERSION: its worker says which release it is. Two entries of one
 * label would run the same release twice into the same results. */
static int label_frontends(struct runopts *r, const struct cmd_entry *c)
{
	struct err e = ERR_INIT;

	for (size_t i = 0; i < r->nfes; i++) {
		if (r->fes[i].python && !r->quiet)
			fprintf(stderr, "ferry: asking %s@%s which release it is\n", r->fes[i].name,
				esc_str(r->fes[i].python));
		if (session_frontend_label(&r->fes[i], &r->s.runner, &e) < 0) {
			cmd_error(&e);
			err_release(&e);
			return -1;
		}
		for (size_t k = 0; k < i; k++)
			if (!strcmp(r->fes[k].label, r->fes[i].label)) {
				cmd_usage_error(c, "frontends %zu and %zu are the same release, %s: name it once",
						k + 1, i + 1, r->fes[i].label);
				return -1;
			}
	}
	return 0;
}

int runopts_finish(struct runopts *r, const struct cmd_entry *c, const char *wrapdir, int argc, char **argv)
{
	struct buf cmdline = BUF_INIT;

	/* Listing what is selected needs neither: without -F it lists every library's tests. */
	r->s.collect_only = r->collect_only;
	if (!r->nfes && !r->collect_only) {
		cmd_usage_error(c, "no frontend: name one or more with --frontend ('ferry %s --help' lists them)",
				c->name);
		return -1;
	}
	if (!r->s.store && !r->collect_only) {
		cmd_usage_error(c, "no output: say which store to write with -o");
		return -1;
	}
	if (check_oracle(r, c) < 0)
		return -1;
	if (r->exitfirst && r->maxfail > 1) {
		cmd_usage_error(c, "-x is --maxfail 1: not with --maxfail %d", r->maxfail);
		return -1;
	}
	if (r->exitfirst)
		r->maxfail = 1;
	r->s.limit = r->limit;
	r->s.maxfail = r->maxfail;
	r->s.select = &r->select;
	r->s.runner.mem_limit = r->memory ? r->memory : opts_default_memory(r->s.runner.jobs);
	if (label_frontends(r, c) < 0)
		return -1;
	r->s.wrapdir = wrapdir;
	r->s.fes = r->fes;
	r->s.nfes = r->nfes;
	for (int i = 0; i < argc; i++)
		buf_addf(&cmdline, "%s%s", i ? " " : "ferry ", argv[i]);
	r->command = buf_detach(&cmdline);
	r->s.command = r->command;
	return 0;
}
