/* opts.c: parse a command's argv from its option table into the command's options struct, and
 * write its Options section from the same table (opts.h). */
#include "opts.h"

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "xalloc.h"

/* getopt_long's value for the long-only option at index i of the flattened table. */
#define LONG_ONLY_BASE 1000

void opts_list_release(struct opts_list *l)
{
	free(l->v);
	l->v = NULL;
	l->n = l->cap = 0;
}

int opts_parse_int(const char *text, int lo, int hi, int *out)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(text, &end, 10);
	if (!*text || *end || errno || v < lo || v > hi)
		return -1;
	*out = (int)v;
	return 0;
}

int opts_parse_seconds(const char *text, double *out)
{
	char *end;
	double v = strtod(text, &end);

	if (!*text || *end || !(v > 0) || v > 1e7)
		return -1;
	*out = v;
	return 0;
}

int opts_parse_size(const char *text, unsigned long long *out)
{
	char *end;
	double v = strtod(text, &end);
	double mult = 1;

	switch (*end) {
	case 'k': case 'K': mult = 1024.0; end++; break;
	case 'm': case 'M': mult = 1024.0 * 1024; end++; break;
	case 'g': case 'G': mult = 1024.0 * 1024 * 1024; end++; break;
	case '\0': break;
	default: return -1;
	}
	if (*end == 'b' || *end == 'B')
		end++;
	if (end == text || *end || !(v >= 0))
		return -1;
	*out = (unsigned long long)(v * mult);
	return 0;
}

/* The table with its fragments spliced in, in order, each entry's offset counted from the start of
 * the outermost struct; the array is the caller's. */
static void flatten(const struct opt *t, size_t base, struct opt **v, size_t *n, size_t *cap)
{
	for (; t && t->kind != OPT_KIND_END; t++) {
		if (t->kind == OPT_KIND_INCLUDE) {
			flatten(t->include, base + t->offset, v, n, cap);
			continue;
		}
		XGROW(*v, *cap, *n + 1);
		(*v)[*n] = *t;
		(*v)[(*n)++].offset += base;
	}
}

/* Set o's value, in the struct at base, from arg. 0, or -1 with e->msg. */
static int take(const struct opt *o, void *base, const char *arg, struct err *e)
{
	void *value = (char *)base + o->offset;
	struct opts_list *l;
	char *end;
	double d;

	switch (o->kind) {
	case OPT_KIND_FLAG:
		*(int *)value = 1;
		return 0;
	case OPT_KIND_STRING:
		*(const char **)value = arg;
		return 0;
	case OPT_KIND_INT:
		if (opts_parse_int(arg, o->lo, o->hi, value) < 0)
			return err_set(e, EXIT_USAGE, "--%s takes a number from %d to %d", o->long_name, o->lo, o->hi);
		return 0;
	case OPT_KIND_DOUBLE:
		d = strtod(arg, &end);
		if (end == arg || *end || !(d >= 0))
			return err_set(e, EXIT_USAGE, "--%s takes a non-negative number", o->long_name);
		*(double *)value = d;
		return 0;
	case OPT_KIND_SECONDS:
		if (opts_parse_seconds(arg, value) < 0)
			return err_set(e, EXIT_USAGE, "--%s takes a number of seconds", o->long_name);
		return 0;
	case OPT_KIND_SIZE:
		if (opts_parse_size(arg, value) < 0 || !*(unsigned long long *)value)
			return err_set(e, EXIT_USAGE, "--%s takes a size such as 512M or 4G", o->long_name);
		return 0;
	case OPT_KIND_LIST:
		l = value;
		XGROW(l->v, l->cap, l->n + 1);
		l->v[l->n++] = arg;
		return 0;
	case OPT_KIND_CALL:
		if (o->parse(value, arg, e) < 0) {
			e->code = EXIT_USAGE;
			return -1;
		}
		return 0;
	default:
		return err_set(e, EXIT_USAGE, "--%s cannot be parsed", o->long_name);
	}
}

/* The option getopt_long answered opt for, or -1 with e->msg saying what was wrong. */
static int which(const struct opt *v, size_t n, int opt, const char *bad, struct err *e)
{
	/* A long option is named as written; a short one may sit in a cluster such as -qx. */
	if (opt == '?' && !strncmp(bad, "--", 2)) {
		size_t len = strcspn(bad + 2, "=");

		for (size_t i = 0; i < n; i++)
			if (strlen(v[i].long_name) == len && !strncmp(v[i].long_name, bad + 2, len)) {
				if (bad[2 + len] != '=')
					break;
				return err_set(e, EXIT_USAGE, "option '--%s' takes no argument", v[i].long_name);
			}
		return err_set(e, EXIT_USAGE, "unknown option '%s'", bad);
	}
	if (opt == '?')
		return err_set(e, EXIT_USAGE, "unknown option '-%c'", optopt);
	if (opt == ':' && !strncmp(bad, "--", 2))
		return err_set(e, EXIT_USAGE, "option '%s' takes an argument", bad);
	if (opt == ':')
		return err_set(e, EXIT_USAGE, "option '-%c' takes an argument", optopt);
	if (opt >= LONG_ONLY_BASE)
		return opt - LONG_ONLY_BASE;
	for (size_t i = 0; i < n; i++)
		if (v[i].short_name == opt)
			return (int)i;
	return err_set(e, EXIT_USAGE, "unknown option '%s'", bad);
}

int opts_parse(const struct opt *table, int argc, char **argv, void *base, struct err *e)
{
	struct opt *v = NULL;
	struct option *longopts;
	struct buf shortopts = BUF_INIT;
	size_t n = 0, cap = 0;
	int opt, i, r = -1;

	flatten(table, 0, &v, &n, &cap);
	longopts = xcalloc(n + 1, sizeof(*longopts));
	/* ':' first: a missing argument is told apart from an unknown option. */
	buf_addc(&shortopts, ':');
	for (size_t k = 0; k < n; k++) {
		longopts[k].name = v[k].long_name;
		longopts[k].has_arg = v[k].arg ? required_argument : no_argument;
		longopts[k].val = v[k].short_name ? v[k].short_name : LONG_ONLY_BASE + (int)k;
		if (v[k].short_name) {
			buf_addc(&shortopts, v[k].short_name);
			if (v[k].arg)
				buf_addc(&shortopts, ':');
		}
	}
	opterr = 0;
	optind = 1;
	while ((opt = getopt_long(argc, argv, shortopts.data, longopts, NULL)) != -1)
		if ((i = which(v, n, opt, argv[optind - 1], e)) < 0 || take(&v[i], base, optarg, e) < 0)
			goto out;
	r = optind;
out:
	buf_release(&shortopts);
	free(longopts);
	free(v);
	return r;
}

/* "  -o, --output FILE" / "      --queue FILE": the left column of an option's row. */
static void add_left(struct buf *b, const struct opt *o)
{
	if (o->short_name)
		buf_addf(b, "  -%c, --%s", o->short_name, o->long_name);
	else
		buf_addf(b, "      --%s", o->long_name);
	if (o->arg)
		buf_addf(b, " %s", o->arg);
}

void opts_usage(const struct opt *table, struct buf *out)
{
	struct opt *v = NULL;
	struct buf left = BUF_INIT;
	size_t n = 0, cap = 0, width = 0;

	flatten(table, 0, &v, &n, &cap);
	for (size_t i = 0; i < n; i++) {
		buf_reset(&left);
		add_left(&left, &v[i]);
		if (left.len > width)
			width = left.len;
	}
	if (n)
		buf_adds(out, "\nOptions:\n");
	for (size_t i = 0; i < n; i++) {
		const char *h = v[i].help, *nl;

		buf_reset(&left);
		add_left(&left, &v[i]);
		buf_addf(out, "%-*s  ", (int)width, left.data);
		/* Continuation lines line up under the first. */
		while ((nl = strchr(h, '\n'))) {
			buf_addf(out, "%.*s\n%*s", (int)(nl - h), h, (int)width + 2, "");
			h = nl + 1;
		}
		buf_addf(out, "%s\n", h);
	}
	buf_release(&left);
	free(v);
}

int opts_default_jobs(void)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);

	return n > 0 ? (int)(n > 64 ? 64 : n) : 1;
}

unsigned long long opts_default_memory(int jobs)
{
	long pages = sysconf(_SC_PHYS_PAGES), size = sysconf(_SC_PAGESIZE);

	if (pages <= 0 || size <= 0 || jobs < 1)
		return 0;
	return (unsigned long long)pages * (unsigned long long)size / 4 * 3 / (unsigned long long)jobs;
}
