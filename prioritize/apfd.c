/* apfd.c: APFD, NAPFD and RAUC of a queue against the bugs its tests reveal. */
#include "apfd.h"
#include "fsutil.h"
#include "xalloc.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void apfd_bugs_init(struct apfd_bugs *b)
{
	struct apfd_bugs zero = APFD_BUGS_INIT;

	*b = zero;
}

void apfd_bugs_release(struct apfd_bugs *b)
{
	intern_release(&b->tests);
	intern_release(&b->bugs);
	free(b->test);
	free(b->bug);
	apfd_bugs_init(b);
}

void apfd_bugs_add(struct apfd_bugs *b, const char *test, const char *bug)
{
	if (b->n + 1 > b->cap) {
		size_t c = b->cap;

		XGROW(b->test, c, b->n + 1);
		XGROW(b->bug, b->cap, b->n + 1);
	}
	b->test[b->n] = intern_add(&b->tests, 0, test, strlen(test), NULL);
	b->bug[b->n] = intern_add(&b->bugs, 0, bug, strlen(bug), NULL);
	b->n++;
}

static char *trim(char *s)
{
	char *end;

	while (*s == ' ' || *s == '\t')
		s++;
	end = s + strlen(s);
	while (end > s && (end[-1] == ' ' || end[-1] == '\t' || end[-1] == '\r'))
		*--end = '\0';
	return s;
}

int apfd_bugs_parse_csv(struct apfd_bugs *b, const char *text, size_t len, const char *name, struct err *e)
{
	char *copy = xstrndup(text, len), *line, *save = NULL;
	size_t lineno = 0;
	int r = -1;
	const char *p = copy;

	/* strtok would merge blank lines and lose the line numbers, so walk the lines by hand. */
	while (p && *p) {
		const char *nl = strchr(p, '\n');
		char *comma, *test, *bug;

		lineno++;
		line = xstrndup(p, nl ? (size_t)(nl - p) : strlen(p));
		p = nl ? nl + 1 : NULL;
		save = line;
		line = trim(line);
		if (!*line || *line == '#' || (lineno == 1 && !strcmp(line, "test_id,bug_id"))) {
			free(save);
			continue;
		}
		comma = strchr(line, ',');
		if (!comma || strchr(comma + 1, ',')) {
			err_set(e, EXIT_INPUT, "%s:%zu: expected 'test_id,bug_id', got '%.80s'", name, lineno, line);
			free(save);
			goto out;
		}
		*comma = '\0';
		test = trim(line);
		bug = trim(comma + 1);
		if (!*test || !*bug) {
			err_set(e, EXIT_INPUT, "%s:%zu: the %s is empty", name, lineno, *test ? "bug id" : "test id");
			free(save);
			goto out;
		}
		apfd_bugs_add(b, test, bug);
		free(save);
	}
	r = 0;
out:
	free(copy);
	return r;
}

int apfd_bugs_load_csv(struct apfd_bugs *b, const char *path, struct err *e)
{
	struct buf text = BUF_INIT;
	int r = -1;

	if (fs_read(path, &text, e) < 0)
		goto out;
	r = apfd_bugs_parse_csv(b, text.data, text.len, path, e);
out:
	buf_release(&text);
	return r;
}

/* --- queues ------------------------------------------------------------------------------------- */

void apfd_queue_init(struct apfd_queue *q)
{
	struct apfd_queue zero = APFD_QUEUE_INIT;

	*q = zero;
}

void apfd_queue_release(struct apfd_queue *q)
{
	for (size_t i = 0; i < q->n; i++)
		free(q->ids[i]);
	free(q->ids);
	apfd_queue_init(q);
}

void apfd_queue_add(struct apfd_queue *q, const char *id)
{
	XGROW(q->ids, q->cap, q->n + 1);
	q->ids[q->n++] = xstrdup(id);
}

int apfd_queue_load(struct apfd_queue *q, const char *path, struct err *e)
{
	FILE *fp = strcmp(path, "-") ? fopen(path, "r") : stdin;
	char *line = NULL;
	size_t cap = 0, lineno = 0;
	struct intern seen = INTERN_INIT;
	ssize_t n;
	int r = -1;

	if (!fp)
		return err_errno(e, errno == ENOENT ? EXIT_INPUT : EXIT_ENV, "cannot open '%s'", path);
	while ((n = getline(&line, &cap, fp)) >= 0) {
		char *s = line;
		cJSON *j = NULL;
		const cJSON *id;
		int added;

		lineno++;
		while (n > 0 && (s[n - 1] == '\n' || s[n - 1] == '\r' || s[n - 1] == ' '))
			s[--n] = '\0';
		while (*s == ' ' || *s == '\t')
			s++;
		if (!*s)
			continue;
		if (*s == '{') {
			j = cJSON_Parse(s);
			id = j ? cJSON_GetObjectItemCaseSensitive(j, "id") : NULL;
			if (!cJSON_IsString(id)) {
				err_set(e, EXIT_INPUT, "%s:%zu: a queue line needs a string \"id\"", path, lineno);
				cJSON_Delete(j);
				goto out;
			}
			s = id->valuestring;
		}
		intern_add(&seen, 0, s, strlen(s), &added);
		if (!added) {
			err_set(e, EXIT_INPUT, "%s:%zu: '%s' is queued twice", path, lineno, s);
			cJSON_Delete(j);
			goto out;
		}
		apfd_queue_add(q, s);
		cJSON_Delete(j);
	}
	if (ferror(fp)) {
		err_errno(e, EXIT_ENV, "cannot read '%s'", path);
		goto out;
	}
	r = 0;
out:
	free(line);
	intern_release(&seen);
	if (fp != stdin)
		fclose(fp);
	return r;
}

/* --- evaluation --------------------------------------------------------------------------------- */

void apfd_result_release(struct apfd_result *r)
{
	struct apfd_result zero = APFD_RESULT_INIT;

	free(r->curve_tests);
	*r = zero;
}

static int size_cmp(const void *a, const void *b)
{
	size_t x = *(const size_t *)a, y = *(const size_t *)b;

	return x < y ? -1 : x > y;
}

/* Area under a step curve over the first K tests, given the positions (sorted) where it rises by one. */
static double area(const size_t *rise, size_t nrise, size_t K)
{
	double a = 0;

	for (size_t i = 0; i < nrise && rise[i] <= K; i++)
		a += (double)(K - rise[i] + 1);
	return a;
}

int apfd_eval(const struct apfd_queue *q, const struct apfd_bugs *b, size_t budget, struct apfd_result *r,
	      struct err *e)
{
	size_t nt = b->tests.n, nb = b->bugs.n, n = q->n;
	size_t *first = xmalloc((nb ? nb : 1) * sizeof(size_t));     /* position from 1, 0: not found */
	size_t *toff = xcalloc(nt + 1, sizeof(size_t));
	uint32_t *tbug = xmalloc((b->n ? b->n : 1) * sizeof(uint32_t));
	size_t *tpos = xcalloc(nt ? nt : 1, sizeof(size_t));         /* queue position of each bug test */
	size_t *ideal = xmalloc((nb ? nb : 1) * sizeof(size_t));
	unsigned char *got = xcalloc(nb ? nb : 1, 1);
	struct intern seen = INTERN_INIT;
	double sum = 0;
	size_t m = 0, nideal = 0;
	int ret = -1;

	apfd_result_release(r);
	for (size_t i = 0; i < nb; i++)
		first[i] = 0;
	/* The bugs of each test, as lists. */
	for (size_t k = 0; k < b->n; k++)
		toff[b->test[k] + 1]++;
	for (size_t t = 0; t < nt; t++)
		toff[t + 1] += toff[t];
	{
		size_t *fill = xmalloc((nt + 1) * sizeof(size_t));

		memcpy(fill, toff, (nt + 1) * sizeof(size_t));
		for (size_t k = 0; k < b->n; k++)
			tbug[fill[b->test[k]]++] = b->bug[k];
		free(fill);
	}
	for (size_t k = 0; k < n; k++) {
		const char *id = q->ids[k];
		uint32_t t;
		int added;

		intern_add(&seen, 0, id, strlen(id), &added);
		if (!added) {
			err_set(e, EXIT_INPUT, "the queue names '%s' twice", id);
			goto out;
		}
		if ((t = intern_find(&b->tests, 0, id, strlen(id))) == UINT32_MAX)
			continue;
		tpos[t] = k + 1;
		for (size_t x = toff[t]; x < toff[t + 1]; x++)
			if (!first[tbug[x]])
				first[tbug[x]] = k + 1;
	}
	r->n = n;
	r->curve_tests = xmalloc((nb ? nb : 1) * sizeof(size_t));
	for (size_t i = 0; i < nb; i++)
		if (first[i]) {
			r->curve_tests[m++] = first[i];
			sum += (double)first[i];
		}
	qsort(r->curve_tests, m, sizeof(size_t), size_cmp);
	r->ncurve = m;
	r->m = m;
	r->missing = nb - m;
	r->apfd = m && n ? 1 - sum / ((double)n * (double)m) + 1 / (2.0 * (double)n) : NAN;
	r->budget = budget > n ? n : budget;
	r->napfd = NAN;
	if (r->budget && m) {
		double bsum = 0, p;
		size_t found = 0;

		for (size_t i = 0; i < m; i++)
			if (r->curve_tests[i] <= r->budget) {
				found++;
				bsum += (double)r->curve_tests[i];
			}
		p = (double)found / (double)m;
		r->found_in_budget = found;
		r->napfd = p - bsum / ((double)r->budget * (double)m) + p / (2.0 * (double)r->budget);
	}
	/* The ideal order: greedily the queued test with the most bugs not yet found; ideal[] gets, for
	 * each bug, the position in that order of the test that finds it (non-decreasing). */
	for (size_t pick = 1; nideal < m; pick++) {
		size_t best_gain = 0;
		uint32_t best = 0;

		for (uint32_t t = 0; t < nt; t++) {
			size_t gain = 0;

			if (!tpos[t])
				continue;
			for (size_t x = toff[t]; x < toff[t + 1]; x++)
				gain += !got[tbug[x]];
			if (gain > best_gain) {
				best_gain = gain;
				best = t;
			}
		}
		for (size_t x = toff[best]; x < toff[best + 1]; x++)
			if (!got[tbug[x]]) {
				got[tbug[x]] = 1;
				ideal[nideal++] = pick;
			}
		tpos[best] = 0;
	}
	for (int x = 0; x < APFD_RAUC_POINTS; x++) {
		size_t K = (size_t)ceil((double)n * (x + 1) / APFD_RAUC_POINTS);
		double ia;

		if (!K && n)
			K = 1;
		ia = area(ideal, nideal, K);
		r->rauc[x] = ia > 0 ? area(r->curve_tests, m, K) / ia : NAN;
	}
	ret = 0;
out:
	free(first);
	free(toff);
	free(tbug);
	free(tpos);
	free(ideal);
	free(got);
	intern_release(&seen);
	return ret;
}
