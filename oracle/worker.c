/* worker.c: a worker process's loop. The protocol stream is a private copy of the original stdout;
 * fd 1 itself is pointed at stderr, so that whatever a library prints lands in the captured stderr
 * instead of corrupting the protocol. */
#include "py.h"

#include <cjson/cJSON.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "classify.h"
#include "compare.h"
#include "fsutil.h"
#include "outcome.h"
#include "protocol.h"
#include "status.h"
#include "worker.h"
#include "xalloc.h"

struct worker {
	FILE *proto;
	PyObject *driver;     /* ferry.oracle.driver */
	PyObject *adapter;    /* run workers: the adapter module */
	PyObject *templates;  /* wrap workers: library -> template module */
	PyObject *metamorphic; /* ferry.oracle.metamorphic_run, once a test asks for it */
	PyObject *batch;      /* ferry.oracle.batch, once a request brings a batch */
	struct classify unsupported;
	struct status status; /* where the runner reads the request taken and its stage */
	uint64_t taken;       /* requests read */
	struct buf stages;    /* run tasks: "load 0.012s, compile ..." so far, when explaining */
	int explain;          /* the request asks for the result's explanation (ferry run --one) */
	int timed;            /* the test entered a stage */
	char stage[32];       /* the stage being timed, or "" */
	double stage_start;   /* when it began (monotonic seconds) */
	/* run tasks: seconds in the frontend's load, compile and execute (a mutated model's stage
	 * counts as its stage), for the durations of ferry run: the rest of a test's time is ferry's */
	double times[3];
	double idle_from;     /* when it last answered (or said it was ready) */
	double read_at;       /* when it read the current request */
};

static const char *const timed_stages[3] = { PROTO_STAGE_LOAD, PROTO_STAGE_COMPILE, PROTO_STAGE_EXECUTE };

static double mono(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Close the stage being timed: its time goes into w->stages. */
static void stage_end(struct worker *w)
{
	double t = mono() - w->stage_start;

	if (*w->stage) {
		w->timed = 1;
		if (w->explain)
			buf_addf(&w->stages, "%s%s %.3fs", w->stages.len ? ", " : "", w->stage, t);
		for (size_t i = 0; i < 3; i++)
			if (!strncmp(w->stage, timed_stages[i], strlen(timed_stages[i])) &&
			    (!w->stage[strlen(timed_stages[i])] ||
			     !strcmp(w->stage + strlen(timed_stages[i]), PROTO_STAGE_MUTATED)))
				w->times[i] += t;
	}
	*w->stage = '\0';
}

/* Write one protocol event and flush it: the runner is waiting for it. The event starts on a line
 * of its own: a frontend that found the protocol stream and left a line unfinished on it must not
 * take the event down with its garbage (the runner ignores the empty line). */
static int send(struct worker *w, cJSON *ev, struct err *e)
{
	char *s = cJSON_PrintUnformatted(ev);
	int bad = fprintf(w->proto, "\n%s\n", s) < 0 || fflush(w->proto) != 0;

	cJSON_free(s);
	cJSON_Delete(ev);
	return bad ? err_errno(e, EXIT_ENV, "cannot write to the runner") : 0;
}

/* The end of the test's stderr (PROTO_STDERR_MARK), after what Python and C hold in their buffers.
 * A frontend that closed or replaced descriptor 2 loses it: the runner then reads stderr as it
 * comes. */
static void end_stderr(void)
{
	PyObject *err = PySys_GetObject("stderr"); /* borrowed */
	PyObject *r = err && err != Py_None ? PyObject_CallMethod(err, "flush", NULL) : NULL;

	Py_XDECREF(r);
	PyErr_Clear();
	fflush(stderr);
	if (write(STDERR_FILENO, PROTO_STDERR_MARK, sizeof(PROTO_STDERR_MARK) - 1) < 0)
		return;  /* nothing to tell it by */
}

static cJSON *event(const char *name)
{
	cJSON *ev = cJSON_CreateObject();

	cJSON_AddStringToObject(ev, PROTO_KEY_EVENT, name);
	return ev;
}

static void on_stage(void *ctx, const char *stage)
{
	struct worker *w = ctx;

	/* The end of the frontend's stages: what follows (reading the references, comparing) is
	 * ferry's time, and the test stays in its last stage for a timeout's message. */
	stage_end(w);
	if (!*stage)
		return;
	/* The frontend closed the protocol stream: no result can reach the runner, so go now, in the
	 * stage the test was last known to be in, rather than run on. */
	if (fcntl(fileno(w->proto), F_GETFD) < 0)
		_exit(EXIT_ENV);
	status_stage(&w->status, stage);
	snprintf(w->stage, sizeof(w->stage), "%s", stage);
	w->stage_start = mono();
}

/* A frontend's (or a library's) text as a result carries it: at most PROTO_TEXT_MAX bytes, its first
 * and last parts kept around a marker that says how much was cut (protocol.h). A frontend decides
 * the size of its messages, and a result line too long for the runner would lose the test. Each
 * part ends at a character boundary, so the text stays UTF-8. */
static void add_text(cJSON *obj, const char *key, const char *text)
{
	size_t n = strlen(text), head = PROTO_TEXT_MAX / 2 - 32, tail;
	struct buf b = BUF_INIT;
	char digits[32], sep[48];
	int nd, k = 0;

	if (n <= PROTO_TEXT_MAX) {
		cJSON_AddStringToObject(obj, key, text);
		return;
	}
	while (head && ((unsigned char)text[head] & 0xC0) == 0x80)
		head--;
	tail = n - (PROTO_TEXT_MAX / 2 - 32);
	while (tail < n && ((unsigned char)text[tail] & 0xC0) == 0x80)
		tail++;
	/* 99,993,123: a count a reader takes in at a glance */
	nd = snprintf(digits, sizeof(digits), "%zu", tail - head);
	for (int i = 0; i < nd; i++) {
		if (i && (nd - i) % 3 == 0)
			sep[k++] = ',';
		sep[k++] = digits[i];
	}
	sep[k] = '\0';
	buf_add(&b, text, head);
	buf_addf(&b, " [... %s bytes cut ...] ", sep);
	buf_add(&b, text + tail, n - tail);
	cJSON_AddStringToObject(obj, key, b.data);
	buf_release(&b);
}

/* The pending Python exception, as data for a result: "Type: message" and the traceback. */
static void exception_fields(cJSON *res)
{
	struct err pe = ERR_INIT;

	py_error(&pe, EXIT_ENV, "ferry's driver failed");
	add_text(res, PROTO_KEY_MESSAGE, pe.msg);
	if (pe.detail)
		add_text(res, PROTO_KEY_DETAIL, pe.detail);
	err_release(&pe);
}

/* --- run tasks: the oracles --------------------------------------------------------------------- */

struct view {
	Py_buffer buf;
	int held;
	int64_t shape[64], strides[64];
	struct array_view a;
};

static int view_get(PyObject *o, struct view *v, struct buf *why)
{
	struct err e = ERR_INIT;

	memset(v, 0, sizeof(*v));
	if (PyObject_GetBuffer(o, &v->buf, PyBUF_RECORDS_RO) < 0) {
		PyErr_Clear();
		buf_addf(why, "a %s is not an array", Py_TYPE(o)->tp_name);
		return -1;
	}
	v->held = 1;
	if (v->buf.ndim > 64) {
		buf_addf(why, "rank %d is beyond what ferry compares", v->buf.ndim);
		return -1;
	}
	if (compare_dtype_from_format(v->buf.format ? v->buf.format : "B", &v->a.dtype, &e) < 0) {
		buf_adds(why, e.msg);
		err_release(&e);
		return -1;
	}
	for (int i = 0; i < v->buf.ndim; i++) {
		v->shape[i] = v->buf.shape[i];
		v->strides[i] = v->buf.strides ? v->buf.strides[i] : 0;
	}
	v->a.rank = v->buf.ndim;
	v->a.shape = v->shape;
	v->a.strides = v->buf.strides ? v->strides : NULL;
	v->a.data = v->buf.buf;
	return 0;
}

static void view_release(struct view *v)
{
	if (v->held)
		PyBuffer_Release(&v->buf);
	v->held = 0;
}

/* The real dtype of output i from the driver's context (NULL when none is known). */
static const char *context_dtype(PyObject *ctx, Py_ssize_t i)
{
	PyObject *l = ctx && PyDict_Check(ctx) ? PyDict_GetItemString(ctx, "dtypes") : NULL; /* borrowed */
	PyObject *s = l && PyList_Check(l) && i < PyList_GET_SIZE(l) ? PyList_GET_ITEM(l, i) : NULL; /* borrowed */

	return s && PyUnicode_Check(s) ? PyUnicode_AsUTF8(s) : NULL;
}

/* Compare output i; an indices output of a tie operator (compare_tie_output) first has its ties with
 * the reference resolved against the data input. */
static int compare_output(PyObject *ctx, Py_ssize_t i, Py_ssize_t n, struct view *g, struct view *w,
			  const struct tolerance *tol, struct compare_result *r, struct err *e)
{
	PyObject *op = ctx && PyDict_Check(ctx) ? PyDict_GetItemString(ctx, "op") : NULL;     /* borrowed */
	PyObject *data = ctx && PyDict_Check(ctx) ? PyDict_GetItemString(ctx, "data") : NULL; /* borrowed */
	const char *real = context_dtype(ctx, i);
	enum dtype precision = w->a.dtype;
	struct err ignored = ERR_INIT;
	void *fixed = NULL;
	uint64_t untied = 0;
	int ret;

	if (real && compare_dtype_from_name(real, &precision, &ignored) < 0)
		precision = w->a.dtype; /* a dtype the C side has no name for: no ulp term */
	err_release(&ignored);
	if (op && PyUnicode_Check(op) && data && data != Py_None &&
	    compare_tie_output(PyUnicode_AsUTF8(op), (int)i, (int)n)) {
		struct view d;
		struct buf why = BUF_INIT;

		if (view_get(data, &d, &why) == 0 && compare_untie(&g->a, &w->a, &d.a, &fixed, &untied) == 1) {
			struct array_view f = g->a;

			f.strides = NULL;
			f.data = fixed;
			ret = compare_arrays_as(&f, &w->a, precision, tol, r, e);
			r->untied = untied;
			free(fixed);
			view_release(&d);
			buf_release(&why);
			return ret;
		}
		PyErr_Clear();
		view_release(&d);
		buf_release(&why);
	}
	return compare_arrays_as(&g->a, &w->a, precision, tol, r, e);
}

/* "output I: got DTYPE [SHAPE], reference DTYPE [SHAPE]\n" (numpy's names) into out. */
static void describe_pair(struct buf *out, Py_ssize_t i, PyObject *got, PyObject *want)
{
	PyObject *objs[2] = { got, want };

	buf_addf(out, "output %zd:", i);
	for (int k = 0; k < 2; k++) {
		PyObject *dtype = PyObject_GetAttrString(objs[k], "dtype"); /* new */
		PyObject *shape = PyObject_GetAttrString(objs[k], "shape"); /* new */
		char *d = dtype ? py_str(dtype) : xstrdup(Py_TYPE(objs[k])->tp_name);
		char *sh = shape ? py_str(shape) : xstrdup("?");

		PyErr_Clear();
		buf_addf(out, "%s %s %s", k ? ", reference" : " got", d, sh);
		free(d);
		free(sh);
		Py_XDECREF(dtype);
		Py_XDECREF(shape);
	}
	buf_addc(out, '\n');
}

/* Compare every output with its reference; fill res with the verdict, failure (mismatch, or for
 * the metamorphic oracle inconsistent) where they differ. ctx: the driver's context (driver.run), or
 * NULL. */
static void judge(cJSON *res, PyObject *outputs, PyObject *refs, PyObject *ctx, int random,
		  const struct tolerance *tol, enum outcome failure, int explain)
{
	Py_ssize_t n = PySequence_Size(outputs), m = PySequence_Size(refs);
	struct buf msg = BUF_INIT, detail = BUF_INIT, sides = BUF_INIT;
	double max_abs = 0;
	int failed = 0, compared = 0, errors = 0;

	if (n != m) {
		buf_addf(&msg, "the frontend gave %zd outputs, the reference has %zd", n, m);
		failed = 1;
		if (n > m)
			n = m;
	}
	for (Py_ssize_t i = 0; i < n; i++) {
		PyObject *got = PySequence_GetItem(outputs, i); /* new */
		PyObject *want = PySequence_GetItem(refs, i);   /* new */
		struct view g, w;
		struct compare_result r;
		struct err e = ERR_INIT;
		struct buf why = BUF_INIT;

		compare_result_init(&r);
		if (got && want && explain)
			describe_pair(&sides, i, got, want);
		if (!got || !want || view_get(got, &g, &why) < 0 || view_get(want, &w, &why) < 0 ||
		    compare_output(ctx, i, m, &g, &w, tol, &r, &e) < 0) {
			PyErr_Clear();
			buf_addf(&detail, "output %zd: cannot compare: %s%s\n", i, why.data, e.msg);
			errors++;
		} else {
			compared++;
			if (r.untied)
				buf_addf(&detail, "output %zd: %llu indices differ from the reference's at ties (equal"
					 " elements): accepted\n", i, (unsigned long long)r.untied);
			if (r.outcome == COMPARE_OK || (random && r.outcome == COMPARE_VALUE)) {
				if (!random && r.max_abs > max_abs)
					max_abs = r.max_abs;
			} else {
				struct buf d = BUF_INIT;

				compare_describe(&r, &d);
				if (!failed++)
					buf_addf(&msg, "output %zd: %s", i, d.data);
				buf_addf(&detail, "output %zd: %s\n", i, d.data);
				buf_release(&d);
				if (r.outcome == COMPARE_VALUE && !(r.max_abs <= max_abs))
					max_abs = r.max_abs;
			}
		}
		compare_result_release(&r);
		view_release(&g);
		view_release(&w);
		Py_XDECREF(got);
		Py_XDECREF(want);
		buf_release(&why);
		err_release(&e);
	}
	if (failed) {
		cJSON_AddStringToObject(res, PROTO_KEY_OUTCOME, outcome_name(failure));
		cJSON_AddStringToObject(res, PROTO_KEY_MESSAGE, msg.data);
	} else if (errors) {
		cJSON_AddStringToObject(res, PROTO_KEY_OUTCOME, outcome_name(OUTCOME_ERROR));
		cJSON_AddStringToObject(res, PROTO_KEY_MESSAGE, "ferry could not compare the outputs");
	} else {
		cJSON_AddStringToObject(res, PROTO_KEY_OUTCOME, outcome_name(OUTCOME_PASS));
	}
	if (detail.len)
		cJSON_AddStringToObject(res, PROTO_KEY_DETAIL, detail.data);
	if (explain) {
		buf_addf(&sides, "tolerance: atol %g, rtol %g%s", tol->atol, tol->rtol,
			 random ? " (a random operator: values not compared)" : "");
		cJSON_AddStringToObject(res, PROTO_KEY_COMPARED, sides.data);
	}
	buf_release(&sides);
	if (compared && !random)
		cJSON_AddNumberToObject(res, PROTO_KEY_MAX_ABS, isfinite(max_abs) ? max_abs : 1e308);
	buf_release(&msg);
	buf_release(&detail);
}

/* ("crash", stage, exc_type, message, traceback, frame): a crash, unless its message says that the
 * frontend does not support the usage; ("error", ...): ferry's own failure, whatever its message. */
static void crash(struct worker *w, cJSON *res, PyObject *t, int ferrys)
{
	const char *f[5] = { NULL, NULL, NULL, NULL, NULL };
	static const char *const keys[5] = { PROTO_KEY_STAGE, PROTO_KEY_EXC_TYPE, PROTO_KEY_MESSAGE, PROTO_KEY_DETAIL,
					     PROTO_KEY_FRAME };
	const struct classify_pattern *which = NULL;
	struct buf both = BUF_INIT;
	cJSON *cut = cJSON_CreateObject();
	bool unsupported;

	for (int i = 0; i < 5 && i + 1 < PyTuple_GET_SIZE(t); i++) {
		PyObject *o = PyTuple_GET_ITEM(t, i + 1); /* borrowed */

		f[i] = PyUnicode_Check(o) ? PyUnicode_AsUTF8(o) : NULL;
	}
	PyErr_Clear();
	/* Each cut first: the patterns judge the message as it is recorded. */
	for (int i = 0; i < 5; i++)
		if (f[i]) {
			add_text(cut, keys[i], f[i]);
			f[i] = cJSON_GetObjectItemCaseSensitive(cut, keys[i])->valuestring;
		}
	buf_addf(&both, "%s: %s", f[1] ? f[1] : "", f[2] ? f[2] : "");
	unsupported = !ferrys && classify_match(&w->unsupported, both.data, &which);
	cJSON_AddStringToObject(res, PROTO_KEY_OUTCOME, ferrys ? outcome_name(OUTCOME_ERROR)
				: unsupported ? outcome_name(OUTCOME_UNSUPPORTED) : outcome_name(OUTCOME_CRASH));
	if (unsupported && which) {
		char *where = xasprintf("%s:%d: %s", which->path, which->line, which->text);

		cJSON_AddStringToObject(res, PROTO_KEY_PATTERN, where);
		free(where);
	}
	for (int i = 0; i < 5; i++)
		if (f[i])
			cJSON_AddStringToObject(res, keys[i], f[i]);
	cJSON_Delete(cut);
	buf_release(&both);
}

/* The differential oracle (frontends against each other): keep this frontend's outputs where the
 * request says, and judge them against each other frontend's kept outputs of the test, with the
 * tolerance and the rules that judge them against the reference; into res's pairs. A set that
 * cannot be read (another frontend's run went wrong) is left out. */
static void differential(struct worker *w, const cJSON *req, cJSON *res, PyObject *outputs, PyObject *ctx,
			 int random, const struct tolerance *tol)
{
	const cJSON *save = cJSON_GetObjectItemCaseSensitive(req, PROTO_KEY_SAVE);
	const cJSON *against = cJSON_GetObjectItemCaseSensitive(req, PROTO_KEY_AGAINST), *a;
	cJSON *pairs = NULL;
	PyObject *r;

	if (cJSON_IsString(save)) {
		r = PyObject_CallMethod(w->driver, "save_outputs", "Os", outputs, save->valuestring); /* new */
		Py_XDECREF(r);
		PyErr_Clear();
	}
	cJSON_ArrayForEach(a, against) {
		const cJSON *fe = cJSON_GetObjectItemCaseSensitive(a, PROTO_KEY_FRONTEND);
		const cJSON *dir = cJSON_GetObjectItemCaseSensitive(a, PROTO_KEY_DIR);
		PyObject *theirs;
		cJSON *p;

		if (!cJSON_IsString(fe) || !cJSON_IsString(dir))
			continue;
		if (!(theirs = PyObject_CallMethod(w->driver, "load_outputs", "s", dir->valuestring))) { /* new */
			PyErr_Clear();
			continue;
		}
		p = cJSON_CreateObject();
		cJSON_AddStringToObject(p, PROTO_KEY_FRONTEND, fe->valuestring);
		judge(p, outputs, theirs, ctx, random, tol, OUTCOME_MISMATCH, 0);
		Py_DECREF(theirs);
		if (!pairs)
			pairs = cJSON_AddArrayToObject(res, PROTO_KEY_PAIRS);
		cJSON_AddItemToArray(pairs, p);
	}
}

/* The tolerance of a run or reduce request. */
static struct tolerance request_tolerance(const cJSON *req)
{
	const cJSON *atol = cJSON_GetObjectItemCaseSensitive(req, PROTO_KEY_ATOL);
	const cJSON *rtol = cJSON_GetObjectItemCaseSensitive(req, PROTO_KEY_RTOL);
	struct tolerance tol = TOLERANCE_DEFAULT;

	if (cJSON_IsNumber(atol))
		tol.atol = atol->valuedouble;
	if (cJSON_IsNumber(rtol))
		tol.rtol = rtol->valuedouble;
	return tol;
}

/* --- the metamorphic oracle (oracle/metamorphic_run.py) ----------------------------------------- */

/* ferry.oracle.metamorphic_run.FUNC for req: run(adapter, dir, k, seed) -> (verdict, info), whose
 * verdict is returned (new) and info put in *info (new); reduce(adapter, dir, k, seed, seconds,
 * atol, rtol, random) -> JSON text, returned (new). NULL with the exception pending on failure. */
static PyObject *metamorphic_call(struct worker *w, const cJSON *req, const char *func, PyObject **info)
{
	const cJSON *dir = cJSON_GetObjectItemCaseSensitive(req, PROTO_KEY_DIR);
	const cJSON *k = cJSON_GetObjectItemCaseSensitive(req, PROTO_KEY_MUTATIONS);
	const cJSON *seed = cJSON_GetObjectItemCaseSensitive(req, PROTO_KEY_SEED);
	const cJSON *seconds = cJSON_GetObjectItemCaseSensitive(req, PROTO_KEY_SECONDS);
	struct tolerance tol = request_tolerance(req);
	PyObject *r, *v;

	if (!w->metamorphic && !(w->metamorphic = PyImport_ImportModule("ferry.oracle.metamorphic_run"))) /* new */
		return NULL;
	if (!strcmp(func, "reduce"))
		return PyObject_CallMethod(w->metamorphic, "reduce", "OsiLdddi", w->adapter, dir->valuestring,
					   cJSON_IsNumber(k) ? k->valueint : 3,
					   (long long)(cJSON_IsNumber(seed) ? seed->valuedouble : 0),
					   cJSON_IsNumber(seconds) ? seconds->valuedouble : 30.0, tol.atol, tol.rtol,
					   cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(req, PROTO_KEY_RANDOM)));
	r = PyObject_CallMethod(w->metamorphic, "run", "OsiL", w->adapter, dir->valuestring,
				cJSON_IsNumber(k) ? k->valueint : 3,
				(long long)(cJSON_IsNumber(seed) ? seed->valuedouble : 0)); /* new */
	if (!r)
		return NULL;
	if (!PyTuple_Check(r) || PyTuple_GET_SIZE(r) != 2) {
		Py_DECREF(r);
		PyErr_SetString(PyExc_TypeError, "metamorphic_run.run() returned no (verdict, info)");
		return NULL;
	}
	v = PyTuple_GET_ITEM(r, 0); /* borrowed */
	*info = PyTuple_GET_ITEM(r, 1);
	Py_INCREF(v);
	Py_INCREF(*info);
	Py_DECREF(r);
	return v;
}

/* A string of info (borrowed; NULL where it has none). */
static const char *info_str(PyObject *info, const char *key)
{
	PyObject *v = PyDict_Check(info) ? PyDict_GetItemString(info, key) : NULL; /* borrowed */

	return v && PyUnicode_Check(v) ? PyUnicode_AsUTF8(v) : NULL;
}

/* The mutation's account in the result: the chain, its stats, the node counts, and a note where
 * nothing was mutated. Returns whether the verdict is the mutated model's. */
static int mutation_fields(cJSON *res, PyObject *info)
{
	static const char *const counts[] = { "nodes", PROTO_KEY_NODES, "original_nodes", PROTO_KEY_ORIGINAL_NODES };
	PyObject *m;

	if (info_str(info, "chain"))
		cJSON_AddStringToObject(res, PROTO_KEY_CHAIN, info_str(info, "chain"));
	if (info_str(info, "stats"))
		cJSON_AddStringToObject(res, PROTO_KEY_MUTATION_STATS, info_str(info, "stats"));
	for (size_t i = 0; i < sizeof(counts) / sizeof(*counts); i += 2) {
		PyObject *n = PyDict_Check(info) ? PyDict_GetItemString(info, counts[i]) : NULL; /* borrowed */

		if (n && PyLong_Check(n))
			cJSON_AddNumberToObject(res, counts[i + 1], (double)PyLong_AsLong(n));
	}
	PyErr_Clear();
	m = PyDict_Check(info) ? PyDict_GetItemString(info, "mutated") : NULL; /* borrowed */
	return m && PyObject_IsTrue(m) == 1;
}

/* After the verdict: a pass that mutated nothing says why; an inconsistency names the mutation
 * that groups it (kind:target_op, in the frame), until its reduction names the minimal one. */
static void mutation_frame(cJSON *res, PyObject *info)
{
	const cJSON *o = cJSON_GetObjectItemCaseSensitive(res, PROTO_KEY_OUTCOME);

	if (!cJSON_IsString(o))
		return;
	if (!strcmp(o->valuestring, outcome_name(OUTCOME_PASS)) && info_str(info, "note") &&
	    !cJSON_GetObjectItemCaseSensitive(res, PROTO_KEY_MESSAGE))
		cJSON_AddStringToObject(res, PROTO_KEY_MESSAGE, info_str(info, "note"));
	if (!strcmp(o->valuestring, outcome_name(OUTCOME_INCONSISTENT)) && info_str(info, "frame"))
		cJSON_AddStringToObject(res, PROTO_KEY_FRAME, info_str(info, "frame"));
}

/* Reduce a test's inconsistency: the reduced pair in res (PROTO_KEY_REDUCED, an object). */
static void reduce_task(struct worker *w, const cJSON *req, cJSON *res)
{
	const cJSON *dir = cJSON_GetObjectItemCaseSensitive(req, PROTO_KEY_DIR);
	PyObject *t;
	cJSON *reduced = NULL;

	if (!cJSON_IsString(dir)) {
		cJSON_AddStringToObject(res, PROTO_KEY_OUTCOME, outcome_name(OUTCOME_ERROR));
		cJSON_AddStringToObject(res, PROTO_KEY_MESSAGE, "the request names no test directory");
		return;
	}
	t = metamorphic_call(w, req, "reduce", NULL); /* new */
	if (t && PyUnicode_Check(t))
		reduced = cJSON_Parse(PyUnicode_AsUTF8(t));
	if (reduced) {
		cJSON_AddItemToObject(res, PROTO_KEY_REDUCED, reduced);
	} else {
		cJSON_AddStringToObject(res, PROTO_KEY_OUTCOME, outcome_name(OUTCOME_ERROR));
		if (PyErr_Occurred())
			exception_fields(res);
		else
			cJSON_AddStringToObject(res, PROTO_KEY_MESSAGE, "the reduction returned nothing");
	}
	PyErr_Clear();
	Py_XDECREF(t);
}

/* _ferry.agree(outputs, refs, context, atol, rtol, random): the value oracle of a run, for the
 * reduction's candidates. */
static PyObject *on_agree(void *ctx, PyObject *args)
{
	PyObject *outputs, *refs, *context, *r;
	struct tolerance tol;
	int random;
	cJSON *res = cJSON_CreateObject();
	const cJSON *o, *m;

	(void)ctx;
	if (!PyArg_ParseTuple(args, "OOOddp:agree", &outputs, &refs, &context, &tol.atol, &tol.rtol, &random)) {
		cJSON_Delete(res);
		return NULL;
	}
	judge(res, outputs, refs, context == Py_None ? NULL : context, random, &tol, OUTCOME_INCONSISTENT, 0);
	o = cJSON_GetObjectItemCaseSensitive(res, PROTO_KEY_OUTCOME);
	m = cJSON_GetObjectItemCaseSensitive(res, PROTO_KEY_MESSAGE);
	r = Py_BuildValue("(Os)", !cJSON_IsString(o) || !strcmp(o->valuestring, outcome_name(OUTCOME_ERROR)) ? Py_None
			  : !strcmp(o->valuestring, outcome_name(OUTCOME_PASS)) ? Py_True : Py_False,
			  cJSON_IsString(m) ? m->valuestring : ""); /* new */
	cJSON_Delete(res);
	return r;
}

/* Fill res from a driver's verdict t (a new reference, NULL on an exception; released here):
 * failure is the outcome of outputs that differ (mismatch; inconsistent for the metamorphic
 * oracle). A crash of the mutated model (mutated) says so in its message, after the unsupported
 * patterns have judged the frontend's own message. */
static void verdict(struct worker *w, const cJSON *req, cJSON *res, PyObject *t, enum outcome failure, int mutated)
{
	struct tolerance tol = request_tolerance(req);
	PyObject *kind;

	if (!t || !PyTuple_Check(t) || PyTuple_GET_SIZE(t) < 1) {
		cJSON_AddStringToObject(res, PROTO_KEY_OUTCOME, outcome_name(OUTCOME_ERROR));
		if (PyErr_Occurred())
			exception_fields(res);
		else
			cJSON_AddStringToObject(res, PROTO_KEY_MESSAGE, "ferry's driver returned no verdict");
		Py_XDECREF(t);
		return;
	}
	kind = PyTuple_GET_ITEM(t, 0); /* borrowed */
	if (PyUnicode_Check(kind) && !PyUnicode_CompareWithASCIIString(kind, PROTO_VERDICT_OK)
	    && (PyTuple_GET_SIZE(t) == 3 || PyTuple_GET_SIZE(t) == 4)) {
		PyObject *ctx = PyTuple_GET_SIZE(t) == 4 ? PyTuple_GET_ITEM(t, 3) : NULL; /* borrowed */
		int random = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(req, PROTO_KEY_RANDOM));

		judge(res, PyTuple_GET_ITEM(t, 1), PyTuple_GET_ITEM(t, 2), ctx, random, &tol, failure, w->explain);
		differential(w, req, res, PyTuple_GET_ITEM(t, 1), ctx, random, &tol);
	} else if (PyUnicode_Check(kind) && !PyUnicode_CompareWithASCIIString(kind, PROTO_VERDICT_UNAVAILABLE)) {
		/* Not this test's result: the frontend cannot take the format (the runner stops it). */
		char *why = PyTuple_GET_SIZE(t) > 1 ? py_str(PyTuple_GET_ITEM(t, 1)) : xstrdup("?");

		cJSON_AddStringToObject(res, PROTO_KEY_OUTCOME, outcome_name(OUTCOME_ERROR));
		add_text(res, PROTO_KEY_UNAVAILABLE, why);
		add_text(res, PROTO_KEY_MESSAGE, why);
		free(why);
	} else if (PyUnicode_Check(kind) && !PyUnicode_CompareWithASCIIString(kind, PROTO_VERDICT_MISMATCH)) {
		/* Outputs that cannot even be put beside the references (count, sequence length). */
		char *msg = PyTuple_GET_SIZE(t) > 1 ? py_str(PyTuple_GET_ITEM(t, 1)) : xstrdup("?");

		cJSON_AddStringToObject(res, PROTO_KEY_OUTCOME, outcome_name(failure));
		add_text(res, PROTO_KEY_MESSAGE, msg);
		free(msg);
	} else {
		crash(w, res, t, PyUnicode_Check(kind) && !PyUnicode_CompareWithASCIIString(kind, PROTO_VERDICT_ERROR));
		if (mutated) {
			const cJSON *m = cJSON_GetObjectItemCaseSensitive(res, PROTO_KEY_MESSAGE);
			char *text = xasprintf("the mutated model (m'), not the original: %s",
					       cJSON_IsString(m) ? m->valuestring : "");

			cJSON_DeleteItemFromObjectCaseSensitive(res, PROTO_KEY_MESSAGE);
			cJSON_AddStringToObject(res, PROTO_KEY_MESSAGE, text);
			free(text);
		}
	}
	Py_DECREF(t);
}

/* The stages' times so far into obj (PROTO_KEY_TIMES), each divided by share: a batch's tests
 * each take their part of the batch's time. */
static void add_times(struct worker *w, cJSON *obj, double share)
{
	cJSON *times = cJSON_AddObjectToObject(obj, PROTO_KEY_TIMES);

	for (size_t i = 0; i < 3; i++)
		cJSON_AddNumberToObject(times, timed_stages[i], w->times[i] / share);
	/* The worker's own clock: how long it waited for this request, and how long it had the test
	 * (the result's writing aside). */
	cJSON_AddNumberToObject(times, PROTO_TIME_WAIT, (w->read_at - w->idle_from) / share);
	cJSON_AddNumberToObject(times, PROTO_TIME_WORKER, (mono() - w->read_at) / share);
}

/* A batch (protocol.h): ferry.oracle.batch.run_batch runs the tests as one model. Each test's
 * verdict, judged as a test's alone, goes into res's batch array; a batch that failed as a whole
 * (a stage of the merged model, or the driver itself) has its failure in res as a test's would,
 * and no array: the runner's side splits it. An adapter that does not declare BATCH = True takes
 * no batch: its failure says so. */
static void batch_task(struct worker *w, const cJSON *req, cJSON *res, const cJSON *items)
{
	int n = cJSON_GetArraySize(items), i = 0;
	PyObject *dirs = PyList_New(0), *t = NULL, *flag; /* new */
	const cJSON *item;
	cJSON *out;

	flag = PyObject_GetAttrString(w->adapter, "BATCH"); /* new */
	PyErr_Clear();
	if (flag != Py_True) {
		Py_XDECREF(flag);
		Py_XDECREF(dirs);
		cJSON_AddStringToObject(res, PROTO_KEY_OUTCOME, outcome_name(OUTCOME_ERROR));
		cJSON_AddStringToObject(res, PROTO_KEY_MESSAGE,
					"the adapter takes no batch (it declares no BATCH = True)");
		return;
	}
	Py_DECREF(flag);
	cJSON_ArrayForEach(item, items) {
		const cJSON *dir = cJSON_GetObjectItemCaseSensitive(item, PROTO_KEY_DIR);
		PyObject *d = cJSON_IsString(dir) ? PyUnicode_FromString(dir->valuestring) : NULL; /* new */

		if (!d || !dirs || PyList_Append(dirs, d) < 0) {
			Py_XDECREF(d);
			goto failed;
		}
		Py_DECREF(d);
	}
	if (!w->batch && !(w->batch = PyImport_ImportModule("ferry.oracle.batch"))) /* new */
		goto failed;
	t = PyObject_CallMethod(w->batch, "run_batch", "OO", w->adapter, dirs); /* new */
	stage_end(w);
	if (t && PyList_Check(t) && PyList_GET_SIZE(t) == n) {
		out = cJSON_AddArrayToObject(res, PROTO_KEY_BATCH);
		cJSON_ArrayForEach(item, items) {
			cJSON *one = cJSON_CreateObject();
			PyObject *v = PyList_GET_ITEM(t, i++); /* borrowed */
			const cJSON *id = cJSON_GetObjectItemCaseSensitive(item, PROTO_KEY_ID);

			if (cJSON_IsString(id))
				cJSON_AddStringToObject(one, PROTO_KEY_ID, id->valuestring);
			if (w->timed)
				add_times(w, one, n);
			Py_INCREF(v);
			verdict(w, item, one, v, OUTCOME_MISMATCH, 0);
			cJSON_AddItemToArray(out, one);
		}
		Py_DECREF(t);
		Py_DECREF(dirs);
		return;
	}
	if (t && PyList_Check(t)) {
		Py_CLEAR(t);
		PyErr_SetString(PyExc_RuntimeError, "ferry's batch gave another number of verdicts than it has tests");
	}
failed:
	Py_XDECREF(dirs);
	verdict(w, req, res, t, OUTCOME_MISMATCH, 0);
}

static void run_task(struct worker *w, const cJSON *req, cJSON *res)
{
	const cJSON *dir = cJSON_GetObjectItemCaseSensitive(req, PROTO_KEY_DIR);
	const cJSON *oracle = cJSON_GetObjectItemCaseSensitive(req, PROTO_KEY_ORACLE);
	int metamorphic = cJSON_IsString(oracle) && !strcmp(oracle->valuestring, PROTO_ORACLE_METAMORPHIC);
	PyObject *t, *info = NULL;
	const cJSON *items = cJSON_GetObjectItemCaseSensitive(req, PROTO_KEY_BATCH);
	int mutated = 0;

	if (cJSON_IsArray(items) && !metamorphic) {
		buf_reset(&w->stages);
		*w->stage = '\0';
		memset(w->times, 0, sizeof(w->times));
		w->explain = 0;
		w->timed = 0;
		batch_task(w, req, res, items);
		return;
	}
	if (!cJSON_IsString(dir)) {
		cJSON_AddStringToObject(res, PROTO_KEY_OUTCOME, outcome_name(OUTCOME_ERROR));
		cJSON_AddStringToObject(res, PROTO_KEY_MESSAGE, "the request names no test directory");
		return;
	}
	buf_reset(&w->stages);
	*w->stage = '\0';
	memset(w->times, 0, sizeof(w->times));
	w->explain = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(req, PROTO_KEY_EXPLAIN));
	w->timed = 0;
	if (metamorphic)
		t = metamorphic_call(w, req, "run", &info); /* new */
	else
		t = PyObject_CallMethod(w->driver, "run", "Os", w->adapter, dir->valuestring); /* new */
	stage_end(w);
	if (w->timed) {
		if (w->explain)
			cJSON_AddStringToObject(res, PROTO_KEY_STAGES, w->stages.data);
		add_times(w, res, 1);
	}
	if (info)
		mutated = mutation_fields(res, info);
	verdict(w, req, res, t, metamorphic ? OUTCOME_INCONSISTENT : OUTCOME_MISMATCH, mutated);
	if (info)
		mutation_frame(res, info);
	Py_XDECREF(info);
}

/* --- wrap tasks --------------------------------------------------------------------------------- */

static PyObject *template_for(struct worker *w, const char *library, struct err *e)
{
	PyObject *m = PyDict_GetItemString(w->templates, library); /* borrowed */
	char name[80];

	if (m)
		return m;
	if (py_template_module(library, name, sizeof(name), e) < 0 || !(m = py_import(name, e))) /* new */
		return NULL;
	PyDict_SetItemString(w->templates, library, m);
	Py_DECREF(m);
	return m;
}

/* With a template's exception pending: when ferry.templates.environment() says the machine failed
 * (a full disk, an I/O error) rather than the instance, res becomes status "error" with that reason,
 * which records nothing for the instance (so that it is tried again), the exception is cleared and
 * 1 returned; else 0, the exception still pending. */
static int environment_failure(cJSON *res)
{
	PyObject *type, *value, *tb, *m = NULL, *why = NULL;
	int env = 0;

	PyErr_Fetch(&type, &value, &tb);
	PyErr_NormalizeException(&type, &value, &tb);
	if (value && (m = PyImport_ImportModule("ferry.templates"))) /* new */
		why = PyObject_CallMethod(m, "environment", "O", value); /* new */
	if (why && PyUnicode_Check(why)) {
		PyObject *refused = PyObject_CallMethod(m, "refusal", "O", value); /* new */

		cJSON_AddStringToObject(res, PROTO_KEY_STATUS, "error");
		cJSON_AddStringToObject(res, PROTO_KEY_REASON, PyUnicode_AsUTF8(why));
		/* A link planted in ferry's own directory: bad input, not a failing machine. */
		if (refused == Py_True)
			cJSON_AddNumberToObject(res, PROTO_KEY_CODE, EXIT_INPUT);
		Py_XDECREF(refused);
		env = 1;
	}
	Py_XDECREF(why);
	Py_XDECREF(m);
	PyErr_Clear();
	if (env) {
		Py_XDECREF(type);
		Py_XDECREF(value);
		Py_XDECREF(tb);
	} else {
		PyErr_Restore(type, value, tb);
	}
	return env;
}

/* A template's wrap() or validate() that raised (or a template that could not be had, e saying
 * why): the instance is invalid, the exception's text its reason. e is released. */
static void template_failed(cJSON *res, struct err *e)
{
	cJSON_AddStringToObject(res, PROTO_KEY_STATUS, "invalid");
	if (PyErr_Occurred()) {
		py_error(e, EXIT_ENV, "the template failed");
		add_text(res, PROTO_KEY_DETAIL, e->detail ? e->detail : "");
	}
	cJSON_AddStringToObject(res, PROTO_KEY_REASON, e->msg);
	err_release(e);
}

/* The status and reason of a template's answer d (a dict; anything else is invalid). */
static void template_answer(cJSON *res, PyObject *d)
{
	PyObject *v = PyDict_Check(d) ? PyDict_GetItemString(d, "status") : NULL; /* borrowed */

	cJSON_AddStringToObject(res, PROTO_KEY_STATUS, v && PyUnicode_Check(v) ? PyUnicode_AsUTF8(v) : "invalid");
	v = PyDict_Check(d) ? PyDict_GetItemString(d, "reason") : NULL; /* borrowed */
	if (v && PyUnicode_Check(v))
		add_text(res, PROTO_KEY_REASON, PyUnicode_AsUTF8(v));
}

static void wrap_task(struct worker *w, const cJSON *req, cJSON *res)
{
	const cJSON *lib = cJSON_GetObjectItemCaseSensitive(req, PROTO_KEY_LIBRARY);
	const cJSON *rec = cJSON_GetObjectItemCaseSensitive(req, PROTO_KEY_RECORD);
	const cJSON *dir = cJSON_GetObjectItemCaseSensitive(req, PROTO_KEY_DIR);
	struct err e = ERR_INIT;
	PyObject *tmpl, *d = NULL, *v;
	int fd = -1;

	if (!cJSON_IsString(lib) || !cJSON_IsString(rec) || !cJSON_IsString(dir)) {
		cJSON_AddStringToObject(res, PROTO_KEY_STATUS, "invalid");
		cJSON_AddStringToObject(res, PROTO_KEY_REASON, "the request lacks library, record or dir");
		return;
	}
	if (!(tmpl = template_for(w, lib->valuestring, &e))) {
		cJSON_AddStringToObject(res, PROTO_KEY_STATUS, "invalid");
		cJSON_AddStringToObject(res, PROTO_KEY_REASON, e.msg);
		err_release(&e);
		return;
	}
	/* WRAP/tests/XX/ID: the three are ferry's, no link planted there followed (fsutil.h); failing to
	 * make them is never the instance's fault. */
	if ((fd = fs_dir_beneath(dir->valuestring, 3, 1, &e)) < 0) {
		cJSON_AddStringToObject(res, PROTO_KEY_STATUS, "error");
		cJSON_AddStringToObject(res, PROTO_KEY_REASON, e.msg);
		cJSON_AddNumberToObject(res, PROTO_KEY_CODE, e.code);
		err_release(&e);
		return;
	}
	close(fd);
	if (!(d = PyObject_CallMethod(tmpl, "wrap", "ss", rec->valuestring, dir->valuestring))) { /* new */
		if (!environment_failure(res))
			template_failed(res, &e);
		return;
	}
	template_answer(res, d);
	v = PyDict_Check(d) ? PyDict_GetItemString(d, "random") : NULL;
	cJSON_AddBoolToObject(res, PROTO_KEY_RANDOM, v && PyObject_IsTrue(v) == 1);
	v = PyDict_Check(d) ? PyDict_GetItemString(d, "undefined") : NULL;
	if (v && PyUnicode_Check(v))
		cJSON_AddStringToObject(res, PROTO_KEY_UNDEFINED, PyUnicode_AsUTF8(v));
	v = PyDict_Check(d) ? PyDict_GetItemString(d, PROTO_KEY_UNDEFINED_VALUES) : NULL;
	if (v && PyObject_IsTrue(v) == 1)
		cJSON_AddTrueToObject(res, PROTO_KEY_UNDEFINED_VALUES);
	PyErr_Clear();
	Py_DECREF(d);
}

/* ferry vary's candidate: the template's validate(record) runs the library's reference run only
 * and returns {status, reason, outputs (JSON text), undefined}; the outputs go back parsed. */
static void validate_task(struct worker *w, const cJSON *req, cJSON *res)
{
	const cJSON *lib = cJSON_GetObjectItemCaseSensitive(req, PROTO_KEY_LIBRARY);
	const cJSON *rec = cJSON_GetObjectItemCaseSensitive(req, PROTO_KEY_RECORD);
	struct err e = ERR_INIT;
	PyObject *tmpl, *d, *v;
	cJSON *outputs;

	if (!cJSON_IsString(lib) || !cJSON_IsString(rec)) {
		cJSON_AddStringToObject(res, PROTO_KEY_STATUS, "invalid");
		cJSON_AddStringToObject(res, PROTO_KEY_REASON, "the request lacks library or record");
		return;
	}
	/* A template without validate() cannot judge any candidate: not the candidate's fault. */
	if ((tmpl = template_for(w, lib->valuestring, &e)) && !PyObject_HasAttrString(tmpl, "validate")) {
		cJSON_AddStringToObject(res, PROTO_KEY_STATUS, "error");
		cJSON_AddStringToObject(res, PROTO_KEY_REASON, "the template has no validate()");
		return;
	}
	if (!tmpl || !(d = PyObject_CallMethod(tmpl, "validate", "s", rec->valuestring))) { /* new */
		if (!tmpl || !environment_failure(res))
			template_failed(res, &e);
		return;
	}
	template_answer(res, d);
	v = PyDict_Check(d) ? PyDict_GetItemString(d, "outputs") : NULL; /* borrowed */
	if (v && PyUnicode_Check(v) && (outputs = cJSON_Parse(PyUnicode_AsUTF8(v))))
		cJSON_AddItemToObject(res, PROTO_KEY_OUTPUTS, outputs);
	v = PyDict_Check(d) ? PyDict_GetItemString(d, "undefined") : NULL; /* borrowed */
	if (v && PyUnicode_Check(v))
		cJSON_AddStringToObject(res, PROTO_KEY_UNDEFINED, PyUnicode_AsUTF8(v));
	PyErr_Clear();
	Py_DECREF(d);
}

/* --- start-up and the loop ---------------------------------------------------------------------- */

static int start(struct worker *w, const char *frontend, char **version, struct err *e)
{
	PyObject *v;

	if (!frontend) {
		w->templates = PyDict_New(); /* new */
		*version = xstrdup(PY_VERSION);
		return w->templates ? 0 : py_error(e, EXIT_ENV, "cannot start");
	}
	if (!(w->driver = py_import("ferry.oracle.driver", e)))
		return -1;
	if (!(w->adapter = PyObject_CallMethod(w->driver, "load_adapter", "s", frontend))) { /* new */
		char what[128];

		snprintf(what, sizeof(what), "cannot load the frontend '%s'", frontend);
		return py_error(e, EXIT_ENV, what);
	}
	v = PyObject_CallMethod(w->adapter, "version", NULL); /* new */
	*version = v ? py_str(v) : xstrdup("?");
	PyErr_Clear();
	Py_XDECREF(v);
	/* The frontend's "unsupported" patterns: ferry's own, and those beside an adapter of the user's. */
	return classify_load_frontend(&w->unsupported, frontend, e);
}

int worker_serve(const char *frontend, struct err *e)
{
	struct worker w;
	struct py_hooks hooks;
	char *line = NULL, *version = NULL;
	size_t cap = 0;
	ssize_t n;
	int fd, r = -1;
	cJSON *ev;

	memset(&w, 0, sizeof(w));
	buf_init(&w.stages);
	classify_init(&w.unsupported);
	if (status_attach(&w.status, e) < 0)
		return -1;
	if ((fd = dup(STDOUT_FILENO)) < 0 || dup2(STDERR_FILENO, STDOUT_FILENO) < 0 || !(w.proto = fdopen(fd, "w")))
		return err_errno(e, EXIT_ENV, "cannot set up the protocol stream");
	memset(&hooks, 0, sizeof(hooks));
	hooks.ctx = &w;
	hooks.stage = on_stage;
	hooks.agree = on_agree;
	py_set_hooks(&hooks);

	if (start(&w, frontend, &version, e) < 0) {
		ev = event(PROTO_EVENT_FATAL);
		cJSON_AddStringToObject(ev, PROTO_KEY_MESSAGE, e->msg);
		if (e->detail)
			fputs(e->detail, stderr);
		send(&w, ev, e);
		goto out;
	}
	ev = event(PROTO_EVENT_READY);
	cJSON_AddStringToObject(ev, PROTO_KEY_VERSION, version);
	if (send(&w, ev, e) < 0)
		goto out;
	w.idle_from = mono();

	while ((n = getline(&line, &cap, stdin)) > 0) {
		cJSON *req, *res;
		const cJSON *task, *id;

		w.read_at = mono();
		/* First of all: the runner hands a test that the worker ends before this to another
		 * worker, instead of blaming the test for a death between tests. */
		status_take(&w.status, ++w.taken);
		req = cJSON_Parse(line);
		task = req ? cJSON_GetObjectItemCaseSensitive(req, PROTO_KEY_TASK) : NULL;
		id = req ? cJSON_GetObjectItemCaseSensitive(req, PROTO_KEY_ID) : NULL;
		res = event(PROTO_EVENT_RESULT);

		if (cJSON_IsString(id))
			cJSON_AddStringToObject(res, PROTO_KEY_ID, id->valuestring);
		if (cJSON_IsString(task) && !strcmp(task->valuestring, PROTO_TASK_RUN) && w.adapter) {
			run_task(&w, req, res);
		} else if (cJSON_IsString(task) && !strcmp(task->valuestring, PROTO_TASK_REDUCE) && w.adapter) {
			reduce_task(&w, req, res);
		} else if (cJSON_IsString(task) && !strcmp(task->valuestring, PROTO_TASK_WRAP) && w.templates) {
			wrap_task(&w, req, res);
		} else if (cJSON_IsString(task) && !strcmp(task->valuestring, PROTO_TASK_VALIDATE) && w.templates) {
			validate_task(&w, req, res);
		} else {
			cJSON_AddStringToObject(res, PROTO_KEY_OUTCOME, outcome_name(OUTCOME_ERROR));
			cJSON_AddStringToObject(res, PROTO_KEY_MESSAGE, "a request this worker cannot serve");
		}
		cJSON_Delete(req);
		end_stderr();
		if (send(&w, res, e) < 0)
			goto out;
		w.idle_from = mono();
	}
	r = 0;
out:
	py_set_hooks(NULL);
	free(line);
	free(version);
	classify_release(&w.unsupported);
	status_release(&w.status);
	buf_release(&w.stages);
	Py_XDECREF(w.adapter);
	Py_XDECREF(w.driver);
	Py_XDECREF(w.templates);
	Py_XDECREF(w.metamorphic);
	Py_XDECREF(w.batch);
	if (w.proto)
		fclose(w.proto);
	return r;
}
