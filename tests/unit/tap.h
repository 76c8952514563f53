/* tap.h: a small Test Anything Protocol emitter for the C unit tests (run by automake's TAP driver).
 * plan(n) first; ok(cond, name...) and is()/is_int()/is_dbl() print one result each; done() returns
 * the exit status. A failed check prints what it expected and what it got as a TAP diagnostic. */
#ifndef FERRY_TAP_H
#define FERRY_TAP_H

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static int tap_n, tap_failed;

static inline void plan(int n)
{
	printf("1..%d\n", n);
}

static inline int tap_vok(int cond, const char *fmt, va_list ap)
{
	tap_n++;
	if (!cond)
		tap_failed++;
	printf("%sok %d - ", cond ? "" : "not ", tap_n);
	vprintf(fmt, ap);
	putchar('\n');
	fflush(stdout);
	return cond;
}

static inline int __attribute__((format(printf, 2, 3))) ok(int cond, const char *fmt, ...)
{
	va_list ap;
	int r;

	va_start(ap, fmt);
	r = tap_vok(cond, fmt, ap);
	va_end(ap);
	return r;
}

static inline int __attribute__((format(printf, 3, 4))) is(const char *got, const char *want, const char *fmt, ...)
{
	int cond = (got && want) ? strcmp(got, want) == 0 : got == want;
	va_list ap;

	va_start(ap, fmt);
	tap_vok(cond, fmt, ap);
	va_end(ap);
	if (!cond)
		printf("#   got:  '%s'\n#   want: '%s'\n", got ? got : "(null)", want ? want : "(null)");
	return cond;
}

static inline int __attribute__((format(printf, 3, 4))) is_int(long long got, long long want, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	tap_vok(got == want, fmt, ap);
	va_end(ap);
	if (got != want)
		printf("#   got:  %lld\n#   want: %lld\n", got, want);
	return got == want;
}

static inline int __attribute__((format(printf, 4, 5))) is_dbl(double got, double want, double tol, const char *fmt, ...)
{
	int cond = fabs(got - want) <= tol || (isnan(got) && isnan(want));
	va_list ap;

	va_start(ap, fmt);
	tap_vok(cond, fmt, ap);
	va_end(ap);
	if (!cond)
		printf("#   got:  %.17g\n#   want: %.17g\n", got, want);
	return cond;
}

static inline void diag(const char *fmt, ...)
{
	va_list ap;

	printf("# ");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
}

static inline int done(void)
{
	return tap_failed ? 1 : 0;
}

#endif
