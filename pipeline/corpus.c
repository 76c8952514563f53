/* corpus.c: ferry harvest's stage (corpus.h), which ferry harvest and ferry go call.
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
 * takes its process down. This file shows progress and prints the summary around the engine; a
 * harvest that ends early says so and exits non-zero. */
#include "py.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "corpus.h"
#include "cpp.h"
#include "esc.h"
#include "fsutil.h"
#include "harvest.h"
#include "home.h"
#include "libraries.h"
#include "progress.h"
#include "xalloc.h"

/* keras, tf_keras: the library's own tests come from an archive (Keras 3's sdist, Keras 2's source
 * tree: extract/keras_tests.py, extract/tf_keras_tests.py), fetched here through the library's
 * registry entry, in this process, before any child runs: the sandboxed children have no business
 * reaching the network. Where they cannot be had, one line says why and the rest is harvested. */
static int fetch_own_tests(const struct corpus_opts *a, const struct stage_io *io, struct err *e)
{
	/* what the options say, for the children (the environment) and for this process's Python, whose
	 * os.environ was read when it started */
	const char *set[][2] = { { "FERRY_KERAS_TESTS", a->keras_tests },
				 { "FERRY_TF_KERAS_ARCHIVE", a->tf_keras_archive } };
	struct buf names = BUF_INIT, env = BUF_INIT;
	const char *args[4];
	char *msg = NULL;
	int r = -1;

	/* the suites as a JSON list; a suite name with a quote or a backslash is no known suite */
	buf_addc(&names, '[');
	for (size_t i = 0; i < a->suites.n; i++)
		if (!strpbrk(a->suites.v[i], "\"\\"))
			buf_addf(&names, "%s\"%s\"", names.len > 1 ? "," : "", a->suites.v[i]);
	buf_addc(&names, ']');
	buf_addc(&env, '{');
	for (size_t i = 0; i < sizeof(set) / sizeof(set[0]); i++) {
		if (!set[i][1])
			continue;
		if (setenv(set[i][0], set[i][1], 1) < 0) {
			err_errno(e, EXIT_ENV, "setenv");
			goto out;
		}
		buf_addf(&env, "%s\"%s\":", env.len > 1 ? "," : "", set[i][0]);
		buf_add_json_string(&env, set[i][1]);
	}
	buf_addc(&env, '}');
	args[0] = a->source;
	args[1] = names.data;
	args[2] = a->pytest.n ? "1" : "0";
	args[3] = env.data;
	if (py_start(io->python, 0, e) < 0 ||
	    !(msg = py_call_strings("ferry.templates.registry", "prepare_tests", args, 4,
				    "cannot prepare the library's own tests", e)))
		goto out;
	if (*msg)
		stage_warn(io, "%s", msg);
	r = 0;
out:
	free(msg);
	buf_release(&names);
	buf_release(&env);
	return r;
}

/* The progress line, and the label of the suite it is about. */
struct show {
	struct progress progress;
	char label[64];
	const struct stage_io *io;
};

static void on_warn(void *ctx, const char *msg)
{
	struct show *sh = ctx;

	progress_clear(&sh->progress);
	sh->io->warn(NULL, msg);
}

/* What the tests wrote, escaped by the engine: marked as theirs, so that it cannot pass for ferry's. */
static void on_output(void *ctx, const char *line)
{
	struct show *sh = ctx;

	/* A library's warning or log line (absl's, Python's) is no output of the test's: logged. */
	if (sh->io->warnings && warnlog_line(sh->io->warnings, line))
		return;
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

/* What the tests that crashed or timed out cost, by test: samples of a test that numbers them (the
 * one running; the next child went on from the sample after it), or a test whole (what it had not
 * yet recorded, its samples not yet made with it: how many, no one knows). */
static void print_lost(FILE *fp, const struct harvest *h, int w)
{
	struct strmap_entry **v = strmap_sorted(&h->lost_samples), **t = strmap_sorted(&h->lost_tests);
	size_t samples = 0;

	for (size_t i = 0; v[i]; i++)
		samples += v[i]->count;
	fprintf(fp, "  %-*s %zu sample%s, %zu test%s whole\n", w, "lost to them", samples, samples == 1 ? "" : "s",
		h->lost_tests.len, h->lost_tests.len == 1 ? "" : "s");
	for (size_t i = 0; v[i] && i < 15; i++)
		fprintf(fp, "    %6zu  %s (sample%s)\n", v[i]->count, esc_str(v[i]->key), v[i]->count == 1 ? "" : "s");
	for (size_t i = 0; t[i] && i < 15; i++)
		fprintf(fp, "    %6s  %s (the rest of the test)\n", "whole", esc_str(t[i]->key));
	if (h->lost_samples.len > 15 || h->lost_tests.len > 15)
		fprintf(fp, "    (and more)\n");
	free(v);
	free(t);
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
	print_lost(fp, h, w);
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
	stage_warn(c->sh->io, "skipped '%s': %s", file, why);
	strmap_get(&c->h->skipped, key, NULL)->count++;
	free(key);
}

static int harvest_cpp(const struct corpus_opts *a, struct harvest *h, struct harvest_opts *o, struct show *sh,
		       const char *source, struct err *e)
{
	struct cpp_ctx c = { h, o, sh };
	struct cpp_opts co;
	char **files = NULL;
	size_t n = 0;
	int r;

	memset(&co, 0, sizeof(co));
	co.includes = (const char *const *)a->includes.v;
	co.nincludes = a->includes.n;
	co.defines = (const char *const *)a->defines.v;
	co.ndefines = a->defines.n;
	co.compile_commands = a->compile_commands;
	co.mem_limit = a->parse_memory;
	co.timeout = a->parse_timeout;
	co.ctx = &c;
	co.emit = cpp_emit;
	co.count = cpp_count;
	co.warn = cpp_warn;
	co.progress = cpp_progress;
	co.skip = cpp_skip;
	if (cpp_files((const char *const *)a->cpp.v, a->cpp.n, 0, &files, &n, e) < 0)
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

/* The engine's options from the stage's (the --filter patterns made from --op and --test where
 * there is none). Returns the patterns made, n of them, for the caller to free. */
static char **harvest_options(const struct corpus_opts *a, struct harvest_opts *o, size_t *n)
{
	char **derived = NULL;
	size_t nderived = 0, nderived_cap = 0;

	o->source = a->source;
	/* The children of a harvester that declares FILTER_OPS (torch's, keras's) pass over the samples
	 * and tests that no --filter pattern can match. --op and --test alone become such patterns too:
	 * their union is wider than the selection (applied to each record here), and a selected
	 * harvest does not run every sample of every suite. An operator glob also matches after the
	 * last dot, as the selection does; a harvester's patterns are case-sensitive globs, so each is
	 * widened to one (select_widen). */
	if (!a->patterns.n && select_any(&a->sel) && libraries_find(a->source)->filter_ops) {
		for (size_t i = 0; i < a->sel.nops; i++) {
			char *wide = select_widen(a->sel.ops[i]);

			XGROW(derived, nderived_cap, nderived + 2);
			derived[nderived++] = xasprintf("*.%s", wide);
			derived[nderived++] = wide;
		}
		for (size_t i = 0; i < a->sel.ntests; i++) {
			XGROW(derived, nderived_cap, nderived + 1);
			derived[nderived++] = select_widen(a->sel.tests[i]);
		}
		o->patterns = (const char *const *)derived;
		o->npatterns = nderived;
	} else {
		o->patterns = a->patterns.v;
		o->npatterns = a->patterns.n;
	}
	o->select = &a->sel;
	o->suites = a->suites.v;
	o->nsuites = a->suites.n;
	o->pytest = a->pytest.v;
	o->npytest = a->pytest.n;
	o->timeout = a->timeout;
	o->timeout_option = a->timeout_option;
	o->no_sandbox = a->no_sandbox;
	o->env = a->envs.v;
	o->nenv = a->envs.n;
	*n = nderived;
	return derived;
}

int corpus_harvest(const struct corpus_opts *a, const struct stage_io *io)
{
	const char *source = a->source;
	struct harvest h;
	struct harvest_opts o;
	struct show sh;
	struct err e = ERR_INIT;
	char *partial = NULL, *pydir = NULL, **derived = NULL;
	size_t nderived = 0;
	FILE *out = NULL;
	int has_suites = 0, code = EXIT_OK;

	harvest_init(&h);
	memset(&o, 0, sizeof(o));
	memset(&sh, 0, sizeof(sh));
	sh.io = io;
	harvest_source(source, &has_suites);
	/* The children need them; checked here, so that a missing one is said once and not per child. */
	if (!a->cpp.n && !fs_exists(io->python)) {
		err_set(&e, EXIT_ENV, "no Python interpreter at '%s' (run scripts/setup, or set FERRY_PYTHON)",
			io->python);
		code = io->error(&e);
		goto out;
	}
	if (!a->cpp.n && !(pydir = home_python_dir(&e))) {
		code = io->error(&e);
		goto out;
	}
	if (!a->cpp.n && fetch_own_tests(a, io, &e) < 0) {
		code = io->error(&e);
		goto out;
	}
	if (!strcmp(a->output, "-")) {
		o.out = stdout;
		o.out_name = "standard output";
	} else {
		partial = xasprintf("%s.partial", a->output);
		if (!(out = fopen(partial, "w"))) {
			err_errno(&e, EXIT_ENV, "cannot create '%s'", partial);
			code = io->error(&e);
			goto out;
		}
		o.out = out;
		o.out_name = partial;
	}
	derived = harvest_options(a, &o, &nderived);
	o.python = io->python;
	o.output = on_output;
	o.ctx = &sh;
	o.warn = on_warn;
	o.progress = on_progress;
	progress_start(&sh.progress, source, 0, a->quiet);
	if ((a->cpp.n ? harvest_cpp(a, &h, &o, &sh, source, &e) : harvest_run(&h, &o, &e)) < 0) {
		progress_clear(&sh.progress);
		/* A child that failed has said why; this side only says that the harvest ended early. */
		code = e.msg[0] ? io->error(&e) : (e.code ? (int)e.code : EXIT_ENV);
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
		if (bad || fs_output_place(partial, a->output, &e) < 0) {
			if (bad)
				err_errno(&e, EXIT_ENV, "cannot write '%s'", a->output);
			code = io->error(&e);
			goto out;
		}
	}
	/* With the corpus on stdout, the summary goes where the progress went. */
	print_summary(strcmp(a->output, "-") ? io->out : stderr, &h, source, has_suites, &h.counts);
	if (!h.instances) {
		struct buf why = BUF_INIT;

		harvest_why_empty(&h, a->patterns.n > 0, &why);
		/* -f is the library's own filter, a glob of the whole name with case (it chooses which of
		 * the library's tests run): a word a pytest user means as a part of a name says so. */
		for (size_t i = 0; i < a->patterns.n; i++)
			if (!strpbrk(a->patterns.v[i], "*?[")) {
				buf_addf(&why, "; -f is a glob of the whole name, case and all: -f '*%s*' takes every "
					 "name that holds '%s' as written, and --op %s or --test %s a word in any case",
					 a->patterns.v[i], a->patterns.v[i], a->patterns.v[i], a->patterns.v[i]);
				break;
			}
		if (h.left_out)
			buf_addf(&why, " (--op/--test left out %zu)", h.left_out);
		err_set(&e, EXIT_INPUT, "no instance harvested from '%s': %s", source, why.data);
		buf_release(&why);
		code = io->error(&e);
	}
out:
	if (out)
		fclose(out);
	free(partial);
	free(pydir);
	for (size_t i = 0; i < nderived; i++)
		free(derived[i]);
	free(derived);
	harvest_release(&h);
	err_release(&e);
	return code;
}
