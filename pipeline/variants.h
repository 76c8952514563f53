/* variants.h: the vary stage: variants of every instance of a corpus that the source library
 * accepts (vary/vary.h), with a progress line and a summary; ferry vary and ferry go call it. */
#ifndef FERRY_VARIANTS_H
#define FERRY_VARIANTS_H

#include "stage.h"

struct variants_opts {
	const char *corpus, *output;  /* the parents, and where the variants go */
	int per_instance;             /* variants kept per instance at most */
	int budget;                   /* candidates tried in all, earlier runs included; 0: no limit */
	int seed;                     /* of the candidates' order */
	int jobs;                     /* worker processes */
	int quiet;                    /* no progress line */
	double timeout;               /* seconds a candidate may take */
	unsigned long long memory;    /* a worker's, or 0: 4G, or a share of the machine's if less */
	const char *command;          /* the command line, the note of the output's lock */
	int one_change;               /* a failure's neighbours, not variants (vary_opts.one_change) */
	const char *pools_corpus;     /* the corpus of the common values (vary_opts.pools_corpus), or NULL */
	const char *what;             /* the progress line's and summary's word, or NULL: "vary" */
};

/* Vary o->corpus into o->output, resuming what an earlier run tried. An exit code. */
int variants_make(const struct variants_opts *o, const struct stage_io *io);

#endif
