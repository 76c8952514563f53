/* harvest.h: the harvest engine, what ferry harvest (src/cmd-harvest.c) drives. It runs a library's
 * test knowledge (extract/harvest_SOURCE.py) in child processes, ferry harvest-child, each in a
 * scratch directory of its own that is also its HOME and TMPDIR, inside a bubblewrap sandbox where
 * everything else is read-only when the machine has one (lib/sandbox.h). A child streams each record,
 * skip and test boundary over a channel the moment it is made (extract/channel.py); the engine
 * validates each record and gives it its id (lib/record.h), merges usages that are identical (same
 * canonical form) into the first one seen, writes the others to the corpus and counts them per suite
 * (each record's source.suite). A test that exits, crashes, hangs past the timeout or scribbles on
 * the channel ends that child: the test is counted as crashed, with the reason, and a new child goes
 * on from the next test (tests come in the same order each time), or, in a test that numbers its
 * samples (an OpInfo or ModuleInfo entry), from the sample after the one that ended it: each sample
 * then has the timeout, and costs only itself. A child that ends outside any test twice running ends
 * the harvest.
 *
 * The engine prints nothing: it reports through the hooks in struct harvest_opts. The struct harvest
 * it fills is the caller's to print. */
#ifndef FERRY_HARVEST_H
#define FERRY_HARVEST_H

#include <stdio.h>

#include "buf.h"
#include "err.h"
#include "select.h"
#include "strmap.h"

/* Time a test, or a child's start-up, may take by default; the sample generators of the biggest
 * OpInfo entries take tens of seconds on a slow machine. */
#define HARVEST_DEFAULT_TIMEOUT 300.0

/* The counts a harvest reports ({"tests": n, ...} from extract/ferry_channel.py), in the order they
 * are first named. */
struct harvest_counts {
	char **keys;  /* owned */
	long *vals;
	size_t n, cap, vcap;
};

/* What one suite (a record's source.suite) gave. */
struct harvest_suite {
	size_t instances, merged, unmigratable;
	struct strmap ops;      /* op -> instances */
	struct strmap why;      /* unmigratable reason -> instances */
};

struct harvest_opts {
	const char *source;             /* a name harvest_source() knows */
	const char *const *patterns;    /* --filter globs (borrowed) */
	const struct select *select;    /* --op, --test: the records kept (NULL: all; borrowed) */
	size_t npatterns;
	const char *const *suites;      /* --suite names (borrowed) */
	size_t nsuites;
	const char *const *pytest;      /* --pytest paths, as given (borrowed) */
	size_t npytest;
	double timeout;                 /* seconds a test (or a sample of one) may take */
	const char *timeout_option;     /* the option that sets it, said when a test times out, or NULL */
	int no_sandbox;                 /* run the children without bubblewrap */
	const char *const *env;         /* --env names the tests also see (borrowed) */
	size_t nenv;
	const char *python;             /* the interpreter the children run (its virtualenv is
					 * what the sandbox shows them) */
	FILE *out;                      /* where the corpus goes (borrowed) */
	const char *out_name;           /* its name, for messages */

	void *ctx;
	/* Something worth saying that does not stop the harvest (a malformed record, a crashed test). */
	void (*warn)(void *ctx, const char *msg);
	/* A line that the tests (or the libraries, or the child itself) wrote to their standard error
	 * or output, escaped (lib/esc.h); NULL: not shown. Past a share of the harvest's, the rest is
	 * counted and said in one warning. */
	void (*output)(void *ctx, const char *line);
	/* A child's progress through a suite (label: the suite's, or empty). */
	void (*progress)(void *ctx, long done, long total, const char *label);
};

/* What the harvest gave. */
struct harvest {
	struct strmap ops;      /* op -> instances */
	struct strmap skipped;  /* reason -> tests */
	struct strmap suites;   /* suite name -> struct harvest_suite (ptr, owned) */
	size_t instances, merged, unmigratable, bad_records;
	size_t left_out;        /* distinct instances that --op and --test left out */
	struct harvest_counts counts;  /* of the children that have ended */
	char **crashed;         /* one reason per test that took its process down (owned) */
	size_t ncrashed, crashed_cap;
	/* What they cost, by test name: a test that numbers its samples loses the one that took its
	 * process down (lost_samples: test -> samples lost); another loses what it had not yet
	 * recorded, and its samples not yet made with it (lost_tests: test -> times). */
	struct strmap lost_samples, lost_tests;

	/* The engine's own. */
	struct strmap ids;      /* id -> times seen */
	struct buf line;
};

/* The counts a child reports that say what became of the calls its tests made
 * (extract/harvest_common.py): "calls not recorded" in all, "not recorded: REASON" for each reason,
 * the instances the --filter patterns left out, and the test files that could not be imported (each
 * also a skip whose reason starts with HARVEST_IMPORT_ERROR and holds the error). */
#define HARVEST_NOT_RECORDED "calls not recorded"
#define HARVEST_NOT_RECORDED_BY "not recorded: "
#define HARVEST_FILTERED "instances left out by --filter"
#define HARVEST_IMPORT_FAILED "test files that failed to import"
#define HARVEST_IMPORT_ERROR "test file failed to import: "

/* The value of a count, 0 when it was never reported. */
long harvest_count(const struct harvest_counts *c, const char *key);

/* The indexes in c of the "not recorded: REASON" counts, largest first, in *idx (the caller's to
 * free); returns how many. */
size_t harvest_not_recorded(const struct harvest_counts *c, size_t **idx);

/* Why a harvest that yielded no instance yielded none, as one sentence in out: the test files failed
 * to import (with the first error), no test ran (or none matched the --filter patterns: filtered
 * says whether there were some), the tests made instances that the patterns left out, or every call
 * was dropped (with the reasons, most frequent first). */
void harvest_why_empty(const struct harvest *h, int filtered, struct buf *out);

/* 0 when name is a source (a library of the registry, libraries.h, whose table must have been
 * read), with *has_suites set to whether it takes suites and pytest paths; -1 otherwise. */
int harvest_source(const char *name, int *has_suites);

/* A record made in this process rather than by a child (the C++ harvester, extract/cpp.h):
 * validated, given its id, merged and written as a child's are. 0, or -1 with e filled when the
 * corpus cannot be written. */
int harvest_take(struct harvest *h, const struct harvest_opts *o, const char *json, size_t len, struct err *e);
/* Add n to the count named key, as the children's counts are added. */
void harvest_count_add(struct harvest *h, const char *key, long n);

void harvest_init(struct harvest *h);
void harvest_release(struct harvest *h);

/* Run children until the harvest is complete, writing the corpus to o->out. Returns 0, or -1 with e
 * filled: EXIT_INTERRUPTED on SIGINT or SIGTERM, or the child's exit code with an empty message when
 * the child failed outside any test and has printed why itself. */
int harvest_run(struct harvest *h, const struct harvest_opts *o, struct err *e);

/* The child's side (ferry harvest-child): run extract/harvest_SOURCE.py through ferry.extract.channel.run,
 * writing the channel to fd and skipping the first resume tests and the first resume_sample samples
 * of the next. 0, or -1 with e filled. */
int harvest_child_run(int fd, const char *source, const char *const *patterns, size_t npatterns,
		      const char *const *suites, size_t nsuites, const char *const *pytest, size_t npytest,
		      long resume, long resume_sample, struct err *e);

#endif
