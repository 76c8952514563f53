/* progress.h: progress of long work on standard error. On a terminal, one line redrawn in place
 * (done/total, failures, rate, time left), at most ten times a second; otherwise a plain line every
 * few seconds, so logs of CI runs show that work goes on without filling up.
 *
 * A run of frontends reports each frontend as a lane: its tests and its probes apart (a probe is
 * no test: the total is the tests), and its own pace, so that the time left is the slowest lane's,
 * not a mean that a fast frontend makes look short. */
#ifndef FERRY_PROGRESS_H
#define FERRY_PROGRESS_H

#include <stddef.h>

#define PROGRESS_MAX_LANES 16
/* The pace is measured over this many of the lane's last answers: a start-up burst, or a slow
 * stretch long past, says little of what is left. */
#define PROGRESS_WINDOW 32
/* Answers a lane must have given before its pace is believed ("estimating" until then). */
#define PROGRESS_EVIDENCE 3

struct progress_lane {
	size_t tests, probes;            /* it will take (probes: an estimate, may be more than run) */
	size_t tests_done, probes_done;  /* answered */
	double running;                  /* seconds its longest running job has run, as last told */
	double times[PROGRESS_WINDOW];   /* the clocks of its last answers, a ring */
	size_t answers;                  /* answers recorded in the ring, in all */
};

struct progress {
	const char *label;   /* borrowed */
	size_t total;        /* 0 if unknown */
	size_t done;
	size_t failed;       /* shown when non-zero ... */
	const char *failed_word;  /* ... as "N failed", or "N " this (set after progress_start) */
	double start;
	double last_draw;
	int tty;
	int drawn;           /* a terminal line is on screen and must be cleared */
	int quiet;
	/* Lanes (progress_lanes), or none: then one implicit lane of total and done. */
	size_t nlanes;
	struct progress_lane lanes[PROGRESS_MAX_LANES];
	struct progress_lane one;
	double (*clock)(void);  /* progress_now; a test's own */
};

void progress_start(struct progress *p, const char *label, size_t total, int quiet);
/* After progress_start: n lanes (at most PROGRESS_MAX_LANES), lane i taking tests[i] tests and
 * about probes[i] probes; the total becomes the tests. */
void progress_lanes(struct progress *p, size_t n, const size_t *tests, const size_t *probes);
/* Record progress and redraw if it is time. */
void progress_update(struct progress *p, size_t done, size_t failed);
/* The same for lanes: lane i has answered tests_done[i] tests and probes_done[i] probes, and its
 * longest running job has run running[i] seconds (running may be NULL: unknown). */
void progress_update_lanes(struct progress *p, const size_t *tests_done, const size_t *probes_done,
			   const double *running, size_t failed);
/* Seconds left at clock now, or -1 while there is too little to go on. It is the slowest lane's:
 * its work left over its pace across its last answers (from its first, not from its start: the
 * workers' start-up is no answer's) up to now, so that a stall, no answer for a while, slows the
 * pace and the time grows with it; never less than its longest running job has run already, nor
 * than the time since its last answer (a worker takes a test when it answers one: its tests in
 * flight started no later, the first ones aside); never 0 while work is left. */
double progress_left(const struct progress *p, double now);
/* Clear the terminal line, so that a message can be printed; the next update redraws it. */
void progress_clear(struct progress *p);
/* Draw the final state and end the line. */
void progress_finish(struct progress *p);

/* Seconds on a monotonic clock. */
double progress_now(void);

#endif
