/* spec.c: the parser of the operator spec language (gen/specs/README) and the checks that need no
 * solving: names used before they are chosen, where clauses that look ahead, unknown names,
 * functions and dtypes. Names resolve to slots here, so that evaluation never looks a name up. */
#include "spec.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "home.h"
#include "fsutil.h"
#include "xalloc.h"

/* --- tokens ------------------------------------------------------------------------------------- */

enum tok {
	T_EOF, T_EOL, T_INT, T_FLOAT, T_STR, T_NAME, T_LP, T_RP, T_LB, T_RB, T_COMMA, T_COLON, T_DOT,
	T_DOTDOT, T_ELLIPSIS, T_PLUS, T_MINUS, T_STAR, T_SLASH, T_PERCENT, T_EQ, T_NE, T_LT, T_LE, T_GT,
	T_GE, T_ASSIGN, T_QUESTION, T_BAR, T_BAD
};

struct token {
	enum tok kind;
	int line, col;
	const char *text;
	size_t len;
	int64_t i;
	double f;
};

struct parser {
	struct spec_set *set;
	const char *file;
	const char *p, *end;
	int line, col;
	struct token tok;
	int no_in;                 /* 'in' ends the expression (the len of ints) */
	int depth;                 /* how deep the expression being read nests (enter) */
	struct err *e;
	struct block *block;       /* the block being read */
	struct stmt *stmts;
	size_t nstmts, cap;
};

const char *spec_intern(struct spec_set *s, const char *str)
{
	return strmap_get(&s->names, str, NULL)->key;
}

static const char *intern_n(struct spec_set *s, const char *str, size_t n)
{
	char tmp[256];

	if (n >= sizeof(tmp))
		n = sizeof(tmp) - 1;
	memcpy(tmp, str, n);
	tmp[n] = '\0';
	return spec_intern(s, tmp);
}

static int fail_at(struct parser *ps, int line, int col, const char *fmt, ...) __attribute__((format(printf, 4, 5)));

static int fail_at(struct parser *ps, int line, int col, const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	return err_set(ps->e, EXIT_INPUT, "%s:%d:%d: %s", ps->file, line, col, msg);
}

static const char *tok_name(const struct token *t, char *buf, size_t size)
{
	if (t->kind == T_EOF)
		return "the end of the file";
	if (t->kind == T_EOL)
		return "the end of the line";
	snprintf(buf, size, "'%.*s'", (int)(t->len > 40 ? 40 : t->len), t->text);
	return buf;
}

static int unexpected(struct parser *ps, const char *wanted)
{
	char b[64];

	return fail_at(ps, ps->tok.line, ps->tok.col, "expected %s, got %s", wanted, tok_name(&ps->tok, b, sizeof(b)));
}

static void advance_char(struct parser *ps)
{
	if (*ps->p == '\n') {
		ps->line++;
		ps->col = 1;
	} else {
		ps->col++;
	}
	ps->p++;
}

/* Step past blanks, comments and line continuations up to the next token (or the end). */
static int skip_blanks(struct parser *ps)
{
	for (;;) {
		if (ps->p >= ps->end)
			break;
		if (*ps->p == ' ' || *ps->p == '\t' || *ps->p == '\r') {
			advance_char(ps);
		} else if (*ps->p == '#') {
			while (ps->p < ps->end && *ps->p != '\n')
				advance_char(ps);
		} else if (*ps->p == '\\') {
			/* A continuation: backslash, optional blanks (and a comment), then the newline. */
			const char *q = ps->p + 1;

			while (q < ps->end && (*q == ' ' || *q == '\t' || *q == '\r'))
				q++;
			if (q < ps->end && *q != '\n')
				return fail_at(ps, ps->line, ps->col, "a backslash continues a line only at its end");
			while (ps->p < q)
				advance_char(ps);
			if (ps->p < ps->end)
				advance_char(ps);
		} else {
			break;
		}
	}
	return 0;
}

/* A number starting at s (a digit): an int, or a float when it has a fraction or an exponent. */
static int lex_number(struct parser *ps, struct token *t, const char *s)
{
	const char *q = s;
	int is_float = 0;

	while (q < ps->end && isdigit((unsigned char)*q))
		q++;
	if (q + 1 < ps->end && *q == '.' && isdigit((unsigned char)q[1])) {
		is_float = 1;
		for (q++; q < ps->end && isdigit((unsigned char)*q); q++)
			;
	}
	if (q < ps->end && (*q == 'e' || *q == 'E')) {
		const char *r = q + 1;

		if (r < ps->end && (*r == '+' || *r == '-'))
			r++;
		if (r < ps->end && isdigit((unsigned char)*r)) {
			is_float = 1;
			for (q = r; q < ps->end && isdigit((unsigned char)*q); q++)
				;
		}
	}
	{
		char tmp[64];
		size_t n = (size_t)(q - s);

		if (n >= sizeof(tmp))
			return fail_at(ps, ps->line, ps->col, "a number of %zu digits", n);
		memcpy(tmp, s, n);
		tmp[n] = '\0';
		errno = 0;
		if (is_float) {
			t->kind = T_FLOAT;
			t->f = strtod(tmp, NULL);
		} else {
			t->kind = T_INT;
			t->i = strtoll(tmp, NULL, 10);
			if (errno == ERANGE)
				return fail_at(ps, ps->line, ps->col, "%s does not fit in 64 bits", tmp);
		}
	}
	t->len = (size_t)(q - s);
	while (ps->p < q)
		advance_char(ps);
	return 0;
}

/* Punctuation starting at s, the longest that matches first. */
static int lex_punct(struct parser *ps, struct token *t, const char *s)
{
	static const struct { const char *text; enum tok kind; } punct[] = {
		{ "...", T_ELLIPSIS }, { "..", T_DOTDOT }, { "==", T_EQ }, { "!=", T_NE }, { "<=", T_LE },
		{ ">=", T_GE }, { ".", T_DOT }, { "(", T_LP }, { ")", T_RP }, { "[", T_LB }, { "]", T_RB },
		{ ",", T_COMMA }, { ":", T_COLON }, { "+", T_PLUS }, { "-", T_MINUS }, { "*", T_STAR },
		{ "/", T_SLASH }, { "%", T_PERCENT }, { "<", T_LT }, { ">", T_GT }, { "=", T_ASSIGN },
		{ "?", T_QUESTION }, { "|", T_BAR },
	};

	for (size_t k = 0; k < sizeof(punct) / sizeof(punct[0]); k++) {
		size_t n = strlen(punct[k].text);

		if ((size_t)(ps->end - s) >= n && !memcmp(s, punct[k].text, n)) {
			t->kind = punct[k].kind;
			t->len = n;
			for (size_t j = 0; j < n; j++)
				advance_char(ps);
			return 0;
		}
	}
	return fail_at(ps, ps->line, ps->col, "unexpected character '%c'", isprint((unsigned char)*s) ? *s : '?');
}

static int next(struct parser *ps)
{
	struct token *t = &ps->tok;
	const char *s;

	if (skip_blanks(ps) < 0)
		return -1;
	t->line = ps->line;
	t->col = ps->col;
	t->text = ps->p;
	if (ps->p >= ps->end) {
		t->kind = T_EOF;
		t->len = 0;
		return 0;
	}
	s = ps->p;
	if (*s == '\n') {
		t->kind = T_EOL;
		t->len = 1;
		advance_char(ps);
		return 0;
	}
	if (isdigit((unsigned char)*s))
		return lex_number(ps, t, s);
	if (isalpha((unsigned char)*s) || *s == '_') {
		const char *q = s;

		while (q < ps->end && (isalnum((unsigned char)*q) || *q == '_'))
			q++;
		t->kind = T_NAME;
		t->len = (size_t)(q - s);
		while (ps->p < q)
			advance_char(ps);
		return 0;
	}
	if (*s == '"') {
		const char *q = s + 1;

		while (q < ps->end && *q != '"' && *q != '\n')
			q += (*q == '\\' && q + 1 < ps->end && q[1] != '\n') ? 2 : 1;
		if (q >= ps->end || *q != '"')
			return fail_at(ps, ps->line, ps->col, "a string that does not end on its line");
		t->kind = T_STR;
		t->len = (size_t)(q + 1 - s);
		while (ps->p <= q)
			advance_char(ps);
		return 0;
	}
	return lex_punct(ps, t, s);
}

static int is_word(const struct parser *ps, const char *w)
{
	return ps->tok.kind == T_NAME && ps->tok.len == strlen(w) && !memcmp(ps->tok.text, w, ps->tok.len);
}

static int expect(struct parser *ps, enum tok kind, const char *what)
{
	if (ps->tok.kind != kind)
		return unexpected(ps, what);
	return next(ps);
}

static int expect_word(struct parser *ps, const char *w)
{
	char what[64];

	if (!is_word(ps, w)) {
		snprintf(what, sizeof(what), "'%s'", w);
		return unexpected(ps, what);
	}
	return next(ps);
}

/* --- expressions -------------------------------------------------------------------------------- */

static struct expr *node(struct parser *ps, int kind, const struct token *at, int n)
{
	struct expr *x = expr_alloc(&ps->set->arena, sizeof(*x));

	memset(x, 0, sizeof(*x));
	x->kind = (unsigned char)kind;
	x->line = at->line;
	x->col = at->col;
	x->slot = -1;
	x->n = n;
	if (n) {
		x->a = expr_alloc(&ps->set->arena, (size_t)n * sizeof(*x->a));
		memset(x->a, 0, (size_t)n * sizeof(*x->a));
	}
	return x;
}

static int parse_expr(struct parser *ps, struct expr **out);

/* One level deeper into an expression: a parenthesis, a bracket, a call's arguments, a unary '-' or
 * 'not', a branch of '?:'. The parser recurses once per level, and so does whatever walks the tree
 * afterwards (resolution, evaluation): a spec of 10,000 parentheses overflowed the stack. */
static int enter(struct parser *ps)
{
	if (++ps->depth > SPEC_MAX_DEPTH)
		return fail_at(ps, ps->tok.line, ps->tok.col, "an expression nested more than %d deep",
			       SPEC_MAX_DEPTH);
	return 0;
}

/* The depth of a whole expression's tree, without recursion: a chain of binary operators
 * ('1 + 1 + ... + 1') nests one level per operator with no parenthesis, and resolution and
 * evaluation recurse along it as deep. */
static int check_depth(struct parser *ps, struct expr *x)
{
	struct level { struct expr *x; int depth; } *stack = NULL;
	size_t n = 0, cap = 0;
	int rc = 0;

	XGROW(stack, cap, 1);
	stack[n++] = (struct level){ x, 1 };
	while (n) {
		struct level l = stack[--n];

		if (!l.x)
			continue;
		if (l.depth > SPEC_MAX_DEPTH) {
			rc = fail_at(ps, l.x->line, l.x->col, "an expression nested more than %d deep (a chain "
				     "of operators counts a level each): split it with let", SPEC_MAX_DEPTH);
			break;
		}
		XGROW(stack, cap, n + (size_t)l.x->n);
		for (int k = 0; k < l.x->n; k++)
			stack[n++] = (struct level){ l.x->a[k], l.depth + 1 };
	}
	free(stack);
	return rc;
}

static const struct { const char *name; int fn, min, max; } functions[] = {
	{ "len", FN_LEN, 1, 1 }, { "sum", FN_SUM, 1, 1 }, { "prod", FN_PROD, 1, 1 }, { "min", FN_MIN, 1, 8 },
	{ "max", FN_MAX, 1, 8 }, { "abs", FN_ABS, 1, 1 }, { "divisors", FN_DIVISORS, 1, 1 },
	{ "ceil_div", FN_CEIL_DIV, 2, 2 }, { "range", FN_RANGE, 2, 2 }, { "uniform", FN_UNIFORM, 2, 2 },
};

/* Parse with 'in' allowed again (inside brackets and parentheses). */
static int parse_nested(struct parser *ps, struct expr **out)
{
	int saved = ps->no_in, r;

	ps->no_in = 0;
	r = parse_expr(ps, out);
	ps->no_in = saved;
	return r;
}

static int parse_list(struct parser *ps, struct expr **out)
{
	struct token at = ps->tok;
	struct expr *items[256], *first = NULL, *x;
	int n = 0;

	if (next(ps) < 0)
		return -1;
	if (ps->tok.kind == T_RB) {
		*out = node(ps, X_LIST, &at, 0);
		return next(ps);
	}
	for (;;) {
		if (ps->tok.kind == T_ELLIPSIS) {
			struct token sp = ps->tok;

			if (next(ps) < 0)
				return -1;
			x = node(ps, X_SPLICE, &sp, 1);
			if (parse_nested(ps, &x->a[0]) < 0)
				return -1;
		} else if (parse_nested(ps, &x) < 0) {
			return -1;
		}
		if (n == 0 && x->kind != X_SPLICE && is_word(ps, "for")) {
			/* [e for v in L if c] */
			struct expr *c = node(ps, X_COMP, &at, 3);

			first = x;
			c->a[0] = first;
			if (next(ps) < 0)
				return -1;
			if (ps->tok.kind != T_NAME)
				return unexpected(ps, "the name of the comprehension's variable");
			c->s = intern_n(ps->set, ps->tok.text, ps->tok.len);
			if (next(ps) < 0 || expect_word(ps, "in") < 0 || parse_nested(ps, &c->a[1]) < 0)
				return -1;
			if (is_word(ps, "if") && (next(ps) < 0 || parse_nested(ps, &c->a[2]) < 0))
				return -1;
			*out = c;
			return expect(ps, T_RB, "']'");
		}
		if (n == (int)(sizeof(items) / sizeof(items[0])))
			return fail_at(ps, at.line, at.col, "a list literal of more than %d items", n);
		items[n++] = x;
		if (ps->tok.kind == T_COMMA) {
			if (next(ps) < 0)
				return -1;
			if (ps->tok.kind == T_RB)
				break;
			continue;
		}
		if (ps->tok.kind != T_RB)
			return unexpected(ps, "',' or ']'");
		break;
	}
	x = node(ps, X_LIST, &at, n);
	memcpy(x->a, items, (size_t)n * sizeof(*items));
	*out = x;
	return next(ps);
}

static int parse_primary(struct parser *ps, struct expr **out)
{
	struct token t = ps->tok;
	struct expr *x;

	switch (t.kind) {
	case T_INT:
		x = node(ps, X_INT, &t, 0);
		x->i = t.i;
		*out = x;
		return next(ps);
	case T_FLOAT:
		x = node(ps, X_FLOAT, &t, 0);
		x->f = t.f;
		*out = x;
		return next(ps);
	case T_STR: {
		struct buf b = BUF_INIT;

		for (size_t k = 1; k + 1 < t.len; k++) {
			if (t.text[k] == '\\' && k + 2 < t.len)
				k++;
			buf_addc(&b, t.text[k]);
		}
		x = node(ps, X_STR, &t, 0);
		x->s = spec_intern(ps->set, b.data);
		buf_release(&b);
		*out = x;
		return next(ps);
	}
	case T_LP:
		if (next(ps) < 0 || parse_nested(ps, out) < 0)
			return -1;
		return expect(ps, T_RP, "')'");
	case T_LB:
		return parse_list(ps, out);
	case T_NAME: {
		const char *name = intern_n(ps->set, t.text, t.len);
		static const char *const reserved[] = { "and", "or", "not", "in", "for", "if", "where", "len",
							"count", "shape", "rank", "dims", "values", "const",
								"optional" };

		if (next(ps) < 0)
			return -1;
		if (ps->tok.kind == T_LP) {
			struct expr *args[8];
			size_t f;
			int n = 0;

			for (f = 0; f < sizeof(functions) / sizeof(functions[0]); f++)
				if (!strcmp(functions[f].name, name))
					break;
			if (f == sizeof(functions) / sizeof(functions[0]))
				return fail_at(ps, t.line, t.col,
					"unknown function '%s' (len sum prod min max abs divisors "
					       "ceil_div range)", name);
			if (next(ps) < 0)
				return -1;
			while (ps->tok.kind != T_RP) {
				if (n == 8)
					return fail_at(ps, t.line, t.col, "%s() of more than 8 arguments", name);
				if (parse_nested(ps, &args[n++]) < 0)
					return -1;
				if (ps->tok.kind == T_COMMA) {
					if (next(ps) < 0)
						return -1;
				} else if (ps->tok.kind != T_RP) {
					return unexpected(ps, "',' or ')'");
				}
			}
			if (n < functions[f].min || n > functions[f].max)
				return fail_at(ps, t.line, t.col, "%s() takes %d%s argument%s, not %d", name,
					functions[f].min,
					       functions[f].max > functions[f].min ? " or more" : "",
					       functions[f].min == 1 && functions[f].max == 1 ? "" : "s", n);
			x = node(ps, X_CALL, &t, n);
			x->op = (unsigned char)functions[f].fn;
			x->s = name;
			memcpy(x->a, args, (size_t)n * sizeof(*args));
			*out = x;
			return next(ps);
		}
		for (size_t r = 0; r < sizeof(reserved) / sizeof(reserved[0]); r++)
			if (!strcmp(reserved[r], name))
				return fail_at(ps, t.line, t.col, "expected a value, got the keyword '%s'", name);
		x = node(ps, X_NAME, &t, 0);
		x->s = name;
		*out = x;
		return 0;
	}
	default:
		return unexpected(ps, "a value");
	}
}

static int parse_postfix(struct parser *ps, struct expr **out)
{
	struct expr *x;

	if (parse_primary(ps, &x) < 0)
		return -1;
	for (;;) {
		struct token t = ps->tok;

		if (t.kind == T_DOT) {
			struct expr *y;
			int kind;

			if (next(ps) < 0)
				return -1;
			if (is_word(ps, "rank"))
				kind = X_RANK;
			else if (is_word(ps, "shape"))
				kind = X_SHAPE;
			else if (is_word(ps, "count"))
				kind = X_COUNT;
			else
				return unexpected(ps, "rank, shape or count after '.'");
			y = node(ps, kind, &t, 1);
			y->a[0] = x;
			x = y;
			if (next(ps) < 0)
				return -1;
		} else if (t.kind == T_LB) {
			struct expr *lo = NULL, *hi = NULL, *y;

			if (next(ps) < 0)
				return -1;
			if (ps->tok.kind != T_COLON && parse_nested(ps, &lo) < 0)
				return -1;
			if (ps->tok.kind == T_COLON) {
				if (next(ps) < 0)
					return -1;
				if (ps->tok.kind != T_RB && parse_nested(ps, &hi) < 0)
					return -1;
				y = node(ps, X_SLICE, &t, 3);
				y->a[1] = lo;
				y->a[2] = hi;
			} else {
				y = node(ps, X_INDEX, &t, 2);
				y->a[1] = lo;
			}
			y->a[0] = x;
			x = y;
			if (expect(ps, T_RB, "']'") < 0)
				return -1;
		} else {
			break;
		}
	}
	*out = x;
	return 0;
}

static int parse_unary(struct parser *ps, struct expr **out)
{
	struct token t = ps->tok;
	struct expr *x;

	if (t.kind != T_MINUS)
		return parse_postfix(ps, out);
	if (enter(ps) < 0 || next(ps) < 0 || parse_unary(ps, &x) < 0)
		return -1;
	ps->depth--;
	if (x->kind == X_INT && x->i != INT64_MIN) {
		x->i = -x->i;
		x->line = t.line;
		x->col = t.col;
		*out = x;
		return 0;
	}
	if (x->kind == X_FLOAT) {
		x->f = -x->f;
		*out = x;
		return 0;
	}
	*out = node(ps, X_NEG, &t, 1);
	(*out)->a[0] = x;
	return 0;
}

static int parse_binary(struct parser *ps, struct expr **out, int level);

/* Levels: 0 multiplicative, 1 additive. */
static int parse_binary(struct parser *ps, struct expr **out, int level)
{
	struct expr *x, *y, *b;

	if ((level == 0 ? parse_unary(ps, &x) : parse_binary(ps, &x, level - 1)) < 0)
		return -1;
	for (;;) {
		enum tok k = ps->tok.kind;
		struct token t = ps->tok;
		int op;

		if (level == 0 && (k == T_STAR || k == T_SLASH || k == T_PERCENT))
			op = k == T_STAR ? OP_MUL : k == T_SLASH ? OP_DIV : OP_MOD;
		else if (level == 1 && (k == T_PLUS || k == T_MINUS))
			op = k == T_PLUS ? OP_ADD : OP_SUB;
		else
			break;
		if (next(ps) < 0 || (level == 0 ? parse_unary(ps, &y) : parse_binary(ps, &y, level - 1)) < 0)
			return -1;
		b = node(ps, X_BIN, &t, 2);
		b->op = (unsigned char)op;
		b->a[0] = x;
		b->a[1] = y;
		x = b;
	}
	*out = x;
	return 0;
}

static int parse_range(struct parser *ps, struct expr **out)
{
	struct expr *x, *y, *r;
	struct token t;

	if (parse_binary(ps, &x, 1) < 0)
		return -1;
	if (ps->tok.kind != T_DOTDOT) {
		*out = x;
		return 0;
	}
	t = ps->tok;
	if (next(ps) < 0 || parse_binary(ps, &y, 1) < 0)
		return -1;
	r = node(ps, X_RANGE, &t, 2);
	r->a[0] = x;
	r->a[1] = y;
	*out = r;
	return 0;
}

static int parse_compare(struct parser *ps, struct expr **out)
{
	struct expr *x, *y, *c;
	struct token t;
	int kind = X_BIN, op = 0;

	if (parse_range(ps, &x) < 0)
		return -1;
	t = ps->tok;
	switch (t.kind) {
	case T_EQ: op = OP_EQ; break;
	case T_NE: op = OP_NE; break;
	case T_LT: op = OP_LT; break;
	case T_LE: op = OP_LE; break;
	case T_GT: op = OP_GT; break;
	case T_GE: op = OP_GE; break;
	case T_NAME:
		if (is_word(ps, "in") && !ps->no_in) {
			kind = X_IN;
			break;
		}
		if (is_word(ps, "not")) {
			if (next(ps) < 0 || expect_word(ps, "in") < 0)
				return -1;
			kind = X_NOTIN;
			goto operand;
		}
		*out = x;
		return 0;
	default:
		*out = x;
		return 0;
	}
	if (next(ps) < 0)
		return -1;
operand:
	if (parse_range(ps, &y) < 0)
		return -1;
	c = node(ps, kind, &t, 2);
	c->op = (unsigned char)op;
	c->a[0] = x;
	c->a[1] = y;
	switch (ps->tok.kind) {
	case T_EQ: case T_NE: case T_LT: case T_LE: case T_GT: case T_GE:
		return fail_at(ps, ps->tok.line, ps->tok.col,
			"chained comparisons are not supported: join them with 'and'");
	default:
		break;
	}
	*out = c;
	return 0;
}

static int parse_not(struct parser *ps, struct expr **out)
{
	struct token t = ps->tok;

	if (!is_word(ps, "not"))
		return parse_compare(ps, out);
	*out = node(ps, X_NOT, &t, 1);
	if (enter(ps) < 0 || next(ps) < 0 || parse_not(ps, &(*out)->a[0]) < 0)
		return -1;
	ps->depth--;
	return 0;
}

static int parse_logic(struct parser *ps, struct expr **out, int is_or)
{
	struct expr *x, *y, *b;

	if ((is_or ? parse_logic(ps, &x, 0) : parse_not(ps, &x)) < 0)
		return -1;
	while (is_word(ps, is_or ? "or" : "and")) {
		struct token t = ps->tok;

		if (next(ps) < 0 || (is_or ? parse_logic(ps, &y, 0) : parse_not(ps, &y)) < 0)
			return -1;
		b = node(ps, is_or ? X_OR : X_AND, &t, 2);
		b->a[0] = x;
		b->a[1] = y;
		x = b;
	}
	*out = x;
	return 0;
}

static int parse_cond(struct parser *ps, struct expr **out)
{
	struct expr *c, *x;
	struct token t;

	if (parse_logic(ps, &c, 1) < 0)
		return -1;
	if (ps->tok.kind != T_QUESTION) {
		*out = c;
		return 0;
	}
	t = ps->tok;
	x = node(ps, X_COND, &t, 3);
	x->a[0] = c;
	if (next(ps) < 0 || parse_nested(ps, &x->a[1]) < 0 || expect(ps, T_COLON, "':' of 'c ? a : b'") < 0 ||
	    parse_expr(ps, &x->a[2]) < 0)
		return -1;
	*out = x;
	return 0;
}

/* An expression; a whole one (a statement's, at depth 0) also has its tree's depth checked. */
static int parse_expr(struct parser *ps, struct expr **out)
{
	if (enter(ps) < 0 || parse_cond(ps, out) < 0)
		return -1;
	return --ps->depth == 0 ? check_depth(ps, *out) : 0;
}

/* --- statements --------------------------------------------------------------------------------- */

static struct stmt *new_stmt(struct parser *ps, int kind, const struct token *at)
{
	struct stmt *s;

	XGROW(ps->stmts, ps->cap, ps->nstmts + 1);
	s = &ps->stmts[ps->nstmts++];
	memset(s, 0, sizeof(*s));
	s->kind = kind;
	s->line = at->line;
	s->col = at->col;
	s->slot = s->tyvar = s->dtype = s->islot = s->kslot = -1;
	return s;
}

static int parse_name(struct parser *ps, const char **out, const char *what)
{
	if (ps->tok.kind != T_NAME)
		return unexpected(ps, what);
	*out = intern_n(ps->set, ps->tok.text, ps->tok.len);
	return next(ps);
}

/* TY: a type variable (resolved later: its statement may not be known yet) or a dtype. */
static int parse_type(struct parser *ps, struct stmt *s)
{
	const char *ty;
	int line = ps->tok.line, col = ps->tok.col;

	if (parse_name(ps, &ty, "a type variable or a dtype") < 0)
		return -1;
	s->dtype = expr_dtype_parse(ty);
	if (s->dtype < 0) {
		/* Kept in e until resolution: an X_NAME at the type's place. */
		struct token t = { T_NAME, line, col, ty, strlen(ty), 0, 0 };
		struct expr *x = node(ps, X_NAME, &t, 0);

		x->s = ty;
		s->e = x;
	}
	return 0;
}

static int parse_clauses(struct parser *ps, struct stmt *s)
{
	for (;;) {
		struct token t = ps->tok;
		struct expr **slot = NULL;

		if (t.kind == T_EOL || t.kind == T_EOF)
			return 0;
		if (is_word(ps, "const") || is_word(ps, "optional")) {
			int *flag = is_word(ps, "const") ? &s->is_const : &s->optional;

			if (*flag)
				return fail_at(ps, t.line, t.col, "'%.*s' is said twice", (int)t.len, t.text);
			*flag = 1;
			if (next(ps) < 0)
				return -1;
			continue;
		}
		if (is_word(ps, "if"))
			slot = &s->cond;
		else if (is_word(ps, "rank"))
			slot = &s->rank;
		else if (is_word(ps, "dims"))
			slot = &s->dims;
		else if (is_word(ps, "shape"))
			slot = &s->shape;
		else if (is_word(ps, "values"))
			slot = &s->values;
		if (!slot) {
			char b[64];

			return fail_at(ps, t.line, t.col,
				"unknown clause %s (rank, dims, shape, values, const, optional, if)",
				       tok_name(&t, b, sizeof(b)));
		}
		if (*slot || (slot == &s->values && s->lo))
			return fail_at(ps, t.line, t.col, "'%.*s' is said twice", (int)t.len, t.text);
		if (next(ps) < 0 || parse_expr(ps, slot) < 0)
			return -1;
		if (slot == &s->values && (*slot)->kind == X_CALL && (*slot)->op == FN_RANGE) {
			s->lo = (*slot)->a[0];
			s->hi = (*slot)->a[1];
			*slot = NULL;
		}
		if ((s->shape && (s->rank || s->dims)))
			return fail_at(ps, t.line, t.col,
				"shape gives the whole shape: it takes the place of rank and dims");
	}
}

static int parse_dtypes(struct parser *ps, unsigned *set)
{
	do {
		const char *name = NULL;
		int dt, line = ps->tok.line, col = ps->tok.col;

		if (parse_name(ps, &name, "a dtype") < 0)
			return -1;
		if ((dt = expr_dtype_parse(name)) < 0)
			return fail_at(ps, line, col,
				"unknown dtype '%s' (float16 float32 float64 bfloat16 int8 int16 int32 "
				       "int64 uint8 uint16 uint32 uint64 bool)", name);
		*set |= 1u << dt;
	} while (ps->tok.kind == T_NAME);
	return 0;
}

static int finish_block(struct parser *ps);

/* op NAME...: ends the block before and opens a new one. */
static int parse_op(struct parser *ps, const struct token *t)
{
	struct block *b;
	const char *ops[64];
	int n = 0;

	if (finish_block(ps) < 0)
		return -1;
	b = expr_alloc(&ps->set->arena, sizeof(*b));
	memset(b, 0, sizeof(*b));
	b->file = spec_intern(ps->set, ps->file);
	b->line = t->line;
	b->opset_lo = -1;
	b->domain = spec_intern(ps->set, "");
	do {
		if (n == 64)
			return fail_at(ps, t->line, t->col, "one block names at most 64 operators");
		if (parse_name(ps, &ops[n++], "an operator name") < 0)
			return -1;
	} while (ps->tok.kind == T_NAME);
	b->ops = expr_alloc(&ps->set->arena, (size_t)n * sizeof(*b->ops));
	memcpy(b->ops, ops, (size_t)n * sizeof(*ops));
	b->nops = n;
	ps->block = b;
	return 0;
}

/* opset FIRST[..LAST] */
static int parse_opset(struct parser *ps, const struct token *t)
{
	if (ps->block->opset_lo >= 0)
		return fail_at(ps, t->line, t->col, "the block already has an opset");
	if (ps->tok.kind != T_INT || ps->tok.i < 1 || ps->tok.i >= SPEC_OPSET_OPEN)
		return unexpected(ps, "an opset number");
	ps->block->opset_lo = (int)ps->tok.i;
	ps->block->opset_hi = SPEC_OPSET_OPEN;
	if (next(ps) < 0)
		return -1;
	if (ps->tok.kind == T_DOTDOT) {
		if (next(ps) < 0)
			return -1;
		if (ps->tok.kind != T_INT || ps->tok.i < ps->block->opset_lo || ps->tok.i >= SPEC_OPSET_OPEN)
			return unexpected(ps, "the last opset, not below the first");
		ps->block->opset_hi = (int)ps->tok.i;
		return next(ps);
	}
	return 0;
}

/* domain NAME[.NAME]... (none: the default domain) */
static int parse_domain(struct parser *ps)
{
	struct buf d = BUF_INIT;

	while (ps->tok.kind == T_NAME || ps->tok.kind == T_DOT) {
		buf_add(&d, ps->tok.text, ps->tok.len);
		if (next(ps) < 0) {
			buf_release(&d);
			return -1;
		}
	}
	ps->block->domain = spec_intern(ps->set, d.data);
	buf_release(&d);
	return 0;
}

/* int/ints/float/str NAME ... in DOMAIN [where COND]: a value the solver chooses. */
static int parse_choice(struct parser *ps, const struct token *t, const char *kw)
{
	struct stmt *s;
	int kind = !strcmp(kw, "int") ? S_INT : !strcmp(kw, "ints") ? S_INTS :
		   !strcmp(kw, "float") ? S_FLOAT : S_STR;

	s = new_stmt(ps, kind, t);
	if (parse_name(ps, &s->name, "a name") < 0)
		return -1;
	if (kind == S_INTS) {
		if (expect_word(ps, "len") < 0)
			return -1;
		ps->no_in = 1;
		if (parse_expr(ps, &s->len) < 0)
			return -1;
		ps->no_in = 0;
	}
	if (kind == S_FLOAT && is_word(ps, "uniform")) {
		/* float NAME uniform(LO, HI), as well as float NAME in uniform(LO, HI) */
	} else if (expect_word(ps, "in") < 0) {
		return -1;
	}
	if (parse_expr(ps, &s->e) < 0)
		return -1;
	if (s->e->kind == X_CALL && s->e->op == FN_UNIFORM) {
		if (kind != S_FLOAT)
			return fail_at(ps, s->e->line, s->e->col,
				"uniform() chooses a float: float NAME in uniform(LO, HI)");
		s->lo = s->e->a[0];
		s->hi = s->e->a[1];
		s->e = NULL;
	}
	if ((kind == S_INT || kind == S_INTS) && is_word(ps, "where"))
		return next(ps) < 0 ? -1 : parse_expr(ps, &s->cond);
	return 0;
}

static int parse_statement(struct parser *ps)
{
	struct token t = ps->tok;
	const char *kw;
	struct stmt *s;

	if (t.kind != T_NAME)
		return unexpected(ps,
			"a statement (op, opset, domain, type, input, inputs, let, int, ints, float, str, "
				  "attr, output, outputs)");
	kw = intern_n(ps->set, t.text, t.len);
	if (next(ps) < 0)
		return -1;
	if (!strcmp(kw, "op"))
		return parse_op(ps, &t);
	if (!ps->block)
		return fail_at(ps, t.line, t.col, "'%s' outside an op block: start one with 'op NAME'", kw);
	if (!strcmp(kw, "opset"))
		return parse_opset(ps, &t);
	if (!strcmp(kw, "domain"))
		return parse_domain(ps);
	if (!strcmp(kw, "type")) {
		s = new_stmt(ps, S_TYPE, &t);
		if (parse_name(ps, &s->name, "the type variable's name") < 0 || expect_word(ps, "in") < 0)
			return -1;
		if (expr_dtype_parse(s->name) >= 0)
			return fail_at(ps, t.line, t.col, "'%s' is a dtype, not a name for a type variable", s->name);
		return parse_dtypes(ps, &s->dtypes);
	}
	if (!strcmp(kw, "input") || !strcmp(kw, "inputs")) {
		int group = kw[5] == 's';

		s = new_stmt(ps, group ? S_INPUTS : S_INPUT, &t);
		if (parse_name(ps, &s->name, "the input's name") < 0 || expect(ps, T_COLON, "':'") < 0 ||
		    parse_type(ps, s) < 0)
			return -1;
		if (group && (expect_word(ps, "count") < 0 || parse_expr(ps, &s->count) < 0))
			return -1;
		return parse_clauses(ps, s);
	}
	if (!strcmp(kw, "let")) {
		s = new_stmt(ps, S_LET, &t);
		if (parse_name(ps, &s->name, "a name") < 0 || expect(ps, T_ASSIGN, "'='") < 0)
			return -1;
		return parse_expr(ps, &s->e);
	}
	if (!strcmp(kw, "int") || !strcmp(kw, "ints") || !strcmp(kw, "float") || !strcmp(kw, "str"))
		return parse_choice(ps, &t, kw);
	if (!strcmp(kw, "attr")) {
		s = new_stmt(ps, S_ATTR, &t);
		if (parse_name(ps, &s->name, "the attribute's name") < 0 || expect(ps, T_ASSIGN, "'='") < 0 ||
		    parse_expr(ps, &s->e) < 0)
			return -1;
		if (is_word(ps, "if"))
			return next(ps) < 0 ? -1 : parse_expr(ps, &s->cond);
		return 0;
	}
	if (!strcmp(kw, "output") || !strcmp(kw, "outputs")) {
		int group = kw[6] == 's';

		s = new_stmt(ps, group ? S_OUTPUTS : S_OUTPUT, &t);
		if (parse_name(ps, &s->name, "the output's name") < 0 || expect(ps, T_COLON, "':'") < 0 ||
		    parse_type(ps, s) < 0)
			return -1;
		if (group && (expect_word(ps, "count") < 0 || parse_expr(ps, &s->count) < 0))
			return -1;
		return expect_word(ps, "shape") < 0 ? -1 : parse_expr(ps, &s->shape);
	}
	return fail_at(ps, t.line, t.col, "unknown statement '%s' (op, opset, domain, type, input, inputs, let, int, "
		       "ints, float, str, attr, output, outputs)", kw);
}

/* --- resolution: names to slots, and the order ------------------------------------------------- */

struct def {
	const char *name;
	int stmt;                 /* the statement that chooses it */
	int slot;
};

struct resolver {
	struct parser *ps;
	struct block *b;
	struct def *defs;
	int ndefs;
	int cur;                  /* the statement being resolved */
	int self_ok;              /* its own name may be used (dims, where, ints) */
	int islot, kslot;         /* -1 where i or k mean nothing */
	const char *scope[16];    /* comprehension variables */
	int scope_slot[16];
	int nscope;
	const char *where;        /* "a where" when resolving a where clause */
};

static int new_slot(struct resolver *r, const char *name)
{
	struct block *b = r->b;
	int slot = b->nslots++;

	b->slot_names = xrealloc(b->slot_names, (size_t)b->nslots * sizeof(*b->slot_names));
	b->slot_names[slot] = name;
	return slot;
}

static const struct def *find_def(const struct resolver *r, const char *name)
{
	for (int d = 0; d < r->ndefs; d++)
		if (r->defs[d].name == name)
			return &r->defs[d];
	return NULL;
}

static int resolve(struct resolver *r, struct expr *x)
{
	struct parser *ps = r->ps;

	if (!x)
		return 0;
	if (x->kind == X_NAME) {
		const struct def *d;

		for (int k = r->nscope - 1; k >= 0; k--)
			if (r->scope[k] == x->s) {
				x->slot = r->scope_slot[k];
				return 0;
			}
		if (!strcmp(x->s, "i") || !strcmp(x->s, "k")) {
			int slot = x->s[0] == 'i' ? r->islot : r->kslot;

			if (slot < 0)
				return fail_at(ps, x->line, x->col, "'%s' means something only in %s", x->s,
					       x->s[0] == 'i' ? "dims and ints (the dimension's or element's index)"
					       : "inputs and outputs groups (the tensor's index)");
			x->slot = slot;
			return 0;
		}
		d = find_def(r, x->s);
		if (!d) {
			if (expr_dtype_parse(x->s) >= 0)
				return fail_at(ps, x->line, x->col,
					"'%s' is a dtype; a dtype attribute takes a type variable",
					       x->s);
			return fail_at(ps, x->line, x->col, "unknown name '%s'", x->s);
		}
		if (d->stmt > r->cur || (d->stmt == r->cur && !r->self_ok)) {
			if (r->where && d->stmt >= r->cur)
				return fail_at(ps, x->line, x->col,
					"%s mentions only the name it chooses and names chosen "
					       "before: '%s' is chosen on line %d", r->where, x->s,
					       r->ps->stmts[d->stmt].line);
			if (d->stmt == r->cur)
				return fail_at(ps, x->line, x->col,
					"'%s' is used in its own statement before it is chosen",
					       x->s);
			return fail_at(ps, x->line, x->col,
				"'%s' is used before it is chosen (line %d): this order would "
				       "need backtracking", x->s, r->ps->stmts[d->stmt].line);
		}
		x->slot = d->slot;
		if (r->ps->stmts[d->stmt].kind == S_TYPE) {
			int ord = spec_tyvar_ordinal(r->b, d->slot);

			if (ord >= 0)
				r->ps->stmts[r->cur].tyrefs |= 1u << ord;
		}
		return 0;
	}
	if (x->kind == X_COMP) {
		int rc;

		if (resolve(r, x->a[1]) < 0)
			return -1;
		if (r->nscope == 16)
			return fail_at(ps, x->line, x->col, "comprehensions nested more than 16 deep");
		if (find_def(r, x->s) || !strcmp(x->s, "i") || !strcmp(x->s, "k"))
			return fail_at(ps, x->line, x->col,
				"the comprehension's variable '%s' hides a name of the block",
				       x->s);
		r->scope[r->nscope] = x->s;
		r->scope_slot[r->nscope] = x->slot = new_slot(r, x->s);
		r->nscope++;
		rc = resolve(r, x->a[0]) < 0 || resolve(r, x->a[2]) < 0 ? -1 : 0;
		r->nscope--;
		return rc;
	}
	for (int k = 0; k < x->n; k++)
		if (resolve(r, x->a[k]) < 0)
			return -1;
	return 0;
}

int spec_tyvar_ordinal(const struct block *b, int slot)
{
	for (int k = 0; k < b->ntyvars; k++)
		if (b->tyvar_slot[k] == slot)
			return k;
	return -1;
}

static int resolve_in(struct resolver *r, struct expr *x, int self_ok, int islot, int kslot, const char *where)
{
	r->self_ok = self_ok;
	r->islot = islot;
	r->kslot = kslot;
	r->where = where;
	return resolve(r, x);
}

/* Every chosen name first, so that a use before its statement can say where it is chosen; the
 * type variables get their slots and dtype sets here. */
static int declare_names(struct resolver *r)
{
	struct parser *ps = r->ps;
	struct block *b = r->b;

	for (size_t k = 0; k < ps->nstmts; k++) {
		struct stmt *s = &ps->stmts[k];
		const struct def *d;

		if (s->kind == S_ATTR)
			continue;
		if (!strcmp(s->name, "i") || !strcmp(s->name, "k"))
			return fail_at(ps, s->line, s->col,
				       "'%s' is the index in dims, ints and groups: choose another name", s->name);
		if ((d = find_def(r, s->name)))
			return fail_at(ps, s->line, s->col, "'%s' is chosen twice (first on line %d)", s->name,
				       ps->stmts[d->stmt].line);
		s->slot = new_slot(r, s->name);
		r->defs[r->ndefs++] = (struct def){ s->name, (int)k, s->slot };
		if (s->kind == S_TYPE) {
			if (b->ntyvars == 32)
				return fail_at(ps, s->line, s->col, "more than 32 type variables in one block");
			b->tyvar_slot[b->ntyvars] = s->slot;
			b->tyvar_set[b->ntyvars++] = s->dtypes;
		}
	}
	return 0;
}

/* The type of an input or output that names one: a type variable chosen before. */
static int resolve_tyvar(struct resolver *r, struct stmt *s)
{
	struct parser *ps = r->ps;
	const struct def *d = find_def(r, s->e->s);

	if (!d || ps->stmts[d->stmt].kind != S_TYPE)
		return fail_at(ps, s->e->line, s->e->col,
			       "unknown type '%s': declare it with 'type %s in DTYPE...' or "
			       "use a dtype", s->e->s, s->e->s);
	if (d->stmt > r->cur)
		return fail_at(ps, s->e->line, s->e->col,
			       "type '%s' is used before it is declared (line %d)", s->e->s,
			       ps->stmts[d->stmt].line);
	s->tyvar = d->slot;
	s->e = NULL;
	return 0;
}

/* The expressions of one statement, each with the names it may use (its own, i, k, a where). */
static int resolve_stmt(struct resolver *r, struct stmt *s, int islot, int kslot)
{
	int group = s->kind == S_INPUTS || s->kind == S_OUTPUTS;

	switch (s->kind) {
	case S_INPUT: case S_INPUTS: {
		int kk = group ? kslot : -1;

		if (resolve_in(r, s->count, 0, -1, -1, NULL) < 0 || resolve_in(r, s->rank, group, -1, kk,
			NULL) < 0 ||
		    resolve_in(r, s->dims, 1, islot, kk, NULL) < 0 || resolve_in(r, s->shape, group, -1, kk,
			NULL) < 0 ||
		    resolve_in(r, s->values, 1, -1, kk, NULL) < 0 || resolve_in(r, s->lo, 0, -1, kk,
			NULL) < 0 ||
		    resolve_in(r, s->hi, 0, -1, kk, NULL) < 0 || resolve_in(r, s->cond, 0, -1, kk, NULL) < 0)
			return -1;
		if (s->cond && s->optional)
			return fail_at(r->ps, s->line, s->col,
				       "an input is optional or present if a condition holds, not both");
		if (s->values && s->is_const == 0)
			s->is_const = 1;  /* exact values: an initializer */
		break;
	}
	case S_LET: case S_FLOAT: case S_STR: case S_ATTR:
		if (resolve_in(r, s->e, 0, -1, -1, NULL) < 0 || resolve_in(r, s->lo, 0, -1, -1, NULL) < 0 ||
		    resolve_in(r, s->hi, 0, -1, -1, NULL) < 0 || resolve_in(r, s->cond, 0, -1, -1, NULL) < 0)
			return -1;
		break;
	case S_INT:
		if (resolve_in(r, s->e, 0, -1, -1, NULL) < 0 || resolve_in(r, s->cond, 1, -1, -1,
			"a where") < 0)
			return -1;
		break;
	case S_INTS:
		if (resolve_in(r, s->len, 0, -1, -1, NULL) < 0 || resolve_in(r, s->e, 1, islot, -1,
			NULL) < 0 ||
		    resolve_in(r, s->cond, 1, islot, -1, "a where") < 0)
			return -1;
		break;
	case S_OUTPUT: case S_OUTPUTS:
		if (resolve_in(r, s->count, 0, -1, -1, NULL) < 0 || resolve_in(r, s->shape, 0, -1, kslot,
			NULL) < 0)
			return -1;
		break;
	default:
		break;
	}
	return 0;
}

static int resolve_block(struct parser *ps)
{
	struct resolver r;
	int rc = -1, islot = -1, kslot = -1;

	memset(&r, 0, sizeof(r));
	r.ps = ps;
	r.b = ps->block;
	r.defs = xcalloc(ps->nstmts + 1, sizeof(*r.defs));
	if (declare_names(&r) < 0)
		goto out;
	for (size_t k = 0; k < ps->nstmts; k++) {
		struct stmt *s = &ps->stmts[k];
		int need_i = 0, need_k = 0;

		r.cur = (int)k;
		/* i and k get slots where they mean something. */
		if (s->kind == S_INPUT || s->kind == S_INPUTS || s->kind == S_INTS)
			need_i = 1;
		if (s->kind == S_INPUTS || s->kind == S_OUTPUTS)
			need_k = 1;
		if (need_i && islot < 0)
			islot = new_slot(&r, spec_intern(ps->set, "i"));
		if (need_k && kslot < 0)
			kslot = new_slot(&r, spec_intern(ps->set, "k"));
		s->islot = need_i ? islot : -1;
		s->kslot = need_k ? kslot : -1;
		if ((s->kind == S_INPUT || s->kind == S_INPUTS || s->kind == S_OUTPUT || s->kind == S_OUTPUTS)
			&& s->e && resolve_tyvar(&r, s) < 0)
			goto out;
		if (resolve_stmt(&r, s, islot, kslot) < 0)
			goto out;
	}
	rc = 0;
out:
	free(r.defs);
	return rc;
}

static int finish_block(struct parser *ps)
{
	struct block *b = ps->block;
	int outputs = 0;

	if (!b)
		return 0;
	if (b->opset_lo < 0) {
		ps->block = NULL;
		return err_set(ps->e, EXIT_INPUT, "%s:%d: the block of '%s' has no opset statement", ps->file, b->line,
			       b->ops[0]);
	}
	for (size_t k = 0; k < ps->nstmts; k++)
		outputs += ps->stmts[k].kind == S_OUTPUT || ps->stmts[k].kind == S_OUTPUTS;
	if (!outputs) {
		ps->block = NULL;
		return err_set(ps->e, EXIT_INPUT, "%s:%d: the block of '%s' has no output", ps->file, b->line,
			b->ops[0]);
	}
	if (resolve_block(ps) < 0) {
		/* the one part of a block outside the arena: spec_release frees it only for the blocks
		 * of the set, which this one never joins */
		free(b->slot_names);
		b->slot_names = NULL;
		ps->block = NULL;
		return -1;
	}
	b->stmts = expr_alloc(&ps->set->arena, (ps->nstmts ? ps->nstmts : 1) * sizeof(*b->stmts));
	memcpy(b->stmts, ps->stmts, ps->nstmts * sizeof(*b->stmts));
	b->nstmts = (int)ps->nstmts;
	ps->nstmts = 0;
	XGROW(ps->set->blocks, ps->set->cap, ps->set->nblocks + 1);
	ps->set->blocks[ps->set->nblocks++] = b;
	ps->block = NULL;
	return 0;
}

/* --- loading ------------------------------------------------------------------------------------- */

void spec_init(struct spec_set *s)
{
	struct spec_set zero = SPEC_SET_INIT;

	*s = zero;
}

void spec_release(struct spec_set *s)
{
	for (size_t k = 0; k < s->nblocks; k++)
		free(s->blocks[k]->slot_names);
	free(s->blocks);
	strmap_release(&s->names);
	expr_arena_release(&s->arena);
	spec_init(s);
}

int spec_load_text(struct spec_set *s, const char *name, const char *text, size_t len, struct err *e)
{
	struct parser ps;
	int rc = -1;

	memset(&ps, 0, sizeof(ps));
	ps.set = s;
	ps.file = name;
	ps.p = text;
	ps.end = text + len;
	ps.line = ps.col = 1;
	ps.e = e;
	if (memchr(text, '\0', len)) {
		err_set(e, EXIT_INPUT, "%s: a spec is text, and this file holds a NUL byte", name);
		goto out;
	}
	if (next(&ps) < 0)
		goto out;
	while (ps.tok.kind != T_EOF) {
		if (ps.tok.kind == T_EOL) {
			if (next(&ps) < 0)
				goto out;
			continue;
		}
		if (parse_statement(&ps) < 0)
			goto out;
		if (ps.tok.kind != T_EOL && ps.tok.kind != T_EOF) {
			char b[64];

			fail_at(&ps, ps.tok.line, ps.tok.col, "unexpected %s after the statement",
				tok_name(&ps.tok, b, sizeof(b)));
			goto out;
		}
	}
	if (finish_block(&ps) < 0)
		goto out;
	rc = 0;
out:
	free(ps.stmts);
	return rc;
}

int spec_load_file(struct spec_set *s, const char *path, struct err *e)
{
	struct buf b = BUF_INIT;
	int r;

	if (fs_read(path, &b, e) < 0) {
		buf_release(&b);
		return -1;
	}
	r = spec_load_text(s, path, b.data, b.len, e);
	buf_release(&b);
	return r;
}

static int name_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

int spec_load_dir(struct spec_set *s, const char *dir, struct err *e)
{
	DIR *d = opendir(dir);
	struct dirent *ent;
	char **names = NULL;
	size_t n = 0, cap = 0;
	int rc = 0;

	if (!d)
		return err_errno(e, EXIT_INPUT, "cannot open the spec directory '%s'", dir);
	while ((ent = readdir(d))) {
		size_t len = strlen(ent->d_name);

		if (len > 5 && !strcmp(ent->d_name + len - 5, ".spec") && ent->d_name[0] != '.') {
			XGROW(names, cap, n + 1);
			names[n++] = xasprintf("%s/%s", dir, ent->d_name);
		}
	}
	closedir(d);
	if (!n)
		rc = err_set(e, EXIT_INPUT, "the spec directory '%s' holds no .spec file", dir);
	else
		qsort(names, n, sizeof(*names), name_cmp);
	for (size_t k = 0; k < n; k++) {
		if (rc == 0)
			rc = spec_load_file(s, names[k], e);
		free(names[k]);
	}
	free(names);
	return rc;
}

char *spec_default_dir(void)
{
	const char *env = getenv("FERRY_SPECS");

	if (env && *env)
		return xstrdup(env);
	return home_specs_dir();
}
