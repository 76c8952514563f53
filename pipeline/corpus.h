/* corpus.h: the harvest stage: a library's tests run under ferry's instrumentation (or its C++
 * tests read with libclang) into a corpus, with progress lines and a summary; what stops early is
 * kept in CORPUS.partial. ferry harvest and ferry go call it. */
#ifndef FERRY_CORPUS_H
#define FERRY_CORPUS_H

#include "opts.h"
#include "select.h"
#include "stage.h"

struct corpus_opts {
	const char *source;             /* onnx, torch, keras (harvest_source knows it) */
	const char *output;             /* the corpus, or "-": standard output */
	const char *keras_tests;        /* keras, tf_keras: which of the library's own test files run, or NULL */
	const char *tf_keras_archive;   /* tf_keras: the archive of its source tree (URL or file), or NULL */
	const char *compile_commands;   /* --cpp: DIR/compile_commands.json, or NULL */
	struct opts_list patterns;      /* --filter */
	struct opts_list suites, pytest;
	struct opts_list cpp, includes, defines;  /* --cpp: what libclang reads, and how */
	struct opts_list envs;          /* variables the tests also see */
	double timeout;                 /* a test's (or a sample's of one), in seconds */
	const char *timeout_option;     /* the caller's option that sets it, said when a test times out */
	double parse_timeout;           /* --cpp: a file's parse, or 0: the default */
	unsigned long long parse_memory;  /* --cpp: a file's parse, or 0: the default */
	int no_sandbox, quiet;
	struct select sel;              /* --op, --test */
};

/* Harvest o->source into o->output. An exit code (said on stderr when it is not EXIT_OK). */
int corpus_harvest(const struct corpus_opts *o, const struct stage_io *io);

#endif
