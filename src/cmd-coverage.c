/* cmd-coverage.c: ferry coverage [--ops LIST] [--json] CORPUS...
 *
 * Isra's coverage metrics of each corpus (prioritize/graphcov.h), side by side: operation types,
 * input and output degrees, single and double edges, shapes and attributes, and the means per
 * graph. Any corpus: harvested, varied, generated, or a wrap's wrapped.jsonl (whose invalid records
 * are left out); a record that is not a graph is a graph of one node. */
#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "cmd.h"
#include "esc.h"
#include "graphcov.h"
#include "jsonl.h"
#include "record.h"
#include "strmap.h"
#include "xalloc.h"

static const char usage[] =
	"usage: ferry coverage [--ops LIST] [--json] CORPUS...\n"
	"\n"
	"Measure the graph coverage of each CORPUS (after Isra): the operation types it uses, the\n"
	"distinct (operation, input degree) and (operation, output degree) pairs, single edges\n"
	"(producer, consumer), double edges (a -> b -> c), and shapes-and-attributes signatures\n"
	"(operation, input dtypes and ranks, attribute values); and per graph the mean operations,\n"
	"operation types, edges, double edges and signatures. A record that is not a graph counts as a\n"
	"graph of one node. Operation type coverage is over the operations of --ops, else over those\n"
	"of all the corpora given.\n";

struct coverage_args {
	struct opts_list ops_opt;
	int json;
};

#define AT(f) offsetof(struct coverage_args, f)

static const struct opt options[] = {
	OPT_LIST(0, "ops", "LIST", "the operation types to cover (names separated by commas;\n"
		 "repeatable); default: those of all the corpora", AT(ops_opt)),
	OPT_FLAG(0, "json", "print one JSON line instead of the table", AT(json)),
	OPT_END(),
};

struct corpus {
	const char *path;     /* borrowed from argv */
	struct graphcov cov;
	size_t bad;           /* lines left out */
	size_t covered;       /* operation types of the universe it uses */
};

static int read_corpus(struct corpus *c, struct err *e)
{
	struct jsonl_reader r = JSONL_READER_INIT;
	int ret = -1;

	if (jsonl_open(&r, c->path, e) < 0)
		return -1;
	for (;;) {
		struct err bad = ERR_INIT;
		cJSON *j = NULL;
		enum jsonl_status st = jsonl_next_json(&r, &j, &bad);

		if (st == JSONL_END)
			break;
		if (st == JSONL_FAIL) {
			*e = bad;
			goto out;
		}
		if (st == JSONL_OK && graphcov_add(&c->cov, j, &bad) < 0) {
			err_prefix(&bad, "%s:%zu", c->path, r.lineno);
			st = JSONL_BAD;
		}
		cJSON_Delete(j);
		if (st == JSONL_BAD) {
			cmd_warn("%s", bad.msg);
			err_release(&bad);
			c->bad++;
		}
	}
	if (!c->cov.graphs && !c->cov.invalid) {
		err_set(e, EXIT_INPUT, "'%s' holds no instance records%s", c->path,
			c->bad ? " (every line is bad)" : "");
		goto out;
	}
	ret = 0;
out:
	jsonl_close(&r);
	return ret;
}

/* The operation types to cover: --ops, else every one the corpora use. */
static void universe(const struct coverage_args *a, struct strmap *u, const struct corpus *cs, size_t n)
{
	for (size_t i = 0; i < a->ops_opt.n; i++) {
		char *list = xstrdup(a->ops_opt.v[i]), *save = NULL;

		for (char *name = strtok_r(list, ",", &save); name; name = strtok_r(NULL, ",", &save))
			if (*name)
				strmap_get(u, name, NULL);
		free(list);
	}
	if (a->ops_opt.n)
		return;
	for (size_t k = 0; k < n; k++)
		for (size_t i = 0; i < cs[k].cov.ops.cap; i++)
			if (cs[k].cov.ops.slots[i].key)
				strmap_get(u, cs[k].cov.ops.slots[i].key, NULL);
}

static void row_count(const char *label, const struct corpus *cs, size_t n, const int *w, size_t off)
{
	printf("  %-24s", label);
	for (size_t k = 0; k < n; k++)
		printf("  %*zu", w[k], *(const size_t *)((const char *)&cs[k] + off));
	putchar('\n');
}

static void row_map(const char *label, const struct corpus *cs, size_t n, const int *w, size_t off)
{
	printf("  %-24s", label);
	for (size_t k = 0; k < n; k++)
		printf("  %*zu", w[k], ((const struct strmap *)((const char *)&cs[k].cov + off))->len);
	putchar('\n');
}

static void row_mean(const char *label, const struct graphcov_means *m, size_t n, const int *w, size_t off)
{
	printf("    %-22s", label);
	for (size_t k = 0; k < n; k++)
		printf("  %*.2f", w[k], *(const double *)((const char *)&m[k] + off));
	putchar('\n');
}

static void print_table(const struct corpus *cs, size_t n, size_t nuniverse)
{
	int *w = xcalloc(n, sizeof(*w));
	struct graphcov_means *m = xcalloc(n, sizeof(*m));
	size_t invalid = 0, bad = 0;

	printf("  %-24s", "coverage");
	for (size_t k = 0; k < n; k++) {
		int len = (int)strlen(esc_str(cs[k].path));

		w[k] = len > 14 ? len : 14;
		printf("  %*s", w[k], esc_str(cs[k].path));
		graphcov_means(&cs[k].cov, &m[k]);
		invalid += cs[k].cov.invalid;
		bad += cs[k].bad;
	}
	putchar('\n');
	row_count("graphs", cs, n, w, offsetof(struct corpus, cov.graphs));
	if (invalid)
		row_count("invalid, not counted", cs, n, w, offsetof(struct corpus, cov.invalid));
	if (bad)
		row_count("bad lines", cs, n, w, offsetof(struct corpus, bad));
	row_count("operations", cs, n, w, offsetof(struct corpus, cov.operations));
	printf("  %-24s", "operation types");
	for (size_t k = 0; k < n; k++) {
		char cell[64];

		snprintf(cell, sizeof(cell), "%zu/%zu %.1f%%", cs[k].covered, nuniverse,
			 nuniverse ? 100.0 * (double)cs[k].covered / (double)nuniverse : 0.0);
		printf("  %*s", w[k], cell);
	}
	putchar('\n');
	row_map("input degrees", cs, n, w, offsetof(struct graphcov, in_degrees));
	row_map("output degrees", cs, n, w, offsetof(struct graphcov, out_degrees));
	row_map("single edges", cs, n, w, offsetof(struct graphcov, edges));
	row_map("double edges", cs, n, w, offsetof(struct graphcov, triples));
	row_map("shapes and attributes", cs, n, w, offsetof(struct graphcov, signatures));
	printf("  per graph\n");
	row_mean("operations", m, n, w, offsetof(struct graphcov_means, operations));
	row_mean("operation types", m, n, w, offsetof(struct graphcov_means, types));
	row_mean("single edges", m, n, w, offsetof(struct graphcov_means, edges));
	row_mean("double edges", m, n, w, offsetof(struct graphcov_means, triples));
	row_mean("shapes and attributes", m, n, w, offsetof(struct graphcov_means, signatures));
	free(w);
	free(m);
}

static void print_json(const struct corpus *cs, size_t n, size_t nuniverse)
{
	struct buf b = BUF_INIT;

	buf_addf(&b, "{\"operation_types_to_cover\":%zu,\"corpora\":[", nuniverse);
	for (size_t k = 0; k < n; k++) {
		const struct graphcov *g = &cs[k].cov;
		struct graphcov_means m;

		graphcov_means(g, &m);
		buf_adds(&b, k ? ",{\"corpus\":" : "{\"corpus\":");
		buf_add_json_string(&b, cs[k].path);
		buf_addf(&b, ",\"graphs\":%zu,\"invalid\":%zu,\"bad_lines\":%zu,\"operations\":%zu,"
			 "\"operation_types\":%zu,\"operation_type_coverage\":", g->graphs, g->invalid, cs[k].bad,
			 g->operations, cs[k].covered);
		json_add_double(&b, nuniverse ? (double)cs[k].covered / (double)nuniverse : 0.0);
		buf_addf(&b, ",\"input_degrees\":%zu,\"output_degrees\":%zu,\"single_edges\":%zu,"
			 "\"double_edges\":%zu,\"shapes_and_attributes\":%zu,\"per_graph\":{\"operations\":",
			 g->in_degrees.len, g->out_degrees.len, g->edges.len, g->triples.len, g->signatures.len);
		json_add_double(&b, m.operations);
		buf_adds(&b, ",\"operation_types\":");
		json_add_double(&b, m.types);
		buf_adds(&b, ",\"single_edges\":");
		json_add_double(&b, m.edges);
		buf_adds(&b, ",\"double_edges\":");
		json_add_double(&b, m.triples);
		buf_adds(&b, ",\"shapes_and_attributes\":");
		json_add_double(&b, m.signatures);
		buf_adds(&b, "}}");
	}
	buf_adds(&b, "]}");
	puts(b.data);
	buf_release(&b);
}

static int cmd_coverage(int argc, char **argv)
{
	struct coverage_args args = { 0 }, *a = &args;
	struct err e = ERR_INIT;
	struct strmap u = STRMAP_INIT;
	struct corpus *cs = NULL;
	size_t n = 0;
	int code = EXIT_OK;

	if (cmd_parse(&cmd_coverage_entry, argc, argv, a) < 0)
		return EXIT_USAGE;
	if (optind == argc) {
		opts_list_release(&a->ops_opt);
		return cmd_usage_error(&cmd_coverage_entry, "coverage takes one or more corpora");
	}
	n = (size_t)(argc - optind);
	cs = xcalloc(n, sizeof(*cs));
	for (size_t k = 0; k < n; k++) {
		cs[k].path = argv[optind + (int)k];
		graphcov_init(&cs[k].cov);
	}
	for (size_t k = 0; k < n; k++)
		if (read_corpus(&cs[k], &e) < 0) {
			code = cmd_error(&e);
			goto out;
		}
	universe(a, &u, cs, n);
	for (size_t k = 0; k < n; k++)
		for (size_t i = 0; i < u.cap; i++)
			if (u.slots[i].key && strmap_find(&cs[k].cov.ops, u.slots[i].key))
				cs[k].covered++;
	if (a->json)
		print_json(cs, n, u.len);
	else
		print_table(cs, n, u.len);
out:
	for (size_t k = 0; k < n; k++)
		graphcov_release(&cs[k].cov);
	free(cs);
	strmap_release(&u);
	opts_list_release(&a->ops_opt);
	err_release(&e);
	return code;
}

const struct cmd_entry cmd_coverage_entry = {
	.name = "coverage", .fn = cmd_coverage, .needs = CMD_NEEDS_NOTHING, .usage = usage, .opts = options,
	.summary = "measure the graph coverage of corpora (Isra's metrics)",
};
