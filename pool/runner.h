/* runner.h: the worker pool. Compilers crash, hang and exhaust memory; ferry must not. The runner
 * starts a few long-lived worker processes (fork and exec of "ferry worker ..."), each of which
 * imports its libraries once and then serves test after test, and watches them from outside: a test
 * that outlives its timeout, or a worker whose memory passes the limit, is killed with its whole
 * process group; a worker that dies takes only its current test with it; either way the test is
 * reported with its cause and a fresh worker takes the next test.
 *
 * The protocol is JSON Lines. The runner writes one request per line to a worker's stdin. The worker
 * answers on its stdout (its stray prints go to stderr, which the runner captures), each event on
 * a line of its own, after an empty line (see worker.c), and lines that are no event are kept as
 * stderr text:
 *   {"event": "ready", "version": "..."}          once, when the worker can take tests
 *   {"event": "fatal", "message": "..."}          instead of ready: it cannot start (no library)
 *   {"event": "taken"}                            it has read a request, before anything else
 *   {"event": "stage", "stage": "compile"}        the current test enters a stage
 *   {"event": "result", ...}                      the current test's result; the worker is free
 * A worker that ends (or hangs, or passes the memory limit) before "taken" never started the test:
 * the test goes to a fresh worker and is not reported. Requests and results are the caller's
 * business; the runner only carries them.
 *
 * One pool may serve several frontends at once (runner_run_shared): each worker belongs to one
 * frontend for its whole life, the slots go to the frontends that still have jobs, and a frontend's
 * failure to start is its own.
 *
 * While it runs, the runner is a child subreaper (lib/proc.h): whatever a worker's descendants
 * leave behind, setsid daemons included, is killed when the worker ends and at the end of the
 * run. */
#ifndef FERRY_RUNNER_H
#define FERRY_RUNNER_H

#include <stdint.h>

#include "err.h"
#include "proc.h"

struct cJSON;

struct runner_opts {
	const char *const *argv;  /* the worker command (borrowed) */
	const char *const *env;   /* environment changes for workers, as in struct child_process */
	int jobs;                 /* how many workers */
	double timeout;           /* seconds a test may take */
	double start_timeout;     /* seconds a worker may take to become ready */
	uint64_t mem_limit;       /* bytes of resident memory a worker's process group may use; 0: none */
	size_t stderr_cap;        /* bytes of a worker's stderr kept per test */
};

struct runner_job {
	char *key;      /* owned: names the test (an instance id) */
	char *request;  /* owned: one JSON object, no newline */
};

enum runner_end {
	RUNNER_REPLY,    /* the worker answered: see reply */
	RUNNER_TIMEOUT,  /* the test outlived the timeout; the worker was killed */
	RUNNER_OOM,      /* the worker passed the memory limit; it was killed */
	RUNNER_DIED,     /* the worker died during the test (a fatal signal, an exit), or stopped
			  * (status.stopped; it was then killed) */
};

struct runner_outcome {
	enum runner_end end;
	const struct cJSON *reply;   /* RUNNER_REPLY: the result event (borrowed for the callback) */
	const char *stage;           /* the last stage the worker announced for this test, or NULL */
	struct proc_status status;   /* RUNNER_DIED: how the worker ended (never by ferry's signal);
				      * RUNNER_TIMEOUT, RUNNER_OOM: by ferry's kill, as a rule */
	const char *stderr_text;     /* what the worker wrote to stderr during this test (its tail) */
	const char *why;             /* RUNNER_DIED: NULL, or why ferry ended the worker itself (a result
				      * line longer than the protocol allows); status is then its kill */
	const char *version;         /* what the first ready worker announced, or NULL */
	double seconds;              /* from the request's write to the worker until its end */
	double queued;               /* before that: how long the job and a free worker of its
				      * frontend waited for each other to meet (the pool's latency) */
};

struct runner_callbacks {
	void *ctx;
	/* The next job: 1 and fills job, 0 when there are none left, -1 on error (the run stops); 2
	 * when there is none now but a job in flight may bring more (it is asked again, while a job
	 * is in flight: never return 2 when none is). */
	int (*next)(void *ctx, struct runner_job *job, struct err *e);
	/* A job's outcome. Return -1 to stop the run (e filled). The job is freed after the call. */
	int (*done)(void *ctx, const struct runner_job *job, const struct runner_outcome *o, struct err *e);
	/* Called about ten times a second while work goes on (may be NULL). */
	void (*tick)(void *ctx);
	/* May be NULL. When set, the caller chooses its jobs by the frontend's release: the workers
	 * start before the first next(), ready() gets the version the first ready worker announced
	 * (NULL if it said none), and next() is called only after that. (So a run with nothing to do
	 * starts its workers all the same: set it only when there is a job to come.) */
	void (*ready)(void *ctx, const char *version);
};

/* Run jobs until next() has no more and every job is done. *version (may be NULL) receives the
 * version the first ready worker announced (caller frees). A worker that cannot start (fatal event,
 * or death before ready) stops the run with EXIT_ENV and its message: the frontend is unavailable.
 * SIGINT or SIGTERM stops the run too: workers are killed, jobs in flight are not reported, and the
 * call returns -1 with EXIT_INTERRUPTED. */
int runner_run(const struct runner_opts *o, const struct runner_callbacks *cb, char **version, struct err *e);

/* One frontend of a shared pool: its workers' command and limits (opts.jobs is ignored), its
 * callbacks as for runner_run, and what the run gives back. */
struct runner_shared {
	struct runner_opts opts;
	struct runner_callbacks cb;
	char *version;    /* out: what its first ready worker announced, or NULL (caller frees) */
	struct err err;   /* out: why it stopped early (code EXIT_OK: it did not; caller releases) */
};

/* Run several frontends' jobs side by side on one pool of at most jobs workers, each worker
 * long-lived and of one frontend. The slots are shared out among the frontends that still have
 * jobs to come, in their order; when one runs out, its slots go to the others (no worker is ended
 * to make room, so none is restarted while its frontend has work). Each frontend's jobs go in its
 * next()'s order, as in runner_run. A frontend that cannot go on (a worker that cannot start, a
 * callback failing with EXIT_ENV) stops alone, as runner_run would have stopped for it: its jobs
 * in flight are not reported, and its err says why; the others go on. Any other failure, SIGINT or
 * SIGTERM stops them all (-1, e filled, EXIT_INTERRUPTED for a signal). */
int runner_run_shared(struct runner_shared *lanes, size_t n, int jobs, struct err *e);

/* Start one worker, wait until it is ready and stop it: *version receives what it announced (caller
 * frees), so that a caller knows which release a frontend is before it runs it. Fails as runner_run
 * does when the worker cannot start (EXIT_ENV with its message). */
int runner_version(const struct runner_opts *o, char **version, struct err *e);

/* Whether the run under way was told to stop (SIGINT or SIGTERM): for a callback that works long
 * enough on one job (ferry vary making a large parent's candidates) to look in the meantime. */
int runner_interrupted(void);

void runner_job_release(struct runner_job *job);

#endif
