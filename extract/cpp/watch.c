/* watch.c: the parent's side of the parse: each file in a child process of its own (ferry
 * harvest-cpp-child), watched against the memory and time limits; a child that passes one or dies
 * has its file skipped with the reason, one that is done has its channel replayed through the
 * caller's hooks. */
#include <cjson/cJSON.h>
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "buf.h"
#include "counts.h"
#include "cpp-int.h"
#include "fsutil.h"
#include "proc.h"
#include "protocol.h"
#include "xalloc.h"

#ifdef HAVE_LIBCLANG

/* What one file's child may write in all: its records and counts, kept until it is done. */
#define CHILD_OUTPUT_MAX (256u << 20)
/* The tail of its stderr kept for the reason it died (LLVM's last words). */
#define CHILD_STDERR_CAP 4096
/* How often its resident memory is looked at. */
#define WATCH_MS 50

/* Whether this ferry (and so each child) runs under AddressSanitizer: gcc says it one way, clang
 * another. */
#if defined(__SANITIZE_ADDRESS__)
#define UNDER_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define UNDER_ASAN 1
#endif
#endif

static volatile sig_atomic_t interrupted;

static void on_signal(int sig)
{
	interrupted = sig;
}

static double mono(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static const char *const mode_names[] = { "onnx", "torch", "count" };

/* "2 GiB", "512 MiB", "1000000 bytes" */
static void add_size(struct buf *b, uint64_t n)
{
	if (n >= (1ull << 30) && !(n % (1ull << 30)))
		buf_addf(b, "%llu GiB", (unsigned long long)(n >> 30));
	else if (n >= (1ull << 20) && !(n % (1ull << 20)))
		buf_addf(b, "%llu MiB", (unsigned long long)(n >> 20));
	else
		buf_addf(b, "%llu bytes", (unsigned long long)n);
}

/* Whether what the child printed last says that memory ran out (under RLIMIT_AS an allocation fails
 * and LLVM says so before it gives up: "LLVM ERROR: out of memory"). */
static int said_oom(const char *err)
{
	return err && (strstr(err, "out of memory") || strstr(err, "bad_alloc") ||
		       strstr(err, "Cannot allocate memory"));
}

/* The last line of text that is not empty, for a message. */
static void add_last_line(struct buf *b, const char *text)
{
	size_t n = text ? strlen(text) : 0, end;

	while (n && (text[n - 1] == '\n' || text[n - 1] == ' '))
		n--;
	end = n;
	while (n && text[n - 1] != '\n')
		n--;
	if (end > n)
		buf_addf(b, " (%.*s)", (int)(end - n > 200 ? 200 : end - n), text + n);
}

struct limits {
	uint64_t mem;
	double seconds;
};

/* Replay the channel of a child that is done through o's hooks (and counts). 0, or -1 with e filled
 * when a hook fails. */
static int replay(const struct buf *out, const struct cpp_opts *o, struct counts *counts, struct err *e)
{
	const char *p = out->data, *end = out->data + out->len;

	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p)), *sp;
		size_t len = nl ? (size_t)(nl - p) : (size_t)(end - p);
		const char *v;
		size_t vlen;
		cJSON *j = NULL;
		int rc = 0;

		sp = memchr(p, ' ', len);
		v = sp ? sp + 1 : p + len;
		vlen = (size_t)(p + len - v);
#define IS(word) ((size_t)((sp ? sp : p + len) - p) == strlen(word) && !memcmp(p, word, strlen(word)))
		if (IS(PROTO_CPP_EMIT)) {
			rc = o->emit ? o->emit(o->ctx, v, vlen, e) : 0;
		} else if (IS(PROTO_CPP_COUNT) || IS(PROTO_CPP_WARN) || IS(PROTO_CPP_OP)) {
			j = cJSON_ParseWithLength(v, vlen);
			if (IS(PROTO_CPP_WARN) && cJSON_IsString(j) && o->warn) {
				o->warn(o->ctx, j->valuestring);
			} else if (cJSON_GetArraySize(j) == 2) {
				const cJSON *a = cJSON_GetArrayItem(j, 0), *b = cJSON_GetArrayItem(j, 1);

				if (IS(PROTO_CPP_COUNT) && cJSON_IsNumber(a) && cJSON_IsString(b) && o->count)
					o->count(o->ctx, b->valuestring, (long)a->valuedouble);
				if (IS(PROTO_CPP_OP) && cJSON_IsString(a) && cJSON_IsNumber(b) && counts)
					counts_add(counts, a->valuestring, (uint64_t)b->valuedouble);
			}
		}
#undef IS
		cJSON_Delete(j);
		if (rc < 0)
			return -1;
		p += len + (nl != NULL);
	}
	return 0;
}

/* The value of the channel's first line whose word is word (borrowed: it runs to the end of its
 * line, *vlen bytes), or NULL when there is none. */
static const char *find_line(const struct buf *out, const char *word, size_t *vlen)
{
	size_t wl = strlen(word);

	for (const char *p = out->data; p && p < out->data + out->len;) {
		const char *nl = memchr(p, '\n', (size_t)(out->data + out->len - p));

		if (!strncmp(p, word, wl) && (p[wl] == ' ' || p[wl] == '\n' || !p[wl])) {
			const char *v = p[wl] == ' ' ? p + wl + 1 : p + wl;

			*vlen = nl ? (size_t)(nl - v) : strlen(v);
			return v;
		}
		p = nl ? nl + 1 : NULL;
	}
	return NULL;
}

/* Whether the channel ends with PROTO_CPP_DONE, the child's last word. */
static int ends_done(const struct buf *out)
{
	static const char last[] = "\n" PROTO_CPP_DONE "\n";
	size_t n = sizeof(last) - 1;

	return (out->len >= n && !memcmp(out->data + out->len - n, last, n)) ||
	       (out->len == n - 1 && !memcmp(out->data, last + 1, n - 1));
}

/* One file's child as it is watched: its process, what it wrote, and why its file is skipped. */
struct watch {
	struct child_process cp;
	struct proc_capture err;        /* the tail of its stderr */
	struct proc_status st;
	struct buf out;                 /* its channel, whole */
	struct buf why;                 /* why the file is skipped; empty while it is not */
	double deadline;                /* on the monotonic clock */
	int ended;                      /* reaped, its status in st */
};

/* "over the 2 GiB memory limit" */
static void add_over_memory(struct buf *why, uint64_t mem)
{
	buf_adds(why, "over the ");
	add_size(why, mem);
	buf_adds(why, " memory limit");
}

/* The child's command line (the caller frees the array; its strings are borrowed, cpu among them). */
static const char **child_argv(const char *self, const char *file, enum cpp_mode mode, const char *stub,
			       const struct cpp_opts *o, const char *cpu)
{
	const char **argv = xcalloc(12 + 2 * (o->nincludes + o->ndefines), sizeof(*argv));
	size_t n = 0;

	argv[n++] = self;
	argv[n++] = "harvest-cpp-child";
	argv[n++] = mode_names[mode];
	argv[n++] = "--stub";
	argv[n++] = stub;
	argv[n++] = "--cpu";
	argv[n++] = cpu;
	for (size_t i = 0; i < o->nincludes; i++) {
		argv[n++] = "-I";
		argv[n++] = o->includes[i];
	}
	for (size_t i = 0; i < o->ndefines; i++) {
		argv[n++] = "-D";
		argv[n++] = o->defines[i];
	}
	if (o->compile_commands) {
		argv[n++] = "--compile-commands";
		argv[n++] = o->compile_commands;
	}
	argv[n++] = "--";
	argv[n++] = file;
	return argv;
}

/* Read what the child writes until it closes both streams, or until it passes a limit (w->why says
 * which). 0, or -1 with e filled (an interruption, a pipe that cannot be read). */
static int read_child(struct watch *w, const char *file, const struct limits *lim, struct err *e)
{
	struct err ignored = ERR_INIT;
	double next_watch = 0;

	while (w->cp.fd_out >= 0 || w->cp.fd_err >= 0) {
		struct pollfd pfd[2];
		int np = 0, wait;
		double now = mono();

		if (interrupted)
			return err_set(e, EXIT_INTERRUPTED, "interrupted");
		if (now >= w->deadline) {
			buf_addf(&w->why, "over the %g s time limit", lim->seconds);
			break;
		}
		if (now >= next_watch) {
			uint64_t rss = 0;

			/* the child alone: libclang starts no process, and a scan of every process for
			 * the members of its group, twenty times a second, would cost more than the parse */
			if (proc_rss(w->cp.pid, &rss, &ignored) == 0 && rss > lim->mem) {
				add_over_memory(&w->why, lim->mem);
				break;
			}
			err_release(&ignored);
			next_watch = now + WATCH_MS / 1000.0;
		}
		if (w->cp.fd_out >= 0)
			pfd[np++] = (struct pollfd){ w->cp.fd_out, POLLIN, 0 };
		if (w->cp.fd_err >= 0)
			pfd[np++] = (struct pollfd){ w->cp.fd_err, POLLIN, 0 };
		wait = (int)((w->deadline - now) * 1000) + 1;
		if (wait > WATCH_MS)
			wait = WATCH_MS;
		if (poll(pfd, (nfds_t)np, wait) < 0 && errno != EINTR)
			return err_errno(e, EXIT_ENV, "cannot wait for the parse of '%s'", file);
		for (int i = 0; i < np; i++) {
			if (!pfd[i].revents)
				continue;
			if (pfd[i].fd == w->cp.fd_out) {
				char chunk[65536];
				ssize_t got = read(w->cp.fd_out, chunk, sizeof(chunk));

				if (got < 0 && errno != EINTR && errno != EAGAIN)
					return err_errno(e, EXIT_ENV, "cannot read the parse of '%s'", file);
				if (got == 0) {
					close(w->cp.fd_out);
					w->cp.fd_out = -1;
				} else if (got > 0) {
					buf_add(&w->out, chunk, (size_t)got);
				}
			} else {
				if (proc_capture_read(&w->err, w->cp.fd_err, &ignored) < 0 || w->err.eof) {
					close(w->cp.fd_err);
					w->cp.fd_err = -1;
				}
				err_release(&ignored);
			}
		}
		if (w->out.len > CHILD_OUTPUT_MAX) {
			buf_adds(&w->why, "what it gives passed ");
			add_size(&w->why, CHILD_OUTPUT_MAX);
			break;
		}
	}
	err_release(&ignored);
	return 0;
}

/* Both streams closed: the child is exiting (a sanitizer's report may take a moment); reap it, or
 * kill it when it was given up or does not end in time. 0, or -1 with e filled. */
static int reap_child(struct watch *w, const struct limits *lim, struct err *e)
{
	while (!w->why.len && !w->ended) {
		struct timespec nap = { 0, 10 * 1000 * 1000 };

		if ((w->ended = proc_try_wait(&w->cp, &w->st, e)) < 0)
			return -1;
		if (interrupted)
			return err_set(e, EXIT_INTERRUPTED, "interrupted");
		if (!w->ended && mono() >= w->deadline)
			buf_addf(&w->why, "over the %g s time limit", lim->seconds);
		else if (!w->ended)
			nanosleep(&nap, NULL);
	}
	if (!w->ended && proc_kill(&w->cp, 200, &w->st, e) < 0)
		return -1;
	return 0;
}

/* ferry's own failure in the child (libclang missing, a compile_commands.json it cannot read): 1 with
 * e filled, as it would have been in this process, when the channel says one; else 0. */
static int child_failed(const struct buf *out, struct err *e)
{
	size_t vlen;
	const char *v = find_line(out, PROTO_CPP_FAIL, &vlen);
	cJSON *j;
	const cJSON *c, *m;

	if (!v)
		return 0;
	j = cJSON_ParseWithLength(v, vlen);
	c = cJSON_GetArrayItem(j, 0);
	m = cJSON_GetArrayItem(j, 1);
	err_set(e, cJSON_IsNumber(c) && c->valuedouble > 0 ? (enum ferry_exit)c->valuedouble : EXIT_ENV, "%s",
		cJSON_IsString(m) ? m->valuestring : "the parse failed");
	cJSON_Delete(j);
	return 1;
}

/* Why a child that was not given up gave its file up: it ended before its last word (a limit of
 * its own, or a crash), or libclang's crash recovery caught a failure (w->why stays empty when the
 * child is done and skipped nothing). */
static void end_reason(struct watch *w, const struct limits *lim)
{
	size_t vlen;
	const char *v;

	if (!w->why.len && !ends_done(&w->out)) {
		if (w->st.signaled && w->st.sig == SIGXCPU) {
			buf_addf(&w->why, "over the %g s time limit", lim->seconds);
		} else if (said_oom(w->err.buf.data)) {
			add_over_memory(&w->why, lim->mem);
		} else {
			buf_adds(&w->why, "its parse ended early: ");
			proc_status_describe(&w->st, &w->why);
			add_last_line(&w->why, w->err.buf.data);
		}
	}
	if (!w->why.len && (v = find_line(&w->out, PROTO_CPP_SKIP, &vlen))) {
		if (said_oom(w->err.buf.data)) {
			add_over_memory(&w->why, lim->mem);
		} else {
			cJSON *j = cJSON_ParseWithLength(v, vlen);

			buf_adds(&w->why, cJSON_IsString(j) ? j->valuestring : "libclang gave up parsing it");
			cJSON_Delete(j);
		}
	}
}

/* A file skipped, through the skip hook, else as a warning. */
static void skip_file(const struct cpp_opts *o, const char *file, const char *why)
{
	if (o->skip) {
		o->skip(o->ctx, file, why);
	} else if (o->warn) {
		char *msg = xasprintf("skipped '%s': %s", file, why);

		o->warn(o->ctx, msg);
		free(msg);
	}
}

/* Parse file in a child: its records through o's hooks, or, when the child passes a limit or dies,
 * the file skipped with the reason. 0, or -1 with e filled when the harvest must stop (a hook
 * failed, ferry's own failure in the child, an interruption). */
static int parse_one(const char *self, const char *file, enum cpp_mode mode, const char *stub,
		     const struct cpp_opts *o, const struct limits *lim, struct counts *counts, struct err *e)
{
	struct watch w = { .cp = PROC_INIT, .out = BUF_INIT, .why = BUF_INIT };
	const char **argv;
	char cpu[32];
	int rc = -1;

	proc_capture_init(&w.err, CHILD_STDERR_CAP);
	w.err.tail = true;
	snprintf(cpu, sizeof(cpu), "%g", lim->seconds);
	argv = child_argv(self, file, mode, stub, o, cpu);
	w.cp.argv = argv;
	w.cp.in = PROC_NULL;
	w.cp.out = PROC_PIPE;
	w.cp.err = PROC_PIPE;
#ifndef UNDER_ASAN
	/* Under AddressSanitizer the child maps terabytes of shadow memory and cannot live under
	 * RLIMIT_AS at all: the watch on its resident memory is then the limit. */
	w.cp.mem_limit = lim->mem;
#endif
	if (proc_start(&w.cp, e) < 0)
		goto out;
	w.deadline = mono() + lim->seconds;
	if (read_child(&w, file, lim, e) < 0 || reap_child(&w, lim, e) < 0 || child_failed(&w.out, e))
		goto out;
	end_reason(&w, lim);
	if (w.why.len) {
		skip_file(o, file, w.why.data);
		rc = 0;
		goto out;
	}
	if (w.st.code != 0) {
		/* it said it was done and then failed: ferry's own bug (a sanitizer's report at exit) */
		struct buf d = BUF_INIT;

		proc_status_describe(&w.st, &d);
		err_set(e, EXIT_ENV, "the parse of '%s' ended with %s after it was done", file, d.data);
		if (w.err.buf.len)
			err_set_detail(e, xstrdup(w.err.buf.data));
		buf_release(&d);
		goto out;
	}
	rc = replay(&w.out, o, counts, e);
out:
	proc_release(&w.cp);
	proc_capture_release(&w.err);
	buf_release(&w.out);
	buf_release(&w.why);
	free(argv);
	return rc;
}

int cpp_parse_files(char *const *files, size_t n, const struct cpp_opts *o, enum cpp_mode mode,
		    struct counts *counts, struct err *e)
{
	struct limits lim = { o->mem_limit ? o->mem_limit : CPP_DEFAULT_MEMORY,
			      o->timeout > 0 ? o->timeout : CPP_DEFAULT_TIMEOUT };
	struct proc_signals saved;
	char *self = fs_self_exe(), *dir = NULL, *stub = NULL;
	int rc = -1;

	if (!self)
		return err_set(e, EXIT_ENV, "cannot find ferry's own executable (/proc/self/exe)");
	interrupted = 0;
	proc_catch_signals(on_signal, &saved);
	if (cpp_write_stub(&dir, &stub, e) < 0)
		goto out;
	for (size_t i = 0; i < n; i++) {
		if (o->progress)
			o->progress(o->ctx, (long)i, (long)n, files[i]);
		if (parse_one(self, files[i], mode, stub, o, &lim, counts, e) < 0)
			goto out;
	}
	if (o->progress)
		o->progress(o->ctx, (long)n, (long)n, "");
	rc = 0;
out:
	proc_restore_signals(&saved, 0);
	if (stub)
		unlink(stub);
	if (dir)
		rmdir(dir);
	free(stub);
	free(dir);
	free(self);
	return rc;
}

#endif
