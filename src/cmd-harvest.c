/* cmd-harvest.c: ferry harvest SOURCE -o CORPUS
 *
 * Runs a library's test knowledge under ferry's instrumentation and writes every operator instance it
 * records to a corpus, one JSON line per instance (pipeline/corpus.h). The harvest runs third-party
 * test code in children, ferry harvest-child (src/cmd-harvest-child.c), which the engine starts,
 * sandboxes, watches and restarts. This file parses the options. */
#include <ctype.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cmd.h"
#include "corpus.h"
#include "harvest.h"
#include "libraries.h"
#include "runargs.h"

static const char usage[] =
	"usage: ferry harvest SOURCE [--filter GLOB]... -o CORPUS\n"
	"       ferry harvest torch|keras|tf_keras [--suite NAME]... [--pytest PATH]... [--filter GLOB]... -o CORPUS\n"
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
	"  tf_keras       Keras 2's layer instances: the suites docstrings, applications (every\n"
	"                 tf_keras.applications architecture, weights=None, at the smallest input it\n"
	"                 takes) and layer-tests (tf-keras's own layer tests, from an archive of its\n"
	"                 source tree at the installed version's tag, by default GitHub's, which\n"
	"                 publishes no hash: its sha256 is recorded when it is downloaded into\n"
	"                 $FERRY_CACHE, and a cached archive that changes is refused); and pytest paths\n"
	"  --cpp          onnx: ONNX Runtime's OpTester tests (onnxruntime/test/providers/), torch:\n"
	"                 libtorch's C++ API tests (test/cpp/api/), read with libclang, not run\n";

static const char more[] =
	"The tests run in a child process, in a scratch directory that is also their HOME and TMPDIR,\n"
	"and, when bubblewrap is installed (Debian package bubblewrap; $FERRY_BWRAP names another\n"
	"bwrap), in a sandbox that shows them only what they need, read-only, with no terminal, no\n"
	"network and no capabilities (a warning names any part the machine refuses). What they print\n"
	"is shown escaped, each line marked 'test|'. A test that exits, crashes, hangs or writes\n"
	"to ferry's channel is counted under 'tests crashed' with the reason, and the harvest goes on\n"
	"from the next test, or, in an OpInfo or ModuleInfo entry (each of whose samples has the\n"
	"timeout), from the next sample; 'lost to them' counts what they cost, by test; exit status 0.\n"
	"A harvest that ends early says so, keeps what it harvested in CORPUS.partial and exits\n"
	"non-zero (130 on Ctrl-C).\n";

#define AT(f) offsetof(struct corpus_opts, f)

static const struct opt options[] = {
	OPT_STRING('o', "output", "FILE", "the corpus to write ('-' for standard output)", AT(output)),
	OPT_LIST('f', "filter", "GLOB", "run only the library's tests, and keep only the instances, whose name\n"
		 "or operator is matched whole by the glob GLOB, case and all ('test_relu*');\n"
		 "the fastest way to a part of a large suite (repeatable)", AT(patterns)),
	OPT_CALL(0, "op", "GLOB", "keep only instances whose operator matches GLOB: a word found in the name,\n"
		 "or a glob of the whole name or its last dotted part; lower case ignores case\n"
		 "(comma-separated, repeatable)", AT(sel), runopts_parse_op),
	OPT_CALL(0, "test", "GLOB", "keep only instances whose source test matches GLOB: a word found in it, or\n"
		 "a glob of it whole; lower case ignores case (comma-separated, repeatable)", AT(sel),
		 runopts_parse_test),
	OPT_LIST('s', "suite", "NAME", "torch, keras, tf_keras: harvest this suite (repeatable; default: all of the\n"
		 "source's suites, unless --pytest is given)", AT(suites)),
	OPT_LIST('p', "pytest", "PATH",
		 "torch, keras, tf_keras: run the pytest tests of PATH, a file or a directory, and\n"
		 "record what they call (repeatable); a test that fails does not stop the harvest", AT(pytest)),
	OPT_STRING(0, "keras-tests", "SET", "keras, tf_keras: which of the library's own test files (layer-tests,\n"
		   "ops-tests) run: default, all, or comma-separated globs under keras/src or\n"
		   "tf_keras/src ('layers/core/*')", AT(keras_tests)),
	OPT_STRING(0, "tf-keras-archive", "URL", "tf_keras: take layer-tests from this .tar.gz of tf-keras's source\n"
		   "tree (a URL, or a file) instead of GitHub's of the installed version's tag\n"
		   "(also $FERRY_TF_KERAS_ARCHIVE)", AT(tf_keras_archive)),
	OPT_LIST(0, "cpp", "PATH", "onnx, torch: read the C++ tests of PATH, a file or a directory, with\n"
		 "libclang (Debian package libclang1-14) instead of running Python's (repeatable)", AT(cpp)),
	OPT_LIST('I', "include", "DIR", "--cpp: an include directory of the checkout (repeatable)", AT(includes)),
	OPT_LIST('D', "define", "NAME[=V]", "--cpp: a macro the checkout's build defines (repeatable)", AT(defines)),
	OPT_STRING(0, "compile-commands", "DIR", "--cpp: parse each file with its command in\n"
		   "DIR/compile_commands.json (a configured build of the checkout)", AT(compile_commands)),
	OPT_SIZE(0, "parse-memory", "SIZE", "--cpp: the memory one file's parse may use (default 2G); a file\n"
		 "whose parse needs more is skipped", AT(parse_memory)),
	OPT_SECONDS(0, "parse-timeout", "SECS", "--cpp: the time (CPU and wall clock) one file's parse may take\n"
		    "(default 60); a file whose parse takes longer is skipped", AT(parse_timeout)),
	OPT_SECONDS('t', "timeout", "SECS", "a test (an OpInfo or ModuleInfo entry: a sample of it) that runs\n"
		    "longer is stopped and counted as crashed (default 300)", AT(timeout)),
	OPT_LIST(0, "env", "NAME", "the tests also see the environment variable NAME (repeatable); they\n"
		 "see only the locale, PATH, Python's and the libraries' own settings otherwise", AT(envs)),
	OPT_FLAG(0, "no-sandbox", "run the tests without bubblewrap's sandbox", AT(no_sandbox)),
	OPT_FLAG('q', "quiet", "no progress line", AT(quiet)),
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

static int cmd_harvest(int argc, char **argv)
{
	struct corpus_opts args = { .timeout = HARVEST_DEFAULT_TIMEOUT, .timeout_option = "--timeout" }, *a = &args;
	struct stage_io io = { stdout, cmd_warn_line, cmd_error, cmd_python(), NULL };
	struct warnlog warnings;
	struct err e = ERR_INIT;
	const char *source;
	int has_suites = 0, code = EXIT_OK;

	if (cmd_parse(&cmd_harvest_entry, argc, argv, a) < 0) {
		code = EXIT_USAGE;
		goto out;
	}
	if (optind + 1 != argc) {
		code = cmd_usage_error(&cmd_harvest_entry, "harvest takes one SOURCE");
		goto out;
	}
	source = a->source = argv[optind];
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
	if (a->keras_tests && strcmp(source, "keras") && strcmp(source, "tf_keras")) {
		code = cmd_usage_error(&cmd_harvest_entry, "--keras-tests is for sources 'keras' and 'tf_keras'");
		goto out;
	}
	if (a->tf_keras_archive && strcmp(source, "tf_keras")) {
		code = cmd_usage_error(&cmd_harvest_entry, "--tf-keras-archive is for source 'tf_keras'");
		goto out;
	}
	if (a->cpp.n && strcmp(source, "onnx") && strcmp(source, "torch")) {
		code = cmd_usage_error(&cmd_harvest_entry, "--cpp is for sources 'onnx' and 'torch'");
		goto out;
	}
	if (!a->cpp.n &&
	    (a->includes.n || a->defines.n || a->compile_commands || a->parse_memory || a->parse_timeout)) {
		code = cmd_usage_error(&cmd_harvest_entry,
				       "-I, -D, --compile-commands, --parse-memory and --parse-timeout go with --cpp");
		goto out;
	}
	if (a->cpp.n && (a->suites.n || a->pytest.n || a->patterns.n)) {
		code = cmd_usage_error(&cmd_harvest_entry, "--cpp takes no --suite, --pytest or --filter");
		goto out;
	}
	for (size_t i = 0; i < a->cpp.n; i++)
		if (access(a->cpp.v[i], R_OK) < 0) {
			err_errno(&e, EXIT_INPUT, "cannot read '%s'", a->cpp.v[i]);
			code = cmd_error(&e);
			goto out;
		}
	if (!has_suites && (a->suites.n || a->pytest.n)) {
		code = cmd_usage_error(&cmd_harvest_entry, "source '%s' takes no --suite or --pytest", source);
		goto out;
	}
	for (size_t i = 0; i < a->pytest.n; i++)
		if (access(a->pytest.v[i], F_OK) < 0) {
			err_errno(&e, EXIT_INPUT, "cannot read '%s'", a->pytest.v[i]);
			code = cmd_error(&e);
			goto out;
		}
	for (size_t i = 0; i < a->envs.n; i++)
		if (!env_name_valid(a->envs.v[i])) {
			code = cmd_usage_error(&cmd_harvest_entry, "--env takes a variable's name, not '%s'",
					       a->envs.v[i]);
			goto out;
		}
	if (!a->output) {
		code = cmd_usage_error(&cmd_harvest_entry, "no output: say where the corpus goes with -o");
		goto out;
	}
	/* The libraries' warnings go beside the corpus; with the corpus on stdout, where they went. */
	if (strcmp(a->output, "-")) {
		warnlog_open_beside(&warnings, a->output);
		io.warnings = &warnings;
	}
	code = corpus_harvest(a, &io);
	if (io.warnings)
		warnlog_close(&warnings);
out:
	opts_list_release(&a->patterns);
	select_release(&a->sel);
	opts_list_release(&a->suites);
	opts_list_release(&a->pytest);
	opts_list_release(&a->cpp);
	opts_list_release(&a->includes);
	opts_list_release(&a->defines);
	opts_list_release(&a->envs);
	err_release(&e);
	return code;
}

const struct cmd_entry cmd_harvest_entry = {
	.name = "harvest", .fn = cmd_harvest, .needs = CMD_NEEDS_NOTHING, .usage = usage, .opts = options,
	.more = more, .summary = "record the operator instances of a library's tests as a corpus",
};
