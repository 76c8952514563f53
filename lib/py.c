/* py.c: the embedded interpreter and the _ferry module. Every Python exception that ferry turns into
 * an error passes through py_error(), the one place where they are fetched. */
#include "py.h"
#include "fsutil.h"
#include "home.h"
#include "xalloc.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static struct py_hooks hooks;
static int started;

void py_set_hooks(const struct py_hooks *h)
{
	if (h)
		hooks = *h;
	else
		memset(&hooks, 0, sizeof(hooks));
}

/* --- the _ferry module -------------------------------------------------------------------------- */

static PyObject *ferry_emit(PyObject *self, PyObject *arg)
{
	struct err e = ERR_INIT;
	Py_ssize_t len;
	const char *s;

	if (!PyUnicode_Check(arg))
		return PyErr_Format(PyExc_TypeError, "emit() takes a JSON string, not %s", Py_TYPE(arg)->tp_name);
	if (!(s = PyUnicode_AsUTF8AndSize(arg, &len)))
		return NULL;
	if (hooks.emit && hooks.emit(hooks.ctx, s, (size_t)len, &e) < 0) {
		PyErr_SetString(PyExc_RuntimeError, e.msg);
		err_release(&e);
		return NULL;
	}
	Py_RETURN_NONE;
}

static PyObject *ferry_skip(PyObject *self, PyObject *args)
{
	const char *reason, *where;

	if (!PyArg_ParseTuple(args, "ss:skip", &reason, &where))
		return NULL;
	if (hooks.skip)
		hooks.skip(hooks.ctx, reason, where);
	Py_RETURN_NONE;
}

static PyObject *ferry_progress(PyObject *self, PyObject *args)
{
	const char *label = "";
	long done, total;

	if (!PyArg_ParseTuple(args, "ll|s:progress", &done, &total, &label))
		return NULL;
	if (hooks.progress)
		hooks.progress(hooks.ctx, done, total, label);
	Py_RETURN_NONE;
}

static PyObject *ferry_stage(PyObject *self, PyObject *arg)
{
	const char *s;

	if (!PyUnicode_Check(arg) || !(s = PyUnicode_AsUTF8(arg)))
		return PyErr_Format(PyExc_TypeError, "stage() takes a string");
	if (hooks.stage)
		hooks.stage(hooks.ctx, s);
	Py_RETURN_NONE;
}

static PyObject *ferry_agree(PyObject *self, PyObject *args)
{
	if (!hooks.agree)
		return PyErr_Format(PyExc_RuntimeError, "agree() is a worker's");
	return hooks.agree(hooks.ctx, args);
}

/* warnings.showwarning while a warning hook is set (py_set_warning_hook): the warning's text to
 * the hook; a warning meant for a file of its own, or one with no hook, goes where Python's own
 * function would put it. */
static void (*warning_hook)(void *ctx, const char *text);
static void *warning_ctx;
static PyObject *python_showwarning;  /* Python's own: a reference of ours */

static PyObject *ferry_showwarning(PyObject *self, PyObject *args, PyObject *kw)
{
	static char *names[] = { "message", "category", "filename", "lineno", "file", "line", NULL };
	PyObject *message, *category, *filename, *lineno, *file = Py_None, *line = Py_None;
	PyObject *warnings, *text;
	const char *s;

	if (!PyArg_ParseTupleAndKeywords(args, kw, "OOOO|OO", names, &message, &category, &filename, &lineno,
					 &file, &line))
		return NULL;
	if (!warning_hook || file != Py_None)
		return PyObject_Call(python_showwarning, args, kw);
	if (!(warnings = PyImport_ImportModule("warnings"))) /* new */
		return NULL;
	text = PyObject_CallMethod(warnings, "formatwarning", "OOOOO", message, category, filename, lineno,
				   line); /* new */
	Py_DECREF(warnings);
	if (!text)
		return NULL;
	s = PyUnicode_AsUTF8(text);
	if (s)
		warning_hook(warning_ctx, s);
	Py_DECREF(text);
	if (!s)
		return NULL;
	Py_RETURN_NONE;
}

static PyMethodDef showwarning_def = {
	"showwarning", (PyCFunction)(void (*)(void))ferry_showwarning, METH_VARARGS | METH_KEYWORDS,
	"showwarning(message, category, filename, lineno, file=None, line=None): ferry's warning log",
};

int py_set_warning_hook(void (*fn)(void *ctx, const char *text), void *ctx, struct err *e)
{
	PyObject *warnings, *mine;
	int r = -1;

	warning_hook = fn;
	warning_ctx = ctx;
	if (!fn || python_showwarning)
		return 0;
	if (!(warnings = py_import("warnings", e))) /* new */
		return -1;
	if (!(python_showwarning = PyObject_GetAttrString(warnings, "showwarning"))) /* new, kept */
		goto out;
	if (!(mine = PyCFunction_NewEx(&showwarning_def, NULL, NULL))) /* new */
		goto out;
	r = PyObject_SetAttrString(warnings, "showwarning", mine);
	Py_DECREF(mine);
out:
	Py_DECREF(warnings);
	if (r < 0) {
		Py_CLEAR(python_showwarning);
		warning_hook = NULL;
		return py_error(e, EXIT_ENV, "cannot take Python's warnings");
	}
	return 0;
}

static PyMethodDef ferry_methods[] = {
	{ "emit", ferry_emit, METH_O, "emit(json_text): hand one harvested record to ferry" },
	{ "skip", ferry_skip, METH_VARARGS, "skip(reason, where): a test that yields no instance, and why" },
	{ "progress", ferry_progress, METH_VARARGS, "progress(done, total[, label])" },
	{ "stage", ferry_stage, METH_O, "stage(name): the test enters a stage (load, compile, execute)" },
	{ "agree", ferry_agree, METH_VARARGS, "agree(outputs, refs, context, atol, rtol, random): (verdict, message)" },
	{ NULL, NULL, 0, NULL },
};

static struct PyModuleDef ferry_module = {
	PyModuleDef_HEAD_INIT, "_ferry", "ferry's C side, for its Python side.", -1, ferry_methods,
	NULL, NULL, NULL, NULL,
};

/* The module, with the program's words (py_words: the protocol's, pool/protocol.c) as constants:
 * _ferry.KEY_EVENT, ... */
static PyObject *init_ferry_module(void)
{
	PyObject *m = PyModule_Create(&ferry_module); /* new */

	for (const struct py_word *w = py_words; m && w->name; w++)
		if (PyModule_AddStringConstant(m, w->name, w->value) < 0)
			Py_CLEAR(m);
	return m;
}

/* --- start and stop ----------------------------------------------------------------------------- */

static int set_wide(PyConfig *c, wchar_t **field, const char *value, struct err *e)
{
	PyStatus st = PyConfig_SetBytesString(c, field, value);

	if (PyStatus_Exception(st))
		return err_set(e, EXIT_ENV, "cannot configure Python: %s", st.err_msg ? st.err_msg : "?");
	return 0;
}

/* Put the directory that holds the ferry package first on sys.path: the one path ferry adds, so
 * that every module of ferry's is imported by its full name (ferry.templates.torch), and
 * "import torch" anywhere still means PyTorch. */
static int add_ferry_path(struct err *e)
{
	char *base = home_python_dir(e);
	PyObject *path = PySys_GetObject("path"); /* borrowed */
	PyObject *s = NULL;
	int r = 0;

	if (!base) {
		r = -1;
		goto out;
	}
	if (!path) {
		r = err_set(e, EXIT_ENV, "Python has no sys.path");
		goto out;
	}
	if (!(s = PyUnicode_FromString(base)) || PyList_Insert(path, 0, s) < 0) /* new */
		r = py_error(e, EXIT_ENV, "cannot extend sys.path");
out:
	Py_XDECREF(s);
	free(base);
	return r;
}

int py_start(const char *python, int handle_signals, struct err *e)
{
	PyConfig config;
	PyStatus st;

	if (started)
		return 0;
	if (!fs_exists(python))
		return err_set(e, EXIT_ENV, "no Python interpreter at '%s' (run scripts/setup, or set FERRY_PYTHON)",
			       python);
	if (PyImport_AppendInittab("_ferry", init_ferry_module) < 0)
		return err_set(e, EXIT_ENV, "cannot register the _ferry module");
	PyConfig_InitPythonConfig(&config);
	config.install_signal_handlers = handle_signals;
	config.parse_argv = 0;
	/* The executable's path makes Python find the virtualenv's pyvenv.cfg and its site-packages. */
	if (set_wide(&config, &config.program_name, python, e) < 0 ||
	    set_wide(&config, &config.executable, python, e) < 0) {
		PyConfig_Clear(&config);
		return -1;
	}
	st = Py_InitializeFromConfig(&config);
	PyConfig_Clear(&config);
	if (PyStatus_Exception(st))
		return err_set(e, EXIT_ENV, "cannot start Python from '%s': %s", python,
			       st.err_msg ? st.err_msg : "unknown error");
	started = 1;
	return add_ferry_path(e);
}

int py_started(void)
{
	return started;
}

void py_stop(void)
{
	if (!started)
		return;
	/* Libraries with native thread pools do not always unload cleanly; flushing is what matters. */
	PyRun_SimpleString("import sys\nsys.stdout.flush()\nsys.stderr.flush()\n");
	/* A warning at shutdown goes to Python's own printing: the log is closed by then. */
	warning_hook = NULL;
	Py_FinalizeEx();
	python_showwarning = NULL;  /* freed with the interpreter */
	started = 0;
}

/* --- errors ------------------------------------------------------------------------------------- */

char *py_str(PyObject *o)
{
	PyObject *s = o ? PyObject_Str(o) : NULL; /* new */
	const char *u = s ? PyUnicode_AsUTF8(s) : NULL;
	char *r = xstrdup(u ? u : "?");

	if (!u)
		PyErr_Clear();
	Py_XDECREF(s);
	return r;
}

static char *format_traceback(PyObject *type, PyObject *value, PyObject *tb)
{
	PyObject *mod = PyImport_ImportModule("traceback"); /* new */
	PyObject *lines = NULL, *empty = NULL, *joined = NULL;
	char *r = NULL;

	if (!mod)
		goto out;
	lines = PyObject_CallMethod(mod, "format_exception", "OOO", type, value ? value : Py_None,
				    tb ? tb : Py_None); /* new */
	if (!lines)
		goto out;
	empty = PyUnicode_FromString(""); /* new */
	joined = empty ? PyUnicode_Join(empty, lines) : NULL; /* new */
	if (joined)
		r = xstrdup(PyUnicode_AsUTF8(joined));
out:
	PyErr_Clear();
	Py_XDECREF(joined);
	Py_XDECREF(empty);
	Py_XDECREF(lines);
	Py_XDECREF(mod);
	return r;
}

int py_error(struct err *e, enum ferry_exit code, const char *what)
{
	PyObject *type, *value, *tb;
	char *text;

	PyErr_Fetch(&type, &value, &tb); /* new references, any may be NULL */
	if (!type)
		return err_set(e, code, "%s: unknown Python error", what);
	PyErr_NormalizeException(&type, &value, &tb);
	if (PyErr_GivenExceptionMatches(type, PyExc_KeyboardInterrupt))
		code = EXIT_INTERRUPTED;
	text = py_str(value);
	/* An exception of ferry's own that says all the user needs (a class attribute ferry_plain, as
	 * registry.AdapterError has): its message alone, as any other error of ferry's. */
	if (PyObject_HasAttrString(type, "ferry_plain")) {
		err_set(e, code, "%s: %s", what, text);
	} else {
		err_set(e, code, "%s: %s: %s", what, ((PyTypeObject *)type)->tp_name, text);
		err_set_detail(e, format_traceback(type, value, tb));
	}
	free(text);
	Py_XDECREF(type);
	Py_XDECREF(value);
	Py_XDECREF(tb);
	return -1;
}

int py_setenv(const char *name, const char *value, struct err *e)
{
	PyObject *os = PyImport_ImportModule("os"); /* new */
	PyObject *env = os ? PyObject_GetAttrString(os, "environ") : NULL; /* new */
	PyObject *k = env ? PyUnicode_DecodeFSDefault(name) : NULL; /* new */
	PyObject *v = k ? PyUnicode_DecodeFSDefault(value) : NULL; /* new */
	int r = 0;

	/* os.environ's item assignment also calls putenv: this process and its children see it. */
	if (!v || PyObject_SetItem(env, k, v) < 0)
		r = py_error(e, EXIT_ENV, "cannot set an environment variable of Python");
	Py_XDECREF(v);
	Py_XDECREF(k);
	Py_XDECREF(env);
	Py_XDECREF(os);
	return r;
}

PyObject *py_import(const char *name, struct err *e)
{
	PyObject *m = PyImport_ImportModule(name); /* new */

	if (!m) {
		char what[256];

		snprintf(what, sizeof(what), "cannot import Python module '%s'", name);
		py_error(e, EXIT_ENV, what);
	}
	return m;
}

char *py_call_strings(const char *module, const char *func, const char *const *args, int nargs,
		      const char *what, struct err *e)
{
	PyObject *m = py_import(module, e); /* new */
	PyObject *f = NULL, *t = NULL, *r = NULL;
	char *out = NULL;

	if (!m)
		return NULL;
	if (!(f = PyObject_GetAttrString(m, func)) || !(t = PyTuple_New(nargs))) /* new, new */
		goto fail;
	for (int i = 0; i < nargs; i++) {
		PyObject *s = PyUnicode_FromString(args[i]); /* new, stolen below */

		if (!s)
			goto fail;
		PyTuple_SET_ITEM(t, i, s);
	}
	if (!(r = PyObject_Call(f, t, NULL))) /* new */
		goto fail;
	out = py_str(r);
	goto out;
fail:
	py_error(e, EXIT_ENV, what);
out:
	Py_XDECREF(r);
	Py_XDECREF(t);
	Py_XDECREF(f);
	Py_DECREF(m);
	return out;
}

int py_template_module(const char *library, char *out, size_t n, struct err *e)
{
	const char *args[1] = { library };
	size_t len = strlen(library);
	char *module;
	int r = 0;

	if (!len || len > 32)
		return err_set(e, EXIT_INPUT, "no template for library '%.40s'", library);
	for (const char *c = library; *c; c++)
		if (!((*c >= 'a' && *c <= 'z') || (*c >= '0' && *c <= '9') || (*c == '_' && c > library)))
			return err_set(e, EXIT_INPUT, "no template for library '%.40s'", library);
	/* a template is what the registry lists: a module of ferry.templates that declares LIBRARY */
	if (!(module = py_call_strings("ferry.templates.registry", "template_module", args, 1,
				       "cannot list the libraries", e)))
		return -1;
	if (!*module)
		r = err_set(e, EXIT_INPUT, "no template for library '%s'", library);
	else
		snprintf(out, n, "%s", module);
	free(module);
	return r;
}
