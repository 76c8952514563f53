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

/* Parse file in a child: its records through o's hooks, or, when the child passes a limit or dies,
 * the file skipped with the reason. 0, or -1 with e filled when the harvest must stop (a hook
 * failed, ferry's own failure in the child, an interruption). */
static int parse_one(const char *self, const char *file, enum cpp_mode mode, const char *stub,
		     const struct cpp_opts *o, const struct limits *lim, struct counts *counts, struct err *e)
{
	struct child_process cp = PROC_INIT;
	struct proc_capture err;
	struct proc_status st;
	struct buf out = BUF_INIT, why = BUF_INIT;
	struct err ignored = ERR_INIT;
	const char **argv = xcalloc(12 + 2 * (o->nincludes + o->ndefines), sizeof(*argv));
	char cpu[32];
	size_t n = 0, vlen;
	double deadline, next_watch = 0;
	const char *v;
	int rc = -1, ended = 0;

	proc_capture_init(&err, CHILD_STDERR_CAP);
	err.tail = true;
	snprintf(cpu, sizeof(cpu), "%g", lim->seconds);
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
	cp.argv = argv;
	cp.in = PROC_NULL;
	cp.out = PROC_PIPE;
	cp.err = PROC_PIPE;
#ifndef UNDER_ASAN
	/* Under AddressSanitizer the child maps terabytes of shadow memory and cannot live under
	 * RLIMIT_AS at all: the watch on its resident memory below is then the limit. */
	cp.mem_limit = lim->mem;
#endif
	if (proc_start(&cp, e) < 0)
		goto out;
	deadline = mono() + lim->seconds;
	while (cp.fd_out >= 0 || cp.fd_err >= 0) {
		struct pollfd pfd[2];
		int np = 0, wait;
		double now = mono();

		if (interrupted) {
			err_set(e, EXIT_INTERRUPTED, "interrupted");
			goto out;
		}
		if (now >= deadline) {
			buf_addf(&why, "over the %g s time limit", lim->seconds);
			break;
		}
		if (now >= next_watch) {
			uint64_t rss = 0;

			/* the child alone: libclang starts no process, and a scan of every process for
			 * the members of its group, twenty times a second, would cost more than the parse */
			if (proc_rss(cp.pid, &rss, &ignored) == 0 && rss > lim->mem) {
				buf_adds(&why, "over the ");
				add_size(&why, lim->mem);
				buf_adds(&why, " memory limit");
				break;
			}
			err_release(&ignored);
			next_watch = now + WATCH_MS / 1000.0;
		}
		if (cp.fd_out >= 0)
			pfd[np++] = (struct pollfd){ cp.fd_out, POLLIN, 0 };
		if (cp.fd_err >= 0)
			pfd[np++] = (struct pollfd){ cp.fd_err, POLLIN, 0 };
		wait = (int)((deadline - now) * 1000) + 1;
		if (wait > WATCH_MS)
			wait = WATCH_MS;
		if (poll(pfd, (nfds_t)np, wait) < 0 && errno != EINTR) {
			err_errno(e, EXIT_ENV, "cannot wait for the parse of '%s'", file);
			goto out;
		}
		for (int i = 0; i < np; i++) {
			if (!pfd[i].revents)
				continue;
			if (pfd[i].fd == cp.fd_out) {
				char chunk[65536];
				ssize_t got = read(cp.fd_out, chunk, sizeof(chunk));

				if (got < 0 && errno != EINTR && errno != EAGAIN) {
					err_errno(e, EXIT_ENV, "cannot read the parse of '%s'", file);
					goto out;
				}
				if (got == 0) {
					close(cp.fd_out);
					cp.fd_out = -1;
				} else if (got > 0) {
					buf_add(&out, chunk, (size_t)got);
				}
			} else {
				if (proc_capture_read(&err, cp.fd_err, &ignored) < 0 || err.eof) {
					close(cp.fd_err);
					cp.fd_err = -1;
				}
				err_release(&ignored);
			}
		}
		if (out.len > CHILD_OUTPUT_MAX) {
			buf_adds(&why, "what it gives passed ");
			add_size(&why, CHILD_OUTPUT_MAX);
			break;
		}
	}
	/* Both streams closed: the child is exiting (a sanitizer's report may take a moment). */
	while (!why.len && !ended) {
		struct timespec nap = { 0, 10 * 1000 * 1000 };

		if ((ended = proc_try_wait(&cp, &st, e)) < 0)
			goto out;
		if (interrupted) {
			err_set(e, EXIT_INTERRUPTED, "interrupted");
			goto out;
		}
		if (!ended && mono() >= deadline)
			buf_addf(&why, "over the %g s time limit", lim->seconds);
		else if (!ended)
			nanosleep(&nap, NULL);
	}
	if (!ended && proc_kill(&cp, 200, &st, e) < 0)
		goto out;
	if ((v = find_line(&out, PROTO_CPP_FAIL, &vlen))) {
		/* ferry's own failure in the child (libclang missing, a compile_commands.json it cannot
		 * read): the harvest stops, as it would have in this process */
		cJSON *j = cJSON_ParseWithLength(v, vlen);
		const cJSON *c = cJSON_GetArrayItem(j, 0), *m = cJSON_GetArrayItem(j, 1);

		err_set(e, cJSON_IsNumber(c) && c->valuedouble > 0 ? (enum ferry_exit)c->valuedouble : EXIT_ENV, "%s",
			cJSON_IsString(m) ? m->valuestring : "the parse failed");
		cJSON_Delete(j);
		goto out;
	}
	if (!why.len && !ends_done(&out)) {
		if (st.signaled && st.sig == SIGXCPU) {
			buf_addf(&why, "over the %g s time limit", lim->seconds);
		} else if (said_oom(err.buf.data)) {
			buf_adds(&why, "over the ");
			add_size(&why, lim->mem);
			buf_adds(&why, " memory limit");
		} else {
			buf_adds(&why, "its parse ended early: ");
			proc_status_describe(&st, &why);
			add_last_line(&why, err.buf.data);
		}
	}
	if (!why.len && (v = find_line(&out, PROTO_CPP_SKIP, &vlen))) {
		if (said_oom(err.buf.data)) {
			buf_adds(&why, "over the ");
			add_size(&why, lim->mem);
			buf_adds(&why, " memory limit");
		} else {
			cJSON *j = cJSON_ParseWithLength(v, vlen);

			buf_adds(&why, cJSON_IsString(j) ? j->valuestring : "libclang gave up parsing it");
			cJSON_Delete(j);
		}
	}
	if (why.len) {
		if (o->skip) {
			o->skip(o->ctx, file, why.data);
		} else if (o->warn) {
			char *msg = xasprintf("skipped '%s': %s", file, why.data);

			o->warn(o->ctx, msg);
			free(msg);
		}
		rc = 0;
		goto out;
	}
	if (st.code != 0) {
		/* it said it was done and then failed: ferry's own bug (a sanitizer's report at exit) */
		struct buf d = BUF_INIT;

		proc_status_describe(&st, &d);
		err_set(e, EXIT_ENV, "the parse of '%s' ended with %s after it was done", file, d.data);
		if (err.buf.len)
			err_set_detail(e, xstrdup(err.buf.data));
		buf_release(&d);
		goto out;
	}
	rc = replay(&out, o, counts, e);
out:
	proc_release(&cp);
	proc_capture_release(&err);
	buf_release(&out);
	buf_release(&why);
	err_release(&ignored);
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
