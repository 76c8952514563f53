/* wrap.h: the wrap engine, what ferry wrap (src/cmd-wrap.c) drives. It turns each instance of one
 * or more corpora (read one after the other, as if joined: a corpus and its variants) into a
 * single-operator model with its inputs and the reference outputs that the source library computes
 * (templates/template_LIBRARY.py), run in ferry's watched workers (pool/runner.h) since a library
 * can crash or hang on an odd usage too. An instance the library itself rejects is
 * marked invalid, with the library's reason. DIR gets one directory per instance under tests/, and
 * DIR/wrapped.jsonl: the records, each annotated with "wrap": {"status", "reason", "random", "dir"},
 * appended as each one is done, so that a wrap run again picks up where an interrupted one stopped.
 *
 * What is wrapped, and in which order: every instance of the corpora in their order, or with a queue
 * (ferry rank's output) the queue's ids in its order, its first `limit` lines only, so that a run
 * with a budget never wraps what it will not reach. Which files: every format of every library, or
 * with formats (the requested frontends' adapters' LIBRARY and FORMAT) only those, and no instance
 * of a library none of them takes; a format left out is made when a frontend first reads it
 * (templates/_formats.py).
 *
 * One wrap writes into DIR at a time: it holds DIR/wrapped.jsonl.lock (lib/lock.h), and a second is
 * refused (EXIT_ENV) naming the first. A line of wrapped.jsonl is written whole or not at all, and
 * a torn last line that a killed wrap left is cut off by the next (lib/jsonl.h). Only the library's
 * verdict makes an instance invalid: a template that fails because the machine did (a full disk,
 * an I/O error: the worker answers "error"), or a worker killed from outside ferry (SIGKILL, as the
 * kernel's OOM killer sends), records nothing for it, so that the same command tries it again.
 *
 * The engine prints nothing: it reports through the hooks in struct wrap_opts, and the counts in
 * struct wrap are the caller's to print. */
#ifndef FERRY_WRAP_H
#define FERRY_WRAP_H

#include <stdio.h>

#include "err.h"
#include "jsonl.h"
#include "lock.h"
#include "select.h"
#include "strmap.h"

/* A requested frontend's source library and the format its adapter reads (borrowed). */
struct wrap_format {
	const char *library;   /* "torch" */
	const char *format;    /* "ts"; "" where the adapter computes it: every format of the library */
};

struct wrap_opts {
	const char *const *corpora;  /* the corpora to wrap, read in this order (borrowed) */
	size_t ncorpora;        /* at least one */
	const char *dir;        /* where the models go (borrowed) */
	const struct select *select;  /* --op, --test: the instances wrapped (NULL: all; borrowed) */
	const struct strmap *only;    /* NULL, or the ids to wrap, the others left out (ferry go's
	                               * sample of a ranked queue; borrowed) */
	int jobs;               /* worker processes */
	double timeout;         /* seconds one instance may take */
	unsigned long long mem_limit;  /* bytes a worker may use; 0: none */
	/* How a PyTorch template holds the tensors real models hold as weights: NULL or "constant" (as
	 * constants of the model, the default), "input" (as forward inputs). Borrowed. */
	const char *weights;
	/* The formats to make (borrowed); NULL: every format of every library. */
	const struct wrap_format *formats;
	size_t nformats;
	/* A queue to wrap in the order of (borrowed), or NULL: the corpora in theirs. */
	const char *queue;
	size_t limit;           /* with a queue: its first limit lines only; 0: all of it */
	const char *command;    /* the command line, for the lock's note (borrowed; NULL: "ferry") */

	void *ctx;
	/* A bad corpus line, skipped; a torn line cut off; an instance whose worker was killed. */
	void (*warn)(void *ctx, const char *msg);
	/* An instance the library rejected: where it stands (its corpus, one of o->corpora, and line),
	 * its operator and why. */
	void (*invalid)(void *ctx, const char *corpus, size_t lineno, const char *op, const char *why);
	/* Instances done so far, of which invalid; about ten times a second while work goes on. */
	void (*progress)(void *ctx, size_t done, size_t invalid);
};

struct wrap {
	size_t resumed;          /* already in DIR/wrapped.jsonl (or repeated in the corpus) */
	size_t ok, invalid, random, bad_lines;
	size_t left_out;         /* instances --op and --test left out */
	size_t skipped;          /* of a library no requested frontend takes (o->formats) */
	size_t unknown;          /* queue ids that no corpus holds */
	size_t bad_queue;        /* queue lines that are not JSON objects with an id */
	size_t cut;              /* bytes of a torn last line of wrapped.jsonl, cut off */
	size_t killed;           /* instances whose worker was killed from outside: not recorded */
	struct strmap reasons;   /* invalid reason -> instances */

	/* The engine's own. */
	const struct wrap_opts *o;
	struct jsonl_reader *corpus;  /* one reader per corpus */
	size_t current;               /* the corpus read now (without a queue) */
	struct jsonl_reader queue;
	size_t queued;                /* queue lines taken so far */
	struct strmap index;          /* with a queue: id -> where its record is (struct wrap_place) */
	struct lock lock;        /* DIR's, from when DIR exists */
	struct jsonl_writer out; /* DIR/wrapped.jsonl, from the first instance wrapped */
	char *out_path;
	struct strmap done;      /* ids already in wrapped.jsonl, or taken from a corpus this time */
	struct strmap pending;   /* id -> an instance handed to a worker and not yet done */
};

/* Open the corpora (after checking that every one is a readable file, so that a mistake in the
 * last is not found after wrapping the first) and the queue, and read what an earlier wrap into
 * o->dir did. 0, or -1 with e filled. */
int wrap_open(struct wrap *w, const struct wrap_opts *o, struct err *e);
/* Wrap every instance not yet wrapped (of the queue, with one); an id met again (in the same corpus
 * or another) is wrapped once. With a queue, the corpora are read through once first, to find each
 * id's line (bad lines are reported then). 0, or -1 with e filled (EXIT_INTERRUPTED on SIGINT or
 * SIGTERM: what was wrapped is kept; EXIT_ENV when the machine failed (a full disk), or another wrap
 * holds DIR, or at the end when some instances' workers were killed (w->killed); EXIT_INPUT when
 * no corpus holds an instance record, or the queue none of theirs). */
int wrap_run(struct wrap *w, struct err *e);
void wrap_release(struct wrap *w);

#endif
