/* releases.c: ferry bisect's engine (releases.h). */
#define _GNU_SOURCE
#include "releases.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "bisect.h"
#include "buf.h"
#include "db.h"
#include "esc.h"
#include "fsutil.h"
#include "home.h"
#include "proc.h"
#include "xalloc.h"

struct release {
	char *version, *numpy, *note;  /* numpy: of its day (as listed), then as installed */
	char *python;                  /* its interpreter, once made (or given by --venvs) */
	char *label;                   /* where its results are: NAME@VERSION */
	struct bisect_judgement j;
	int judged, ran;               /* judged from the store / run (or installed) by this call */
};

struct bisect {
	const struct releases_opts *o;
	struct db db;
	struct bisect_bug bug;
	char *package, *first, *last, *pydir, *tmp;
	struct release *r;
	size_t n;
	long runs;                     /* releases this call installed or ran */
	int bounded;                   /* --max-releases was reached */
};

static volatile sig_atomic_t interrupted;

static void on_signal(int sig)
{
	(void)sig;
	interrupted = 1;
}

int releases_parse_spec(const char *spec, char **package, char **first, char **last, struct err *e)
{
	const char *eq = strstr(spec, "=="), *v, *dots;
	size_t good = strspn(spec, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_.");

	if (!eq || eq == spec || (size_t)(eq - spec) != good)
		return err_set(e, EXIT_USAGE, "bad --releases '%s': expected PACKAGE==FIRST..[LAST], e.g. "
			       "openvino==2023.0.0..", spec);
	v = eq + 2;
	dots = strstr(v, "..");
	if (strspn(v, "0123456789.abcdefghijklmnopqrstuvwxyz+") != strlen(v) || (!dots && !*v) ||
	    (dots && (strstr(dots + 2, "..") || (dots == v && !dots[2]))))
		return err_set(e, EXIT_USAGE, "bad --releases '%s': expected PACKAGE==FIRST..[LAST], e.g. "
			       "openvino==2023.0.0..", spec);
	*package = xstrndup(spec, (size_t)(eq - spec));
	*first = dots ? xstrndup(v, (size_t)(dots - v)) : xstrdup(v);
	*last = xstrdup(dots ? dots + 2 : v);
	return 0;
}

static void say(const struct bisect *b, int warn, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void say(const struct bisect *b, int warn, const char *fmt, ...)
{
	struct buf line = BUF_INIT;
	va_list ap;
	void (*fn)(void *, const char *) = warn ? b->o->warn : b->o->note;

	va_start(ap, fmt);
	buf_vaddf(&line, fmt, ap);
	va_end(ap);
	if (fn)
		fn(b->o->ctx, line.data);
	buf_release(&line);
}

/* Run argv to its end, Ctrl-C ending it (SIGTERM to its group, so a ferry run stops cleanly and
 * keeps what it finished). stdout into out (NULL: /dev/null), stderr into errpath (NULL: ours).
 * *code its exit status. EXIT_INTERRUPTED on Ctrl-C. */
static int run_child(const char *const *argv, const char *const *env, struct buf *out, const char *errpath,
		     int *code, struct err *e)
{
	struct child_process cp = PROC_INIT;
	struct proc_status st;
	struct proc_capture cap = PROC_CAPTURE_INIT(16 << 20);
	int r = -1;

	cp.argv = argv;
	cp.env = env;
	cp.in = PROC_NULL;
	cp.out = out ? PROC_PIPE : PROC_NULL;
	cp.err = errpath ? PROC_FILE : PROC_INHERIT;
	cp.err_path = errpath;
	if (proc_start(&cp, e) < 0)
		goto out;
	for (;;) {
		int done;

		if (interrupted) {
			proc_kill(&cp, 30000, &st, e);
			err_set(e, EXIT_INTERRUPTED, "interrupted");
			goto out;
		}
		if (out && !cap.eof && proc_capture_read(&cap, cp.fd_out, e) < 0)
			goto out;
		if ((done = proc_try_wait(&cp, &st, e)) < 0)
			goto out;
		if (done && (!out || cap.eof))
			break;
		if (done && out) {
			while (!cap.eof && proc_capture_read(&cap, cp.fd_out, e) == 0 && !cap.eof)
				;
			break;
		}
		usleep(50 * 1000);
	}
	if (out)
		buf_adds(out, cap.buf.data ? cap.buf.data : "");
	*code = st.code;
	r = 0;
out:
	proc_capture_release(&cap);
	proc_release(&cp);
	return r;
}

/* The helper's one-line message from its stderr file. */
static char *helper_error(const char *path)
{
	struct buf text = BUF_INIT;
	struct err ignored = ERR_INIT;
	char *s;

	fs_read(path, &text, &ignored);
	err_release(&ignored);
	while (text.len && (text.data[text.len - 1] == '\n'))
		text.data[--text.len] = '\0';
	s = xstrdup(text.len ? text.data : "(no message)");
	buf_release(&text);
	return s;
}

static int helper(struct bisect *b, const char *const *args, struct buf *out, int *code, struct err *e)
{
	const char *argv[12] = { b->o->python, "-m", "ferry.oracle.releases" };
	char *pypath = xasprintf("PYTHONPATH=%s", b->pydir), *errpath = xasprintf("%s/helper.err", b->tmp);
	const char *env[] = { pypath, NULL };
	size_t n = 3;
	int r;

	for (size_t i = 0; args[i] && n < 11; i++)
		argv[n++] = args[i];
	argv[n] = NULL;
	r = run_child(argv, env, out, errpath, code, e);
	if (r == 0 && *code && *code != 5) {
		char *msg = helper_error(errpath);

		err_set(e, *code == 2 ? EXIT_USAGE : *code == 4 ? EXIT_INPUT : EXIT_ENV, "%s", msg);
		free(msg);
		r = -1;
	}
	free(pypath);
	free(errpath);
	return r;
}

static const char *json_str(const cJSON *o, const char *key)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);

	return cJSON_IsString(v) ? v->valuestring : NULL;
}

static struct release *add_release(struct bisect *b, const char *version)
{
	struct release *r;

	b->r = xrealloc(b->r, (b->n + 1) * sizeof(*b->r));
	r = &b->r[b->n++];
	memset(r, 0, sizeof(*r));
	r->version = xstrdup(version);
	r->label = xasprintf("%s@%s", b->bug.base, version);
	return r;
}

/* The releases from PyPI, oldest first. */
static int list_pypi(struct bisect *b, struct err *e)
{
	const char *args[] = { "list", b->package, b->first, b->last, NULL };
	struct buf out = BUF_INIT;
	int code, r = -1;

	if (helper(b, args, &out, &code, e) < 0)
		goto out;
	for (char *line = out.data, *next; line && *line; line = next) {
		cJSON *o;

		next = line + strcspn(line, "\n");
		if (*next)
			*next++ = '\0';
		if (!(o = cJSON_Parse(line)) || !json_str(o, "version")) {
			cJSON_Delete(o);
			err_set(e, EXIT_ENV, "ferry.oracle.releases said '%s', no release", line);
			goto out;
		}
		struct release *rel = add_release(b, json_str(o, "version"));

		rel->numpy = xstrdup(json_str(o, "numpy") ? json_str(o, "numpy") : "?");
		rel->note = json_str(o, "numpy_note") && *json_str(o, "numpy_note") ?
			xstrdup(json_str(o, "numpy_note")) : NULL;
		cJSON_Delete(o);
	}
	r = 0;
out:
	buf_release(&out);
	return r;
}

static int by_version(const void *x, const void *y)
{
	return strverscmp(((const struct release *)x)->version, ((const struct release *)y)->version);
}

/* The releases of --venvs FILE within the range: "VERSION PYTHON" lines, '#' comments. */
static int list_venvs(struct bisect *b, struct err *e)
{
	struct buf text = BUF_INIT;
	int lineno = 0, r = -1;

	if (fs_read(b->o->venvs, &text, e) < 0)
		goto out;
	for (char *line = text.data, *next; line && *line; line = next) {
		char version[128], python[4096], extra;
		char *hash;

		lineno++;
		next = line + strcspn(line, "\n");
		if (*next)
			*next++ = '\0';
		if ((hash = strchr(line, '#')))
			*hash = '\0';
		if (line[strspn(line, " \t")] == '\0')
			continue;
		if (sscanf(line, "%127s %4095s %c", version, python, &extra) != 2) {
			err_set(e, EXIT_INPUT, "%s:%d: expected VERSION PYTHON", b->o->venvs, lineno);
			goto out;
		}
		if ((*b->first && strverscmp(version, b->first) < 0) || (*b->last && strverscmp(version, b->last) > 0))
			continue;
		add_release(b, version)->python = xstrdup(python);
	}
	qsort(b->r, b->n, sizeof(*b->r), by_version);
	r = 0;
out:
	buf_release(&text);
	return r;
}

/* Its virtualenv, made (or found made) by the helper: 1 ready, 0 unavailable, -1 error. */
static int make_venv(struct bisect *b, struct release *r, struct err *e)
{
	char *cache = home_cache_dir();
	char *dir = xasprintf("%s/releases/%s-%s", cache, b->package, r->version);
	char *stamp = xasprintf("%s/.ferry-release", dir), *failed = xasprintf("%s/.ferry-unavailable", dir);
	const char *args[] = { "make", b->package, r->version, r->numpy, b->bug.library, dir, NULL };
	struct buf out = BUF_INIT;
	cJSON *o = NULL;
	int code, ret = -1;

	if (!fs_exists(stamp) && !fs_exists(failed)) {
		say(b, 0, "installing %s %s with numpy<=%s into %s", b->package, r->version, r->numpy, dir);
		r->ran = 1;
	}
	if (helper(b, args, &out, &code, e) < 0)
		goto out;
	if (!(o = cJSON_Parse(out.data ? out.data : ""))) {
		err_set(e, EXIT_ENV, "ferry.oracle.releases said '%s', no virtualenv", out.data ? out.data : "");
		goto out;
	}
	if (code == 5) {
		r->j.verdict = BISECT_UNAVAILABLE;
		r->j.why = xstrdup(json_str(o, "unavailable") ? json_str(o, "unavailable") : "?");
		ret = 0;
		goto out;
	}
	r->python = xstrdup(json_str(o, "python") ? json_str(o, "python") : "?");
	if (json_str(o, "numpy")) {
		free(r->numpy);
		r->numpy = xstrdup(json_str(o, "numpy"));
	}
	ret = 1;
out:
	cJSON_Delete(o);
	buf_release(&out);
	free(cache);
	free(dir);
	free(stamp);
	free(failed);
	return ret;
}

struct labels {
	const char *base;
	char **v;
	size_t n;
};

static int take_label(void *ctx, const char *frontend, struct err *e)
{
	struct labels *l = ctx;
	size_t n = strlen(l->base);

	(void)e;
	if (!strncmp(frontend, l->base, n) && frontend[n] == '@') {
		l->v = xrealloc(l->v, (l->n + 1) * sizeof(*l->v));
		l->v[l->n++] = xstrdup(frontend);
	}
	return 0;
}

static void labels_free(struct labels *l)
{
	for (size_t i = 0; i < l->n; i++)
		free(l->v[i]);
	free(l->v);
}

static int has_label(const struct labels *l, const char *label)
{
	for (size_t i = 0; i < l->n; i++)
		if (!strcmp(l->v[i], label))
			return 1;
	return 0;
}

/* Run the bug's tests under r's interpreter: ferry run, a child, into the same store. */
static int run_release(struct bisect *b, struct release *r, struct err *e)
{
	char *self = fs_self_exe(), *queue = xasprintf("%s/queue", b->tmp), *fe = NULL;
	struct labels before = { b->bug.base, NULL, 0 }, after = { b->bug.base, NULL, 0 };
	struct buf ids = BUF_INIT;
	const char *argv[20];
	size_t n = 0;
	int code, ret = -1;

	for (size_t i = 0; i < b->bug.nids; i++)
		buf_addf(&ids, "%s\n", b->bug.ids[i]);
	if (fs_write_atomic(queue, ids.data, ids.len, e) < 0 || db_frontends(&b->db, NULL, take_label, &before, e) < 0)
		goto out;
	fe = xasprintf("%s@%s", b->bug.base, r->python);
	argv[n++] = self;
	argv[n++] = "run";
	argv[n++] = b->bug.wrapdir;
	argv[n++] = "-F";
	argv[n++] = fe;
	argv[n++] = "--queue";
	argv[n++] = queue;
	argv[n++] = "-o";
	argv[n++] = b->o->store;
	argv[n++] = "-q";
	/* Only the bug's tests: a probe would run the simplest test of each operator besides. */
	argv[n++] = "--no-probe";
	if (b->o->timeout) {
		argv[n++] = "-t";
		argv[n++] = b->o->timeout;
	}
	if (b->o->jobs) {
		argv[n++] = "-j";
		argv[n++] = b->o->jobs;
	}
	argv[n] = NULL;
	say(b, 0, "running %zu test%s of bug %.12s under %s %s", b->bug.nids, b->bug.nids == 1 ? "" : "s",
	    b->bug.bug_id, b->package, r->version);
	r->ran = 1;
	if (run_child(argv, NULL, NULL, NULL, &code, e) < 0)
		goto out;
	if (code != EXIT_OK && code != EXIT_FAILURES) {
		r->j.verdict = BISECT_UNAVAILABLE;
		r->j.why = xasprintf("ferry run exited %d under %s", code, r->python);
		ret = 0;
		goto out;
	}
	/* The label is the release its frontend says it is, which may be written otherwise than pip
	 * writes it: the one label this run added. */
	if (db_frontends(&b->db, NULL, take_label, &after, e) < 0)
		goto out;
	if (!has_label(&after, r->label)) {
		for (size_t i = 0; i < after.n; i++)
			if (!has_label(&before, after.v[i])) {
				free(r->label);
				r->label = xstrdup(after.v[i]);
				break;
			}
	}
	ret = 0;
out:
	labels_free(&before);
	labels_free(&after);
	buf_release(&ids);
	free(self);
	free(queue);
	free(fe);
	return ret;
}

/* Judge release i: from the store when its tests ran there, else install and run it. */
static int judge(struct bisect *b, size_t i, struct err *e)
{
	struct release *r = &b->r[i];
	int made;

	if (r->judged)
		return 0;
	if (bisect_judge(&b->db, &b->bug, r->label, r->version, &r->j, e) < 0)
		return -1;
	if (r->j.verdict != BISECT_NOT_RUN && r->j.tests >= (int)b->bug.nids) {
		r->judged = 1;
		return 0;
	}
	bisect_judgement_release(&r->j);
	if (b->o->max_releases > 0 && b->runs >= b->o->max_releases) {
		b->bounded = 1;
		return 0;
	}
	b->runs++;
	if (!r->python) {
		if ((made = make_venv(b, r, e)) < 0)
			return -1;
		if (!made) {
			say(b, 1, "%s %s is unavailable: %s", b->package, r->version, r->j.why);
			r->judged = 1;
			return 0;
		}
	}
	if (run_release(b, r, e) < 0)
		return -1;
	if (r->j.verdict == BISECT_UNAVAILABLE) {
		say(b, 1, "%s %s is unavailable: %s", b->package, r->version, r->j.why);
		r->judged = 1;
		return 0;
	}
	if (bisect_judge(&b->db, &b->bug, r->label, r->version, &r->j, e) < 0)
		return -1;
	if (r->j.verdict == BISECT_UNAVAILABLE)
		say(b, 1, "%s %s is unavailable: %s", b->package, r->version, r->j.why);
	r->judged = 1;
	return 0;
}

static enum bisect_verdict verdict(const struct bisect *b, long i)
{
	return b->r[i].judged ? b->r[i].j.verdict : BISECT_NOT_RUN;
}

static int decisive(enum bisect_verdict v)
{
	return v == BISECT_GOOD || v == BISECT_BAD;
}

/* A release strictly between lo and hi, as near their middle as one that decides: judged in turn
 * from the middle outwards, skipping those that are neither good nor bad. Its index, or -1. */
static long pick(struct bisect *b, long lo, long hi, struct err *e)
{
	long mid = lo + (hi - lo) / 2;

	for (long d = 0; mid - d > lo || mid + d < hi; d++) {
		long c[2] = { mid - d, mid + d };

		for (int k = 0; k < (d ? 2 : 1); k++) {
			if (c[k] <= lo || c[k] >= hi)
				continue;
			if (judge(b, (size_t)c[k], e) < 0)
				return -2;
			if (b->bounded)
				return -1;
			if (decisive(verdict(b, c[k])))
				return c[k];
		}
	}
	return -1;
}

/* Between lo (its verdict: low) and hi (not low), narrow to where the verdict changes. */
static int narrow(struct bisect *b, long lo, long hi, enum bisect_verdict low, struct err *e)
{
	while (hi - lo > 1) {
		long m = pick(b, lo, hi, e);

		if (m == -2)
			return -1;
		if (m < 0)
			break;
		if (verdict(b, m) == low)
			lo = m;
		else
			hi = m;
		/* Every release between that decided nothing: the change is somewhere in there. */
	}
	return 0;
}

static int search(struct bisect *b, struct err *e)
{
	long n = (long)b->n, newest = -1, bad = -1;

	if (b->o->all) {
		for (long i = 0; i < n && !b->bounded; i++)
			if (judge(b, (size_t)i, e) < 0)
				return -1;
		return 0;
	}
	/* The newest that decides: whether it is still there. */
	for (long i = n - 1; i >= 0 && newest < 0 && !b->bounded; i--) {
		if (judge(b, (size_t)i, e) < 0)
			return -1;
		if (decisive(verdict(b, i)))
			newest = i;
	}
	if (newest < 0)
		return 0;
	if (verdict(b, newest) == BISECT_BAD) {
		bad = newest;
	} else {
		/* Fixed by the newest: the release the bug was found in is bad, when it is in the range. */
		for (long i = 0; i < newest && b->bug.version; i++)
			if (!strcmp(b->r[i].version, b->bug.version)) {
				if (judge(b, (size_t)i, e) < 0)
					return -1;
				if (verdict(b, i) == BISECT_BAD)
					bad = i;
			}
		if (bad < 0)
			return 0;
		if (narrow(b, bad, newest, BISECT_BAD, e) < 0)
			return -1;
	}
	/* The first bad: releases before the first one known bad, the oldest taken as good until seen. */
	for (long i = 0; i < n; i++)
		if (verdict(b, i) == BISECT_BAD) {
			bad = i;
			break;
		}
	{
		long good = -1;

		for (long i = 0; i < bad; i++)
			if (verdict(b, i) == BISECT_GOOD)
				good = i;
		return narrow(b, good, bad, BISECT_GOOD, e);
	}
}

static void print_text(const struct bisect *b, FILE *out)
{
	const char **versions = xcalloc(b->n + 1, sizeof(*versions));
	enum bisect_verdict *verdicts = xcalloc(b->n + 1, sizeof(*verdicts));
	struct buf line = BUF_INIT;

	fprintf(out, "bug %s: %s %s, %zu test%s; releases of %s from %s to %s: %zu installable here\n",
		esc_str(b->bug.bug_id), esc_str(b->bug.frontend), esc_str(b->bug.outcome), b->bug.nids,
		b->bug.nids == 1 ? "" : "s", esc_str(b->package), *b->first ? esc_str(b->first) : "the first",
		*b->last ? esc_str(b->last) : "the newest", b->n);
	for (size_t i = 0; i < b->n; i++) {
		const struct release *r = &b->r[i];

		versions[i] = r->version;
		verdicts[i] = r->judged ? r->j.verdict : BISECT_NOT_RUN;
		if (!r->judged)
			continue;
		fprintf(out, "  %-12s %-16s", esc_str(r->version), bisect_verdict_name(r->j.verdict));
		if (r->j.verdict == BISECT_UNAVAILABLE)
			fprintf(out, " %s", esc_str(r->j.why ? r->j.why : "?"));
		else
			fprintf(out, " %d/%d failed as the bug, %d otherwise, %d passed", r->j.bad, r->j.tests,
				r->j.other, r->j.passed);
		if (r->numpy)
			fprintf(out, "; numpy %s%s%s%s", esc_str(r->numpy), r->note ? " (" : "",
				r->note ? esc_str(r->note) : "", r->note ? ")" : "");
		fprintf(out, "%s\n", r->ran ? "" : " (from the store)");
	}
	bisect_summary(versions, verdicts, b->n, &line);
	fputs(line.len ? line.data : "no release was tried\n", out);
	buf_release(&line);
	free(versions);
	free(verdicts);
}

static const char *find_version(const struct bisect *b, enum bisect_verdict want, int after_bad, int last)
{
	const char *found = NULL;
	int seen_bad = 0;

	for (size_t i = 0; i < b->n; i++) {
		enum bisect_verdict v = b->r[i].judged ? b->r[i].j.verdict : BISECT_NOT_RUN;

		if (v == BISECT_BAD && !seen_bad && after_bad < 0)
			return b->r[i].version;
		if (v == BISECT_BAD)
			seen_bad = 1;
		if (v == want && after_bad == 0 && !seen_bad)
			found = b->r[i].version;
		if (v == want && after_bad == 1 && seen_bad)
			return b->r[i].version;
		if (last && decisive(v))
			found = v == BISECT_BAD ? b->r[i].version : NULL;
	}
	return found;
}

static void print_json(const struct bisect *b, FILE *out)
{
	cJSON *doc = cJSON_CreateObject(), *list = cJSON_AddArrayToObject(doc, "releases");
	const char *first_bad = find_version(b, BISECT_BAD, -1, 0);
	char *text;

	cJSON_AddStringToObject(doc, "bug", b->bug.bug_id);
	cJSON_AddStringToObject(doc, "frontend", b->bug.frontend);
	cJSON_AddStringToObject(doc, "package", b->package);
	cJSON_AddNumberToObject(doc, "installable", (double)b->n);
	for (size_t i = 0; i < b->n; i++) {
		const struct release *r = &b->r[i];
		cJSON *x;

		if (!r->judged)
			continue;
		x = cJSON_CreateObject();
		cJSON_AddStringToObject(x, "version", r->version);
		cJSON_AddStringToObject(x, "label", r->label);
		cJSON_AddStringToObject(x, "verdict", bisect_verdict_name(r->j.verdict));
		cJSON_AddNumberToObject(x, "tests", r->j.tests);
		cJSON_AddNumberToObject(x, "bad", r->j.bad);
		cJSON_AddNumberToObject(x, "other", r->j.other);
		cJSON_AddNumberToObject(x, "passed", r->j.passed);
		if (r->j.why)
			cJSON_AddStringToObject(x, "why", r->j.why);
		if (r->numpy)
			cJSON_AddStringToObject(x, "numpy", r->numpy);
		if (r->note)
			cJSON_AddStringToObject(x, "numpy_note", r->note);
		cJSON_AddBoolToObject(x, "ran", r->ran);
		cJSON_AddItemToArray(list, x);
	}
	if (first_bad)
		cJSON_AddStringToObject(doc, "first_bad", first_bad);
	if (find_version(b, BISECT_GOOD, 0, 0) && first_bad)
		cJSON_AddStringToObject(doc, "last_good", find_version(b, BISECT_GOOD, 0, 0));
	if (find_version(b, BISECT_GOOD, 1, 0))
		cJSON_AddStringToObject(doc, "fixed_in", find_version(b, BISECT_GOOD, 1, 0));
	else if (find_version(b, BISECT_BAD, 2, 1))
		cJSON_AddStringToObject(doc, "still_in", find_version(b, BISECT_BAD, 2, 1));
	cJSON_AddBoolToObject(doc, "bounded", b->bounded);
	text = cJSON_Print(doc);
	fprintf(out, "%s\n", text);
	free(text);
	cJSON_Delete(doc);
}

int releases_bisect(const struct releases_opts *o, FILE *out, struct err *e)
{
	struct bisect b = { .o = o, .db = DB_INIT };
	struct proc_signals saved;
	char tmpl[] = "/tmp/ferry-bisect-XXXXXX";
	int code = -1;

	if (releases_parse_spec(o->spec, &b.package, &b.first, &b.last, e) < 0)
		return e->code;
	if (!(b.pydir = home_python_dir(e)))
		goto out;
	if (!mkdtemp(tmpl)) {
		err_errno(e, EXIT_ENV, "cannot make a directory in /tmp");
		goto out;
	}
	b.tmp = xstrdup(tmpl);
	if (db_open(&b.db, o->store, DB_READ, e) < 0 || bisect_bug_load(&b.db, o->bug, o->more, &b.bug, e) < 0)
		goto out;
	if (!*b.bug.wrapdir || !fs_is_dir(b.bug.wrapdir)) {
		err_set(e, EXIT_INPUT, "the tests of bug '%s' are not where the store says ('%s'): ferry bisect "
			"runs them from their wrap directory", b.bug.bug_id, b.bug.wrapdir);
		goto out;
	}
	if (o->venvs ? list_venvs(&b, e) < 0 : list_pypi(&b, e) < 0)
		goto out;
	if (!b.n) {
		err_set(e, EXIT_INPUT, "no release of %s in '%s' that pip can install here", b.package, o->spec);
		goto out;
	}
	interrupted = 0;
	proc_catch_signals(on_signal, &saved);
	if (search(&b, e) < 0 && e->code != EXIT_INTERRUPTED) {
		proc_restore_signals(&saved, 1);
		goto out;
	}
	proc_restore_signals(&saved, 1);
	if (b.bounded)
		say(&b, 1, "stopped after %ld releases (--max-releases): run the same command again to go on",
		    b.runs);
	if (o->json)
		print_json(&b, out);
	else
		print_text(&b, out);
	code = e->code == EXIT_INTERRUPTED ? EXIT_INTERRUPTED : EXIT_OK;
out:
	if (b.tmp) {
		struct err ignored = ERR_INIT;

		fs_remove_tree(b.tmp, &ignored);
		err_release(&ignored);
	}
	for (size_t i = 0; i < b.n; i++) {
		free(b.r[i].version);
		free(b.r[i].numpy);
		free(b.r[i].note);
		free(b.r[i].python);
		free(b.r[i].label);
		bisect_judgement_release(&b.r[i].j);
	}
	free(b.r);
	bisect_bug_release(&b.bug);
	db_close(&b.db);
	free(b.package);
	free(b.first);
	free(b.last);
	free(b.pydir);
	free(b.tmp);
	return code < 0 ? (e->code ? (int)e->code : EXIT_ENV) : code;
}
