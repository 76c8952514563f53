/* progress.c: the progress line. It writes to stderr: progress is for the person watching, never
 * part of a command's output. */
#include "progress.h"
#include "esc.h"

#include <stdio.h>
#include <string.h>
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
	p->clock = progress_now;
	p->start = p->clock();
	p->last_draw = 0;
	p->tty = isatty(STDERR_FILENO);
	p->drawn = 0;
	p->quiet = quiet;
	p->nlanes = 0;
	memset(&p->one, 0, sizeof(p->one));
	p->one.tests = total;
}

void progress_lanes(struct progress *p, size_t n, const size_t *tests, const size_t *probes)
{
	p->nlanes = n < PROGRESS_MAX_LANES ? n : PROGRESS_MAX_LANES;
	p->total = 0;
	for (size_t i = 0; i < p->nlanes; i++) {
		memset(&p->lanes[i], 0, sizeof(p->lanes[i]));
		p->lanes[i].tests = tests[i];
		p->lanes[i].probes = probes[i];
		p->total += tests[i];
	}
}

/* Lane l has answered tests_done tests and probes_done probes by clock now. */
static void lane_record(struct progress_lane *l, size_t tests_done, size_t probes_done, double now)
{
	size_t before = l->tests_done + l->probes_done, after = tests_done + probes_done;

	/* More answers at once than the window holds: only the last of them are its. */
	if (after > before + PROGRESS_WINDOW)
		before = after - PROGRESS_WINDOW;
	for (size_t k = before; k < after; k++)
		l->times[l->answers++ % PROGRESS_WINDOW] = now;
	l->tests_done = tests_done;
	l->probes_done = probes_done;
}

/* What lane l has left to run: its tests, and the probes that go before some of them (a probe
 * goes before a test of its group: none is left when no test is, whatever the estimate said), or
 * its probes alone when it takes no test. */
static size_t lane_left(const struct progress_lane *l)
{
	size_t tests = l->tests > l->tests_done ? l->tests - l->tests_done : 0;
	size_t probes = l->probes > l->probes_done ? l->probes - l->probes_done : 0;

	if (!l->tests)
		return probes;  /* probes only */
	return tests + (probes < tests ? probes : tests);
}

/* progress_left's for one lane: 0 when it has nothing left. */
static double lane_eta(const struct progress_lane *l, double now)
{
	size_t left = lane_left(l), k;
	double from, stall, eta;

	if (!left)
		return 0;
	if (l->answers < PROGRESS_EVIDENCE)
		return -1;
	/* The window: its last k answers, from the answer before them to now; before the ring is full,
	 * from its first answer, not its start, which the workers' start-up (their imports) delays. */
	k = l->answers < PROGRESS_WINDOW ? l->answers - 1 : PROGRESS_WINDOW - 1;
	from = l->times[l->answers < PROGRESS_WINDOW ? 0 : (l->answers - PROGRESS_WINDOW) % PROGRESS_WINDOW];
	if (now <= from)
		return -1;
	eta = (double)left * (now - from) / (double)k;
	stall = now - l->times[(l->answers - 1) % PROGRESS_WINDOW];
	if (eta < stall)
		eta = stall;
	if (eta < l->running)
		eta = l->running;
	return eta < 1 ? 1 : eta;
}

double progress_left(const struct progress *p, double now)
{
	struct progress_lane one = p->one;
	const struct progress_lane *lanes = p->nlanes ? p->lanes : &one;
	size_t n = p->nlanes ? p->nlanes : 1;
	double most = 0;

	/* Without lanes the total may change as the work goes (a harvest's suites): the latest one. */
	one.tests = p->total;
	if (!p->nlanes && !p->total)
		return -1;
	for (size_t i = 0; i < n; i++) {
		double eta = lane_eta(&lanes[i], now);

		if (eta < 0)
			return -1;
		if (eta > most)
			most = eta;
	}
	return most;
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
	size_t probes = 0, probes_done = 0;
	char took[32];

	for (size_t i = 0; i < p->nlanes; i++) {
		probes += p->lanes[i].probes;
		probes_done += p->lanes[i].probes_done;
	}
	format_duration(took, sizeof(took), elapsed);
	fprintf(stderr, "%s%s:", p->tty ? "\r\033[K" : "", esc_str(p->label));
	/* Probes only (a run that probes and takes no test): the probes are the count. */
	if (p->total || !p->nlanes || !(probes || probes_done))
		fprintf(stderr, " %zu", p->done);
	if (p->total)
		fprintf(stderr, "/%zu%s (%.0f%%)", p->total, p->nlanes ? " tests" : "",
			100.0 * (double)p->done / (double)p->total);
	if (p->failed)
		fprintf(stderr, ", %zu %s", p->failed, p->failed_word ? p->failed_word : "failed");
	/* The probes' total is an estimate (the store may not know the release yet): the count at the end. */
	if (probes_done && final)
		fprintf(stderr, "%s probes %zu", p->total ? "," : "", probes_done);
	else if (probes)
		fprintf(stderr, "%s probes %zu/%zu", p->total ? "," : "", probes_done,
			probes_done > probes ? probes_done : probes);
	/* A rate over the first moments says nothing: a burst of quick items would promise minutes. */
	if (elapsed >= 1.0)
		fprintf(stderr, ", %.1f/s, %s", rate, took);
	else
		fprintf(stderr, ", %s", took);
	if ((p->total || probes) && !final) {
		double left = progress_left(p, now);
		char d[24];

		format_duration(d, sizeof(d), left);
		if (left != 0)
			fprintf(stderr, ", %s left", left < 0 || elapsed < 1.0 ? "?" : d);
	}
	if (!p->tty || final)
		fputc('\n', stderr);
	fflush(stderr);
	p->drawn = p->tty && !final;
	p->last_draw = now;
}

void progress_update(struct progress *p, size_t done, size_t failed)
{
	double now;

	now = p->clock();
	if (done > p->done)
		lane_record(&p->one, done, 0, now);
	p->done = done;
	p->failed = failed;
	if (p->quiet)
		return;
	if (now - p->last_draw >= (p->tty ? 0.1 : 10.0))
		draw(p, now, 0);
}

void progress_update_lanes(struct progress *p, const size_t *tests_done, const size_t *probes_done,
			   const double *running, size_t failed)
{
	double now = p->clock();

	p->done = 0;
	for (size_t i = 0; i < p->nlanes; i++) {
		lane_record(&p->lanes[i], tests_done[i], probes_done[i], now);
		p->lanes[i].running = running ? running[i] : 0;
		p->done += tests_done[i];
	}
	p->failed = failed;
	if (!p->quiet && now - p->last_draw >= (p->tty ? 0.1 : 10.0))
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
		draw(p, p->clock(), 1);
	p->drawn = 0;
}
