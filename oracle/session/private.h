/* private.h: what the files of a session (oracle/session/) share, and no one else: the session's
 * state, a frontend's lane of a shared pool, the job keys, and the functions that pass a job from
 * one concern to the next. The public face is oracle/session.h.
 *
 *   frontend.c     frontend specs (NAME:LIBRARY@PYTHON), their labels and worker commands
 *   queue.c        opening a session: the wrap directory, the queue, --op/--test and the shard
 *   request.c      the worker requests that run a test
 *   pairs.c        the differential oracle: kept outputs and the verdicts of pairs of frontends
 *   probes.c       probes: each (operator, dtype) group's simplest test, run first
 *   canary.c       the canary (oracle/canary.h): trivial tests with known answers, run before the tests
 *   metamorphic.c  the metamorphic oracle: mutations, and the reductions of inconsistencies
 *   jobs.c         the runner's callbacks: the next job, and a job's outcome into the store
 *   lanes.c        running the frontends, in turn or side by side on one pool
 *
 * Ownership as in session.h; a function here that fills a runner_job gives it owned strings. */
#ifndef FERRY_SESSION_PRIVATE_H
#define FERRY_SESSION_PRIVATE_H

#include "session.h"
#include "strmap.h"

#include <cjson/cJSON.h>

struct reduction;
struct canary;

struct session {
	const struct session_opts *o;
	struct db db;
	struct wrapped *tests;
	size_t ntests;
	size_t *order;            /* indexes into tests: queue order, then the shard */
	struct strmap index;      /* id -> index into tests (in count) */
	size_t norder;
	struct tolerance_rules tol;
	double start;

	/* The frontend being run. */
	const struct frontend *fe;
	struct session_result *res;
	long long run_id;
	size_t cursor;
	size_t failed;
	int out_of_time;
	char *format_why;         /* the frontend's release cannot take the format: why */
	/* Probing the frontend: its (operator, dtype) groups, "OP\tDTYPE" -> struct group, and its
	 * release, once its first worker said it. */
	struct strmap groups;
	char *version;
	int version_known;
	/* The differential oracle: where frontends keep their outputs of graph tests (STORE.outputs,
	 * one directory per label, then per test), and the other labels that kept some. */
	char *outputs;
	char **peers;
	size_t npeers;
	/* The metamorphic oracle: inconsistencies waiting for their reduction (handed out first). */
	struct reduction *reduce;
	size_t nreduce, reduce_cap;
	/* The frontend's canary while it runs (NULL: none to run, or settled). */
	struct canary *canary;
	/* Batches (session_opts.batch): halves of failed batches waiting, handed out first (each a
	 * job key, last in first out), the batches in flight, and a job taken while a batch was being
	 * filled that did not fit in it, handed out next. */
	char **halves;
	size_t nhalves, halves_cap, batches_out;
	struct runner_job held;
	int batch_k;                /* tests in the next batch: grows while batches pass, halves when one fails */
	/* The selection: queue ids, those not wrapped, those --op and --test leave out. */
	size_t queued, unknown, left_out;
	/* Tests of the frontend's library reached down the queue (the limit counts them), and the
	 * failures of the whole session (--maxfail counts them). */
	size_t reached, failures;
	/* The shared pool (session_run with several frontends): every frontend's lane, and the one
	 * whose state the fields above hold now (NULL between callbacks). */
	struct lane *lanes;
	size_t nlanes;
	struct lane *cur;
	struct lane *alone;         /* a frontend run alone: its lane (the progress line's totals) */
};

/* One frontend's run: its worker command, its state while another frontend's callbacks run (the
 * fields of struct session that say "the frontend being run", swapped in and out by lane_swap), and
 * what the runner needs of it. A run of one frontend alone has one lane, always in. */
struct lane {
	struct session *s;
	const struct frontend *fe;
	struct session_result *res;
	long long run_id;
	size_t cursor, failed, reached;
	int out_of_time;
	char *format_why;
	struct strmap groups;
	char *version;
	int version_known;
	char **peers;
	size_t npeers;
	struct reduction *reduce;
	size_t nreduce, reduce_cap;
	struct canary *canary;
	char **halves;
	size_t nhalves, halves_cap, batches_out;
	struct runner_job held;
	int batch_k;

	const struct frontend *frontend;  /* whose lane it is (fe above is swapped with s's) */
	const char *wargv[5];
	char *env[2];
	char *self;
	size_t tests, probes;        /* it will take, for the progress line (session_progress) */
	/* Its jobs in flight (keys, owned) and when each was handed out: the longest running one's
	 * time is the least the progress line may say is left. */
	struct flight { char *key; double start; } *flights;
	size_t nflights, flights_cap;
	int started;                 /* its run is recorded in the store (db_start_run) */
};

/* A probe's job key: the probe's id after this prefix (an id is hex digits); a test that is its
 * group's probe runs once, as both (its key after PROBE_TEST_KEY). */
#define PROBE_KEY "probe:"
#define PROBE_TEST_KEY "probe+test:"
/* A batch's job key: its tests' ids after this prefix, separated by BATCH_SEP. */
#define BATCH_KEY "batch:"
#define BATCH_SEP ","
/* A reduction's job key: the test's id after this prefix. */
#define REDUCE_KEY "reduce:"

/* The frontend's name in the store: its label (NAME, or NAME@RELEASE for another interpreter's). */
static inline const char *session_store_name(const struct frontend *fe)
{
	return fe->label;
}

/* queue.c: 1 when test id has a result that stands for the frontend being run (the run leaves it),
 * 0 when it is to run, -1 on error; *existed: it had a result that is not ferry's own error. */
int session_has_result(struct session *s, const char *id, int *existed, struct err *e);

/* request.c: whether test t goes to the differential oracle; the request that runs it for the
 * frontend being run (caller frees). */
int session_differential(const struct session *s, const struct wrapped *t);
char *session_job_request(struct session *s, const struct wrapped *t);

/* pairs.c: STORE.outputs/LABEL/ID made for test t; the labels that kept outputs (found anew,
 * forgotten); the pairs' verdicts of a reply, as results of their own. */
int session_outputs_dir(const struct session *s, const struct wrapped *t, struct err *e);
void session_find_peers(struct session *s);
void session_forget_peers(struct session *s);
int session_put_pairs(struct session *s, const struct db_result *mine, const cJSON *reply, struct err *e);

/* probes.c: the frontend's groups (found, forgotten with its release); the probe to run before test
 * t (1 with job filled, 0 for none, 2 when t is it, -1 on error); a probe's outcome into the
 * support table; the release a worker announced; the tests (and *probes) the frontend will take. */
void session_find_groups(struct session *s);
void session_forget_groups(struct session *s);
int session_probe_job(struct session *s, const struct wrapped *t, struct runner_job *job, struct err *e);
int session_probe_done(struct session *s, const struct wrapped *test, const struct db_result *res, struct err *e);
/* Whether test t may join a batch: not when its group's probe failed or was unsupported, by the
 * store or this run (it would likely fail its batch, and every test of a failed batch compiles
 * again); a group whose probe went through, or whose probe is still out, may. */
int session_batchable(const struct session *s, const struct wrapped *t);
void session_ready(void *ctx, const char *version);
size_t session_remaining(struct session *s, size_t *probes);

/* canary.c: the frontend's canary wrapped at the start of its run, unless the store has its verdict
 * for the release the store saw last (0, or -1 on error; *wanted: the workers must say their release
 * first); its next job (1 with job filled, 0 for none, -1 on error), before any test; its answers
 * into the environment table; and forgotten (its directory removed). */
int session_canary_begin(struct session *s, int *wanted, struct err *e);
int session_canary_job(struct session *s, struct runner_job *job, struct err *e);
int session_canary_done(struct session *s, const char *key, const struct runner_outcome *o, struct err *e);
void session_forget_canary(struct session *s);

/* metamorphic.c: the reductions waiting (forgotten; one more from the store's pending rows, as
 * db_mutations' callback); the next one's job (1, or 0 for none); a reduction's outcome and a
 * metamorphic run's mutations into the store. */
void session_forget_reductions(struct session *s);
int session_pending_reduction(void *ctx, const struct db_mutation *m, struct err *e);
int session_reduce_job(struct session *s, struct runner_job *job);
int session_reduce_done(struct session *s, const char *id, const struct runner_outcome *o, struct err *e);
int session_mutation_done(struct session *s, const struct db_result *res, const cJSON *reply, struct err *e);

/* jobs.c: the monotonic clock in seconds; a string member of a JSON object (borrowed) or NULL; the
 * runner's callbacks for the frontend being run. */
double session_now(void);
void session_forget_batches(struct session *s);
const char *session_json_str(const cJSON *o, const char *key);
int session_next_job(void *ctx, struct runner_job *job, struct err *e);
int session_job_done(void *ctx, const struct runner_job *job, const struct runner_outcome *o, struct err *e);
void session_tick(void *ctx);
/* lanes.c: how long lane l's longest running job has run (0: none in flight). */
double session_longest(const struct lane *l);

#endif
