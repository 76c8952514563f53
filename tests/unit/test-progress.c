/* test-progress.c: the progress line's time left (pipeline/progress.h) on a clock of the test's own:
 * a stall, frontends of different paces, probes counted apart from the tests. */
#include "progress.h"
#include "tap.h"

static double clock_now;

static double fake_clock(void)
{
	return clock_now;
}

/* A quiet progress line on the fake clock, at 0, with lanes of these tests and probes. */
static void start(struct progress *p, size_t n, const size_t *tests, const size_t *probes)
{
	clock_now = 0;
	progress_start(p, "run", 0, 1);
	p->clock = fake_clock;
	p->start = 0;
	progress_lanes(p, n, tests, probes);
}

/* Lane answers: each lane's tests and probes answered, at time t. */
static void at(struct progress *p, double t, const size_t *tests, const size_t *probes)
{
	clock_now = t;
	progress_update_lanes(p, tests, probes, NULL, 0);
}

int main(void)
{
	struct progress p;

	plan(15);
	{
		size_t tests[] = { 26 }, probes[] = { 3 }, td[] = { 0 }, pd[] = { 0 };

		start(&p, 1, tests, probes);
		is_int((long)p.total, 26, "the total is the tests, not the tests and the probes");
		ok(progress_left(&p, 5) < 0, "no answer yet: estimating, not a time");
		td[0] = 1, pd[0] = 1;
		at(&p, 1, td, pd);
		ok(progress_left(&p, 1) < 0, "two answers are too few to go on");
		td[0] = 2, pd[0] = 3;
		at(&p, 2, td, pd);
		is_int((long)p.done, 2, "done counts the tests answered, the probes apart");
		/* 4 answers in the second since the first: 24 tests left (no probe: all 3 answered) at 4/s;
		 * the second before the first answer is the workers' start-up, not the pace. */
		is_dbl(progress_left(&p, 2), 24 / 4.0, 1e-9, "the time left is the work left over the pace");
	}
	{
		size_t tests[] = { 56 }, probes[] = { 0 }, td[] = { 0 }, pd[] = { 0 };

		start(&p, 1, tests, probes);
		for (int i = 1; i <= 54; i++) {
			td[0] = (size_t)i;
			at(&p, i / 10.0, td, pd);
		}
		double fresh = progress_left(&p, 5.4);

		ok(fresh > 0 && fresh < 1.5, "a steady pace: 2 left at 10/s is moments (%.2fs)", fresh);
		ok(progress_left(&p, 5.4 + 14.5) >= 14, "no answer for 14.5 s: at least 14 s left, never 0 (%.1fs)",
		   progress_left(&p, 5.4 + 14.5));
		ok(progress_left(&p, 30) > progress_left(&p, 5.4 + 14.5), "the longer the stall, the more is left");
	}
	{
		/* Answers come every 0.1 s from one worker while the other's test has run for 50 s. */
		size_t tests[] = { 100 }, probes[] = { 0 }, td[] = { 0 }, pd[] = { 0 };
		double running[] = { 50 };

		start(&p, 1, tests, probes);
		for (int i = 1; i <= 98; i++) {
			td[0] = (size_t)i;
			clock_now = 50 + i / 10.0;
			progress_update_lanes(&p, td, pd, running, 0);
		}
		ok(progress_left(&p, 59.8) >= 50, "never less than the longest running test has taken (%.1fs)",
		   progress_left(&p, 59.8));
	}
	{
		/* A window of recent answers: a slow start long past does not slow the estimate. */
		size_t tests[] = { 1000 }, probes[] = { 0 }, td[] = { 0 }, pd[] = { 0 };

		start(&p, 1, tests, probes);
		td[0] = 3;
		at(&p, 100, td, pd);
		for (int i = 1; i <= 100; i++) {
			td[0] = 3 + (size_t)i;
			at(&p, 100 + i, td, pd);
		}
		/* 897 left at 1/s, not at 103/200 s. */
		is_dbl(progress_left(&p, 200), 897, 1e-6, "the pace is the last answers', not the run's since its start");
	}
	{
		/* Two frontends: A answers 10/s and has 200 of 400 left, B 1/s and 30 of 50. */
		size_t tests[] = { 400, 50 }, probes[] = { 0, 0 }, td[] = { 0, 0 }, pd[] = { 0, 0 };

		start(&p, 2, tests, probes);
		for (int i = 1; i <= 200; i++) {
			td[0] = (size_t)i;
			td[1] = (size_t)i / 10;
			at(&p, i / 10.0, td, pd);
		}
		/* B's 30 s; the pooled pace (220 in 20 s over 230 left) would say 21. */
		is_dbl(progress_left(&p, 20), 30, 1e-6, "two frontends: the slowest one's time, not the mean's");
		td[0] = 400;
		at(&p, 20.5, td, pd);
		is_dbl(progress_left(&p, 20.5), 30 * 19.5 / 19, 1e-6, "... and still B's once A is done");
	}
	{
		/* Probes estimated for a release the store did not know: fewer ran, none is waited for. */
		size_t tests[] = { 10 }, probes[] = { 8 }, td[] = { 0 }, pd[] = { 0 };

		start(&p, 1, tests, probes);
		td[0] = 1;
		at(&p, 1, td, pd);
		td[0] = 9, pd[0] = 2;
		at(&p, 11, td, pd);
		is_dbl(progress_left(&p, 11), 2, 1e-6, "probes left count only up to the tests left (1 test, 1 probe)");
		td[0] = 10;
		at(&p, 12, td, pd);
		is_dbl(progress_left(&p, 12), 0, 0, "every test answered: nothing left, whatever the probes' estimate");
		/* Probes only (a run that only probes): they are the work. */
		size_t none[] = { 0 };

		start(&p, 1, none, probes);
		pd[0] = 1, td[0] = 0;
		at(&p, 1, td, pd);
		pd[0] = 4;
		at(&p, 4, td, pd);
		is_dbl(progress_left(&p, 4), 4, 1e-6, "a run of probes only: the probes left are the work");
	}
	return done();
}
