/* cmd-generate.c: ferry generate -o CORPUS
 *
 * Generates ONNX graphs from the operator specs (gen/specs/, the language in gen/specs/README),
 * solved without backtracking (gen/solve.h) and grown vertex by vertex (gen/graph.h), into a corpus
 * like any other: a graph of one node is an ordinary node record, a bigger one a record of kind
 * "graph". Bad specs are refused before anything is generated (exit 4, naming FILE:LINE); the same
 * seed gives the same corpus, byte for byte. This file parses the options, lists the operators,
 * shows progress and prints the summary. */
#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "esc.h"
#include "fsutil.h"
#include "graph.h"
#include "progress.h"
#include "spec.h"
#include "xalloc.h"

static const char usage[] =
	"usage: ferry generate -o CORPUS [options]\n"
	"       ferry generate --list [--specs DIR] [--opset N]\n"
	"\n"
	"Generate valid ONNX graphs from declarative operator specs, into CORPUS (a graph of one node\n"
	"is a node record, a bigger one a record of kind \"graph\"). The same seed gives the same corpus.\n";

struct generate_args {
	const char *output, *ops_arg, *nodes_arg, *specs_arg;
	int count, seed, opset, diversity, list, quiet, max_dim, max_elements;
	double pick_rate, p_reject;
};

#define AT(f) offsetof(struct generate_args, f)

static const struct opt options[] = {
	OPT_STRING('o', "output", "CORPUS", "where the graphs go", AT(output)),
	OPT_INT('n', "count", "COUNT", "graphs to generate (default 100)", AT(count), 1, 100000000),
	OPT_STRING(0, "ops", "GLOB[,GLOB]",
		"only these operators (shell patterns; default: all that hold at the opset)",
		   AT(ops_arg)),
	OPT_STRING(0, "nodes", "MIN:MAX", "nodes per graph, drawn uniformly (default 1:10)", AT(nodes_arg)),
	OPT_INT(0, "seed", "S", "the seed (default 1)", AT(seed), 0, 2147483647),
	OPT_INT(0, "opset", "N", "the ONNX opset (default 17)", AT(opset), 1, 1000),
	OPT_DOUBLE(0, "pick-rate", "P", "the chance that an input reuses a fitting tensor of the graph (default 0.97)",
		   AT(pick_rate)),
	OPT_FLAG(0, "diversity", "choose operators by the novelty of their recent vertices (GenCoG)", AT(diversity)),
	OPT_DOUBLE(0, "p-reject", "P", "reject a vertex seen before with this probability (GenCoG; default 0)",
		AT(p_reject)),
	OPT_INT(0, "max-dim", "N", "a dimension the spec leaves free is drawn from 1..N (default 8)", AT(max_dim), 1,
		4096),
	OPT_INT(0, "max-elements", "N", "a tensor with more elements drops its vertex (default 65536)",
		AT(max_elements), 1,
		2147483647),
	OPT_STRING(0, "specs", "DIR", "the operator specs (default: ferry's own)", AT(specs_arg)),
	OPT_FLAG(0, "list", "list the operators, each with its spec's FILE:LINE and opsets, and stop", AT(list)),
	OPT_FLAG('q', "quiet", "no progress line", AT(quiet)),
	OPT_END(),
};

/* Samples per block of the load-time check: enough to meet the small first inputs that empty a
 * careless domain (a 1-wide image, a 1-channel group), cheap next to generating. */
#define CHECK_SAMPLES 200

static int parse_nodes(const char *text, int *lo, int *hi)
{
	const char *colon = strchr(text, ':');
	char *a;
	int r;

	if (!colon)
		return opts_parse_int(text, 1, 100000, lo) < 0 ? -1 : (*hi = *lo, 0);
	a = xstrndup(text, (size_t)(colon - text));
	r = opts_parse_int(a, 1, 100000, lo) < 0 || opts_parse_int(colon + 1, 1, 100000, hi) < 0 || *hi < *lo ? -1 : 0;
	free(a);
	return r;
}

/* The installed onnx's version, from its dist-info beside the configured interpreter: provenance
 * only (not part of an id), and not worth starting Python for. NULL when not found. */
static char *onnx_version(void)
{
	const char *py = cmd_python();
	char *dir = xstrdup(py), *slash, *pattern, *v = NULL;
	glob_t gl;

	for (int up = 0; up < 2 && (slash = strrchr(dir, '/')); up++)
		*slash = '\0';
	pattern = xasprintf("%s/lib/python3*/site-packages/onnx-*.dist-info", dir);
	if (glob(pattern, 0, NULL, &gl) == 0 && gl.gl_pathc > 0) {
		const char *base = strrchr(gl.gl_pathv[0], '/') + 1 + strlen("onnx-");
		const char *end = strstr(base, ".dist-info");

		if (end)
			v = xstrndup(base, (size_t)(end - base));
	}
	globfree(&gl);
	free(pattern);
	free(dir);
	return v;
}

static int list_ops(const struct spec_set *s)
{
	struct strmap seen = STRMAP_INIT;
	struct strmap_entry **sorted;
	size_t n = 0;

	for (size_t k = 0; k < s->nblocks; k++)
		for (int j = 0; j < s->blocks[k]->nops; j++)
			strmap_get(&seen, s->blocks[k]->ops[j], NULL);
	sorted = strmap_sorted(&seen);
	/* strmap_sorted orders by count, all 0 here, then by name. */
	for (size_t m = 0; sorted[m]; m++)
		for (size_t k = 0; k < s->nblocks; k++) {
			const struct block *b = s->blocks[k];

			for (int j = 0; j < b->nops; j++) {
				char opsets[32];

				if (strcmp(b->ops[j], sorted[m]->key))
					continue;
				if (b->opset_hi == SPEC_OPSET_OPEN)
					snprintf(opsets, sizeof(opsets), "%d..", b->opset_lo);
				else
					snprintf(opsets, sizeof(opsets), "%d..%d", b->opset_lo, b->opset_hi);
				printf("%-24s %-10s %s:%d\n", esc_str(b->ops[j]), opsets, esc_str(b->file), b->line);
				n++;
			}
		}
	free(sorted);
	strmap_release(&seen);
	return n ? EXIT_OK : EXIT_INPUT;
}

static int op_nodes_cmp(const void *a, const void *b)
{
	const struct graph_op *x = a, *y = b;

	if (x->nodes != y->nodes)
		return x->nodes < y->nodes ? 1 : -1;
	return strcmp(x->name, y->name);
}

static void print_summary(FILE *fp, const char *output, struct graph_gen *g, double seconds)
{
	struct strmap_entry **bugs = strmap_sorted(&g->bugs);
	struct graph_op *ops = xcalloc((size_t)g->nops, sizeof(*ops));

	fprintf(fp, "generate -> %s:\n", esc_str(output));
	fprintf(fp, "  graphs               %zu (%.1f per second)\n", g->graphs,
		seconds > 0 ? (double)g->graphs / seconds : 0.0);
	if (g->graphs)
		fprintf(fp, "  nodes                %zu: mean %.1f, min %zu, max %zu\n", g->nodes_total,
			(double)g->nodes_total / (double)g->graphs, g->nodes_min, g->nodes_max);
	if (g->short_graphs)
		fprintf(fp, "  graphs cut short     %zu (no vertex could be added within the attempts)\n",
			g->short_graphs);
	fprintf(fp, "  vertices dropped     %zu\n", g->drop_large + g->drop_rank + g->drop_bug + g->rejected);
	fprintf(fp, "    too many elements  %zu\n", g->drop_large);
	fprintf(fp, "    rank over %d        %zu\n", GEN_MAX_RANK, g->drop_rank);
	fprintf(fp, "    seen before        %zu (--p-reject)\n", g->rejected);
	fprintf(fp, "    spec bugs          %zu\n", g->drop_bug);
	for (size_t k = 0; bugs[k] && k < 10; k++)
		fprintf(fp, "      %6zu  %s\n", bugs[k]->count, esc_str(bugs[k]->key));
	if (g->bugs.len > 10)
		fprintf(fp, "      (%zu more)\n", g->bugs.len - 10);
	memcpy(ops, g->ops, (size_t)g->nops * sizeof(*ops));
	qsort(ops, (size_t)g->nops, sizeof(*ops), op_nodes_cmp);
	fprintf(fp, "  nodes per operator   (%d operators)\n", g->nops);
	for (int k = 0; k < g->nops; k++)
		fprintf(fp, "    %-22s %zu\n", esc_str(ops[k].name), ops[k].nodes);
	free(ops);
	free(bugs);
}

static int cmd_generate(int argc, char **argv)
{
	struct generate_args args = { 0 }, *a = &args;
	struct spec_set specs;
	struct graph_gen g;
	struct graph_opts o;
	struct fs_output out = FS_OUTPUT_INIT;
	struct progress progress;
	struct buf line = BUF_INIT;
	struct err e = ERR_INIT;
	char *dir = NULL, *version = NULL, *ops_copy = NULL;
	const char **globs = NULL;
	size_t nglobs = 0, cap = 0, written = 0, empty = 0;
	uint64_t index = 0;
	int code = EXIT_OK, lo = 1, hi = 10, have_gen = 0;
	double start;
	FILE *summary;

	spec_init(&specs);
	memset(&g, 0, sizeof(g));
	memset(&o, 0, sizeof(o));
	a->count = 100;
	a->seed = 1;
	a->opset = 17;
	a->pick_rate = 0.97;
	a->p_reject = 0;
	a->max_dim = 8;
	a->max_elements = 65536;
	if (cmd_parse(&cmd_generate_entry, argc, argv, a) < 0)
		return EXIT_USAGE;
	if (optind != argc)
		return cmd_usage_error(&cmd_generate_entry, "generate takes no arguments, only options");
	if (!a->output && !a->list)
		return cmd_usage_error(&cmd_generate_entry, "no output: say where the graphs go with -o CORPUS");
	if (a->nodes_arg && parse_nodes(a->nodes_arg, &lo, &hi) < 0)
		return cmd_usage_error(&cmd_generate_entry,
			"--nodes takes MIN:MAX, whole numbers with 1 <= MIN <= MAX, "
				       "not '%s'", a->nodes_arg);
	if (a->pick_rate > 1)
		return cmd_usage_error(&cmd_generate_entry, "--pick-rate is a probability, from 0 to 1");
	if (a->p_reject > 1)
		return cmd_usage_error(&cmd_generate_entry, "--p-reject is a probability, from 0 to 1");
	if (a->ops_arg) {
		char *save = NULL, *tok;

		ops_copy = xstrdup(a->ops_arg);
		for (tok = strtok_r(ops_copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
			XGROW(globs, cap, nglobs + 1);
			globs[nglobs++] = tok;
		}
		if (!nglobs) {
			code = cmd_usage_error(&cmd_generate_entry, "--ops takes operator names or patterns");
			goto out;
		}
	}
	dir = a->specs_arg ? xstrdup(a->specs_arg) : spec_default_dir();
	o.min_nodes = lo;
	o.max_nodes = hi;
	o.opset = a->opset;
	o.seed = (uint64_t)a->seed;
	o.diversity = a->diversity;
	o.p_reject = a->p_reject;
	o.solve.pick_rate = a->pick_rate;
	o.solve.max_dim = a->max_dim;
	o.solve.max_elements = a->max_elements;
	if (spec_load_dir(&specs, dir, &e) < 0 || solve_check(&specs, &o.solve, CHECK_SAMPLES, &e) < 0) {
		code = cmd_error(&e);
		goto out;
	}
	if (a->list) {
		code = list_ops(&specs);
		goto out;
	}
	if (graph_gen_init(&g, &specs, globs, nglobs, &o, &e) < 0) {
		code = e.code == EXIT_USAGE ? cmd_usage_error(&cmd_generate_entry, "%s", e.msg) : cmd_error(&e);
		goto out;
	}
	have_gen = 1;
	version = onnx_version();
	g.o.library_version = version;
	if (fs_output_open(&out, a->output, &e) < 0) {
		code = cmd_error(&e);
		goto out;
	}
	if (out.stale)
		cmd_warn("removed %zu temporary file%s that a killed ferry left beside '%s'", out.stale,
			 out.stale > 1 ? "s" : "", esc_str(a->output));
	start = progress_now();
	progress_start(&progress, "generate", (size_t)a->count, a->quiet);
	while (written < (size_t)a->count) {
		buf_reset(&line);
		if (graph_generate(&g, index++, &line) == 0) {
			/* Every attempt of this graph failed: the specs are broken for these ops. */
			if (++empty >= 100 && empty > 10 * written) {
				progress_clear(&progress);
				fs_output_abort(&out);
				print_summary(stderr, a->output, &g, progress_now() - start);
				err_set(&e, EXIT_INPUT,
					"no vertex could be made in %zu graphs: see the spec bugs above", empty);
				code = cmd_error(&e);
				goto out;
			}
			continue;
		}
		buf_addc(&line, '\n');
		fwrite(line.data, 1, line.len, out.fp);
		written++;
		progress_update(&progress, written, 0);
	}
	progress_finish(&progress);
	/* The summary goes beside the corpus, not into it, when the corpus is standard output. */
	summary = fs_output_in_place(&out) ? stderr : stdout;
	if (fs_output_commit(&out, &e) < 0) {
		code = cmd_error(&e);
		goto out;
	}
	print_summary(summary, a->output, &g, progress_now() - start);
out:
	fs_output_abort(&out);
	if (have_gen)
		graph_gen_release(&g);
	spec_release(&specs);
	buf_release(&line);
	err_release(&e);
	free(dir);
	free(version);
	free(ops_copy);
	free(globs);
	return code;
}

const struct cmd_entry cmd_generate_entry = {
	.name = "generate", .fn = cmd_generate, .needs = CMD_NEEDS_NOTHING, .usage = usage, .opts = options,
	.summary = "generate valid ONNX graphs from operator specs",
};
