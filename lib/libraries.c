/* libraries.c: the source libraries' table (libraries.h), read from ferry.templates.registry. */
#include "py.h"

#include <stdlib.h>
#include <string.h>

#include "libraries.h"
#include "xalloc.h"

static struct library *table;
static size_t ntable;
static int loaded;

/* The comma-separated items of the text [s, s + n) as a NULL-terminated array (owned). */
static char **split_list(const char *s, size_t n)
{
	char **v = xcalloc(n + 2, sizeof(*v));
	size_t k = 0;

	while (n) {
		size_t len = 0;

		while (len < n && s[len] != ',')
			len++;
		if (len)
			v[k++] = xstrndup(s, len);
		s += len;
		n -= len;
		if (n) {
			s++;
			n--;
		}
	}
	return v;
}

/* One line of registry.table(): NAME TAB SUITES TAB FILTER_OPS TAB DTYPES TAB TOLERANCES. */
static int parse_line(const char *line, size_t n, struct library *l)
{
	const char *field[5];
	size_t len[5], k = 0;

	for (const char *p = line, *end = line + n; k < 5; k++) {
		const char *tab = memchr(p, '\t', (size_t)(end - p));

		field[k] = p;
		len[k] = tab ? (size_t)(tab - p) : (size_t)(end - p);
		if (!tab) {
			k++;
			break;
		}
		p = tab + 1;
	}
	if (k != 5 || !len[0])
		return -1;
	memset(l, 0, sizeof(*l));
	l->name = xstrndup(field[0], len[0]);
	l->has_suites = len[1] > 0;
	l->filter_ops = len[2] == 1 && field[2][0] == '1';
	l->dtypes = split_list(field[3], len[3]);
	l->tolerances = xstrndup(field[4], len[4]);
	return 0;
}

int libraries_load(const char *python, struct err *e)
{
	char *text = NULL;
	size_t cap = 0;
	int r = -1;

	if (loaded)
		return 0;
	if (py_start(python, 0, e) < 0 ||
	    !(text = py_call_strings("ferry.templates.registry", "table", NULL, 0, "cannot list the libraries", e)))
		goto out;
	for (const char *line = text; *line;) {
		size_t n = strcspn(line, "\n");

		XGROW(table, cap, ntable + 1);
		if (parse_line(line, n, &table[ntable]) < 0) {
			err_set(e, EXIT_ENV, "ferry.templates.registry gave a line ferry cannot read: '%.*s'", (int)n,
				line);
			libraries_release();
			goto out;
		}
		ntable++;
		line += n + (line[n] == '\n');
	}
	loaded = 1;
	r = 0;
out:
	free(text);
	return r;
}

int libraries_loaded(void)
{
	return loaded;
}

const struct library *libraries_find(const char *name)
{
	for (size_t i = 0; i < ntable; i++)
		if (!strcmp(table[i].name, name))
			return &table[i];
	return NULL;
}

size_t libraries_count(void)
{
	return ntable;
}

const struct library *libraries_at(size_t i)
{
	return i < ntable ? &table[i] : NULL;
}

void libraries_names(struct buf *out)
{
	for (size_t i = 0; i < ntable; i++)
		buf_addf(out, "%s%s", i ? ", " : "", table[i].name);
}

void libraries_release(void)
{
	for (size_t i = 0; i < ntable; i++) {
		for (char **d = table[i].dtypes; d && *d; d++)
			free(*d);
		free(table[i].dtypes);
		free(table[i].name);
		free(table[i].tolerances);
	}
	free(table);
	table = NULL;
	ntable = 0;
	loaded = 0;
}
