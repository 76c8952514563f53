/* go.c: ferry go's pipeline (go.h).
 *
 * From a library's tests to a bug list in one command, in a project directory: for each library,
 * harvest its tests into DIR/LIBRARY/corpus.jsonl, rank the corpus for each frontend (against that
 * frontend's own test counts where ferry ships them; frontends that share counts share a queue),
 * take a sample down each queue (--per-op K spreads it across operators, --limit N bounds it),
 * with --vary K derive up to K variants of each test of the samples (ferry vary) and with
 * --generate N generate N ONNX graphs (ferry generate), each ranked apart and run after the sample,
 * wrap only what will run, run every frontend into DIR/LIBRARY/results.db, group the failures into
 * bugs (DIR/LIBRARY/bugs.txt) and write the report and its reproducers. Each stage whose output is
 * current is skipped and says so; every stage keeps what it finished, so Ctrl-C loses nothing and
 * the same command run again goes on. With --budget the queue is wrapped and run in growing chunks,
 * every frontend taking each chunk in turn, until the time is spent.
 *
 * Every stage calls an engine with an options struct: the harvest, vary and generate stages of
 * pipeline/ (corpus.h, variants.h, graphs.h), the wrap (templates/wrap.h) and the session
 * (oracle/session.h) engines, and the bugs and report engines of report/, which write bugs.txt and
 * report.txt; src/cmd-go.c only parses the command line. */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "bugs.h"
#include "config.h"
#include "go.h"
#include "corpus.h"
#include "counts.h"
#include "esc.h"
#include "fsutil.h"
#include "graphs.h"
#include "home.h"
#include "harvest.h"
#include "jsonl.h"
#include "libraries.h"
#include "probe.h"
#include "progress.h"
#include "py.h"
#include "rank.h"
#include "record.h"
#include "report.h"
#include "runopts.h"
#include "select.h"
#include "spec.h"
#include "strmap.h"
#include "dedup.h"
#include "trigger.h"
#include "triggers.h"
#include "variants.h"
#include "wrap.h"
#include "xalloc.h"

/* The counts ferry ships, by the frontend they serve (corpora/counts/README.md's table). */
static const struct {
	const char *frontend, *file;
} frontend_counts[] = {
	{ "ort", "onnxruntime-cpu.json" },
	{ "tvm-onnx", "tvm-relax-onnx.json" },
	{ "iree-onnx", "iree-onnx.json" },
	{ "tvm-pytorch", "tvm-relax-torch.json" },
};

/* The opset go generates graphs at: ferry generate's default. */
#define GO_OPSET 17

/* What runs beside the harvested tests, each from a corpus of its own, ranked apart and run after
 * the sample: the variants of the sample's tests (--vary), and generated graphs (--generate). */
enum extra { EXTRA_VARIANTS, EXTRA_GENERATED, EXTRA_COUNT };

static const char *const extra_name[EXTRA_COUNT] = { "variants", "generated" };

/* Frontends that share a queue: the same counts. */
struct group {
	char *counts;           /* the counts file, or NULL */
	char *queue, *stamp, *ids;
	char *xqueue[EXTRA_COUNT], *xstamp[EXTRA_COUNT];
	char *generated;        /* the group's generated graphs: none its frontends lack */
	struct frontend fes[RUNOPTS_MAX_FRONTENDS];  /* shallow copies of runopts.fes */
	size_t nfes;
	char **sample;          /* the ids to run, queue order: the harvested tests', then the extras' */
	size_t nsample, cap;
	size_t nharvested;      /* of them, from the corpus */
	struct strmap in_sample;
	size_t runnable;        /* queue entries that can run (before --per-op and --limit) */
};

/* What runs added up: a chunk's "run" line is that chunk's, and a budget runs many. */
struct tally {
	size_t ran, already, invalid, left, chunks;
	size_t counts[OUTCOME_COUNT];  /* by enum outcome */
};

struct go {
	struct go_opts *a;          /* the options (borrowed) */
	struct stage_io io;         /* what the stages say, and where */
	const char *library;
	char *dir, *corpus, *wrapdir, *store;
	char *extra[EXTRA_COUNT];   /* the extras' corpora, NULL where none is made (the generated
				     * graphs: each group's own, q->generated, once this is set) */
	char *probes;               /* the generated probes' corpus, once made */
	int probing;                /* run_group runs probes only */
	char *parents;              /* the samples' tests, vary's corpus */
	char *triggers;             /* the bugs' neighbours' corpus, once the trigger stage made it */
	struct group groups[RUNOPTS_MAX_FRONTENDS];
	size_t ngroups;
	double start;
	size_t ran, failures;
	int out_of_time;
	cJSON *lib;                 /* with --json: this library's object, whose "stages" say() fills */
	struct tally run[RUNOPTS_MAX_FRONTENDS];  /* the run stage's, by frontend (index in a->r.fes) */
	struct tally whole;         /* every test the command ran, of every library (go_release keeps it) */
};

static void say(const struct go *g, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* A line about a stage, on io->out (stdout) among the stages' own summaries; with --json, each of its
 * lines is one of the library's "stages" too. */
static void say(const struct go *g, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vfprintf(g->io.out, fmt, ap);
	va_end(ap);
	fflush(g->io.out);
	if (g->lib) {
		struct buf text = BUF_INIT;
		char *save = NULL;
		cJSON *stages = cJSON_GetObjectItemCaseSensitive(g->lib, "stages");

		va_start(ap, fmt);
		buf_vaddf(&text, fmt, ap);
		va_end(ap);
		for (char *l = strtok_r(text.data, "\n", &save); l; l = strtok_r(NULL, "\n", &save))
			cJSON_AddItemToArray(stages, cJSON_CreateString(l));
		buf_release(&text);
	}
}

/* With --json: a file of the library's, by what it holds. */
static void json_path(const struct go *g, const char *what, const char *path)
{
	if (g->lib)
		cJSON_AddStringToObject(cJSON_GetObjectItemCaseSensitive(g->lib, "paths"), what, path);
}

static double time_left(const struct go *g)
{
	return g->a->budget > 0 ? g->a->budget - (progress_now() - g->start) : 1e9;
}

static char *counts_for(const struct go *g, const struct frontend *fe)
{
	if (g->a->counts_opt)
		return xstrdup(g->a->counts_opt);
	for (size_t i = 0; i < sizeof(frontend_counts) / sizeof(frontend_counts[0]); i++)
		if (!strcmp(fe->name, frontend_counts[i].frontend))
			return home_file(HOME_COUNTS, frontend_counts[i].file);
	return NULL;
}

/* Whether stamp holds exactly want (a stage's options, kept beside its output). */
static int stamp_is(const char *stamp, const char *want)
{
	struct buf text = BUF_INIT;
	struct err e = ERR_INIT;
	int same = fs_exists(stamp) && fs_read(stamp, &text, &e) == 0 && text.data && !strcmp(text.data, want);

	buf_release(&text);
	err_release(&e);
	return same;
}

static int newer_or_same(const char *a, const char *b)
{
	struct stat sa, sb;

	return stat(a, &sa) == 0 && stat(b, &sb) == 0 &&
	       (sa.st_mtim.tv_sec > sb.st_mtim.tv_sec ||
		(sa.st_mtim.tv_sec == sb.st_mtim.tv_sec && sa.st_mtim.tv_nsec >= sb.st_mtim.tv_nsec));
}

/* --- harvest ----------------------------------------------------------------------------------- */

/* The corpus is current when it exists and was harvested with the same selection, or whole (a
 * whole corpus holds every selection: --op and --test then apply from the rank on). One harvested
 * for another selection is harvested again, saying so. One without the stamp that ferry go leaves
 * beside what it harvests is not go's (copied in, or made by ferry harvest with who knows what
 * selection: a Conv-only corpus would pass for the whole library's): refused, not overwritten. */
static int stage_harvest(struct go *g)
{
	char *stamp = xasprintf("%s.args", g->corpus), *sel = select_describe(&g->a->r.select);
	struct buf want = BUF_INIT, whole = BUF_INIT;
	struct corpus_opts o = { 0 };
	int has_suites = 0, code = EXIT_OK;
	struct err e = ERR_INIT;

	harvest_source(g->library, &has_suites);
	buf_addf(&whole, "harvest %s\n", g->library);
	buf_addf(&want, "harvest %s", g->library);
	for (size_t i = 0; has_suites && i < g->a->suites.n; i++)
		buf_addf(&want, " --suite %s", g->a->suites.v[i]);
	buf_addf(&want, "%s%s\n", *sel ? " " : "", sel);
	if (fs_exists(g->corpus) && !fs_exists(stamp)) {
		err_set(&e, EXIT_INPUT, "'%s' is no corpus that ferry go harvested (it has no '%s'), so what it holds "
			"is unknown: move it away (or remove it) for ferry go to harvest the library anew, or run "
			"the stages on it yourself (ferry rank, wrap, run)", g->corpus, stamp);
		code = g->io.error(&e);
		goto out;
	}
	if (fs_exists(g->corpus) && (stamp_is(stamp, whole.data) || stamp_is(stamp, want.data))) {
		say(g, "harvest %s: current ('%s'), skipped\n", g->library, esc_str(g->corpus));
		goto out;
	}
	if (fs_exists(g->corpus))
		say(g, "harvest %s: '%s' was harvested for another selection ('%s'), harvested anew\n", g->library,
		    esc_str(g->corpus), esc_str(stamp));
	o.source = g->library;
	o.output = g->corpus;
	if (has_suites)
		o.suites = g->a->suites;
	o.sel = g->a->r.select;
	o.timeout = g->a->harvest_timeout > 0 ? g->a->harvest_timeout : HARVEST_DEFAULT_TIMEOUT;
	o.timeout_option = "--harvest-timeout";
	o.quiet = g->a->quiet;
	say(g, "harvest %s -> %s\n", g->library, esc_str(g->corpus));
	if ((code = corpus_harvest(&o, &g->io)) != EXIT_OK)
		goto out;
	if (fs_write_atomic(stamp, want.data, want.len, &e) < 0)
		code = g->io.error(&e);
out:
	buf_release(&want);
	buf_release(&whole);
	free(stamp);
	free(sel);
	err_release(&e);
	return code;
}

/* --- rank and sample --------------------------------------------------------------------------- */

/* The first bad lines of a corpus, said; the others only counted. */
struct bad_lines {
	const struct stage_io *io;
	size_t shown;
};

static void on_bad_line(void *ctx, const struct err *e)
{
	struct bad_lines *b = ctx;

	if (b->shown++ < 5)
		stage_warn(b->io, "%s", e->msg);
}

/* Rank corpus into queue (against the group's counts), the instances that sel selects (NULL:
 * every one). what names the corpus in the line said ("" for the harvested one). */
static int rank_queue(struct go *g, struct group *q, const char *corpus, const char *queue,
		      const struct select *sel, const char *what, struct err *e)
{
	struct rank_set s;
	struct rank_opts o = RANK_OPTS_INIT;
	struct rank_queue rq = RANK_QUEUE_INIT;
	struct rank_stats st;
	struct counts c;
	struct bad_lines bad = { &g->io, 0 };
	size_t nbad = 0;
	int r = -1;

	rank_set_init(&s);
	counts_init(&c);
	if (q->counts) {
		if (counts_load(&c, q->counts, e) < 0)
			goto out;
		o.counts = &c;
	}
	s.select = sel;
	if (rank_set_load(&s, corpus, on_bad_line, &bad, &nbad, e) < 0)
		goto out;
	if (!s.n && !*what) {
		char *d = select_describe(&g->a->r.select);

		err_set(e, EXIT_INPUT, "'%s' holds no instance records%s%s: nothing to rank", corpus,
			*d ? " that " : "", *d ? d : "");
		free(d);
		goto out;
	}
	if ((s.n && rank_run(&s, &o, &rq, &st, e) < 0) || rank_queue_write(&s, &rq, queue, e) < 0)
		goto out;
	say(g, "rank %s%s%s%s%s: %zu instances of %zu operators, %zu can run -> %s\n", g->library, *what ? " " : "",
	    what, q->counts ? " against " : "", q->counts ? esc_str(q->counts) : "", s.n, s.n ? st.ops : 0,
	    s.n ? st.tier[RANK_TIER_OK] : 0, esc_str(queue));
	r = 0;
out:
	rank_queue_release(&rq);
	rank_set_release(&s);
	counts_release(&c);
	return r;
}

/* The queue of corpus, ranked again unless current: it exists, was ranked with the same counts
 * and selection, and is newer than the corpus. */
static int current_queue(struct go *g, struct group *q, const char *corpus, const char *queue,
			 const char *stamp, const struct select *sel, const char *what, struct err *e)
{
	char *d = sel ? select_describe(sel) : xstrdup("");
	char *want = xasprintf("rank %s%s%s\n", q->counts ? q->counts : "(no counts)", *d ? " " : "", d);
	int r = 0;

	if (fs_exists(queue) && stamp_is(stamp, want) && newer_or_same(queue, corpus))
		say(g, "rank %s%s%s%s%s: current ('%s'), skipped\n", g->library, *what ? " " : "", what,
		    q->counts ? " against " : "", q->counts ? esc_str(q->counts) : "", esc_str(queue));
	else if (rank_queue(g, q, corpus, queue, sel, what, e) < 0 || fs_write_atomic(stamp, want, strlen(want), e) < 0)
		r = -1;
	free(want);
	free(d);
	return r;
}

/* Whether a test of the queue of kind may join the group's sample: a variant only when its parent
 * is one of the group's harvested tests (their count in in_sample is 1, the others' 2). */
static int eligible(const struct group *q, int kind, const struct strmap *parent_of, const char *id)
{
	const struct strmap_entry *p, *n;

	if (kind != EXTRA_VARIANTS)
		return 1;
	p = strmap_find(parent_of, id);
	n = p && p->ptr ? strmap_find(&q->in_sample, p->ptr) : NULL;
	return n && n->count == 1;
}

/* Add the queue's tests that can run to the group's sample, down the queue: the harvested ones
 * (kind < 0) --per-op K of an operator at most and the top --limit N; a variant only when its
 * parent is among the group's harvested tests; a generated graph always. How many were taken, and
 * how many could run, into *took and *could. */
static int take_sample(const struct go *g, struct group *q, const char *queue, int kind,
		       const struct strmap *parent_of, size_t *took, size_t *could, struct err *e)
{
	int per_op = g->a->per_op, limit = g->a->limit;
	struct strmap per = STRMAP_INIT;
	struct jsonl_reader r;
	enum jsonl_status st;
	cJSON *j;

	*took = *could = 0;
	if (jsonl_open(&r, queue, e) < 0)
		return -1;
	while ((st = jsonl_good_json(&r, &j, e)) == JSONL_OK) {
		const cJSON *id = cJSON_GetObjectItemCaseSensitive(j, "id");
		const cJSON *op = cJSON_GetObjectItemCaseSensitive(j, "op");
		struct strmap_entry *n, *p;
		int created;

		/* Invalid and unmigratable instances (a status) are last in a queue and never run. */
		if (cJSON_IsString(id) && cJSON_IsString(op) && !cJSON_GetObjectItemCaseSensitive(j, "status") &&
		    eligible(q, kind, parent_of, id->valuestring)) {
			(*could)++;
			n = kind < 0 ? strmap_get(&per, op->valuestring, NULL) : NULL;
			if (!n || ((!per_op || n->count < (size_t)per_op) && (!limit || q->nsample < (size_t)limit))) {
				if (n)
					n->count++;
				p = strmap_get(&q->in_sample, id->valuestring, &created);
				if (created) {
					p->count = kind < 0 ? 1 : 2;
					XGROW(q->sample, q->cap, q->nsample + 1);
					q->sample[q->nsample++] = xstrdup(id->valuestring);
					(*took)++;
				}
			}
		}
		cJSON_Delete(j);
	}
	jsonl_close(&r);
	strmap_release(&per);
	return st == JSONL_FAIL ? -1 : 0;
}

/* The queue (ranked again unless current), then the sample down it: what can run, --per-op K of
 * an operator at most, the top --limit N. */
static int stage_rank(struct go *g, struct group *q, struct err *e)
{
	int per_op = g->a->per_op, limit = g->a->limit;
	size_t took;

	if (current_queue(g, q, g->corpus, q->queue, q->stamp, &g->a->r.select, "", e) < 0 ||
	    take_sample(g, q, q->queue, -1, NULL, &took, &q->runnable, e) < 0)
		return -1;
	q->nharvested = q->nsample;
	say(g, "sample: %zu of the %zu tests of the queue that can run%s\n", q->nsample, q->runnable,
	    per_op || limit ? (per_op && limit ? " (--per-op, --limit)" : per_op ? " (--per-op)" : " (--limit)") : "");
	return 0;
}

/* The sample, one id per line, into the group's ids file. */
static int write_sample(const struct go *g, const struct group *q, struct err *e)
{
	struct buf ids = BUF_INIT;
	int r;

	for (size_t i = 0; i < q->nsample; i++)
		buf_addf(&ids, "%s\n", q->sample[i]);
	r = fs_write_atomic(q->ids, ids.data ? ids.data : "", ids.len, e);
	if (r == 0 && q->nsample > q->nharvested)
		say(g, "sample: %zu tests, %zu harvested and %zu more -> %s\n", q->nsample, q->nharvested,
		    q->nsample - q->nharvested, esc_str(q->ids));
	else if (r == 0)
		say(g, "sample -> %s\n", esc_str(q->ids));
	buf_release(&ids);
	return r;
}

/* --- vary and generate ------------------------------------------------------------------------- */

/* The lines of a corpus file that are not in m yet, appended to text (each ending in a newline), and
 * their ids into m; when want is not NULL, only the lines of ids in want. How many were added, or -1
 * with e filled. A file that does not exist adds nothing. */
static long add_lines(const char *path, const struct strmap *want, struct strmap *m, struct buf *text,
		      struct err *e)
{
	struct jsonl_reader r;
	enum jsonl_status st;
	long added = 0;
	char *id;

	if (!fs_exists(path))
		return 0;
	if (jsonl_open(&r, path, e) < 0)
		return -1;
	while ((st = jsonl_good_id(&r, &id, e)) == JSONL_OK) {
		int created;

		if ((!want || strmap_find(want, id)) && (strmap_get(m, id, &created), created)) {
			buf_adds(text, r.line);
			if (text->data[text->len - 1] != '\n')
				buf_adds(text, "\n");
			added++;
		}
		free(id);
	}
	jsonl_close(&r);
	return st == JSONL_FAIL ? -1 : added;
}

/* Vary the tests of every group's sample. The parents file gathers every test ever varied here
 * (another go call with another sample adds its tests to it), so that vary runs only when there
 * is a new parent or another K: vary itself resumes an interrupted run and skips the candidates it
 * tried before, and a variant of a test outside the sample never runs. */
static int stage_vary(struct go *g, struct err *e)
{
	struct strmap want = STRMAP_INIT, have = STRMAP_INIT;
	struct buf text = BUF_INIT;
	char *stamp = xasprintf("%s.args", g->extra[EXTRA_VARIANTS]);
	char *args = xasprintf("vary --per-instance %d\n", g->a->vary_k);
	struct variants_opts o = { 0 };
	long added = 0;
	int ret = -1, code;

	for (size_t i = 0; i < g->ngroups; i++)
		for (size_t n = 0; n < g->groups[i].nharvested; n++)
			strmap_get(&want, g->groups[i].sample[n], NULL);
	if (!want.len) {
		say(g, "vary %s: no test in the sample to vary\n", g->library);
		ret = 0;
		goto out;
	}
	if (add_lines(g->parents, NULL, &have, &text, e) < 0)
		goto out;
	/* The corpus (a PyTorch one is large) is read only for a test that is not a parent yet. */
	for (size_t i = 0; i < want.cap && !added; i++)
		if (want.slots[i].key && !strmap_find(&have, want.slots[i].key))
			added = 1;
	if (added && (added = add_lines(g->corpus, &want, &have, &text, e)) < 0)
		goto out;
	if (added && fs_write_atomic(g->parents, text.data, text.len, e) < 0)
		goto out;
	if (!added && fs_exists(g->extra[EXTRA_VARIANTS]) && stamp_is(stamp, args)) {
		say(g, "vary %s: current ('%s'), skipped\n", g->library, esc_str(g->extra[EXTRA_VARIANTS]));
		ret = 0;
		goto out;
	}
	o.corpus = g->parents;
	o.output = g->extra[EXTRA_VARIANTS];
	o.per_instance = g->a->vary_k;
	o.seed = 1;
	o.jobs = g->a->r.s.runner.jobs;
	o.timeout = g->a->r.s.runner.timeout;
	o.quiet = g->a->quiet;
	o.command = g->a->r.command;
	say(g, "vary %s: up to %d variants of each of the samples' %zu tests (%ld new) -> %s\n", g->library,
	    g->a->vary_k, want.len, added, esc_str(g->extra[EXTRA_VARIANTS]));
	/* No stamp while vary runs: one that stops has added its parents already, and only the
	 * missing stamp then says that the same command must run vary again (to resume it). */
	unlink(stamp);
	if ((code = variants_make(&o, &g->io)) != EXIT_OK) {
		err_set(e, code, "vary stopped (see above); the variants kept so far are in '%s'",
			g->extra[EXTRA_VARIANTS]);
		goto out;
	}
	if (fs_write_atomic(stamp, args, strlen(args), e) < 0)
		goto out;
	ret = 0;
out:
	strmap_release(&want);
	strmap_release(&have);
	buf_release(&text);
	free(stamp);
	free(args);
	return ret;
}

/* The --op globs that name an operator ferry can generate at generate's default opset: generate
 * refuses a glob that matches none, and --op may name operators with no spec. NULL when --op
 * names none of them; "" when there is no --op. Caller frees. */
static char *generate_ops(const struct go *g, struct err *e)
{
	struct spec_set specs = SPEC_SET_INIT;
	struct buf ops = BUF_INIT;
	char *dir = spec_default_dir();
	int any = 0;

	if (!g->a->r.select.nops) {
		free(dir);
		return xstrdup("");
	}
	if (spec_load_dir(&specs, dir, e) < 0) {
		free(dir);
		spec_release(&specs);
		return NULL;
	}
	for (size_t m = 0; m < g->a->r.select.nops; m++) {
		int match = 0;

		for (size_t k = 0; k < specs.nblocks && !match; k++) {
			const struct block *b = specs.blocks[k];

			if (GO_OPSET < b->opset_lo || GO_OPSET > b->opset_hi)
				continue;
			for (int i = 0; i < b->nops && !match; i++)
				match = select_op_matches(g->a->r.select.ops[m], b->ops[i]);
		}
		if (match) {
			buf_addf(&ops, "%s%s", any ? "," : "", g->a->r.select.ops[m]);
			any = 1;
		}
	}
	free(dir);
	spec_release(&specs);
	if (!any) {
		buf_release(&ops);
		return NULL;
	}
	return buf_detach(&ops);
}

/* go's generation options: ferry generate's defaults, seed 1, the --op globs that have a spec. */
static void generate_opts(const struct go *g, struct graphs_opts *o, const char *const *globs, size_t nglobs)
{
	memset(o, 0, sizeof(*o));
	o->count = g->a->generate_n;
	o->seed = 1;
	o->opset = GO_OPSET;
	o->min_nodes = 1;
	o->max_nodes = 10;
	o->pick_rate = 0.97;
	o->max_dim = 8;
	o->max_elements = 65536;
	o->quiet = g->a->quiet;
	o->globs = globs;
	o->nglobs = nglobs;
}

static int stage_wrap(struct go *g, const struct strmap *only, size_t want, struct err *e);
static int run_group(struct go *g, struct group *q, const char *ids, struct err *e);

/* Rounds of generation at most: each probes what the one before drew and no store knew. */
#define GENERATE_ROUNDS 3

/* The probes of the operators generation draws from (generate-probes.jsonl: each operator's
 * simplest vertex in every type signature it takes), made unless current. */
static int make_probes(struct go *g, const char *const *globs, size_t nglobs, const char *ops, struct err *e)
{
	char *stamp, *args;
	struct graphs_opts o;
	struct err why = ERR_INIT;
	int ret = 0, code;

	if (g->probes)
		return 0;
	g->probes = xasprintf("%s/generate-probes.jsonl", g->dir);
	stamp = xasprintf("%s.args", g->probes);
	args = xasprintf("generate --probes --seed 1 --opset %d%s%s\n", GO_OPSET, *ops ? " --ops " : "", ops);
	if (!fs_exists(g->probes) || !stamp_is(stamp, args)) {
		generate_opts(g, &o, globs, nglobs);
		o.output = g->probes;
		o.probes = 1;
		o.quiet = 1;
		if ((code = graphs_generate(&o, &g->io, &why)) != EXIT_OK) {
			if (code == EXIT_USAGE && why.msg[0])
				g->io.error(&why);
			ret = err_set(e, code, "generate stopped (see above)");
		} else {
			ret = fs_write_atomic(stamp, args, strlen(args), e);
		}
	}
	err_release(&why);
	free(stamp);
	free(args);
	return ret;
}

/* Probe, through the group's frontends, the signatures of wanted ("OP\tSIGNATURE") that a vertex of
 * generation had and no frontend's probe in the store covered (NNSmith's dtype test, on demand):
 * their probes from generate-probes.jsonl, wrapped and run as probes only, into the store's support
 * table. */
static int probe_drawn(struct go *g, struct group *q, const struct strmap *wanted, struct err *e)
{
	char *ids_path = xasprintf("%s/generate-probes.ids", g->dir);
	struct strmap only = STRMAP_INIT;
	struct buf ids = BUF_INIT, key = BUF_INIT;
	struct jsonl_reader r;
	enum jsonl_status st;
	int ret = -1;

	if (jsonl_open(&r, g->probes, e) < 0)
		goto out;
	for (;;) {
		struct instance in;
		int created;

		st = jsonl_next(&r, &in, e);
		if (st == JSONL_BAD) {  /* ferry wrote the file: a bad line is left out */
			err_release(e);
			continue;
		}
		if (st != JSONL_OK)
			break;
		probe_signature_key(&in, &key);
		if (strmap_find(wanted, key.data)) {
			strmap_get(&only, in.id, &created);
			if (created)
				buf_addf(&ids, "%s\n", in.id);
		}
		record_release(&in);
	}
	jsonl_close(&r);
	if (st == JSONL_FAIL)
		goto out;
	if (!only.len) {
		ret = 0;
		goto out;
	}
	if (fs_write_atomic(ids_path, ids.data, ids.len, e) < 0 || stage_wrap(g, &only, only.len, e) < 0)
		goto out;
	g->probing = 1;
	ret = run_group(g, q, ids_path, e);
	g->probing = 0;
	ret = ret < 0 ? -1 : 0;
out:
	strmap_release(&only);
	buf_release(&ids);
	buf_release(&key);
	free(ids_path);
	return ret;
}

/* N graphs for each group, the same ones for the same N, --op and support (the seed is fixed),
 * unless current: none has a vertex whose operator and type signature one of the group's
 * frontends said it lacks. Probes run on demand: a round of generation gathers the signatures its
 * vertices had that a frontend has no probe of, those probes run, and the next round generates
 * again, knowing more (GENERATE_ROUNDS at most). */
static int stage_generate(struct go *g, struct err *e)
{
	struct graphs_opts o;
	struct err why = ERR_INIT;
	const char **globs = NULL;
	char *ops = NULL, *save = NULL;
	size_t nglobs = 0, cap = 0;
	int ret = -1, code, probe = !g->a->r.s.no_probe;

	if (g->a->r.select.ntests) {
		say(g, "generate %s: --test selects harvested tests, and generated graphs have none: skipped\n",
		    g->library);
		free(g->extra[EXTRA_GENERATED]);
		g->extra[EXTRA_GENERATED] = NULL;
		return 0;
	}
	if (!(ops = generate_ops(g, e))) {
		if (e->code)
			return -1;
		say(g, "generate %s: no operator of --op has a spec to generate from: skipped\n", g->library);
		free(g->extra[EXTRA_GENERATED]);
		g->extra[EXTRA_GENERATED] = NULL;
		return 0;
	}
	{
		char *copy = xstrdup(ops);

		for (char *tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
			XGROW(globs, cap, nglobs + 1);
			globs[nglobs++] = xstrdup(tok);
		}
		free(copy);
	}
	if (probe && make_probes(g, globs, nglobs, ops, e) < 0)
		goto out;
	for (size_t k = 0; k < g->ngroups; k++) {
		struct group *q = &g->groups[k];
		const char *labels[RUNOPTS_MAX_FRONTENDS];
		char *stamp = xasprintf("%s.args", q->generated), *args = NULL;
		int failed = 0;

		for (size_t i = 0; i < q->nfes; i++)
			labels[i] = q->fes[i].label;
		for (int round = 0; round < GENERATE_ROUNDS && !failed; round++) {
			struct graphs_support sup = GRAPHS_SUPPORT_INIT;

			/* A store not made yet knows nothing: every signature drawn is to be probed. */
			sup.nfes = q->nfes;
			if (probe && fs_exists(g->store) &&
			    graphs_support_load(&sup, g->store, labels, q->nfes, e) < 0) {
				failed = 1;
				break;
			}
			free(args);
			args = xasprintf("generate -n %d --seed 1 --opset %d%s%s --lacks %016llx\n", g->a->generate_n,
					 GO_OPSET, *ops ? " --ops " : "", ops, (unsigned long long)sup.digest);
			if (round == 0 && fs_exists(q->generated) && stamp_is(stamp, args)) {
				say(g, "generate %s: current ('%s'), skipped\n", g->library, esc_str(q->generated));
				graphs_support_release(&sup);
				break;
			}
			generate_opts(g, &o, globs, nglobs);
			o.output = q->generated;
			o.support = probe ? &sup : NULL;
			if (probe && round < GENERATE_ROUNDS - 1) {
				/* A draft, said nothing of: what it drew that no probe covers is probed, and the
				 * next round knows it. Without such, the same graphs are made again below. */
				o.no_summary = o.quiet = 1;
				if ((code = graphs_generate(&o, &g->io, &why)) != EXIT_OK)
					goto failed;
				if (sup.unprobed.len) {
					say(g, "generate %s: %zu type signatures drawn for %s%s have no probe: probing "
					    "them\n", g->library, sup.unprobed.len, esc_str(q->fes[0].label),
					    q->nfes > 1 ? " and the frontends beside it" : "");
					failed = probe_drawn(g, q, &sup.unprobed, e) < 0;
					graphs_support_release(&sup);
					continue;
				}
				strmap_release(&sup.unprobed);
				o.no_summary = 0;
				o.quiet = g->a->quiet;
			}
			say(g, "generate %s: %d graphs for %s%s -> %s\n", g->library, g->a->generate_n,
			    esc_str(q->fes[0].label), q->nfes > 1 ? " and the frontends beside it" : "",
			    esc_str(q->generated));
			if (probe)
				say(g, "generate %s: %zu of the %zu type signatures probed are unsupported; none is "
				    "drawn\n", g->library, sup.lacked.len, sup.probed);
			if ((code = graphs_generate(&o, &g->io, &why)) != EXIT_OK)
				goto failed;
			failed = fs_write_atomic(stamp, args, strlen(args), e) < 0;
			graphs_support_release(&sup);
			break;
failed:
			if (code == EXIT_USAGE && why.msg[0])
				g->io.error(&why);
			err_set(e, code, "generate stopped (see above)");
			failed = 1;
			graphs_support_release(&sup);
		}
		free(stamp);
		free(args);
		if (failed)
			goto out;
	}
	ret = 0;
out:
	err_release(&why);
	for (size_t i = 0; i < nglobs; i++)
		free((char *)globs[i]);
	free(globs);
	free(ops);
	return ret;
}

/* Each variant's parent, by the variant's id (the entry's ptr, owned). */
static int read_parents(const char *variants, struct strmap *parent_of, struct err *e)
{
	struct jsonl_reader r;
	enum jsonl_status st;
	cJSON *j;

	if (jsonl_open(&r, variants, e) < 0)
		return -1;
	while ((st = jsonl_good_json(&r, &j, e)) == JSONL_OK) {
		const cJSON *id, *v, *parent;

		id = cJSON_GetObjectItemCaseSensitive(j, "id");
		v = cJSON_GetObjectItemCaseSensitive(j, "variant");
		parent = cJSON_GetObjectItemCaseSensitive(v, "parent");
		if (cJSON_IsString(id) && cJSON_IsString(parent)) {
			struct strmap_entry *x = strmap_get(parent_of, id->valuestring, NULL);

			free(x->ptr);
			x->ptr = xstrdup(parent->valuestring);
		}
		cJSON_Delete(j);
	}
	jsonl_close(&r);
	return st == JSONL_FAIL ? -1 : 0;
}

static void release_parents(struct strmap *parent_of)
{
	for (size_t i = 0; i < parent_of->cap; i++)
		if (parent_of->slots[i].key)
			free(parent_of->slots[i].ptr);
	strmap_release(parent_of);
}

/* The extras: vary and generate as asked, then each group's queues of them, added to its sample
 * after the harvested tests; then every group's sample file. */
static int stage_extras(struct go *g, struct err *e)
{
	struct strmap parent_of = STRMAP_INIT;
	int r = -1;

	if (g->a->vary_k) {
		g->parents = xasprintf("%s/vary-parents.jsonl", g->dir);
		g->extra[EXTRA_VARIANTS] = xasprintf("%s/variants.jsonl", g->dir);
		if (stage_vary(g, e) < 0)
			goto out;
		if (!fs_exists(g->extra[EXTRA_VARIANTS])) {
			free(g->extra[EXTRA_VARIANTS]);
			g->extra[EXTRA_VARIANTS] = NULL;
		} else if (read_parents(g->extra[EXTRA_VARIANTS], &parent_of, e) < 0) {
			goto out;
		}
	}
	if (g->a->generate_n && !strcmp(g->library, "onnx")) {
		g->extra[EXTRA_GENERATED] = xasprintf("%s/generated.jsonl", g->dir);
		if (stage_generate(g, e) < 0)
			goto out;
	} else if (g->a->generate_n) {
		say(g, "generate %s: ferry generates ONNX graphs only: skipped\n", g->library);
	}
	for (size_t k = 0; k < g->ngroups; k++) {
		struct group *q = &g->groups[k];

		for (int x = 0; x < EXTRA_COUNT; x++) {
			size_t took, could;

			if (!g->extra[x])
				continue;
			/* Variants are of the selected tests already; a graph's operator is "graph". */
			if (current_queue(g, q, x == EXTRA_GENERATED ? q->generated : g->extra[x], q->xqueue[x],
					  q->xstamp[x],
					  x == EXTRA_VARIANTS ? &g->a->r.select : NULL, extra_name[x], e) < 0 ||
			    take_sample(g, q, q->xqueue[x], x, &parent_of, &took, &could, e) < 0)
				goto out;
			if (x == EXTRA_VARIANTS)
				say(g, "sample: %zu variants of the sample's tests that can run\n", took);
			else
				say(g, "sample: %zu of the %zu generated graphs that can run\n", took, could);
		}
		if (write_sample(g, q, e) < 0)
			goto out;
	}
	r = 0;
out:
	release_parents(&parent_of);
	return r;
}

/* --- wrap -------------------------------------------------------------------------------------- */

struct wrap_show {
	struct progress progress;
	size_t shown;
	const struct stage_io *io;
};

static void wrap_warn(void *ctx, const char *msg)
{
	struct wrap_show *sh = ctx;

	progress_clear(&sh->progress);
	sh->io->warn(NULL, msg);
}

static void wrap_invalid(void *ctx, const char *corpus, size_t lineno, const char *op, const char *why)
{
	struct wrap_show *sh = ctx;

	if (sh->shown++ < 5) {
		progress_clear(&sh->progress);
		stage_warn(sh->io, "%s:%zu: %s is invalid: %s", corpus, lineno, op, why);
	}
}

static void wrap_progress(void *ctx, size_t done, size_t invalid)
{
	struct wrap_show *sh = ctx;

	progress_update(&sh->progress, done, invalid);
}

/* The model files the requested frontends of this library read (their adapters' FORMAT), so that
 * the wrap makes no format that no frontend of the run reads (a later run's frontend makes what it
 * lacks). */
static int go_formats(const struct go *g, struct wrap_opts *o, struct err *e)
{
	size_t cap = 0;

	for (size_t i = 0; i < g->a->r.nfes; i++)
		if (!strcmp(g->a->r.fes[i].library, g->library) && runopts_add_format(o, &cap, &g->a->r.fes[i], e) < 0)
			return -1;
	return 0;
}

/* Wrap the ids of only that are not wrapped yet, with the files the run's frontends read. */
static int stage_wrap(struct go *g, const struct strmap *only, size_t want, struct err *e)
{
	const char *corpora[3 + EXTRA_COUNT + RUNOPTS_MAX_FRONTENDS] = { g->corpus };
	size_t ncorpora = 1;
	struct wrap_opts o;
	struct wrap w;
	struct wrap_show sh;
	int r = -1;

	memset(&o, 0, sizeof(o));
	memset(&w, 0, sizeof(w));
	memset(&sh, 0, sizeof(sh));
	sh.io = &g->io;
	for (int x = 0; x < EXTRA_COUNT; x++)
		if (g->extra[x] && x != EXTRA_GENERATED)
			corpora[ncorpora++] = g->extra[x];
	for (size_t k = 0; k < g->ngroups && g->extra[EXTRA_GENERATED]; k++)
		if (fs_exists(g->groups[k].generated))
			corpora[ncorpora++] = g->groups[k].generated;
	if (g->probes)
		corpora[ncorpora++] = g->probes;
	if (g->triggers)
		corpora[ncorpora++] = g->triggers;
	o.corpora = corpora;
	o.ncorpora = ncorpora;
	o.dir = g->wrapdir;
	o.only = only;
	o.jobs = g->a->r.s.runner.jobs;
	o.timeout = g->a->r.s.runner.timeout;
	o.mem_limit = g->a->r.s.runner.mem_limit;
	o.ctx = &sh;
	o.warn = wrap_warn;
	o.invalid = wrap_invalid;
	o.progress = wrap_progress;
	if (go_formats(g, &o, e) < 0 || wrap_open(&w, &o, e) < 0)
		goto out;
	progress_start(&sh.progress, "wrap", want, g->a->quiet);
	sh.progress.failed_word = "invalid";
	if (wrap_run(&w, e) < 0) {
		progress_clear(&sh.progress);
		goto out;
	}
	if (w.ok + w.invalid)
		progress_finish(&sh.progress);
	else
		progress_clear(&sh.progress);
	if (!(w.ok + w.invalid))
		say(g, "wrap: current (the %zu tests of the sample are wrapped in '%s'), skipped\n", want,
		    esc_str(g->wrapdir));
	else
		say(g, "wrap: %zu wrapped now (%zu valid, %zu invalid: the library rejects them), %zu before -> %s\n",
		    w.ok + w.invalid, w.ok, w.invalid, w.resumed, esc_str(g->wrapdir));
	r = 0;
out:
	wrap_release(&w);
	runopts_formats_free(&o);
	return r;
}

/* --- run --------------------------------------------------------------------------------------- */

static void print_run(const struct go *g, const struct frontend *fe, const struct session_result *x)
{
	if (x->unavailable) {
		say(g, "run %s: unavailable: %s\n", esc_str(fe->label), esc_str(x->why));
		return;
	}
	fprintf(g->io.out, "run %s: %zu ran now", esc_str(fe->label), x->ran);
	for (size_t k = 0; k < OUTCOME_COUNT; k++)
		if (x->counts[k])
			fprintf(g->io.out, ", %zu %s", x->counts[k], outcome_name(k));
	if (x->already)
		fprintf(g->io.out, "; %zu already in the store", x->already);
	if (x->invalid)
		fprintf(g->io.out, "; %zu invalid", x->invalid);
	if (x->budget_left_out)
		fprintf(g->io.out, "; %zu left for later", x->budget_left_out);
	say(g, "%s\n", x->maxfail ? " (--maxfail)" : "");
}

/* What probing a frontend for generation found. */
static void print_probes(const struct go *g, const struct frontend *fe, const struct session_result *x)
{
	if (x->unavailable) {
		say(g, "probe %s: unavailable: %s\n", esc_str(fe->label), esc_str(x->why));
		return;
	}
	say(g, "probe %s: %zu type signatures probed now: %zu supported, %zu unsupported, %zu failing; "
	    "%zu probed before\n", esc_str(fe->label), x->probes, x->probe_classes[PROBE_SUPPORTED],
	    x->probe_classes[PROBE_UNSUPPORTED], x->probe_classes[PROBE_FAILING], x->probes_cached);
}

static void tally_add(struct tally *t, const struct session_result *x)
{
	t->ran += x->ran;
	t->already += x->already;
	t->invalid += x->invalid;
	t->left += x->budget_left_out;
	t->chunks++;
	for (size_t k = 0; k < OUTCOME_COUNT; k++)
		t->counts[k] += x->counts[k];
}

/* The outcomes of t, ", N OUTCOME" each. */
static void print_outcomes(const struct go *g, const struct tally *t)
{
	for (size_t k = 0; k < OUTCOME_COUNT; k++)
		if (t->counts[k])
			fprintf(g->io.out, ", %zu %s", t->counts[k], outcome_name(k));
}

/* The run stage's account of each frontend that ran more than one chunk: the last chunk's line
 * is not the stage's. */
static void print_run_totals(const struct go *g)
{
	for (size_t i = 0; i < g->a->r.nfes; i++) {
		const struct tally *t = &g->run[i];

		if (t->chunks < 2)
			continue;
		fprintf(g->io.out, "run %s in all: %zu ran now in %zu chunks", esc_str(g->a->r.fes[i].label), t->ran,
			t->chunks);
		print_outcomes(g, t);
		if (t->already)
			fprintf(g->io.out, "; %zu already in the store", t->already);
		if (t->invalid)
			fprintf(g->io.out, "; %zu invalid", t->invalid);
		if (t->left)
			fprintf(g->io.out, "; %zu left for later", t->left);
		say(g, "\n");
	}
}

/* The index of fe in the options' frontends, by its label (unique), or -1. */
static int fe_index(const struct go *g, const struct frontend *fe)
{
	for (size_t i = 0; i < g->a->r.nfes; i++)
		if (!strcmp(g->a->r.fes[i].label, fe->label))
			return (int)i;
	return -1;
}

/* runopts' progress line, left out for a frontend that has nothing left to run. */
static void on_started(void *ctx, const struct frontend *fe, const struct session_progress *lanes, size_t n)
{
	struct runopts *r = ctx;
	size_t work = 0;

	for (size_t i = 0; i < n; i++)
		work += lanes[i].tests + lanes[i].probes;
	snprintf(r->label, sizeof(r->label), "run %s", fe->label);
	progress_start(&r->progress, r->label, 0, r->quiet || !work);
	runopts_progress_lanes(r, lanes, n);
}

/* Run the group's frontends on the tests of ids (a plain-id queue). 0, 1 when nothing of the
 * chunk is valid for them, -1 with e filled. */
static int run_group(struct go *g, struct group *q, const char *ids, struct err *e)
{
	struct session_result res[RUNOPTS_MAX_FRONTENDS];
	struct session *s = NULL;
	int r = -1;

	memset(res, 0, sizeof(res));
	g->a->r.s.wrapdir = g->wrapdir;
	g->a->r.s.store = g->store;
	g->a->r.s.queue = ids;
	g->a->r.s.select = NULL;  /* applied by the rank */
	g->a->r.s.fes = q->fes;
	g->a->r.s.nfes = q->nfes;
	g->a->r.s.limit = -1;
	g->a->r.s.started = on_started;
	g->a->r.s.budget = g->a->budget > 0 ? time_left(g) : 0;
	g->a->r.s.maxfail = g->a->r.maxfail ? g->a->r.maxfail - (long)g->failures : 0;
	g->a->r.s.probe_only = g->probing;
	if (session_open(&s, &g->a->r.s, e) < 0) {
		/* A chunk whose tests the library all rejected: nothing to run, not a failure of go. */
		if (e->code == EXIT_INPUT && strstr(e->msg, "is valid")) {
			r = 1;
			err_release(e);
		}
		goto out;
	}
	r = session_run(s, q->fes, q->nfes, res, e) < 0 ? -1 : 0;
	for (size_t i = 0; i < q->nfes && g->probing; i++) {
		if (r == 0)
			print_probes(g, &q->fes[i], &res[i]);
		session_result_release(&res[i]);
	}
	for (size_t i = 0; i < q->nfes && !g->probing; i++) {
		int f = fe_index(g, &q->fes[i]);

		if (r == 0)
			print_run(g, &q->fes[i], &res[i]);
		if (f >= 0 && !res[i].unavailable)
			tally_add(&g->run[f], &res[i]);
		tally_add(&g->whole, &res[i]);
		g->ran += res[i].ran;
		for (size_t k = 0; k < OUTCOME_COUNT; k++)
			if (outcome_is_failure(k))
				g->failures += res[i].counts[k];
		g->out_of_time |= res[i].budget_left_out > 0;
		session_result_release(&res[i]);
	}
out:
	g->a->r.s.probe_only = 0;
	session_close(s);
	return r;
}

/* Wrap and run the samples in chunks, each chunk through every group: one chunk of all without a
 * budget, else chunks that double, so that frontends share the time and little is wrapped that
 * will not run. */
static int stage_run(struct go *g, struct err *e)
{
	struct strmap only = STRMAP_INIT;
	size_t most = 0, from = 0, to, first;
	int r = 0;

	for (size_t k = 0; k < g->ngroups; k++)
		if (g->groups[k].nsample > most)
			most = g->groups[k].nsample;
	/* A first chunk of a few tests per worker: wrapping more would cost time that may not be there. */
	first = 8 * (size_t)g->a->r.s.runner.jobs;
	to = g->a->budget > 0 ? (most < first ? most : first) : most;
	while (from < most && r == 0) {
		size_t want = 0;

		if (g->a->budget > 0 && time_left(g) <= 0) {
			say(g, "run: the budget of %gs is spent; %zu tests of the sample are left for later\n",
			    g->a->budget, most - from);
			g->out_of_time = 1;
			to = from;
			break;
		}
		for (size_t k = 0; k < g->ngroups; k++)
			for (size_t i = from; i < to && i < g->groups[k].nsample; i++) {
				int created;

				strmap_get(&only, g->groups[k].sample[i], &created);
				want += created;
			}
		if ((r = stage_wrap(g, &only, only.len, e)) < 0)
			break;
		for (size_t k = 0; k < g->ngroups && r >= 0; k++) {
			struct group *q = &g->groups[k];
			struct buf chunk = BUF_INIT;
			char *path = NULL;

			if (from >= q->nsample)
				continue;
			if (g->a->budget > 0 || from > 0) {
				path = xasprintf("%s.chunk", q->ids);
				for (size_t i = from; i < to && i < q->nsample; i++)
					buf_addf(&chunk, "%s\n", q->sample[i]);
				if ((r = fs_write_atomic(path, chunk.data, chunk.len, e)) == 0)
					r = run_group(g, q, path, e);
				unlink(path);
			} else {
				r = run_group(g, q, q->ids, e);
			}
			buf_release(&chunk);
			free(path);
			if (r == 1)
				r = 0;
		}
		if (r < 0 || g->out_of_time ||
		    (g->a->r.maxfail && g->failures >= (size_t)g->a->r.maxfail))
			break;
		from = to;
		to = to * 2 > most ? most : to * 2;
		(void)want;
	}
	/* The chunks the budget left no time for: no session saw them, so none counted them. */
	for (size_t k = 0; k < g->ngroups && g->out_of_time; k++)
		for (size_t i = 0; i < g->groups[k].nfes && to < g->groups[k].nsample; i++) {
			int f = fe_index(g, &g->groups[k].fes[i]);

			if (f >= 0)
				g->run[f].left += g->groups[k].nsample - to;
			g->whole.left += g->groups[k].nsample - to;
		}
	if (r >= 0)
		print_run_totals(g);
	strmap_release(&only);
	return r < 0 ? -1 : 0;
}

/* --- triggers ---------------------------------------------------------------------------------- */

/* The bug ids of a frontend, most members first. */
static int collect_bug_id(void *ctx, const struct db_bug *b, struct err *e)
{
	struct buf *ids = ctx;

	(void)e;
	buf_addf(ids, "%s\n", b->bug_id);
	return 0;
}

/* Each bug's title (report/trigger.h) after the neighbours ran, regrouped since a neighbour that
 * fails joins a bug: "  FRONTEND BUG: title", for the bugs that have one. */
static int say_titles(struct go *g, const struct triggers_run *runs, size_t nruns, size_t *titled, struct err *e)
{
	struct db d = DB_INIT;
	int r = -1;

	*titled = 0;
	if (db_open(&d, g->store, DB_WRITE, e) < 0 || dedup_rebuild(&d, NULL, NULL, NULL, e) < 0)
		goto out;
	for (size_t k = 0; k < nruns; k++) {
		struct buf ids = BUF_INIT, title = BUF_INIT;
		char *save = NULL;
		int rc = db_bugs(&d, runs[k].frontend, collect_bug_id, &ids, e);

		for (char *id = rc < 0 || !ids.data ? NULL : strtok_r(ids.data, "\n", &save); id && rc == 0;
		     id = strtok_r(NULL, "\n", &save)) {
			buf_reset(&title);
			if ((rc = trigger_describe(&d, runs[k].frontend, id, NULL, &title, e)) == 0 && title.len) {
				(*titled)++;
				say(g, "  %s %.12s: %s\n", esc_str(runs[k].frontend), id, esc_str(title.data));
			}
		}
		buf_release(&ids);
		buf_release(&title);
		if (rc < 0)
			goto out;
	}
	r = 0;
out:
	db_close(&d);
	return r;
}

/* Run up to K one-change neighbours of each bug's simplest test on the bug's frontend, so that the
 * bugs can say what triggers them (pipeline/triggers.h). Bounded: K per bug, and --trigger-bugs
 * bugs of the library, the most members first. The time it takes is said, per bug. */
static int stage_triggers(struct go *g, struct err *e)
{
	struct triggers_plan plan;
	struct triggers_run runs[RUNOPTS_MAX_FRONTENDS];
	const char *labels[RUNOPTS_MAX_FRONTENDS];
	struct strmap every = STRMAP_INIT;
	int k = g->a->triggers ? g->a->triggers : GO_TRIGGERS;
	size_t nfes = 0, added = 0, neighbours = 0, ran_before = g->ran, titled = 0;
	char *parents = xasprintf("%s/trigger-parents.jsonl", g->dir), *stamp = NULL, *log = NULL;
	char *args = xasprintf("triggers --per-bug %d\n", k);
	double start = progress_now();
	int ret = -1, code;

	memset(&plan, 0, sizeof(plan));
	memset(runs, 0, sizeof(runs));
	g->triggers = xasprintf("%s/triggers.jsonl", g->dir);
	stamp = xasprintf("%s.args", g->triggers);
	log = xasprintf("%s.log", g->triggers);
	for (size_t i = 0; i < g->a->r.nfes; i++)
		if (!strcmp(g->a->r.fes[i].library, g->library)) {
			labels[nfes] = g->a->r.fes[i].label;
			runs[nfes].frontend = g->a->r.fes[i].label;
			nfes++;
		}
	if (triggers_plan(g->store, labels, nfes, (size_t)(g->a->trigger_bugs ? g->a->trigger_bugs : GO_TRIGGER_BUGS),
			  parents, &plan, &added, e) < 0)
		goto out;
	if (!plan.nbugs) {
		say(g, "triggers %s: no bug to find the trigger of\n", g->library);
		ret = 0;
		goto out;
	}
	if (!added && fs_exists(g->triggers) && stamp_is(stamp, args)) {
		say(g, "triggers %s: current ('%s'), skipped\n", g->library, esc_str(g->triggers));
	} else {
		struct variants_opts o = { 0 };

		o.corpus = parents;
		o.output = g->triggers;
		o.per_instance = k;
		o.seed = 1;
		o.jobs = g->a->r.s.runner.jobs;
		o.timeout = g->a->r.s.runner.timeout;
		o.quiet = g->a->quiet;
		o.command = g->a->r.command;
		o.one_change = 1;
		o.pools_corpus = g->corpus;
		o.what = "triggers";
		say(g, "triggers %s: up to %d one-change neighbours of the simplest test of %zu bug%s (%zu new) "
		    "-> %s\n", g->library, k, plan.nbugs, plan.nbugs == 1 ? "" : "s", added, esc_str(g->triggers));
		unlink(stamp);
		if ((code = variants_make(&o, &g->io)) != EXIT_OK) {
			err_set(e, code, "the trigger stage stopped (see above); the neighbours kept so far are "
				"in '%s'", g->triggers);
			goto out;
		}
		if (fs_write_atomic(stamp, args, strlen(args), e) < 0)
			goto out;
	}
	if (triggers_record(g->store, log, &plan, runs, nfes, &every, &neighbours, e) < 0)
		goto out;
	if (every.len && stage_wrap(g, &every, every.len, e) < 0)
		goto out;
	for (size_t i = 0; i < nfes; i++) {
		struct group one;
		struct buf ids = BUF_INIT;
		char *path;
		int r;

		if (!runs[i].ids.len)
			continue;
		memset(&one, 0, sizeof(one));
		for (size_t f = 0; f < g->a->r.nfes; f++)
			if (!strcmp(g->a->r.fes[f].label, runs[i].frontend))
				one.fes[one.nfes++] = g->a->r.fes[f];
		for (size_t s = 0; s < runs[i].ids.cap; s++)
			if (runs[i].ids.slots[s].key)
				buf_addf(&ids, "%s\n", runs[i].ids.slots[s].key);
		path = xasprintf("%s/trigger-%zu.ids", g->dir, i);
		r = fs_write_atomic(path, ids.data, ids.len, e);
		if (r == 0)
			r = run_group(g, &one, path, e);
		unlink(path);
		free(path);
		buf_release(&ids);
		if (r < 0)
			goto out;
	}
	if (say_titles(g, runs, nfes, &titled, e) < 0)
		goto out;
	say(g, "triggers %s: %zu neighbours of %zu bug%s, %zu ran now; %zu %s a trigger; %.1fs, %.2fs per bug\n",
	    g->library, every.len, plan.nbugs, plan.nbugs == 1 ? "" : "s", g->ran - ran_before, titled,
	    titled == 1 ? "bug has" : "bugs have", progress_now() - start,
	    (progress_now() - start) / (double)plan.nbugs);
	ret = 0;
out:
	for (size_t i = 0; i < nfes; i++)
		strmap_release(&runs[i].ids);
	strmap_release(&every);
	triggers_plan_release(&plan);
	free(parents);
	free(stamp);
	free(log);
	free(args);
	return ret;
}

/* --- bugs and report --------------------------------------------------------------------------- */

/* Write path (made anew) with bugs_list or report_write; 0, or -1 with e. */
static int write_file(const char *path, const struct go *g, const struct bugs_opts *bo, const struct report_opts *ro,
		      struct err *e)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644), r;
	FILE *fp;

	if (fd < 0 || !(fp = fdopen(fd, "w"))) {
		err_errno(e, EXIT_ENV, "cannot create '%s'", path);
		if (fd >= 0)
			close(fd);
		return -1;
	}
	r = bo ? bugs_list(g->store, bo, fp, e) : report_write(g->store, ro, fp, e);
	if (fclose(fp) != 0 && r == 0)
		r = err_errno(e, EXIT_ENV, "cannot write '%s'", path);
	return r;
}

/* The page of DIR/LIBRARY (ferry report --html), unless --no-html; current when there and nothing
 * ran. go_run names it again in the command's last lines, so that the command ends where to look. */
static int write_page(struct go *g, int fresh, struct err *e)
{
	char *html = xasprintf("%s/html", g->dir), *page = xasprintf("%s/index.html", html);
	struct report_opts ro = { .html = html, .python = g->io.python, .warn = g->io.warn, .own = 1 };
	int r = 0;

	if (g->a->no_html)
		goto out;
	if (!fresh && fs_exists(page)) {
		say(g, "page: current ('%s'), skipped\n", esc_str(page));
	} else {
		fflush(stdout);
		r = report_write(g->store, &ro, g->io.out, e);
	}
out:
	free(html);
	free(page);
	return r;
}

static int stage_report(struct go *g, int fresh)
{
	char *bugs = xasprintf("%s/bugs.txt", g->dir), *report = xasprintf("%s/report.txt", g->dir);
	char *repro = xasprintf("%s/reproducers", g->dir);
	struct bugs_opts bo = { 0 };
	struct report_opts ro = { .outdir = repro, .python = g->io.python, .warn = g->io.warn, .own = 1 };
	struct buf text = BUF_INIT;
	struct err e = ERR_INIT;
	int code = EXIT_OK;

	if (!fs_exists(g->store)) {
		say(g, "bugs %s: no results yet\n", g->library);
		goto out;
	}
	if (!fresh && fs_exists(bugs) && fs_exists(report)) {
		say(g, "bugs, report: current ('%s', '%s'), skipped\n", esc_str(bugs), esc_str(report));
	} else {
		fflush(stdout);
		if (write_file(bugs, g, &bo, NULL, &e) < 0 || write_file(report, g, NULL, &ro, &e) < 0) {
			code = g->io.error(&e);
			goto out;
		}
		say(g, "report -> %s, reproducers in %s\n", esc_str(report), esc_str(repro));
	}
	json_path(g, "bugs", bugs);
	json_path(g, "report", report);
	json_path(g, "reproducers", repro);
	if (fs_read(bugs, &text, &e) < 0) {
		code = g->io.error(&e);
		goto out;
	}
	say(g, "bugs -> %s:\n%s", esc_str(bugs), text.data ? text.data : "(none)\n");
	if (write_page(g, fresh, &e) < 0)
		code = g->io.error(&e);
out:
	buf_release(&text);
	err_release(&e);
	free(bugs);
	free(report);
	free(repro);
	return code;
}

/* --- the command ------------------------------------------------------------------------------- */

static void go_release(struct go *g)
{
	struct go_opts *a = g->a;
	struct stage_io io = g->io;
	struct tally whole = g->whole;
	size_t failures = g->failures;  /* --maxfail counts the whole command's */

	for (size_t k = 0; k < g->ngroups; k++) {
		struct group *q = &g->groups[k];

		for (size_t i = 0; i < q->nsample; i++)
			free(q->sample[i]);
		free(q->sample);
		free(q->counts);
		free(q->queue);
		free(q->stamp);
		free(q->ids);
		free(q->generated);
		for (int x = 0; x < EXTRA_COUNT; x++) {
			free(q->xqueue[x]);
			free(q->xstamp[x]);
		}
		strmap_release(&q->in_sample);
	}
	for (int x = 0; x < EXTRA_COUNT; x++)
		free(g->extra[x]);
	free(g->parents);
	free(g->probes);
	free(g->triggers);
	free(g->dir);
	free(g->corpus);
	free(g->wrapdir);
	free(g->store);
	memset(g, 0, sizeof(*g));
	g->a = a;
	g->io = io;
	g->whole = whole;
	g->failures = failures;
}

/* The groups of the library's frontends: one per counts file. */
static void make_groups(struct go *g)
{
	for (size_t i = 0; i < g->a->r.nfes; i++) {
		const struct frontend *fe = &g->a->r.fes[i];
		char *counts;
		struct group *q = NULL;

		if (strcmp(fe->library, g->library))
			continue;
		counts = counts_for(g, fe);
		for (size_t k = 0; k < g->ngroups && !q; k++)
			if ((!counts && !g->groups[k].counts) ||
			    (counts && g->groups[k].counts && !strcmp(counts, g->groups[k].counts)))
				q = &g->groups[k];
		if (!q) {
			const char *base = counts ? strrchr(counts, '/') : NULL;
			char *name = counts ? xstrdup(base ? base + 1 : counts) : NULL;

			if (name && strlen(name) > 5 && !strcmp(name + strlen(name) - 5, ".json"))
				name[strlen(name) - 5] = '\0';
			q = &g->groups[g->ngroups++];
			q->counts = counts;
			counts = NULL;
			q->queue = xasprintf("%s/queue%s%s.jsonl", g->dir, name ? "-" : "", name ? name : "");
			q->stamp = xasprintf("%s.args", q->queue);
			q->ids = xasprintf("%s/sample%s%s.ids", g->dir, name ? "-" : "", name ? name : "");
			q->generated = xasprintf("%s/generated%s%s.jsonl", g->dir, name ? "-" : "", name ? name : "");
			for (int x = 0; x < EXTRA_COUNT; x++) {
				const char *dash = name ? "-" : "", *suffix = name ? name : "";

				q->xqueue[x] = xasprintf("%s/queue-%s%s%s.jsonl", g->dir, extra_name[x], dash, suffix);
				q->xstamp[x] = xasprintf("%s.args", q->xqueue[x]);
			}
			free(name);
		}
		free(counts);
		q->fes[q->nfes++] = *fe;
	}
}

/* --collect-only: a library's collection is its harvest, as pytest's is its imports; what the
 * selection takes of it is listed, and nothing is wrapped or run. An empty selection is exit 4, as
 * in every command. */
static int collect_only(struct go *g)
{
	struct jsonl_reader r = JSONL_READER_INIT;
	struct instance in;
	struct err e = ERR_INIT;
	enum jsonl_status st;
	size_t listed = 0, seen = 0;
	int code = EXIT_OK;

	if (jsonl_open(&r, g->corpus, &e) < 0)
		return g->io.error(&e);
	while ((st = jsonl_next(&r, &in, &e)) != JSONL_END && st != JSONL_FAIL) {
		if (st == JSONL_BAD) {
			err_release(&e);
			continue;
		}
		seen++;
		if (select_instance(&g->a->r.select, &in)) {
			runopts_collect_line(&in);
			listed++;
		}
		record_release(&in);
	}
	if (st == JSONL_FAIL)
		code = g->io.error(&e);
	else if (!listed) {
		char *d = select_describe(&g->a->r.select);

		err_set(&e, EXIT_INPUT, "%s selects none of the %zu instances of '%s'", *d ? d : "the selection",
			seen, g->corpus);
		free(d);
		code = g->io.error(&e);
	} else {
		printf("%zu instance%s of %s selected; nothing wrapped or run (--collect-only)\n", listed,
		       listed == 1 ? "" : "s", g->library);
	}
	jsonl_close(&r);
	err_release(&e);
	return code;
}

static int go_library(struct go *g, const char *dir, const char *library)
{
	struct err e = ERR_INIT;
	size_t ran_before;
	int code = EXIT_OK;
	char *tol = NULL;

	g->library = library;
	g->dir = xasprintf("%s/%s", dir, library);
	g->corpus = xasprintf("%s/corpus.jsonl", g->dir);
	g->wrapdir = xasprintf("%s/wrapped", g->dir);
	g->store = xasprintf("%s/results.db", g->dir);
	if (g->a->json) {
		g->lib = cJSON_CreateObject();
		cJSON_AddStringToObject(g->lib, "library", library);
		cJSON_AddStringToObject(g->lib, "dir", g->dir);
		cJSON_AddArrayToObject(g->lib, "stages");
		cJSON_AddObjectToObject(g->lib, "paths");
		json_path(g, "corpus", g->corpus);
		json_path(g, "wrapped", g->wrapdir);
		json_path(g, "store", g->store);
		cJSON_AddItemToArray(cJSON_GetObjectItemCaseSensitive(g->a->json, "libraries"), g->lib);
	}
	if (fs_mkdirs(g->dir, &e) < 0) {
		code = g->io.error(&e);
		goto out;
	}
	if ((code = stage_harvest(g)) != EXIT_OK)
		goto out;
	if (g->a->r.collect_only) {
		code = collect_only(g);
		goto out;
	}
	make_groups(g);
	for (size_t k = 0; k < g->ngroups; k++)
		if (stage_rank(g, &g->groups[k], &e) < 0) {
			code = g->io.error(&e);
			goto out;
		}
	if (stage_extras(g, &e) < 0) {
		code = g->io.error(&e);
		goto out;
	}
	/* The library's own tolerances (half-precision ulps and the like, as its template declares),
	 * unless given. */
	if (!g->a->tolerances_opt && *libraries_find(library)->tolerances)
		tol = home_file(HOME_TOLERANCES, libraries_find(library)->tolerances);
	g->a->r.s.tolerances = g->a->tolerances_opt ? g->a->tolerances_opt : tol;
	ran_before = g->ran;
	if (stage_run(g, &e) < 0) {
		code = g->io.error(&e);
		goto out;
	}
	if (g->ran == ran_before && !g->out_of_time)
		say(g, "run: nothing left to run (every test of the sample has its result in '%s')\n",
		    esc_str(g->store));
	if (!g->a->no_triggers && !g->out_of_time && !(g->a->r.maxfail && g->failures >= (size_t)g->a->r.maxfail) &&
	    fs_exists(g->store) && stage_triggers(g, &e) < 0) {
		code = g->io.error(&e);
		goto out;
	}
	code = stage_report(g, g->ran > ran_before);
	if (g->lib && code == EXIT_OK && runopts_json_store(g->store, g->lib, &e) < 0)
		code = g->io.error(&e);
out:
	if (g->lib)
		cJSON_AddNumberToObject(g->lib, "exit", code);
	g->lib = NULL;
	g->a->r.s.tolerances = NULL;
	free(tol);
	err_release(&e);
	return code;
}

int go_run(struct go_opts *a, const char *const *libs, size_t nlibs, const char *dir, double start,
	   const struct stage_io *io)
{
	struct go g;
	int code = EXIT_OK;

	memset(&g, 0, sizeof(g));
	g.a = a;
	g.io = *io;
	for (size_t i = 0; i < nlibs && code == EXIT_OK; i++) {
		g.start = start;
		/* --maxfail counts the whole command's failures: a library after the last one is not begun. */
		if (a->r.maxfail && g.failures >= (size_t)a->r.maxfail)
			break;
		if (a->budget > 0 && time_left(&g) <= 0) {
			say(&g, "%s: the budget is spent; not started\n", libs[i]);
			continue;
		}
		code = go_library(&g, dir, libs[i]);
		go_release(&g);
	}
	if (code == EXIT_INTERRUPTED)
		fprintf(stderr, "ferry: what is done is kept in '%s'; run the same command to go on\n", esc_str(dir));
	else if (code == EXIT_OK && !a->r.collect_only) {
		/* The whole command's account, whatever chunks, libraries and trigger runs it took. */
		fprintf(g.io.out, "go: done in %.0fs; %zu ran now", progress_now() - start, g.whole.ran);
		print_outcomes(&g, &g.whole);
		if (g.whole.left)
			fprintf(g.io.out, "; %zu left for later", g.whole.left);
		say(&g, "\n");
		if (a->r.maxfail && g.failures >= (size_t)a->r.maxfail) {
			fprintf(stderr, "ferry: stopped early after %zu failure%s (--maxfail %d): the rest was not "
				"run\n", g.failures, g.failures == 1 ? "" : "s", a->r.maxfail);
			code = EXIT_STOPPED;
		}
		for (size_t i = 0; i < nlibs && !a->no_html; i++) {
			char *page = xasprintf("%s/%s/html/index.html", dir, libs[i]);

			if (fs_exists(page))
				say(&g, "the page of %s's bugs: %s\n", libs[i], esc_str(page));
			free(page);
		}
	}
	go_release(&g);
	return code;
}
