/* cmd-rank.c: ferry rank CORPUS [--counts COUNTS] -o QUEUE
 *
 * Orders a corpus so that the tests most likely to find new bugs run first: OPERA's diversity ranking
 * (operators the compiler's own tests use rarely, parameter values in subspaces not yet covered), or
 * one of the baselines it is measured against (random, FAST, total and additional coverage). Writes
 * the queue as JSON Lines, one line per instance, first to run first (prioritize/rank.h has the
 * format); instances marked invalid by wrap, or unmigratable, go last. The same corpus, counts, seed
 * and options always give the same queue. The opera strategy also reports the parameter coverage of
 * the instances that can run, as its scores count it (struct rank_cover): --stats prints it alone, as
 * one JSON line, which is how a corpus and the corpus plus its variants are compared. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "counts.h"
#include "esc.h"
#include "fsutil.h"
#include "rank.h"
#include "runargs.h"
#include "xalloc.h"

static const char usage[] =
	"usage: ferry rank CORPUS -o QUEUE [options]\n"
	"       ferry rank CORPUS --stats [-o QUEUE] [options]\n"
	"\n"
	"Order the instances of CORPUS (a JSON Lines corpus, or wrap's wrapped.jsonl) so that those most\n"
	"likely to find new bugs run first. QUEUE gets one JSON line per instance, first to run first.\n";

struct rank_args {
	const char *output, *counts_path, *coverage;
	struct rank_opts o;
	int quiet, strict, stats;
	struct select sel;
};

#define AT(f) offsetof(struct rank_args, f)

static int parse_strategy(void *value, const char *arg, struct err *e)
{
	if (rank_strategy_parse(arg, value) < 0)
		return err_set(e, EXIT_USAGE, "unknown strategy '%s' (opera, random, fast, total, additional)", arg);
	return 0;
}

static int parse_fast(void *value, const char *arg, struct err *e)
{
	if (rank_fast_parse(arg, value) < 0)
		return err_set(e, EXIT_USAGE, "unknown FAST variant '%s' (pw, one, log, sqrt, all)", arg);
	return 0;
}

static int parse_seed(void *value, const char *text, struct err *e)
{
	char *end;

	*(uint64_t *)value = strtoull(text, &end, 10);
	if (!*text || *end || *text == '-')
		return err_set(e, EXIT_USAGE, "--seed takes a whole number, 0 or more");
	return 0;
}

static const struct opt options[] = {
	OPT_STRING('o', "output", "QUEUE", "where the queue goes ('-': standard output)", AT(output)),
	OPT_STRING('c', "counts", "COUNTS", "the compiler's frontend-test operator counts (see corpora/counts/ and\n"
		   "'ferry count-tests'); without it every operator scores the same", AT(counts_path)),
	OPT_CALL('s', "strategy", "NAME", "opera (default), random, fast, total, additional", AT(o.strategy),
		 parse_strategy),
	OPT_CALL(0, "fast", "VARIANT", "FAST's variant: pw (default), one, log, sqrt, all", AT(o.fast), parse_fast),
	OPT_STRING(0, "coverage", "PATH", "per-test coverage for total/additional: a directory with one file per\n"
		   "test (named by its id, one covered element a line), or JSON Lines of\n"
		   "{\"id\": ..., \"covered\": [...]}", AT(coverage)),
	OPT_CALL(0, "seed", "N", "the seed of the order that breaks ties, and of the random strategy's own\n"
		 "order, derived from it apart from the tie-breaking one (default 1)", AT(o.seed), parse_seed),
	OPT_INT('j', "jobs", "N", "threads (default: the number of cores)", AT(o.jobs), 1, 256),
	OPT_FLAG(0, "stats", "print only the coverage of the instances that can run, as the opera ranking\n"
		 "counts it, as one JSON line on standard output (then -o is optional)", AT(stats)),
	OPT_FLAG(0, "strict", "refuse a corpus with bad lines (default: warn, skip them, rank the rest)", AT(strict)),
	OPT_CALL(0, "op", "GLOB", "rank only instances whose operator matches GLOB: a word found in the name,\n"
		 "or a glob of the whole name or its last dotted part; lower case ignores case\n"
		 "(comma-separated, repeatable)", AT(sel), runopts_parse_op),
	OPT_CALL(0, "test", "GLOB", "rank only instances whose source test matches GLOB: a word found in it, or\n"
		 "a glob of it whole; lower case ignores case (comma-separated, repeatable)", AT(sel),
		 runopts_parse_test),
	OPT_FLAG('q', "quiet", "no summary on standard error", AT(quiet)),
	OPT_END(),
};

#define SHOW_BAD 10

struct bad_lines {
	size_t shown;
};

static void on_bad_line(void *ctx, const struct err *e)
{
	struct bad_lines *b = ctx;

	if (b->shown++ < SHOW_BAD)
		cmd_warn("%s", e->msg);
}

/* The options that do not go together: EXIT_OK, or the usage error said. */
static int check_args(const struct rank_args *a)
{
	if (!a->output && !a->stats)
		return cmd_usage_error(&cmd_rank_entry,
			"no output: say where the queue goes with -o QUEUE ('-' for stdout)");
	if (a->stats && a->output && !strcmp(a->output, "-"))
		return cmd_usage_error(&cmd_rank_entry,
			"--stats prints on standard output: the queue cannot go there too");
	/* The coverage comes from the tables the opera ranking scores with, so that there is one
	 * definition of a subspace; another strategy has none to give. */
	if (a->stats && a->o.strategy != RANK_OPERA) {
		return cmd_usage_error(&cmd_rank_entry, "--stats counts coverage as the opera strategy does; "
			"it takes no --strategy %s", rank_strategy_name(a->o.strategy));
	}
	if ((a->o.strategy == RANK_TOTAL || a->o.strategy == RANK_ADDITIONAL) && !a->coverage)
		return cmd_usage_error(&cmd_rank_entry, "the %s strategy needs --coverage",
			rank_strategy_name(a->o.strategy));
	return EXIT_OK;
}

/* What the queue holds and covers, on stderr. */
static void print_ranked(const struct rank_args *a, const struct rank_set *s, const struct rank_stats *st, size_t nbad,
			 const char *corpus)
{
	fflush(stdout);
	fprintf(stderr, "ferry: ranked %zu instance%s of %zu operator%s with %s: %zu can run, %zu invalid, "
		"%zu unmigratable\n", s->n, s->n == 1 ? "" : "s", st->ops, st->ops == 1 ? "" : "s",
		rank_strategy_name(a->o.strategy), st->tier[RANK_TIER_OK], st->tier[RANK_TIER_INVALID],
		st->tier[RANK_TIER_UNMIGRATABLE]);
	if (st->have_cover)
		fprintf(stderr, "ferry: the %zu that can run cover %zu (operator, parameter, subspace) singles "
			"and %zu pairs, over %zu operator%s\n", st->tier[RANK_TIER_OK],
			st->cover.singles, st->cover.pairs, st->cover.ops, st->cover.ops == 1 ? "" : "s");
	if (s->left_out)
		fprintf(stderr, "ferry: %zu instance%s left out by --op/--test\n", s->left_out,
			s->left_out == 1 ? "" : "s");
	if (nbad)
		fprintf(stderr, "ferry: %zu bad line%s of '%s' left out of the queue\n", nbad,
			nbad == 1 ? "" : "s",
			corpus);
	/* Counts name every operator a compiler tests, a corpus only some: operators of the counts
	 * that the corpus lacks are normal, and said here, not warned about. Counts that match no
	 * operator at all were refused above. */
	if (a->o.strategy == RANK_OPERA && a->o.counts && st->counts_unknown)
		fprintf(stderr, "ferry: %zu of the %zu operators are in the counts of '%s', which name %zu "
			"operator%s the corpus does not have (such as '%s')\n", st->ops_counted, st->ops,
			esc_str(a->counts_path), st->counts_unknown, st->counts_unknown == 1 ? "" : "s",
			esc_str(st->unknown_example));
	else if (a->o.strategy == RANK_OPERA && a->o.counts)
		fprintf(stderr, "ferry: %zu of the %zu operators are in the counts of '%s'\n", st->ops_counted,
			st->ops, esc_str(a->counts_path));
}

static int rank(int argc, char **argv)
{
	struct rank_args args = { .o = RANK_OPTS_INIT }, *a = &args;
	const char *corpus;
	struct rank_set s;
	struct rank_queue q = RANK_QUEUE_INIT;
	struct rank_stats st;
	struct counts c;
	struct err e = ERR_INIT;
	struct bad_lines bl = { 0 };
	int code = EXIT_OK;
	size_t nbad = 0, unknown = 0;

	rank_set_init(&s);
	counts_init(&c);
	if (cmd_parse(&cmd_rank_entry, argc, argv, a) < 0) {
		code = EXIT_USAGE;
		goto out;
	}
	if (optind + 1 != argc) {
		code = cmd_usage_error(&cmd_rank_entry, "rank takes one CORPUS");
		goto out;
	}
	corpus = argv[optind];
	if ((code = check_args(a)) != EXIT_OK)
		goto out;
	if (a->counts_path && a->o.strategy != RANK_OPERA)
		cmd_warn("--counts is used only by the opera strategy; ignored");
	if (fs_input_file(corpus, &e) < 0 || (a->counts_path && fs_input_file(a->counts_path, &e) < 0)) {
		code = cmd_error(&e);
		goto out;
	}
	/* Read the small inputs first, so that a mistake there does not cost a corpus load. */
	if (a->counts_path) {
		if (counts_load(&c, a->counts_path, &e) < 0) {
			code = cmd_error(&e);
			goto out;
		}
		a->o.counts = &c;
	}
	s.want_sig = a->o.strategy == RANK_FAST;
	s.select = &a->sel;
	/* Hidden: FERRY_RANK_READER=cjson reads every line the old way (bench/rank, tests/cli/rank-reader.sh). */
	if (getenv("FERRY_RANK_READER") && !strcmp(getenv("FERRY_RANK_READER"), "cjson"))
		s.reader = RANK_READER_CJSON;
	if (rank_set_load(&s, corpus, on_bad_line, &bl, &nbad, &e) < 0) {
		code = cmd_error(&e);
		goto out;
	}
	if (nbad) {
		if (nbad > SHOW_BAD)
			cmd_warn("... and %zu more bad lines", nbad - SHOW_BAD);
		/* Like every reader of corpora, rank skips bad lines and says so; --strict is for pipelines
		 * that want the queue to be the whole corpus or nothing. */
		if (a->strict) {
			err_set(&e, EXIT_INPUT, "'%s' has %zu bad line%s (--strict: no queue without %s)", corpus, nbad,
				nbad == 1 ? "" : "s", nbad == 1 ? "it" : "them");
			code = cmd_error(&e);
			goto out;
		}
	}
	/* An empty queue written with exit 0 would pass a pipeline that ranked the wrong file. */
	if (!s.n) {
		err_set(&e, EXIT_INPUT, "'%s' holds no instance records%s: nothing to rank", corpus,
			s.left_out ? " that --op/--test select" : nbad ? " (every line is bad)" : "");
		code = cmd_error(&e);
		goto out;
	}
	if (a->o.counts && c.library && s.libs.n &&
	    intern_find(&s.libs, 0, c.library, strlen(c.library)) == UINT32_MAX) {
		err_set(&e, EXIT_INPUT, "'%s' counts operators of library '%s', but '%s' holds instances of '%s'",
			a->counts_path, c.library, corpus, intern_str(&s.libs, 0));
		code = cmd_error(&e);
		goto out;
	}
	if (a->coverage) {
		if (rank_set_load_coverage(&s, a->coverage, &unknown, &e) < 0) {
			code = cmd_error(&e);
			goto out;
		}
		if (unknown)
			cmd_warn("'%s' has coverage for %zu test%s not in the corpus; ignored", a->coverage, unknown,
				 unknown == 1 ? "" : "s");
	}
	if (rank_run(&s, &a->o, &q, &st, &e) < 0) {
		code = e.code == EXIT_USAGE ? cmd_usage_error(&cmd_rank_entry, "%s", e.msg) : cmd_error(&e);
		goto out;
	}
	if (a->o.counts && counts_size(&c) && !st.ops_counted && s.n) {
		err_set(&e, EXIT_INPUT, "none of the %zu operators in '%s' is in the corpus (such as '%s'): are these "
			"counts for another library?", counts_size(&c), a->counts_path, st.unknown_example);
		code = cmd_error(&e);
		goto out;
	}
	if (a->output && rank_queue_write(&s, &q, a->output, &e) < 0) {
		code = cmd_error(&e);
		goto out;
	}
	if (a->stats) {
		printf("{\"instances\":%zu,\"can_run\":%zu,\"operators\":%zu,\"singles\":%zu,\"pairs\":%zu}\n",
		       s.n, st.tier[RANK_TIER_OK], st.cover.ops, st.cover.singles, st.cover.pairs);
	} else if (!a->quiet) {
		print_ranked(a, &s, &st, nbad, corpus);
	}
out:
	rank_queue_release(&q);
	rank_set_release(&s);
	select_release(&a->sel);
	counts_release(&c);
	err_release(&e);
	return code;
}

const struct cmd_entry cmd_rank_entry = {
	.name = "rank", .fn = rank, .needs = CMD_NEEDS_NOTHING, .usage = usage, .opts = options,
	.summary = "order a corpus so that the tests likeliest to find new bugs run first",
};
