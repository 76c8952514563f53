/* cmd.c: what every command shares: its usage text and option parsing (on lib/opts.h), its
 * messages, and the defaults of -j and -m. Commands and main.c both stand on it; it stands on lib/
 * only. */
#include "cmd.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "buf.h"
#include "config.h"
#include "esc.h"

int cmd_parse(const struct cmd_entry *c, int argc, char **argv, void *base)
{
	struct err e = ERR_INIT;
	int r = opts_parse(c->opts, argc, argv, base, &e);

	if (r < 0)
		cmd_usage_error(c, "%s", e.msg);
	err_release(&e);
	return r;
}

void cmd_usage(const struct cmd_entry *c, FILE *fp)
{
	struct buf text = BUF_INIT;

	fputs(c->usage, fp);
	opts_usage(c->opts, &text);
	if (text.len)
		fputs(text.data, fp);
	if (c->more)
		fprintf(fp, "\n%s", c->more);
	buf_release(&text);
	/* The frontends are known only at run time, from their adapters' declarations. */
	if (c->help)
		c->help(fp);
}

int cmd_error(const struct err *e)
{
	fflush(stdout);
	/* Messages and details carry frontends' and libraries' text (esc.h). */
	fprintf(stderr, "ferry: error: %s\n", esc_str(e->msg));
	if (e->detail && *e->detail) {
		const char *d = esc_lines(e->detail);
		size_t n = strlen(d);

		fprintf(stderr, "%s%s", d, d[n - 1] == '\n' ? "" : "\n");
	}
	return e->code ? (int)e->code : EXIT_ENV;
}

int cmd_usage_error(const struct cmd_entry *c, const char *fmt, ...)
{
	va_list ap;

	fflush(stdout);
	fputs("ferry: error: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	if (c)
		fprintf(stderr, "\n(see 'ferry %s --help')\n", c->name);
	else
		fputs("\n(see 'ferry --help')\n", stderr);
	return EXIT_USAGE;
}

void cmd_warn(const char *fmt, ...)
{
	struct buf msg = BUF_INIT;
	va_list ap;

	fflush(stdout);
	va_start(ap, fmt);
	buf_vaddf(&msg, fmt, ap);
	va_end(ap);
	/* A warning names operators and quotes libraries' reasons (esc.h). */
	fprintf(stderr, "ferry: warning: %s\n", esc_str(msg.data));
	buf_release(&msg);
}

void cmd_warn_line(void *ctx, const char *line)
{
	(void)ctx;
	cmd_warn("%s", line);
}

const char *cmd_python(void)
{
	const char *p = getenv("FERRY_PYTHON");

	return p && *p ? p : FERRY_PYTHON;
}
