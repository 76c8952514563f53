/* opts.c: parse a command's argv from its option table and write its Options section from the same
 * table (opts.h). */
#include "opts.h"

#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "cmd.h"
#include "xalloc.h"

/* getopt_long's value for the long-only option at index i of the flattened table. */
#define LONG_ONLY_BASE 1000

void opts_list_release(struct opts_list *l)
{
	free(l->v);
	l->v = NULL;
	l->n = l->cap = 0;
}

/* The table with its fragments spliced in, in order; NULL-terminated array of borrowed entries. */
static void flatten(const struct opt *t, const struct opt ***v, size_t *n, size_t *cap)
{
	for (; t && t->kind != OPT_KIND_END; t++) {
		if (t->kind == OPT_KIND_INCLUDE) {
			flatten(t->include, v, n, cap);
			continue;
		}
		XGROW(*v, *cap, *n + 2);
		(*v)[(*n)++] = t;
		(*v)[*n] = NULL;
	}
}

/* Set o's variable from arg. 0, or -1 with e->msg. */
static int take(const struct opt *o, const char *arg, struct err *e)
{
	struct opts_list *l;
	char *end;
	double d;

	switch (o->kind) {
	case OPT_KIND_FLAG:
		*(int *)o->value = 1;
		return 0;
	case OPT_KIND_STRING:
		*(const char **)o->value = arg;
		return 0;
	case OPT_KIND_INT:
		if (cmd_parse_int(arg, o->lo, o->hi, o->value) < 0)
			return err_set(e, EXIT_USAGE, "--%s takes a number from %d to %d", o->long_name, o->lo, o->hi);
		return 0;
	case OPT_KIND_DOUBLE:
		d = strtod(arg, &end);
		if (end == arg || *end || !(d >= 0))
			return err_set(e, EXIT_USAGE, "--%s takes a non-negative number", o->long_name);
		*(double *)o->value = d;
		return 0;
	case OPT_KIND_SECONDS:
		if (cmd_parse_seconds(arg, o->value) < 0)
			return err_set(e, EXIT_USAGE, "--%s takes a number of seconds", o->long_name);
		return 0;
	case OPT_KIND_SIZE:
		if (cmd_parse_size(arg, o->value) < 0 || !*(unsigned long long *)o->value)
			return err_set(e, EXIT_USAGE, "--%s takes a size such as 512M or 4G", o->long_name);
		return 0;
	case OPT_KIND_LIST:
		l = o->value;
		XGROW(l->v, l->cap, l->n + 1);
		l->v[l->n++] = arg;
		return 0;
	case OPT_KIND_CALL:
		return o->parse(o->value, arg, e);
	default:
		return err_set(e, EXIT_USAGE, "--%s cannot be parsed", o->long_name);
	}
}

int opts_parse(const struct cmd_entry *c, int argc, char **argv)
{
	const struct opt **v = NULL;
	struct option *longopts;
	struct buf shortopts = BUF_INIT;
	struct err e = ERR_INIT;
	size_t n = 0, cap = 0;
	int opt, r = -1;

	flatten(c->opts, &v, &n, &cap);
	longopts = xcalloc(n + 1, sizeof(*longopts));
	/* ':' first: a missing argument is told apart from an unknown option. */
	buf_addc(&shortopts, ':');
	for (size_t i = 0; i < n; i++) {
		longopts[i].name = v[i]->long_name;
		longopts[i].has_arg = v[i]->arg ? required_argument : no_argument;
		longopts[i].val = v[i]->short_name ? v[i]->short_name : LONG_ONLY_BASE + (int)i;
		if (v[i]->short_name) {
			buf_addc(&shortopts, v[i]->short_name);
			if (v[i]->arg)
				buf_addc(&shortopts, ':');
		}
	}
	opterr = 0;
	optind = 1;
	while ((opt = getopt_long(argc, argv, shortopts.data, longopts, NULL)) != -1) {
		const struct opt *o = NULL;
		const char *bad = argv[optind - 1];

		/* A long option is named as written; a short one may sit in a cluster such as -qx. */
		if (opt == '?' && !strncmp(bad, "--", 2)) {
			size_t len = strcspn(bad + 2, "=");

			for (size_t i = 0; !o && i < n; i++)
				if (strlen(v[i]->long_name) == len && !strncmp(v[i]->long_name, bad + 2, len))
					o = v[i];
			if (o && bad[2 + len] == '=')
				cmd_usage_error(c, "option '--%s' takes no argument", o->long_name);
			else
				cmd_usage_error(c, "unknown option '%s'", bad);
			goto out;
		}
		if (opt == '?') {
			cmd_usage_error(c, "unknown option '-%c'", optopt);
			goto out;
		}
		if (opt == ':' && !strncmp(bad, "--", 2)) {
			cmd_usage_error(c, "option '%s' takes an argument", bad);
			goto out;
		}
		if (opt == ':') {
			cmd_usage_error(c, "option '-%c' takes an argument", optopt);
			goto out;
		}
		if (opt >= LONG_ONLY_BASE)
			o = v[opt - LONG_ONLY_BASE];
		for (size_t i = 0; !o && i < n; i++)
			if (v[i]->short_name == opt)
				o = v[i];
		if (!o) {
			cmd_usage_error(c, "unknown option '%s'", bad);
			goto out;
		}
		if (take(o, optarg, &e) < 0) {
			cmd_usage_error(c, "%s", e.msg);
			goto out;
		}
	}
	r = optind;
out:
	err_release(&e);
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

void opts_usage(const struct cmd_entry *c, FILE *fp)
{
	const struct opt **v = NULL;
	struct buf left = BUF_INIT;
	size_t n = 0, cap = 0, width = 0;

	fputs(c->usage, fp);
	flatten(c->opts, &v, &n, &cap);
	for (size_t i = 0; i < n; i++) {
		buf_reset(&left);
		add_left(&left, v[i]);
		if (left.len > width)
			width = left.len;
	}
	if (n)
		fputs("\nOptions:\n", fp);
	for (size_t i = 0; i < n; i++) {
		const char *h = v[i]->help, *nl;

		buf_reset(&left);
		add_left(&left, v[i]);
		fprintf(fp, "%-*s  ", (int)width, left.data);
		/* Continuation lines line up under the first. */
		while ((nl = strchr(h, '\n'))) {
			fprintf(fp, "%.*s\n%*s", (int)(nl - h), h, (int)width + 2, "");
			h = nl + 1;
		}
		fprintf(fp, "%s\n", h);
	}
	if (c->more)
		fprintf(fp, "\n%s", c->more);
	buf_release(&left);
	free(v);
}
