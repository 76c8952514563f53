/* cmd-harvest.c: ferry harvest SOURCE -o CORPUS
 *
 * Runs a library's test knowledge under ferry's instrumentation (extract/harvest_SOURCE.py, in the
 * embedded interpreter) and writes every operator instance it records to a corpus, one JSON line per
 * instance. Each record is validated and given its id here, in C; usages that are identical (same
 * canonical form) merge into the first one seen. The counts are kept per suite (each record's
 * source.suite: a source such as torch has several), so the summary says what each one gave. The
 * corpus is written beside its final name and renamed when the harvest is complete, so an
 * interrupted harvest never leaves a corpus that looks whole; what it did harvest is kept in
 * CORPUS.partial.
 *
 * The harvest runs third-party test code: pytest files, documentation examples, sample generators.
 * It does not run in this process. A child, ferry harvest-child (src/cmd-harvest-child.c), runs it
 * in a scratch directory of its own that is also its HOME and TMPDIR, inside a bubblewrap sandbox
 * where everything else is read-only when the machine has one (lib/sandbox.h), and streams each
 * record, skip and test boundary here the moment it is made (extract/channel.py). A test that
 * exits, crashes, hangs past --timeout or scribbles on the channel ends that child: the test is
 * counted as crashed, with the reason, and a new child goes on from the next test (tests come in
 * the same order each time). A child that ends outside any test twice running ends the harvest,
 * which then says so and exits non-zero, as every harvest that ends early does. */
#define _GNU_SOURCE
#include <cjson/cJSON.h>
#include <errno.h>
#include <getopt.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd.h"
#include "esc.h"
#include "fsutil.h"
#include "proc.h"
#include "progress.h"
#include "record.h"
#include "sandbox.h"
#include "strmap.h"
#include "xalloc.h"

static const char usage[] =
	"usage: ferry harvest SOURCE [--filter GLOB]... -o CORPUS\n"
	"       ferry harvest torch|keras [--suite NAME]... [--pytest PATH]... [--filter GLOB]... -o CORPUS\n"
	"\n"
	"Record every operator instance that a library's tests create, as a corpus (JSON Lines).\n"
	"\n"
	"Sources:\n"
	"  onnx           every node test the installed onnx package knows\n"
	"  torch          PyTorch's test knowledge, shipped in the torch wheel: the suites opinfo (the\n"
	"                 OpInfo samples of every operator, each CPU dtype), modules (the ModuleInfo\n"
	"                 inputs of every module) and nn (common_nn's module and criterion tests);\n"
	"                 and pytest files or directories, run under the instrumentation\n"
	"  keras          Keras's layer and keras.ops instances: the suites docstrings (the examples in\n"
	"                 the documentation of every public layer and op) and applications (every\n"
	"                 keras.applications architecture, built with weights=None); and pytest files\n"
	"                 or directories (a checkout of Keras's own layer tests), run under the\n"
	"                 instrumentation\n"
	"\n"
	"Options:\n"
	"  -o, --output FILE   the corpus to write ('-' for standard output)\n"
	"  -f, --filter GLOB   keep only instances whose operator or test matches GLOB (repeatable)\n"
	"  -s, --suite NAME    torch, keras: harvest this suite (repeatable; default: all of the\n"
	"                      source's suites, unless --pytest is given)\n"
	"  -p, --pytest PATH   torch, keras: run the pytest tests of PATH, a file or a directory, and record\n"
	"                      what they call (repeatable); a test that fails does not stop the harvest\n"
	"  -t, --timeout SECS  a test that runs longer is stopped and counted as crashed (default 300)\n"
	"      --no-sandbox    run the tests without bubblewrap's read-only sandbox\n"
	"  -q, --quiet         no progress line\n"
	"\n"
	"The tests run in a child process, in a scratch directory that is also their HOME and TMPDIR,\n"
	"and, when bubblewrap is installed (Debian package bubblewrap; $FERRY_BWRAP names another\n"
	"bwrap), in a sandbox where all else is read-only. A test that exits, crashes, hangs or writes\n"
	"to ferry's channel is counted under 'tests crashed' with the reason, and the harvest goes on\n"
	"from the next test; exit status 0. A harvest that ends early says so, keeps what it harvested\n"
	"in CORPUS.partial and exits non-zero (130 on Ctrl-C).\n";

/* Time a test, or a child's start-up, may take by default; the sample generators of the biggest
 * OpInfo entries take tens of seconds on a slow machine. */
#define DEFAULT_TIMEOUT 300.0
/* Time a child may spend outside any test (importing the libraries, collecting the tests) before it
 * is taken to hang: --timeout when that is longer. Short test timeouts must not cut start-up short. */
#define OUTSIDE_TIMEOUT DEFAULT_TIMEOUT
/* Time a child is given to end on SIGTERM before SIGKILL. */
#define KILL_GRACE_MS 2000
/* Longest channel line: a record with the values of its tensors is far below. */
#define MAX_LINE (256u << 20)
/* How long the processes a child's tests left behind get to be reaped once it is gone. */
#define STRAY_WAIT_MS 1000
/* Children in a row that may end before their first test before the harvest gives up. */
#define MAX_STARTUP_DEATHS 2

struct source {
	const char *name;
	int has_suites;         /* takes --suite and --pytest */
};

static const struct source sources[] = {
	{ "onnx", 0 },
	{ "torch", 1 },
	{ "keras", 1 },
};

/* The counts the harvest reports ({"tests": n, ...} from extract/channel.py), in the order
 * they are first named. */
struct counts {
	char **keys;  /* owned */
	long *vals;
	size_t n, cap, vcap;
};

static void counts_add(struct counts *c, const char *key, long v)
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

static void counts_release(struct counts *c)
{
	for (size_t i = 0; i < c->n; i++)
		free(c->keys[i]);
	free(c->keys);
	free(c->vals);
	memset(c, 0, sizeof(*c));
}

/* What one suite (a record's source.suite) gave. */
struct suite {
	size_t instances, merged, unmigratable;
	struct strmap ops;      /* op -> instances */
	struct strmap why;      /* unmigratable reason -> instances */
};

struct harvest {
	FILE *out;
	const char *out_name;
	struct strmap ids;      /* id -> times seen */
	struct strmap ops;      /* op -> instances */
	struct strmap skipped;  /* reason -> tests */
	struct strmap suites;   /* suite name -> struct suite (ptr) */
	size_t instances, merged, unmigratable, bad_records;
	struct counts counts;   /* of the children that have ended */
	char **crashed;         /* one reason per test that took its process down (owned) */
	size_t ncrashed, crashed_cap;
	struct progress progress;
	char label[64];         /* the progress line's label, once a source names one */
	struct buf line;
};

static struct suite *suite_of(struct harvest *h, const struct instance *in)
{
	const cJSON *src = in->extra ? cJSON_GetObjectItemCaseSensitive(in->extra, "source") : NULL;
	const cJSON *name = src ? cJSON_GetObjectItemCaseSensitive(src, "suite") : NULL;
	struct strmap_entry *e = strmap_get(&h->suites, cJSON_IsString(name) ? name->valuestring : "-", NULL);

	if (!e->ptr) {
		struct suite *s = xcalloc(1, sizeof(*s));

		strmap_init(&s->ops);
		strmap_init(&s->why);
		e->ptr = s;
	}
	return e->ptr;
}

static int on_emit(void *ctx, const char *json, size_t len, struct err *e)
{
	struct harvest *h = ctx;
	struct instance in;
	struct err bad = ERR_INIT;
	struct strmap_entry *seen;
	struct suite *s;
	int created;

	if (record_parse(&in, json, len, &bad) < 0) {
		/* A record the instrumentation should not have made: count it and say why, once per reason. */
		struct strmap_entry *r = strmap_get(&h->skipped, "the instrumentation made a malformed record", NULL);

		if (!r->count++) {
			progress_clear(&h->progress);
			cmd_warn("malformed record from the instrumentation: %s", bad.msg);
		}
		h->bad_records++;
		err_release(&bad);
		return 0;
	}
	seen = strmap_get(&h->ids, in.id, &created);
	seen->count++;
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
	if (fwrite(h->line.data, 1, h->line.len, h->out) != h->line.len)
		return err_errno(e, EXIT_ENV, "cannot write '%s'", h->out_name);
	return 0;
}

static void on_skip(void *ctx, const char *reason, const char *where)
{
	struct harvest *h = ctx;

	strmap_get(&h->skipped, reason, NULL)->count++;
}

static void on_progress(void *ctx, long done, long total, const char *label)
{
	struct harvest *h = ctx;

	/* A source with several suites reports each under its own label: one progress line each. */
	if (label && *label && strcmp(label, h->label)) {
		if (h->label[0])
			progress_finish(&h->progress);
		snprintf(h->label, sizeof(h->label), "%s", label);
		progress_start(&h->progress, h->label, 0, h->progress.quiet);
	}
	h->progress.total = total > 0 ? (size_t)total : 0;
	progress_update(&h->progress, (size_t)done, 0);
}

/* The options of a source that has suites, and how its tests run. */
struct harvest_opts {
	char **suites, **pytest;
	size_t nsuites, npytest, suites_cap, pytest_cap;
	double timeout;
	int no_sandbox;
};

/* What every child of one harvest runs. */
struct session {
	const struct source *source;
	char **patterns;
	size_t npatterns;
	const struct harvest_opts *o;
	char **pytest;          /* absolute: the child runs elsewhere (owned) */
	char *self;             /* this executable (owned) */
	char *bwrap;            /* NULL: no sandbox (owned) */
};

/* One harvest child, from its start to its end. */
struct child {
	struct child_process cp;
	char *scratch;
	struct buf in;          /* what the channel said that is not yet a whole line */
	long open;              /* the test that has started and not finished, or -1 */
	char *open_name;
	long started;           /* tests it started */
	long next;              /* the test after its last finished one */
	int fail_code;          /* from "fail N": the harvest itself failed; -1 before */
	bool ended;             /* "end" came: the harvest is complete */
	bool corrupt;           /* the channel carried something that ferry does not say */
	struct counts counts;   /* its latest counts */
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

/* One line of the channel (see extract/channel.py). Returns 0, 1 when the line is not one
 * that extract/channel.py makes (a test wrote to the channel), -1 when this side fails (e filled). */
static int on_line(struct harvest *h, const struct session *s, struct child *c, char *line, size_t len,
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
	if (wlen == 4 && !memcmp(line, "emit", 4))
		return on_emit(h, payload, plen, e);
	if (wlen == 4 && !memcmp(line, "fail", 4)) {
		c->fail_code = atoi(payload);
		return c->fail_code > 0 ? 0 : 1;
	}
	if (!(j = cJSON_ParseWithLength(payload, plen)))
		return 1;
	a = cJSON_GetArrayItem(j, 0);
	b = cJSON_GetArrayItem(j, 1);
	d = cJSON_GetArrayItem(j, 2);
	if (wlen == 4 && !memcmp(line, "skip", 4)) {
		if (cJSON_IsString(a) && cJSON_IsString(b)) {
			on_skip(h, a->valuestring, b->valuestring);
			r = 0;
		}
	} else if (wlen == 8 && !memcmp(line, "progress", 8)) {
		if (cJSON_IsNumber(a) && cJSON_IsNumber(b) && cJSON_IsString(d)) {
			on_progress(h, (long)a->valuedouble, (long)b->valuedouble, d->valuestring);
			r = 0;
		}
	} else if (wlen == 4 && !memcmp(line, "test", 4)) {
		if (cJSON_IsNumber(a) && a->valuedouble >= 0 && cJSON_IsString(b) && c->open < 0) {
			c->open = (long)a->valuedouble;
			free(c->open_name);
			c->open_name = xstrdup(b->valuestring);
			c->started++;
			c->deadline = progress_now() + s->o->timeout;
			r = 0;
		}
	} else if (wlen == 4 && !memcmp(line, "done", 4)) {
		if (c->open >= 0 && take_counts(c, j) == 0) {
			c->next = c->open + 1;
			c->open = -1;
			c->deadline = progress_now() + outside_timeout(s);
			r = 0;
		}
	} else if (wlen == 3 && !memcmp(line, "end", 3)) {
		if (c->open < 0 && take_counts(c, j) == 0) {
			c->ended = true;
			r = 0;
		}
	}
	cJSON_Delete(j);
	return r;
}

/* Handle the whole lines that have come. Returns as on_line. */
static int on_input(struct harvest *h, const struct session *s, struct child *c, struct err *e)
{
	size_t start = 0;
	char *nl;
	int r = 0;

	while (!r && (nl = memchr(c->in.data + start, '\n', c->in.len - start))) {
		size_t len = (size_t)(nl - (c->in.data + start));

		*nl = '\0';
		r = on_line(h, s, c, c->in.data + start, len, e);
		start += len + 1;
	}
	if (!r && c->in.len - start > MAX_LINE)
		r = 1;
	memmove(c->in.data, c->in.data + start, c->in.len - start);
	c->in.len -= start;
	c->in.data[c->in.len] = '\0';
	return r;
}

static int child_start(const struct session *s, struct child *c, long resume, struct err *e)
{
	const char **argv = NULL, **full = NULL;
	char *env[4] = { NULL, NULL, NULL, NULL }, resume_text[32];
	size_t n = 0;
	int r = -1;

	if (!(c->scratch = sandbox_scratch_new(e)))
		goto out;
	argv = xcalloc(6 + 2 * (s->npatterns + s->o->nsuites + s->o->npytest), sizeof(*argv));
	snprintf(resume_text, sizeof(resume_text), "%ld", resume);
	argv[n++] = s->self;
	argv[n++] = "harvest-child";
	argv[n++] = s->source->name;
	argv[n++] = "--resume";
	argv[n++] = resume_text;
	for (size_t i = 0; i < s->npatterns; i++) {
		argv[n++] = "--filter";
		argv[n++] = s->patterns[i];
	}
	for (size_t i = 0; i < s->o->nsuites; i++) {
		argv[n++] = "--suite";
		argv[n++] = s->o->suites[i];
	}
	for (size_t i = 0; i < s->o->npytest; i++) {
		argv[n++] = "--pytest";
		argv[n++] = s->pytest[i];
	}
	full = sandbox_argv(s->bwrap, c->scratch, argv);
	env[0] = xasprintf("HOME=%s/home", c->scratch);
	env[1] = xasprintf("TMPDIR=%s/tmp", c->scratch);
	/* Without the sandbox, no __pycache__ beside the user's test files either. */
	env[2] = xstrdup("PYTHONDONTWRITEBYTECODE=1");
	c->cp.argv = full;
	c->cp.env = (const char *const *)env;
	c->cp.dir = c->scratch;
	c->cp.in = PROC_NULL;
	c->cp.out = PROC_PIPE;
	/* What a test started in the background ends with the child that started it. */
	c->cp.kill_group_on_exit = true;
	if (proc_start(&c->cp, e) < 0)
		goto out;
	c->deadline = progress_now() + outside_timeout(s);
	r = 0;
out:
	for (int i = 0; i < 3; i++)
		free(env[i]);
	free(full);
	free(argv);
	return r;
}

static void child_release(struct child *c)
{
	proc_release(&c->cp);
	if (c->scratch) {
		struct err e = ERR_INIT;

		if (sandbox_scratch_remove(c->scratch, &e) < 0)
			cmd_warn("%s", e.msg);
		err_release(&e);
	}
	free(c->scratch);
	free(c->open_name);
	buf_release(&c->in);
	counts_release(&c->counts);
}

/* How a child ended, said as a person would. bwrap reports a child killed by signal N as its own
 * exit status 128 + N. */
static void describe_end(const struct session *s, const struct proc_status *st, struct buf *out)
{
	struct proc_status t = *st;

	if (s->bwrap && !t.signaled && t.code > 128 && t.code < 128 + NSIG) {
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

/* Run one child from test number resume until it ends. Returns the end, or -1 when this side fails
 * or is interrupted (e filled). */
static int child_run(struct harvest *h, const struct session *s, struct child *c, long resume, struct buf *why,
		     struct err *e)
{
	struct proc_status st;
	bool timed_out = false;
	int r;

	c->next = resume;
	if (child_start(s, c, resume, e) < 0)
		return -1;
	for (;;) {
		struct pollfd pfd = { c->cp.fd_out, POLLIN, 0 };
		double left = c->deadline - progress_now();
		ssize_t n;

		if (interrupted) {
			proc_kill(&c->cp, KILL_GRACE_MS, NULL, e);
			return err_set(e, EXIT_INTERRUPTED, "interrupted");
		}
		if (left <= 0) {
			timed_out = true;
			break;
		}
		if (poll(&pfd, 1, (int)(left * 1000) + 1) < 0) {
			if (errno == EINTR)
				continue;
			return err_errno(e, EXIT_ENV, "poll");
		}
		if (!pfd.revents)
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
		if ((r = on_input(h, s, c, e)) < 0) {
			proc_kill(&c->cp, KILL_GRACE_MS, NULL, NULL);
			return -1;
		}
		if (r > 0) {
			c->corrupt = true;
			break;
		}
	}
	if (timed_out || c->corrupt) {
		struct err ignored = ERR_INIT;

		proc_kill(&c->cp, KILL_GRACE_MS, &st, &ignored);
		err_release(&ignored);
		if (timed_out)
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

/* Run children until the harvest is complete. Returns 0, or -1 with e filled (an empty message when
 * the child has printed the error itself). */
static int harvest_run(struct harvest *h, const struct session *s, struct err *e)
{
	struct err ignored = ERR_INIT;
	long next = 0;
	bool was_subreaper = false;
	/* A test's process that left its group (setsid) and lost its parent comes here, not to init,
	 * and is ended with the child that started it: outside bwrap's process namespace nothing
	 * else would end it. */
	int subreaper = proc_set_subreaper(true, &was_subreaper, &ignored) == 0;
	int startup_deaths = 0, r = -1;

	for (;;) {
		struct child c;
		struct buf why = BUF_INIT;
		int end;

		memset(&c, 0, sizeof(c));
		proc_init(&c.cp);
		buf_init(&c.in);
		c.open = -1;
		c.fail_code = -1;
		end = child_run(h, s, &c, next, &why, e);
		/* What the child counted up to its last finished test stays counted. */
		for (size_t i = 0; i < c.counts.n; i++)
			counts_add(&h->counts, c.counts.keys[i], c.counts.vals[i]);
		if (end == CHILD_LOST && c.open >= 0) {
			char *reason = xasprintf("%s during test '%s'", why.data, c.open_name);

			progress_clear(&h->progress);
			cmd_warn("%s: going on from the next test", reason);
			XGROW(h->crashed, h->crashed_cap, h->ncrashed + 1);
			h->crashed[h->ncrashed++] = reason;
			next = c.open + 1;
			startup_deaths = 0;
		} else if (end == CHILD_LOST) {
			/* Between tests or before the first: the next child starts after the last finished one. */
			next = c.next;
			if (c.started)
				startup_deaths = 0;
			if (++startup_deaths >= MAX_STARTUP_DEATHS) {
				err_set(e, EXIT_ENV, "the harvest process ended outside any test %d times in a row "
					"(%s): giving up", startup_deaths, why.data);
			} else {
				progress_clear(&h->progress);
				cmd_warn("the harvest process ended outside any test (%s): starting another", why.data);
			}
		}
		buf_release(&why);
		if (end == CHILD_FAILED)
			err_set(e, (enum ferry_exit)c.fail_code, "%s", "");
		child_release(&c);
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

/* The counts: "tests" first as "tests read", then the others under their own names; then the
 * tests that took their process down, each with its reason. */
static void print_counts(FILE *fp, const struct harvest *h, const struct counts *counts)
{
	for (size_t i = 0; i < counts->n; i++)
		if (!strcmp(counts->keys[i], "tests"))
			fprintf(fp, "  %-20s %ld\n", "tests read", counts->vals[i]);
	for (size_t i = 0; i < counts->n; i++)
		if (strcmp(counts->keys[i], "tests"))
			fprintf(fp, "  %-20s %ld\n", esc_str(counts->keys[i]), counts->vals[i]);
	if (!h->ncrashed)
		return;
	fprintf(fp, "  %-20s %zu\n", "tests crashed", h->ncrashed);
	for (size_t i = 0; i < h->ncrashed; i++)
		fprintf(fp, "    %s\n", esc_str(h->crashed[i]));
}

/* One row per suite when the source has several: instances, operators, merged, unmigratable; then
 * the reasons instances are unmigratable, per suite. */
static void print_suites(FILE *fp, const struct harvest *h)
{
	struct strmap_entry **v = strmap_sorted(&h->suites);

	fprintf(fp, "  %-10s %10s %10s %10s %13s\n", "suite", "instances", "operators", "merged", "unmigratable");
	for (size_t i = 0; v[i]; i++) {
		const struct suite *s = v[i]->ptr;

		fprintf(fp, "  %-10s %10zu %10zu %10zu %13zu\n", esc_str(v[i]->key), s->instances, s->ops.len, s->merged,
			s->unmigratable);
	}
	fprintf(fp, "  %-10s %10zu %10zu %10zu %13zu\n", "all", h->instances, h->ops.len, h->merged, h->unmigratable);
	for (size_t i = 0; v[i]; i++) {
		const struct suite *s = v[i]->ptr;
		struct strmap_entry **w;

		if (!s->unmigratable)
			continue;
		fprintf(fp, "  unmigratable in %s, by reason:\n", esc_str(v[i]->key));
		w = strmap_sorted(&s->why);
		for (size_t j = 0; w[j] && j < 10; j++)
			fprintf(fp, "    %6zu  %s\n", w[j]->count, esc_str(w[j]->key));
		if (s->why.len > 10)
			fprintf(fp, "    (%zu more reasons)\n", s->why.len - 10);
		free(w);
	}
	free(v);
}

static void print_summary(FILE *fp, const struct harvest *h, const struct source *source,
			  const struct counts *counts)
{
	struct strmap_entry **v = strmap_sorted(&h->skipped);
	size_t skipped = 0;

	for (size_t i = 0; v[i]; i++)
		skipped += v[i]->count;
	fprintf(fp, "harvest %s:\n", source->name);
	print_counts(fp, h, counts);
	fprintf(fp, "  instances            %zu\n", h->instances);
	fprintf(fp, "  distinct operators   %zu\n", h->ops.len);
	fprintf(fp, "  duplicates merged    %zu\n", h->merged);
	fprintf(fp, "  unmigratable         %zu\n", h->unmigratable);
	fprintf(fp, "  skipped              %zu\n", skipped);
	for (size_t i = 0; v[i] && i < 15; i++)
		fprintf(fp, "    %6zu  %s\n", v[i]->count, esc_str(v[i]->key));
	if (h->skipped.len > 15)
		fprintf(fp, "    (%zu more reasons)\n", h->skipped.len - 15);
	free(v);
	if (h->suites.len > 1 || source->has_suites)
		print_suites(fp, h);
}

static void suites_release(struct strmap *m)
{
	for (size_t i = 0; i < m->cap; i++) {
		struct suite *s = m->slots[i].key ? m->slots[i].ptr : NULL;

		if (s) {
			strmap_release(&s->ops);
			strmap_release(&s->why);
			free(s);
		}
	}
	strmap_release(m);
}

static int cmd_harvest(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "filter", required_argument, NULL, 'f' },
		{ "suite", required_argument, NULL, 's' },
		{ "pytest", required_argument, NULL, 'p' },
		{ "timeout", required_argument, NULL, 't' },
		{ "no-sandbox", no_argument, NULL, 'S' },
		{ "quiet", no_argument, NULL, 'q' },
		{ NULL, 0, NULL, 0 },
	};
	struct harvest h;
	struct harvest_opts o;
	struct session sess;
	struct sigaction sa, old_int, old_term, ign;
	struct err e = ERR_INIT;
	const struct source *source = NULL;
	const char *output = NULL;
	char **patterns = NULL, *partial = NULL;
	size_t npatterns = 0, cap = 0;
	const struct counts *counts = &h.counts;
	int opt, quiet = 0, code = EXIT_OK, handlers = 0;

	memset(&h, 0, sizeof(h));
	memset(&o, 0, sizeof(o));
	memset(&sess, 0, sizeof(sess));
	o.timeout = DEFAULT_TIMEOUT;
	while ((opt = getopt_long(argc, argv, "o:f:s:p:t:q", longopts, NULL)) != -1) {
		switch (opt) {
		case 'o': output = optarg; break;
		case 'f': XGROW(patterns, cap, npatterns + 1); patterns[npatterns++] = optarg; break;
		case 's': XGROW(o.suites, o.suites_cap, o.nsuites + 1); o.suites[o.nsuites++] = optarg; break;
		case 'p': XGROW(o.pytest, o.pytest_cap, o.npytest + 1); o.pytest[o.npytest++] = optarg; break;
		case 't':
			if (cmd_parse_seconds(optarg, &o.timeout) < 0) {
				code = cmd_usage_error(&cmd_harvest_entry, "bad --timeout '%s' (seconds)", optarg);
				goto out;
			}
			break;
		case 'S': o.no_sandbox = 1; break;
		case 'q': quiet = 1; break;
		default: code = cmd_usage_error(&cmd_harvest_entry, "bad option"); goto out;
		}
	}
	if (optind + 1 != argc) {
		code = cmd_usage_error(&cmd_harvest_entry, "harvest takes one SOURCE");
		goto out;
	}
	for (size_t i = 0; i < sizeof(sources) / sizeof(sources[0]); i++)
		if (!strcmp(argv[optind], sources[i].name))
			source = &sources[i];
	if (!source) {
		code = cmd_usage_error(&cmd_harvest_entry, "unknown source '%s' (known: onnx, torch, keras)", argv[optind]);
		goto out;
	}
	if (!source->has_suites && (o.nsuites || o.npytest)) {
		code = cmd_usage_error(&cmd_harvest_entry, "source '%s' takes no --suite or --pytest", source->name);
		goto out;
	}
	for (size_t i = 0; i < o.npytest; i++)
		if (access(o.pytest[i], F_OK) < 0) {
			err_errno(&e, EXIT_INPUT, "cannot read '%s'", o.pytest[i]);
			code = cmd_error(&e);
			goto out;
		}
	if (!output) {
		code = cmd_usage_error(&cmd_harvest_entry, "no output: say where the corpus goes with -o");
		goto out;
	}
	/* The children need it; checked here, so that a missing one is said once and not per child. */
	if (!fs_exists(cmd_python())) {
		err_set(&e, EXIT_ENV, "no Python interpreter at '%s' (run scripts/setup, or set FERRY_PYTHON)",
			cmd_python());
		code = cmd_error(&e);
		goto out;
	}
	sess.source = source;
	sess.patterns = patterns;
	sess.npatterns = npatterns;
	sess.o = &o;
	sess.self = fs_self_exe();
	sess.pytest = xcalloc(o.npytest + 1, sizeof(*sess.pytest));
	for (size_t i = 0; i < o.npytest; i++)
		sess.pytest[i] = fs_abspath(o.pytest[i]);
	if (!o.no_sandbox && !(sess.bwrap = sandbox_find(&e)))
		cmd_warn("%s: harvesting without a read-only sandbox", e.msg);
	err_release(&e);

	if (!strcmp(output, "-")) {
		h.out = stdout;
		h.out_name = "standard output";
	} else {
		partial = xasprintf("%s.partial", output);
		if (!(h.out = fopen(partial, "w"))) {
			err_errno(&e, EXIT_ENV, "cannot create '%s'", partial);
			code = cmd_error(&e);
			goto out;
		}
		h.out_name = partial;
	}
	buf_init(&h.line);
	progress_start(&h.progress, source->name, 0, quiet);
	/* No SA_RESTART: poll() must return on Ctrl-C. The corpus on a closed pipe is a write error,
	 * up to main()'s last flush of stdout: SIGPIPE stays ignored once the harvest is over. */
	interrupted = 0;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, &old_int);
	sigaction(SIGTERM, &sa, &old_term);
	memset(&ign, 0, sizeof(ign));
	ign.sa_handler = SIG_IGN;
	sigaction(SIGPIPE, &ign, NULL);
	handlers = 1;
	if (harvest_run(&h, &sess, &e) < 0) {
		progress_clear(&h.progress);
		/* A child that failed has said why; this side only says that the harvest ended early. */
		code = e.msg[0] ? cmd_error(&e) : (e.code ? (int)e.code : EXIT_ENV);
		if (partial && h.instances)
			fprintf(stderr, "ferry: the %zu instances harvested so far are in '%s'\n", h.instances, partial);
		goto out;
	}
	progress_finish(&h.progress);
	if (h.out != stdout) {
		int bad = fclose(h.out) != 0;

		h.out = NULL;
		/* fs_output_place: renamed over a regular file, copied into a device such as /dev/null. */
		if (bad || fs_output_place(partial, output, &e) < 0) {
			if (bad)
				err_errno(&e, EXIT_ENV, "cannot write '%s'", output);
			code = cmd_error(&e);
			goto out;
		}
	}
	/* With the corpus on stdout, the summary goes where the progress went. */
	print_summary(strcmp(output, "-") ? stdout : stderr, &h, source, counts);
	if (!h.instances) {
		err_set(&e, EXIT_INPUT, "no instance harvested from '%s'%s", source->name,
			npatterns ? " (do the --filter patterns match any test?)" : "");
		code = cmd_error(&e);
	}
out:
	if (handlers) {
		sigaction(SIGINT, &old_int, NULL);
		sigaction(SIGTERM, &old_term, NULL);
	}
	if (h.out && h.out != stdout)
		fclose(h.out);
	for (size_t i = 0; sess.pytest && i < o.npytest; i++)
		free(sess.pytest[i]);
	free(sess.pytest);
	free(sess.self);
	free(sess.bwrap);
	for (size_t i = 0; i < h.ncrashed; i++)
		free(h.crashed[i]);
	free(h.crashed);
	counts_release(&h.counts);
	free(partial);
	free(patterns);
	free(o.suites);
	free(o.pytest);
	buf_release(&h.line);
	strmap_release(&h.ids);
	strmap_release(&h.ops);
	strmap_release(&h.skipped);
	suites_release(&h.suites);
	err_release(&e);
	return code;
}

const struct cmd_entry cmd_harvest_entry = {
	"harvest", cmd_harvest, CMD_NEEDS_NOTHING, usage,
	"record the operator instances of a library's tests as a corpus",
};
