/* test-messages.c: every shipped "unsupported" pattern file (oracle/unsupported/NAME.txt) against the
 * real messages of that frontend in tests/data/messages/NAME.txt. Each message line says its verdict:
 * an "unsupported" message must be matched by some pattern, a "crash" message by none; and each
 * pattern must match at least one real message, so that no line of a pattern file goes untested (and
 * a pattern that matches nothing real is found and removed). */
#include "classify.h"
#include "buf.h"
#include "tap.h"
#include "xalloc.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void unescape(const char *s, struct buf *out)
{
	for (; *s; s++) {
		if (*s != '\\' || !s[1]) {
			buf_addc(out, *s);
			continue;
		}
		s++;
		buf_addc(out, *s == 'n' ? '\n' : *s == 't' ? '\t' : *s == 'r' ? '\r' : *s);
	}
}

/* Check one frontend's file of messages against its patterns. */
static void check_frontend(const char *name)
{
	char *pat = xasprintf("%s/oracle/unsupported/%s.txt", ABS_TOP_SRCDIR, name);
	char *data = xasprintf("%s/tests/data/messages/%s.txt", ABS_TOP_SRCDIR, name);
	struct classify c = CLASSIFY_INIT;
	struct err e = ERR_INIT;
	size_t *hits = NULL, wrong = 0, nmsg = 0, nunsup = 0, ncrash = 0;
	char *line = NULL;
	size_t cap = 0;
	ssize_t n;
	int lineno = 0;
	FILE *f;

	ok(classify_load(&c, pat, &e) == 0, "%s: the patterns load: %s", name, e.msg ? e.msg : "");
	hits = xcalloc(c.n + 1, sizeof(*hits));
	f = fopen(data, "r");
	ok(f != NULL, "%s: a file of real messages", name);
	while (f && (n = getline(&line, &cap, f)) > 0) {
		const struct classify_pattern *which = NULL;
		struct buf msg = BUF_INIT;
		char *tab;
		int want, got;

		lineno++;
		if (line[n - 1] == '\n')
			line[--n] = '\0';
		if (!*line || *line == '#')
			continue;
		tab = strchr(line, '\t');
		if (!tab) {
			diag("%s:%d: no tab", data, lineno);
			wrong++;
			continue;
		}
		*tab = '\0';
		want = !strcmp(line, "unsupported");
		if (!want && strcmp(line, "crash")) {
			diag("%s:%d: verdict '%s' is neither unsupported nor crash", data, lineno, line);
			wrong++;
			continue;
		}
		unescape(tab + 1, &msg);
		got = classify_match(&c, msg.data, &which);
		nmsg++;
		want ? nunsup++ : ncrash++;
		if (got != want) {
			diag("%s:%d: want %s, got %s%s%s: %.200s", data, lineno, line, got ? "unsupported by " : "crash",
			     got ? which->text : "", "", msg.data);
			wrong++;
		}
		/* Which patterns match this message, each of them: a pattern shadowed by an earlier one still
		 * needs a message of its own. */
		for (size_t i = 0; i < c.n; i++)
			if (regexec(&c.patterns[i].re, msg.data, 0, NULL, 0) == 0)
				hits[i]++;
		buf_release(&msg);
	}
	if (f)
		fclose(f);
	ok(nunsup > 0 && ncrash > 0, "%s: real messages of both verdicts (%zu unsupported, %zu crash)", name, nunsup,
	   ncrash);
	ok(wrong == 0, "%s: each of %zu messages gets its verdict (%zu wrong)", name, nmsg, wrong);
	for (size_t i = 0; i < c.n; i++)
		if (!hits[i]) {
			diag("%s:%d: '%s' matches no real message", pat, c.patterns[i].line, c.patterns[i].text);
			wrong++;
		}
	ok(wrong == 0, "%s: every pattern matches a real message", name);
	free(hits);
	free(line);
	free(pat);
	free(data);
	classify_release(&c);
	err_release(&e);
}

int main(void)
{
	char *dir = xasprintf("%s/oracle/unsupported", ABS_TOP_SRCDIR);
	struct dirent **names = NULL;
	int n = scandir(dir, &names, NULL, alphasort), files = 0;

	for (int i = 0; i < n; i++)
		files += strlen(names[i]->d_name) > 4 && !strcmp(names[i]->d_name + strlen(names[i]->d_name) - 4, ".txt");
	plan(files * 5);
	for (int i = 0; i < n; i++) {
		size_t len = strlen(names[i]->d_name);

		if (len > 4 && !strcmp(names[i]->d_name + len - 4, ".txt")) {
			char *name = xstrndup(names[i]->d_name, len - 4);

			check_frontend(name);
			free(name);
		}
		free(names[i]);
	}
	free(names);
	free(dir);
	return done();
}
