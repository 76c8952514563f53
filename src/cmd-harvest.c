/* cmd-harvest.c: ferry harvest SOURCE -o CORPUS
 *
 * Runs a library's test knowledge under ferry's instrumentation (extract/harvest_SOURCE.py, in the
 * embedded interpreter) and writes every operator instance it records to a corpus, one JSON line per
 * instance. Each record is validated and given its id here, in C; usages that are identical (same
 * canonical form) merge into the first one seen. The corpus is written beside its final name and
 * renamed when the harvest is complete, so an interrupted harvest never leaves a corpus that looks
 * whole; what it did harvest is kept in CORPUS.partial. */
#include "py.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd.h"
#include "progress.h"
#include "record.h"
#include "strmap.h"
#include "xalloc.h"

static const char usage[] =
	"usage: ferry harvest SOURCE [--filter GLOB]... -o CORPUS\n"
	"\n"
	"Record every operator instance that a library's tests create, as a corpus (JSON Lines).\n"
	"\n"
	"Sources:\n"
	"  onnx           every node test the installed onnx package knows\n"
	"\n"
	"Options:\n"
	"  -o, --output FILE   the corpus to write ('-' for standard output)\n"
	"  -f, --filter GLOB   harvest only tests whose name matches GLOB (repeatable)\n"
	"  -q, --quiet         no progress line\n";

static const char *const sources[] = { "onnx" };

struct harvest {
	FILE *out;
	const char *out_name;
	struct strmap ids;      /* id -> times seen */
	struct strmap ops;      /* op -> instances */
	struct strmap skipped;  /* reason -> tests */
	size_t instances, merged, unmigratable, bad_records;
	struct progress progress;
	struct buf line;
};

static int on_emit(void *ctx, const char *json, size_t len, struct err *e)
{
	struct harvest *h = ctx;
	struct instance in;
	struct err bad = ERR_INIT;
	struct strmap_entry *seen;
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
	if (!created) {
		h->merged++;
		record_release(&in);
		return 0;
	}
	h->instances++;
	h->unmigratable += in.unmigratable;
	strmap_get(&h->ops, in.op, NULL)->count++;
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

	h->progress.total = total > 0 ? (size_t)total : 0;
	progress_update(&h->progress, (size_t)done, 0);
}

/* Call harvest_SOURCE.harvest(_ferry, patterns); its return value is a dict of counts. */
static int run_source(const char *source, char **patterns, size_t npatterns, long *tests, struct err *e)
{
	char modname[64];
	PyObject *mod = NULL, *ferry = NULL, *pats = NULL, *res = NULL, *n;
	int r = -1;

	snprintf(modname, sizeof(modname), "harvest_%s", source);
	if (!(mod = py_import(modname, e)) || !(ferry = py_import("_ferry", e)))
		goto out;
	if (!(pats = PyList_New((Py_ssize_t)npatterns))) /* new */
		goto pyfail;
	for (size_t i = 0; i < npatterns; i++) {
		PyObject *s = PyUnicode_FromString(patterns[i]); /* new, stolen below */

		if (!s)
			goto pyfail;
		PyList_SET_ITEM(pats, (Py_ssize_t)i, s);
	}
	if (!(res = PyObject_CallMethod(mod, "harvest", "OO", ferry, pats))) /* new */
		goto pyfail;
	n = PyDict_Check(res) ? PyDict_GetItemString(res, "tests") : NULL; /* borrowed */
	*tests = n && PyLong_Check(n) ? PyLong_AsLong(n) : -1;
	r = 0;
	goto out;
pyfail:
	py_error(e, EXIT_ENV, "the harvest failed");
out:
	Py_XDECREF(res);
	Py_XDECREF(pats);
	Py_XDECREF(ferry);
	Py_XDECREF(mod);
	return r;
}

static void print_summary(FILE *fp, const struct harvest *h, const char *source, long tests)
{
	struct strmap_entry **v = strmap_sorted(&h->skipped);
	size_t skipped = 0;

	for (size_t i = 0; v[i]; i++)
		skipped += v[i]->count;
	fprintf(fp, "harvest %s:\n", source);
	if (tests >= 0)
		fprintf(fp, "  tests read           %ld\n", tests);
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
}

static int cmd_harvest(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "filter", required_argument, NULL, 'f' },
		{ "quiet", no_argument, NULL, 'q' },
		{ NULL, 0, NULL, 0 },
	};
	struct harvest h;
	struct py_hooks hooks;
	struct err e = ERR_INIT;
	const char *output = NULL, *source;
	char **patterns = NULL, *partial = NULL;
	size_t npatterns = 0, cap = 0;
	long tests = -1;
	int opt, quiet = 0, known = 0, code = EXIT_OK;

	memset(&h, 0, sizeof(h));
	while ((opt = getopt_long(argc, argv, "o:f:q", longopts, NULL)) != -1) {
		switch (opt) {
		case 'o': output = optarg; break;
		case 'f': XGROW(patterns, cap, npatterns + 1); patterns[npatterns++] = optarg; break;
		case 'q': quiet = 1; break;
		default: free(patterns); return cmd_usage_error(&cmd_harvest_entry, "bad option");
		}
	}
	if (optind + 1 != argc) {
		free(patterns);
		return cmd_usage_error(&cmd_harvest_entry, "harvest takes one SOURCE");
	}
	source = argv[optind];
	for (size_t i = 0; i < sizeof(sources) / sizeof(sources[0]); i++)
		known |= !strcmp(source, sources[i]);
	if (!known) {
		free(patterns);
		return cmd_usage_error(&cmd_harvest_entry, "unknown source '%s' (known: onnx)", source);
	}
	if (!output) {
		free(patterns);
		return cmd_usage_error(&cmd_harvest_entry, "no output: say where the corpus goes with -o");
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
	progress_start(&h.progress, source, 0, quiet);
	memset(&hooks, 0, sizeof(hooks));
	hooks.ctx = &h;
	hooks.emit = on_emit;
	hooks.skip = on_skip;
	hooks.progress = on_progress;
	py_set_hooks(&hooks);
	if (run_source(source, patterns, npatterns, &tests, &e) < 0) {
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
		if (bad || rename(partial, output) < 0) {
			err_errno(&e, EXIT_ENV, "cannot write '%s'", output);
			code = cmd_error(&e);
			goto out;
		}
	}
	/* With the corpus on stdout, the summary goes where the progress went. */
	print_summary(strcmp(output, "-") ? stdout : stderr, &h, source, tests);
	if (!h.instances) {
		err_set(&e, EXIT_INPUT, "no instance harvested from '%s'%s", source,
			npatterns ? " (do the --filter patterns match any test?)" : "");
		code = cmd_error(&e);
	}
out:
	py_set_hooks(NULL);
	if (h.out && h.out != stdout)
		fclose(h.out);
	free(partial);
	free(patterns);
	buf_release(&h.line);
	strmap_release(&h.ids);
	strmap_release(&h.ops);
	strmap_release(&h.skipped);
	err_release(&e);
	return code;
}

const struct cmd_entry cmd_harvest_entry = {
	"harvest", cmd_harvest, CMD_NEEDS_PYTHON, usage,
	"record the operator instances of a library's tests as a corpus",
};
