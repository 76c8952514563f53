/* template.c: message templates learned from the messages (template.h). */
#include <ctype.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "template.h"
#include "xalloc.h"

/* A longer line is templated on its first tokens: what decides is rarely past them. */
#define TPL_MAX_TOKENS 64
/* The share of places that must agree for two lines of one length to be one template. */
#define TPL_AGREE 0.75

static const char wild[] = "<*>";
static const char number[] = "<#>";

struct tpl {
	char **tok;  /* owned, except the shared wild and number */
	size_t n;
};

struct template_set {
	struct tpl *by_len[TPL_MAX_TOKENS + 1]; /* the templates of n tokens */
	size_t len[TPL_MAX_TOKENS + 1], cap[TPL_MAX_TOKENS + 1];
	size_t count;
};

struct template_set *template_new(void)
{
	return xcalloc(1, sizeof(struct template_set));
}

static void tok_free(char *tok)
{
	if (tok != wild && tok != number)
		free(tok);
}

void template_free(struct template_set *t)
{
	if (!t)
		return;
	for (size_t n = 0; n <= TPL_MAX_TOKENS; n++) {
		for (size_t i = 0; i < t->len[n]; i++) {
			for (size_t k = 0; k < n; k++)
				tok_free(t->by_len[n][i].tok[k]);
			free(t->by_len[n][i].tok);
		}
		free(t->by_len[n]);
	}
	free(t);
}

size_t template_count(const struct template_set *t)
{
	return t->count;
}

/* Whether [s, s + len) is a number, with the punctuation that follows one in a sentence. */
static int is_number(const char *s, size_t len)
{
	size_t i = 0, digits = 0;

	while (len && strchr(",;:.)]", s[len - 1]))
		len--;
	/* A numbered name is a number: LLVM's values and metadata (%17, !42), a register ($3). */
	if (len > 1 && strchr("%!$#", s[0]) && isdigit((unsigned char)s[1]))
		i++;
	else if (i < len && (s[i] == '-' || s[i] == '+'))
		i++;
	if (i + 2 < len && s[i] == '0' && (s[i + 1] == 'x' || s[i + 1] == 'X')) {
		for (i += 2; i < len && isxdigit((unsigned char)s[i]); i++)
			digits++;
		return digits && i == len;
	}
	for (; i < len && isdigit((unsigned char)s[i]); i++)
		digits++;
	if (i < len && s[i] == '.')
		for (i++; i < len && isdigit((unsigned char)s[i]); i++)
			digits++;
	if (digits && i < len && (s[i] == 'e' || s[i] == 'E')) {
		size_t e = ++i;

		if (i < len && (s[i] == '-' || s[i] == '+'))
			i++;
		for (e = i; i < len && isdigit((unsigned char)s[i]); i++)
			;
		if (i == e)
			return 0;
	}
	return digits && i == len;
}

/* Where a bracketed list that opens at p ends (past its closer), or NULL: a shape or an argument
 * list, "(2, 3, 4)", "[1, 0]", "(in_0, in_1)", "(T.int64(3), T.int64(4))", whose length varies
 * with the test and would make lines of one template differ in their count of tokens. Only names
 * (dotted too), numbers, commas, spaces and nested brackets; at most 120 characters. */
static const char *list_end(const char *p)
{
	int depth = 0;

	for (const char *q = p; *q && q - p < 120; q++) {
		if (*q == '(' || *q == '[')
			depth++;
		else if (*q == ')' || *q == ']') {
			if (--depth == 0)
				return q + 1;
		} else if (!isalnum((unsigned char)*q) && !strchr("_,- ?.", *q))
			return NULL;
	}
	return NULL;
}

/* The tokens of line: a quoted string (closed on the line) is one, and so is a bracketed list
 * (list_end) with what it is attached to; a number is <#>. At most
 * TPL_MAX_TOKENS; *n receives the count. The array and its strings are the caller's (tok_free). */
static char **tokens(const char *line, size_t *n)
{
	char **tok = xcalloc(TPL_MAX_TOKENS, sizeof(*tok));
	const char *p = line;

	*n = 0;
	while (*n < TPL_MAX_TOKENS) {
		const char *start, *close;
		size_t len;

		while (isspace((unsigned char)*p))
			p++;
		if (!*p)
			break;
		start = p;
		if ((*p == '\'' || *p == '"') && (close = strchr(p + 1, *p))) {
			p = close + 1;
		} else {
			while (*p && !isspace((unsigned char)*p)) {
				const char *end = *p == '(' || *p == '[' ? list_end(p) : NULL;

				p = end ? end : p + 1;
			}
		}
		len = (size_t)(p - start);
		tok[(*n)++] = is_number(start, len) ? (char *)number : xstrndup(start, len);
	}
	return tok;
}

static void tokens_free(char **tok, size_t n)
{
	for (size_t k = 0; k < n; k++)
		tok_free(tok[k]);
	free(tok);
}

/* Whether a token is a heading: a word that ends in a colon. */
static bool label(const char *tok)
{
	size_t n = strlen(tok);

	return n > 1 && tok[n - 1] == ':' && isalpha((unsigned char)tok[0]);
}

/* The length of the callee when tok is a call, a dotted name and its bracketed arguments to the
 * token's end ("R.power(in_0, in_1)", or a template's "R.power(<*>)"), else 0. */
static size_t callee(const char *tok)
{
	size_t n = 0, len = strlen(tok);

	while (isalnum((unsigned char)tok[n]) || tok[n] == '_' || tok[n] == '.')
		n++;
	return n && tok[n] == '(' && len > n + 1 && tok[len - 1] == ')' && isalpha((unsigned char)tok[0]) ? n : 0;
}

/* How a template's token and a line's agree: 0 they do, 1 they differ as values do, -1 they are
 * calls of two operations. What a message says was called decides (TVM's "R.power(in_0, in_1) uses
 * datatype ..." and "R.multiply(lv1, in_0) uses ..." are two converters' mistakes), its arguments
 * vary with the model. */
static int differ(const char *have, const char *tok)
{
	size_t a, b;

	if (have == wild || !strcmp(have, tok))
		return 0;
	a = callee(have);
	b = callee(tok);
	if (a && b)
		return a == b && !strncmp(have, tok, a) ? (strcmp(have + a, "(<*>)") ? 1 : 0) : -1;
	return 1;
}

/* The template of t's that tok (n tokens) belongs to, or NULL: the one that disagrees at the
 * fewest places, when at least TPL_AGREE of the places agree, and calls no other operation. */
static struct tpl *closest(const struct template_set *t, char *const *tok, size_t n)
{
	struct tpl *best = NULL;
	size_t best_d = 0;

	for (size_t i = 0; i < t->len[n]; i++) {
		struct tpl *c = &t->by_len[n][i];
		size_t d = 0;
		bool other = false;

		for (size_t k = 0; k < n && !other; k++) {
			int w = differ(c->tok[k], tok[k]);

			other = w < 0;
			d += w > 0;
		}
		if (other)
			continue;
		/* A value alone (a KeyError's message is its key: 'torch.int16'), or a heading and one
		 * value ("dtype: torch.int16"): what varies is the value. */
		if ((n == 1 && d == 1) || (n == 2 && d == 1 && label(tok[0]) && !strcmp(c->tok[0], tok[0])))
			d = 1;
		else if (d && (double)(n - d) < TPL_AGREE * (double)n)
			continue;
		if (!best || d < best_d) {
			best = c;
			best_d = d;
		}
	}
	return best;
}

static void learn(struct template_set *t, const char *line)
{
	size_t n;
	char **tok = tokens(line, &n);
	struct tpl *c = closest(t, tok, n);

	if (!c) {
		XGROW(t->by_len[n], t->cap[n], t->len[n] + 1);
		t->by_len[n][t->len[n]++] = (struct tpl){ tok, n };
		t->count++;
		return;
	}
	for (size_t k = 0; k < n; k++) {
		size_t a;

		if (!differ(c->tok[k], tok[k]))
			continue;
		/* A call keeps its operation; only its arguments vary. */
		a = callee(tok[k]);
		tok_free(c->tok[k]);
		c->tok[k] = a ? xasprintf("%.*s(<*>)", (int)a, tok[k]) : (char *)wild;
	}
	tokens_free(tok, n);
}

static int by_text(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

void template_learn_all(struct template_set *t, const char *const *lines, size_t n)
{
	const char **sorted;

	if (!n)
		return;  /* lines may be NULL then, which memcpy and qsort must not be given */
	sorted = xcalloc(n + 1, sizeof(*sorted));
	memcpy(sorted, lines, n * sizeof(*sorted));
	qsort(sorted, n, sizeof(*sorted), by_text);
	for (size_t i = 0; i < n; i++)
		if (!i || strcmp(sorted[i], sorted[i - 1]))
			learn(t, sorted[i]);
	free(sorted);
}

void template_match(const struct template_set *t, const char *line, struct buf *out)
{
	size_t n;
	char **tok = tokens(line, &n);
	const struct tpl *c = closest(t, tok, n);

	for (size_t k = 0; k < n; k++)
		buf_addf(out, "%s%s", k ? " " : "", c ? c->tok[k] : tok[k]);
	tokens_free(tok, n);
}
