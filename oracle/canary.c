/* canary.c: the canary (canary.h): its wrap, its answers, its verdict and what the store says of it. */
#include "canary.h"
#include "fsutil.h"
#include "outcome.h"
#include "protocol.h"
#include "py.h"
#include "session.h"
#include "wrap.h"
#include "xalloc.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define CANARY_MODULE "ferry.oracle.canary"

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Write the canary's records for library into DIR/canary.jsonl; 0 with *none set when it has none. */
static int write_corpus(const struct canary *c, const char *library, char **path, int *none, struct err *e)
{
	const char *args[1] = { library };
	char *text = py_call_strings(CANARY_MODULE, "corpus", args, 1, "cannot make the canary", e);
	FILE *fp;
	int r = -1;

	if (!text)
		return -1;
	*none = !*text;
	*path = xasprintf("%s/canary.jsonl", c->dir);
	if (*none) {
		r = 0;
		goto out;
	}
	if (!(fp = fopen(*path, "wx"))) {
		err_errno(e, EXIT_ENV, "cannot write '%s'", *path);
		goto out;
	}
	if (fputs(text, fp) < 0) {
		fclose(fp);
		err_errno(e, EXIT_ENV, "cannot write '%s'", *path);
		goto out;
	}
	if (fclose(fp) != 0) {
		err_errno(e, EXIT_ENV, "cannot write '%s'", *path);
		goto out;
	}
	r = 0;
out:
	free(text);
	return r;
}

int canary_prepare(struct canary *c, const struct frontend *fe, const struct runner_opts *ro, char **why,
		   struct err *e)
{
	const char *args[1] = { fe->name };
	char *corpus = NULL, *format = NULL, *tmpl = NULL;
	const char *tmp = getenv("TMPDIR");
	struct wrap_format fm;
	struct wrap_opts o;
	struct wrap w;
	size_t bad = 0;
	double start = now();
	int none = 0, opened = 0, r = -1;

	memset(c, 0, sizeof(*c));
	*why = NULL;
	tmpl = xasprintf("%s/ferry-canary.XXXXXX", tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(tmpl)) {
		err_errno(e, EXIT_ENV, "cannot make a directory '%s'", tmpl);
		goto out;
	}
	c->dir = tmpl;
	tmpl = NULL;
	if (write_corpus(c, fe->library, &corpus, &none, e) < 0)
		goto out;
	if (none) {
		*why = xasprintf("ferry has no canary for %s models", fe->library);
		r = 0;
		goto out;
	}
	/* The format the frontend reads, and no other: the wrap makes only what it runs. */
	if (!(format = py_call_strings("ferry.oracle.registry", "format_of", args, 1, "cannot read an adapter", e)))
		goto out;
	fm.library = fe->library;
	fm.format = format;
	memset(&o, 0, sizeof(o));
	memset(&w, 0, sizeof(w));
	o.corpora = (const char *const *)&corpus;
	o.ncorpora = 1;
	o.dir = c->dir;
	o.jobs = 1;
	o.timeout = ro->timeout;
	o.mem_limit = ro->mem_limit;
	o.formats = &fm;
	o.nformats = 1;
	o.command = "ferry (the canary)";
	if (wrap_open(&w, &o, e) < 0)
		goto out;
	opened = 1;
	if (wrap_run(&w, e) < 0 || wrapped_load(c->dir, &c->tests, &c->n, &bad, NULL, NULL, e) < 0)
		goto out;
	c->expected = xcalloc(c->n ? c->n : 1, sizeof(*c->expected));
	for (size_t k = 0; k < c->n; k++) {
		const char *dir[1] = { c->tests[k].dir };

		if (!c->tests[k].valid) {
			*why = xasprintf("the %s template rejects the canary: %s", fe->library,
					 c->tests[k].reason ? c->tests[k].reason : "?");
			break;
		}
		if (!(c->expected[k] = py_call_strings(CANARY_MODULE, "expected", dir, 1, "cannot read the canary", e)))
			goto out;
		if (!*c->expected[k]) {
			*why = xasprintf("the %s template's reference of the canary is not the known answer",
					 fe->library);
			break;
		}
	}
	r = 0;
out:
	if (opened)
		wrap_release(&w);
	/* Without a canary to run, nothing of it is kept. */
	if (r == 0 && *why) {
		for (size_t k = 0; k < c->n; k++)
			free(c->expected ? c->expected[k] : NULL);
		free(c->expected);
		c->expected = NULL;
		wrapped_free(c->tests, c->n);
		c->tests = NULL;
		c->n = 0;
	}
	c->seconds = now() - start;
	free(corpus);
	free(format);
	free(tmpl);
	return r;
}

char *canary_request(const struct canary *c, size_t k, struct tolerance tol)
{
	char *base = session_request_dir(c->tests[k].in.id, c->tests[k].dir, 0, tol);
	cJSON *req = cJSON_Parse(base);
	char *save = xasprintf("%s/out/%zu", c->dir, k), *text;

	free(base);
	/* The outputs kept (the differential oracle's means), so that the warning says what they were. */
	cJSON_AddStringToObject(req, PROTO_KEY_SAVE, save);
	text = cJSON_PrintUnformatted(req);
	cJSON_Delete(req);
	free(save);
	return text;
}

/* The first line of a message, at most 160 bytes of it. */
static void add_line(struct buf *out, const char *msg)
{
	size_t n = msg ? strcspn(msg, "\n") : 0;

	buf_add(out, msg ? msg : "", n > 160 ? 160 : n);
	if (n > 160)
		buf_adds(out, "...");
}

void canary_answer(struct canary *c, size_t k, const struct db_result *res)
{
	const char *call = c->expected[k];
	const char *eq = strstr(call, " = ");
	int call_len = eq ? (int)(eq - call) : (int)strlen(call);

	c->answered++;
	if (!isnan(res->seconds))
		c->seconds += res->seconds;
	switch (res->outcome) {
	case OUTCOME_PASS:
		return;
	case OUTCOME_MISMATCH: {
		char *dir = xasprintf("%s/out/%zu", c->dir, k);
		const char *args[1] = { dir };
		struct err ignored = ERR_INIT;
		char *got = py_call_strings(CANARY_MODULE, "describe", args, 1, "cannot read the canary's outputs",
					    &ignored);

		buf_addf(&c->detail, "%s%.*s gave ", c->detail.len ? "; " : "", call_len, call);
		if (got && *got)
			buf_adds(&c->detail, got);
		else
			add_line(&c->detail, res->message);
		buf_addf(&c->detail, ", expected %s", eq ? eq + 3 : "?");
		c->wrong++;
		free(got);
		free(dir);
		err_release(&ignored);
		return;
	}
	case OUTCOME_CRASH:
	case OUTCOME_TIMEOUT:
	case OUTCOME_OOM:
		/* A crash on the canary is the frontend's own, in every case measured: TVM 0.25 under the
		 * numpy of its day ("Constant delta required for Range." on 0-d inputs), TVM's TFLite path
		 * under .venv's. Said, and inconclusive. */
		buf_addf(&c->detail, "%s%.*s ended in %s%s%s (the frontend's own, inconclusive): ",
			 c->detail.len ? "; " : "", call_len, call, outcome_name(res->outcome),
			 res->stage ? " at " : "", res->stage ? res->stage : "");
		add_line(&c->detail, res->message);
		c->inconclusive++;
		return;
	default:
		/* unsupported, ferry's own error, ...: tells nothing of the environment */
		buf_addf(&c->detail, "%s%.*s: %s (inconclusive)", c->detail.len ? "; " : "", call_len, call,
			 outcome_name(res->outcome));
		c->inconclusive++;
		return;
	}
}

int canary_done(const struct canary *c)
{
	return c->n && c->answered == c->n;
}

void canary_verdict(const struct canary *c, const struct frontend *fe, const char *version,
		    struct db_environment *v)
{
	v->frontend = fe->label;
	v->version = version;
	v->python = fe->python;
	/* One right answer vouches for the way the frontend reads 0-d inputs. */
	v->ok = c->wrong ? 0 : c->inconclusive == c->n ? -1 : 1;
	v->detail = c->detail.len ? c->detail.data : NULL;
	v->seconds = c->seconds;
}

void canary_warning(const struct db_environment *v, struct buf *out)
{
	buf_addf(out, "frontend '%s' (release %s) gave wrong answers to the canary: %s; its environment is "
		 "broken (a library such as numpy newer than the release's), so its failures on 0-d inputs are "
		 "no frontend bugs: run it under the numpy of its release's day (requirements/oldest*.txt, "
		 "scripts/venv-release)",
		 v->frontend, v->version && *v->version ? v->version : "unknown", v->detail ? v->detail : "?");
}

void canary_release(struct canary *c)
{
	struct err ignored = ERR_INIT;

	for (size_t k = 0; k < c->n; k++)
		free(c->expected ? c->expected[k] : NULL);
	free(c->expected);
	wrapped_free(c->tests, c->n);
	if (c->dir)
		fs_remove_tree(c->dir, &ignored);
	err_release(&ignored);
	free(c->dir);
	buf_release(&c->detail);
	memset(c, 0, sizeof(*c));
}
