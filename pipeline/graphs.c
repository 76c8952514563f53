/* graphs.c: ferry generate's stage (graphs.h), which ferry generate and ferry go call.
 *
 * Generates ONNX graphs from the operator specs (gen/specs/, the language in gen/specs/README),
 * solved without backtracking (gen/solve.h) and grown vertex by vertex (gen/graph.h), into a corpus
 * like any other: a graph of one node is an ordinary node record, a bigger one a record of kind
 * "graph". Bad specs are refused before anything is generated (exit 4, naming FILE:LINE); the same
 * seed gives the same corpus, byte for byte. This file lists the operators, shows progress and
 * prints the summary around the engine. */
#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "db.h"
#include "esc.h"
#include "fsutil.h"
#include "graph.h"
#include "graphs.h"
#include "probe.h"
#include "progress.h"
#include "spec.h"
#include "xalloc.h"

#include <xxhash.h>

/* Samples per block of the load-time check: enough to meet the small first inputs that empty a
 * careless domain (a 1-wide image, a 1-channel group), cheap next to generating. */
#define CHECK_SAMPLES 200

/* Draws per block when looking for each group's probe: a block of 13 dtypes misses one in 128 draws
 * with a chance of 13 * (12/13)^128, about 4e-4. */
#define PROBE_TRIES 128

/* Each dtype of a signature "OUT(IN,...)", with its position (0: OUT), to fn; stops at fn's nonzero. */
static int each_part(const char *sig, int (*fn)(void *ctx, int pos, const char *dtype, size_t len), void *ctx)
{
	int pos = 0, r;

	for (const char *p = sig; *p; pos++) {
		size_t len = strcspn(p, "(,)");

		if (len && (r = fn(ctx, pos, p, len)) != 0)
			return r;
		p += len;
		while (*p == '(' || *p == ',' || *p == ')')
			p++;
	}
	return 0;
}

struct part_ctx {
	struct strmap *m;
	size_t f;
	const char *op;
	struct buf key;
};

static void part_key(struct part_ctx *c, int pos, const char *dtype, size_t len)
{
	buf_reset(&c->key);
	buf_addf(&c->key, "%zu\t%s\t%d\t%.*s", c->f, c->op, pos, (int)len, dtype);
}

static int add_part(void *ctx, int pos, const char *dtype, size_t len)
{
	struct part_ctx *c = ctx;

	part_key(c, pos, dtype, len);
	strmap_get(c->m, c->key.data, NULL);
	return 0;
}

static int missing_part(void *ctx, int pos, const char *dtype, size_t len)
{
	struct part_ctx *c = ctx;

	part_key(c, pos, dtype, len);
	return strmap_find(c->m, c->key.data) == NULL;
}

int graphs_support_load(struct graphs_support *s, const char *store, const char *const *frontends, size_t n,
			struct err *e)
{
	struct db d = DB_INIT;
	struct part_ctx c = { &s->known, 0, NULL, BUF_INIT };
	struct buf key = BUF_INIT;
	int r = 0;

	s->digest = 0;
	s->probed = 0;
	s->nfes = n;
	if (db_open(&d, store, DB_READ, e) < 0)
		return -1;
	for (size_t f = 0; f < n && r == 0; f++) {
		struct strmap m = STRMAP_INIT;
		struct strmap_entry **rows;
		char *version = NULL;

		if (db_frontend_version(&d, frontends[f], &version, e) < 0 ||
		    probe_map_load(&m, &d, frontends[f], version, e) < 0) {
			free(version);
			probe_map_release(&m);
			r = -1;
			break;
		}
		/* In key order, so that the digest is the table's, not the hash map's. */
		rows = strmap_sorted(&m);
		for (size_t k = 0; rows[k]; k++) {
			const struct probe_row *p = rows[k]->ptr;

			/* Generation's probes, by type signature; a test's group (its dtype) says less. */
			if (!strchr(p->dtype, '('))
				continue;
			s->probed++;
			buf_reset(&key);
			buf_addf(&key, "%zu\t%s", f, rows[k]->key);
			strmap_get(&s->known, key.data, NULL);
			buf_reset(&key);
			buf_addf(&key, "%zu\t%s", f, p->op);
			strmap_get(&s->known, key.data, NULL);
			if (p->cls != PROBE_UNSUPPORTED) {
				c.f = f;
				c.op = p->op;
				each_part(p->dtype, add_part, &c);
				continue;
			}
			strmap_get(&s->lacked, rows[k]->key, NULL)->count++;
			s->digest = XXH3_64bits_withSeed(rows[k]->key, strlen(rows[k]->key), s->digest ^ (f + 1));
		}
		free(rows);
		free(version);
		probe_map_release(&m);
	}
	buf_release(&key);
	buf_release(&c.key);
	db_close(&d);
	return r;
}

void graphs_support_release(struct graphs_support *s)
{
	strmap_release(&s->lacked);
	strmap_release(&s->known);
	strmap_release(&s->unprobed);
	memset(s, 0, sizeof(*s));
}

/* Whether a frontend lacks op with signature sig: its probe said so; or it was not probed (too
 * many signatures to draw them all: OneHot's three dtypes) and one of its dtypes, in its place, is
 * in no signature of the operator that a frontend probed without "unsupported". */
static int support_lacks(void *ctx, const char *op, const char *sig)
{
	struct graphs_support *s = ctx;
	struct part_ctx c = { &s->known, 0, op, BUF_INIT };
	struct buf key = BUF_INIT;
	int lacks = 0;

	buf_addf(&key, "%s\t%s", op, sig);
	if (strmap_find(&s->lacked, key.data))
		lacks = 1;
	for (size_t f = 0; f < s->nfes && !lacks; f++) {
		buf_reset(&key);
		buf_addf(&key, "%zu\t%s\t%s", f, op, sig);
		if (strmap_find(&s->known, key.data))
			continue;
		buf_reset(&key);
		buf_addf(&key, "%zu\t%s", f, op);
		c.f = f;
		lacks = strmap_find(&s->known, key.data) && each_part(sig, missing_part, &c);
	}
	buf_release(&key);
	buf_release(&c.key);
	return lacks;
}

/* A vertex drawn: gathered when a frontend has no probe of its signature. */
static void support_drawn(void *ctx, const char *op, const char *sig)
{
	struct graphs_support *s = ctx;
	struct buf key = BUF_INIT;

	for (size_t f = 0; f < s->nfes; f++) {
		buf_reset(&key);
		buf_addf(&key, "%zu\t%s\t%s", f, op, sig);
		if (!strmap_find(&s->known, key.data)) {
			buf_reset(&key);
			buf_addf(&key, "%s\t%s", op, sig);
			strmap_get(&s->unprobed, key.data, NULL)->count++;
			break;
		}
	}
	buf_release(&key);
}

/* The installed onnx's version, from its dist-info beside the configured interpreter: provenance
 * only (not part of an id), and not worth starting Python for. NULL when not found. */
static char *onnx_version(const char *py)
{
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

static int list_ops(FILE *out, const struct spec_set *s)
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
				fprintf(out, "%-24s %-10s %s:%d\n",
					esc_str(b->ops[j]), opsets, esc_str(b->file), b->line);
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
	fprintf(fp, "  vertices dropped     %zu\n", g->drop_large + g->drop_rank + g->drop_bug + g->rejected +
		g->drop_lacks);
	fprintf(fp, "    too many elements  %zu\n", g->drop_large);
	fprintf(fp, "    rank over %d        %zu\n", GEN_MAX_RANK, g->drop_rank);
	fprintf(fp, "    seen before        %zu (--p-reject)\n", g->rejected);
	fprintf(fp, "    spec bugs          %zu\n", g->drop_bug);
	if (g->o.lacks)
		fprintf(fp, "    frontend lacks     %zu (its probe table says it lacks the operator in those dtypes)\n",
			g->drop_lacks);
	for (size_t k = 0; bugs[k] && k < 10; k++)
		fprintf(fp, "      %6zu  %s\n", bugs[k]->count, esc_str(bugs[k]->key));
	if (g->bugs.len > 10)
		fprintf(fp, "      (%zu more)\n", g->bugs.len - 10);
	memcpy(ops, g->ops, (size_t)g->nops * sizeof(*ops));
	qsort(ops, (size_t)g->nops, sizeof(*ops), op_nodes_cmp);
	fprintf(fp, "  nodes per operator   (%d operators)\n", g->nops);
	for (int k = 0; k < g->nops; k++)
		if (ops[k].lacked)
			fprintf(fp, "    %-22s %zu (%zu dropped: the frontend lacks them)\n", esc_str(ops[k].name),
				ops[k].nodes, ops[k].lacked);
		else
			fprintf(fp, "    %-22s %zu\n", esc_str(ops[k].name), ops[k].nodes);
	free(ops);
	free(bugs);
}

/* The probes of g's operators into a->output, atomically. */
static int write_probes(const struct graphs_opts *a, const struct stage_io *io, struct graph_gen *g)
{
	struct buf text = BUF_INIT;
	struct err e = ERR_INIT;
	size_t n = graph_probes(g, PROBE_TRIES, &text);
	int code = EXIT_OK;

	if (fs_write_atomic(a->output, text.data ? text.data : "", text.len, &e) < 0)
		code = io->error(&e);
	else if (!a->quiet)
		fprintf(io->out, "generate probes -> %s: %zu, the type signatures of %d operators\n",
			esc_str(a->output), n, g->nops);
	buf_release(&text);
	err_release(&e);
	return code;
}

int graphs_generate(const struct graphs_opts *a, const struct stage_io *io, struct err *usage)
{
	struct spec_set specs;
	struct graph_gen g;
	struct graph_opts o;
	struct fs_output out = FS_OUTPUT_INIT;
	struct progress progress;
	struct buf line = BUF_INIT;
	struct err e = ERR_INIT;
	char *dir = NULL, *version = NULL;
	size_t written = 0, empty = 0;
	uint64_t index = 0;
	int code = EXIT_OK, have_gen = 0;
	double start;
	FILE *summary;

	spec_init(&specs);
	memset(&g, 0, sizeof(g));
	memset(&o, 0, sizeof(o));
	dir = a->specs ? xstrdup(a->specs) : spec_default_dir();
	o.min_nodes = a->min_nodes;
	o.max_nodes = a->max_nodes;
	o.opset = a->opset;
	o.seed = (uint64_t)a->seed;
	o.diversity = a->diversity;
	o.p_reject = a->p_reject;
	o.solve.pick_rate = a->pick_rate;
	o.solve.max_dim = a->max_dim;
	o.solve.max_elements = a->max_elements;
	if (spec_load_dir(&specs, dir, &e) < 0 || solve_check(&specs, &o.solve, CHECK_SAMPLES, &e) < 0) {
		code = io->error(&e);
		goto out;
	}
	if (a->list) {
		code = list_ops(io->out, &specs);
		goto out;
	}
	if (graph_gen_init(&g, &specs, a->globs, a->nglobs, &o, &e) < 0) {
		/* An --ops glob that names no operator is the user's to fix: the command says so. */
		if (e.code == EXIT_USAGE) {
			err_set(usage, EXIT_USAGE, "%s", e.msg);
			code = EXIT_USAGE;
		} else {
			code = io->error(&e);
		}
		goto out;
	}
	have_gen = 1;
	version = onnx_version(io->python);
	g.o.library_version = version;
	if (a->support) {
		g.o.lacks = support_lacks;
		g.o.drawn = support_drawn;
		g.o.lacks_ctx = a->support;
	}
	if (a->probes) {
		code = write_probes(a, io, &g);
		goto out;
	}
	if (fs_output_open(&out, a->output, &e) < 0) {
		code = io->error(&e);
		goto out;
	}
	if (out.stale)
		stage_warn(io, "removed %zu temporary file%s that a killed ferry left beside '%s'", out.stale,
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
				code = io->error(&e);
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
	summary = fs_output_in_place(&out) ? stderr : io->out;
	if (fs_output_commit(&out, &e) < 0) {
		code = io->error(&e);
		goto out;
	}
	if (!a->no_summary)
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
	return code;
}
