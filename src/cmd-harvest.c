/* cmd-harvest.c: ferry harvest SOURCE -o CORPUS
 *
 * Runs a library's test knowledge under ferry's instrumentation (extract/harvest_SOURCE.py, in the
 * embedded interpreter) and writes every operator instance it records to a corpus, one JSON line per
 * instance. Each record is validated and given its id in C, by the engine; usages that are identical (same
 * canonical form) merge into the first one seen. The counts are kept per suite (each record's
 * source.suite: a source such as torch has several), so the summary says what each one gave. The
 * corpus is written beside its final name and renamed when the harvest is complete, so an
 * interrupted harvest never leaves a corpus that looks whole; what it did harvest is kept in
 * CORPUS.partial.
 *
 * The harvest runs third-party test code: pytest files, documentation examples, sample generators.
 * It does not run in this process but in children, ferry harvest-child (src/cmd-harvest-child.c),
 * which the engine (extract/harvest.h) starts, sandboxes, watches and restarts after a test that
 * takes its process down. This file parses the options, shows progress and prints the summary; a
 * harvest that ends early says so and exits non-zero. */
#include "py.h"

#include <ctype.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd.h"
#include "cpp.h"
#include "esc.h"
#include "fsutil.h"
#include "harvest.h"
#include "home.h"
#include "libraries.h"
#include "progress.h"
#include "runopts.h"
#include "xalloc.h"

static const char usage[] =
	"usage: ferry harvest SOURCE [--filter GLOB]... -o CORPUS\n"
	"       ferry harvest torch|keras [--suite NAME]... [--pytest PATH]... [--filter GLOB]... -o CORPUS\n"
	"       ferry harvest onnx|torch --cpp PATH... [-I DIR]... [-D NAME]... [--compile-commands DIR] -o CORPUS\n"
	"\n"
	"Record every operator instance that a library's tests create, as a corpus (JSON Lines).\n"
	"\n"
	"Sources:\n"
	"  onnx           every node test the installed onnx package knows\n"
	"  torch          PyTorch's test knowledge, shipped in the torch wheel: the suites opinfo (the\n"
	"                 OpInfo samples of every operator, each CPU dtype), modules (the ModuleInfo\n"
	"                 inputs of every module) and nn (common_nn's module and criterion tests);\n"
	"                 and pytest files or directories, run under the instrumentation\n"
	"  keras          Keras's layer and keras.ops instances: the suites docstrings (the examples in\n"
	"                 the documentation of every public layer and op), applications (every\n"
	"                 keras.applications architecture, built with weights=None), layer-tests and\n"
	"                 ops-tests (Keras's own tests of the installed version, from its source\n"
	"                 distribution on the package index, downloaded once into $FERRY_CACHE, default\n"
	"                 ~/.cache/ferry, and checked by hash; offline, the rest is harvested); and\n"
	"                 pytest files or directories (a checkout of Keras's tests), run under the\n"
	"                 instrumentation\n"
	"  --cpp          onnx: ONNX Runtime's OpTester tests (onnxruntime/test/providers/), torch:\n"
	"                 libtorch's C++ API tests (test/cpp/api/), read with libclang, not run\n";

static const char more[] =
	"The tests run in a child process, in a scratch directory that is also their HOME and TMPDIR,\n"
	"and, when bubblewrap is installed (Debian package bubblewrap; $FERRY_BWRAP names another\n"
	"bwrap), in a sandbox that shows them only what they need, read-only, with no terminal, no\n"
	"network and no capabilities (a warning names any part the machine refuses). What they print\n"
	"is shown escaped, each line marked 'test|'. A test that exits, crashes, hangs or writes\n"
	"to ferry's channel is counted under 'tests crashed' with the reason, and the harvest goes on\n"
	"from the next test; exit status 0. A harvest that ends early says so, keeps what it harvested\n"
	"in CORPUS.partial and exits non-zero (130 on Ctrl-C).\n";


static const char *output, *keras_tests, *compile_commands;
static struct opts_list patterns, suites, pytest, cpp, includes, defines, envs;
static double timeout, parse_timeout;
static unsigned long long parse_memory;
static int no_sandbox, quiet;
static struct select sel;

static const struct opt options[] = {
	OPT_STRING('o', "output", "FILE", "the corpus to write ('-' for standard output)", &output),
	OPT_LIST('f', "filter", "GLOB", "keep only instances whose operator or test matches GLOB (repeatable)",
		 &patterns),
	OPT_CALL(0, "op", "GLOB", "keep only instances whose operator matches GLOB (the whole name or its last\n"
		 "dotted part; comma-separated, repeatable)", &sel, runopts_parse_op),
	OPT_CALL(0, "test", "GLOB", "keep only instances whose source test matches GLOB (comma-separated,\n"
		 "repeatable)", &sel, runopts_parse_test),
	OPT_LIST('s', "suite", "NAME", "torch, keras: harvest this suite (repeatable; default: all of the\n"
		 "source's suites, unless --pytest is given)", &suites),
	OPT_LIST('p', "pytest", "PATH",
		 "torch, keras: run the pytest tests of PATH, a file or a directory, and record\n"
		 "what they call (repeatable); a test that fails does not stop the harvest", &pytest),
	OPT_STRING(0, "keras-tests", "SET", "keras: which of Keras's own test files layer-tests and ops-tests\n"
		   "run: default, all, or comma-separated globs under keras/src ('layers/core/*')",
		   &keras_tests),
	OPT_LIST(0, "cpp", "PATH", "onnx, torch: read the C++ tests of PATH, a file or a directory, with\n"
		 "libclang (Debian package libclang1-14) instead of running Python's (repeatable)", &cpp),
	OPT_LIST('I', "include", "DIR", "--cpp: an include directory of the checkout (repeatable)", &includes),
	OPT_LIST('D', "define", "NAME[=V]", "--cpp: a macro the checkout's build defines (repeatable)", &defines),
	OPT_STRING(0, "compile-commands", "DIR", "--cpp: parse each file with its command in\n"
		   "DIR/compile_commands.json (a configured build of the checkout)", &compile_commands),
	OPT_SIZE(0, "parse-memory", "SIZE", "--cpp: the memory one file's parse may use (default 2G); a file\n"
		 "whose parse needs more is skipped", &parse_memory),
	OPT_SECONDS(0, "parse-timeout", "SECS", "--cpp: the time (CPU and wall clock) one file's parse may take\n"
		    "(default 60); a file whose parse takes longer is skipped", &parse_timeout),
	OPT_SECONDS('t', "timeout", "SECS", "a test that runs longer is stopped and counted as crashed (default 300)",
		    &timeout),
	OPT_LIST(0, "env", "NAME", "the tests also see the environment variable NAME (repeatable); they\n"
		 "see only the locale, PATH, Python's and the libraries' own settings otherwise", &envs),
	OPT_FLAG(0, "no-sandbox", "run the tests without bubblewrap's sandbox", &no_sandbox),
	OPT_FLAG('q', "quiet", "no progress line", &quiet),
	OPT_END(),
};

/* A name the shell could export: a letter or '_', then letters, digits and '_'. */
static bool env_name_valid(const char *name)
{
	if (!*name || isdigit((unsigned char)*name))
		return false;
	for (; *name; name++)
		if (!isalnum((unsigned char)*name) && *name != '_')
			return false;
	return true;
}

/* keras: Keras's own tests come from its source distribution, fetched here (extract/keras_tests.py),
 * in this process, before any child runs: the sandboxed children have no business reaching the
 * network. Where they cannot be had, one line says why and the rest is harvested. */
static int fetch_keras_tests(struct err *e)
{
	struct buf names = BUF_INIT;
	const char *args[2];
	char *msg = NULL;
	int r = -1;

	/* the suites as a JSON list; a suite name with a quote or a backslash is no known suite */
	buf_addc(&names, '[');
	for (size_t i = 0; i < suites.n; i++)
		if (!strpbrk(suites.v[i], "\"\\"))
			buf_addf(&names, "%s\"%s\"", names.len > 1 ? "," : "", suites.v[i]);
	buf_addc(&names, ']');
	args[0] = names.data;
	args[1] = pytest.n ? "1" : "0";
	if (keras_tests && setenv("FERRY_KERAS_TESTS", keras_tests, 1) < 0) {
		err_errno(e, EXIT_ENV, "setenv");
		goto out;
	}
	if (py_start(cmd_python(), 0, e) < 0 ||
	    !(msg = py_call_strings("ferry.extract.keras_tests", "prepare", args, 2,
				    "cannot prepare Keras's tests", e)))
		goto out;
	if (*msg)
		cmd_warn("%s", msg);
	r = 0;
out:
	free(msg);
	buf_release(&names);
	return r;
}

/* The progress line, and the label of the suite it is about. */
struct show {
	struct progress progress;
	char label[64];
};

static void on_warn(void *ctx, const char *msg)
{
	struct show *sh = ctx;

	progress_clear(&sh->progress);
	cmd_warn("%s", msg);
}

/* What the tests wrote, escaped by the engine: marked as theirs, so that it cannot pass for ferry's. */
static void on_output(void *ctx, const char *line)
{
	struct show *sh = ctx;

	progress_clear(&sh->progress);
	fflush(stdout);
	fprintf(stderr, "test| %s\n", line);
}

static void on_progress(void *ctx, long done, long total, const char *label)
{
	struct show *sh = ctx;

	/* A source with several suites reports each under its own label: one progress line each. */
	if (label && *label && strcmp(label, sh->label)) {
		if (sh->label[0])
			progress_finish(&sh->progress);
		snprintf(sh->label, sizeof(sh->label), "%s", label);
		progress_start(&sh->progress, sh->label, 0, sh->progress.quiet);
	}
	sh->progress.total = total > 0 ? (size_t)total : 0;
	progress_update(&sh->progress, (size_t)done, 0);
}

/* The counts: "tests" first as "tests read", then the others under their own names, the calls not
 * recorded last with their reasons, most frequent first; then the tests that took their process
 * down, each with its reason. */
static void print_counts(FILE *fp, const struct harvest *h, const struct harvest_counts *counts, int w)
{
	size_t *idx, n, plen = strlen(HARVEST_NOT_RECORDED_BY);

	for (size_t i = 0; i < counts->n; i++)
		if (!strcmp(counts->keys[i], "tests"))
			fprintf(fp, "  %-*s %ld\n", w, "tests read", counts->vals[i]);
	for (size_t i = 0; i < counts->n; i++)
		if (strcmp(counts->keys[i], "tests") && strcmp(counts->keys[i], HARVEST_NOT_RECORDED) &&
		    strncmp(counts->keys[i], HARVEST_NOT_RECORDED_BY, plen))
			fprintf(fp, "  %-*s %ld\n", w, esc_str(counts->keys[i]), counts->vals[i]);
	fprintf(fp, "  %-*s %ld\n", w, HARVEST_NOT_RECORDED, harvest_count(counts, HARVEST_NOT_RECORDED));
	n = harvest_not_recorded(counts, &idx);
	for (size_t i = 0; i < n && i < 15; i++)
		fprintf(fp, "    %6ld  %s\n", counts->vals[idx[i]], esc_str(counts->keys[idx[i]] + plen));
	if (n > 15)
		fprintf(fp, "    (%zu more reasons)\n", n - 15);
	free(idx);
	if (!h->ncrashed)
		return;
	fprintf(fp, "  %-*s %zu\n", w, "tests crashed", h->ncrashed);
	for (size_t i = 0; i < h->ncrashed; i++)
		fprintf(fp, "    %s\n", esc_str(h->crashed[i]));
}

/* One row per suite when the source has several: instances, operators, merged, unmigratable; then
 * the reasons instances are unmigratable, per suite. */
static void print_suites(FILE *fp, const struct harvest *h)
{
	struct strmap_entry **v = strmap_sorted(&h->suites);

	fprintf(fp, "  %-10s %10s %10s %10s %13s\n", "suite", "instances", "operators", "merged", "unmigratable");
	for (size_t i = 0; v[i]; i++) {
		const struct harvest_suite *s = v[i]->ptr;

		fprintf(fp, "  %-10s %10zu %10zu %10zu %13zu\n", esc_str(v[i]->key), s->instances, s->ops.len,
			s->merged,
			s->unmigratable);
	}
	fprintf(fp, "  %-10s %10zu %10zu %10zu %13zu\n", "all", h->instances, h->ops.len, h->merged, h->unmigratable);
	for (size_t i = 0; v[i]; i++) {
		const struct harvest_suite *s = v[i]->ptr;
		struct strmap_entry **w;

		if (!s->unmigratable)
			continue;
		fprintf(fp, "  unmigratable in %s, by reason:\n", esc_str(v[i]->key));
		w = strmap_sorted(&s->why);
		for (size_t j = 0; w[j] && j < 10; j++)
			fprintf(fp, "    %6zu  %s\n", w[j]->count, esc_str(w[j]->key));
		if (s->why.len > 10)
			fprintf(fp, "    (%zu more reasons)\n", s->why.len - 10);
		free(w);
	}
	free(v);
}

static void print_summary(FILE *fp, const struct harvest *h, const char *source, int has_suites,
			  const struct harvest_counts *counts)
{
	struct strmap_entry **v = strmap_sorted(&h->skipped);
	size_t skipped = 0;
	int w = 20;

	for (size_t i = 0; v[i]; i++)
		skipped += v[i]->count;
	/* One column of numbers: as wide as the longest label ("test files that failed to import") */
	for (size_t i = 0; i < counts->n; i++)
		if (strncmp(counts->keys[i], HARVEST_NOT_RECORDED_BY, strlen(HARVEST_NOT_RECORDED_BY)) &&
		    strlen(counts->keys[i]) > (size_t)w && strlen(counts->keys[i]) < 60)
			w = (int)strlen(counts->keys[i]);
	fprintf(fp, "harvest %s:\n", source);
	print_counts(fp, h, counts, w);
	fprintf(fp, "  %-*s %zu\n", w, "instances", h->instances);
	fprintf(fp, "  %-*s %zu\n", w, "distinct operators", h->ops.len);
	fprintf(fp, "  %-*s %zu\n", w, "duplicates merged", h->merged);
	fprintf(fp, "  %-*s %zu\n", w, "unmigratable", h->unmigratable);
	if (h->left_out)
		fprintf(fp, "  %-*s %zu\n", w, "not --op/--test", h->left_out);
	fprintf(fp, "  %-*s %zu\n", w, "skipped", skipped);
	for (size_t i = 0; v[i] && i < 15; i++)
		fprintf(fp, "    %6zu  %s\n", v[i]->count, esc_str(v[i]->key));
	if (h->skipped.len > 15)
		fprintf(fp, "    (%zu more reasons)\n", h->skipped.len - 15);
	free(v);
	if (h->suites.len > 1 || has_suites)
		print_suites(fp, h);
}

/* --cpp: the C++ harvester reads the tests and runs nothing; it parses each file in a child of its
 * own, with limits (extract/cpp.h), and its records go through the engine as a child's would. */
struct cpp_ctx {
	struct harvest *h;
	struct harvest_opts *o;
	struct show *sh;
};

static int cpp_emit(void *ctx, const char *json, size_t len, struct err *e)
{
	struct cpp_ctx *c = ctx;

	return harvest_take(c->h, c->o, json, len, e);
}

static void cpp_count(void *ctx, const char *key, long n)
{
	struct cpp_ctx *c = ctx;

	harvest_count_add(c->h, key, n);
}

static void cpp_warn(void *ctx, const char *msg)
{
	struct cpp_ctx *c = ctx;

	on_warn(c->sh, msg);
}

static void cpp_progress(void *ctx, long done, long total, const char *file)
{
	struct cpp_ctx *c = ctx;

	(void)file;
	on_progress(c->sh, done, total, NULL);
}

/* A file whose parse passed a limit or died: said now, and listed with the skips of the summary. */
static void cpp_skip(void *ctx, const char *file, const char *why)
{
	struct cpp_ctx *c = ctx;
	char *key = xasprintf("%s: %s", file, why);

	progress_clear(&c->sh->progress);
	cmd_warn("skipped '%s': %s", file, why);
	strmap_get(&c->h->skipped, key, NULL)->count++;
	free(key);
}

static int harvest_cpp(struct harvest *h, struct harvest_opts *o, struct show *sh, const char *source,
		       struct err *e)
{
	struct cpp_ctx c = { h, o, sh };
	struct cpp_opts co;
	char **files = NULL;
	size_t n = 0;
	int r;

	memset(&co, 0, sizeof(co));
	co.includes = (const char *const *)includes.v;
	co.nincludes = includes.n;
	co.defines = (const char *const *)defines.v;
	co.ndefines = defines.n;
	co.compile_commands = compile_commands;
	co.mem_limit = parse_memory;
	co.timeout = parse_timeout;
	co.ctx = &c;
	co.emit = cpp_emit;
	co.count = cpp_count;
	co.warn = cpp_warn;
	co.progress = cpp_progress;
	co.skip = cpp_skip;
	if (cpp_files((const char *const *)cpp.v, cpp.n, 0, &files, &n, e) < 0)
		return -1;
	if (!n) {
		free(files);
		return err_set(e, EXIT_INPUT, "no C++ files (*.cc, *.cpp, *.cxx) under the --cpp paths");
	}
	r = !strcmp(source, "onnx") ? cpp_harvest_onnx(files, n, &co, e) : cpp_harvest_torch(files, n, &co, e);
	for (size_t i = 0; i < n; i++)
		free(files[i]);
	free(files);
	return r;
}

static int cmd_harvest(int argc, char **argv)
{
	struct harvest h;
	struct harvest_opts o;
	struct show sh;
	struct err e = ERR_INIT;
	const char *source;
	char *partial = NULL, *pydir = NULL, **derived = NULL;
	size_t nderived = 0, nderived_cap = 0;
	FILE *out = NULL;
	int has_suites = 0, code = EXIT_OK;

	harvest_init(&h);
	memset(&o, 0, sizeof(o));
	memset(&sh, 0, sizeof(sh));
	timeout = HARVEST_DEFAULT_TIMEOUT;
	if (opts_parse(&cmd_harvest_entry, argc, argv) < 0) {
		code = EXIT_USAGE;
		goto out;
	}
	if (optind + 1 != argc) {
		code = cmd_usage_error(&cmd_harvest_entry, "harvest takes one SOURCE");
		goto out;
	}
	source = argv[optind];
	if (libraries_load(cmd_python(), &e) < 0) {
		code = cmd_error(&e);
		goto out;
	}
	if (harvest_source(source, &has_suites) < 0) {
		struct buf known = BUF_INIT;

		libraries_names(&known);
		code = cmd_usage_error(&cmd_harvest_entry, "unknown source '%s' (known: %s)", source, known.data);
		buf_release(&known);
		goto out;
	}
	if (keras_tests && strcmp(source, "keras")) {
		code = cmd_usage_error(&cmd_harvest_entry, "--keras-tests is for source 'keras'");
		goto out;
	}
	if (cpp.n && strcmp(source, "onnx") && strcmp(source, "torch")) {
		code = cmd_usage_error(&cmd_harvest_entry, "--cpp is for sources 'onnx' and 'torch'");
		goto out;
	}
	if (!cpp.n && (includes.n || defines.n || compile_commands || parse_memory || parse_timeout)) {
		code = cmd_usage_error(&cmd_harvest_entry,
				       "-I, -D, --compile-commands, --parse-memory and --parse-timeout go with --cpp");
		goto out;
	}
	if (cpp.n && (suites.n || pytest.n || patterns.n)) {
		code = cmd_usage_error(&cmd_harvest_entry, "--cpp takes no --suite, --pytest or --filter");
		goto out;
	}
	for (size_t i = 0; i < cpp.n; i++)
		if (access(cpp.v[i], R_OK) < 0) {
			err_errno(&e, EXIT_INPUT, "cannot read '%s'", cpp.v[i]);
			code = cmd_error(&e);
			goto out;
		}
	if (!has_suites && (suites.n || pytest.n)) {
		code = cmd_usage_error(&cmd_harvest_entry, "source '%s' takes no --suite or --pytest", source);
		goto out;
	}
	for (size_t i = 0; i < pytest.n; i++)
		if (access(pytest.v[i], F_OK) < 0) {
			err_errno(&e, EXIT_INPUT, "cannot read '%s'", pytest.v[i]);
			code = cmd_error(&e);
			goto out;
		}
	for (size_t i = 0; i < envs.n; i++)
		if (!env_name_valid(envs.v[i])) {
			code = cmd_usage_error(&cmd_harvest_entry, "--env takes a variable's name, not '%s'",
					       envs.v[i]);
			goto out;
		}
	if (!output) {
		code = cmd_usage_error(&cmd_harvest_entry, "no output: say where the corpus goes with -o");
		goto out;
	}
	/* The children need them; checked here, so that a missing one is said once and not per child. */
	if (!cpp.n && !fs_exists(cmd_python())) {
		err_set(&e, EXIT_ENV, "no Python interpreter at '%s' (run scripts/setup, or set FERRY_PYTHON)",
			cmd_python());
		code = cmd_error(&e);
		goto out;
	}
	if (!cpp.n && !(pydir = home_python_dir(&e))) {
		code = cmd_error(&e);
		goto out;
	}
	if (!strcmp(source, "keras") && fetch_keras_tests(&e) < 0) {
		code = cmd_error(&e);
		goto out;
	}
	if (!strcmp(output, "-")) {
		o.out = stdout;
		o.out_name = "standard output";
	} else {
		partial = xasprintf("%s.partial", output);
		if (!(out = fopen(partial, "w"))) {
			err_errno(&e, EXIT_ENV, "cannot create '%s'", partial);
			code = cmd_error(&e);
			goto out;
		}
		o.out = out;
		o.out_name = partial;
	}
	o.source = source;
	/* The children of a harvester that declares FILTER_OPS (torch's, keras's) pass over the samples
	 * and tests that no --filter pattern can match. --op and --test alone become such patterns too:
	 * their union is wider than the selection (applied to each record here), and a selected
	 * harvest does not run every sample of every suite. An operator glob also matches after the
	 * last dot, as the selection does. */
	if (!patterns.n && select_any(&sel) && libraries_find(source)->filter_ops) {
		for (size_t i = 0; i < sel.nops; i++) {
			char *dotted = xasprintf("*.%s", sel.ops[i]);

			XGROW(derived, nderived_cap, nderived + 2);
			derived[nderived++] = xstrdup(sel.ops[i]);
			derived[nderived++] = dotted;
		}
		for (size_t i = 0; i < sel.ntests; i++) {
			XGROW(derived, nderived_cap, nderived + 1);
			derived[nderived++] = xstrdup(sel.tests[i]);
		}
		o.patterns = (const char *const *)derived;
		o.npatterns = nderived;
	} else {
		o.patterns = patterns.v;
		o.npatterns = patterns.n;
	}
	o.select = &sel;
	o.suites = suites.v;
	o.nsuites = suites.n;
	o.pytest = pytest.v;
	o.npytest = pytest.n;
	o.timeout = timeout;
	o.no_sandbox = no_sandbox;
	o.env = envs.v;
	o.nenv = envs.n;
	o.python = cmd_python();
	o.output = on_output;
	o.ctx = &sh;
	o.warn = on_warn;
	o.progress = on_progress;
	progress_start(&sh.progress, source, 0, quiet);
	if ((cpp.n ? harvest_cpp(&h, &o, &sh, source, &e) : harvest_run(&h, &o, &e)) < 0) {
		progress_clear(&sh.progress);
		/* A child that failed has said why; this side only says that the harvest ended early. */
		code = e.msg[0] ? cmd_error(&e) : (e.code ? (int)e.code : EXIT_ENV);
		if (partial && h.instances)
			fprintf(stderr, "ferry: the %zu instances harvested so far are in '%s'\n", h.instances,
				partial);
		goto out;
	}
	progress_finish(&sh.progress);
	if (out) {
		int bad = fclose(out) != 0;

		out = NULL;
		/* fs_output_place: renamed over a regular file, copied into a device such as /dev/null. */
		if (bad || fs_output_place(partial, output, &e) < 0) {
			if (bad)
				err_errno(&e, EXIT_ENV, "cannot write '%s'", output);
			code = cmd_error(&e);
			goto out;
		}
	}
	/* With the corpus on stdout, the summary goes where the progress went. */
	print_summary(strcmp(output, "-") ? stdout : stderr, &h, source, has_suites, &h.counts);
	if (!h.instances) {
		struct buf why = BUF_INIT;

		harvest_why_empty(&h, patterns.n > 0, &why);
		if (h.left_out)
			buf_addf(&why, " (--op/--test left out %zu)", h.left_out);
		err_set(&e, EXIT_INPUT, "no instance harvested from '%s': %s", source, why.data);
		buf_release(&why);
		code = cmd_error(&e);
	}
out:
	if (out)
		fclose(out);
	free(partial);
	free(pydir);
	for (size_t i = 0; i < nderived; i++)
		free(derived[i]);
	free(derived);
	opts_list_release(&patterns);
	select_release(&sel);
	opts_list_release(&suites);
	opts_list_release(&pytest);
	opts_list_release(&cpp);
	opts_list_release(&includes);
	opts_list_release(&defines);
	opts_list_release(&envs);
	harvest_release(&h);
	err_release(&e);
	return code;
}

const struct cmd_entry cmd_harvest_entry = {
	.name = "harvest", .fn = cmd_harvest, .needs = CMD_NEEDS_NOTHING, .usage = usage, .opts = options,
	.more = more, .summary = "record the operator instances of a library's tests as a corpus",
};
