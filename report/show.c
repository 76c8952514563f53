/* show.c: ferry show's engine (show.h).
 *
 * Prints one unique bug: its signature, its member tests, the representative (the simplest member)
 * as a record, what the probe of its (operator, dtype) group found (oracle/probe.h), and the
 * representative's standalone reproducer (of the subgraph ferry reduce left of it, when it was
 * reduced: "reduced from N to M nodes"). With -o, writes the reproducer and the
 * test in the compiler's own test format (for ONNX, a backend test-data directory) into DIR, so a
 * found bug becomes a regression test. A bug of the metamorphic oracle shows its mutations and their
 * reduction, and its reproducer runs the original and the reduced mutated model side by side (with
 * -o: written beside both models, the inputs and both outputs). With --minimal, only the shortest
 * standalone script of the bug (oracle/reproducer.py's minimal: the model, the inputs and the
 * reference outputs as literals; got and want printed); with --json, all of it as one JSON document. */
#include "py.h"
#include "show.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "db.h"
#include "dedup.h"
#include "esc.h"
#include "file.h"
#include "fsutil.h"
#include "outdir.h"
#include "locations.h"
#include "kinds.h"
#include "probe.h"
#include "trigger.h"
#include "session.h"
#include "summary.h"
#include "tolerance.h"
#include "xalloc.h"

/* A test made by ferry vary says whose variant it is and what changed. */
static void print_variant(FILE *out, const char *record)
{
	cJSON *j = cJSON_Parse(record);
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(j, "variant");
	const cJSON *parent = cJSON_GetObjectItemCaseSensitive(v, "parent");
	const cJSON *vary = cJSON_GetObjectItemCaseSensitive(v, "vary");

	if (cJSON_IsString(parent) && cJSON_IsString(vary)) {
		fprintf(out, "variant of %s", esc_str(parent->valuestring));
		fprintf(out, " (%s)\n", esc_str(vary->valuestring));
	}
	cJSON_Delete(j);
}

struct shown {
	const struct show_opts *a;  /* the options (borrowed) */
	FILE *out;
	cJSON *doc;                 /* with --json: the document being filled, instead of printing */
	struct db *db;
	int matches;
	char *bug, *frontend, *adapter, *rep, *library, *record, *testdir, *op;
	char *outcome, *stage;      /* the bug's failure, for the test's format (IREE's lists split by stage) */
	char atol[40], rtol[40];   /* the tolerance that judged the representative */
	char *reduced, *reduced_ops; /* ferry reduce's subgraph of it (its test directory), or NULL */
};

/* ferry reduce's word on the representative: the subgraph that fails the same way, which is then the
 * reproducer, or that none does. */
static int print_reduction(void *ctx, const struct db_reduction *r, struct err *e)
{
	struct shown *s = ctx;

	(void)e;
	if (s->doc) {
		cJSON *x = cJSON_AddObjectToObject(s->doc, "reduction");

		cJSON_AddStringToObject(x, "status", r->status);
		cJSON_AddNumberToObject(x, "nodes_before", (double)r->nodes_before);
		cJSON_AddNumberToObject(x, "nodes_after", (double)r->nodes_after);
		if (r->ops)
			cJSON_AddStringToObject(x, "operators", r->ops);
		if (r->dir)
			cJSON_AddStringToObject(x, "dir", r->dir);
	}
	if (s->doc || s->a->minimal) {
		if (!strcmp(r->status, "reduced") && r->dir && fs_is_dir(r->dir)) {
			s->reduced = xstrdup(r->dir);
			s->reduced_ops = xstrdup(r->ops ? r->ops : "reduced");
		}
		return 0;
	}
	if (!strcmp(r->status, "reduced") && r->dir && fs_is_dir(r->dir)) {
		fprintf(s->out, "reduced from %lld to %lld node%s (%s): %s\n", r->nodes_before, r->nodes_after,
		       r->nodes_after == 1 ? "" : "s", esc_str(r->ops ? r->ops : "?"), esc_str(r->dir));
		if (r->nodes_after == 1)
			fprintf(s->out, "decisive operator: %s\n", esc_str(r->ops ? r->ops : "?"));
		s->reduced = xstrdup(r->dir);
		s->reduced_ops = xstrdup(r->ops ? r->ops : "reduced");
	} else if (!strcmp(r->status, "reduced")) {
		fprintf(s->out, "reduced from %lld to %lld nodes, but '%s' is gone: ferry reduce --again makes it "
			"anew\n", r->nodes_before, r->nodes_after, esc_str(r->dir ? r->dir : "?"));
	} else {
		fprintf(s->out,
			"not reduced: no smaller subgraph of its %lld nodes fails the same way (%lld candidates)\n",
		       r->nodes_before, r->candidates);
	}
	return 0;
}

static char *dup_or_empty(const char *s)
{
	return xstrdup(s ? s : "");
}

/* What the probe of the representative's (operator, dtype) group says (probe.h): whether the bug is
 * in a path the frontend supports. The probe of the release that gave the result (a store of before
 * schema 3 does not say it: then its latest run's). */
static int print_probe(FILE *out, struct db *db, const char *frontend, const struct db_row *rep, struct err *e)
{
	struct strmap probes = STRMAP_INIT;
	const struct probe_row *p;
	char *version = rep->frontend_version ? xstrdup(rep->frontend_version) : NULL;
	int r = -1;

	if ((!version && db_frontend_version(db, frontend, &version, e) < 0) ||
	    probe_map_load(&probes, db, frontend, version, e) < 0)
		goto out;
	r = 0;
	if (!(p = probe_map_find(&probes, rep->record)))
		goto out;
	if (p->cls == PROBE_SUPPORTED)
		fprintf(out, "probe: the simplest %s %s test %s (%.12s): the bug is in a path the frontend supports\n",
			esc_str(p->op), esc_str(p->dtype), !strcmp(p->outcome, "pass") ? "passes" : "runs",
			esc_str(p->probe_id));
	else {
		struct buf why = BUF_INIT;

		dedup_decisive(p->message ? p->message : "", &why);
		for (char *c = why.data; c && *c; c++)
			if (*c == '\n')
				*c = ' ';
		fprintf(out, "probe: %s %s %s (%.12s)%s%.150s\n",
			esc_str(p->op), esc_str(p->dtype), esc_str(p->outcome),
			esc_str(p->probe_id), why.len ? ": " : "", esc_str(why.data ? why.data : ""));
		buf_release(&why);
	}
out:
	probe_map_release(&probes);
	free(version);
	return r;
}

static cJSON *string_or_null(const char *s)
{
	return s ? cJSON_CreateString(s) : cJSON_CreateNull();
}

static int print_bug(void *ctx, const struct db_bug *b, const struct db_row *rep, struct err *e)
{
	struct shown *s = ctx;

	(void)e;
	if (s->matches++)
		return 0;
	s->bug = dup_or_empty(b->bug_id);
	s->frontend = dup_or_empty(b->frontend);
	{
		/* A disagreement of two frontends is reproduced on the one that disagrees with the reference. */
		char *culprit = session_pair_culprit(s->frontend, rep->exc_type);

		s->adapter = session_adapter_name(culprit);
		if (strcmp(culprit, s->frontend) && s->doc)
			cJSON_AddStringToObject(s->doc, "reproduced_on", culprit);
		else if (strcmp(culprit, s->frontend) && !s->a->minimal)
			fprintf(s->out, "frontends against each other: the reproducer runs %s\n", esc_str(culprit));
		free(culprit);
	}
	s->rep = dup_or_empty(b->representative);
	s->library = dup_or_empty(rep->library);
	s->record = dup_or_empty(rep->record);
	s->testdir = dup_or_empty(rep->dir);
	s->op = dup_or_empty(rep->op);
	s->outcome = dup_or_empty(b->outcome);
	s->stage = dup_or_empty(b->stage);
	/* A result stored before results kept their tolerance was judged by the default. */
	snprintf(s->atol, sizeof(s->atol), "%.17g", isnan(rep->atol) ? TOLERANCE_DEFAULT_ATOL : rep->atol);
	snprintf(s->rtol, sizeof(s->rtol), "%.17g", isnan(rep->rtol) ? TOLERANCE_DEFAULT_RTOL : rep->rtol);
	if (s->doc) {
		struct buf line = BUF_INIT, more = BUF_INIT;
		cJSON *record = cJSON_Parse(s->record);

		summary_failure_line(b->outcome, rep->exc_type, rep->message, 0, &line);
		cJSON_AddStringToObject(s->doc, "bug", s->bug);
		cJSON_AddStringToObject(s->doc, "frontend", s->frontend);
		cJSON_AddStringToObject(s->doc, "outcome", b->outcome);
		cJSON_AddItemToObject(s->doc, "stage", string_or_null(b->stage));
		cJSON_AddItemToObject(s->doc, "exc_type", string_or_null(rep->exc_type));
		cJSON_AddNumberToObject(s->doc, "tests", (double)b->members);
		cJSON_AddStringToObject(s->doc, "operators", b->ops ? b->ops : "");
		cJSON_AddStringToObject(s->doc, "signature", b->signature ? b->signature : "");
		cJSON_AddStringToObject(s->doc, "kind", kinds_name(kinds_of_signature(b->signature)));
		if (kinds_of_signature(b->signature) != KIND_BUG) {
			kinds_reason(b->signature, &more);
			cJSON_AddStringToObject(s->doc, "reason", more.data);
			buf_reset(&more);
		}
		if (trigger_describe(s->db, s->frontend, s->bug, s->rep, &more, e) < 0) {
			buf_release(&line);
			buf_release(&more);
			cJSON_Delete(record);
			return -1;
		}
		cJSON_AddItemToObject(s->doc, "trigger", more.len ? cJSON_CreateString(more.data) : cJSON_CreateNull());
		buf_release(&more);
		cJSON_AddStringToObject(s->doc, "representative", s->rep);
		cJSON_AddItemToObject(s->doc, "release", string_or_null(rep->frontend_version));
		cJSON_AddStringToObject(s->doc, "line", line.data);
		cJSON_AddItemToObject(s->doc, "message", string_or_null(rep->message));
		cJSON_AddItemToObject(s->doc, "detail", string_or_null(rep->detail));
		cJSON_AddItemToObject(s->doc, "record", record ? record : cJSON_CreateNull());
		cJSON_AddNumberToObject(s->doc, "atol", strtod(s->atol, NULL));
		cJSON_AddNumberToObject(s->doc, "rtol", strtod(s->rtol, NULL));
		buf_release(&line);
	}
	if (s->doc || s->a->minimal)
		return db_reductions(s->db, s->frontend, s->rep, print_reduction, s, e) < 0 ? -1 : 0;
	fprintf(s->out, "bug %s: %s %s in stage %s, %lld tests, operators %s\n", esc_str(s->bug), esc_str(s->frontend),
	       esc_str(b->outcome), esc_str(b->stage ? b->stage : "-"), b->members, esc_str(b->ops));
	/* An entry that is not a frontend bug says so first (kinds.h). */
	if (kinds_of_signature(b->signature) != KIND_BUG) {
		struct buf why = BUF_INIT;

		kinds_reason(b->signature, &why);
		fprintf(s->out, "not a frontend bug: %s: %s\n", kinds_name(kinds_of_signature(b->signature)),
			esc_str(why.data));
		buf_release(&why);
	}
	{
		struct buf trigger = BUF_INIT;

		/* What triggers it, by contrast with its one-change neighbours (trigger.h). */
		if (trigger_describe(s->db, s->frontend, s->bug, s->rep, &trigger, e) < 0) {
			buf_release(&trigger);
			return -1;
		}
		if (trigger.len)
			fprintf(s->out, "trigger: %s\n", esc_str(trigger.data));
		buf_release(&trigger);
	}
	fprintf(s->out, "signature: %s\n", esc_str(b->signature));
	fprintf(s->out, "simplest test: %s\n", esc_str(s->rep));
	/* The frontend's own word for its release, as its worker said when it gave this result. */
	if (rep->frontend_version)
		fprintf(s->out, "release: %s\n", esc_str(rep->frontend_version));
	{
		struct buf line = BUF_INIT;

		/* What decides first, as report and bugs list it (summary.h); then the message as it came. */
		summary_failure_line(b->outcome, rep->exc_type, rep->message, 0, &line);
		fprintf(s->out, "failure: %s\n", esc_str(line.data));
		buf_release(&line);
	}
	fprintf(s->out, "message: %s\n", esc_str(rep->message));
	if (print_probe(s->out, s->db, s->frontend, rep, e) < 0)
		return -1;
	/* A traceback keeps its lines; nothing else of it reaches the terminal raw (esc.h). */
	if (rep->detail && *rep->detail) {
		const char *detail = esc_lines(rep->detail);

		fprintf(s->out, "detail:\n%s%s", detail, detail[strlen(detail) - 1] == '\n' ? "" : "\n");
	}
	fprintf(s->out, "record: %s\n", esc_str(s->record));
	print_variant(s->out, s->record);
	return db_reductions(s->db, s->frontend, s->rep, print_reduction, s, e) < 0 ? -1 : 0;
}

static int print_member(void *ctx, const char *frontend, const char *bug_id, const char *id, const char *op,
			struct err *e)
{
	const struct shown *s = ctx;

	(void)frontend;
	(void)bug_id;
	(void)e;
	if (!summary_op_matches(s->a->glob, op))
		return 0;
	if (s->doc) {
		cJSON *m = cJSON_CreateObject();

		cJSON_AddStringToObject(m, "id", id);
		cJSON_AddStringToObject(m, "op", op ? op : "?");
		cJSON_AddItemToArray(cJSON_GetObjectItemCaseSensitive(s->doc, "members"), m);
		return 0;
	}
	fprintf(s->out, "  %s  %s\n", esc_str(id), esc_str(op));
	return 0;
}

/* Write text as the file name of the user's DIR (made where missing, followed where it is a link): the
 * file is ferry's, and a link planted in its place is refused, never followed (fsutil.h). */
static int write_into(const char *dir, const char *name, const char *path, const char *text, struct err *e)
{
	int fd = fs_dir_beneath(dir, 0, 1, e), r;

	if (fd < 0)
		return -1;
	r = fs_write_beneath(fd, name, path, text, strlen(text), e);
	close(fd);
	return r;
}

/* ferry.oracle.reproducer.FUNC(library, record, testdir, args...) -> str: a reproducer or an export path;
 * LIBRARY must name a template (py_template_module checks it). */
static char *call_template(const char *python, const char *library, const char *func, const char *const *args,
			   int nargs, struct err *e)
{
	char module[80], what[128];
	const char *all[10];

	if (py_start(python, 1, e) < 0)
		return NULL;
	if (py_template_module(library, module, sizeof(module), e) < 0)
		return NULL;
	all[0] = library;
	for (int i = 0; i < nargs && i < 9; i++)
		all[i + 1] = args[i];
	snprintf(what, sizeof(what), "the %s %s() failed", library, func);
	return py_call_strings("ferry.oracle.reproducer", func, all, nargs < 9 ? nargs + 1 : 10, what, e);
}

/* --- the metamorphic oracle ------------------------------------------------------------------------ */

/* The representative's mutations (db_mutation), kept for show_metamorphic. */
struct mutated {
	int found;
	char *status, *reduced, *model, *outputs, *kind, *target_op, *message;
	long long seed, k, nodes, original_nodes, reduced_nodes;
};

static char *dup_or_null(const char *s)
{
	return s ? xstrdup(s) : NULL;
}

static int keep_mutation(void *ctx, const struct db_mutation *m, struct err *e)
{
	struct mutated *x = ctx;

	(void)e;
	x->found = 1;
	x->status = dup_or_null(m->status);
	x->reduced = dup_or_null(m->reduced);
	x->model = dup_or_null(m->model);
	x->outputs = dup_or_null(m->outputs);
	x->kind = dup_or_null(m->kind);
	x->target_op = dup_or_null(m->target_op);
	x->message = dup_or_null(m->message);
	x->seed = m->seed;
	x->k = m->k;
	x->nodes = m->nodes;
	x->original_nodes = m->original_nodes;
	x->reduced_nodes = m->reduced_nodes;
	return 0;
}

static void mutated_release(struct mutated *x)
{
	free(x->status);
	free(x->reduced);
	free(x->model);
	free(x->outputs);
	free(x->kind);
	free(x->target_op);
	free(x->message);
}

/* A bug of the metamorphic oracle: its mutations and their reduction, then its reproducer (the
 * original and the reduced mutated model, run side by side; ferry.oracle.reproducer.metamorphic),
 * written with -o as DIR/reproducer.py beside the models, the inputs and both outputs. */
static int show_metamorphic(const struct shown *s, const struct mutated *m, struct err *e)
{
	char seed[32], k[32];
	const char *outdir = s->a->outdir;
	const char *args[] = { s->testdir, s->adapter, s->atol, s->rtol, seed, k, m->reduced ? m->reduced : "",
			       m->model ? m->model : "", m->outputs ? m->outputs : "", outdir ? outdir : "" };
	char *script;

	snprintf(seed, sizeof(seed), "%lld", m->seed);
	snprintf(k, sizeof(k), "%lld", m->k);
	fprintf(s->out, "mutations: %lld (seed %lld), %lld nodes in m' against %lld in m\n", m->k, m->seed, m->nodes,
	       m->original_nodes);
	if (m->reduced_nodes >= 0)
		fprintf(s->out, "reduction: %s, to %lld nodes (%s of %s)\n", esc_str(m->status), m->reduced_nodes,
		       esc_str(m->kind ? m->kind : "?"), esc_str(m->target_op ? m->target_op : "?"));
	else
		fprintf(s->out, "reduction: %s%s%s (the reproducer takes the whole m')\n", esc_str(m->status),
		       m->message ? ": " : "", m->message ? esc_str(m->message) : "");
	if (m->reduced)
		fprintf(s->out, "reduced: %s\n", esc_str(m->reduced));
	if (py_start(s->a->python, 1, e) < 0 ||
	    !(script = py_call_strings("ferry.oracle.reproducer", "metamorphic", args, 10,
				       "cannot make the metamorphic reproducer", e)))
		return -1;
	if (s->a->outdir)
		fprintf(s->out, "wrote %s/reproducer.py, original.onnx, mutated.onnx, the inputs and both outputs\n",
		       esc_str(s->a->outdir));
	else
		fprintf(s->out, "reproducer:\n%s", esc_lines(script));
	free(script);
	return 0;
}

/* ferry show STORE --op GLOB: the bug with the most member tests of operators that GLOB matches. */
struct pick {
	struct db *db;
	char *bug;
	long long most;
	size_t n;
	const char *glob;       /* --op */
	long long count;        /* of the bug being counted: its members that --op matches */
};

static int count_member(void *ctx, const char *frontend, const char *bug_id, const char *id, const char *op,
			struct err *e)
{
	(void)frontend;
	(void)bug_id;
	(void)id;
	(void)e;
	struct pick *p = ctx;

	p->count += summary_op_matches(p->glob, op);
	return 0;
}

static int pick_bug(void *ctx, const struct db_bug *b, struct err *e)
{
	struct pick *p = ctx;
	long long n;

	p->count = 0;
	if (db_bug_members(p->db, b->frontend, b->bug_id, -1, count_member, p, e) < 0)
		return -1;
	n = p->count;
	if (!n)
		return 0;
	p->n++;
	if (n > p->most) {
		free(p->bug);
		p->bug = xstrdup(b->bug_id);
		p->most = n;
	}
	return 0;
}

/* The representative as a test in its compiler's own format, in o->outdir/test_OP_ID (OP in ASCII
 * letters, digits and '_': the name ferry report --xfail's lists give the test, as
 * ferry.oracle.regress.regress_name makes it). Returns what export wrote, or NULL with e. */
static char *export_test(struct shown *s, struct err *e)
{
	const struct show_opts *a = s->a;
	char *export_dir = xasprintf("%s/test_%s_%.12s", a->outdir, s->reduced ? s->reduced_ops : s->op, s->rep);
	const char *args[] = { s->record, s->reduced ? s->reduced : s->testdir, export_dir, s->adapter,
			       s->atol, s->rtol, s->outcome, s->stage };
	char *done;

	for (char *c = export_dir + strlen(a->outdir) + 1 + strlen("test_"); *c; c++)
		if (!(*c >= 'a' && *c <= 'z') && !(*c >= 'A' && *c <= 'Z') && !(*c >= '0' && *c <= '9'))
			*c = '_';
	done = call_template(a->python, s->library, "export", args, 8, e);
	free(export_dir);
	return done;
}

/* The bug's reproducer, printed or written into o->outdir (with the test in the compiler's format),
 * or with --minimal the shortest script. 0, or -1 with e. */
static int show_reproducer(struct shown *s, FILE *out, struct err *e)
{
	const struct show_opts *a = s->a;
	const char *python = a->python;
	char *script = NULL;
	int ret = -1;

	if (a->minimal) {
		const char *args[] = { s->record, s->reduced ? s->reduced : s->testdir, s->adapter, s->atol, s->rtol };
		char *path = NULL;

		if (!(script = call_template(python, s->library, "minimal", args, 5, e)))
			goto out;
		if (!a->outdir) {
			/* The script alone, so that "> bug.py" makes it. */
			fputs(esc_lines(script), out);
			ret = 0;
			goto out;
		}
		path = xasprintf("%s/minimal.py", a->outdir);
		if (write_into(a->outdir, "minimal.py", path, script, e) < 0) {
			free(path);
			goto out;
		}
		fprintf(out, "wrote %s\n", esc_str(path));
		free(path);
		ret = 0;
		goto out;
	}
	{
		const char *args[] = { s->record, s->testdir, s->adapter, s->atol, s->rtol };

		/* A reduced test's reproducer is its subgraph, which no record describes. */
		if (s->reduced)
			args[1] = s->reduced;
		if (!(script = call_template(python, s->library, s->reduced ? "reduced" : "reproducer", args, 5, e)))
			goto out;
	}
	if (s->doc) {
		char *text;

		cJSON_AddStringToObject(s->doc, "reproducer", script);
		text = cJSON_Print(s->doc);
		fprintf(out, "%s\n", text);
		free(text);
		if (!a->outdir) {
			ret = 0;
			goto out;
		}
	} else if (!a->outdir) {
		fprintf(out, "reproducer:\n%s", esc_lines(script));
		ret = 0;
		goto out;
	}
	{
		char *path = xasprintf("%s/reproducer.py", a->outdir);
		char *done = NULL;
		int bad = write_into(a->outdir, "reproducer.py", path, script, e) < 0 || !(done = export_test(s, e));

		if (!bad && !s->doc)
			fprintf(out, "wrote %s and %s\n", esc_str(path), esc_str(done));
		free(done);
		free(path);
		if (!bad)
			ret = 0;
	}
out:
	free(script);
	return ret;
}

/* ferry file: the issue text and its reproducer (file.h), and the regression test beside them. */
static int show_file(struct shown *s, FILE *out, struct err *e)
{
	const struct show_opts *a = s->a;

	cJSON_AddStringToObject(s->doc, "library", s->library);
	cJSON_AddStringToObject(s->doc, "testdir", s->reduced ? s->reduced : s->testdir);
	cJSON_AddStringToObject(s->doc, "adapter", s->adapter);
	if (file_issue(s->db, s->doc, a->python, a->outdir, out, e) < 0)
		return -1;
	if (a->outdir) {
		char *done = export_test(s, e);

		if (done)
			fprintf(out, "wrote %s (the regression test)\n", esc_str(done));
		if (!done)
			return -1;
		free(done);
	}
	return 0;
}

/* The bug that o->glob's operators have the most tests in, into *bug. 0, or -1 with e. */
static int show_pick(struct db *db, const char *store, const struct show_opts *a, char **bug, struct err *e)
{
	/* No BUG: the bug with the most tests of an operator that --op matches. */
	struct pick p = { db, NULL, 0, 0, a->glob, 0 };

	if (db_bugs(db, NULL, pick_bug, &p, e) < 0)
		return -1;
	if (!p.bug)
		return err_set(e, EXIT_INPUT, "no bug in '%s' has a test of an operator matching '%s'", store, a->glob);
	if (p.n > 1 && a->warn) {
		char *line = xasprintf("%zu bugs have tests of operators matching '%s'; this is the one with the most "
				       "(%lld; ferry bugs --op lists them)", p.n, a->glob, p.most);

		a->warn(a->warn_ctx, line);
		free(line);
	}
	*bug = p.bug;
	return 0;
}

int show_bug(const char *store, const char *bug, const struct show_opts *a, FILE *out, struct err *e)
{
	struct db db = DB_INIT;
	struct shown s;
	struct mutated mutated;
	struct outdir od = OUTDIR_INIT;
	char *bug_arg = NULL;
	int ret = -1;

	memset(&mutated, 0, sizeof(mutated));
	memset(&s, 0, sizeof(s));
	s.a = a;
	s.out = out;
	if (!fs_exists(store))
		return err_set(e, EXIT_INPUT, "cannot open the store '%s': No such file or directory", store);
	if (a->json || a->file)
		s.doc = cJSON_CreateObject();
	if (db_open(&db, store, DB_WRITE, e) < 0 || locations_check(&db, store, a->warn, a->warn_ctx, e) < 0 ||
	    summary_require_match(&db, store, NULL, a->glob, e) < 0 || dedup_rebuild(&db, NULL, NULL, NULL, e) < 0)
		goto out;
	s.db = &db;
	if (!bug ? show_pick(&db, store, a, &bug_arg, e) < 0 : !(bug_arg = xstrdup(bug)))
		goto out;
	if (db_bugs_by_prefix(&db, bug_arg, print_bug, &s, e) < 0)
		goto out;
	if (s.matches != 1) {
		if (s.matches)
			err_set(e, EXIT_INPUT, "'%s' names %d bugs; give more of the id", bug_arg, s.matches);
		else
			err_set(e, EXIT_INPUT, "no bug '%s' in '%s' (see ferry bugs)", bug_arg, store);
		goto out;
	}
	if (s.doc)
		cJSON_AddArrayToObject(s.doc, "members");
	else if (!a->minimal)
		fprintf(out, "members:\n");
	if (!a->minimal && db_bug_members(&db, s.frontend, s.bug, s.doc ? -1 : 50, print_member, &s, e) < 0)
		goto out;
	/* A result of the metamorphic oracle: its reproducer runs the mutated model beside the original. */
	if (db_mutation(&db, s.frontend, s.rep, keep_mutation, &mutated, e) < 0)
		goto out;
	if (mutated.found && (a->minimal || s.doc)) {
		err_set(e, EXIT_USAGE, "bug '%s' is the metamorphic oracle's: its reproducer runs two models "
			"(ferry show without --minimal or --json%s)", s.bug,
			a->file ? "; ferry file does not file it yet" : "");
		goto out;
	}
	/* Written into only when new, empty or ferry's for this store, and cleared of the run before. */
	if (a->outdir && outdir_open(&od, a->outdir, store, 0, e) < 0)
		goto out;
	if (a->file && !mutated.found) {
		ret = show_file(&s, out, e);
		goto out;
	}
	ret = mutated.found ? show_metamorphic(&s, &mutated, e) : show_reproducer(&s, out, e);
out:
	ret = outdir_finish(&od, ret, e);
	db_close(&db);
	free(s.bug);
	free(s.frontend);
	free(s.adapter);
	free(s.rep);
	free(s.library);
	free(s.record);
	free(s.testdir);
	free(s.op);
	free(s.outcome);
	free(s.stage);
	free(s.reduced);
	free(s.reduced_ops);
	free(bug_arg);
	cJSON_Delete(s.doc);
	mutated_release(&mutated);
	return ret;
}
