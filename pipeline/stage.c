/* stage.c: what the stages share of their saying (stage.h). */
#include "stage.h"

#include <stdarg.h>

#include "buf.h"

void stage_warn(const struct stage_io *io, const char *fmt, ...)
{
	struct buf line = BUF_INIT;
	va_list ap;

	va_start(ap, fmt);
	buf_vaddf(&line, fmt, ap);
	va_end(ap);
	io->warn(NULL, line.data);
	buf_release(&line);
}
