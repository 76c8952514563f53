/* dedup.c: grouping failures into unique bugs. */
#include "dedup.h"
#include "environment.h"
#include "classify.h"
#include "frontend.h"
#include "kinds.h"
#include "record.h"
#include "strmap.h"
#include "template.h"
#include "trigger.h"
#include "xalloc.h"

#include <cjson/cJSON.h>
#include <ctype.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <xxhash.h>

#define NORMALIZED_MAX 240

/* An exponent inside a number: e7, e-07, E+3. */
static int is_exponent(const char *p)
{
	const char *d = p + 1;

	if (*p != 'e' && *p != 'E')
		return 0;
	if (*d == '-' || *d == '+')
		d++;
	return isdigit((unsigned char)*d);
}

/* Where the quoted text that opens at p ends (its closing quote), or NULL when p opens none: a quote
 * with no match close after it is an apostrophe ("can't"). */
static const char *quoted_end(const char *p)
{
	const char *end;

	if (*p != '\'' && *p != '"')
		return NULL;
	end = strchr(p + 1, *p);
	return end && end - p < 200 ? end : NULL;
}

void dedup_normalize(const char *msg, struct buf *out)
{
	size_t start = out->len;
	const char *p = msg ? msg : "";

	while (*p && out->len - start < NORMALIZED_MAX) {
		unsigned char c = (unsigned char)*p;

		if (c == '0' && (p[1] == 'x' || p[1] == 'X') && isxdigit((unsigned char)p[2])) {
			buf_adds(out, "0x#");
			for (p += 2; isxdigit((unsigned char)*p); p++)
				;
		} else if (isdigit(c)) {
			buf_addc(out, '#');
			while (isdigit((unsigned char)*p) || *p == '.' || is_exponent(p))
				p += is_exponent(p) ? (p[1] == '-' || p[1] == '+' ? 2 : 1) : 1;
		} else if (quoted_end(p)) {
			buf_adds(out, "'*'");
			p = quoted_end(p) + 1;
		} else if (c == '/' && (p == msg || isspace((unsigned char)p[-1]) || p[-1] == '(' || p[-1] == ':')) {
			buf_adds(out, "PATH");
			while (*p && !isspace((unsigned char)*p) && *p != ':' && *p != ')' && *p != ',')
				p++;
		} else if (isspace(c)) {
			if (out->len > start && out->data[out->len - 1] != ' ')
				buf_addc(out, ' ');
			while (isspace((unsigned char)*p))
				p++;
		} else if (isalpha(c) || c == '_') {
			/* Copy a word whole, so digits inside identifiers (conv2d, int64) survive. */
			while (isalnum((unsigned char)*p) || *p == '_')
				buf_addc(out, *p++);
		} else {
			buf_addc(out, (char)c);
			p++;
		}
	}
	while (out->len > start && out->data[out->len - 1] == ' ')
		out->data[--out->len] = '\0';
}

/* The kind of a mismatch, from the comparison's description. */
static const char *mismatch_kind(const char *message)
{
	if (!message)
		return "values";
	if (strstr(message, "shape"))
		return "shape";
	if (strstr(message, "dtype"))
		return "dtype";
	if (strstr(message, "NaN") || strstr(message, "nan") || strstr(message, "Inf") || strstr(message, "inf "))
		return "nan/inf";
	if (strstr(message, "outputs"))
		return "output count";
	return "values";
}

/* --- the decisive line of a crash message ------------------------------------------------------ */

static bool starts(const char *s, const char *prefix)
{
	return !strncmp(s, prefix, strlen(prefix));
}

static bool ends(const char *s, size_t len, const char *suffix)
{
	size_t n = strlen(suffix);

	return len >= n && !memcmp(s + len - n, suffix, n);
}

/* Skip a C++ location and signature that native errors put before their text:
 * "/onnxruntime_src/.../conv_integer.cc:52 virtual onnxruntime::common::Status
 * onnxruntime::ConvInteger::Compute(onnxruntime::OpKernelContext*) const IsScalar... was false. Non
 * per-tensor quantization is not supported now." keeps "IsScalar... was false. Non per-tensor...". */
static const char *skip_cpp_location(const char *p)
{
	const char *q = p, *paren;
	int depth = 0;

	if (*q != '/' && !starts(q, "src/"))
		return p;
	while (*q && !isspace((unsigned char)*q) && *q != ':')
		q++;
	if (*q != ':' || !isdigit((unsigned char)q[1]))
		return p;
	for (q++; isdigit((unsigned char)*q); q++)
		;
	while (*q == ' ')
		q++;
	/* A function signature: a qualified name (with its return type) and a parameter list. */
	paren = strchr(q, '(');
	if (!paren || !strstr(q, "::") || strstr(q, "::") > paren)
		return q;
	for (const char *c = q; c < paren; c++)
		if (!isalnum((unsigned char)*c) && !strchr("_:<>~,*& []=", *c))
			return q;
	for (q = paren; *q; q++) {
		depth += *q == '(' || *q == '[';
		depth -= *q == ')' || *q == ']';
		if (!depth)
			break;
	}
	if (!*q)
		return p;
	q++;
	for (;;) {
		if (starts(q, " const"))
			q += 6;
		else if (starts(q, " [with ") && strchr(q, ']'))
			q = strchr(q, ']') + 1;
		else if (starts(q, "::"))
			q += strcspn(q, " ");
		else
			break;
	}
	while (*q == ' ')
		q++;
	return q;
}

/* A line that says where or how a failure was reported, not what failed: OpenVINO's check and
 * exception locations and conversion-report headings, torch.onnx's step banners and their advice,
 * IREE's compiler-tool banner, traceback frames. */
static bool generic_line(const char *l, size_t len, bool banner)
{
	static const char *const heads[] = {
		"Exception from ", "FrontEnd API failed with ", "Model wasn't fully converted", "Summary:",
		"Exception happened during conversion of operation ", "While validating node ",
		"Shape inference input shapes ", "-- Conversion is failed for:", "To facilitate the conversion",
		"## Exception summary", "(Refer to the full stack trace above", "Traceback (most recent call last)",
		"File \"", "Failed to export the model with torch.export.", "Failed to convert the exported program",
		"Failed to decompose the FX graph", "For more information about this error",
		/* iree-compile's failure, from iree.compiler: the tool, its exit code, then the diagnostics */
		"Error invoking IREE compiler tool ", "Error code: ", "Diagnostics:",
		"\xe2\xac\x86", /* torch.onnx's arrow between the exceptions of a chain */
		NULL,
	};

	if (!len)
		return true;
	for (size_t i = 0; heads[i]; i++)
		if (starts(l, heads[i]))
			return true;
	/* "Check 'cond' failed at src/x.cpp:12:" and nothing more (the text, if any, is on the next line). */
	if (starts(l, "Check '") && strstr(l, "' failed at ") && !strchr(strstr(l, "' failed at ") + 12, ' '))
		return true;
	if (starts(l, "-- ") && ends(l, len, " with a message:"))
		return true;
	/* A constant left behind by the operation that failed to consume it: a consequence. */
	if (strstr(l, "constant cannot be converted to OpenVINO opset and should be removed by consuming"))
		return true;
	if (banner && starts(l, "- "))
		return true;
	return false;
}

/* Append l without MLIR's "loc(...)" locations (the TFLite converter's, nested and long) and its
 * "<unknown>:0: " prefixes. */
static void add_without_locations(struct buf *out, const char *l)
{
	while (*l) {
		if (starts(l, "loc(")) {
			int depth = 0;
			const char *q = l + 3;

			for (; *q; q++) {
				depth += *q == '(';
				depth -= *q == ')';
				if (!depth)
					break;
			}
			if (*q) {
				l = q + 1;
				l += starts(l, ": ") ? 2 : 0;
				continue;
			}
		}
		if (starts(l, "<unknown>:0: ")) {
			l += 13;
			continue;
		}
		buf_addc(out, *l++);
	}
}

/* The lines of a crash message as dedup_decisive reads them, in order, each with its status prefixes
 * and locations taken off, and whether it is one of the generic lines it passes over; ANSI escapes,
 * traceback frames with their source lines and native backtraces are not lines at all. fallback
 * receives a generic check's condition and file, for a message with nothing else. */
struct msg_line {
	char *text;
	bool generic;
};

static size_t message_lines(const char *msg, struct msg_line **lines, struct buf *fallback)
{
	struct buf clean = BUF_INIT, line = BUF_INIT, text = BUF_INIT;
	const char *p = msg ? msg : "";
	bool banner = false, frame = false, last_indented = false;
	size_t n = 0, cap = 0;

	*lines = NULL;
	/* ANSI escapes (torch.onnx colours its banners) say nothing. */
	while (*p) {
		if (*p == '\x1b' && p[1] == '[') {
			for (p += 2; *p && !isalpha((unsigned char)*p); p++)
				;
			if (*p)
				p++;
		} else {
			buf_addc(&clean, *p++);
		}
	}
	for (p = clean.data ? clean.data : ""; *p;) {
		size_t len, cut = strcspn(p, "\n");
		const char *raw = p, *l = p;
		bool indented = cut && isspace((unsigned char)*raw), generic;

		p += cut + (p[cut] == '\n');
		/* The source line under a traceback frame, and a native backtrace's "  12: tvm::..." */
		if (frame && indented) {
			frame = false;
			continue;
		}
		while (l < raw + cut && isspace((unsigned char)*l))
			l++;
		len = (size_t)(raw + cut - l);
		while (len && isspace((unsigned char)l[len - 1]))
			len--;
		frame = starts(l, "File \"");
		if (frame)
			continue;
		/* A caret under an echoed source line ("    %0 = torch.operator ...", then "         ^"), as
		 * MLIR, clang and Python's SyntaxError print one: the echo is where the error is, not what
		 * it is, and its template says only what kind of line the input had there. */
		if (len && *l == '^' && strspn(l, "^~ ") == len) {
			if (n && last_indented) {
				free((*lines)[n - 1].text);
				n--;
			}
			last_indented = false;
			continue;
		}
		if (indented && len && isdigit((unsigned char)*l) && memchr(l, ':', len) &&
		    strspn(l, "0123456789") == (size_t)((const char *)memchr(l, ':', len) - l))
			continue;
		if (!len)
			continue;
		if (strstr(l, " of exporting the model to ONNX") && strstr(l, "This is step "))
			banner = true;
		buf_reset(&line);
		buf_add(&line, l, len);
		l = line.data;
		/* ONNX Runtime's status prefix, the node it ran, and the C++ location before the text. */
		if (starts(l, "[ONNXRuntimeError] : ")) {
			/* "[ONNXRuntimeError] : 1 : FAIL : text": the code is the exception type already. */
			const char *c = l + 21 + strspn(l + 21, "0123456789");

			if (starts(c, " : ") && strspn(c + 3, "ABCDEFGHIJKLMNOPQRSTUVWXYZ_") &&
			    starts(c + 3 + strspn(c + 3, "ABCDEFGHIJKLMNOPQRSTUVWXYZ_"), " : "))
				l = c + 6 + strspn(c + 3, "ABCDEFGHIJKLMNOPQRSTUVWXYZ_");
		}
		if (starts(l, "Non-zero status code returned while running ") && strstr(l, "Status Message: "))
			l = strstr(l, "Status Message: ") + 16;
		if (starts(l, "Exception during initialization: "))
			l += 33;
		l = skip_cpp_location(l);
		len = strlen(l);
		generic = generic_line(l, len, banner);
		if (generic && starts(l, "Check '") && strstr(l, "' failed at ")) {
			/* Kept in case nothing follows it: the condition and the file, unquoted. */
			const char *at = strstr(l, "' failed at ") + 12, *file = at + strcspn(at, ":");

			while (file > at && file[-1] != '/')
				file--;
			buf_reset(fallback);
			buf_addf(fallback, "check %.*s failed in %.*s", (int)(at - 12 - (l + 7)), l + 7,
				 (int)strcspn(file, ":"), file);
		}
		if (starts(l, "-- "))
			l += 3;
		/* ONNX Runtime's checker prints the whole node before its error. */
		if (starts(l, "This is an invalid model. In Node, ") && strstr(l, " , Error "))
			l = strstr(l, " , Error ") + 3;
		buf_reset(&text);
		/* torch.onnx's chain names each exception as "<class 'pkg.Error'>: ": keep the type's name. */
		if (starts(l, "<class '") && strstr(l, "'>")) {
			const char *end = strstr(l, "'>"), *name = end;

			while (name > l + 8 && name[-1] != '.' && name[-1] != '\'')
				name--;
			buf_add(&text, name, (size_t)(end - name));
			l = end + 2;
		}
		add_without_locations(&text, l);
		XGROW(*lines, cap, n + 1);
		(*lines)[n++] = (struct msg_line){ buf_detach(&text), generic };
		last_indented = indented;
	}
	buf_release(&clean);
	buf_release(&line);
	buf_release(&text);
	return n;
}

static void message_lines_free(struct msg_line *lines, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(lines[i].text);
	free(lines);
}

void dedup_decisive(const char *msg, struct buf *out)
{
	struct buf fallback = BUF_INIT;
	struct msg_line *lines;
	size_t n = message_lines(msg, &lines, &fallback), i;
	const char *m = msg ? msg : "";

	for (i = 0; i < n && lines[i].generic; i++)
		;
	if (i < n) {
		buf_adds(out, lines[i].text);
	} else if (fallback.len) {
		buf_add(out, fallback.data, fallback.len);
	} else {
		/* The first line of the message, its escapes aside. */
		struct buf first = BUF_INIT;

		for (const char *p = m; *p && *p != '\n'; p++) {
			if (*p == '\x1b' && p[1] == '[') {
				for (p += 2; *p && !isalpha((unsigned char)*p); p++)
					;
				if (!*p)
					break;
				continue;
			}
			buf_addc(&first, *p);
		}
		if (first.len)
			buf_add(out, first.data, first.len);
		buf_release(&first);
	}
	message_lines_free(lines, n);
	buf_release(&fallback);
}

/* The operator as a bug names it: one operation however a library spells it. PyTorch offers the same
 * ATen operation as torch.X, torch.Tensor.X, torch.functional.X and the in-place X_, which reach the
 * frontend as one translator (a dunder such as __add__ keeps its underscores). Other libraries' names
 * are left as they are. */
static void canonical_op(const char *op, struct buf *out)
{
	static const char *const spellings[] = { "torch.Tensor.", "torch.functional.", "torch." };
	size_t len;

	for (size_t i = 0; op && i < sizeof(spellings) / sizeof(*spellings); i++) {
		size_t n = strlen(spellings[i]);

		if (!strncmp(op, spellings[i], n) && !strchr(op + n, '.')) {
			op += n;
			len = strlen(op);
			if (len > 1 && op[len - 1] == '_' && op[len - 2] != '_')
				len--;
			buf_addf(out, "torch.%.*s", (int)len, op);
			return;
		}
	}
	buf_addf(out, "%s", op ? op : "?");
}

/* MLIR's "failed to legalize operation 'OP' that was explicitly marked illegal: %7 = "OP"(%arg0, %6)
 * <{name = "onnx.Attention"}> : (types) -> types" prints the operation after its colon, with
 * operands, their numbering and their types, which vary with every model; what decides is the
 * operation, and for an operator an importer left as it was (torch-mlir's "torch.operator") its name.
 * The operation's name goes in unquoted: the normalized form hides quoted text. For the signature
 * only: the bug list shows the line as the compiler wrote it. */
static bool mlir_legalize(const char *line, struct buf *out)
{
	static const char head[] = "failed to legalize operation '";
	const char *op = strstr(line, head), *end, *attrs, *attrs_end, *name;

	if (!op || !(end = strchr(op += sizeof(head) - 1, '\'')))
		return false;
	buf_addf(out, "failed to legalize operation %.*s", (int)(end - op), op);
	if ((attrs = strstr(end, "<{")) && (attrs_end = strstr(attrs, "}>")) && (name = strstr(attrs, "name = \"")) &&
	    name < attrs_end) {
		name += 8;
		buf_addf(out, " %.*s", (int)strcspn(name, "\""), name);
	}
	if (strstr(end, "that was explicitly marked illegal"))
		buf_adds(out, " (explicitly marked illegal)");
	return true;
}

/* Whether the line quotes something, as dedup_normalize sees a quote: the normalized form hides it,
 * and a quoted name is often the operator's own ("Unsupported function types ['unique']"). */
static bool quotes(const char *l)
{
	for (; *l; l++)
		if (quoted_end(l))
			return true;
	return false;
}

void dedup_signature(const struct failure *f, struct buf *out)
{
	const char *stage = f->stage ? f->stage : "-";
	int o = outcome_from_name(f->outcome);

	buf_addf(out, "%s|%s|%s|", f->frontend, f->outcome, stage);
	if (o == OUTCOME_MISMATCH) {
		canonical_op(f->op, out);
		buf_addf(out, "|%s", mismatch_kind(f->message));
		/* Frontends against each other (the differential oracle): which agrees with the reference. */
		if (f->exc_type)
			buf_addf(out, "|%s", f->exc_type);
	} else if (o == OUTCOME_INCONSISTENT) {
		/* The mutation that shows it (its reduction's minimal one, once reduced): kind:target_op. */
		buf_addf(out, "%s", f->frame ? f->frame : "-");
	} else if (o == OUTCOME_CRASH && f->exc_type && !strncmp(f->exc_type, "signal ", 7)) {
		buf_addf(out, "%s|", f->exc_type);
		canonical_op(f->op, out);
	} else if (o == OUTCOME_CRASH) {
		/* What decides: the exception, where it was raised and the message's decisive line (not its
		 * first: OpenVINO opens most errors with a generic check location, torch.onnx with a step
		 * banner); the operator too where that line quotes a name, which the normalized line hides.
		 * A line that quotes nothing says all it says whichever operator reaches it: "KeyError:
		 * torch.bfloat16" raised in one place is one cause, not one bug per operator. */
		struct buf decisive = BUF_INIT, key = BUF_INIT;

		dedup_decisive(f->message, &decisive);
		buf_addf(out, "%s|%s|", f->exc_type ? f->exc_type : "-", f->frame ? f->frame : "-");
		if (!mlir_legalize(decisive.data ? decisive.data : "", &key))
			buf_add(&key, decisive.data ? decisive.data : "", decisive.len);
		if (quotes(key.data ? key.data : ""))
			canonical_op(f->op, out);
		buf_addc(out, '|');
		dedup_normalize(key.data ? key.data : "", out);
		buf_release(&decisive);
		buf_release(&key);
	} else {
		canonical_op(f->op, out);
	}
}

/* How simple an instance is: fewer parameters first, then fewer input elements. */
static void simplicity(const char *record, long long *nparams, long long *elements, char **out_dtype,
		       char **in_dtype, bool *derived, bool *empty, bool *scalar, char **parent)
{
	struct instance in;
	struct err e = ERR_INIT;

	*nparams = 1LL << 40;
	*elements = 1LL << 60;
	*out_dtype = NULL;
	if (in_dtype)
		*in_dtype = NULL;
	if (derived)
		*derived = false;
	if (empty)
		*empty = false;
	if (scalar)
		*scalar = false;
	if (parent)
		*parent = NULL;
	if (record_parse(&in, record, strlen(record), &e) < 0) {
		err_release(&e);
		return;
	}
	/* ferry made it (kinds.h): a variant of a library's test, or a generated graph. */
	if (derived)
		*derived = in.graph || cJSON_GetObjectItemCaseSensitive(in.extra, "variant");
	if (parent) {
		const cJSON *v = cJSON_GetObjectItemCaseSensitive(in.extra, "variant");
		const char *of = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(v, "parent"));

		*parent = of ? xstrdup(of) : NULL;
	}
	if (in.noutputs && in.outputs[0].type == V_TENSOR && in.outputs[0].u.t.dtype)
		*out_dtype = xstrdup(in.outputs[0].u.t.dtype);
	for (size_t i = 0; in_dtype && !*in_dtype && i < in.ninputs; i++)
		if (in.inputs[i].type == V_TENSOR && in.inputs[i].u.t.dtype)
			*in_dtype = xstrdup(in.inputs[i].u.t.dtype);
	*nparams = (long long)in.nparams;
	*elements = 0;
	for (size_t i = 0; i < in.ninputs; i++) {
		long long n = 1;

		if (in.inputs[i].type != V_TENSOR)
			continue;
		if (scalar && in.inputs[i].u.t.rank == 0)
			*scalar = true;
		for (int k = 0; k < in.inputs[i].u.t.rank; k++) {
			n *= in.inputs[i].u.t.shape[k] > 0 ? in.inputs[i].u.t.shape[k] : 1;
			if (empty && in.inputs[i].u.t.shape[k] == 0)
				*empty = true;
		}
		*elements += n;
	}
	record_release(&in);
}

struct bug {
	char id[17];
	char *frontend, *outcome, *stage, *message, *signature;
	char *rep;                 /* the representative's id */
	long long rep_params, rep_elements;
	bool rep_empty;            /* the representative has an empty input tensor */
	struct strmap ops;
	char **members;
	size_t nmembers, cap;
};

static void bug_free(struct bug *b)
{
	free(b->frontend);
	free(b->outcome);
	free(b->stage);
	free(b->message);
	free(b->signature);
	free(b->rep);
	strmap_release(&b->ops);
	for (size_t i = 0; i < b->nmembers; i++)
		free(b->members[i]);
	free(b->members);
	free(b);
}

/* A failure as the rebuild keeps it until every failure of its frontend is read: the decisive line
 * of a crash is decided by what the other failures say. */
struct fail {
	char *id, *frontend, *op, *outcome, *stage, *exc_type, *frame, *message;
	char *out_dtype;          /* its first output's dtype, or NULL */
	char *in_dtype;           /* its first tensor input's dtype, or NULL */
	char *parent;             /* a variant's: the test it is one change of, else NULL */
	char *graph_ops;          /* a graph's operators, ",A,B,", else NULL */
	bool derived;             /* a variant or a generated graph */
	bool empty;               /* an input tensor has no elements (a dimension of size 0) */
	bool scalar;              /* an input tensor has rank 0 (the canary's form: environment.h) */
	long long np, ne;
	struct msg_line *lines;   /* a crash's lines (message_lines), else NULL */
	size_t nlines;
};

struct rebuild {
	struct strmap bugs;   /* frontend, \x1f, signature -> struct bug */
	struct buf sig, key;
	size_t failures;
	struct fail *fails;
	size_t nfails, cap;
};

static char *dup_or_null(const char *s)
{
	return s ? xstrdup(s) : NULL;
}

/* The operators of a graph's record (kind "graph"), ",A,B,": its nodes' "op"s; NULL for any other
 * record. */
static char *graph_ops(const char *record)
{
	cJSON *root, *graph, *node;
	struct buf out = BUF_INIT;

	if (!record || !strstr(record, "\"graph\"") || !(root = cJSON_Parse(record)))
		return NULL;
	graph = cJSON_GetObjectItemCaseSensitive(root, "graph");
	cJSON_ArrayForEach(node, cJSON_GetObjectItemCaseSensitive(graph, "nodes")) {
		const char *op = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(node, "op"));

		if (op)
			buf_addf(&out, "%s%s,", out.len ? "" : ",", op);
	}
	cJSON_Delete(root);
	return out.data ? buf_detach(&out) : NULL;
}

/* A crash that ended in an exception, whose message has lines to weigh (not a signal's death). */
static bool weighed(const struct fail *f)
{
	return outcome_from_name(f->outcome) == OUTCOME_CRASH && !(f->exc_type && !strncmp(f->exc_type, "signal ", 7));
}

/* Each failing result is kept, with how simple its instance is. */
static int add_failure(void *ctx, const struct db_row *row, struct err *e)
{
	struct rebuild *rb = ctx;
	struct fail *f;
	struct buf fallback = BUF_INIT;

	(void)e;
	XGROW(rb->fails, rb->cap, rb->nfails + 1);
	f = &rb->fails[rb->nfails++];
	*f = (struct fail){ xstrdup(row->id), xstrdup(row->frontend), xstrdup(row->op ? row->op : ""),
			    xstrdup(row->outcome), dup_or_null(row->stage), dup_or_null(row->exc_type),
			    dup_or_null(row->frame), dup_or_null(row->message), NULL, NULL, NULL, NULL, false, false,
			    false, 0, 0, NULL, 0 };
	simplicity(row->record ? row->record : "", &f->np, &f->ne, &f->out_dtype, &f->in_dtype, &f->derived,
		   &f->empty, &f->scalar, &f->parent);
	f->graph_ops = graph_ops(row->record);
	if (weighed(f))
		f->nlines = message_lines(f->message, &f->lines, &fallback);
	buf_release(&fallback);
	return 0;
}

static void fail_release(struct fail *f)
{
	free(f->id);
	free(f->frontend);
	free(f->op);
	free(f->outcome);
	free(f->stage);
	free(f->exc_type);
	free(f->frame);
	free(f->message);
	free(f->out_dtype);
	free(f->in_dtype);
	free(f->parent);
	free(f->graph_ops);
	message_lines_free(f->lines, f->nlines);
}

/* A message weighs at most this many of its lines: what decides is near its top. */
#define WEIGHED_LINES 32

/* The templates of f's lines (at most WEIGHED_LINES, each once), into tpls (owned strings). */
static size_t line_templates(const struct template_set *t, const struct fail *f, char **tpls)
{
	size_t n = 0;

	for (size_t i = 0; i < f->nlines && n < WEIGHED_LINES; i++) {
		struct buf out = BUF_INIT;
		size_t k;

		template_match(t, f->lines[i].text, &out);
		for (k = 0; k < n && strcmp(tpls[k], out.data ? out.data : ""); k++)
			;
		if (k < n) {
			buf_release(&out);
			continue;
		}
		tpls[n++] = out.data ? buf_detach(&out) : xstrdup("");
	}
	return n;
}

static size_t partners_of(const struct strmap *partners, const char *tpl)
{
	const struct strmap_entry *e = strmap_find(partners, tpl);

	return e ? e->count : 0;
}

/* The crashes of one frontend, fails[0..n): their lines' templates learnt together, and for each
 * template how many others it is seen with. A line seen with many different lines (a generic header,
 * a banner, "Check 'false' failed at core.cpp") says where a failure was reported, not what failed;
 * the decisive line of a message is its template seen with the fewest others (the first, on a tie).
 * decisive[i] receives fails[i]'s (owned; NULL for a failure that is not weighed). */
static void decide(struct fail *fails, size_t n, char **decisive)
{
	struct template_set *t = template_new();
	struct strmap pairs = STRMAP_INIT, partners = STRMAP_INIT;
	const char **texts = NULL;
	size_t ntexts = 0, cap = 0;
	char *tpls[WEIGHED_LINES];
	struct buf key = BUF_INIT;

	for (size_t i = 0; i < n; i++)
		for (size_t k = 0; k < fails[i].nlines; k++) {
			XGROW(texts, cap, ntexts + 1);
			texts[ntexts++] = fails[i].lines[k].text;
		}
	template_learn_all(t, texts, ntexts);
	for (int pass = 0; pass < 2; pass++)
		for (size_t i = 0; i < n; i++) {
			size_t m = weighed(&fails[i]) ? line_templates(t, &fails[i], tpls) : 0, best = 0;

			for (size_t a = 0; a < m; a++) {
				size_t seen;

				for (size_t b = 0; pass == 0 && b < m; b++) {
					int created;

					if (a == b)
						continue;
					buf_reset(&key);
					buf_addf(&key, "%s\x1f%s", tpls[a], tpls[b]);
					strmap_get(&pairs, key.data, &created);
					if (created)
						strmap_get(&partners, tpls[a], NULL)->count++;
				}
				seen = partners_of(&partners, tpls[a]);
				if (pass == 1 && a && seen < partners_of(&partners, tpls[best]))
					best = a;
			}
			if (pass == 1)
				decisive[i] = weighed(&fails[i]) ? xstrdup(m ? tpls[best] : "") : NULL;
			for (size_t a = 0; a < m; a++)
				free(tpls[a]);
		}
	buf_release(&key);
	strmap_release(&pairs);
	strmap_release(&partners);
	free(texts);
	template_free(t);
}

/* An MLIR compiler's failure to legalize, wherever in the message: its operation, and a generic
 * operation's name (mlir_legalize), into out. The templates that decide a line hide what varies
 * across failures, and in torch-mlir's "torch.operator" that is the name, the one thing that tells
 * onnx.StringNormalizer from onnx.DFT, while its operands' count, which the template keeps, tells
 * nothing. */
static bool legalize_key(const struct fail *f, struct buf *out)
{
	for (size_t k = 0; k < f->nlines; k++) {
		buf_reset(out);
		if (!mlir_legalize(f->lines[k].text, out))
			continue;
		/* An operation that an importer leaves generic, printed without the name that tells it:
		 * its key would say nothing, and the template keeps whatever else the line has. */
		if (!strcmp(out->data, "failed to legalize operation torch.operator") ||
		    !strcmp(out->data, "failed to legalize operation torch.operator (explicitly marked illegal)"))
			return false;
		return true;
	}
	return false;
}

/* The signature of a weighed crash: stage, exception type, the frame where it arose and the
 * template of its decisive line (decide); the operator is not in it: a line that holds one varies
 * with it and is learnt so. */
static void crash_signature(const struct fail *f, const char *decisive, struct buf *out)
{
	buf_addf(out, "%s|%s|%s|%s|%s|", f->frontend, f->outcome, f->stage ? f->stage : "-",
		 f->exc_type ? f->exc_type : "-", f->frame ? f->frame : "-");
	buf_adds(out, decisive);
}

/* What the first NaN or Inf that differs was given instead: the largest float16, float32 or float64
 * (a frontend that clamps infinities), NaN, an infinity, or another number. */
static const char *given_instead(const char *message)
{
	const char *at = strstr(message, "Inf mismatch"), *got;
	double v;

	if (!at)
		at = strstr(message, "NaN mismatch");
	if (!at || !(got = strstr(at, "got ")))
		return "?";
	got += 4;
	if (!strncmp(got, "nan", 3) || !strncmp(got, "-nan", 4))
		return "nan";
	v = fabs(strtod(got, NULL));
	if (isinf(v))
		return "inf";
	if (v == 65504.0)
		return "float16 max";
	if (v > 3.4e38 && v < 3.41e38)
		return "float32 max";
	if (v > 1.79e308)
		return "float64 max";
	return "a number";
}

/* Whether a mismatch of values is wrong in (nearly) every element of an output of several: a wrong
 * formula (an ignored parameter, a swapped operand) shows wherever it computes, whatever the dtype,
 * where precision, overflow or rounding show in some elements and differ from one dtype to the next.
 * From the comparison's "N of M elements differ" or "N of M elements beyond ...", of three elements
 * or more. */
static bool everywhere(const char *message)
{
	const char *p = message;
	long long n, m;

	while (p && (p = strstr(p, " of ")) != NULL) {
		const char *q = p;

		while (q > message && isdigit((unsigned char)q[-1]))
			q--;
		if (q < p && sscanf(q, "%lld of %lld elements", &n, &m) == 2 && m >= 3)
			return 10 * n >= 9 * m;
		p += 4;
	}
	return false;
}

/* The signature of a mismatch by what differs, not by operator alone: an infinity or NaN given
 * as something else is one cause whatever operator shows it (a frontend that clamps infinities),
 * and so is a wrong shape from an input with no elements; values that differ are the operator's and
 * its output dtype's, another shape or a dtype the operator's. */
static void mismatch_signature(const struct fail *f, struct buf *out)
{
	const char *kind = mismatch_kind(f->message);

	buf_addf(out, "%s|%s|%s|", f->frontend, f->outcome, kind);
	if (!strcmp(kind, "nan/inf") && f->message)
		buf_adds(out, given_instead(f->message));
	else if (!strcmp(kind, "shape") && f->empty)
		buf_adds(out, "an empty input");  /* one path for empty tensors, whatever the operator */
	else
		canonical_op(f->op, out);
	if (!strcmp(kind, "values"))
		buf_addf(out, "|%s", everywhere(f->message) ? "every element" : f->out_dtype ? f->out_dtype : "-");
	/* Frontends against each other (the differential oracle): which agrees with the reference. */
	if (f->exc_type)
		buf_addf(out, "|%s", f->exc_type);
}

/* f joins the bug of its signature, and may become its representative. */
static void join(struct rebuild *rb, const struct fail *f)
{
	struct strmap_entry *ent;
	struct bug *b;
	int created;

	/* By frontend and signature: an entry of a test's own (a disputed reference, a suspected invalid
	 * test: kinds.h) has a signature without a frontend, and one id for all the frontends that show
	 * it, but each frontend's members are its own. */
	buf_reset(&rb->key);
	buf_addf(&rb->key, "%s\x1f%s", f->frontend, rb->sig.data);
	ent = strmap_get(&rb->bugs, rb->key.data, &created);
	if (created) {
		XXH64_hash_t h = XXH3_64bits(rb->sig.data, rb->sig.len);

		b = xcalloc(1, sizeof(*b));
		snprintf(b->id, sizeof(b->id), "%012llx", (unsigned long long)(h >> 16));
		b->frontend = xstrdup(f->frontend);
		b->outcome = xstrdup(f->outcome);
		b->stage = dup_or_null(f->stage);
		b->message = dup_or_null(f->message);
		b->signature = xstrdup(rb->sig.data);
		b->rep_params = b->rep_elements = -1;
		ent->ptr = b;
	}
	b = ent->ptr;
	XGROW(b->members, b->cap, b->nmembers + 1);
	b->members[b->nmembers++] = xstrdup(f->id);
	strmap_get(&b->ops, f->op, NULL)->count++;
	/* An empty tensor takes a path of its own in most frontends: a maintainer handed one as the
	 * bug's reproducer may take it for an edge case, so it stands for the bug only when every
	 * member is one. */
	if (!b->rep || (b->rep_empty && !f->empty) ||
	    (b->rep_empty == f->empty &&
	     (f->np < b->rep_params || (f->np == b->rep_params && f->ne < b->rep_elements)))) {
		free(b->rep);
		b->rep = xstrdup(f->id);
		b->rep_params = f->np;
		b->rep_elements = f->ne;
		b->rep_empty = f->empty;
		free(b->message);
		b->message = dup_or_null(f->message);
	}
}

/* A test's groups as a frontend may lack them: its operator with its first input's dtype, and, for
 * an operator that converts, with its output's ("Cast to int4" lacks what its float input cannot
 * say): "in|op|dtype", "out|op|dtype". */
static void op_dtype(int side, const char *op, const char *dtype, struct buf *out)
{
	buf_reset(out);
	buf_addf(out, "%s|%s|%s", side ? "out" : "in", op ? op : "?", dtype ? dtype : "-");
}

/* The fewest tests of a group that can show a frontend lacks it: one or two forms that fail alike are
 * as likely one bug as a missing operator. */
#ifndef LACKS_MIN_TESTS
#define LACKS_MIN_TESTS 5
#endif

struct tally {
	struct strmap tests;   /* a group (op_dtype) -> how many tests of the frontend's it has */
	struct strmap passed;  /* the groups whose probe passed (an input's dtype): supported */
	struct buf key;
};

static int count_probe(void *ctx, const struct db_support *s, struct err *e)
{
	struct tally *t = ctx;

	(void)e;
	op_dtype(0, s->op, s->dtype, &t->key);
	strmap_get(&t->passed, t->key.data, NULL);
	return 0;
}

static int count_test(void *ctx, const struct db_row *row, struct err *e)
{
	struct tally *t = ctx;
	long long np, ne;
	char *out = NULL, *in = NULL;

	(void)e;
	simplicity(row->record ? row->record : "", &np, &ne, &out, &in, NULL, NULL, NULL, NULL);
	for (int side = 0; side < 2; side++) {
		op_dtype(side, row->op, side ? out : in, &t->key);
		strmap_get(&t->tests, t->key.data, NULL)->count++;
	}
	free(out);
	free(in);
	return 0;
}

/* The dtype of f that a group of side takes; NULL when side is the output and its dtype is the
 * input's (that group is the input's). */
static const char *side_dtype(const struct fail *f, int side)
{
	if (!side)
		return f->in_dtype;
	return f->out_dtype && f->in_dtype && strcmp(f->out_dtype, f->in_dtype) ? f->out_dtype : NULL;
}

/* Whether the comma-separated list holds item. */
static bool list_has(const char *list, const char *item)
{
	size_t n = strlen(item);

	for (const char *p = list; p; p = strchr(p, ',') ? strchr(p, ',') + 1 : NULL)
		if (!strncmp(p, item, n) && (p[n] == ',' || !p[n]))
			return true;
	return false;
}

/* The comma-separated list with item put in its place (sorted). */
static char *sorted_add(const char *list, const char *item)
{
	struct buf out = BUF_INIT;
	bool put = false;

	for (const char *p = list; p;) {
		const char *end = strchr(p, ',');
		size_t len = end ? (size_t)(end - p) : strlen(p);

		if (!put && (strncmp(item, p, len) < 0 || (!strncmp(item, p, len) && strlen(item) < len))) {
			buf_addf(&out, "%s%s", out.len ? "," : "", item);
			put = true;
		}
		buf_addf(&out, "%s%.*s", out.len ? "," : "", (int)len, p);
		p = end ? end + 1 : NULL;
	}
	if (!put)
		buf_addf(&out, "%s%s", out.len ? "," : "", item);
	return buf_detach(&out);
}

/* What a frontend lacks alike for several dtypes is one entry: "lacks|FE|OP|DTYPE|SIG" of one
 * operator and signature become "lacks|FE|OP|D1,D2,...|SIG", the dtypes in order. */
static void merge_lacking(char **sigs, size_t n)
{
	struct strmap dtypes = STRMAP_INIT;   /* "FE|OP" "\x1f" SIG -> the dtypes, comma-separated */
	struct buf key = BUF_INIT;

	for (int pass = 0; pass < 2; pass++)
		for (size_t i = 0; i < n; i++) {
			const char *fe, *op, *dt, *rest;
			struct strmap_entry *d;

			if (kinds_of_signature(sigs[i]) != KIND_LACKS || !(fe = strchr(sigs[i], '|')) ||
			    !(op = strchr(fe + 1, '|')) || !(dt = strchr(op + 1, '|')) || !(rest = strchr(dt + 1, '|')))
				continue;
			buf_reset(&key);
			buf_addf(&key, "%.*s\x1f%s", (int)(dt - fe - 1), fe + 1, rest + 1);
			d = strmap_get(&dtypes, key.data, NULL);
			if (pass == 0) {
				char *one = xstrndup(dt + 1, (size_t)(rest - dt - 1)), *both;

				if (!d->ptr || !list_has(d->ptr, one)) {
					both = d->ptr ? sorted_add(d->ptr, one) : xstrdup(one);
					free(d->ptr);
					d->ptr = both;
				}
				free(one);
			} else {
				char *merged = xasprintf("lacks|%.*s|%s|%s", (int)(dt - fe - 1), fe + 1, (char *)d->ptr,
							 rest + 1);

				free(sigs[i]);
				sigs[i] = merged;
			}
		}
	for (size_t i = 0; i < dtypes.cap; i++)
		if (dtypes.slots[i].key)
			free(dtypes.slots[i].ptr);
	strmap_release(&dtypes);
	buf_release(&key);
}

/* A generated graph that holds an operator the frontend lacks, and fails with the very signature
 * that operator's tests lack it by, fails for that: it joins the entry ("lacks|FE|OP|DTYPES|SIG").
 * IREE's graphs holding LpPool fail as LpPool's own tests do, "failed to legalize operation
 * torch.operator onnx.LpPool". */
static void graphs_lacking(const struct fail *fails, size_t n, char **sigs)
{
	struct strmap by_sig = STRMAP_INIT;   /* SIG -> the entry's signature (not owned) */
	struct buf key = BUF_INIT;

	for (size_t i = 0; i < n; i++) {
		const char *p = sigs[i];

		if (kinds_of_signature(p) != KIND_LACKS)
			continue;
		for (int k = 0; k < 4 && p; k++)
			p = strchr(p, '|') ? strchr(p, '|') + 1 : NULL;
		if (p)
			strmap_get(&by_sig, p, NULL)->ptr = sigs[i];
	}
	for (size_t i = 0; by_sig.len && i < n; i++) {
		const struct strmap_entry *ent;
		const char *lack, *op, *end;

		if (!fails[i].graph_ops || kinds_of_signature(sigs[i]) != KIND_BUG ||
		    !(ent = strmap_find(&by_sig, sigs[i])))
			continue;
		lack = ent->ptr;
		/* "lacks|FE|OP|...": the operator, as ",OP," in the graph's */
		op = strchr(strchr(lack, '|') + 1, '|') + 1;
		end = strchr(op, '|');
		buf_reset(&key);
		buf_addf(&key, ",%.*s,", (int)(end - op), op);
		if (!strstr(fails[i].graph_ops, key.data))
			continue;
		free(sigs[i]);
		sigs[i] = xstrdup(lack);
	}
	strmap_release(&by_sig);
	buf_release(&key);
}

/* A frontend lacks an operator for a dtype when every one of its tests of that group crashed with
 * one signature (its simplest form among them), the suspected invalid ones aside, and its probe did
 * not pass (the support table): the group is one entry, "lacks OP (dtype)", listed
 * apart from the bugs, whatever its message says. A crash that only some forms hit stays a bug.
 * The group is by the input's dtype first, then by the output's. sigs[i] is fails[i]'s signature;
 * lacking ones are rewritten "lacks|FRONTEND|OP|DTYPE|...". */
static int mark_lacking(struct db *d, struct fail *fails, size_t n, char **sigs, struct err *e)
{
	struct tally t = { STRMAP_INIT, STRMAP_INIT, BUF_INIT };
	struct buf what = BUF_INIT;   /* "OP" "\x1f" SIG: what a group of the operator lacks */
	int r = -1;

	if (!n || db_results_with(d, fails[0].frontend, NULL, count_test, &t, e) < 0 ||
	    db_support_passed(d, fails[0].frontend, count_probe, &t, e) < 0)
		goto out;
	for (int side = 0; side < 2; side++) {
		struct strmap crashed = STRMAP_INIT, one = STRMAP_INIT, invalid = STRMAP_INIT, lacking = STRMAP_INIT;

		for (size_t i = 0; i < n; i++) {
			struct strmap_entry *s;

			if (side && !side_dtype(&fails[i], side))
				continue;
			/* A suspected invalid test says nothing of what the frontend supports. */
			if (kinds_of_signature(sigs[i]) == KIND_INVALID) {
				op_dtype(side, fails[i].op, side_dtype(&fails[i], side), &t.key);
				strmap_get(&invalid, t.key.data, NULL)->count++;
				continue;
			}
			if (!weighed(&fails[i]) || kinds_of_signature(sigs[i]) != KIND_BUG)
				continue;
			op_dtype(side, fails[i].op, side_dtype(&fails[i], side), &t.key);
			strmap_get(&crashed, t.key.data, NULL)->count++;
			s = strmap_get(&one, t.key.data, NULL);
			if (!s->ptr)
				s->ptr = sigs[i];
			else if (strcmp(s->ptr, sigs[i]))
				s->count = 1;  /* two signatures: not one thing lacking */
		}
		/* Round 0 finds the groups that show it by themselves, five tests or more; round 1 adds the
		 * operator's smaller groups of another dtype whose every test fails with the signature a
		 * larger group lacks (Attention of float64 in three tests, all failing as float32's do). */
		for (int round = 0; round < 2; round++)
			for (size_t i = 0; i < n; i++) {
				struct strmap_entry *c, *s, *all, *skip;
				const char *dtype;
				size_t tests;
				char *lack;

				if (!weighed(&fails[i]) || kinds_of_signature(sigs[i]) != KIND_BUG ||
				    (side && !side_dtype(&fails[i], side)))
					continue;
				op_dtype(side, fails[i].op, side_dtype(&fails[i], side), &t.key);
				c = strmap_find(&crashed, t.key.data);
				s = strmap_find(&one, t.key.data);
				all = strmap_find(&t.tests, t.key.data);
				skip = strmap_find(&invalid, t.key.data);
				tests = all ? all->count - (skip ? skip->count : 0) : 0;
				/* a group whose probe passed is supported, whatever its tests here say */
				if (!c || !s || s->count || tests != c->count || strmap_find(&t.passed, t.key.data))
					continue;
				buf_reset(&what);
				buf_addf(&what, "%s\x1f%s", fails[i].op ? fails[i].op : "?", sigs[i]);
				if (round ? !strmap_find(&lacking, what.data) : tests < LACKS_MIN_TESTS)
					continue;
				strmap_get(&lacking, what.data, NULL);
				dtype = side_dtype(&fails[i], side);
				lack = xasprintf("lacks|%s|%s|%s|%s", fails[i].frontend,
						 fails[i].op ? fails[i].op : "?", dtype ? dtype : "-", sigs[i]);
				s->ptr = NULL;  /* its members' signatures change under it: no longer compared */
				free(sigs[i]);
				sigs[i] = lack;
			}
		strmap_release(&crashed);
		strmap_release(&one);
		strmap_release(&invalid);
		strmap_release(&lacking);
	}
	merge_lacking(sigs, n);
	graphs_lacking(fails, n, sigs);
	r = 0;
out:
	strmap_release(&t.tests);
	strmap_release(&t.passed);
	buf_release(&t.key);
	buf_release(&what);
	return r;
}

/* The crashes of one frontend, fails[0..n), whose message says the frontend does not support what
 * the test asks by ferry's patterns of today (oracle/unsupported/, which may have grown since the run
 * recorded them crashes): their decisive[i] becomes "unsupported|FRONTEND|PATTERN" (kinds.h). */
static void says_unsupported(const struct fail *fails, size_t n, char **decisive)
{
	struct classify patterns = CLASSIFY_INIT;
	struct err ignored = ERR_INIT;
	char *adapter = n ? session_adapter_name(fails[0].frontend) : NULL;
	struct buf both = BUF_INIT;

	/* Patterns that do not load (a frontend gone, a user's file moved) only cost the kind. */
	if (!adapter || classify_load_frontend(&patterns, adapter, &ignored) < 0)
		goto out;
	for (size_t i = 0; i < n; i++) {
		const struct classify_pattern *which;

		if (!weighed(&fails[i]))
			continue;
		buf_reset(&both);
		buf_addf(&both, "%s: %s", fails[i].exc_type ? fails[i].exc_type : "",
			 fails[i].message ? fails[i].message : "");
		if (!classify_match(&patterns, both.data, &which) || !which)
			continue;
		free(decisive[i]);
		decisive[i] = xasprintf("unsupported|%s|%s", fails[i].frontend, which->text);
	}
out:
	err_release(&ignored);
	classify_release(&patterns);
	buf_release(&both);
	free(adapter);
}

/* Every kept failure into its bug, a frontend at a time (the failures come by frontend, then id). */
static int group_all(struct db *d, struct rebuild *rb, const struct kinds_evidence *ev, struct err *e)
{
	struct buf env = BUF_INIT, legal = BUF_INIT;
	int broken;

	for (size_t lo = 0, hi; lo < rb->nfails; lo = hi) {
		char **decisive;

		for (hi = lo; hi < rb->nfails && !strcmp(rb->fails[hi].frontend, rb->fails[lo].frontend); hi++)
			;
		decisive = xcalloc(hi - lo, sizeof(*decisive));
		decide(rb->fails + lo, hi - lo, decisive);
		says_unsupported(rb->fails + lo, hi - lo, decisive);
		buf_reset(&env);
		broken = environment_broken(d, rb->fails[lo].frontend, &env, e);
		if (broken < 0) {
			for (size_t i = lo; i < hi; i++)
				free(decisive[i - lo]);
			free(decisive);
			buf_release(&env);
			buf_release(&legal);
			return -1;
		}
		for (size_t i = lo; i < hi; i++) {
			const struct fail *f = &rb->fails[i];
			struct failure old = { f->frontend, f->op, f->outcome, f->stage, f->exc_type, f->frame,
					       f->message };
			struct kinds_case kc = { f->frontend, f->id, f->op, f->outcome, f->stage, f->message,
						 f->derived };

			buf_reset(&rb->sig);
			/* The canary's form (a 0-d input) on a frontend whose canary failed: nothing it answers
			 * there tells a bug from its environment (environment.h). */
			if (broken && f->scalar)
				buf_addf(&rb->sig, "environment|%s|%s", f->frontend, env.data ? env.data : "");
			else if (decisive[i - lo] && kinds_of_signature(decisive[i - lo]) == KIND_UNSUPPORTED)
				buf_adds(&rb->sig, decisive[i - lo]);
			else if (kinds_judge(ev, &kc, &rb->sig) != KIND_BUG)
				;  /* not a frontend bug: grouped by its kind's evidence (kinds.h) */
			else if (decisive[i - lo] && legalize_key(f, &legal))
				crash_signature(f, legal.data, &rb->sig);
			else if (decisive[i - lo])
				crash_signature(f, decisive[i - lo], &rb->sig);
			else if (outcome_from_name(f->outcome) == OUTCOME_MISMATCH)
				mismatch_signature(f, &rb->sig);
			else
				dedup_signature(&old, &rb->sig);
			free(decisive[i - lo]);
			decisive[i - lo] = buf_detach(&rb->sig);
		}
		if (mark_lacking(d, rb->fails + lo, hi - lo, decisive, e) < 0) {
			for (size_t i = lo; i < hi; i++)
				free(decisive[i - lo]);
			free(decisive);
			buf_release(&env);
			buf_release(&legal);
			return -1;
		}
		for (size_t i = lo; i < hi; i++) {
			rb->failures++;
			buf_reset(&rb->sig);
			buf_adds(&rb->sig, decisive[i - lo]);
			join(rb, &rb->fails[i]);
			free(decisive[i - lo]);
		}
		free(decisive);
	}
	buf_release(&env);
	buf_release(&legal);
	return 0;
}

/* --- one cause by its trigger ------------------------------------------------------------------ */

/* What of a bug's signature is its template: a crash's decisive line, a mismatch's kind (with what a
 * NaN or infinity was given as); the frontend and outcome go first. Into out. */
static void template_key(const char *signature, struct buf *out)
{
	const char *p = signature;
	int field = strstr(signature, "|crash|") || strstr(signature, "|timeout|") ? 5 : 2;

	for (int k = 0; k < 2 && p; k++)
		p = strchr(p, '|') ? strchr(p, '|') + 1 : NULL;
	buf_reset(out);
	buf_addf(out, "%.*s", p ? (int)(p - signature) : (int)strlen(signature), signature);
	for (int k = 2; k < field && p; k++)
		p = strchr(p, '|') ? strchr(p, '|') + 1 : NULL;
	if (!p)
		return;
	if (field == 5)
		buf_adds(out, p);
	else if (!strncmp(p, "nan/inf|", 8))
		buf_addf(out, "%.*s", strchr(p + 8, '|') ? (int)(strchr(p + 8, '|') - p) : (int)strlen(p), p);
	else
		buf_addf(out, "%.*s", strchr(p, '|') ? (int)(strchr(p, '|') - p) : (int)strlen(p), p);
}

/* Whether a before b as the bug that the other joins: more members, then the smaller id. */
static bool leads(const struct db_bug *a, const struct db_bug *b)
{
	return a->nmember_ids != b->nmember_ids ? a->nmember_ids > b->nmember_ids : strcmp(a->bug_id, b->bug_id) < 0;
}

/* rows[i] joins rows[into[i]] where the two differ (into[into[i]] is into[i]): its members and
 * operators join the leading bug's (the ids stay the groups'), and it leaves rows[0..*n). joined and
 * oplists are kept by row, as rows are: each row's joined member list (or NULL) and operator list
 * move with it, and a leaving row's list is freed. */
static void merge_rows(struct db_bug *rows, size_t *n, const size_t *into, char ***joined, struct buf *oplists)
{
	size_t m = 0;

	for (size_t i = 0; i < *n; i++) {
		struct db_bug *to = &rows[into[i]];
		size_t have = to->nmember_ids;
		char **v;

		if (into[i] == i)
			continue;
		v = xcalloc(have + rows[i].nmember_ids, sizeof(*v));
		memcpy(v, to->member_ids, have * sizeof(*v));
		memcpy(v + have, rows[i].member_ids, rows[i].nmember_ids * sizeof(*v));
		free(joined[into[i]]);
		joined[into[i]] = v;
		free(joined[i]);
		joined[i] = NULL;
		to->member_ids = v;
		to->nmember_ids = have + rows[i].nmember_ids;
		to->members += rows[i].members;
		for (const char *p = rows[i].ops; p && *p;) {
			const char *end = strchr(p, ',');
			char *op = xstrndup(p, end ? (size_t)(end - p) : strlen(p));

			if (!list_has(oplists[into[i]].data ? oplists[into[i]].data : "", op))
				buf_addf(&oplists[into[i]], "%s%s", oplists[into[i]].len ? "," : "", op);
			free(op);
			p = end ? end + 1 : NULL;
		}
		to->ops = oplists[into[i]].data;
	}
	for (size_t i = 0; i < *n; i++) {
		if (into[i] != i)
			continue;
		if (m != i) {
			struct buf t = oplists[m];
			char **j = joined[m];

			rows[m] = rows[i];
			oplists[m] = oplists[i];
			oplists[i] = t;
			joined[m] = joined[i];
			joined[i] = j;
		}
		m++;
	}
	*n = m;
}

/* The part of a values mismatch's signature that one change of its test keeps: frontend, outcome,
 * kind and operator ("ov|mismatch|values|Resize" of "ov|mismatch|values|Resize|float32"), into out;
 * false for any other signature. */
static bool values_key(const char *signature, struct buf *out)
{
	const char *p = signature;

	buf_reset(out);
	for (int k = 0; k < 4 && p; k++)
		p = strchr(p, '|') ? strchr(p, '|') + 1 : NULL;
	if (!p || !strstr(signature, "|mismatch|values|") || kinds_of_signature(signature) != KIND_BUG)
		return false;
	buf_addf(out, "%.*s", (int)(p - 1 - signature), signature);
	return true;
}

/* Bugs that one change of a test links, joined (join_by_change). */
struct change_join {
	struct strmap row_of;   /* frontend \x1f id -> row + 1 */
	size_t *into;           /* union-find over the rows */
	const struct db_bug *rows;
	struct buf a, b;
	const char *frontend;   /* the neighbours' (cj_neighbour) */
};

static size_t cj_find(size_t *into, size_t i)
{
	while (into[i] != i)
		i = into[i] = into[into[i]];
	return i;
}

/* Tests a and b (one a change of the other) fail on frontend: their bugs are one where both are
 * values mismatches of the operator. */
static void cj_link(struct change_join *cj, const char *frontend, const char *a, const char *b)
{
	const struct strmap_entry *ea, *eb;
	size_t ra, rb;
	struct buf k = BUF_INIT;

	buf_addf(&k, "%s\x1f%s", frontend, a);
	ea = strmap_find(&cj->row_of, k.data);
	buf_reset(&k);
	buf_addf(&k, "%s\x1f%s", frontend, b);
	eb = strmap_find(&cj->row_of, k.data);
	buf_release(&k);
	if (!ea || !eb)
		return;
	ra = cj_find(cj->into, (size_t)ea->ptr - 1);
	rb = cj_find(cj->into, (size_t)eb->ptr - 1);
	if (ra == rb || !values_key(cj->rows[ra].signature, &cj->a) || !values_key(cj->rows[rb].signature, &cj->b) ||
	    strcmp(cj->a.data, cj->b.data))
		return;
	/* The one with more members leads. */
	if (leads(&cj->rows[rb], &cj->rows[ra]))
		cj->into[ra] = rb;
	else
		cj->into[rb] = ra;
}

static int cj_neighbour(void *ctx, const struct db_neighbour *n, struct err *e)
{
	struct change_join *cj = ctx;

	(void)e;
	cj_link(cj, cj->frontend, n->parent, n->id);
	return 0;
}

/* Two values mismatches of one operator on a frontend, split by their output's dtype or by how many
 * elements differ, are one cause where a test of one is a single change of a test of the other (a
 * variant of it, or a neighbour the trigger stage ran): the change left the failure, so what it
 * changed does not decide it. OpenVINO's Resize with antialias=1 fails for float32, float64, int32
 * and int64, each a dtype variant of one test, and is one defect. rows[0..*n) are rewritten in place
 * (the joined ones leave), as join_by_trigger does. */
static int join_by_change(struct db *d, const struct rebuild *rb, struct db_bug *rows, size_t *n, char ***joined,
			  struct buf *oplists, struct err *e)
{
	struct change_join cj = { STRMAP_INIT, xcalloc(*n + 1, sizeof(size_t)), rows, BUF_INIT, BUF_INIT, NULL };
	struct strmap seen = STRMAP_INIT;
	struct buf k = BUF_INIT;
	bool any = false;
	int r = -1;

	for (size_t i = 0; i < *n; i++) {
		cj.into[i] = i;
		if (!values_key(rows[i].signature, &cj.a))
			continue;
		for (size_t j = 0; j < rows[i].nmember_ids; j++) {
			buf_reset(&k);
			buf_addf(&k, "%s\x1f%s", rows[i].frontend, rows[i].member_ids[j]);
			strmap_get(&cj.row_of, k.data, NULL)->ptr = (void *)(i + 1);
		}
	}
	if (!cj.row_of.len) {
		r = 0;
		goto out;
	}
	for (size_t i = 0; i < rb->nfails; i++)
		if (rb->fails[i].parent)
			cj_link(&cj, rb->fails[i].frontend, rb->fails[i].id, rb->fails[i].parent);
	/* The trigger stage's neighbours, by the frontend they ran on. */
	for (size_t i = 0; i < *n; i++) {
		int created;

		strmap_get(&seen, rows[i].frontend, &created);
		if (!created)
			continue;
		cj.frontend = rows[i].frontend;
		if (db_neighbours(d, cj.frontend, NULL, NULL, cj_neighbour, &cj, e) < 0)
			goto out;
	}
	for (size_t i = 0; i < *n; i++) {
		cj.into[i] = cj_find(cj.into, i);
		any |= cj.into[i] != i;
	}
	if (any)
		merge_rows(rows, n, cj.into, joined, oplists);
	r = any;
out:
	strmap_release(&cj.row_of);
	strmap_release(&seen);
	free(cj.into);
	buf_release(&cj.a);
	buf_release(&cj.b);
	buf_release(&k);
	return r;
}

/* Two bugs of a frontend with one template whose failures go away by one change of a parameter (their
 * trigger titles say "passes with alpha at its default" alike) are one cause: tvm-pytorch's add and
 * sub that ignore alpha fail with different operators and values, and are one defect. Only a
 * parameter's change joins them, and only the parameters' clauses of the title are compared ("passes
 * with dim 2 of size 1, with antialias at its default" joins "passes with antialias at its
 * default"): that a dtype, a rank or a dimension makes two failures pass is true of many causes.
 * rows[0..*n) are rewritten in place (the joined ones leave) when the store has the
 * trigger stage's neighbours; their member and operator lists into the caller's bufs. */
static int join_by_trigger(struct db *d, struct db_bug *rows, size_t *n, char ***joined, struct buf *oplists,
			   struct err *e)
{
	struct strmap lead = STRMAP_INIT;   /* template key, \x1f, trigger -> the leading row + 1 */
	size_t *into = xcalloc(*n + 1, sizeof(*into));
	size_t count = *n;                                /* the rows, before any leaves */
	char **keys = xcalloc(count + 1, sizeof(*keys));  /* per row, its key in lead, or NULL */
	struct buf key = BUF_INIT, title = BUF_INIT, params = BUF_INIT;
	bool any = false;
	int r = -1, has = db_neighbours(d, NULL, NULL, NULL, NULL, NULL, e);

	if (has <= 0) {
		r = has < 0 ? -1 : 0;
		goto out;
	}
	/* Each bug's key, once (a trigger title reads the store): its leader is the one of its key
	 * with the most members. */
	for (size_t i = 0; i < *n; i++) {
		struct strmap_entry *ent;

		into[i] = i;
		if (kinds_of_signature(rows[i].signature) != KIND_BUG)
			continue;
		buf_reset(&title);
		buf_reset(&params);
		if (trigger_describe_params(d, rows[i].frontend, rows[i].bug_id, rows[i].representative, &title,
					    &params, e) < 0)
			goto out;
		if (!params.len)
			continue;
		template_key(rows[i].signature, &key);
		buf_addf(&key, "\x1f%s", params.data);
		ent = strmap_get(&lead, key.data, NULL);
		if (!ent->ptr || leads(&rows[i], &rows[(size_t)ent->ptr - 1]))
			ent->ptr = (void *)(i + 1);
		keys[i] = xstrdup(key.data);
	}
	/* Each keyed bug joins its key's leader. */
	for (size_t i = 0; i < *n; i++) {
		const struct strmap_entry *ent = keys[i] ? strmap_find(&lead, keys[i]) : NULL;

		into[i] = ent ? (size_t)ent->ptr - 1 : i;
		any |= into[i] != i;
	}
	if (any)
		merge_rows(rows, n, into, joined, oplists);
	r = any;
out:
	strmap_release(&lead);
	for (size_t i = 0; i < count; i++)
		free(keys[i]);
	free(keys);
	free(into);
	buf_release(&key);
	buf_release(&title);
	buf_release(&params);
	return r;
}

int dedup_rebuild(struct db *d, const char *frontend, size_t *nbugs, size_t *nfailures, struct err *e)
{
	struct rebuild rb = { STRMAP_INIT, BUF_INIT, BUF_INIT, 0, NULL, 0, 0 };
	struct kinds_evidence *ev = NULL;
	struct db_bug *rows = NULL;
	struct buf *oplists = NULL;
	char ***joined = NULL;    /* per row, the member list a trigger joined (else NULL) */
	size_t n = 0, made = 0;
	int r = -1, changed;

	/* By id within a frontend: the representative's last tie-break is the smallest id. */
	if (db_bug_failures(d, frontend, DB_BY_ID, add_failure, &rb, e) < 0)
		goto out;
	if (kinds_load(d, &ev, e) < 0 || group_all(d, &rb, ev, e) < 0)
		goto out;
	rows = xcalloc(rb.bugs.len + 1, sizeof(*rows));
	oplists = xcalloc(rb.bugs.len + 1, sizeof(*oplists));
	for (size_t i = 0; i < rb.bugs.cap; i++) {
		struct bug *b = rb.bugs.slots[i].key ? rb.bugs.slots[i].ptr : NULL;
		struct strmap_entry **ops;

		if (!b)
			continue;
		ops = strmap_sorted(&b->ops);
		for (size_t k = 0; ops[k]; k++)
			buf_addf(&oplists[n], "%s%s", k ? "," : "", ops[k]->key);
		free(ops);
		rows[n] = (struct db_bug){ b->id, b->frontend, b->outcome, b->stage, b->signature, b->rep,
					   oplists[n].data, b->message, (long long)b->nmembers, b->members,
					   b->nmembers };
		n++;
	}
	made = n;
	joined = xcalloc(n + 1, sizeof(*joined));
	if (join_by_change(d, &rb, rows, &n, joined, oplists, e) < 0 || db_bugs_replace(d, frontend, rows, n, e) < 0)
		goto out;
	/* The trigger titles read the members just written; bugs that one trigger joins are written
	 * again, joined. */
	if ((changed = join_by_trigger(d, rows, &n, joined, oplists, e)) < 0 ||
	    (changed && db_bugs_replace(d, frontend, rows, n, e) < 0))
		goto out;
	if (nbugs)
		*nbugs = n;
	if (nfailures)
		*nfailures = rb.failures;
	r = 0;
out:
	for (size_t i = 0; i < made; i++) {
		buf_release(&oplists[i]);
		if (joined)
			free(joined[i]);
	}
	free(joined);
	free(oplists);
	free(rows);
	for (size_t i = 0; i < rb.bugs.cap; i++)
		if (rb.bugs.slots[i].key)
			bug_free(rb.bugs.slots[i].ptr);
	strmap_release(&rb.bugs);
	buf_release(&rb.sig);
	buf_release(&rb.key);
	for (size_t i = 0; i < rb.nfails; i++)
		fail_release(&rb.fails[i]);
	free(rb.fails);
	kinds_free(ev);
	return r;
}
