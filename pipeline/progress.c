/* progress.c: the progress line. It writes to stderr: progress is for the person watching, never
 * part of a command's output. */
#include "progress.h"
#include "esc.h"

#include <stdio.h>
#include <time.h>
#include <unistd.h>

double progress_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

void progress_start(struct progress *p, const char *label, size_t total, int quiet)
{
	p->label = label;
	p->total = total;
	p->done = 0;
	p->failed = 0;
	p->failed_word = NULL;
	p->start = progress_now();
	p->last_draw = 0;
	p->tty = isatty(STDERR_FILENO);
	p->drawn = 0;
	p->quiet = quiet;
}

static void format_duration(char *out, size_t size, double s)
{
	long t = (long)(s + 0.5);

	if (t >= 3600)
		snprintf(out, size, "%ldh%02ldm", t / 3600, t / 60 % 60);
	else if (t >= 60)
		snprintf(out, size, "%ldm%02lds", t / 60, t % 60);
	else
		snprintf(out, size, "%lds", t);
}

static void draw(struct progress *p, double now, int final)
{
	double elapsed = now - p->start;
	double rate = elapsed > 0 ? (double)p->done / elapsed : 0;
	char left[32] = "", took[32];

	format_duration(took, sizeof(took), elapsed);
	if (p->total && rate > 0 && !final) {
		char d[24];

		format_duration(d, sizeof(d), (double)(p->total - p->done) / rate);
		snprintf(left, sizeof(left), ", %s left", d);
	}
	fprintf(stderr, "%s%s: %zu", p->tty ? "\r\033[K" : "", esc_str(p->label), p->done);
	if (p->total)
		fprintf(stderr, "/%zu (%.0f%%)", p->total, 100.0 * (double)p->done / (double)p->total);
	if (p->failed)
		fprintf(stderr, ", %zu %s", p->failed, p->failed_word ? p->failed_word : "failed");
	/* A rate over the first moments says nothing: a burst of quick items would promise minutes. */
	if (elapsed >= 1.0)
		fprintf(stderr, ", %.1f/s, %s%s", rate, took, left);
	else
		fprintf(stderr, ", %s", took);
	if (!p->tty || final)
		fputc('\n', stderr);
	fflush(stderr);
	p->drawn = p->tty && !final;
	p->last_draw = now;
}

void progress_update(struct progress *p, size_t done, size_t failed)
{
	double now;

	p->done = done;
	p->failed = failed;
	if (p->quiet)
		return;
	now = progress_now();
	if (now - p->last_draw >= (p->tty ? 0.1 : 10.0))
		draw(p, now, 0);
}

void progress_clear(struct progress *p)
{
	if (p->drawn) {
		fputs("\r\033[K", stderr);
		p->drawn = 0;
		p->last_draw = 0;
	}
}

void progress_finish(struct progress *p)
{
	if (!p->quiet)
		draw(p, progress_now(), 1);
	p->drawn = 0;
}
