/* cmd-generate.c: ferry generate -o CORPUS
 *
 * Generates ONNX graphs from the operator specs (gen/specs/, the language in gen/specs/README) into
 * a corpus like any other (pipeline/graphs.h). Bad specs are refused before anything is generated
 * (exit 4, naming FILE:LINE); the same seed gives the same corpus, byte for byte. This file parses
 * the options. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "esc.h"
#include "graphs.h"
#include "xalloc.h"

static const char usage[] =
	"usage: ferry generate -o CORPUS [options]\n"
	"       ferry generate --list [--specs DIR] [--opset N]\n"
	"       ferry generate --probes -o CORPUS [--ops GLOB] [options]\n"
	"       ferry generate -o CORPUS -F LIST --support STORE [options]\n"
	"\n"
	"Generate valid ONNX graphs from declarative operator specs, into CORPUS (a graph of one node\n"
	"is a node record, a bigger one a record of kind \"graph\"). The same seed gives the same corpus.\n"
	"With -F, draw nothing the frontends lack: the store of --support holds their probes (ferry run\n"
	"--probe-only on the corpus of --probes), as ferry go --generate makes and reads them.\n";

struct generate_args {
	struct graphs_opts g;
	const char *ops_arg, *nodes_arg, *fes_arg, *support;
};

#define AT(f) offsetof(struct generate_args, f)

static const struct opt options[] = {
	OPT_STRING('o', "output", "CORPUS", "where the graphs go", AT(g.output)),
	OPT_INT('n', "count", "COUNT", "graphs to generate (default 100)", AT(g.count), 1, 100000000),
	OPT_STRING(0, "ops", "GLOB[,GLOB]",
		"only these operators (as --op everywhere: a word, or a glob; lower case\n"
		   "ignores case; default: all that hold at the opset)",
		   AT(ops_arg)),
	OPT_STRING(0, "nodes", "MIN:MAX", "nodes per graph, drawn uniformly (default 1:10)", AT(nodes_arg)),
	OPT_INT(0, "seed", "S", "the seed (default 1)", AT(g.seed), 0, 2147483647),
	OPT_INT(0, "opset", "N", "the ONNX opset (default 17)", AT(g.opset), 1, 1000),
	OPT_DOUBLE(0, "pick-rate", "P", "the chance that an input reuses a fitting tensor of the graph (default 0.97)",
		   AT(g.pick_rate)),
	OPT_FLAG(0, "diversity", "choose operators by the novelty of their recent vertices (GenCoG)", AT(g.diversity)),
	OPT_DOUBLE(0, "p-reject", "P", "reject a vertex seen before with this probability (GenCoG; default 0)",
		AT(g.p_reject)),
	OPT_INT(0, "max-dim", "N", "a dimension the spec leaves free is drawn from 1..N (default 8)", AT(g.max_dim),
		1, 4096),
	OPT_INT(0, "max-elements", "N", "a tensor with more elements drops its vertex (default 65536)",
		AT(g.max_elements), 1, 2147483647),
	OPT_STRING('F', "frontend", "LIST", "draw nothing these frontends lack (comma-separated, as the store names\n"
		   "them), by the probes in the store of --support", AT(fes_arg)),
	OPT_STRING(0, "support", "STORE", "the store whose support table says what the frontends of -F lack (from\n"
		   "ferry run --probe-only on a corpus of --probes; ferry go does all this)", AT(support)),
	OPT_FLAG(0, "probes", "write the probes instead: for each operator, its simplest vertex in every type\n"
		 "signature it takes", AT(g.probes)),
	OPT_STRING(0, "specs", "DIR", "the operator specs (default: ferry's own)", AT(g.specs)),
	OPT_FLAG(0, "list", "list the operators, each with its spec's FILE:LINE and opsets, and stop", AT(g.list)),
	OPT_FLAG('q', "quiet", "no progress line", AT(g.quiet)),
	OPT_END(),
};

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

/* The comma-separated items of text, pointing into *copy (the caller frees both): how many. */
static size_t split_list(const char *text, char **copy, const char ***items)
{
	size_t n = 0, cap = 0;
	char *save = NULL;

	*copy = xstrdup(text);
	*items = NULL;
	for (char *tok = strtok_r(*copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		XGROW(*items, cap, n + 1);
		(*items)[n++] = tok;
	}
	return n;
}

static int cmd_generate(int argc, char **argv)
{
	struct generate_args args = { .g = { .count = 100, .seed = 1, .opset = 17, .pick_rate = 0.97, .max_dim = 8,
					     .max_elements = 65536, .min_nodes = 1, .max_nodes = 10 } };
	struct graphs_opts *o = &args.g;
	struct stage_io io = { stdout, cmd_warn_line, cmd_error, cmd_python(), NULL };
	struct err e = ERR_INIT;
	struct graphs_support support = GRAPHS_SUPPORT_INIT;
	char *ops_copy = NULL, *fes_copy = NULL;
	const char **globs = NULL, **fes = NULL;
	size_t nglobs = 0, nfes = 0;
	int code;

	if (cmd_parse(&cmd_generate_entry, argc, argv, &args) < 0)
		return EXIT_USAGE;
	if (optind != argc)
		return cmd_usage_error(&cmd_generate_entry, "generate takes no arguments, only options");
	if (!o->output && !o->list)
		return cmd_usage_error(&cmd_generate_entry, "no output: say where the graphs go with -o CORPUS");
	if (args.nodes_arg && parse_nodes(args.nodes_arg, &o->min_nodes, &o->max_nodes) < 0)
		return cmd_usage_error(&cmd_generate_entry,
			"--nodes takes MIN:MAX, whole numbers with 1 <= MIN <= MAX, "
				       "not '%s'", args.nodes_arg);
	if (o->pick_rate > 1)
		return cmd_usage_error(&cmd_generate_entry, "--pick-rate is a probability, from 0 to 1");
	if (o->p_reject > 1)
		return cmd_usage_error(&cmd_generate_entry, "--p-reject is a probability, from 0 to 1");
	if (args.ops_arg) {
		nglobs = split_list(args.ops_arg, &ops_copy, &globs);
		if (!nglobs) {
			code = cmd_usage_error(&cmd_generate_entry, "--ops takes operator names or patterns");
			goto out;
		}
	}
	o->globs = globs;
	o->nglobs = nglobs;
	if (!args.fes_arg != !args.support) {
		code = cmd_usage_error(&cmd_generate_entry, "-F and --support go together: the frontends, and the "
				       "store that holds their probes");
		goto out;
	}
	if (args.fes_arg && o->probes) {
		code = cmd_usage_error(&cmd_generate_entry, "--probes draws every type signature: no -F");
		goto out;
	}
	if (args.fes_arg) {
		nfes = split_list(args.fes_arg, &fes_copy, &fes);
		if (graphs_support_load(&support, args.support, fes, nfes, &e) < 0) {
			code = cmd_error(&e);
			goto out;
		}
		if (!support.probed) {
			err_set(&e, EXIT_INPUT, "%s: no probes of %s by type signature: run 'ferry generate --probes', "
				"then 'ferry run --probe-only' on it into this store", args.support, args.fes_arg);
			code = cmd_error(&e);
			goto out;
		}
		o->support = &support;
	}
	code = graphs_generate(o, &io, &e);
	if (code == EXIT_OK && support.unprobed.len)
		cmd_warn("%zu type signatures drawn have no probe of %s in '%s': whether they are lacking is not "
			 "known (ferry go --generate probes them as it draws)", support.unprobed.len,
			 esc_str(args.fes_arg), esc_str(args.support));
	if (code == EXIT_USAGE && e.msg[0])
		code = cmd_usage_error(&cmd_generate_entry, "%s", e.msg);
out:
	err_release(&e);
	graphs_support_release(&support);
	free(ops_copy);
	free(fes_copy);
	free(fes);
	free(globs);
	return code;
}

const struct cmd_entry cmd_generate_entry = {
	.name = "generate", .fn = cmd_generate, .needs = CMD_NEEDS_NOTHING, .usage = usage, .opts = options,
	.summary = "generate valid ONNX graphs from operator specs",
};
