/* harvest.c: the harvest engine (harvest.h): children that run a library's tests, the channel they
 * speak over, and the merging and counting of what they record. */
#define _GNU_SOURCE
#include "py.h"

#include <cjson/cJSON.h>
#include <dirent.h>
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "esc.h"
#include "fsutil.h"
#include "harvest.h"
#include "home.h"
#include "libraries.h"
#include "proc.h"
#include "protocol.h"
#include "record.h"
#include "sandbox.h"
#include "xalloc.h"

/* Time a child may spend outside any test (importing the libraries, collecting the tests) before it
 * is taken to hang: the test timeout when that is longer. Short test timeouts must not cut start-up
 * short. */
#define OUTSIDE_TIMEOUT HARVEST_DEFAULT_TIMEOUT
/* Time a child is given to end on SIGTERM before SIGKILL. */
#define KILL_GRACE_MS 2000
/* Longest channel line: a record with the values of its tensors is far below. */
#define MAX_LINE (256u << 20)
/* How long the processes a child's tests left behind get to be reaped once it is gone. */
#define STRAY_WAIT_MS 1000
/* Children in a row that may end before their first test before the harvest gives up. */
#define MAX_STARTUP_DEATHS 2
/* What the tests write to their standard error is shown line by line, escaped: a line is cut after
 * this many bytes, and after this many bytes in all the rest of a harvest's is counted, not shown. */
#define OUTPUT_LINE_MAX 4096
#define OUTPUT_MAX (1u << 20)

/* How much of what the tests wrote to their standard error has been shown, and how much was not. */
struct output {
	size_t shown;
	uint64_t dropped;
};

/* What every child of one harvest runs, and where what they record goes. */
struct session {
	struct harvest *h;
	const struct harvest_opts *o;
	char **pytest;          /* absolute: the child runs elsewhere (owned) */
	char *self;             /* this executable (owned) */
	struct sandbox sb;      /* sb.bwrap NULL: no sandbox */
	struct output *output;
};

static void counts_add(struct harvest_counts *c, const char *key, long v)
{
	for (size_t i = 0; i < c->n; i++)
		if (!strcmp(c->keys[i], key)) {
			c->vals[i] += v;
			return;
		}
	XGROW(c->keys, c->cap, c->n + 1);
	XGROW(c->vals, c->vcap, c->n + 1);
	c->keys[c->n] = xstrdup(key);
	c->vals[c->n++] = v;
}

static void counts_release(struct harvest_counts *c)
{
	for (size_t i = 0; i < c->n; i++)
		free(c->keys[i]);
	free(c->keys);
	free(c->vals);
	memset(c, 0, sizeof(*c));
}

static struct harvest_suite *suite_of(struct harvest *h, const struct instance *in)
{
	const cJSON *src = in->extra ? cJSON_GetObjectItemCaseSensitive(in->extra, "source") : NULL;
	const cJSON *name = src ? cJSON_GetObjectItemCaseSensitive(src, "suite") : NULL;
	struct strmap_entry *e = strmap_get(&h->suites, cJSON_IsString(name) ? name->valuestring : "-", NULL);

	if (!e->ptr) {
		struct harvest_suite *s = xcalloc(1, sizeof(*s));

		strmap_init(&s->ops);
		strmap_init(&s->why);
		e->ptr = s;
	}
	return e->ptr;
}

/* Say msg through the caller's hook. */
static void warn(const struct session *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void warn(const struct session *s, const char *fmt, ...)
{
	struct buf msg = BUF_INIT;
	va_list ap;

	if (!s->o->warn)
		return;
	va_start(ap, fmt);
	buf_vaddf(&msg, fmt, ap);
	va_end(ap);
	s->o->warn(s->o->ctx, msg.data);
	buf_release(&msg);
}

/* Seconds on a monotonic clock. */
static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int on_emit(const struct session *ss, const char *json, size_t len, struct err *e)
{
	struct harvest *h = ss->h;
	struct instance in;
	struct err bad = ERR_INIT;
	struct strmap_entry *seen;
	struct harvest_suite *s;
	int created;

	if (record_parse(&in, json, len, &bad) < 0) {
		/* A record the instrumentation should not have made: count it and say why, once per reason. */
		struct strmap_entry *r = strmap_get(&h->skipped, "the instrumentation made a malformed record", NULL);

		if (!r->count++)
			warn(ss, "malformed record from the instrumentation: %s", bad.msg);
		h->bad_records++;
		err_release(&bad);
		return 0;
	}
	seen = strmap_get(&h->ids, in.id, &created);
	seen->count++;
	/* Left out after the id is known, so that an instance seen again is counted once. */
	if (select_any(ss->o->select) && !select_instance(ss->o->select, &in)) {
		h->left_out += created;
		record_release(&in);
		return 0;
	}
	s = suite_of(h, &in);
	if (!created) {
		h->merged++;
		s->merged++;
		record_release(&in);
		return 0;
	}
	h->instances++;
	s->instances++;
	strmap_get(&h->ops, in.op, NULL)->count++;
	strmap_get(&s->ops, in.op, NULL)->count++;
	if (in.unmigratable) {
		const cJSON *why = cJSON_GetObjectItemCaseSensitive(in.extra, "unmigratable");

		h->unmigratable++;
		s->unmigratable++;
		strmap_get(&s->why, cJSON_IsString(why) ? why->valuestring : "an opaque value", NULL)->count++;
	}
	buf_reset(&h->line);
	record_write(&in, &h->line);
	buf_addc(&h->line, '\n');
	record_release(&in);
	if (fwrite(h->line.data, 1, h->line.len, ss->o->out) != h->line.len)
		return err_errno(e, EXIT_ENV, "cannot write '%s'", ss->o->out_name);
	return 0;
}

/* One harvest child, from its start to its end. */
struct child {
	struct child_process cp;
	char *scratch;
	int lock;               /* the scratch directory's owner lock */
	struct buf err;         /* what it wrote to stderr that is not yet a whole line */
	bool err_cut;           /* the line in err was too long: the rest of it is dropped */
	size_t err_dropped;     /* bytes of that line dropped so far */
	struct buf in;          /* what the channel said that is not yet a whole line */
	long open;              /* the test that has started and not finished, or -1 */
	char *open_name;
	long sample;            /* of it, the sample that started last in this child, or -1 */
	char *sample_name;
	long started;           /* tests it started */
	long next;              /* the test after its last finished one */
	int fail_code;          /* from "fail N": the harvest itself failed; -1 before */
	bool ended;             /* "end" came: the harvest is complete */
	bool corrupt;           /* the channel carried something that ferry does not say */
	struct harvest_counts counts;   /* its latest counts */
	double deadline;
};

static volatile sig_atomic_t interrupted;

static double outside_timeout(const struct session *s)
{
	return s->o->timeout > OUTSIDE_TIMEOUT ? s->o->timeout : OUTSIDE_TIMEOUT;
}

static void on_signal(int sig)
{
	interrupted = sig;
}

/* The child's counts so far: the whole set, each time. */
static int take_counts(struct child *c, const cJSON *j)
{
	const cJSON *item;

	if (!cJSON_IsObject(j))
		return -1;
	counts_release(&c->counts);
	cJSON_ArrayForEach(item, j) {
		if (item->string && cJSON_IsNumber(item))
			counts_add(&c->counts, item->string, (long)item->valuedouble);
	}
	return 0;
}

static int is_word(const char *line, size_t wlen, const char *word)
{
	return wlen == strlen(word) && !memcmp(line, word, wlen);
}

/* One line of the channel (see extract/channel.py). Returns 0, 1 when the line is not one
 * that ferry.extract.channel makes (a test wrote to the channel), -1 when this side fails (e filled). */
static int on_line(const struct session *s, struct child *c, char *line, size_t len,
		   struct err *e)
{
	char *payload = memchr(line, ' ', len);
	size_t wlen, plen;
	cJSON *j = NULL, *a, *b, *d;
	int r = 1;

	if (!payload)
		return 1;
	wlen = (size_t)(payload - line);
	payload++;
	plen = len - wlen - 1;
	if (is_word(line, wlen, PROTO_CH_EMIT))
		return on_emit(s, payload, plen, e);
	if (is_word(line, wlen, PROTO_CH_FAIL)) {
		c->fail_code = atoi(payload);
		return c->fail_code > 0 ? 0 : 1;
	}
	if (!(j = cJSON_ParseWithLength(payload, plen)))
		return 1;
	a = cJSON_GetArrayItem(j, 0);
	b = cJSON_GetArrayItem(j, 1);
	d = cJSON_GetArrayItem(j, 2);
	if (is_word(line, wlen, PROTO_CH_SKIP)) {
		if (cJSON_IsString(a) && cJSON_IsString(b)) {
			strmap_get(&s->h->skipped, a->valuestring, NULL)->count++;
			r = 0;
		}
	} else if (is_word(line, wlen, PROTO_CH_PROGRESS)) {
		if (cJSON_IsNumber(a) && cJSON_IsNumber(b) && cJSON_IsString(d)) {
			if (s->o->progress)
				s->o->progress(s->o->ctx, (long)a->valuedouble, (long)b->valuedouble, d->valuestring);
			r = 0;
		}
	} else if (is_word(line, wlen, PROTO_CH_TEST)) {
		if (cJSON_IsNumber(a) && a->valuedouble >= 0 && cJSON_IsString(b) && c->open < 0) {
			c->open = (long)a->valuedouble;
			free(c->open_name);
			c->open_name = xstrdup(b->valuestring);
			c->sample = -1;
			c->started++;
			c->deadline = now() + s->o->timeout;
			r = 0;
		}
	} else if (is_word(line, wlen, PROTO_CH_SAMPLE)) {
		/* Each sample has the whole timeout: a test of many is as slow as all of them. */
		if (cJSON_IsNumber(a) && a->valuedouble >= 0 && cJSON_IsString(b) && c->open >= 0 &&
		    take_counts(c, d) == 0) {
			c->sample = (long)a->valuedouble;
			free(c->sample_name);
			c->sample_name = xstrdup(b->valuestring);
			c->deadline = now() + s->o->timeout;
			r = 0;
		}
	} else if (is_word(line, wlen, PROTO_CH_DONE)) {
		if (c->open >= 0 && take_counts(c, j) == 0) {
			c->next = c->open + 1;
			c->open = -1;
			c->deadline = now() + outside_timeout(s);
			r = 0;
		}
	} else if (is_word(line, wlen, PROTO_CH_END)) {
		if (c->open < 0 && take_counts(c, j) == 0) {
			c->ended = true;
			r = 0;
		}
	}
	cJSON_Delete(j);
	return r;
}

/* Handle the whole lines that have come. Returns as on_line. */
static int on_input(const struct session *s, struct child *c, struct err *e)
{
	size_t start = 0;
	char *nl;
	int r = 0;

	while (!r && (nl = memchr(c->in.data + start, '\n', c->in.len - start))) {
		size_t len = (size_t)(nl - (c->in.data + start));

		*nl = '\0';
		r = on_line(s, c, c->in.data + start, len, e);
		start += len + 1;
	}
	if (!r && c->in.len - start > MAX_LINE)
		r = 1;
	memmove(c->in.data, c->in.data + start, c->in.len - start);
	c->in.len -= start;
	c->in.data[c->in.len] = '\0';
	return r;
}

static int child_start(const struct session *s, struct child *c, long resume, long resume_sample,
		       struct err *e)
{
	const char **argv = NULL;
	char **full = NULL;
	char *env[4] = { NULL, NULL, NULL, NULL }, resume_text[32], sample_text[32];
	const char **keep = sandbox_env_keep(s->o->env, s->o->nenv);
	size_t n = 0;
	int r = -1;

	if (!(c->scratch = sandbox_scratch_new(&c->lock, e)))
		goto out;
	argv = xcalloc(8 + 2 * (s->o->npatterns + s->o->nsuites + s->o->npytest), sizeof(*argv));
	snprintf(resume_text, sizeof(resume_text), "%ld", resume);
	snprintf(sample_text, sizeof(sample_text), "%ld", resume_sample);
	argv[n++] = s->self;
	argv[n++] = "harvest-child";
	argv[n++] = s->o->source;
	argv[n++] = "--resume";
	argv[n++] = resume_text;
	if (resume_sample > 0) {
		argv[n++] = "--resume-sample";
		argv[n++] = sample_text;
	}
	for (size_t i = 0; i < s->o->npatterns; i++) {
		argv[n++] = "--filter";
		argv[n++] = s->o->patterns[i];
	}
	for (size_t i = 0; i < s->o->nsuites; i++) {
		argv[n++] = "--suite";
		argv[n++] = s->o->suites[i];
	}
	for (size_t i = 0; i < s->o->npytest; i++) {
		argv[n++] = "--pytest";
		argv[n++] = s->pytest[i];
	}
	full = sandbox_argv(&s->sb, c->scratch, argv);
	env[0] = xasprintf("HOME=%s/home", c->scratch);
	env[1] = xasprintf("TMPDIR=%s/tmp", c->scratch);
	/* Without the sandbox, no __pycache__ beside the user's test files either. */
	env[2] = xstrdup("PYTHONDONTWRITEBYTECODE=1");
	c->cp.argv = (const char *const *)full;
	c->cp.env = (const char *const *)env;
	/* The rest of ferry's environment (tokens, keys) is no business of a third party's test. */
	c->cp.env_keep = keep;
	c->cp.dir = c->scratch;
	/* No terminal: standard input is /dev/null, and what the tests print comes through a pipe
	 * that ferry reads and escapes (see take_output), never straight to the user's terminal. */
	c->cp.in = PROC_NULL;
	c->cp.out = PROC_PIPE;
	c->cp.err = PROC_PIPE;
	/* What a test started in the background ends with the child that started it. */
	c->cp.kill_group_on_exit = true;
	if (sandbox_seccomp_fd(&s->sb, &c->cp.pass_fd, e) < 0)
		goto out;
	if (proc_start(&c->cp, e) < 0)
		goto out;
	c->deadline = now() + outside_timeout(s);
	r = 0;
out:
	if (c->cp.pass_fd >= 0) {
		close(c->cp.pass_fd);
		c->cp.pass_fd = -1;
	}
	for (int i = 0; i < 3; i++)
		free(env[i]);
	free(keep);
	c->cp.env_keep = NULL;
	sandbox_argv_free(full);
	free(argv);
	return r;
}

/* A line the child wrote to its standard error (len bytes, without its newline; cut more bytes of
 * it were dropped): escaped, and shown through the caller's hook while the harvest's share lasts. */
static void output_line(const struct session *s, const char *line, size_t len, size_t cut)
{
	struct buf out = BUF_INIT;
	size_t start = 0;

	if (!s->o->output || s->output->shown >= OUTPUT_MAX) {
		s->output->dropped += len + cut + 1;
		return;
	}
	/* esc_add takes C strings: a NUL byte in the line is written the way esc writes the others. */
	for (size_t i = 0; i <= len; i++) {
		char *piece;

		if (i < len && line[i])
			continue;
		piece = xstrndup(line + start, i - start);
		esc_add(&out, piece, 0);
		free(piece);
		if (i < len)
			buf_adds(&out, "\\x00");
		start = i + 1;
	}
	if (cut)
		buf_addf(&out, " ... (%zu more bytes)", cut);
	s->output->shown += len + 1;
	s->o->output(s->o->ctx, out.data);
	buf_release(&out);
}

/* n bytes of the child's standard error: whole lines go out, a line longer than OUTPUT_LINE_MAX
 * is kept to that and the rest of it counted. */
static void take_output(const struct session *s, struct child *c, const char *p, size_t n)
{
	while (n) {
		const char *nl = memchr(p, '\n', n);
		size_t k = nl ? (size_t)(nl - p) : n;

		if (c->err_cut) {
			c->err_dropped += k;
		} else {
			size_t take = k < OUTPUT_LINE_MAX - c->err.len ? k : OUTPUT_LINE_MAX - c->err.len;

			buf_add(&c->err, p, take);
			if (take < k) {
				c->err_cut = true;
				c->err_dropped = k - take;
			}
		}
		if (!nl)
			break;
		output_line(s, c->err.data ? c->err.data : "", c->err.len, c->err_dropped);
		buf_reset(&c->err);
		c->err_cut = false;
		c->err_dropped = 0;
		p += k + 1;
		n -= k + 1;
	}
}

/* Read what the child's standard error holds now; at its end, close it. */
static void read_output(const struct session *s, struct child *c)
{
	char chunk[65536];
	ssize_t n = read(c->cp.fd_err, chunk, sizeof(chunk));

	if (n > 0) {
		take_output(s, c, chunk, (size_t)n);
	} else if (n == 0 || (errno != EINTR && errno != EAGAIN)) {
		close(c->cp.fd_err);
		c->cp.fd_err = -1;
	}
}

/* Once the child is over: what is left in the pipe now, without waiting for a writer that lives on
 * (a process a test left behind, outside the sandbox), then the last line without its newline. */
static void drain_output(const struct session *s, struct child *c)
{
	/* reads of up to 64 KiB each: a writer that never stops is left after a few MiB */
	for (int reads = 0; c->cp.fd_err >= 0 && reads < 64; reads++) {
		struct pollfd pfd = { c->cp.fd_err, POLLIN, 0 };

		if (poll(&pfd, 1, 0) <= 0 || !pfd.revents)
			break;
		read_output(s, c);
	}
	if (c->err.len || c->err_dropped)
		output_line(s, c->err.data ? c->err.data : "", c->err.len, c->err_dropped);
	buf_reset(&c->err);
	c->err_cut = false;
	c->err_dropped = 0;
}

static void child_release(const struct session *s, struct child *c)
{
	proc_release(&c->cp);
	if (c->scratch) {
		struct err e = ERR_INIT;

		if (sandbox_scratch_remove(c->scratch, &e) < 0)
			warn(s, "%s", e.msg);
		err_release(&e);
	}
	if (c->lock >= 0)
		close(c->lock);
	free(c->scratch);
	free(c->open_name);
	free(c->sample_name);
	buf_release(&c->in);
	buf_release(&c->err);
	counts_release(&c->counts);
}

/* How a child ended, said as a person would. bwrap reports a child killed by signal N as its own
 * exit status 128 + N. */
static void describe_end(const struct session *s, const struct proc_status *st, struct buf *out)
{
	struct proc_status t = *st;

	if (s->sb.bwrap && !t.signaled && t.code > 128 && t.code < 128 + NSIG) {
		t.signaled = true;
		t.sig = t.code - 128;
	}
	proc_status_describe(&t, out);
}

/* How one child's run ended, for the loop in harvest_run. */
enum child_end {
	CHILD_DONE,     /* the harvest is complete */
	CHILD_FAILED,   /* the harvest itself failed, outside any test; the child said why */
	CHILD_LOST,     /* the child ended, or was ended, before it could finish: why is in c and *why */
};

/* Run one child from test number resume (its sample resume_sample) until it ends. Returns the end,
 * or -1 when this side fails or is interrupted (e filled); *timed_out says whether ferry ended it. */
static int child_run(const struct session *s, struct child *c, long resume, long resume_sample,
		     struct buf *why, bool *timed_out, struct err *e)
{
	struct proc_status st;
	int r;

	*timed_out = false;
	c->next = resume;
	if (child_start(s, c, resume, resume_sample, e) < 0)
		return -1;
	for (;;) {
		struct pollfd pfd[2] = { { c->cp.fd_out, POLLIN, 0 }, { c->cp.fd_err, POLLIN, 0 } };
		double left = c->deadline - now();
		ssize_t n;

		if (interrupted) {
			proc_kill(&c->cp, KILL_GRACE_MS, NULL, e);
			return err_set(e, EXIT_INTERRUPTED, "interrupted");
		}
		if (left <= 0) {
			*timed_out = true;
			break;
		}
		/* poll passes over a negative descriptor: a closed stderr is no longer watched */
		if (poll(pfd, 2, (int)(left * 1000) + 1) < 0) {
			if (errno == EINTR)
				continue;
			return err_errno(e, EXIT_ENV, "poll");
		}
		if (pfd[1].revents)
			read_output(s, c);
		if (!pfd[0].revents)
			continue;
		buf_grow(&c->in, 65536);
		n = read(c->cp.fd_out, c->in.data + c->in.len, c->in.cap - c->in.len - 1);
		if (n < 0 && (errno == EINTR || errno == EAGAIN))
			continue;
		if (n < 0)
			return err_errno(e, EXIT_ENV, "cannot read from the harvest process");
		if (n == 0)
			break;
		c->in.len += (size_t)n;
		c->in.data[c->in.len] = '\0';
		if ((r = on_input(s, c, e)) < 0) {
			proc_kill(&c->cp, KILL_GRACE_MS, NULL, NULL);
			return -1;
		}
		if (r > 0) {
			c->corrupt = true;
			break;
		}
	}
	if (*timed_out || c->corrupt) {
		struct err ignored = ERR_INIT;

		proc_kill(&c->cp, KILL_GRACE_MS, &st, &ignored);
		err_release(&ignored);
		if (*timed_out)
			buf_addf(why, "timed out after %g s", c->open >= 0 ? s->o->timeout : outside_timeout(s));
		else
			buf_adds(why, "wrote to ferry's channel");
		return CHILD_LOST;
	}
	if (proc_wait(&c->cp, &st, e) < 0)
		return -1;
	if (c->ended)
		return CHILD_DONE;
	if (c->fail_code > 0 && c->open < 0)
		return CHILD_FAILED;
	describe_end(s, &st, why);
	return CHILD_LOST;
}

/* After a test's timeout: how to give tests more time (the caller's option), and whether the machine
 * is busier than it has processors for, which makes a test slow that is not (said once). */
static void timeout_hint(const struct session *s, struct buf *out)
{
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	double load = 0;
	bool loaded = getloadavg(&load, 1) == 1 && cpus > 0 && load > (double)cpus;

	if (!s->o->timeout_option && !loaded)
		return;
	buf_adds(out, " (");
	if (s->o->timeout_option)
		buf_addf(out, "%s SECS gives each test more than %g s%s", s->o->timeout_option, s->o->timeout,
			 loaded ? "; " : "");
	if (loaded)
		buf_addf(out, "the machine is loaded: load average %.1f on %ld processors", load, cpus);
	buf_addc(out, ')');
}

/* A test that took its child down: said, counted with what it cost, and where the next child starts
 * (*next, *next_sample): the sample after the one that was running in a test that numbers its
 * samples, else the next test. A timeout says how to give tests more time, the first time. */
static void lose_test(const struct session *s, const struct child *c, const char *why, bool timed_out,
		      bool *hinted, long *next, long *next_sample)
{
	struct harvest *h = s->h;
	struct buf hint = BUF_INIT;
	char *reason;

	if (timed_out && !*hinted) {
		timeout_hint(s, &hint);
		*hinted = true;
	}
	if (c->sample >= 0) {
		reason = xasprintf("%s during test '%s', sample %ld ('%s')", why, c->open_name, c->sample,
				   c->sample_name);
		warn(s, "%s: going on from the next sample%s", reason, hint.data ? hint.data : "");
		strmap_get(&h->lost_samples, c->open_name, NULL)->count++;
		*next = c->open;
		*next_sample = c->sample + 1;
	} else {
		/* No sample of it started in this child (a test that numbers none, or one whose samples
		 * are made before the first that had not run): it is given up, what it had not yet
		 * recorded lost with it. */
		reason = xasprintf("%s during test '%s'", why, c->open_name);
		warn(s, "%s: going on from the next test%s", reason, hint.data ? hint.data : "");
		strmap_get(&h->lost_tests, c->open_name, NULL)->count++;
		*next = c->open + 1;
		*next_sample = 0;
	}
	XGROW(h->crashed, h->crashed_cap, h->ncrashed + 1);
	h->crashed[h->ncrashed++] = reason;
	buf_release(&hint);
}

/* Run children until the harvest is complete. Returns 0, or -1 with e filled (an empty message when
 * the child has printed the error itself). */
static int run_children(const struct session *s, struct err *e)
{
	struct harvest *h = s->h;
	struct err ignored = ERR_INIT;
	long next = 0, next_sample = 0;
	bool was_subreaper = false, hinted = false;
	/* A test's process that left its group (setsid) and lost its parent comes here, not to init,
	 * and is ended with the child that started it: outside bwrap's process namespace nothing
	 * else would end it. */
	int subreaper = proc_set_subreaper(true, &was_subreaper, &ignored) == 0;
	int startup_deaths = 0, r = -1;

	for (;;) {
		struct child c;
		struct buf why = BUF_INIT;
		bool timed_out;
		int end;

		memset(&c, 0, sizeof(c));
		proc_init(&c.cp);
		buf_init(&c.in);
		buf_init(&c.err);
		c.open = -1;
		c.sample = -1;
		c.fail_code = -1;
		c.lock = -1;
		end = child_run(s, &c, next, next_sample, &why, &timed_out, e);
		/* What the tests said comes before what ferry says about how they ended. */
		drain_output(s, &c);
		/* What the child counted up to its last finished test stays counted. */
		for (size_t i = 0; i < c.counts.n; i++)
			counts_add(&h->counts, c.counts.keys[i], c.counts.vals[i]);
		if (end == CHILD_LOST && c.open >= 0) {
			lose_test(s, &c, why.data, timed_out, &hinted, &next, &next_sample);
			startup_deaths = 0;
		} else if (end == CHILD_LOST) {
			/* Between tests or before the first: the next child starts after the last finished one
			 * (or where this one started, when it finished none). */
			if (c.next != next)
				next_sample = 0;
			next = c.next;
			if (c.started)
				startup_deaths = 0;
			if (++startup_deaths >= MAX_STARTUP_DEATHS) {
				err_set(e, EXIT_ENV, "the harvest process ended outside any test %d times in a row "
					"(%s): giving up", startup_deaths, why.data);
			} else {
				warn(s, "the harvest process ended outside any test (%s): starting another", why.data);
			}
		}
		buf_release(&why);
		if (end == CHILD_FAILED)
			err_set(e, (enum ferry_exit)c.fail_code, "%s", "");
		child_release(s, &c);
		if (subreaper)
			proc_kill_strays(NULL, 0, STRAY_WAIT_MS, NULL, &ignored);
		if (end < 0 || end == CHILD_FAILED || startup_deaths >= MAX_STARTUP_DEATHS)
			goto out;
		if (end == CHILD_DONE) {
			r = 0;
			goto out;
		}
	}
out:
	if (subreaper)
		proc_set_subreaper(was_subreaper, NULL, &ignored);
	err_release(&ignored);
	return r;
}

long harvest_count(const struct harvest_counts *c, const char *key)
{
	for (size_t i = 0; i < c->n; i++)
		if (!strcmp(c->keys[i], key))
			return c->vals[i];
	return 0;
}

/* The "not recorded: REASON" counts, largest first (ties by reason); returns how many. */
static size_t reasons_sorted(const struct harvest_counts *c, size_t **idx)
{
	size_t n = 0, plen = strlen(HARVEST_NOT_RECORDED_BY);

	*idx = xcalloc(c->n + 1, sizeof(**idx));
	for (size_t i = 0; i < c->n; i++)
		if (!strncmp(c->keys[i], HARVEST_NOT_RECORDED_BY, plen) && c->vals[i] > 0)
			(*idx)[n++] = i;
	/* insertion sort: a few dozen reasons at most */
	for (size_t i = 1; i < n; i++)
		for (size_t j = i; j > 0; j--) {
			size_t a = (*idx)[j - 1], b = (*idx)[j];

			if (c->vals[a] > c->vals[b] ||
			    (c->vals[a] == c->vals[b] && strcmp(c->keys[a], c->keys[b]) <= 0))
				break;
			(*idx)[j - 1] = b;
			(*idx)[j] = a;
		}
	return n;
}

size_t harvest_not_recorded(const struct harvest_counts *c, size_t **idx)
{
	return reasons_sorted(c, idx);
}

void harvest_why_empty(const struct harvest *h, int filtered, struct buf *out)
{
	const struct harvest_counts *c = &h->counts;
	long tests = harvest_count(c, "tests"), imports = harvest_count(c, HARVEST_IMPORT_FAILED);
	long left_out = harvest_count(c, HARVEST_FILTERED), dropped = harvest_count(c, HARVEST_NOT_RECORDED);
	size_t plen = strlen(HARVEST_NOT_RECORDED_BY);

	if (imports > 0 && tests <= imports) {
		const char *first = NULL;

		for (size_t i = 0; i < h->skipped.cap; i++) {
			const char *k = h->skipped.slots[i].key;

			if (k && !strncmp(k, HARVEST_IMPORT_ERROR, strlen(HARVEST_IMPORT_ERROR)) &&
			    (!first || strcmp(k, first) < 0))
				first = k;
		}
		buf_addf(out, "%ld test file%s failed to import", imports, imports == 1 ? "" : "s");
		if (first)
			buf_addf(out, " (%s)", first + strlen(HARVEST_IMPORT_ERROR));
	} else if (tests <= 0) {
		buf_adds(out, filtered ? "no test matched the --filter patterns" : "no test ran");
	} else if (left_out > 0) {
		buf_addf(out, "%ld test%s ran and made %ld instance%s, none of them matched by the --filter patterns",
			 tests, tests == 1 ? "" : "s", left_out, left_out == 1 ? "" : "s");
	} else if (dropped > 0) {
		size_t *idx, n = reasons_sorted(c, &idx);

		buf_addf(out, "%ld test%s ran, but every call they made was dropped:", tests, tests == 1 ? "" : "s");
		for (size_t i = 0; i < n && i < 8; i++)
			buf_addf(out, "%s %ld %s", i ? "," : "", c->vals[idx[i]], c->keys[idx[i]] + plen);
		if (n > 8)
			buf_addf(out, ", and %zu more", n - 8);
		free(idx);
	} else {
		buf_addf(out, "%ld test%s ran and made no operator call", tests, tests == 1 ? "" : "s");
	}
}

int harvest_take(struct harvest *h, const struct harvest_opts *o, const char *json, size_t len, struct err *e)
{
	struct session s;

	memset(&s, 0, sizeof(s));
	s.h = h;
	s.o = o;
	return on_emit(&s, json, len, e);
}

void harvest_count_add(struct harvest *h, const char *key, long n)
{
	counts_add(&h->counts, key, n);
}

int harvest_source(const char *name, int *has_suites)
{
	const struct library *l = libraries_find(name);

	if (!l)
		return -1;
	*has_suites = l->has_suites;
	return 0;
}

void harvest_init(struct harvest *h)
{
	memset(h, 0, sizeof(*h));
	strmap_init(&h->ops);
	strmap_init(&h->skipped);
	strmap_init(&h->suites);
	strmap_init(&h->ids);
	strmap_init(&h->lost_samples);
	strmap_init(&h->lost_tests);
	buf_init(&h->line);
}

void harvest_release(struct harvest *h)
{
	for (size_t i = 0; i < h->suites.cap; i++) {
		struct harvest_suite *s = h->suites.slots[i].key ? h->suites.slots[i].ptr : NULL;

		if (s) {
			strmap_release(&s->ops);
			strmap_release(&s->why);
			free(s);
		}
	}
	strmap_release(&h->suites);
	for (size_t i = 0; i < h->ncrashed; i++)
		free(h->crashed[i]);
	free(h->crashed);
	strmap_release(&h->lost_samples);
	strmap_release(&h->lost_tests);
	counts_release(&h->counts);
	buf_release(&h->line);
	strmap_release(&h->ids);
	strmap_release(&h->ops);
	strmap_release(&h->skipped);
	memset(h, 0, sizeof(*h));
}

/* A path as a Python object gives it (str, in the file system's encoding), to show in the sandbox. */
static void add_py_path(struct sandbox *sb, PyObject *o)
{
	PyObject *b = o && PyUnicode_Check(o) ? PyUnicode_EncodeFSDefault(o) : NULL; /* new */
	const char *p = b ? PyBytes_AsString(b) : NULL;

	if (p)
		sandbox_add(sb, p);
	PyErr_Clear();
	Py_XDECREF(b);
}

/* module.func(arg) (arg NULL: no argument), a path to show; an exception shows nothing. */
static void add_py_call(struct sandbox *sb, const char *module, const char *func, const char *arg)
{
	PyObject *m = PyImport_ImportModule(module); /* new */
	PyObject *a = m && arg ? PyUnicode_DecodeFSDefault(arg) : NULL; /* new */
	PyObject *r = NULL;

	if (m && (a || !arg))
		r = a ? PyObject_CallMethod(m, func, "O", a) : PyObject_CallMethod(m, func, NULL); /* new */
	add_py_path(sb, r);
	PyErr_Clear();
	Py_XDECREF(r);
	Py_XDECREF(a);
	Py_XDECREF(m);
}

/* What a child reads, shown in its sandbox: the interpreter, asked in this process (started the
 * same way as the child's) where it lives: the virtualenv and the installation it was made from,
 * and everything on sys.path (the site-packages, ferry's package, what .pth files add); ferry's
 * binary, its shared libraries and the system's; the targets of the links that make up ferry's
 * package in a build tree; the pytest paths from their rootdir down (pytest reads the project's
 * configuration and conftest.py files there); and Keras's own tests, from the cache. */
static int sandbox_paths(struct session *s, struct err *e)
{
	static const char *const attrs[] = { "prefix", "base_prefix", "exec_prefix", "base_exec_prefix" };
	struct err ignored = ERR_INIT;
	PyObject *sys, *path;
	char *pydir;

	if (!s->o->python)
		return err_set(e, EXIT_USAGE, "the harvest's interpreter is not set");
	if (py_start(s->o->python, 0, e) < 0)
		return -1;
	sandbox_add_system(&s->sb);
	sandbox_add(&s->sb, s->self);
	sandbox_add(&s->sb, s->o->python);
	if ((sys = PyImport_ImportModule("sys"))) { /* new */
		for (size_t i = 0; i < sizeof(attrs) / sizeof(attrs[0]); i++) {
			PyObject *v = PyObject_GetAttrString(sys, attrs[i]); /* new */

			add_py_path(&s->sb, v);
			Py_XDECREF(v);
		}
		path = PyObject_GetAttrString(sys, "path"); /* new */
		for (Py_ssize_t i = 0; path && PyList_Check(path) && i < PyList_GET_SIZE(path); i++)
			add_py_path(&s->sb, PyList_GET_ITEM(path, i)); /* borrowed */
		Py_XDECREF(path);
		Py_DECREF(sys);
	}
	PyErr_Clear();
	if ((pydir = home_python_dir(&ignored))) {
		char *pkg = xasprintf("%s/ferry", pydir);
		DIR *d = opendir(pkg);
		struct dirent *de;

		sandbox_add(&s->sb, pydir);
		while (d && (de = readdir(d))) {
			char *p;

			if (de->d_type != DT_LNK && de->d_type != DT_UNKNOWN)
				continue;
			p = xasprintf("%s/%s", pkg, de->d_name);
			sandbox_add(&s->sb, p);
			free(p);
		}
		if (d)
			closedir(d);
		free(pkg);
		free(pydir);
	}
	err_release(&ignored);
	for (size_t i = 0; i < s->o->npytest; i++)
		add_py_call(&s->sb, "ferry.extract.pytests", "rootdir", s->pytest[i]);
	/* what the library's harvester declares it reads besides (Keras's own tests, from the cache) */
	add_py_call(&s->sb, "ferry.templates.registry", "sandbox_reads", s->o->source);
	return 0;
}

int harvest_run(struct harvest *h, const struct harvest_opts *o, struct err *e)
{
	struct session s;
	struct output output = { 0, 0 };
	struct proc_signals saved;
	struct err none = ERR_INIT;
	int r = -1;

	memset(&s, 0, sizeof(s));
	s.h = h;
	s.o = o;
	s.output = &output;
	sandbox_init(&s.sb);
	s.self = fs_self_exe();
	s.pytest = xcalloc(o->npytest + 1, sizeof(*s.pytest));
	for (size_t i = 0; i < o->npytest; i++)
		s.pytest[i] = fs_abspath(o->pytest[i]);
	/* What an earlier harvest left when it was killed: nothing of a live one's. */
	sandbox_scratch_clean();
	if (!o->no_sandbox) {
		if (sandbox_paths(&s, e) < 0)
			goto out;
		if (sandbox_setup(&s.sb, &none) < 0) {
			warn(&s, "%s: harvesting without a sandbox: the tests can read and write what ferry can, reach "
			     "the network and keep ferry's capabilities", none.msg);
		} else {
			struct buf missing = BUF_INIT;

			sandbox_missing(&s.sb, &missing);
			if (missing.len)
				warn(&s, "the harvest sandbox is incomplete here: %s", missing.data);
			buf_release(&missing);
		}
	}
	/* The corpus on a closed pipe is a write error up to main()'s last flush of stdout: SIGPIPE
	 * stays ignored once the harvest is over. */
	interrupted = 0;
	proc_catch_signals(on_signal, &saved);
	r = run_children(&s, e);
	proc_restore_signals(&saved, 0);
	if (output.dropped)
		warn(&s, "the tests wrote %llu more bytes to their standard error than are shown",
		     (unsigned long long)output.dropped);
out:
	err_release(&none);
	for (size_t i = 0; i < o->npytest; i++)
		free(s.pytest[i]);
	free(s.pytest);
	free(s.self);
	sandbox_release(&s.sb);
	return r;
}

static PyObject *str_list(const char *const *v, size_t n) /* new reference, NULL on error */
{
	PyObject *list = PyList_New((Py_ssize_t)n); /* new */

	for (size_t i = 0; list && i < n; i++) {
		PyObject *x = PyUnicode_DecodeFSDefault(v[i]); /* new, stolen below */

		if (!x) {
			Py_CLEAR(list);
			break;
		}
		PyList_SET_ITEM(list, (Py_ssize_t)i, x);
	}
	return list;
}

int harvest_child_run(int fd, const char *source, const char *const *patterns, size_t npatterns,
		      const char *const *suites, size_t nsuites, const char *const *pytest, size_t npytest,
		      long resume, long resume_sample, struct err *e)
{
	PyObject *mod = NULL, *res = NULL, *pats = NULL, *sui = NULL, *pyt = NULL;
	int r = -1;

	if (!(mod = py_import("ferry.extract.channel", e)))
		goto out;
	if (!(pats = str_list(patterns, npatterns)) || !(sui = str_list(suites, nsuites)) ||
	    !(pyt = str_list(pytest, npytest))) /* new */
		goto pyfail;
	/* ferry.extract.channel.run(fd, source, patterns, suites, pytest, resume, resume_sample) */
	if (!(res = PyObject_CallMethod(mod, "run", "isOOOll", fd, source, pats, sui, pyt, resume,
					resume_sample))) /* new */
		goto pyfail;
	r = 0;
	goto out;
pyfail:
	py_error(e, EXIT_ENV, "the harvest failed");
out:
	Py_XDECREF(res);
	Py_XDECREF(pyt);
	Py_XDECREF(sui);
	Py_XDECREF(pats);
	Py_XDECREF(mod);
	return r;
}
