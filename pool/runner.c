/* runner.c: the worker pool: one poll() loop over every worker's stdout and stderr, with deadlines
 * for tests and for start-up, and a memory watch.
 *
 * What a hostile frontend can do to its worker, and what the runner makes of it:
 *   - write garbage to the protocol stream: lines that are not events are kept as stderr text (under
 *     the stderr cap), and every event starts on a line of its own, so garbage without a newline
 *     cannot swallow the next event; a line longer than PROTO_LINE_MAX (protocol.h) is dropped,
 *     unless it is the worker's result, whose test then ends as a crash that says so;
 *   - close its streams: end of file on stdout is not the worker's death; its death (or the test's
 *     deadline) decides the outcome, so ferry never blames a test with a signal ferry sent;
 *   - stop itself: a worker stopped for STOP_GRACE seconds is killed, its test recorded with the
 *     stop signal;
 *   - die between tests: a test the worker never took (its status page, pool/status.h, names an
 *     earlier request) is handed to a fresh worker, never recorded;
 *   - leave descendants behind (setsid, double fork): the runner is a child subreaper while it
 *     runs, so they are reparented to it when their parents die, and it kills them whenever a
 *     worker ends and at the end of the run. */
#include "runner.h"
#include "protocol.h"
#include "status.h"
#include <time.h>
#include "xalloc.h"
#include "sandbox.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define KILL_GRACE_MS 500
#define MEM_CHECK_INTERVAL 0.1
#define MAX_START_FAILURES 3
/* A stop this long is not a debugger's or a profiler's passing pause. */
#define STOP_GRACE 1.0
/* How long killing the strays may wait for one stuck in the kernel. */
#define STRAY_WAIT_MS 2000

enum wstate { W_DEAD, W_STARTING, W_IDLE, W_BUSY };

struct worker {
	enum wstate state;
	struct child_process cp;
	struct buf out;              /* stdout bytes not yet forming a whole line */
	size_t out_scanned;          /* how many of them hold no newline: a long line is scanned once */
	bool out_eof;                /* the worker closed its stdout; its death is awaited */
	bool skip_line;              /* the line being read passed PROTO_LINE_MAX: dropped to its end */
	struct proc_capture errcap;  /* stderr of the current test */
	/* Stderr after the current test's end (PROTO_STDERR_MARK): the test behind's, which the worker
	 * began before ferry read the current one's result. marks: the ends read and not yet given
	 * to a result; matched: how much of the mark the last read ended in. */
	struct proc_capture errnext, raw;
	unsigned marks;
	size_t matched;
	struct runner_job job;
	/* The job written to the worker behind job, which it reads as soon as it has answered job:
	 * it never waits for ferry between tests. It becomes job when job's result comes; a worker
	 * that ends first never took it, and it goes to another. */
	struct runner_job next;
	uint64_t sent;               /* requests written to this worker process */
	uint64_t job_seq, next_seq;  /* the numbers of job and next among them */
	struct status status;        /* where the worker says what it has taken and its stage */
	double started;              /* when the test (or the start-up) began */
	double deadline;
	double stopped_since;        /* when the worker was first seen stopped; 0: running */
	double idle_since;           /* when it last became free */
	double queued;               /* how long its job waited for it (see assign) */
	const char *why;             /* why ferry ended it, for the job's outcome (runner_outcome.why) */
	struct lane *lane;           /* whose worker it is (while not W_DEAD) */
	int pollix;                  /* its stdout's index in this round's poll set, or -1 */
	/* Its own scratch directory, its TMPDIR, removed when it ends: a worker killed in a test
	 * (a signal, a timeout) leaves its temporary files, and a frontend's, there, not in /tmp. */
	char *tmpdir;
	int tmplock;                 /* its owner file, locked while the directory is in use */
	const char **env;            /* the lane's env and TMPDIR=tmpdir */
	char *tmpenv;
};

/* One frontend's part of the pool: its worker command, limits and callbacks, and its jobs. */
struct lane {
	const struct runner_opts *o;
	const struct runner_callbacks *cb;
	struct runner_job pending;   /* taken from next(), waiting for a free worker */
	double pending_since;        /* when next() gave it */
	struct runner_job *again;    /* jobs a worker ended before taking: handed out first */
	size_t nagain, again_cap;
	int no_more_jobs;
	int start_failures;
	int untaken;                 /* workers in a row that ended before taking their job */
	int ever_ready;
	int done;                    /* no job left and none in flight, or failed (err) */
	const char **env;            /* o->env, and where the status page is */
	char *version;
	struct err *err;             /* a shared pool's lane: where its own failure goes */
};

struct pool {
	struct worker *w;
	int n;
	struct lane *lanes;
	size_t nlanes;
	int version_only;            /* runner_version: one worker, until it is ready */
};

static volatile sig_atomic_t interrupted;

static double mono_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void on_signal(int sig)
{
	interrupted = sig;
}

int runner_interrupted(void)
{
	return interrupted != 0;
}

void runner_job_release(struct runner_job *job)
{
	free(job->key);
	free(job->request);
	job->key = NULL;
	job->request = NULL;
}

_Static_assert(STATUS_FD == PROC_PASSED_FD, "a worker looks for its status page where the runner puts it");

/* o->env with the status page's variable added (the strings borrowed). */
static const char **lane_env(const struct runner_opts *o)
{
	size_t n = 0;
	const char **env;

	while (o->env && o->env[n])
		n++;
	env = xcalloc(n + 2, sizeof(*env));
	for (size_t i = 0; i < n; i++)
		env[i] = o->env[i];
	env[n] = STATUS_ENV_SET;
	return env;
}

/* Make the worker's scratch directory (a sandbox one: a later ferry removes it should this one be
 * killed) and its environment: the lane's, with TMPDIR in it. */
static int worker_scratch(struct worker *w, struct lane *l, struct err *e)
{
	size_t n = 0;

	if (!l->env)
		l->env = lane_env(l->o);
	if (!(w->tmpdir = sandbox_scratch_new(&w->tmplock, e)))
		return -1;
	while (l->env[n])
		n++;
	w->env = xcalloc(n + 2, sizeof(*w->env));
	memcpy(w->env, l->env, n * sizeof(*w->env));
	w->tmpenv = xasprintf("TMPDIR=%s/tmp", w->tmpdir);
	w->env[n] = w->tmpenv;
	return 0;
}

/* Remove the scratch directory of a worker that has ended, and whatever is in it. */
static void worker_scratch_release(struct worker *w)
{
	struct err ignored = ERR_INIT;

	if (w->tmpdir)
		sandbox_scratch_remove(w->tmpdir, &ignored);
	if (w->tmplock >= 0)
		close(w->tmplock);
	err_release(&ignored);
	free(w->tmpdir);
	free(w->tmpenv);
	free(w->env);
	w->tmpdir = w->tmpenv = NULL;
	w->env = NULL;
	w->tmplock = -1;
}

/* A worker's stderr captures, empty: at its start, and each time one starts. */
static void stderr_init(struct worker *w, size_t cap)
{
	proc_capture_release(&w->errcap);
	proc_capture_release(&w->errnext);
	proc_capture_release(&w->raw);
	proc_capture_init(&w->errcap, cap);
	proc_capture_init(&w->errnext, cap);
	/* One read's whole burst, never dropped: routed a burst at a time. */
	proc_capture_init(&w->raw, 2 * PROC_CAPTURE_BURST);
	w->errcap.tail = w->errnext.tail = true;
	w->marks = 0;
	w->matched = 0;
}

static int worker_start(struct worker *w, struct lane *l, struct err *e)
{
	const struct runner_opts *o = l->o;
	int fd, r;

	w->lane = l;
	proc_init(&w->cp);
	status_release(&w->status);
	worker_scratch_release(w);
	if (status_create(&w->status, &fd, e) < 0 || worker_scratch(w, l, e) < 0)
		return err_prefix(e, "cannot start a worker");
	w->cp.argv = o->argv;
	w->cp.env = w->env;
	w->cp.in = PROC_PIPE;
	w->cp.out = PROC_PIPE;
	w->cp.err = PROC_PIPE;
	w->cp.kill_group_on_exit = true;
	w->cp.pass_fd = fd;
	r = proc_start(&w->cp, e);
	close(fd);
	if (r < 0)
		return err_prefix(e, "cannot start a worker");
	buf_reset(&w->out);
	w->out_scanned = 0;
	w->out_eof = false;
	w->skip_line = false;
	w->sent = w->job_seq = w->next_seq = 0;
	w->stopped_since = 0;
	stderr_init(w, o->stderr_cap);
	w->state = W_STARTING;
	w->started = mono_now();
	w->deadline = w->started + o->start_timeout;
	return 0;
}


/* Stderr bytes into the current test's capture, or past its end mark into the next's. */
static void route_stderr(struct worker *w, const char *p, size_t n)
{
	static const char mark[] = PROTO_STDERR_MARK;
	const size_t mlen = sizeof(mark) - 1;

	while (n) {
		struct proc_capture *to = w->marks ? &w->errnext : &w->errcap;
		const char *at;
		size_t run;

		if (w->matched) {
			/* Inside a mark that began in an earlier read, or at its start in this one. */
			if (*p == mark[w->matched]) {
				p++;
				n--;
				if (++w->matched == mlen) {
					w->matched = 0;
					w->marks++;
				}
				continue;
			}
			proc_capture_add(to, mark, w->matched);  /* not the mark after all: text */
			w->matched = 0;
			continue;
		}
		at = memchr(p, mark[0], n);
		run = at ? (size_t)(at - p) : n;
		proc_capture_add(to, p, run);
		p += run;
		n -= run;
		if (at) {
			w->matched = 1;
			p++;
			n--;
		}
	}
}

/* Drain what the worker's stderr holds now. */
static void drain_stderr(struct worker *w)
{
	struct err ignored = ERR_INIT;

	while (w->cp.fd_err >= 0 && !w->raw.eof) {
		buf_reset(&w->raw.buf);
		if (proc_capture_read(&w->raw, w->cp.fd_err, &ignored) < 0 || !w->raw.buf.len)
			break;
		route_stderr(w, w->raw.buf.data, w->raw.buf.len);
	}
	err_release(&ignored);
}


/* Kill and reap every child of ours that is not a live worker: what an ended worker left behind
 * (reparented to us, the subreaper), and the zombies of what its group kill ended. */
static void kill_strays(struct pool *p)
{
	pid_t *keep = xcalloc((size_t)p->n, sizeof(*keep));
	struct err ignored = ERR_INIT;
	size_t n = 0;

	for (int i = 0; i < p->n; i++)
		if (p->w[i].state != W_DEAD && p->w[i].cp.pid > 0 && !p->w[i].cp.reaped)
			keep[n++] = p->w[i].cp.pid;
	proc_kill_strays(keep, n, STRAY_WAIT_MS, NULL, &ignored);
	err_release(&ignored);
	free(keep);
}

/* End the worker (if it has not ended) and whatever it left behind; st (may be NULL) receives how
 * it ended: by itself, or by ferry's signals (st->by_parent). */
static void worker_stop(struct pool *p, struct worker *w, struct proc_status *st)
{
	struct err ignored = ERR_INIT;
	struct proc_status dummy;

	if (w->state != W_DEAD)
		proc_kill(&w->cp, KILL_GRACE_MS, st ? st : &dummy, &ignored);
	proc_release(&w->cp);
	err_release(&ignored);
	w->state = W_DEAD;
	kill_strays(p);
	worker_scratch_release(w);
}

static void forget_job(struct worker *w)
{
	runner_job_release(&w->job);
	w->job_seq = 0;
	w->stopped_since = 0;
	buf_reset(&w->errcap.buf);
	w->errcap.dropped = 0;
	/* The stderr read past the test's end is the next test's. */
	if (w->marks) {
		struct proc_capture t = w->errcap;

		w->errcap = w->errnext;
		w->errnext = t;
		w->marks--;
	}
}

/* Hand a job back, to go to the next free worker before any new one. */
static void again(struct lane *l, struct runner_job *job)
{
	if (l->nagain == l->again_cap) {
		l->again_cap = l->again_cap ? 2 * l->again_cap : 4;
		l->again = xrealloc(l->again, l->again_cap * sizeof(*l->again));
	}
	l->again[l->nagain++] = *job;
	job->key = NULL;
	job->request = NULL;
}

/* Hand jobs a and b (either may be NULL or empty) back, in that order. They came from next()
 * before the pending job: it goes behind them, so that a frontend's tests keep their order when
 * a worker ends. */
static void hand_back(struct lane *l, struct runner_job *a, struct runner_job *b)
{
	struct runner_job pending = l->pending;

	l->pending.key = NULL;
	l->pending.request = NULL;
	if (a && a->key)
		again(l, a);
	if (b && b->key)
		again(l, b);
	if (pending.key)
		again(l, &pending);
}

/* Report the current job of w with the given end, then free it. A job the worker ended without
 * taking is not the job's outcome: it goes back to be handed to a fresh worker. Workers that keep
 * ending before they take anything cannot run the frontend at all: after MAX_START_FAILURES in a
 * row the run stops, as when workers cannot start. */
static int finish_job(struct worker *w, enum runner_end end, const cJSON *reply, const struct proc_status *st,
		      struct err *e)
{
	struct lane *l = w->lane;
	struct runner_outcome out;
	char stage[STATUS_STAGE_MAX];
	/* A reply is the job's; else the page says whether the worker had read the job's request. */
	int taken = status_read(&w->status, stage) >= w->job_seq || end == RUNNER_REPLY;
	int r;

	drain_stderr(w);
	if (taken)
		l->untaken = 0;
	if (!taken) {
		if (++l->untaken >= MAX_START_FAILURES) {
			struct buf why = BUF_INIT;

			buf_addf(&why, "%d workers in a row ended before they took a test (the last: ", l->untaken);
			if (end == RUNNER_TIMEOUT)
				buf_adds(&why, "it did not take it in time");
			else if (end == RUNNER_OOM)
				buf_adds(&why, "it passed the memory limit");
			else if (st)
				proc_status_describe(st, &why);
			buf_adds(&why, ")");
			err_set(e, EXIT_ENV, "%s", why.data);
			if (w->errcap.buf.len)
				err_set_detail(e, xstrdup(w->errcap.buf.data));
			buf_release(&why);
			forget_job(w);
			return -1;
		}
		hand_back(l, &w->job, &w->next);
		forget_job(w);
		return 0;
	}
	/* The worker ended: the job behind this one was never its. */
	if (end != RUNNER_REPLY && w->next.key)
		hand_back(l, &w->next, NULL);
	memset(&out, 0, sizeof(out));
	out.end = end;
	out.reply = reply;
	out.stage = *stage ? stage : NULL;
	if (st)
		out.status = *st;
	out.stderr_text = w->errcap.buf.data;
	out.why = w->why;
	w->why = NULL;
	out.version = l->version;
	out.seconds = mono_now() - w->started;
	out.queued = w->queued;
	r = l->cb->done(l->cb->ctx, &w->job, &out, e);
	forget_job(w);
	return r;
}

/* The worker ended before being ready: the frontend cannot be used. */
static int start_failed(struct worker *w, const char *why, struct err *e)
{
	const char *tail = w->errcap.buf.data;
	struct lane *l = w->lane;

	l->start_failures++;
	if (l->ever_ready && l->start_failures < MAX_START_FAILURES)
		return 0; /* a passing fault: the next job starts another */
	err_set(e, EXIT_ENV, "%s", why);
	if (tail && *tail)
		err_set_detail(e, xstrdup(tail));
	return -1;
}

static int handle_line(struct pool *p, struct worker *w, const char *line, struct err *e)
{
	cJSON *j = cJSON_Parse(line);
	const cJSON *ev = j ? cJSON_GetObjectItemCaseSensitive(j, PROTO_KEY_EVENT) : NULL;
	int r = 0;

	if (!cJSON_IsString(ev)) {
		/* Not ours: a library wrote to the protocol stream after all. Keep it as stderr text.
		 * The empty lines are the worker's own, before each event. */
		if (*line) {
			proc_capture_add(&w->errcap, line, strlen(line));
			proc_capture_add(&w->errcap, "\n", 1);
		}
		goto out;
	}
	if (!strcmp(ev->valuestring, PROTO_EVENT_READY) && w->state == W_STARTING) {
		const cJSON *v = cJSON_GetObjectItemCaseSensitive(j, PROTO_KEY_VERSION);

		struct lane *l = w->lane;

		if (!l->version && cJSON_IsString(v))
			l->version = xstrdup(v->valuestring);
		if (!l->ever_ready && l->cb->ready)
			l->cb->ready(l->cb->ctx, l->version);
		l->ever_ready = 1;
		l->start_failures = 0;
		w->state = W_IDLE;
		w->idle_since = mono_now();
		buf_reset(&w->errcap.buf);
	} else if (!strcmp(ev->valuestring, PROTO_EVENT_FATAL)) {
		const cJSON *m = cJSON_GetObjectItemCaseSensitive(j, PROTO_KEY_MESSAGE);
		char *why = xstrdup(cJSON_IsString(m) ? m->valuestring : "the worker could not start");

		worker_stop(p, w, NULL);
		r = start_failed(w, why, e);
		free(why);
	} else if (!strcmp(ev->valuestring, PROTO_EVENT_RESULT) && w->state == W_BUSY) {
		w->state = W_IDLE;
		w->idle_since = mono_now();
		r = finish_job(w, RUNNER_REPLY, j, NULL, e);
		if (r == 0 && w->next.key) {
			/* The worker goes straight on to the job behind: it is now its test. */
			w->job = w->next;
			w->job_seq = w->next_seq;
			w->next.key = NULL;
			w->next.request = NULL;
			w->state = W_BUSY;
			w->started = w->idle_since;
			w->queued = 0;
			w->deadline = w->started + w->lane->o->timeout;
		}
	}
out:
	cJSON_Delete(j);
	return r;
}

/* The worker ended (by itself) during its test. */
static int worker_died(struct pool *p, struct worker *w, const struct proc_status *st, struct err *e)
{
	drain_stderr(w);
	worker_stop(p, w, NULL);
	return finish_job(w, RUNNER_DIED, NULL, st, e);
}

/* Give a worker whose stdout ended a moment to finish exiting, so that the status reported is its
 * own and not that of ferry's SIGTERM. */
static void settle(struct worker *w)
{
	struct err ignored = ERR_INIT;
	struct timespec nap = { 0, 1000000 };
	double until = mono_now() + 0.2;

	while (proc_try_wait(&w->cp, NULL, &ignored) == 0 && mono_now() < until)
		nanosleep(&nap, NULL);
	err_release(&ignored);
}

/* How a result event's line starts (worker.c prints the event's name first). */
static const char result_start[] = "{\"" PROTO_KEY_EVENT "\":\"" PROTO_EVENT_RESULT "\"";

/* Read the worker's stdout; handle each whole line. End of file during a test is not yet a death:
 * a frontend may close the worker's descriptors and go on (or hang). The test ends when the worker
 * does, or at its deadline, as any other; killing the worker here would record ferry's own SIGTERM
 * as the test's crash. */
static int read_stdout(struct pool *p, struct worker *w, struct err *e)
{
	char chunk[65536];
	ssize_t n = read(w->cp.fd_out, chunk, sizeof(chunk));
	char *nl;

	if (n < 0)
		return errno == EINTR || errno == EAGAIN ? 0 : err_errno(e, EXIT_ENV, "cannot read from a worker");
	if (n == 0) {
		struct proc_status st;
		struct err ignored = ERR_INIT;
		enum wstate was = w->state;
		int ended;

		drain_stderr(w);
		if (was == W_BUSY) {
			ended = proc_try_wait(&w->cp, &st, &ignored);
			err_release(&ignored);
			if (ended == 1)
				return worker_died(p, w, &st, e);
			w->out_eof = true;
			return 0;
		}
		if (was == W_STARTING)
			settle(w);
		worker_stop(p, w, &st);
		if (was == W_STARTING) {
			struct buf why = BUF_INIT;
			int r;

			buf_adds(&why, "the worker ended before it was ready (");
			proc_status_describe(&st, &why);
			buf_adds(&why, ")");
			r = start_failed(w, why.data, e);
			buf_release(&why);
			return r;
		}
		return 0;
	}
	buf_add(&w->out, chunk, (size_t)n);
	while (w->state != W_DEAD &&
	       (nl = memchr(w->out.data + w->out_scanned, '\n', w->out.len - w->out_scanned))) {
		size_t len = (size_t)(nl - w->out.data);
		char *line = xstrndup(w->out.data, len);
		int r = 0;

		memmove(w->out.data, nl + 1, w->out.len - len - 1);
		w->out.len -= len + 1;
		w->out.data[w->out.len] = '\0';
		w->out_scanned = 0;
		if (w->skip_line) {
			/* The end of an overlong line: garbage like its start. */
			proc_capture_add(&w->errcap, line, strlen(line));
			proc_capture_add(&w->errcap, "\n", 1);
			w->skip_line = false;
		} else {
			r = handle_line(p, w, line, e);
		}
		free(line);
		if (r < 0)
			return -1;
	}
	if (w->state == W_DEAD)
		return 0;
	w->out_scanned = w->out.len;
	if (w->out.len > PROTO_LINE_MAX && w->state == W_BUSY && !w->skip_line &&
	    !strncmp(w->out.data, result_start, strlen(result_start))) {
		/* The worker's own result, too long to be read (its worker cuts what a frontend says, so
		 * only a result of another kind gets here): the test ends now, a crash that says so,
		 * rather than when its timeout finds no result. */
		struct proc_status st;

		buf_reset(&w->out);
		w->out_scanned = 0;
		worker_stop(p, w, &st);
		w->why = "the worker's result is longer than the protocol's line limit (" PROTO_LINE_MAX_TEXT ")";
		return finish_job(w, RUNNER_DIED, NULL, &st, e);
	}
	if (w->out.len > PROTO_LINE_MAX) {
		/* No event is this long: a frontend writing without newlines must not grow ferry. */
		proc_capture_add(&w->errcap, w->out.data, w->out.len);
		buf_reset(&w->out);
		w->out_scanned = 0;
		w->skip_line = true;
	}
	return 0;
}

/* A request larger than the pipe waits for the worker to read it, which a busy worker does once it
 * is done with its test: told to stop meanwhile (the signal interrupts the write), the runner gives
 * up the request rather than wait on a test that may take minutes, as vary's candidates of a parent
 * of 200,000 inputs (11 MB each) do. */
static int write_all(int fd, const char *s, size_t n)
{
	while (n > 0) {
		ssize_t k;

		if (interrupted)
			return -1;
		k = write(fd, s, n);
		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0)
			return -1;
		s += k;
		n -= (size_t)k;
	}
	return 0;
}

static int busy(const struct pool *p, const struct lane *l);

/* Write job's request to w, which numbers it (*seq) among the requests it reads. */
static void send_job(struct worker *w, const struct runner_job *job, uint64_t *seq)
{
	*seq = ++w->sent;
	if (w->cp.fd_in >= 0 && (write_all(w->cp.fd_in, job->request, strlen(job->request)) < 0 ||
				 write_all(w->cp.fd_in, "\n", 1) < 0)) {
		/* The worker is gone; reading its stdout will report how it ended. */
		close(w->cp.fd_in);
		w->cp.fd_in = -1;
	}
}

/* No worker of lane l is free: the pending job goes (1) behind the test of the busy worker that has
 * had its test longest, so that the worker takes it the moment it answers, without waiting for
 * ferry to read the answer and write the next request (two wake-ups per test, on a loaded machine
 * each a wait for a core). */
static int queue_behind(struct pool *p, struct lane *l)
{
	struct worker *w = NULL;

	for (int i = 0; i < p->n; i++) {
		struct worker *c = &p->w[i];

		if (c->lane == l && c->state == W_BUSY && !c->next.key && c->cp.fd_in >= 0 && !c->out_eof &&
		    (!w || c->started < w->started))
			w = c;
	}
	if (!w)
		return 0;
	w->next = l->pending;
	l->pending.key = NULL;
	l->pending.request = NULL;
	send_job(w, &w->next, &w->next_seq);
	return 1;
}

/* Whether lane l has jobs to come (a lane whose last tests are in flight has none). */
static int wants(const struct lane *l)
{
	return !l->done && !(l->no_more_jobs && !l->pending.key && !l->nagain);
}

/* How many workers lane l may keep alive: the slots shared out among the lanes that still have
 * work, in their order (a lane left without a slot waits for one to finish). A lane that runs out
 * gives its slots to the others; a worker is never ended to make room, so none is restarted. */
static int share(const struct pool *p, const struct lane *l)
{
	size_t active = 0, rank = 0;

	for (size_t i = 0; i < p->nlanes; i++) {
		if (&p->lanes[i] == l)
			rank = active;
		active += wants(&p->lanes[i]);
	}
	if (!wants(l) || !active)
		return 0;
	return p->n / (int)active + ((int)rank < p->n % (int)active);
}

/* Start workers of lane l in free slots, up to its share. */
static int grow(struct pool *p, struct lane *l, struct err *e)
{
	int have = 0, want = share(p, l);

	for (int i = 0; i < p->n; i++)
		have += p->w[i].state != W_DEAD && p->w[i].lane == l;
	for (int i = 0; i < p->n && have < want; i++)
		if (p->w[i].state == W_DEAD) {
			if (worker_start(&p->w[i], l, e) < 0)
				return -1;
			have++;
		}
	return 0;
}

/* Give lane l's idle workers jobs. Workers are started only once there is a job for them, so a
 * resumed run with nothing left to do imports no library (unless the caller asked for the release
 * first). A lane with no job left and none in flight is done: its workers end, and their slots go
 * to the lanes that still have work. */
static int assign(struct pool *p, struct lane *l, struct err *e)
{
	if (l->done)
		return 0;
	if (p->version_only)
		return l->ever_ready || p->w[0].state != W_DEAD ? 0 : worker_start(&p->w[0], l, e);
	if (l->cb->ready && !l->ever_ready)
		/* The caller waits for the release before it chooses a job. */
		return grow(p, l, e);
	for (;;) {
		struct worker *idle = NULL;

		if (!l->pending.key && l->nagain) {
			l->pending = l->again[0];
			l->pending_since = mono_now();
			memmove(l->again, l->again + 1, --l->nagain * sizeof(*l->again));
		}
		if (!l->pending.key && !l->no_more_jobs) {
			int r = l->cb->next(l->cb->ctx, &l->pending, e);

			if (r < 0)
				return -1;
			l->pending_since = mono_now();
			if (r == 0 || (r == 2 && !busy(p, l)))
				l->no_more_jobs = 1;
		}
		if (!l->pending.key) {
			if (l->no_more_jobs && p->nlanes > 1) {
				/* Its idle workers would hold slots that the other lanes can use. */
				for (int i = 0; i < p->n; i++)
					if (p->w[i].lane == l && p->w[i].state == W_IDLE)
						worker_stop(p, &p->w[i], NULL);
				l->done = !busy(p, l);
			}
			return 0;
		}
		for (int i = 0; i < p->n && !idle; i++)
			if (p->w[i].state == W_IDLE && p->w[i].lane == l)
				idle = &p->w[i];
		if (!idle) {
			if (grow(p, l, e) < 0)
				return -1;
			if (queue_behind(p, l))
				continue;
			return 0;
		}
		idle->job = l->pending;
		idle->stopped_since = 0;
		l->pending.key = NULL;
		l->pending.request = NULL;
		idle->state = W_BUSY;
		idle->started = mono_now();
		/* The job's wait from when both it and this worker were there: a job that waits for a
		 * worker to start (its imports) or for a slot another frontend holds waits for no
		 * overhead of ferry's. */
		idle->queued = idle->started -
			       (l->pending_since > idle->idle_since ? l->pending_since : idle->idle_since);
		idle->deadline = idle->started + l->o->timeout;
		buf_reset(&idle->errcap.buf);
		idle->errcap.dropped = 0;
		send_job(idle, &idle->job, &idle->job_seq);
	}
}

/* A failure in lane l. In a shared pool, a lane that cannot go on (its frontend unavailable:
 * EXIT_ENV) stops alone, as a run of that frontend alone would have stopped: its workers are
 * killed, its jobs in flight and waiting are not reported, and the error is the lane's. Anything
 * else, and any failure of a pool of one lane, stops the pool: -1. */
static int lane_failed(struct pool *p, struct lane *l, struct err *e)
{
	if (!l->err || e->code != EXIT_ENV)
		return -1;
	*l->err = *e;
	err_init(e);
	for (int i = 0; i < p->n; i++)
		if (p->w[i].lane == l) {
			worker_stop(p, &p->w[i], NULL);
			forget_job(&p->w[i]);
			runner_job_release(&p->w[i].next);
		}
	runner_job_release(&l->pending);
	for (size_t i = 0; i < l->nagain; i++)
		runner_job_release(&l->again[i]);
	l->nagain = 0;
	l->done = 1;
	return 0;
}

/* Kill worker w if it is past its deadline or memory limit, reporting its test. */
/* Read what a worker left in its stdout before it ended or passed its deadline, without waiting:
 * a descendant holding the pipe open must not hold the runner, nor one writing without end (the
 * reads stop after a line's limit and a little more). It stops once the worker is no longer busy
 * with the same job. */
static int drain_stdout(struct pool *p, struct worker *w, struct err *e)
{
	struct pollfd pfd = { .fd = w->cp.fd_out, .events = POLLIN };
	uint64_t seq = w->job_seq;

	for (size_t reads = 0; reads < PROTO_LINE_MAX / 65536 + 2; reads++) {
		if (w->state != W_BUSY || w->job_seq != seq || w->out_eof || w->cp.fd_out < 0 ||
		    poll(&pfd, 1, 0) != 1)
			break;
		if (read_stdout(p, w, e) < 0)
			return -1;
	}
	return 0;
}

static int watch(struct pool *p, struct worker *w, double now, int check_mem, struct err *e)
{
	struct proc_status st, stop;
	uint64_t rss = 0;
	struct err ignored = ERR_INIT;
	int died;

	if (w->state == W_STARTING && now > w->deadline) {
		worker_stop(p, w, &st);
		return start_failed(w, "the worker did not become ready in time (importing its libraries)", e);
	}
	if (w->state != W_BUSY)
		return 0;
	/* Death first: a worker that ended on its own just before its deadline ended that way,
	 * and a grandchild holding the worker's stdout would hide its death from read(). */
	died = proc_try_wait(&w->cp, &st, &ignored);
	err_release(&ignored);
	if (died == 1) {
		/* What it wrote before it ended comes first: the job's result may be in the pipe, and
		 * the death then belongs to the job behind it, which the worker had gone on to. */
		uint64_t seq = w->job_seq;

		if (drain_stdout(p, w, e) < 0)
			return -1;
		while (w->state == W_BUSY && w->job_seq != seq) {
			/* The job behind has its result there too, or it is the one the worker died in. */
			seq = w->job_seq;
			if (drain_stdout(p, w, e) < 0)
				return -1;
		}
		return w->state == W_BUSY ? worker_died(p, w, &st, e) : 0;
	}
	if (now > w->deadline) {
		/* A result that came just now, unread, is the job's, not a timeout. */
		if (drain_stdout(p, w, e) < 0)
			return -1;
		if (w->state != W_BUSY || now <= w->deadline)
			return 0;
		worker_stop(p, w, &st);
		return finish_job(w, RUNNER_TIMEOUT, NULL, &st, e);
	}
	if (proc_stopped(&w->cp, &stop, &ignored) == 1) {
		if (!w->stopped_since)
			w->stopped_since = now;
		if (now - w->stopped_since >= STOP_GRACE) {
			worker_stop(p, w, NULL);
			err_release(&ignored);
			return finish_job(w, RUNNER_DIED, NULL, &stop, e);
		}
	} else {
		w->stopped_since = 0;
	}
	err_release(&ignored);
	if (!check_mem || !w->lane->o->mem_limit)
		return 0;
	if (proc_group_rss(w->cp.pid, &rss, NULL, &ignored) == 0 && rss > w->lane->o->mem_limit) {
		err_release(&ignored);
		worker_stop(p, w, &st);
		return finish_job(w, RUNNER_OOM, NULL, &st, e);
	}
	err_release(&ignored);
	return 0;
}

static int busy(const struct pool *p, const struct lane *l)
{
	for (int i = 0; i < p->n; i++)
		if (p->w[i].state == W_BUSY && (!l || p->w[i].lane == l))
			return 1;
	return 0;
}

/* Whether every lane is through: no job waiting and none in flight. */
static int all_done(const struct pool *p)
{
	for (size_t i = 0; i < p->nlanes; i++) {
		const struct lane *l = &p->lanes[i];

		if (!l->done && !(l->no_more_jobs && !l->pending.key && !l->nagain && !busy(p, l)))
			return 0;
	}
	return 1;
}

static int loop(struct pool *p, struct err *e)
{
	struct pollfd *fds = xcalloc((size_t)p->n * 2, sizeof(*fds));
	double last_mem = 0, last_tick = 0;
	int r = -1;

	for (;;) {
		double now, wait = MEM_CHECK_INTERVAL;
		int nfds = 0, check_mem;

		if (interrupted) {
			err_set(e, EXIT_INTERRUPTED, "interrupted");
			goto out;
		}
		for (size_t i = 0; i < p->nlanes; i++)
			if (assign(p, &p->lanes[i], e) < 0 && lane_failed(p, &p->lanes[i], e) < 0)
				goto out;
		if (p->version_only && p->lanes[0].ever_ready) {
			r = 0;
			goto out;
		}
		if (all_done(p)) {
			r = 0;
			goto out;
		}
		now = mono_now();
		for (int i = 0; i < p->n; i++) {
			struct worker *w = &p->w[i];

			w->pollix = -1;
			if (w->state == W_DEAD)
				continue;
			w->pollix = nfds;
			if (w->deadline - now < wait)
				wait = w->deadline - now;
			/* Its stdout ended: its death is due any moment, and poll will not tell. */
			if (w->out_eof && wait > 0.005)
				wait = 0.005;
			fds[nfds++] = (struct pollfd){ .fd = w->out_eof ? -1 : w->cp.fd_out, .events = POLLIN };
			fds[nfds++] = (struct pollfd){ .fd = w->raw.eof ? -1 : w->cp.fd_err, .events = POLLIN };
		}
		if (wait < 0)
			wait = 0;
		if (poll(fds, (nfds_t)nfds, (int)(wait * 1000) + 1) < 0 && errno != EINTR) {
			err_errno(e, EXIT_ENV, "poll");
			goto out;
		}
		for (int i = 0; i < p->n; i++) {
			struct worker *w = &p->w[i];
			int k = w->pollix;

			/* By its index of this round: a lane that failed may have ended workers after it. */
			if (k < 0 || w->state == W_DEAD)
				continue;
			if (fds[k + 1].revents)
				drain_stderr(w);
			if (fds[k].revents && w->state != W_DEAD && read_stdout(p, w, e) < 0 &&
			    lane_failed(p, w->lane, e) < 0)
				goto out;
		}
		now = mono_now();
		check_mem = now - last_mem >= MEM_CHECK_INTERVAL;
		for (int i = 0; i < p->n; i++)
			if (p->w[i].state != W_DEAD && watch(p, &p->w[i], now, check_mem, e) < 0 &&
			    lane_failed(p, p->w[i].lane, e) < 0)
				goto out;
		if (check_mem)
			last_mem = now;
		if (now - last_tick >= 0.1) {
			for (size_t i = 0; i < p->nlanes; i++)
				if (p->lanes[i].cb->tick)
					p->lanes[i].cb->tick(p->lanes[i].cb->ctx);
			last_tick = now;
		}
	}
out:
	free(fds);
	return r;
}

static int run_pool(struct lane *lanes, size_t nlanes, int jobs, int version_only, struct err *e)
{
	struct proc_signals saved;
	struct err ignored = ERR_INIT;
	struct pool p;
	bool was_subreaper = false;
	int r, subreaper;

	memset(&p, 0, sizeof(p));
	p.lanes = lanes;
	p.nlanes = nlanes;
	p.n = jobs > 0 && !version_only ? jobs : 1;
	p.version_only = version_only;
	p.w = xcalloc((size_t)p.n, sizeof(*p.w));
	for (int i = 0; i < p.n; i++) {
		p.w[i].state = W_DEAD;
		p.w[i].tmplock = -1;
		proc_init(&p.w[i].cp);
		buf_init(&p.w[i].out);
		stderr_init(&p.w[i], lanes[0].o->stderr_cap);
	}

	interrupted = 0;
	sandbox_scratch_clean(); /* the workers' of a ferry that was killed */
	proc_catch_signals(on_signal, &saved);
	/* Without it (an old kernel), descendants that leave the worker's group still escape. */
	subreaper = proc_set_subreaper(true, &was_subreaper, &ignored) == 0;
	err_release(&ignored);

	r = loop(&p, e);

	for (int i = 0; i < p.n; i++)
		worker_stop(&p, &p.w[i], NULL);
	for (int i = 0; i < p.n; i++) {
		runner_job_release(&p.w[i].job);
		runner_job_release(&p.w[i].next);
		status_release(&p.w[i].status);
		buf_release(&p.w[i].out);
		proc_capture_release(&p.w[i].errcap);
		proc_capture_release(&p.w[i].errnext);
		proc_capture_release(&p.w[i].raw);
	}
	if (subreaper)
		proc_set_subreaper(was_subreaper, NULL, &ignored);
	err_release(&ignored);
	for (size_t k = 0; k < nlanes; k++) {
		runner_job_release(&lanes[k].pending);
		for (size_t i = 0; i < lanes[k].nagain; i++)
			runner_job_release(&lanes[k].again[i]);
		free(lanes[k].again);
		free(lanes[k].env);
	}
	free(p.w);
	proc_restore_signals(&saved, 1);
	return r;
}

int runner_run(const struct runner_opts *o, const struct runner_callbacks *cb, char **version, struct err *e)
{
	struct lane l;
	int r;

	memset(&l, 0, sizeof(l));
	l.o = o;
	l.cb = cb;
	r = run_pool(&l, 1, o->jobs, 0, e);
	if (version)
		*version = l.version;
	else
		free(l.version);
	return r;
}

int runner_run_shared(struct runner_shared *lanes, size_t n, int jobs, struct err *e)
{
	struct lane *l = xcalloc(n ? n : 1, sizeof(*l));
	int r;

	for (size_t i = 0; i < n; i++) {
		l[i].o = &lanes[i].opts;
		l[i].cb = &lanes[i].cb;
		l[i].err = &lanes[i].err;
		err_init(&lanes[i].err);
		lanes[i].version = NULL;
	}
	r = n ? run_pool(l, n, jobs, 0, e) : 0;
	for (size_t i = 0; i < n; i++)
		lanes[i].version = l[i].version;
	free(l);
	return r;
}

int runner_version(const struct runner_opts *o, char **version, struct err *e)
{
	struct runner_callbacks none = { NULL, NULL, NULL, NULL, NULL };
	struct lane l;
	int r;

	memset(&l, 0, sizeof(l));
	l.o = o;
	l.cb = &none;
	*version = NULL;
	r = run_pool(&l, 1, 1, 1, e);
	*version = l.version;
	return r;
}
