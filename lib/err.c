/* err.c: struct err. */
#include "err.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void err_init(struct err *e)
{
	e->msg[0] = '\0';
	e->code = EXIT_OK;
	e->detail = NULL;
}

void err_release(struct err *e)
{
	free(e->detail);
	err_init(e);
}

int err_set(struct err *e, enum ferry_exit code, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(e->msg, sizeof(e->msg), fmt, ap);
	va_end(ap);
	e->code = code;
	free(e->detail);
	e->detail = NULL;
	return -1;
}

int err_errno(struct err *e, enum ferry_exit code, const char *fmt, ...)
{
	int saved = errno;
	va_list ap;
	size_t n;

	va_start(ap, fmt);
	vsnprintf(e->msg, sizeof(e->msg), fmt, ap);
	va_end(ap);
	n = strlen(e->msg);
	snprintf(e->msg + n, sizeof(e->msg) - n, ": %s", strerror(saved));
	e->code = code;
	free(e->detail);
	e->detail = NULL;
	return -1;
}

int err_prefix(struct err *e, const char *fmt, ...)
{
	char head[512], old[sizeof(e->msg)];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(head, sizeof(head), fmt, ap);
	va_end(ap);
	memcpy(old, e->msg, sizeof(old));
	snprintf(e->msg, sizeof(e->msg), "%.511s: %.510s", head, old);
	return -1;
}

void err_set_detail(struct err *e, char *detail)
{
	free(e->detail);
	e->detail = detail;
}
