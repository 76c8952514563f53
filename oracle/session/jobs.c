/* session.c: runs of wrapped tests through frontends, shared by ferry run and ferry check. */
#include "session.h"
#include "fsutil.h"
#include "jsonl.h"
#include "locations.h"
#include "probe.h"
#include "protocol.h"
#include "py.h"
#include "strmap.h"
#include "tolerance.h"
#include "xalloc.h"
#include "proc.h"

#include <cjson/cJSON.h>
#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

char *session_frontend_table(struct err *e)
{
	/* The adapters' own declarations, read without importing them (ferry/oracle/registry.py). */
	return py_call_strings("ferry.oracle.registry", "table", NULL, 0, "cannot list the frontends", e);
}

/* The frontend names of a table, comma-separated, for messages. Caller frees. */
static char *frontend_names(const char *table)
{
	struct buf names = BUF_INIT;

	for (const char *line = table; *line; line += strcspn(line, "\n") + (line[strcspn(line, "\n")] != '\0'))
		buf_addf(&names, "%s%.*s", names.len ? ", " : "", (int)strcspn(line, "\t\n"), line);
	return buf_detach(&names);
}

/* PYTHON of NAME@PYTHON: an interpreter of the Python that ferry embeds, whose libpython the workers
 * load; another version's standard library would not even start. */
static int check_python(const char *spec, const char *python, struct err *e)
{
	static const char *const code[] = { "-c", "import sys; print('%d.%d' % sys.version_info[:2])" };
	const char *argv[] = { python, code[0], code[1], NULL };
	struct child_process cp = PROC_INIT;
	struct proc_capture cap = PROC_CAPTURE_INIT(256);
	struct proc_status st;
	char want[32];
	int r = -1;

	snprintf(want, sizeof(want), "%d.%d", PY_MAJOR_VERSION, PY_MINOR_VERSION);
	if (!*python || access(python, X_OK) < 0 || fs_is_dir(python)) {
		err_set(e, EXIT_USAGE, "frontend '%s': no Python interpreter at '%s'%s", spec, python,
			fs_exists(python) ? " (not an executable file)" : ": No such file or directory");
		goto out;
	}
	cp.argv = argv;
	cp.in = PROC_NULL;
	cp.out = PROC_PIPE;
	cp.err = PROC_NULL;
	if (proc_start(&cp, e) < 0)
		goto out;
	while (!cap.eof)
		if (proc_capture_read(&cap, cp.fd_out, e) < 0)
			goto out;
	if (proc_wait(&cp, &st, e) < 0)
		goto out;
	if (cap.buf.len && cap.buf.data[cap.buf.len - 1] == '\n')
		cap.buf.data[--cap.buf.len] = '\0';
	if (st.code != 0 || !cap.buf.len) {
		err_set(e, EXIT_USAGE, "frontend '%s': '%s' does not run as a Python interpreter", spec, python);
		goto out;
	}
	if (strcmp(cap.buf.data, want)) {
		err_set(e, EXIT_USAGE, "frontend '%s': '%s' is Python %s, and ferry embeds Python %s: a frontend's "
			"virtualenv must be made from Python %s", spec, python, cap.buf.data, want, want);
		goto out;
	}
	r = 0;
out:
	proc_release(&cp);
	proc_capture_release(&cap);
	return r;
}

int session_frontend(const char *spec, struct frontend *f, struct err *e)
{
	const char *at = strchr(spec, '@');
	const char *colon = memchr(spec, ':', at ? (size_t)(at - spec) : strlen(spec));
	size_t n = colon ? (size_t)(colon - spec) : at ? (size_t)(at - spec) : strlen(spec);
	char *table = NULL, *names = NULL, *lib_given = NULL;
	const char *line;
	int r = -1;

	f->name = xstrndup(spec, n);
	f->label = xstrdup(f->name);
	f->library = NULL;
	f->python = at ? xstrdup(at + 1) : NULL;
	f->why = NULL;
	/* The library as given, without the @PYTHON that follows it. */
	if (colon)
		lib_given = at ? xstrndup(colon + 1, (size_t)(at - colon - 1)) : xstrdup(colon + 1);
	if (!(table = session_frontend_table(e)))
		goto out;
	for (line = table; *line; line += strcspn(line, "\n") + (line[strcspn(line, "\n")] != '\0')) {
		const char *lib = line + strcspn(line, "\t\n");
		size_t libn;

		if (*lib != '\t' || (size_t)(lib - line) != n || strncmp(line, f->name, n))
			continue;
		libn = strcspn(++lib, "\t\n");
		if (!libn && !(lib_given && *lib_given)) {
			/* A user's adapter that computes its LIBRARY: the command line says it. */
			err_set(e, EXIT_USAGE, "frontend '%s' does not declare its LIBRARY: run it as %s:LIBRARY",
				f->name, f->name);
			goto out;
		}
		if (libn && lib_given && (strlen(lib_given) != libn || strncmp(lib_given, lib, libn))) {
			err_set(e, EXIT_USAGE, "frontend '%s' takes %.*s models, not %s", f->name, (int)libn, lib,
				lib_given);
			goto out;
		}
		f->library = libn ? xstrndup(lib, libn) : xstrdup(lib_given);
		r = f->python ? check_python(spec, f->python, e) : 0;
		goto out;
	}
	names = frontend_names(table);
	err_set(e, EXIT_USAGE, "unknown frontend '%s' (known: %s; an adapter of your own is adapter_NAME.py "
		"in a directory of FERRY_ADAPTERS)", f->name, names);
out:
	if (r < 0)
		frontend_release(f);
	free(lib_given);
	free(names);
	free(table);
	return r;
}

/* The worker command of a frontend, and its environment: FERRY_PYTHON is what a worker (any ferry
 * process) starts its interpreter from (cmd_python). env has room for 2. */
void session_worker_command(const struct frontend *fe, const char *self, const char *wargv[5], char **env)
{
	wargv[0] = self;
	wargv[1] = "worker";
	wargv[2] = "--run";
	wargv[3] = fe->name;
	wargv[4] = NULL;
	env[0] = fe->python ? xasprintf("FERRY_PYTHON=%s", fe->python) : NULL;
	env[1] = NULL;
}

/* The runner options for fe's workers: base's, in fe's interpreter (env as session_worker_command's). */
void session_worker_opts(struct runner_opts *o, const struct runner_opts *base, const char *const *wargv, char **env)
{
	*o = *base;
	o->argv = wargv;
	/* Nothing else sets workers' environment; NAME@PYTHON's interpreter is all it changes. */
	if (env[0])
		o->env = (const char *const *)env;
}

int session_frontend_label(struct frontend *f, const struct runner_opts *ro, struct err *e)
{
	struct runner_opts o;
	const char *wargv[5];
	char *env[2], *self, *version = NULL;
	struct err why = ERR_INIT;

	if (!f->python)
		return 0;
	self = fs_self_exe();
	session_worker_command(f, self, wargv, env);
	session_worker_opts(&o, ro, wargv, env);
	o.jobs = 1;
	free(f->label);
	if (runner_version(&o, &version, &why) == 0) {
		/* The release number only: OpenVINO's version goes on with its build and branch
		 * ("2023.0.0-10926-b4452d56304-releases/2023/0"), which each result keeps whole. */
		const char *v = version && *version ? version : "?";

		f->label = xasprintf("%s@%.*s", f->name, (int)strspn(v, SESSION_RELEASE_CHARS), v);
	} else {
		f->label = xasprintf("%s@%s", f->name, f->python);
		f->why = xstrdup(why.msg);
	}
	free(version);
	free(env[0]);
	free(self);
	if (why.code == EXIT_INTERRUPTED) {
		*e = why;
		return -1;
	}
	err_release(&why);
	return 0;
}

char *session_adapter_name(const char *label)
{
	return xstrndup(label, strcspn(label, "@"));
}

void frontend_release(struct frontend *f)
{
	free(f->name);
	free(f->library);
	free(f->python);
	free(f->label);
	free(f->why);
	f->name = f->library = f->python = f->label = f->why = NULL;
}

/* The frontend's name in the store: its label (NAME, or NAME@RELEASE for another interpreter's). */
static const char *store_name(const struct frontend *fe)
{
	return fe->label;
}

/* --- the metamorphic oracle (oracle/metamorphic.py) -------------------------------------------- */

int session_metamorphic(const char *oracle)
{
	return oracle && !strcmp(oracle, PROTO_ORACLE_METAMORPHIC);
}

int session_check_metamorphic(const struct frontend *fes, size_t n, struct err *e)
{
	for (size_t i = 0; i < n; i++) {
		const char *args[] = { fes[i].name };
		char *format = strcmp(fes[i].library, "onnx") ? xstrdup("")
			       : py_call_strings("ferry.oracle.registry", "format_of", args, 1,
						 "cannot read an adapter", e);
		int onnx = format && !strcmp(format, "onnx");

		if (!format)
			return -1;
		free(format);
		if (!onnx)
			return err_set(e, EXIT_USAGE, "the metamorphic oracle mutates ONNX models, and frontend '%s' "
				       "does not take them (it takes %s models%s)", fes[i].label, fes[i].library,
				       strcmp(fes[i].library, "onnx") ? "" : " in another format");
	}
	return 0;
}

/* --- the session ------------------------------------------------------------------------------- */

struct session {
	const struct session_opts *o;
	struct db db;
	struct wrapped *tests;
	size_t ntests;
	size_t *order;            /* indexes into tests: queue order, then the shard */
	struct strmap index;      /* id -> index into tests (in count) */
	size_t norder;
	struct tolerance_rules tol;
	double start;

	/* The frontend being run. */
	const struct frontend *fe;
	struct session_result *res;
	long long run_id;
	size_t cursor;
	size_t failed;
	int out_of_time;
	char *format_why;         /* the frontend's release cannot take the format: why */
	/* Probing the frontend: its (operator, dtype) groups, "OP\tDTYPE" -> struct group, and its
	 * release, once its first worker said it. */
	struct strmap groups;
	char *version;
	int version_known;
	/* The differential oracle: where frontends keep their outputs of graph tests (STORE.outputs,
	 * one directory per label, then per test), and the other labels that kept some. */
	char *outputs;
	char **peers;
	size_t npeers;
	/* The metamorphic oracle: inconsistencies waiting for their reduction (handed out first). */
	struct reduction *reduce;
	size_t nreduce, reduce_cap;
	/* The selection: queue ids, those not wrapped, those --op and --test leave out. */
	size_t queued, unknown, left_out;
	/* Tests of the frontend's library reached down the queue (the limit counts them), and the
	 * failures of the whole session (--maxfail counts them). */
	size_t reached, failures;
	/* The shared pool (session_run with several frontends): every frontend's lane, and the one
	 * whose state the fields above hold now (NULL between callbacks). */
	struct lane *lanes;
	size_t nlanes;
	struct lane *cur;
};

/* One frontend's run: its worker command, its state while another frontend's callbacks run (the
 * fields of struct session that say "the frontend being run", swapped in and out by lane_swap), and
 * what the runner needs of it. A run of one frontend alone has one lane, always in. */
struct lane {
	struct session *s;
	const struct frontend *fe;
	struct session_result *res;
	long long run_id;
	size_t cursor, failed, reached;
	int out_of_time;
	char *format_why;
	struct strmap groups;
	char *version;
	int version_known;
	char **peers;
	size_t npeers;
	struct reduction *reduce;
	size_t nreduce, reduce_cap;

	const struct frontend *frontend;  /* whose lane it is (fe above is swapped with s's) */
	const char *wargv[5];
	char *env[2];
	char *self;
	size_t total;                /* tests and probes it will take, for the progress line */
	int started;                 /* its run is recorded in the store (db_start_run) */
};

/* Whose probe goes first, and whether it is settled for this run: in the store already, or sent. */
struct group {
	size_t probe;             /* index into tests */
	int settled;
};

/* A probe's job key: the probe's id after this prefix (an id is hex digits); a test that is its
 * group's probe runs once, as both (its key after PROBE_TEST_KEY). */
#define PROBE_KEY "probe:"
#define PROBE_TEST_KEY "probe+test:"

static void forget_groups(struct session *s);
static void forget_peers(struct session *s);
static size_t results_of(const struct session_result *r);
static void forget_reductions(struct session *s);

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void warn(const struct session_opts *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void warn(const struct session_opts *o, const char *fmt, ...)
{
	char msg[1024];
	va_list ap;

	if (!o->warn)
		return;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	o->warn(o->ctx, msg);
}

static void warn_line(void *ctx, const char *msg)
{
	warn(ctx, "%s", msg);
}


static const char *json_str(const cJSON *o, const char *key)
{
	const cJSON *v = o ? cJSON_GetObjectItemCaseSensitive(o, key) : NULL;

	return cJSON_IsString(v) ? v->valuestring : NULL;
}

/* The queue's ids, in order, as indexes into the tests. Ids the wrap does not know are counted: a
 * queue of a whole corpus over a wrapped sample of it is the normal case. */
static int load_queue(struct session *s, const char *path, struct err *e)
{
	struct strmap index = STRMAP_INIT;
	struct jsonl_reader q;
	struct err bad = ERR_INIT;
	size_t cap = 0;
	enum jsonl_status st;
	char *id;
	int ret = -1;

	for (size_t i = 0; i < s->ntests; i++)
		strmap_get(&index, s->tests[i].in.id, NULL)->count = i;
	if (jsonl_open(&q, path, e) < 0)
		goto out;
	while ((st = jsonl_next_id(&q, &id, &bad)) != JSONL_END) {
		struct strmap_entry *t;

		if (st == JSONL_FAIL) {
			*e = bad;
			goto out;
		}
		if (st == JSONL_BAD) {
			warn(s->o, "%s", bad.msg);
			err_release(&bad);
			continue;
		}
		s->queued++;
		if (!(t = strmap_find(&index, id)))
			s->unknown++;
		else if (t->ptr) {
			/* Queued twice: it runs where it first stands. */
		} else {
			t->ptr = t;
			XGROW(s->order, cap, s->norder + 1);
			s->order[s->norder++] = t->count;
		}
		free(id);
	}
	ret = 0;
out:
	jsonl_close(&q);
	strmap_release(&index);
	return ret;
}

/* --op and --test: the tests they leave out are not the session's at all. */
static void take_selected(struct session *s)
{
	size_t k = 0;

	if (!select_any(s->o->select))
		return;
	for (size_t i = 0; i < s->norder; i++)
		if (select_instance(s->o->select, &s->tests[s->order[i]].in))
			s->order[k++] = s->order[i];
	s->left_out = s->norder - k;
	s->norder = k;
}

void session_selection(const struct session *s, size_t *queued, size_t *unknown, size_t *left_out)
{
	*queued = s->queued;
	*unknown = s->unknown;
	*left_out = s->left_out;
}

int session_rerun_parse(const char *word, enum session_rerun *out)
{
	static const char *const names[] = { "failed", "errors", "all" };

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (!strcmp(word, names[i])) {
			*out = (enum session_rerun)(i + 1);
			return 0;
		}
	return -1;
}

/* 1 when the test has a result that stands (the run leaves it), 0 when it is to run, -1 on error.
 * ferry's own errors never stand; --rerun makes failures, errors or every result run again. */
static int has_result(struct session *s, const char *id, int *existed, struct err *e)
{
	int outcome, r;

	*existed = 0;
	if (s->o->rerun == SESSION_RERUN_NONE)
		return db_has_result(&s->db, s->fe->label, id, e);
	if ((r = db_result_outcome(&s->db, s->fe->label, id, &outcome, e)) <= 0)
		return r;
	*existed = outcome != OUTCOME_ERROR;
	switch (s->o->rerun) {
	case SESSION_RERUN_ALL:
		return 0;
	case SESSION_RERUN_FAILED:
		return !(outcome_is_failure((enum outcome)outcome) || outcome == OUTCOME_ERROR);
	case SESSION_RERUN_ERRORS:
		return !(outcome == OUTCOME_CRASH || outcome == OUTCOME_TIMEOUT || outcome == OUTCOME_OOM ||
			 outcome == OUTCOME_ERROR);
	default:
		return outcome != OUTCOME_ERROR;
	}
}

/* Keep every nshards-th entry of the order from offset shard: each shard starts at the top of the
 * queue, so every shard runs top-priority tests first. */
static void take_shard(struct session *s)
{
	size_t k = 0;

	if (s->o->nshards <= 1)
		return;
	for (size_t i = (size_t)s->o->shard; i < s->norder; i += (size_t)s->o->nshards)
		s->order[k++] = s->order[i];
	s->norder = k;
}

/* Each frontend must have a valid test to take, or a run of it succeeds having tested nothing. */
static int check_frontends(struct session *s, struct err *e)
{
	const struct session_opts *o = s->o;

	for (size_t f = 0; f < o->nfes; f++) {
		const struct frontend *fe = &o->fes[f];
		size_t of_library = 0, valid = 0;
		char where[64] = "";

		for (size_t i = 0; i < s->norder; i++) {
			const struct wrapped *t = &s->tests[s->order[i]];

			if (!strcmp(t->in.library, fe->library)) {
				of_library++;
				valid += t->valid;
			}
		}
		if (valid)
			continue;
		if (o->nshards > 1)
			snprintf(where, sizeof(where), " in shard %d/%d", o->shard, o->nshards);
		else if (o->queue)
			snprintf(where, sizeof(where), " in the queue");
		if (!of_library)
			return err_set(e, EXIT_INPUT,
				       "frontend '%s' takes %s models, and '%s' has none%s: nothing to test",
				       fe->label, fe->library, o->wrapdir, where);
		return err_set(e, EXIT_INPUT, "none of the %zu %s models of '%s'%s is valid: nothing to test on "
			       "frontend '%s'", of_library, fe->library, o->wrapdir, where, fe->label);
	}
	return 0;
}

int session_open(struct session **out, const struct session_opts *o, struct err *e)
{
	struct session *s = xcalloc(1, sizeof(*s));
	size_t bad = 0;

	s->o = o;
	{
		char *abs = fs_abspath(o->store);

		s->outputs = xasprintf("%s.outputs", abs);
		free(abs);
	}
	s->start = now();
	*out = NULL;
	/* Every input is checked before the store is created: a run that fails on its input leaves
	 * nothing behind. */
	if (o->queue && fs_input_file(o->queue, e) < 0)
		goto fail;
	if (!fs_is_dir(o->wrapdir)) {
		err_set(e, EXIT_INPUT, "'%s' is not a directory of wrapped models (the output of ferry wrap)%s",
			o->wrapdir, fs_exists(o->wrapdir) ? "" : ": No such file or directory");
		goto fail;
	}
	if (o->tolerances && tolerance_rules_load(&s->tol, o->tolerances, e) < 0)
		goto fail;
	if (wrapped_load(o->wrapdir, &s->tests, &s->ntests, &bad, warn_line, (void *)o, e) < 0)
		goto fail;
	if (!s->ntests) {
		err_set(e, EXIT_INPUT, "'%s' holds no wrapped models%s", o->wrapdir,
			bad ? " (every line of its wrapped.jsonl is bad)" : "");
		goto fail;
	}
	if (o->queue) {
		if (load_queue(s, o->queue, e) < 0)
			goto fail;
		/* A queue of another wrap, of plain ids, or of junk would run nothing and say it passed. */
		if (!s->norder) {
			err_set(e, EXIT_INPUT, "the queue '%s' names none of the wrapped models of '%s' "
				"(it should be ferry rank's output for their corpus)", o->queue, o->wrapdir);
			goto fail;
		}
	} else {
		s->order = xcalloc(s->ntests, sizeof(*s->order));
		for (size_t i = 0; i < s->ntests; i++)
			s->order[i] = i;
		s->norder = s->ntests;
	}
	take_selected(s);
	if (!s->norder) {
		char *sel = select_describe(s->o->select);

		err_set(e, EXIT_INPUT, "%s selects none of the %zu wrapped models of '%s'%s: nothing to test", sel,
			s->ntests, o->wrapdir, o->queue ? " in the queue" : "");
		free(sel);
		goto fail;
	}
	take_shard(s);
	if (check_frontends(s, e) < 0)
		goto fail;
	for (size_t i = 0; i < s->ntests; i++)
		strmap_get(&s->index, s->tests[i].in.id, NULL)->count = i;
	if (db_open(&s->db, o->store, DB_CREATE, e) < 0 || db_lock(&s->db, o->command, e) < 0 ||
	    db_check_oracle(&s->db, o->oracle ? o->oracle : "reference", e) < 0 ||
	    locations_record(&s->db, o->fes, o->nfes, e) < 0)
		goto fail;
	/* The store keeps the instances themselves, so that reports and reproducers need nothing else. */
	if (db_begin(&s->db, e) < 0)
		goto fail;
	for (size_t i = 0; i < s->ntests; i++) {
		const struct wrapped *t = &s->tests[i];

		if (db_put_instance(&s->db, &t->in, t->line, t->valid ? "ok" : "invalid", t->reason, t->random,
				    t->dir, e) < 0)
			goto fail;
	}
	if (db_commit(&s->db, e) < 0)
		goto fail;
	*out = s;
	return 0;
fail:
	session_close(s);
	return -1;
}

void session_close(struct session *s)
{
	if (!s)
		return;
	db_close(&s->db);
	wrapped_free(s->tests, s->ntests);
	free(s->order);
	strmap_release(&s->index);
	tolerance_rules_release(&s->tol);
	free(s->format_why);
	forget_groups(s);
	forget_peers(s);
	free(s->outputs);
	forget_reductions(s);
	free(s);
}

struct db *session_db(struct session *s)
{
	return &s->db;
}

int session_each(struct session *s, const struct frontend *fe,
		 int (*fn)(void *ctx, const struct wrapped *t), void *ctx)
{
	for (size_t i = 0; i < s->norder; i++) {
		const struct wrapped *t = &s->tests[s->order[i]];

		if (!strcmp(t->in.library, fe->library) && fn(ctx, t) < 0)
			return -1;
	}
	return 0;
}

static cJSON *request_json(const char *id, const char *dir, int random, struct tolerance tol)
{
	cJSON *req = cJSON_CreateObject();

	cJSON_AddStringToObject(req, PROTO_KEY_TASK, PROTO_TASK_RUN);
	cJSON_AddStringToObject(req, PROTO_KEY_ID, id);
	cJSON_AddStringToObject(req, PROTO_KEY_DIR, dir);
	cJSON_AddBoolToObject(req, PROTO_KEY_RANDOM, random);
	cJSON_AddNumberToObject(req, PROTO_KEY_ATOL, tol.atol);
	cJSON_AddNumberToObject(req, PROTO_KEY_RTOL, tol.rtol);
	return req;
}

/* The request as a line of text; req is consumed. */
static char *request_text(cJSON *req)
{
	char *text = cJSON_PrintUnformatted(req);

	cJSON_Delete(req);
	return text;
}

char *session_request_dir(const char *id, const char *dir, int random, struct tolerance tol)
{
	return request_text(request_json(id, dir, random, tol));
}

char *session_request(const struct wrapped *t, const struct tolerance_rules *rules, const char *frontend,
		      struct tolerance defaults)
{
	struct tolerance tol = tolerance_for(rules, t->in.op, probe_dtype(&t->in), frontend, defaults);
	cJSON *req = request_json(t->in.id, t->dir, t->random, tol);

	cJSON_AddBoolToObject(req, PROTO_KEY_EXPLAIN, 1);
	return request_text(req);
}

/* Whether test t goes to the differential oracle: a multi-node graph (a record of kind "graph"), or
 * any test when the session was asked to. A node test alone pays nothing for it. */
static int differential(const struct session *s, const struct wrapped *t)
{
	return s->o->differential || !strcmp(t->in.kind, "graph");
}

/* The request that runs test t: under the metamorphic oracle with its mutations and seed; for the
 * differential oracle with where its outputs are kept, and the outputs the other frontends kept of
 * it (a store holds one oracle's results: the metamorphic oracle's runs keep no outputs). */
static char *request(struct session *s, const struct wrapped *t)
{
	struct tolerance tol = tolerance_for(&s->tol, t->in.op, probe_dtype(&t->in), s->fe->name,
					     (struct tolerance){ s->o->atol, s->o->rtol });
	cJSON *req, *against;
	char *dir;

	if (session_metamorphic(s->o->oracle)) {
		req = request_json(t->in.id, t->dir, t->random, tol);
		cJSON_AddStringToObject(req, PROTO_KEY_ORACLE, PROTO_ORACLE_METAMORPHIC);
		cJSON_AddNumberToObject(req, PROTO_KEY_MUTATIONS, s->o->mutations);
		cJSON_AddNumberToObject(req, PROTO_KEY_SEED, (double)s->o->seed);
		return request_text(req);
	}
	if (!differential(s, t))
		return session_request_dir(t->in.id, t->dir, t->random, tol);
	req = request_json(t->in.id, t->dir, t->random, tol);
	dir = xasprintf("%s/%s/%s", s->outputs, s->fe->label, t->in.id);
	cJSON_AddStringToObject(req, PROTO_KEY_SAVE, dir);
	free(dir);
	against = cJSON_AddArrayToObject(req, PROTO_KEY_AGAINST);
	for (size_t i = 0; i < s->npeers; i++) {
		char *kept = xasprintf("%s/%s/%s/outputs.json", s->outputs, s->peers[i], t->in.id);

		if (fs_exists(kept)) {
			cJSON *a = cJSON_CreateObject();

			kept[strlen(kept) - strlen("/outputs.json")] = '\0';
			cJSON_AddStringToObject(a, PROTO_KEY_FRONTEND, s->peers[i]);
			cJSON_AddStringToObject(a, PROTO_KEY_DIR, kept);
			cJSON_AddItemToArray(against, a);
		}
		free(kept);
	}
	return request_text(req);
}

/* STORE.outputs/LABEL/ID, where the worker keeps test t's outputs (driver.save_outputs), made where
 * missing: the store's directory is the user's, those three are ferry's, and a store's side directory
 * may come from someone else (unpacked from an archive): a link planted there stops the run, naming
 * it, rather than have the outputs written where it points (fsutil.h fs_dir_beneath). */
static int outputs_dir(const struct session *s, const struct wrapped *t, struct err *e)
{
	char *dir = xasprintf("%s/%s/%s", s->outputs, s->fe->label, t->in.id);
	int fd = fs_dir_beneath(dir, 3, 1, e);

	free(dir);
	if (fd < 0)
		return -1;
	close(fd);
	return 0;
}

/* The other labels that kept outputs of graph tests beside the store (this run's earlier frontends,
 * or an earlier run's): each a directory of STORE.outputs. */
static void find_peers(struct session *s)
{
	DIR *d = opendir(s->outputs);
	struct dirent *ent;
	size_t cap = 0;

	forget_peers(s);
	while (d && (ent = readdir(d))) {
		char *path;

		if (ent->d_name[0] == '.' || !strcmp(ent->d_name, s->fe->label))
			continue;
		path = xasprintf("%s/%s", s->outputs, ent->d_name);
		if (fs_is_dir(path)) {
			XGROW(s->peers, cap, s->npeers + 1);
			s->peers[s->npeers++] = xstrdup(ent->d_name);
		}
		free(path);
	}
	if (d)
		closedir(d);
}

static void forget_peers(struct session *s)
{
	for (size_t i = 0; i < s->npeers; i++)
		free(s->peers[i]);
	free(s->peers);
	s->peers = NULL;
	s->npeers = 0;
}

char *session_pair_label(const char *a, const char *b)
{
	return xasprintf("%s" SESSION_PAIR_SEP "%s", a, b);
}

char *session_pair_culprit(const char *label, const char *agrees)
{
	const char *sep = strstr(label, SESSION_PAIR_SEP), *second;
	const char *who = agrees && !strncmp(agrees, "agrees: ", 8) ? agrees + 8 : "";

	if (!sep)
		return xstrdup(label);
	second = sep + strlen(SESSION_PAIR_SEP);
	/* A disagreement where one of the two agrees with the reference is the other's bug. */
	if (!strcmp(who, second))
		return xstrndup(label, (size_t)(sep - label));
	return xstrdup(second);
}

static int outcome_of(void *ctx, const struct db_row *row, struct err *e)
{
	(void)e;
	*(int *)ctx = outcome_from_name(row->outcome);
	return 0;
}

/* The differential oracle's verdicts in the reply to test id: each a result of its own, under the
 * pair's label (earlier~this), a disagreement naming which of the two agrees with the reference. */
static int put_pairs(struct session *s, const struct db_result *mine, const cJSON *reply, struct err *e)
{
	const cJSON *p;

	cJSON_ArrayForEach(p, cJSON_GetObjectItemCaseSensitive(reply, PROTO_KEY_PAIRS)) {
		const char *other = json_str(p, PROTO_KEY_FRONTEND), *outcome = json_str(p, PROTO_KEY_OUTCOME);
		const cJSON *m = cJSON_GetObjectItemCaseSensitive(p, PROTO_KEY_MAX_ABS);
		struct db_result r = *mine;
		struct buf msg = BUF_INIT, agrees = BUF_INIT;
		char *label;
		int theirs = -1, ret, o = outcome_from_name(outcome);

		if (!other || (o != OUTCOME_PASS && o != OUTCOME_MISMATCH))
			continue;
		if (db_result(&s->db, other, mine->id, outcome_of, &theirs, e) < 0)
			return -1;
		label = session_pair_label(other, mine->frontend);
		r.frontend = label;
		r.outcome = (enum outcome)o;
		r.stage = r.frame = r.exc_type = NULL;
		r.detail = json_str(p, PROTO_KEY_DETAIL);
		r.max_abs = cJSON_IsNumber(m) ? m->valuedouble : NAN;
		r.seconds = 0;
		r.timed = 0;
		r.message = NULL;
		if (r.outcome == OUTCOME_MISMATCH) {
			int a = theirs == OUTCOME_PASS, b = mine->outcome == OUTCOME_PASS;

			buf_addf(&agrees, "agrees: %s", a && b ? "both" : a ? other : b ? mine->frontend : "neither");
			buf_addf(&msg, "%s against %s: %s; ", mine->frontend, other, json_str(p, PROTO_KEY_MESSAGE) ?
				 json_str(p, PROTO_KEY_MESSAGE) : "?");
			if (a != b)
				buf_addf(&msg, "%s agrees with the reference: %s's bug", a ? other : mine->frontend,
					 a ? mine->frontend : other);
			else
				buf_adds(&msg, a ? "both agree with the reference (within the tolerance: a question "
					 "of tolerance)"
					 : "neither agrees with the reference: a question for the reference");
			r.exc_type = agrees.data;
			r.message = msg.data;
		}
		ret = db_put_result(&s->db, &r, e);
		buf_release(&msg);
		buf_release(&agrees);
		free(label);
		if (ret < 0)
			return -1;
	}
	return 0;
}

/* The groups of the tests selected for the frontend, each with its probe: the simplest valid test. */
static void find_groups(struct session *s)
{
	struct buf key = BUF_INIT;

	for (size_t i = 0; i < s->norder; i++) {
		const struct wrapped *t = &s->tests[s->order[i]];
		struct strmap_entry *g;
		struct group *gr;
		int created;

		if (!t->valid || strcmp(t->in.library, s->fe->library))
			continue;
		probe_group_key(&t->in, &key);
		g = strmap_get(&s->groups, key.data, &created);
		if (created) {
			g->ptr = gr = xcalloc(1, sizeof(*gr));
			gr->probe = s->order[i];
			continue;
		}
		gr = g->ptr;
		if (probe_cmp(&t->in, t->undefined != NULL, &s->tests[gr->probe].in,
			      s->tests[gr->probe].undefined != NULL) < 0)
			gr->probe = s->order[i];
	}
	buf_release(&key);
}

static void forget_groups(struct session *s)
{
	for (size_t i = 0; i < s->groups.cap; i++)
		if (s->groups.slots[i].key)
			free(s->groups.slots[i].ptr);
	strmap_release(&s->groups);
	memset(&s->groups, 0, sizeof(s->groups));
	free(s->version);
	s->version = NULL;
	s->version_known = 0;
}

/* Before test t: its group's probe, unless the store has it for this release or it went out
 * already. 1 and job filled, 0 for none, 2 when t is the probe itself (its job, once, is both),
 * -1 on error. */
static int probe_job(struct session *s, const struct wrapped *t, struct runner_job *job, struct err *e)
{
	struct buf key = BUF_INIT;
	struct strmap_entry *g;
	struct group *gr;
	const struct wrapped *p;
	int n;

	probe_group_key(&t->in, &key);
	g = strmap_find(&s->groups, key.data);
	buf_release(&key);
	if (!g || (gr = g->ptr)->settled)
		return 0;
	gr->settled = 1;
	p = &s->tests[gr->probe];
	n = db_support_rows(&s->db, store_name(s->fe), s->version, p->in.op,
			    probe_dtype(&p->in) ? probe_dtype(&p->in) : PROBE_NO_DTYPE, NULL, NULL, e);
	if (n < 0)
		return -1;
	if (n > 0) {
		s->res->probes_cached++;
		return 0;
	}
	s->res->probes++;
	if (p == t)
		return 2;
	if (!session_metamorphic(s->o->oracle) && differential(s, p) && outputs_dir(s, p, e) < 0)
		return -1;
	s->res->probes_apart++;
	job->key = xasprintf(PROBE_KEY "%s", p->in.id);
	job->request = request(s, p);
	return 1;
}

/* --- the metamorphic oracle: mutations and reductions --------------------------------------- */

/* An inconsistency to reduce: its test, with the seed and k of the run that found it. */
struct reduction {
	char *id;
	long long seed, k;
};

/* A reduction's job key: the test's id after this prefix. */
#define REDUCE_KEY "reduce:"

/* Add a reduction to the queue (once per test). */
static void want_reduction(struct session *s, const char *id, long long seed, long long k)
{
	for (size_t i = 0; i < s->nreduce; i++)
		if (!strcmp(s->reduce[i].id, id))
			return;
	XGROW(s->reduce, s->reduce_cap, s->nreduce + 1);
	s->reduce[s->nreduce++] = (struct reduction){ xstrdup(id), seed, k };
}

static void forget_reductions(struct session *s)
{
	for (size_t i = 0; i < s->nreduce; i++)
		free(s->reduce[i].id);
	free(s->reduce);
	s->reduce = NULL;
	s->nreduce = s->reduce_cap = 0;
}

static int pending_reduction(void *ctx, const struct db_mutation *m, struct err *e)
{
	struct session *s = ctx;

	(void)e;
	if (m->status && !strcmp(m->status, "pending") && strmap_find(&s->index, m->id))
		want_reduction(s, m->id, m->seed, m->k);
	return 0;
}

/* The next reduction's job (1), or 0 when none waits. Its time is most of a test's: it keeps the
 * smallest failing model found when that runs out. */
static int reduce_job(struct session *s, struct runner_job *job)
{
	struct reduction r;
	struct strmap_entry *t;
	const struct wrapped *test;
	cJSON *req;

	if (!s->nreduce)
		return 0;
	r = s->reduce[--s->nreduce];
	t = strmap_find(&s->index, r.id);
	test = &s->tests[t->count];
	req = cJSON_CreateObject();
	cJSON_AddStringToObject(req, PROTO_KEY_TASK, PROTO_TASK_REDUCE);
	cJSON_AddStringToObject(req, PROTO_KEY_ID, r.id);
	cJSON_AddStringToObject(req, PROTO_KEY_DIR, test->dir);
	cJSON_AddNumberToObject(req, PROTO_KEY_MUTATIONS, (double)r.k);
	cJSON_AddNumberToObject(req, PROTO_KEY_SEED, (double)r.seed);
	cJSON_AddNumberToObject(req, PROTO_KEY_SECONDS, 0.8 * s->o->runner.timeout);
	cJSON_AddBoolToObject(req, PROTO_KEY_RANDOM, test->random);
	{
		struct tolerance tol = tolerance_for(&s->tol, test->in.op, probe_dtype(&test->in), s->fe->name,
						     (struct tolerance){ s->o->atol, s->o->rtol });

		cJSON_AddNumberToObject(req, PROTO_KEY_ATOL, tol.atol);
		cJSON_AddNumberToObject(req, PROTO_KEY_RTOL, tol.rtol);
	}
	job->key = xasprintf(REDUCE_KEY "%s", r.id);
	job->request = cJSON_PrintUnformatted(req);
	cJSON_Delete(req);
	free(r.id);
	s->res->reductions++;
	return 1;
}

/* A reduction's outcome goes to the mutations table; the test's result stays inconsistent. One that
 * could not finish (the frontend died or hung while it ran) is recorded as failed, with why. */
static int reduce_done(struct session *s, const char *id, const struct runner_outcome *o, struct err *e)
{
	const cJSON *r = o->end == RUNNER_REPLY ? cJSON_GetObjectItemCaseSensitive(o->reply, PROTO_KEY_REDUCED) : NULL;
	const cJSON *keep = cJSON_GetObjectItemCaseSensitive(r, "chain");
	struct db_mutation m;
	struct buf why = BUF_INIT;
	char *reduced = NULL;
	int ret;

	memset(&m, 0, sizeof(m));
	m.frontend = store_name(s->fe);
	m.id = id;
	m.reduced_nodes = -1;
	if (cJSON_IsObject(r)) {
		const cJSON *n = cJSON_GetObjectItemCaseSensitive(r, "reduced_nodes");
		cJSON *account = cJSON_Duplicate(r, 1);

		/* The models and outputs have columns of their own. */
		cJSON_DeleteItemFromObjectCaseSensitive(account, "model");
		cJSON_DeleteItemFromObjectCaseSensitive(account, "outputs");
		reduced = cJSON_PrintUnformatted(account);
		cJSON_Delete(account);
		m.status = json_str(r, "status") ? json_str(r, "status") : "failed";
		m.reduced = reduced;
		m.reduced_nodes = cJSON_IsNumber(n) ? (long long)n->valuedouble : -1;
		m.model = json_str(r, "model");
		m.outputs = json_str(r, "outputs");
		m.kind = json_str(r, "kind");
		m.target_op = json_str(r, "target_op");
		m.message = json_str(r, "message");
		s->res->reduced += cJSON_IsArray(keep) &&
				   (!strcmp(m.status, "reduced") || !strcmp(m.status, "partial"));
	} else {
		m.status = "failed";
		if (o->end == RUNNER_TIMEOUT)
			buf_addf(&why, "no result after %.0fs", o->seconds);
		else if (o->end == RUNNER_OOM)
			buf_adds(&why, "the worker passed the memory limit");
		else if (o->end == RUNNER_DIED)
			proc_status_describe(&o->status, &why);
		else if (json_str(o->reply, PROTO_KEY_MESSAGE))
			buf_adds(&why, json_str(o->reply, PROTO_KEY_MESSAGE));
		else
			buf_adds(&why, "the reduction gave no account");
		m.message = why.data;
	}
	ret = db_put_mutation_reduction(&s->db, &m, e);
	free(reduced);
	buf_release(&why);
	return ret;
}

/* A metamorphic run's result: its mutations go to the store, and an inconsistency to be reduced. */
static int mutation_done(struct session *s, const struct db_result *res, const cJSON *reply, struct err *e)
{
	const cJSON *nodes = cJSON_GetObjectItemCaseSensitive(reply, PROTO_KEY_NODES);
	const cJSON *orig = cJSON_GetObjectItemCaseSensitive(reply, PROTO_KEY_ORIGINAL_NODES);
	int inconsistent = res->outcome == OUTCOME_INCONSISTENT;
	struct db_mutation m;

	if (!reply || !json_str(reply, PROTO_KEY_CHAIN))
		return 0;
	memset(&m, 0, sizeof(m));
	m.frontend = res->frontend;
	m.id = res->id;
	m.seed = s->o->seed;
	m.k = s->o->mutations;
	m.chain = json_str(reply, PROTO_KEY_CHAIN);
	m.stats = json_str(reply, PROTO_KEY_MUTATION_STATS);
	m.nodes = cJSON_IsNumber(nodes) ? (long long)nodes->valuedouble : -1;
	m.original_nodes = cJSON_IsNumber(orig) ? (long long)orig->valuedouble : -1;
	m.status = inconsistent ? "pending" : "none";
	m.reduced_nodes = -1;
	if (inconsistent)
		want_reduction(s, res->id, m.seed, m.k);
	return db_put_mutation(&s->db, &m, e);
}

/* --- jobs ------------------------------------------------------------------------------------- */

static int next_job(void *ctx, struct runner_job *job, struct err *e)
{
	struct session *s = ctx;
	const struct session_opts *o = s->o;

	if (reduce_job(s, job))
		return 1;
	while (s->cursor < s->norder) {
		struct wrapped *t = &s->tests[s->order[s->cursor++]];
		int has, probe, existed;

		if (strcmp(t->in.library, s->fe->library))
			continue;
		if (!t->valid) {
			s->res->invalid++;
			continue;
		}
		if ((has = has_result(s, t->in.id, &existed, e)) < 0)
			return -1;
		/* The limit is the top of the queue, done or not: a resumed run finishes the same tests. */
		if (o->limit >= 0 && s->reached >= (size_t)o->limit) {
			s->res->budget_left_out += !has;
			continue;
		}
		s->reached++;
		if (has) {
			s->res->already++;
			continue;
		}
		if (o->maxfail > 0 && s->failures >= (size_t)o->maxfail)
			s->res->maxfail = 1;
		if (s->res->maxfail || s->out_of_time || (o->budget > 0 && now() - s->start >= o->budget)) {
			/* Count what the budget or --maxfail leaves out, then stop taking tests. */
			s->out_of_time = 1;
			s->res->budget_left_out++;
			continue;
		}
		/* The group's probe first; t is taken again next time. */
		probe = s->version_known ? probe_job(s, t, job, e) : 0;
		if (probe < 0 || probe == 1) {
			s->cursor -= probe == 1;
			s->reached -= probe == 1;
			return probe;
		}
		if (!session_metamorphic(o->oracle) && differential(s, t) && outputs_dir(s, t, e) < 0)
			return -1;
		s->res->ran++;
		s->res->rerun += existed;
		job->key = probe == 2 ? xasprintf(PROBE_TEST_KEY "%s", t->in.id) : xstrdup(t->in.id);
		job->request = request(s, t);
		return 1;
	}
	/* A test in flight may still turn out inconsistent, and its reduction goes next. */
	return session_metamorphic(o->oracle) ? 2 : 0;
}

static void count(struct session *s, enum outcome o)
{
	s->res->counts[o]++;
	if (outcome_is_failure(o)) {
		s->failed++;
		s->failures++;
	}
}

static void tick(void *ctx)
{
	struct session *s = ctx;
	size_t done = 0, failed = 0;

	if (!s->o->progress)
		return;
	if (!s->nlanes) {
		s->o->progress(s->o->ctx, s->res->ran + s->res->probes_apart, s->failed);
		return;
	}
	/* The shared pool: one line for every frontend; the lane in s (if any) has its state there. */
	for (size_t i = 0; i < s->nlanes; i++) {
		const struct lane *l = &s->lanes[i];
		const struct session_result *r = l == s->cur ? s->res : l->res;

		if (!r)
			continue;
		done += r->ran + r->probes_apart;
		failed += l == s->cur ? s->failed : l->failed;
	}
	s->o->progress(s->o->ctx, done, failed);
}

/* A probe's outcome goes to the support table, never to the results. */
static int probe_done(struct session *s, const struct wrapped *test, const struct db_result *res, struct err *e)
{
	const char *dtype = test ? probe_dtype(&test->in) : NULL;
	struct db_support sup = { store_name(s->fe), s->version, test ? test->in.op : "?",
				  dtype ? dtype : PROBE_NO_DTYPE, res->id, outcome_name(res->outcome), res->stage,
				  res->message };

	s->res->probe_classes[probe_class(sup.outcome)]++;
	return db_put_support(&s->db, &sup, e);
}

/* The release the frontend's first worker announced: probes are chosen by it. */
static void ready(void *ctx, const char *version)
{
	struct session *s = ctx;

	s->version = version ? xstrdup(version) : NULL;
	s->version_known = 1;
}

void session_outcome(const struct runner_outcome *o, struct db_result *res, struct buf *msg, struct buf *sig,
		     struct buf *stage)
{
	/* A stage of the mutated model (the metamorphic oracle) is recorded as the stage, and the
	 * message says whose. */
	const char *of_mutated = "";

	res->stage = o->stage;
	if (o->stage && strlen(o->stage) > strlen(PROTO_STAGE_MUTATED) &&
	    !strcmp(o->stage + strlen(o->stage) - strlen(PROTO_STAGE_MUTATED), PROTO_STAGE_MUTATED)) {
		buf_add(stage, o->stage, strlen(o->stage) - strlen(PROTO_STAGE_MUTATED));
		res->stage = stage->data;
		of_mutated = " of the mutated model (m')";
	}
	res->exc_type = res->message = res->frame = NULL;
	res->max_abs = NAN;
	res->seconds = o->seconds;
	res->detail = o->stderr_text && *o->stderr_text ? o->stderr_text : NULL;
	switch (o->end) {
	case RUNNER_REPLY: {
		const cJSON *m = cJSON_GetObjectItemCaseSensitive(o->reply, PROTO_KEY_MAX_ABS);
		const char *outcome = json_str(o->reply, PROTO_KEY_OUTCOME);
		int known = outcome_from_name(outcome);

		res->outcome = known >= 0 ? (enum outcome)known : OUTCOME_ERROR;
		res->stage = json_str(o->reply, PROTO_KEY_STAGE);
		res->exc_type = json_str(o->reply, PROTO_KEY_EXC_TYPE);
		res->message = json_str(o->reply, PROTO_KEY_MESSAGE);
		if (known < 0) {
			buf_addf(msg, "the worker's result has %s%s%s",
				 outcome ? "an unknown outcome '" : "no outcome",
				 outcome ? outcome : "", outcome ? "'" : "");
			res->message = msg->data;
		}
		res->frame = json_str(o->reply, PROTO_KEY_FRAME);
		if (json_str(o->reply, PROTO_KEY_DETAIL))
			res->detail = json_str(o->reply, PROTO_KEY_DETAIL);
		if (cJSON_IsNumber(m))
			res->max_abs = m->valuedouble;
		break;
	}
	case RUNNER_TIMEOUT:
		res->outcome = OUTCOME_TIMEOUT;
		buf_addf(msg, "no result after %.0fs%s%s%s", o->seconds, res->stage ? " in stage " : "",
			 res->stage ? res->stage : "", of_mutated);
		res->message = msg->data;
		break;
	case RUNNER_OOM:
		res->outcome = OUTCOME_OOM;
		res->message = *of_mutated ? "the worker passed the memory limit on the mutated model (m')"
			     : "the worker passed the memory limit";
		break;
	case RUNNER_DIED:
		res->outcome = OUTCOME_CRASH;
		if (o->why) {
			/* ferry ended the worker itself: its signal is not the test's */
			buf_adds(msg, o->why);
			if (res->stage)
				buf_addf(msg, " in stage %s%s", res->stage, of_mutated);
			res->message = msg->data;
			break;
		}
		buf_adds(msg, "the worker ");
		proc_status_describe(&o->status, msg);
		if (res->stage)
			buf_addf(msg, " during %s%s", res->stage, of_mutated);
		res->message = msg->data;
		if (o->status.signaled)
			buf_addf(sig, "signal %d", o->status.sig);
		else
			buf_addf(sig, "exit %d", o->status.code);
		res->exc_type = sig->data;
		break;
	}
}

/* Where a test's time went, when its worker answered with the times of the frontend's stages: the
 * rest, up to this moment (just before its row is written), is ferry's. */
static void time_result(const struct runner_outcome *o, struct db_result *res, double entered)
{
	const cJSON *t = o->end == RUNNER_REPLY ? cJSON_GetObjectItemCaseSensitive(o->reply, PROTO_KEY_TIMES) : NULL;
	const cJSON *l = cJSON_GetObjectItemCaseSensitive(t, PROTO_STAGE_LOAD);
	const cJSON *c = cJSON_GetObjectItemCaseSensitive(t, PROTO_STAGE_COMPILE);
	const cJSON *x = cJSON_GetObjectItemCaseSensitive(t, PROTO_STAGE_EXECUTE);
	const cJSON *wait = cJSON_GetObjectItemCaseSensitive(t, PROTO_TIME_WAIT);
	const cJSON *worker = cJSON_GetObjectItemCaseSensitive(t, PROTO_TIME_WORKER);
	double ferry;

	res->timed = cJSON_IsNumber(l) && cJSON_IsNumber(c) && cJSON_IsNumber(x);
	if (!res->timed)
		return;
	res->load_seconds = l->valuedouble;
	res->compile_seconds = c->valuedouble;
	res->execute_seconds = x->valuedouble;
	/* The worker's wait for the request and its time with the test, on its clock: a worker that
	 * has its next request behind the current one goes on at once, while ferry reads the answer
	 * and writes the request after; the runner's clock (queued, seconds) when it did not say. */
	if (cJSON_IsNumber(wait) && cJSON_IsNumber(worker))
		ferry = wait->valuedouble + worker->valuedouble;
	else
		ferry = o->queued + o->seconds;
	ferry += (now() - entered) - l->valuedouble - c->valuedouble - x->valuedouble;
	/* Two clocks (the worker's and ours) read apart: never below nothing. */
	res->ferry_seconds = ferry > 0 ? ferry : 0;
}

/* A timed result's seconds into the frontend's account, with the write of its row (which the row
 * cannot hold): ferry's too. */
static void add_time(struct session_result *r, const struct db_result *res, double write)
{
	r->timed++;
	r->load_seconds += res->load_seconds;
	r->compile_seconds += res->compile_seconds;
	r->execute_seconds += res->execute_seconds;
	r->ferry_seconds += res->ferry_seconds + write;
}

static int job_done(void *ctx, const struct runner_job *job, const struct runner_outcome *o, struct err *e)
{
	struct session *s = ctx;
	struct db_result res;
	struct buf msg = BUF_INIT, sig = BUF_INIT, undef = BUF_INIT;
	int probe = !strncmp(job->key, PROBE_KEY, strlen(PROBE_KEY));
	int both = !strncmp(job->key, PROBE_TEST_KEY, strlen(PROBE_TEST_KEY));
	const char *id = probe ? job->key + strlen(PROBE_KEY) : both ? job->key + strlen(PROBE_TEST_KEY) : job->key;
	struct strmap_entry *t = strmap_find(&s->index, id);
	const struct wrapped *test = t ? &s->tests[t->count] : NULL;
	struct tolerance tol = { s->o->atol, s->o->rtol };
	struct buf mutated = BUF_INIT;
	double entered = now();
	int ret;

	if (!strncmp(job->key, REDUCE_KEY, strlen(REDUCE_KEY))) {
		ret = reduce_done(s, job->key + strlen(REDUCE_KEY), o, e);
		tick(s);
		return ret;
	}
	memset(&res, 0, sizeof(res));
	/* The tolerance that judged the test, as next_job chose it, kept with the result for its
	 * reproducer. */
	if (test)
		tol = tolerance_for(&s->tol, test->in.op, probe_dtype(&test->in), s->fe->name, tol);
	res.atol = tol.atol;
	res.rtol = tol.rtol;
	res.frontend = s->fe->label;
	res.frontend_version = o->version;
	res.id = id;
	res.run_id = s->run_id;
	/* A frontend that cannot take the format at all: no result, the run of it stops (the tests are
	 * left to a later run, with another release), and the session says so once. */
	if (o->end == RUNNER_REPLY && json_str(o->reply, PROTO_KEY_UNAVAILABLE)) {
		if (!s->format_why)
			s->format_why = xstrdup(json_str(o->reply, PROTO_KEY_UNAVAILABLE));
		return err_set(e, EXIT_ENV, "frontend '%s' is unavailable for %s", s->fe->label, s->format_why);
	}
	session_outcome(o, &res, &msg, &sig, &mutated);
	/* A failure on an input in the operator's undefined domain is flagged, never reported as a bug:
	 * the frontend may answer anything there. What it did answer stays in the message. Where only
	 * the values are in question (a reference that is not finite), a crash is still a crash. */
	if (outcome_is_failure(res.outcome) &&
	    !(test && test->undefined_values && res.outcome != OUTCOME_MISMATCH)) {
		const char *why = test ? test->undefined : NULL;

		if (why) {
			buf_addf(&undef, "%s (the frontend gave %s: %s)", why, outcome_name(res.outcome),
				 res.message ? res.message : "");
			res.outcome = OUTCOME_UNDEFINED;
			res.message = undef.data;
		}
	}
	ret = probe || both ? probe_done(s, test, &res, e) : 0;
	if (!probe && ret == 0) {
		double written;

		count(s, res.outcome);
		time_result(o, &res, entered);
		written = now();
		ret = db_put_result(&s->db, &res, e);
		if (res.timed)
			add_time(s->res, &res, now() - written);
		if (ret == 0 && o->end == RUNNER_REPLY && session_metamorphic(s->o->oracle))
			ret = mutation_done(s, &res, o->reply, e);
	}
	if (!probe && ret == 0 && o->end == RUNNER_REPLY)
		ret = put_pairs(s, &res, o->reply, e);
	buf_release(&undef);
	buf_release(&msg);
	buf_release(&sig);
	buf_release(&mutated);
	tick(s);
	return ret;
}

/* How many tests the frontend will take this time, for the progress line's total; with the probes
 * they need, as far as the store knows the release (the last one it saw: a new release probes more). */
static size_t remaining(struct session *s, size_t *probes)
{
	struct err ignored = ERR_INIT;
	struct strmap seen = STRMAP_INIT;
	struct buf key = BUF_INIT;
	char *version = NULL;
	size_t n = 0;

	*probes = 0;
	if (!s->o->no_probe)
		db_frontend_version(&s->db, store_name(s->fe), &version, &ignored);
	for (size_t i = 0, reached = 0; i < s->norder && (s->o->limit < 0 || reached < (size_t)s->o->limit); i++) {
		const struct wrapped *t = &s->tests[s->order[i]];
		const char *dtype = probe_dtype(&t->in);
		int created;

		if (!t->valid || strcmp(t->in.library, s->fe->library))
			continue;
		reached++;
		if (has_result(s, t->in.id, &created, &ignored) != 0)
			continue;
		n++;
		if (s->o->no_probe)
			continue;
		probe_group_key(&t->in, &key);
		strmap_get(&seen, key.data, &created);
		if (created && db_support_rows(&s->db, store_name(s->fe), version, t->in.op,
					       dtype ? dtype : PROBE_NO_DTYPE, NULL, NULL, &ignored) == 0) {
			struct strmap_entry *g = strmap_find(&s->groups, key.data);

			/* A group whose first test is its probe runs it once, as both. */
			*probes += !g || ((struct group *)g->ptr)->probe != s->order[i];
		}
	}
	err_release(&ignored);
	strmap_release(&seen);
	buf_release(&key);
	free(version);
	return n;
}

#define LANE_SWAP(f) do { __typeof__(s->f) tmp_ = s->f; s->f = l->f; l->f = tmp_; } while (0)

/* Exchange the frontend state of s with lane l's: the first call takes l's state in, the second
 * puts it back. next_job, job_done and the rest work on s's fields, as for a frontend run alone. */
static void lane_swap(struct session *s, struct lane *l)
{
	LANE_SWAP(fe);
	LANE_SWAP(res);
	LANE_SWAP(run_id);
	LANE_SWAP(cursor);
	LANE_SWAP(reached);
	LANE_SWAP(failed);
	LANE_SWAP(out_of_time);
	LANE_SWAP(format_why);
	LANE_SWAP(groups);
	LANE_SWAP(version);
	LANE_SWAP(version_known);
	LANE_SWAP(peers);
	LANE_SWAP(npeers);
	LANE_SWAP(reduce);
	LANE_SWAP(nreduce);
	LANE_SWAP(reduce_cap);
	s->cur = s->cur == l ? NULL : l;
}

/* The start of frontend fe's run (with s holding its state): the store's run, its groups and
 * peers, pending reductions, the tests it will take; ro and cb for its workers. */
static int lane_begin(struct session *s, struct lane *l, struct session_result *res, struct runner_opts *ro,
		      struct runner_callbacks *cb, struct err *e)
{
	const struct frontend *fe = l->frontend;
	int ret;

	l->self = fs_self_exe();
	session_worker_command(fe, l->self, l->wargv, l->env);
	session_worker_opts(ro, &s->o->runner, l->wargv, l->env);
	s->fe = fe;
	s->res = res;
	s->cursor = 0;
	s->reached = 0;
	s->failed = 0;
	s->out_of_time = 0;
	free(s->format_why);
	s->format_why = NULL;
	ret = db_start_run(&s->db, fe->label, NULL, s->o->command, &s->run_id, e);
	if (ret == 0)
		ret = db_set_unavailable(&s->db, fe->label, NULL, NULL, e);
	if (ret < 0)
		return -1;
	l->started = 1;
	if (!s->o->no_probe)
		find_groups(s);
	find_peers(s);
	/* Inconsistencies an interrupted run left unreduced go first. */
	if (session_metamorphic(s->o->oracle) && db_mutations(&s->db, store_name(fe), pending_reduction, s, e) < 0)
		return -1;
	{
		size_t probes, tests = remaining(s, &probes);

		/* Probes are chosen by the release: the workers say it before the first job. */
		if (!s->o->no_probe && tests)
			cb->ready = ready;
		l->total = tests + probes;
	}
	return 0;
}

/* The end of the run begun by lane_begin (s holding its state), ret its outcome so far: a release
 * that cannot take the format is recorded unavailable; a run that went through is finished. */
static int lane_end(struct session *s, struct lane *l, int ret, struct err *e)
{
	struct session_result *res = s->res;
	struct buf why = BUF_INIT;

	forget_groups(s);
	forget_reductions(s);
	if (ret < 0 && s->format_why && e->code == EXIT_ENV) {
		/* Recorded for report, and no test of it counted as run. */
		err_release(e);
		res->unavailable = 1;
		res->why = xasprintf("this release cannot take %s", s->format_why);
		res->ran = 0;
		buf_addf(&why, "unavailable for %s", s->format_why);
		ret = db_set_unavailable(&s->db, l->frontend->label, res->version, why.data, e);
	}
	if (ret == 0 && l->started)
		ret = db_finish_run(&s->db, s->run_id, res->version, e);
	/* job_done's, and s holds it only while the lane is swapped in: a shared pool's lanes are
	 * freed without it */
	free(s->format_why);
	s->format_why = NULL;
	buf_release(&why);
	free(l->env[0]);
	free(l->self);
	l->env[0] = l->self = NULL;
	return ret;
}

static int run_frontend(struct session *s, const struct frontend *fe, struct session_result *res, struct err *e)
{
	struct runner_opts ro = s->o->runner;
	struct runner_callbacks cb = { s, next_job, job_done, tick, NULL };
	struct lane l;
	int ret;

	memset(&l, 0, sizeof(l));
	l.s = s;
	l.frontend = fe;
	/* A release whose worker could not start when it was labelled: reported once, as a missing
	 * package is, and nothing recorded under a label that names no release. */
	if (fe->why)
		return err_set(e, EXIT_ENV, "%s", fe->why);
	ret = lane_begin(s, &l, res, &ro, &cb, e);
	if (ret == 0) {
		if (s->o->started)
			s->o->started(s->o->ctx, fe, l.total);
		ret = runner_run(&ro, &cb, &res->version, e);
		if (s->o->finished)
			s->o->finished(s->o->ctx, ret == 0);
	}
	return lane_end(s, &l, ret, e);
}

/* The shared pool's callbacks: each runs its lane's frontend state in s. */
static int lane_next(void *ctx, struct runner_job *job, struct err *e)
{
	struct lane *l = ctx;
	int r;

	lane_swap(l->s, l);
	r = next_job(l->s, job, e);
	lane_swap(l->s, l);
	return r;
}

static int lane_done(void *ctx, const struct runner_job *job, const struct runner_outcome *o, struct err *e)
{
	struct lane *l = ctx;
	int r;

	lane_swap(l->s, l);
	r = job_done(l->s, job, o, e);
	lane_swap(l->s, l);
	return r;
}

static void lane_ready(void *ctx, const char *version)
{
	struct lane *l = ctx;

	lane_swap(l->s, l);
	ready(l->s, version);
	lane_swap(l->s, l);
}

static void lane_tick(void *ctx)
{
	tick(((struct lane *)ctx)->s);
}

/* Whether the frontends may share one pool. The differential oracle compares a frontend's outputs
 * of a test with those the frontends before it kept: it needs them to have run the test first, so a
 * session that takes it runs one frontend after another. */
static int shareable(const struct session *s, size_t nfes)
{
	if (nfes < 2 || s->o->differential)
		return 0;
	for (size_t i = 0; i < s->norder; i++)
		if (!strcmp(s->tests[s->order[i]].in.kind, "graph"))
			return 0;
	return 1;
}

/* Every frontend at once on one pool of s->o->runner.jobs workers (runner_run_shared): each keeps
 * its own queue order, probes, reductions and results; one progress line counts them all. A
 * frontend that cannot start, or whose release cannot take the format, is unavailable as in a run
 * of it alone, and the others go on. */
static int run_shared(struct session *s, const struct frontend *fes, size_t nfes, struct session_result *results,
		      struct err *e)
{
	struct lane *lanes = xcalloc(nfes, sizeof(*lanes));
	struct runner_shared *rs = xcalloc(nfes, sizeof(*rs));
	struct runner_shared **order = xcalloc(nfes, sizeof(*order));
	struct frontend all;
	struct buf labels = BUF_INIT;
	size_t total = 0, nrun = 0, unavailable = 0;
	int ret = 0, pool;

	memset(&all, 0, sizeof(all));
	s->lanes = lanes;
	s->nlanes = nfes;
	for (size_t i = 0; i < nfes && ret == 0; i++) {
		struct lane *l = &lanes[i];

		l->s = s;
		l->frontend = &fes[i];
		buf_addf(&labels, "%s%s", labels.len ? "," : "", fes[i].label);
		if (fes[i].why) {
			results[i].unavailable = 1;
			results[i].why = xstrdup(fes[i].why);
			unavailable++;
			continue;
		}
		rs[nrun].cb = (struct runner_callbacks){ l, lane_next, lane_done, nrun ? NULL : lane_tick, NULL };
		lane_swap(s, l);
		ret = lane_begin(s, l, &results[i], &rs[nrun].opts, &rs[nrun].cb, e);
		lane_swap(s, l);
		if (rs[nrun].cb.ready)
			rs[nrun].cb.ready = lane_ready;
		total += l->total;
		order[i] = &rs[nrun++];
	}
	all.label = labels.data;
	if (ret == 0 && s->o->started)
		s->o->started(s->o->ctx, &all, total);
	pool = ret == 0 ? runner_run_shared(rs, nrun, s->o->runner.jobs, e) : -1;
	if (ret == 0 && s->o->finished)
		s->o->finished(s->o->ctx, pool == 0);
	for (size_t i = 0; i < nfes; i++) {
		struct lane *l = &lanes[i];
		struct runner_shared *r = order[i];
		struct err le = ERR_INIT;
		int lret;

		if (!r)
			continue;
		results[i].version = r->version;
		r->version = NULL;
		if (pool < 0) {
			/* Interrupted or failed as a whole: what finished is stored, nothing more recorded. */
			lane_swap(s, l);
			forget_groups(s);
			forget_reductions(s);
			free(s->format_why);
			s->format_why = NULL;
			lane_swap(s, l);
			free(l->env[0]);
			free(l->self);
			err_release(&r->err);
			continue;
		}
		lret = r->err.code != EXIT_OK ? -1 : 0;
		le = r->err;
		lane_swap(s, l);
		lret = lane_end(s, l, lret, &le);
		lane_swap(s, l);
		if (lret == 0) {
			unavailable += results[i].unavailable;
		} else if (le.code != EXIT_ENV || results_of(&results[i]) > 0) {
			/* As a run of the frontends in turn would have stopped here. */
			if (ret == 0)
				*e = le;
			else
				err_release(&le);
			ret = -1;
		} else {
			results[i].unavailable = 1;
			results[i].why = xstrdup(le.msg);
			err_release(&le);
			unavailable++;
		}
	}
	if (pool < 0)
		ret = -1;
	s->lanes = NULL;
	s->nlanes = 0;
	buf_release(&labels);
	free(order);
	free(rs);
	free(lanes);
	if (ret == 0 && nfes && unavailable == nfes)
		return err_set(e, EXIT_ENV, "no frontend could be run: %s", results[0].why);
	return ret;
}

static size_t results_of(const struct session_result *r)
{
	size_t n = 0;

	for (size_t i = 0; i < OUTCOME_COUNT; i++)
		n += r->counts[i];
	return n;
}

int session_run(struct session *s, const struct frontend *fes, size_t nfes, struct session_result *results,
		struct err *e)
{
	size_t unavailable = 0;

	memset(results, 0, nfes * sizeof(*results));
	if (shareable(s, nfes))
		return run_shared(s, fes, nfes, results, e);
	for (size_t i = 0; i < nfes; i++) {
		if (run_frontend(s, &fes[i], &results[i], e) == 0) {
			unavailable += results[i].unavailable;
			continue;
		}
		/* A worker that cannot start before any result: the frontend's package is missing or broken. */
		if (e->code != EXIT_ENV || results_of(&results[i]) > 0)
			return -1;
		results[i].unavailable = 1;
		results[i].why = xstrdup(e->msg);
		err_release(e);
		unavailable++;
	}
	if (nfes && unavailable == nfes)
		return err_set(e, EXIT_ENV, "no frontend could be run: %s", results[0].why);
	return 0;
}

void session_result_release(struct session_result *r)
{
	free(r->version);
	free(r->why);
	memset(r, 0, sizeof(*r));
}
