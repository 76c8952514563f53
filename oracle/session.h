/* session.h: a run of wrapped tests through frontends into the results store: what ferry run and
 * ferry check share. The session loads the wrap directory, records its instances in the store, and
 * for each frontend hands the tests still without a result (in queue order, within the limit, the
 * time budget and the shard) to a pool of workers (runner.h), recording each result as it comes.
 * The frontends it runs are frontend.h's; its code is oracle/session/ (private.h says which file
 * holds what).
 *
 * The session prints nothing: it reports through the hooks in struct session_opts. */
#ifndef FERRY_SESSION_H
#define FERRY_SESSION_H

#include <stddef.h>

#include "db.h"
#include "err.h"
#include "frontend.h"
#include "outcome.h"
#include "probe.h"
#include "runner.h"
#include "select.h"
#include "tolerance.h"
#include "wrapped.h"

/* Whether an oracle name is the metamorphic oracle's (NULL is the reference's). */
int session_metamorphic(const char *oracle);
/* The frontends the metamorphic oracle takes: ONNX models in the onnx format. EXIT_USAGE naming the
 * one that does not. Needs the interpreter. */
int session_check_metamorphic(const struct frontend *fes, size_t n, struct err *e);

/* The worker request that runs test t: its directory, whether its outputs are random, and the
 * tolerance rules (may be empty) give for its operator and dtype on frontend (an adapter's NAME),
 * else defaults; the worker explains its result (the stages' times, each output beside its
 * reference: what ferry run --one prints), which a run's tests do without. Caller frees. */
char *session_request(const struct wrapped *t, const struct tolerance_rules *rules, const char *frontend,
		      struct tolerance defaults);
/* The differential oracle's label for a pair of frontends, "A~B" (B ran the test after A): the store's
 * name for the results that compare B's outputs with A's. Caller frees. */
#define SESSION_PAIR_SEP "~"
char *session_pair_label(const char *a, const char *b);
/* The label of the frontend whose bug a pair's disagreement is (agrees: the result's exc_type,
 * "agrees: LABEL|both|neither"): the one of the two that does not agree with the reference, else B;
 * a label that is no pair's, itself. Caller frees. */
char *session_pair_culprit(const char *label, const char *agrees);

/* The same for a test directory of ferry's own making (ferry reduce's subgraphs): its id (for the
 * result event), directory, randomness and the tolerance that judges it. Caller frees. */
char *session_request_dir(const char *id, const char *dir, int random, struct tolerance tol);

/* The result a run records for a test's runner outcome o (what every caller that runs a test must
 * judge alike): res's outcome, stage, exc_type, message, frame, detail, max_abs and seconds, which
 * point into o and into msg, sig and stage (the caller's scratch, released by it; stage holds the
 * stage of a mutated model's failure without its suffix). The frontend, id, run,
 * tolerance and the undefined-domain flag are the caller's. o must not be a reply that says the
 * frontend is unavailable for the format (PROTO_KEY_UNAVAILABLE): that is no test's result. */
void session_outcome(const struct runner_outcome *o, struct db_result *res, struct buf *msg, struct buf *sig,
		     struct buf *stage);

/* Which tests that have a result run again (--rerun): none (a run resumes: only ferry's own errors
 * are retried), the failures (mismatch, inconsistent, crash, timeout, oom), the errors (the tests
 * that ended without outputs to judge: crash, timeout, oom; what a fixed adapter changes), or all. */
enum session_rerun { SESSION_RERUN_NONE, SESSION_RERUN_FAILED, SESSION_RERUN_ERRORS, SESSION_RERUN_ALL };
/* "failed", "errors", "all" into *out; -1 for another word. */
int session_rerun_parse(const char *word, enum session_rerun *out);

/* One frontend's share of a run, for the progress line: the tests it will take and the probes that
 * go apart from them (as far as the store knows the frontend's release: a new release probes more,
 * and fewer may run), those answered so far, and its longest running job's time. Probes are no
 * tests: counted apart. */
struct session_progress {
	size_t tests, probes;
	size_t tests_done, probes_done;
	double longest;  /* seconds the longest running of its jobs in flight has run, or 0 */
};

struct session_opts {
	const char *wrapdir;
	const char *store;          /* NULL with collect_only */
	/* Stop session_open once the tests are selected: no store is opened or created, nothing runs
	 * (--collect-only lists them with session_each). */
	int collect_only;
	const char *queue;          /* NULL: the wrap's order; a queue of ferry rank's, or plain ids */
	const struct select *select;  /* --op, --test (NULL: every test) */
	struct runner_opts runner;  /* argv is the session's to fill */
	double atol, rtol;          /* defaults, before the tolerance file */
	const char *tolerances;     /* NULL, or a tolerance file (tolerance.h) */
	/* The top limit tests of the queue per frontend (valid ones of its library), those with a
	 * result already included, so that the same command run again finishes the same tests rather
	 * than taking the next ones; -1: all. */
	long limit;
	enum session_rerun rerun;
	long maxfail;               /* start no test once this many failures came in this session; 0: none */
	double budget;              /* seconds for the whole session, checked at test boundaries; 0: none */
	int shard, nshards;         /* take every nshards-th test of the queue, from offset shard */
	const char *command;        /* recorded with each run */
	/* Unless set, the first test of each (operator, dtype) group goes after the group's probe
	 * (oracle/probe.h), for a group the store has no probe of for this release of the frontend;
	 * probes count toward progress, not toward the limit. */
	int no_probe;
	/* Only the probes run: each group's of the tests taken (a corpus of probes, ferry generate's),
	 * unless the store has it for this release, into the support table; no test gets a result. */
	int probe_only;
	/* The differential oracle (frontends against each other on the same test) takes multi-node
	 * graphs (records of kind "graph"); set, it takes every test. A frontend keeps its outputs of
	 * such a test in STORE.outputs/LABEL/ID; one that runs it later compares its own with each kept
	 * set, with the tolerance that judges the test, and each pair's verdict is a result of its own
	 * under the label A~B (session_pair_label): pass, or a mismatch whose exc_type says which of the
	 * two agrees with the reference ("agrees: LABEL", "both", "neither"). */
	int differential;
	/* The frontends to be run (may be NULL): session_open refuses, before it creates the store, a
	 * selection that holds no valid test for one of them (a wrong library, a wrong shard). */
	const struct frontend *fes;
	size_t nfes;
	/* The oracle: NULL (or "reference") compares with the source library's outputs;
	 * PROTO_ORACLE_METAMORPHIC runs each model and a mutation of it (mutations of them, from seed;
	 * oracle/metamorphic.py) and compares the two, and reduces each inconsistency, in a worker job
	 * of its own, as soon as it is found (a run that resumes reduces those still pending first). A
	 * store holds one oracle's results (db_check_oracle). */
	const char *oracle;
	int mutations;
	long long seed;
	/* Up to this many tests in one model (ferry/oracle/batch.py) for a frontend whose adapter
	 * declares BATCH = True, under the reference oracle, for tests outside the differential
	 * oracle: a batch that fails as a whole (a crash, a signal, a timeout) is split in halves and
	 * run again, down to single tests run as without it, and a test whose outputs are wrong in a
	 * batch that ran runs again alone, so that every failure recorded is a test's alone; the tests
	 * of a batch that passed are recorded as passes with the batch's size (db_result.batch). 1 (or
	 * 0): every test alone. */
	int batch;

	void *ctx;
	void (*warn)(void *ctx, const char *msg);
	/* A frontend's run starts (fe: its label; for the shared pool, the labels of all) / moves on /
	 * ends; lanes[0..n) say each frontend's share (one, or each of the shared pool's). */
	void (*started)(void *ctx, const struct frontend *fe, const struct session_progress *lanes, size_t n);
	void (*progress)(void *ctx, const struct session_progress *lanes, size_t n, size_t failed);
	void (*finished)(void *ctx, int ok);
};

/* What one frontend's run did. */
struct session_result {
	char *version;              /* as the frontend's worker said, or NULL */
	int unavailable;            /* the frontend's worker could not start, or its release cannot take
				     * the format (the adapter raised FormatUnavailable: no test of it ran) */
	char *why;                  /* then: why ("unavailable for FORMAT: ..." in the second case) */
	size_t ran, already, invalid, budget_left_out;
	size_t rerun;               /* of ran: tests that had a result, run again (--rerun) */
	int maxfail;                /* the session stopped taking tests at --maxfail failures */
	size_t counts[OUTCOME_COUNT];  /* by enum outcome */
	/* Groups probed now, by enum probe_class; of them, those whose probe ran apart from the tests
	 * (a group's first test that is its probe runs once, as both); groups whose probe the store
	 * had for this release. */
	size_t probes, probe_classes[PROBE_NCLASSES], probes_apart, probes_cached;
	size_t probes_answered;     /* of probes_apart, those whose answer came */
	/* The canary (oracle/canary.h): run now (its verdict: 1 right, 0 wrong, -1 inconclusive) or
	 * found in the store for this release; its cost in seconds (the wrap and the answers); why it did
	 * not run (no canary for the library; owned), or NULL. */
	int canary_ran, canary_cached, canary_ok;
	double canary_seconds;
	char *canary_skipped;
	/* The metamorphic oracle: inconsistencies whose reduction ran now, and those reduced to a
	 * smaller failing model (whole or, when its time ran out, partly). */
	size_t reductions, reduced;
	/* Where the time of the tests recorded now went, for those the worker answered (timed): the
	 * frontend's load, compile and execute (as the worker measured them), and ferry's share of the
	 * rest: the wait for a worker, the protocol, the worker's reading and comparing, judging and
	 * the store's writes. A worker's start-up (its imports) is no test's. */
	size_t timed;
	double load_seconds, compile_seconds, execute_seconds, ferry_seconds;
};

struct session;

/* Load the wrap directory (and the queue), open the store and record the instances in it. */
int session_open(struct session **out, const struct session_opts *o, struct err *e);
void session_close(struct session *s);
struct db *session_db(struct session *s);

/* Run the frontends in turn; results[i] gets frontend i's account (release with
 * session_result_release). A frontend that cannot start is marked unavailable and the others still
 * run; -1 with EXIT_ENV only when none could. Interrupted: -1 with EXIT_INTERRUPTED, the results
 * recorded so far kept. */
int session_run(struct session *s, const struct frontend *fes, size_t nfes, struct session_result *results,
		struct err *e);
void session_result_release(struct session_result *r);

/* The queue's ids (0 without a queue), those that are no wrapped test (a queue of the whole corpus
 * on a wrapped sample: normal, so counted, not warned about line by line), and the tests that
 * --op and --test leave out. */
void session_selection(const struct session *s, size_t *queued, size_t *unknown, size_t *left_out);

/* Call fn for each test the session selects for fe (queue order, shard, fe's library; fe NULL: every
 * library's), valid or not.
 * fn returning -1 stops the walk and is returned. */
int session_each(struct session *s, const struct frontend *fe,
		 int (*fn)(void *ctx, const struct wrapped *t), void *ctx);

#endif
