/* cmd-harvest.c: ferry harvest SOURCE -o CORPUS
 *
 * Runs a library's test knowledge under ferry's instrumentation (extract/harvest_SOURCE.py, in the
 * embedded interpreter) and writes every operator instance it records to a corpus, one JSON line per
 * instance. Each record is validated and given its id here, in C; usages that are identical (same
 * canonical form) merge into the first one seen. The counts are kept per suite (each record's
 * source.suite: a source such as torch has several), so the summary says what each one gave. The
 * corpus is written beside its final name and renamed when the harvest is complete, so an
 * interrupted harvest never leaves a corpus that looks whole; what it did harvest is kept in
 * CORPUS.partial. */
#include "py.h"

#include <cjson/cJSON.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd.h"
#include "fsutil.h"
#include "progress.h"
#include "record.h"
#include "strmap.h"
#include "xalloc.h"

static const char usage[] =
	"usage: ferry harvest SOURCE [--filter GLOB]... -o CORPUS\n"
	"       ferry harvest torch|keras [--suite NAME]... [--pytest PATH]... [--filter GLOB]... -o CORPUS\n"
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
	"                 the documentation of every public layer and op) and applications (every\n"
	"                 keras.applications architecture, built with weights=None); and pytest files\n"
	"                 or directories (a checkout of Keras's own layer tests), run under the\n"
	"                 instrumentation\n"
	"\n"
	"Options:\n"
	"  -o, --output FILE   the corpus to write ('-' for standard output)\n"
	"  -f, --filter GLOB   keep only instances whose operator or test matches GLOB (repeatable)\n"
	"  -s, --suite NAME    torch, keras: harvest this suite (repeatable; default: all of the\n"
	"                      source's suites, unless --pytest is given)\n"
	"  -p, --pytest PATH   torch, keras: run the pytest tests of PATH, a file or a directory, and record\n"
	"                      what they call (repeatable); a test that fails does not stop the harvest\n"
	"  -q, --quiet         no progress line\n";

struct source {
	const char *name;
	int has_suites;         /* takes --suite and --pytest */
};

static const struct source sources[] = {
	{ "onnx", 0 },
	{ "torch", 1 },
	{ "keras", 1 },
};

/* What one suite (a record's source.suite) gave. */
struct suite {
	size_t instances, merged, unmigratable;
	struct strmap ops;      /* op -> instances */
	struct strmap why;      /* unmigratable reason -> instances */
};

struct harvest {
	FILE *out;
	const char *out_name;
	struct strmap ids;      /* id -> times seen */
	struct strmap ops;      /* op -> instances */
	struct strmap skipped;  /* reason -> tests */
	struct strmap suites;   /* suite name -> struct suite (ptr) */
	size_t instances, merged, unmigratable, bad_records;
	struct progress progress;
	char label[64];         /* the progress line's label, once a source names one */
	struct buf line;
};

static struct suite *suite_of(struct harvest *h, const struct instance *in)
{
	const cJSON *src = in->extra ? cJSON_GetObjectItemCaseSensitive(in->extra, "source") : NULL;
	const cJSON *name = src ? cJSON_GetObjectItemCaseSensitive(src, "suite") : NULL;
	struct strmap_entry *e = strmap_get(&h->suites, cJSON_IsString(name) ? name->valuestring : "-", NULL);

	if (!e->ptr) {
		struct suite *s = xcalloc(1, sizeof(*s));

		strmap_init(&s->ops);
		strmap_init(&s->why);
		e->ptr = s;
	}
	return e->ptr;
}

static int on_emit(void *ctx, const char *json, size_t len, struct err *e)
{
	struct harvest *h = ctx;
	struct instance in;
	struct err bad = ERR_INIT;
	struct strmap_entry *seen;
	struct suite *s;
	int created;

	if (record_parse(&in, json, len, &bad) < 0) {
		/* A record the instrumentation should not have made: count it and say why, once per reason. */
		struct strmap_entry *r = strmap_get(&h->skipped, "the instrumentation made a malformed record", NULL);

		if (!r->count++) {
			progress_clear(&h->progress);
			cmd_warn("malformed record from the instrumentation: %s", bad.msg);
		}
		h->bad_records++;
		err_release(&bad);
		return 0;
	}
	seen = strmap_get(&h->ids, in.id, &created);
	seen->count++;
	s = suite_of(h, &in);
	if (!created) {
		h->merged++;
		s->merged++;
		record_release(&in);
		return 0;
	}
	h->instances++;
	s->instances++;
	strmap_get(&h->ops, in.op, NULL)->count++;
	strmap_get(&s->ops, in.op, NULL)->count++;
	if (in.unmigratable) {
		const cJSON *why = cJSON_GetObjectItemCaseSensitive(in.extra, "unmigratable");

		h->unmigratable++;
		s->unmigratable++;
		strmap_get(&s->why, cJSON_IsString(why) ? why->valuestring : "an opaque value", NULL)->count++;
	}
	buf_reset(&h->line);
	record_write(&in, &h->line);
	buf_addc(&h->line, '\n');
	record_release(&in);
	if (fwrite(h->line.data, 1, h->line.len, h->out) != h->line.len)
		return err_errno(e, EXIT_ENV, "cannot write '%s'", h->out_name);
	return 0;
}

static void on_skip(void *ctx, const char *reason, const char *where)
{
	struct harvest *h = ctx;

	strmap_get(&h->skipped, reason, NULL)->count++;
}

static void on_progress(void *ctx, long done, long total, const char *label)
{
	struct harvest *h = ctx;

	/* A source with several suites reports each under its own label: one progress line each. */
	if (label && *label && strcmp(label, h->label)) {
		if (h->label[0])
			progress_finish(&h->progress);
		snprintf(h->label, sizeof(h->label), "%s", label);
		progress_start(&h->progress, h->label, 0, h->progress.quiet);
	}
	h->progress.total = total > 0 ? (size_t)total : 0;
	progress_update(&h->progress, (size_t)done, 0);
}

/* The options of a source that has suites, as harvest()'s keyword arguments. */
struct harvest_opts {
	char **suites, **pytest;
	size_t nsuites, npytest, suites_cap, pytest_cap;
};

static PyObject *str_list(char **v, size_t n) /* new reference, NULL on error */
{
	PyObject *list = PyList_New((Py_ssize_t)n); /* new */

	for (size_t i = 0; list && i < n; i++) {
		PyObject *s = PyUnicode_DecodeFSDefault(v[i]); /* new, stolen below */

		if (!s) {
			Py_CLEAR(list);
			break;
		}
		PyList_SET_ITEM(list, (Py_ssize_t)i, s);
	}
	return list;
}

/* Call harvest_SOURCE.harvest(_ferry, patterns[, suites=..., pytest=...]); it returns a dict of
 * counts ("tests", and any others the source reports), handed back as *counts (new reference). */
static int run_source(const char *source, char **patterns, size_t npatterns, const struct harvest_opts *o,
		      PyObject **counts, struct err *e)
{
	char modname[64];
	PyObject *mod = NULL, *ferry = NULL, *pats = NULL, *args = NULL, *kwargs = NULL, *fn = NULL;
	PyObject *res = NULL, *v = NULL;
	int r = -1;

	snprintf(modname, sizeof(modname), "harvest_%s", source);
	if (!(mod = py_import(modname, e)) || !(ferry = py_import("_ferry", e)))
		goto out;
	if (!(pats = str_list(patterns, npatterns)) || !(kwargs = PyDict_New())) /* new */
		goto pyfail;
	if (o->nsuites) {
		if (!(v = str_list(o->suites, o->nsuites)) || PyDict_SetItemString(kwargs, "suites", v) < 0)
			goto pyfail;
		Py_CLEAR(v);
	}
	if (o->npytest) {
		if (!(v = str_list(o->pytest, o->npytest)) || PyDict_SetItemString(kwargs, "pytest", v) < 0)
			goto pyfail;
		Py_CLEAR(v);
	}
	if (!(fn = PyObject_GetAttrString(mod, "harvest")) || !(args = PyTuple_Pack(2, ferry, pats))) /* new */
		goto pyfail;
	if (!(res = PyObject_Call(fn, args, kwargs))) /* new */
		goto pyfail;
	*counts = res;
	res = NULL;
	r = 0;
	goto out;
pyfail:
	py_error(e, EXIT_ENV, "the harvest failed");
out:
	Py_XDECREF(v);
	Py_XDECREF(res);
	Py_XDECREF(args);
	Py_XDECREF(fn);
	Py_XDECREF(kwargs);
	Py_XDECREF(pats);
	Py_XDECREF(ferry);
	Py_XDECREF(mod);
	return r;
}

/* The dict's integer entries: "tests" first as "tests read", then the others under their own names. */
static void print_counts(FILE *fp, PyObject *counts)
{
	PyObject *key, *value;
	Py_ssize_t pos = 0;

	if (!counts || !PyDict_Check(counts))
		return;
	value = PyDict_GetItemString(counts, "tests"); /* borrowed */
	if (value && PyLong_Check(value))
		fprintf(fp, "  %-20s %ld\n", "tests read", PyLong_AsLong(value));
	while (PyDict_Next(counts, &pos, &key, &value)) { /* borrowed */
		const char *k = PyUnicode_Check(key) ? PyUnicode_AsUTF8(key) : NULL;

		if (k && strcmp(k, "tests") && PyLong_Check(value))
			fprintf(fp, "  %-20s %ld\n", k, PyLong_AsLong(value));
	}
	PyErr_Clear();
}

/* One row per suite when the source has several: instances, operators, merged, unmigratable; then
 * the reasons instances are unmigratable, per suite. */
static void print_suites(FILE *fp, const struct harvest *h)
{
	struct strmap_entry **v = strmap_sorted(&h->suites);

	fprintf(fp, "  %-10s %10s %10s %10s %13s\n", "suite", "instances", "operators", "merged", "unmigratable");
	for (size_t i = 0; v[i]; i++) {
		const struct suite *s = v[i]->ptr;

		fprintf(fp, "  %-10s %10zu %10zu %10zu %13zu\n", v[i]->key, s->instances, s->ops.len, s->merged,
			s->unmigratable);
	}
	fprintf(fp, "  %-10s %10zu %10zu %10zu %13zu\n", "all", h->instances, h->ops.len, h->merged, h->unmigratable);
	for (size_t i = 0; v[i]; i++) {
		const struct suite *s = v[i]->ptr;
		struct strmap_entry **w;

		if (!s->unmigratable)
			continue;
		fprintf(fp, "  unmigratable in %s, by reason:\n", v[i]->key);
		w = strmap_sorted(&s->why);
		for (size_t j = 0; w[j] && j < 10; j++)
			fprintf(fp, "    %6zu  %s\n", w[j]->count, w[j]->key);
		if (s->why.len > 10)
			fprintf(fp, "    (%zu more reasons)\n", s->why.len - 10);
		free(w);
	}
	free(v);
}

static void print_summary(FILE *fp, const struct harvest *h, const struct source *source, PyObject *counts)
{
	struct strmap_entry **v = strmap_sorted(&h->skipped);
	size_t skipped = 0;

	for (size_t i = 0; v[i]; i++)
		skipped += v[i]->count;
	fprintf(fp, "harvest %s:\n", source->name);
	print_counts(fp, counts);
	fprintf(fp, "  instances            %zu\n", h->instances);
	fprintf(fp, "  distinct operators   %zu\n", h->ops.len);
	fprintf(fp, "  duplicates merged    %zu\n", h->merged);
	fprintf(fp, "  unmigratable         %zu\n", h->unmigratable);
	fprintf(fp, "  skipped              %zu\n", skipped);
	for (size_t i = 0; v[i] && i < 15; i++)
		fprintf(fp, "    %6zu  %s\n", v[i]->count, v[i]->key);
	if (h->skipped.len > 15)
		fprintf(fp, "    (%zu more reasons)\n", h->skipped.len - 15);
	free(v);
	if (h->suites.len > 1 || source->has_suites)
		print_suites(fp, h);
}

static void suites_release(struct strmap *m)
{
	for (size_t i = 0; i < m->cap; i++) {
		struct suite *s = m->slots[i].key ? m->slots[i].ptr : NULL;

		if (s) {
			strmap_release(&s->ops);
			strmap_release(&s->why);
			free(s);
		}
	}
	strmap_release(m);
}

static int cmd_harvest(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "filter", required_argument, NULL, 'f' },
		{ "suite", required_argument, NULL, 's' },
		{ "pytest", required_argument, NULL, 'p' },
		{ "quiet", no_argument, NULL, 'q' },
		{ NULL, 0, NULL, 0 },
	};
	struct harvest h;
	struct harvest_opts o;
	struct py_hooks hooks;
	struct err e = ERR_INIT;
	const struct source *source = NULL;
	const char *output = NULL;
	char **patterns = NULL, *partial = NULL;
	size_t npatterns = 0, cap = 0;
	PyObject *counts = NULL;
	int opt, quiet = 0, code = EXIT_OK;

	memset(&h, 0, sizeof(h));
	memset(&o, 0, sizeof(o));
	while ((opt = getopt_long(argc, argv, "o:f:s:p:q", longopts, NULL)) != -1) {
		switch (opt) {
		case 'o': output = optarg; break;
		case 'f': XGROW(patterns, cap, npatterns + 1); patterns[npatterns++] = optarg; break;
		case 's': XGROW(o.suites, o.suites_cap, o.nsuites + 1); o.suites[o.nsuites++] = optarg; break;
		case 'p': XGROW(o.pytest, o.pytest_cap, o.npytest + 1); o.pytest[o.npytest++] = optarg; break;
		case 'q': quiet = 1; break;
		default: code = cmd_usage_error(&cmd_harvest_entry, "bad option"); goto out;
		}
	}
	if (optind + 1 != argc) {
		code = cmd_usage_error(&cmd_harvest_entry, "harvest takes one SOURCE");
		goto out;
	}
	for (size_t i = 0; i < sizeof(sources) / sizeof(sources[0]); i++)
		if (!strcmp(argv[optind], sources[i].name))
			source = &sources[i];
	if (!source) {
		code = cmd_usage_error(&cmd_harvest_entry, "unknown source '%s' (known: onnx, torch, keras)", argv[optind]);
		goto out;
	}
	if (!source->has_suites && (o.nsuites || o.npytest)) {
		code = cmd_usage_error(&cmd_harvest_entry, "source '%s' takes no --suite or --pytest", source->name);
		goto out;
	}
	for (size_t i = 0; i < o.npytest; i++)
		if (access(o.pytest[i], F_OK) < 0) {
			err_errno(&e, EXIT_INPUT, "cannot read '%s'", o.pytest[i]);
			code = cmd_error(&e);
			goto out;
		}
	if (!output) {
		code = cmd_usage_error(&cmd_harvest_entry, "no output: say where the corpus goes with -o");
		goto out;
	}

	if (!strcmp(output, "-")) {
		h.out = stdout;
		h.out_name = "standard output";
	} else {
		partial = xasprintf("%s.partial", output);
		if (!(h.out = fopen(partial, "w"))) {
			err_errno(&e, EXIT_ENV, "cannot create '%s'", partial);
			code = cmd_error(&e);
			goto out;
		}
		h.out_name = partial;
	}
	buf_init(&h.line);
	progress_start(&h.progress, source->name, 0, quiet);
	memset(&hooks, 0, sizeof(hooks));
	hooks.ctx = &h;
	hooks.emit = on_emit;
	hooks.skip = on_skip;
	hooks.progress = on_progress;
	py_set_hooks(&hooks);
	if (run_source(source->name, patterns, npatterns, &o, &counts, &e) < 0) {
		progress_clear(&h.progress);
		code = cmd_error(&e);
		if (partial && h.instances)
			fprintf(stderr, "ferry: the %zu instances harvested so far are in '%s'\n", h.instances, partial);
		goto out;
	}
	progress_finish(&h.progress);
	py_set_hooks(NULL);
	if (h.out != stdout) {
		int bad = fclose(h.out) != 0;

		h.out = NULL;
		/* fs_output_place: renamed over a regular file, copied into a device such as /dev/null. */
		if (bad || fs_output_place(partial, output, &e) < 0) {
			if (bad)
				err_errno(&e, EXIT_ENV, "cannot write '%s'", output);
			code = cmd_error(&e);
			goto out;
		}
	}
	/* With the corpus on stdout, the summary goes where the progress went. */
	print_summary(strcmp(output, "-") ? stdout : stderr, &h, source, counts);
	if (!h.instances) {
		err_set(&e, EXIT_INPUT, "no instance harvested from '%s'%s", source->name,
			npatterns ? " (do the --filter patterns match any test?)" : "");
		code = cmd_error(&e);
	}
out:
	py_set_hooks(NULL);
	Py_XDECREF(counts);
	if (h.out && h.out != stdout)
		fclose(h.out);
	free(partial);
	free(patterns);
	free(o.suites);
	free(o.pytest);
	buf_release(&h.line);
	strmap_release(&h.ids);
	strmap_release(&h.ops);
	strmap_release(&h.skipped);
	suites_release(&h.suites);
	err_release(&e);
	return code;
}

const struct cmd_entry cmd_harvest_entry = {
	"harvest", cmd_harvest, CMD_NEEDS_PYTHON, usage,
	"record the operator instances of a library's tests as a corpus",
};
