/* cmd-go.c: ferry go [LIBRARY...] -F LIST [-o DIR]
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
 * The stages run through their engines' C interfaces: the session (oracle/session.h) and the wrap
 * (templates/wrap.h) engines directly, since go chooses what they take; harvest, bugs and report
 * through their commands' entries, in this process: what those commands do around their engines
 * (the partial corpus, fetching Keras's tests, the summaries, the reproducers) is theirs, and a
 * second copy of it here would drift from it. */
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "cmd.h"
#include "config.h"
#include "counts.h"
#include "esc.h"
#include "fsutil.h"
#include "harvest.h"
#include "home.h"
#include "jsonl.h"
#include "libraries.h"
#include "progress.h"
#include "py.h"
#include "rank.h"
#include "runopts.h"
#include "spec.h"
#include "strmap.h"
#include "wrap.h"
#include "xalloc.h"

static const char usage[] =
	"usage: ferry go [LIBRARY...] -F LIST [-o DIR] [options]\n"
	"\n"
	"From the tests of LIBRARY (onnx, torch, keras; default: the libraries of the frontends) to a\n"
	"bug list, in the project directory DIR: harvest, rank, (vary, generate,) wrap what will run,\n"
	"run each frontend, bugs, report. Each library's files go to DIR/LIBRARY/. A stage whose output\n"
	"is current is skipped; the same command run again goes on where it stopped.\n";

static const char more[] =
	"Files, in DIR/LIBRARY/: corpus.jsonl (harvest), queue.jsonl and queue-COUNTS.jsonl (one per\n"
	"counts file, ranked), sample.ids and sample-COUNTS.ids (what runs, one id per line), wrapped/,\n"
	"results.db, bugs.txt (ferry bugs), report.txt and reproducers/ (ferry report -o); with --vary,\n"
	"vary-parents.jsonl (the samples' tests), variants.jsonl and queue-variants*.jsonl; with\n"
	"--generate, generated.jsonl and queue-generated*.jsonl. The variants and graphs run after the\n"
	"sample, in their queues' order: -n and --per-op bound the harvested tests only.\n"
	"The frontends' counts: ort onnxruntime-cpu, tvm-onnx tvm-relax-onnx, iree-onnx iree-onnx,\n"
	"tvm-pytorch tvm-relax-torch (corpora/counts/); the others rank without counts.\n";

static const char *output, *counts_opt, *tolerances_opt;
static struct opts_list suites;
static int per_op, limit, quiet, vary_k, generate_n;
static double budget;

static int parse_frontends(void *value, const char *list, struct err *e)
{
	return runopts_add_frontends(value, list, e);
}

static int parse_rerun(void *value, const char *arg, struct err *e)
{
	if (session_rerun_parse(arg, value) < 0)
		return err_set(e, EXIT_USAGE, "--rerun takes failed, errors or all, not '%s'", arg);
	return 0;
}

static const struct opt options[] = {
	OPT_CALL('F', "frontend", "LIST", "frontends to run, comma-separated, as ferry run takes them (default:\n"
		 "every frontend of the libraries named)", &runopts, parse_frontends),
	OPT_STRING('o', "output", "DIR", "the project directory (default: the current directory)", &output),
	OPT_CALL(0, "op", "GLOB", "only instances whose operator matches GLOB (the whole name or its last dotted\n"
		 "part; comma-separated, repeatable)", &runopts.select, runopts_parse_op),
	OPT_CALL(0, "test", "GLOB", "only instances whose source test matches GLOB (comma-separated, repeatable)",
		 &runopts.select, runopts_parse_test),
	OPT_LIST('s', "suite", "NAME", "torch, keras: harvest this suite (repeatable; default: all)", &suites),
	OPT_INT('n', "limit", "N", "run the top N tests of each frontend's queue (after --per-op)", &limit, 1,
		1 << 30),
	OPT_INT(0, "per-op", "K", "take at most K tests of an operator down each queue", &per_op, 1, 1 << 30),
	OPT_INT(0, "vary", "K", "also run up to K variants of each test of the sample (ferry vary; default 0)",
		&vary_k, 0, 1000),
	OPT_INT(0, "generate", "N", "onnx: also run N generated graphs (ferry generate --seed 1; default 0)",
		&generate_n, 0, 1000000),
	OPT_SECONDS(0, "budget", "SECS", "start no test after SECS seconds from the start of the command", &budget),
	OPT_STRING(0, "counts", "FILE", "rank every queue against these counts (default: each frontend's own)",
		   &counts_opt),
	OPT_STRING(0, "tolerances", "F", "per-operator tolerances (default: ferry's for the library, where it has\n"
		   "them)", &tolerances_opt),
	OPT_CALL(0, "rerun", "WHAT", "run again tests that have a result: failed, errors (crash, timeout, oom)\n"
		 "or all", &runopts.s.rerun, parse_rerun),
	OPT_INT(0, "maxfail", "N", "start no test after N failures", &runopts.maxfail, 1, 1 << 30),
	OPT_INT('j', "jobs", "N", "worker processes (default: the number of cores)", &runopts.s.runner.jobs, 1, 256),
	OPT_SECONDS('t', "timeout", "SECS", "time one test may take (default 60)", &runopts.s.runner.timeout),
	OPT_SIZE('m', "memory", "SIZE", "memory one worker may use, e.g. 4G (default: a share of the machine's)",
		 &runopts.memory),
	OPT_FLAG('q', "quiet", "no progress lines", &quiet),
	OPT_END(),
};

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
	struct frontend fes[RUNOPTS_MAX_FRONTENDS];  /* shallow copies of runopts.fes */
	size_t nfes;
	char **sample;          /* the ids to run, queue order: the harvested tests', then the extras' */
	size_t nsample, cap;
	size_t nharvested;      /* of them, from the corpus */
	struct strmap in_sample;
	size_t runnable;        /* queue entries that can run (before --per-op and --limit) */
};

struct go {
	const char *library;
	char *dir, *corpus, *wrapdir, *store;
	char *extra[EXTRA_COUNT];   /* the extras' corpora, NULL where none is made */
	char *parents;              /* the samples' tests, vary's corpus */
	struct group groups[RUNOPTS_MAX_FRONTENDS];
	size_t ngroups;
	double start;
	size_t ran, failures;
	int out_of_time;
};

static void say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* A line about a stage, on stdout among the stages' own summaries. */
static void say(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	fflush(stdout);
}

static double time_left(const struct go *g)
{
	return budget > 0 ? budget - (progress_now() - g->start) : 1e9;
}

static char *counts_for(const struct frontend *fe)
{
	if (counts_opt)
		return xstrdup(counts_opt);
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

/* Call another command's entry in this process, its stdout into path when path is not NULL. */
static int call(const struct cmd_entry *c, const char *path, const char **argv, int argc)
{
	int saved = -1, fd, code;
	char **copy = xcalloc((size_t)argc + 1, sizeof(*copy));

	for (int i = 0; i < argc; i++)
		copy[i] = (char *)argv[i];
	fflush(stdout);
	if (path) {
		if ((fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644)) < 0) {
			fprintf(stderr, "ferry: error: cannot create '%s': %s\n", esc_str(path), strerror(errno));
			free(copy);
			return EXIT_ENV;
		}
		saved = dup(STDOUT_FILENO);
		dup2(fd, STDOUT_FILENO);
		close(fd);
	}
	code = c->fn(argc, copy);
	fflush(stdout);
	if (saved >= 0) {
		dup2(saved, STDOUT_FILENO);
		close(saved);
	}
	free(copy);
	return code;
}

/* --- harvest ----------------------------------------------------------------------------------- */

/* The corpus is current when it exists and was harvested with the same selection, or whole (a
 * whole corpus holds every selection: --op and --test then apply from the rank on). A corpus with
 * no stamp is an older ferry's whole harvest. */
static int stage_harvest(struct go *g)
{
	char *stamp = xasprintf("%s.args", g->corpus), *sel = select_describe(&runopts.select);
	struct buf want = BUF_INIT, whole = BUF_INIT;
	const char *argv[64];
	int argc = 0, has_suites = 0, code = EXIT_OK;
	struct err e = ERR_INIT;

	harvest_source(g->library, &has_suites);
	buf_addf(&whole, "harvest %s\n", g->library);
	buf_addf(&want, "harvest %s", g->library);
	for (size_t i = 0; has_suites && i < suites.n; i++)
		buf_addf(&want, " --suite %s", suites.v[i]);
	buf_addf(&want, "%s%s\n", *sel ? " " : "", sel);
	if (fs_exists(g->corpus) && (!fs_exists(stamp) || stamp_is(stamp, whole.data) || stamp_is(stamp, want.data))) {
		say("harvest %s: current ('%s'), skipped\n", g->library, esc_str(g->corpus));
		goto out;
	}
	argv[argc++] = "harvest";
	argv[argc++] = g->library;
	argv[argc++] = "-o";
	argv[argc++] = g->corpus;
	for (size_t i = 0; has_suites && i < suites.n && argc < 40; i++) {
		argv[argc++] = "--suite";
		argv[argc++] = suites.v[i];
	}
	for (size_t i = 0; i < runopts.select.nops && argc < 56; i++) {
		argv[argc++] = "--op";
		argv[argc++] = runopts.select.ops[i];
	}
	for (size_t i = 0; i < runopts.select.ntests && argc < 62; i++) {
		argv[argc++] = "--test";
		argv[argc++] = runopts.select.tests[i];
	}
	if (quiet)
		argv[argc++] = "-q";
	argv[argc] = NULL;
	say("harvest %s -> %s\n", g->library, esc_str(g->corpus));
	if ((code = call(&cmd_harvest_entry, NULL, argv, argc)) != EXIT_OK)
		goto out;
	if (fs_write_atomic(stamp, want.data, want.len, &e) < 0)
		code = cmd_error(&e);
out:
	buf_release(&want);
	buf_release(&whole);
	free(stamp);
	free(sel);
	err_release(&e);
	return code;
}

/* --- rank and sample --------------------------------------------------------------------------- */

static void on_bad_line(void *ctx, const struct err *e)
{
	size_t *shown = ctx;

	if ((*shown)++ < 5)
		cmd_warn("%s", e->msg);
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
	size_t nbad = 0, shown = 0;
	int r = -1;

	rank_set_init(&s);
	counts_init(&c);
	if (q->counts) {
		if (counts_load(&c, q->counts, e) < 0)
			goto out;
		o.counts = &c;
	}
	s.select = sel;
	if (rank_set_load(&s, corpus, on_bad_line, &shown, &nbad, e) < 0)
		goto out;
	if (!s.n && !*what) {
		char *d = select_describe(&runopts.select);

		err_set(e, EXIT_INPUT, "'%s' holds no instance records%s%s: nothing to rank", corpus,
			*d ? " that " : "", *d ? d : "");
		free(d);
		goto out;
	}
	if ((s.n && rank_run(&s, &o, &rq, &st, e) < 0) || rank_queue_write(&s, &rq, queue, e) < 0)
		goto out;
	say("rank %s%s%s%s%s: %zu instances of %zu operators, %zu can run -> %s\n", g->library, *what ? " " : "",
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
		say("rank %s%s%s%s%s: current ('%s'), skipped\n", g->library, *what ? " " : "", what,
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
static int take_sample(struct group *q, const char *queue, int kind, const struct strmap *parent_of, size_t *took,
		       size_t *could, struct err *e)
{
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
	size_t took;

	if (current_queue(g, q, g->corpus, q->queue, q->stamp, &runopts.select, "", e) < 0 ||
	    take_sample(q, q->queue, -1, NULL, &took, &q->runnable, e) < 0)
		return -1;
	q->nharvested = q->nsample;
	say("sample: %zu of the %zu tests of the queue that can run%s\n", q->nsample, q->runnable,
	    per_op || limit ? (per_op && limit ? " (--per-op, --limit)" : per_op ? " (--per-op)" : " (--limit)") : "");
	return 0;
}

/* The sample, one id per line, into the group's ids file. */
static int write_sample(const struct group *q, struct err *e)
{
	struct buf ids = BUF_INIT;
	int r;

	for (size_t i = 0; i < q->nsample; i++)
		buf_addf(&ids, "%s\n", q->sample[i]);
	r = fs_write_atomic(q->ids, ids.data ? ids.data : "", ids.len, e);
	if (r == 0 && q->nsample > q->nharvested)
		say("sample: %zu tests, %zu harvested and %zu more -> %s\n", q->nsample, q->nharvested,
		    q->nsample - q->nharvested, esc_str(q->ids));
	else if (r == 0)
		say("sample -> %s\n", esc_str(q->ids));
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
	char *args = xasprintf("vary --per-instance %d\n", vary_k);
	char k[16], jobs[16], secs[32];
	const char *argv[16];
	long added = 0;
	int argc = 0, ret = -1, code;

	for (size_t i = 0; i < g->ngroups; i++)
		for (size_t n = 0; n < g->groups[i].nharvested; n++)
			strmap_get(&want, g->groups[i].sample[n], NULL);
	if (!want.len) {
		say("vary %s: no test in the sample to vary\n", g->library);
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
		say("vary %s: current ('%s'), skipped\n", g->library, esc_str(g->extra[EXTRA_VARIANTS]));
		ret = 0;
		goto out;
	}
	snprintf(k, sizeof(k), "%d", vary_k);
	snprintf(jobs, sizeof(jobs), "%d", runopts.s.runner.jobs);
	snprintf(secs, sizeof(secs), "%g", runopts.s.runner.timeout);
	argv[argc++] = "vary";
	argv[argc++] = g->parents;
	argv[argc++] = "-o";
	argv[argc++] = g->extra[EXTRA_VARIANTS];
	argv[argc++] = "--per-instance";
	argv[argc++] = k;
	argv[argc++] = "-j";
	argv[argc++] = jobs;
	argv[argc++] = "-t";
	argv[argc++] = secs;
	if (quiet)
		argv[argc++] = "-q";
	argv[argc] = NULL;
	say("vary %s: up to %d variants of each of the samples' %zu tests (%ld new) -> %s\n", g->library, vary_k,
	    want.len, added, esc_str(g->extra[EXTRA_VARIANTS]));
	/* No stamp while vary runs: one that stops has added its parents already, and only the
	 * missing stamp then says that the same command must run vary again (to resume it). */
	unlink(stamp);
	if ((code = call(&cmd_vary_entry, NULL, argv, argc)) != EXIT_OK) {
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
static char *generate_ops(struct err *e)
{
	struct spec_set specs = SPEC_SET_INIT;
	struct buf ops = BUF_INIT;
	char *dir = spec_default_dir();
	int any = 0;

	if (!runopts.select.nops) {
		free(dir);
		return xstrdup("");
	}
	if (spec_load_dir(&specs, dir, e) < 0) {
		free(dir);
		spec_release(&specs);
		return NULL;
	}
	for (size_t m = 0; m < runopts.select.nops; m++) {
		int match = 0;

		for (size_t k = 0; k < specs.nblocks && !match; k++) {
			const struct block *b = specs.blocks[k];

			if (GO_OPSET < b->opset_lo || GO_OPSET > b->opset_hi)
				continue;
			for (int i = 0; i < b->nops && !match; i++)
				match = fnmatch(runopts.select.ops[m], b->ops[i], 0) == 0;
		}
		if (match) {
			buf_addf(&ops, "%s%s", any ? "," : "", runopts.select.ops[m]);
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

/* N graphs, the same ones for the same N and --op (the seed is fixed), unless current. */
static int stage_generate(struct go *g, struct err *e)
{
	char *stamp = xasprintf("%s.args", g->extra[EXTRA_GENERATED]), *ops = NULL, *args = NULL;
	char n[16], opset[16];
	const char *argv[16];
	int argc = 0, ret = -1, code;

	if (runopts.select.ntests) {
		say("generate %s: --test selects harvested tests, and generated graphs have none: skipped\n",
		    g->library);
		free(g->extra[EXTRA_GENERATED]);
		g->extra[EXTRA_GENERATED] = NULL;
		free(stamp);
		return 0;
	}
	if (!(ops = generate_ops(e))) {
		free(stamp);
		if (e->code)
			return -1;
		say("generate %s: no operator of --op has a spec to generate from: skipped\n", g->library);
		free(g->extra[EXTRA_GENERATED]);
		g->extra[EXTRA_GENERATED] = NULL;
		return 0;
	}
	args = xasprintf("generate -n %d --seed 1 --opset %d%s%s\n", generate_n, GO_OPSET, *ops ? " --ops " : "", ops);
	if (fs_exists(g->extra[EXTRA_GENERATED]) && stamp_is(stamp, args)) {
		say("generate %s: current ('%s'), skipped\n", g->library, esc_str(g->extra[EXTRA_GENERATED]));
		ret = 0;
		goto out;
	}
	snprintf(n, sizeof(n), "%d", generate_n);
	snprintf(opset, sizeof(opset), "%d", GO_OPSET);
	argv[argc++] = "generate";
	argv[argc++] = "-o";
	argv[argc++] = g->extra[EXTRA_GENERATED];
	argv[argc++] = "-n";
	argv[argc++] = n;
	argv[argc++] = "--seed";
	argv[argc++] = "1";
	argv[argc++] = "--opset";
	argv[argc++] = opset;
	if (*ops) {
		argv[argc++] = "--ops";
		argv[argc++] = ops;
	}
	if (quiet)
		argv[argc++] = "-q";
	argv[argc] = NULL;
	say("generate %s: %d graphs -> %s\n", g->library, generate_n, esc_str(g->extra[EXTRA_GENERATED]));
	if ((code = call(&cmd_generate_entry, NULL, argv, argc)) != EXIT_OK) {
		err_set(e, code, "generate stopped (see above)");
		goto out;
	}
	if (fs_write_atomic(stamp, args, strlen(args), e) < 0)
		goto out;
	ret = 0;
out:
	free(stamp);
	free(ops);
	free(args);
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

	if (vary_k) {
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
	if (generate_n && !strcmp(g->library, "onnx")) {
		g->extra[EXTRA_GENERATED] = xasprintf("%s/generated.jsonl", g->dir);
		if (stage_generate(g, e) < 0)
			goto out;
	} else if (generate_n) {
		say("generate %s: ferry generates ONNX graphs only: skipped\n", g->library);
	}
	for (size_t k = 0; k < g->ngroups; k++) {
		struct group *q = &g->groups[k];

		for (int x = 0; x < EXTRA_COUNT; x++) {
			size_t took, could;

			if (!g->extra[x])
				continue;
			/* Variants are of the selected tests already; a graph's operator is "graph". */
			if (current_queue(g, q, g->extra[x], q->xqueue[x], q->xstamp[x],
					  x == EXTRA_VARIANTS ? &runopts.select : NULL, extra_name[x], e) < 0 ||
			    take_sample(q, q->xqueue[x], x, &parent_of, &took, &could, e) < 0)
				goto out;
			if (x == EXTRA_VARIANTS)
				say("sample: %zu variants of the sample's tests that can run\n", took);
			else
				say("sample: %zu of the %zu generated graphs that can run\n", took, could);
		}
		if (write_sample(q, e) < 0)
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
};

static void wrap_warn(void *ctx, const char *msg)
{
	struct wrap_show *sh = ctx;

	progress_clear(&sh->progress);
	cmd_warn("%s", msg);
}

static void wrap_invalid(void *ctx, const char *corpus, size_t lineno, const char *op, const char *why)
{
	struct wrap_show *sh = ctx;

	if (sh->shown++ < 5) {
		progress_clear(&sh->progress);
		cmd_warn("%s:%zu: %s is invalid: %s", corpus, lineno, op, why);
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

	for (size_t i = 0; i < runopts.nfes; i++)
		if (!strcmp(runopts.fes[i].library, g->library) && runopts_add_format(o, &cap, &runopts.fes[i], e) < 0)
			return -1;
	return 0;
}

/* Wrap the ids of only that are not wrapped yet, with the files the run's frontends read. */
static int stage_wrap(struct go *g, const struct strmap *only, size_t want, struct err *e)
{
	const char *corpora[1 + EXTRA_COUNT] = { g->corpus };
	size_t ncorpora = 1;
	struct wrap_opts o;
	struct wrap w;
	struct wrap_show sh;
	int r = -1;

	memset(&o, 0, sizeof(o));
	memset(&w, 0, sizeof(w));
	memset(&sh, 0, sizeof(sh));
	for (int x = 0; x < EXTRA_COUNT; x++)
		if (g->extra[x])
			corpora[ncorpora++] = g->extra[x];
	o.corpora = corpora;
	o.ncorpora = ncorpora;
	o.dir = g->wrapdir;
	o.only = only;
	o.jobs = runopts.s.runner.jobs;
	o.timeout = runopts.s.runner.timeout;
	o.mem_limit = runopts.s.runner.mem_limit;
	o.ctx = &sh;
	o.warn = wrap_warn;
	o.invalid = wrap_invalid;
	o.progress = wrap_progress;
	if (go_formats(g, &o, e) < 0 || wrap_open(&w, &o, e) < 0)
		goto out;
	progress_start(&sh.progress, "wrap", want, quiet);
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
		say("wrap: current (the %zu tests of the sample are wrapped in '%s'), skipped\n", want,
		    esc_str(g->wrapdir));
	else
		say("wrap: %zu wrapped now (%zu valid, %zu invalid: the library rejects them), %zu before -> %s\n",
		    w.ok + w.invalid, w.ok, w.invalid, w.resumed, esc_str(g->wrapdir));
	r = 0;
out:
	wrap_release(&w);
	runopts_formats_free(&o);
	return r;
}

/* --- run --------------------------------------------------------------------------------------- */

static void print_run(const struct frontend *fe, const struct session_result *x)
{
	if (x->unavailable) {
		say("run %s: unavailable: %s\n", esc_str(fe->label), esc_str(x->why));
		return;
	}
	printf("run %s: %zu ran now", esc_str(fe->label), x->ran);
	for (size_t k = 0; k < OUTCOME_COUNT; k++)
		if (x->counts[k])
			printf(", %zu %s", x->counts[k], outcome_name(k));
	if (x->already)
		printf("; %zu already in the store", x->already);
	if (x->invalid)
		printf("; %zu invalid", x->invalid);
	if (x->budget_left_out)
		printf("; %zu left for later", x->budget_left_out);
	say("%s\n", x->maxfail ? " (--maxfail)" : "");
}

/* runopts' progress line, left out for a frontend that has nothing left to run. */
static void on_started(void *ctx, const struct frontend *fe, size_t total)
{
	struct runopts *r = ctx;

	snprintf(r->label, sizeof(r->label), "run %s", fe->label);
	progress_start(&r->progress, r->label, total, r->quiet || !total);
}

/* Run the group's frontends on the tests of ids (a plain-id queue). 0, 1 when nothing of the
 * chunk is valid for them, -1 with e filled. */
static int run_group(struct go *g, struct group *q, const char *ids, struct err *e)
{
	struct session_result res[RUNOPTS_MAX_FRONTENDS];
	struct session *s = NULL;
	int r = -1;

	memset(res, 0, sizeof(res));
	runopts.s.wrapdir = g->wrapdir;
	runopts.s.store = g->store;
	runopts.s.queue = ids;
	runopts.s.select = NULL;  /* applied by the rank */
	runopts.s.fes = q->fes;
	runopts.s.nfes = q->nfes;
	runopts.s.limit = -1;
	runopts.s.started = on_started;
	runopts.s.budget = budget > 0 ? time_left(g) : 0;
	runopts.s.maxfail = runopts.maxfail ? runopts.maxfail - (long)g->failures : 0;
	if (session_open(&s, &runopts.s, e) < 0) {
		/* A chunk whose tests the library all rejected: nothing to run, not a failure of go. */
		if (e->code == EXIT_INPUT && strstr(e->msg, "is valid")) {
			r = 1;
			err_release(e);
		}
		goto out;
	}
	r = session_run(s, q->fes, q->nfes, res, e) < 0 ? -1 : 0;
	for (size_t i = 0; i < q->nfes; i++) {
		if (r == 0)
			print_run(&q->fes[i], &res[i]);
		g->ran += res[i].ran;
		for (size_t k = 0; k < OUTCOME_COUNT; k++)
			if (outcome_is_failure(k))
				g->failures += res[i].counts[k];
		g->out_of_time |= res[i].budget_left_out > 0;
		session_result_release(&res[i]);
	}
out:
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
	first = 8 * (size_t)runopts.s.runner.jobs;
	to = budget > 0 ? (most < first ? most : first) : most;
	while (from < most && r == 0) {
		size_t want = 0;

		if (budget > 0 && time_left(g) <= 0) {
			say("run: the budget of %gs is spent; %zu tests of the sample are left for later\n", budget,
			    most - from);
			g->out_of_time = 1;
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
			if (budget > 0 || from > 0) {
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
		    (runopts.maxfail && g->failures >= (size_t)runopts.maxfail))
			break;
		from = to;
		to = to * 2 > most ? most : to * 2;
		(void)want;
	}
	strmap_release(&only);
	return r < 0 ? -1 : 0;
}

/* --- bugs and report --------------------------------------------------------------------------- */

static int stage_report(struct go *g, int fresh)
{
	char *bugs = xasprintf("%s/bugs.txt", g->dir), *report = xasprintf("%s/report.txt", g->dir);
	char *repro = xasprintf("%s/reproducers", g->dir);
	const char *bargv[] = { "bugs", g->store, NULL };
	const char *rargv[] = { "report", g->store, "-o", repro, NULL };
	struct buf text = BUF_INIT;
	struct err e = ERR_INIT;
	int code = EXIT_OK;

	if (!fs_exists(g->store)) {
		say("bugs %s: no results yet\n", g->library);
		goto out;
	}
	if (!fresh && fs_exists(bugs) && fs_exists(report)) {
		say("bugs, report: current ('%s', '%s'), skipped\n", esc_str(bugs), esc_str(report));
	} else {
		if ((code = call(&cmd_bugs_entry, bugs, bargv, 2)) != EXIT_OK)
			goto out;
		if ((code = call(&cmd_report_entry, report, rargv, 4)) != EXIT_OK)
			goto out;
		say("report -> %s, reproducers in %s\n", esc_str(report), esc_str(repro));
	}
	if (fs_read(bugs, &text, &e) < 0) {
		code = cmd_error(&e);
		goto out;
	}
	say("bugs -> %s:\n%s", esc_str(bugs), text.data ? text.data : "(none)\n");
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
	for (size_t k = 0; k < g->ngroups; k++) {
		struct group *q = &g->groups[k];

		for (size_t i = 0; i < q->nsample; i++)
			free(q->sample[i]);
		free(q->sample);
		free(q->counts);
		free(q->queue);
		free(q->stamp);
		free(q->ids);
		for (int x = 0; x < EXTRA_COUNT; x++) {
			free(q->xqueue[x]);
			free(q->xstamp[x]);
		}
		strmap_release(&q->in_sample);
	}
	for (int x = 0; x < EXTRA_COUNT; x++)
		free(g->extra[x]);
	free(g->parents);
	free(g->dir);
	free(g->corpus);
	free(g->wrapdir);
	free(g->store);
	memset(g, 0, sizeof(*g));
}

/* The groups of the library's frontends: one per counts file. */
static void make_groups(struct go *g)
{
	for (size_t i = 0; i < runopts.nfes; i++) {
		const struct frontend *fe = &runopts.fes[i];
		char *counts;
		struct group *q = NULL;

		if (strcmp(fe->library, g->library))
			continue;
		counts = counts_for(fe);
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
	if (fs_mkdirs(g->dir, &e) < 0) {
		code = cmd_error(&e);
		goto out;
	}
	if ((code = stage_harvest(g)) != EXIT_OK)
		goto out;
	make_groups(g);
	for (size_t k = 0; k < g->ngroups; k++)
		if (stage_rank(g, &g->groups[k], &e) < 0) {
			code = cmd_error(&e);
			goto out;
		}
	if (stage_extras(g, &e) < 0) {
		code = cmd_error(&e);
		goto out;
	}
	/* The library's own tolerances (half-precision ulps and the like, as its template declares),
	 * unless given. */
	if (!tolerances_opt && *libraries_find(library)->tolerances)
		tol = home_file(HOME_TOLERANCES, libraries_find(library)->tolerances);
	runopts.s.tolerances = tolerances_opt ? tolerances_opt : tol;
	ran_before = g->ran;
	if (stage_run(g, &e) < 0) {
		code = cmd_error(&e);
		goto out;
	}
	if (g->ran == ran_before && !g->out_of_time)
		say("run: nothing left to run (every test of the sample has its result in '%s')\n", esc_str(g->store));
	code = stage_report(g, g->ran > ran_before);
out:
	runopts.s.tolerances = NULL;
	free(tol);
	err_release(&e);
	return code;
}

/* -F absent: every frontend of the libraries named, as their adapters declare them. */
static int default_frontends(const char *const *libs, size_t nlibs, struct err *e)
{
	char *table = NULL;
	int r = -1;

	if (py_start(cmd_python(), 0, e) < 0 || !(table = session_frontend_table(e)))
		goto out;
	for (const char *line = table; *line; line += strcspn(line, "\n"), line += *line == '\n') {
		size_t n = strcspn(line, "\t\n");
		const char *lib = line + n;
		size_t libn;

		if (*lib != '\t')
			continue;
		libn = strcspn(++lib, "\t\n");
		for (size_t i = 0; i < nlibs; i++)
			if (strlen(libs[i]) == libn && !strncmp(lib, libs[i], libn)) {
				char *name = xstrndup(line, n);

				r = runopts_add_frontends(&runopts, name, e);
				free(name);
				if (r < 0)
					goto out;
			}
	}
	r = 0;
out:
	free(table);
	return r;
}

static int cmd_go(int argc, char **argv)
{
	struct runopts *ro = &runopts;
	const char **libs = NULL;
	size_t nlibs = 0, max_libs;
	const char *dir;
	struct go g;
	struct err e = ERR_INIT;
	double start = progress_now();
	int code = EXIT_OK, has_suites;

	memset(&g, 0, sizeof(g));
	runopts_init(ro);
	ro->quiet = 0;
	if (opts_parse(&cmd_go_entry, argc, argv) < 0) {
		code = EXIT_USAGE;
		goto out;
	}
	ro->quiet = quiet;
	dir = output ? output : ".";
	if (libraries_load(cmd_python(), &e) < 0) {
		code = cmd_error(&e);
		goto out;
	}
	max_libs = libraries_count();
	libs = xcalloc(max_libs + 1, sizeof(*libs));
	for (int i = optind; i < argc; i++) {
		if (harvest_source(argv[i], &has_suites) < 0) {
			struct buf known = BUF_INIT;

			libraries_names(&known);
			code = cmd_usage_error(&cmd_go_entry, "unknown library '%s' (%s)", argv[i], known.data);
			buf_release(&known);
			goto out;
		}
		for (size_t k = 0; k < nlibs; k++)
			if (!strcmp(libs[k], argv[i])) {
				code = cmd_usage_error(&cmd_go_entry, "library '%s' named twice", argv[i]);
				goto out;
			}
		libs[nlibs++] = argv[i];
	}
	if (!ro->nfes && !nlibs) {
		code = cmd_usage_error(&cmd_go_entry, "name a LIBRARY or the frontends (-F)");
		goto out;
	}
	if (!ro->nfes && default_frontends(libs, nlibs, &e) < 0) {
		code = cmd_error(&e);
		goto out;
	}
	/* The libraries are the frontends' when none is named; a frontend of another is a mistake. */
	for (size_t i = 0; i < ro->nfes; i++) {
		size_t k;

		for (k = 0; k < nlibs && strcmp(libs[k], ro->fes[i].library); k++)
			;
		if (k < nlibs)
			continue;
		if (optind < argc) {
			code = cmd_usage_error(&cmd_go_entry, "frontend '%s' takes %s models, and %s is not among the "
					       "libraries named", ro->fes[i].label, ro->fes[i].library,
					       ro->fes[i].library);
			goto out;
		}
		if (harvest_source(ro->fes[i].library, &has_suites) < 0 || nlibs == max_libs) {
			code = cmd_usage_error(&cmd_go_entry, "frontend '%s' takes %s models, which ferry cannot "
					       "harvest", ro->fes[i].label, ro->fes[i].library);
			goto out;
		}
		libs[nlibs++] = ro->fes[i].library;
	}
	ro->s.store = dir;
	if (runopts_finish(ro, &cmd_go_entry, dir, argc, argv) < 0) {
		code = EXIT_USAGE;
		goto out;
	}
	for (size_t i = 0; i < nlibs && code == EXIT_OK; i++) {
		g.start = start;
		if (budget > 0 && time_left(&g) <= 0) {
			say("%s: the budget is spent; not started\n", libs[i]);
			continue;
		}
		code = go_library(&g, dir, libs[i]);
		go_release(&g);
	}
	if (code == EXIT_INTERRUPTED)
		fprintf(stderr, "ferry: what is done is kept in '%s'; run the same command to go on\n", esc_str(dir));
	else if (code == EXIT_OK)
		say("go: done in %.0fs\n", progress_now() - start);
out:
	go_release(&g);
	free(libs);
	opts_list_release(&suites);
	runopts_release(ro);
	err_release(&e);
	return code;
}

const struct cmd_entry cmd_go_entry = {
	.name = "go", .fn = cmd_go, .needs = CMD_NEEDS_NOTHING, .usage = usage, .opts = options, .more = more,
	.summary = "from libraries and frontends to a bug list, every stage in one command",
};
