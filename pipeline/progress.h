/* progress.h: progress of long work on standard error. On a terminal, one line redrawn in place
 * (done/total, failures, rate, time left), at most ten times a second; otherwise a plain line every
 * few seconds, so logs of CI runs show that work goes on without filling up. */
#ifndef FERRY_PROGRESS_H
#define FERRY_PROGRESS_H

#include <stddef.h>

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
};

void progress_start(struct progress *p, const char *label, size_t total, int quiet);
/* Record progress and redraw if it is time. */
void progress_update(struct progress *p, size_t done, size_t failed);
/* Clear the terminal line, so that a message can be printed; the next update redraws it. */
void progress_clear(struct progress *p);
/* Draw the final state and end the line. */
void progress_finish(struct progress *p);

/* Seconds on a monotonic clock. */
double progress_now(void);

#endif
