/* frontend.c: the frontends a session runs, as the command line names them (NAME, NAME:LIBRARY,
 * NAME@PYTHON), their labels in the store, and the command and environment of their workers. */
#include "frontend.h"
#include "fsutil.h"
#include "proc.h"
#include "py.h"
#include "xalloc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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

/* Whether f's adapter declares BATCH = True, read from its file (ferry/oracle/registry.py). */
static int frontend_batches(struct frontend *f, struct err *e)
{
	const char *args[] = { f->name };
	char *yes = py_call_strings("ferry.oracle.registry", "batches", args, 1, "cannot read the adapter", e);

	if (!yes)
		return -1;
	f->batch = !strcmp(yes, "1");
	free(yes);
	return 0;
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
	f->batch = 0;
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
		if (r == 0)
			r = frontend_batches(f, e);
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
