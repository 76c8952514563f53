/* py.h: the embedded CPython. ferry starts one interpreter per process, in the virtualenv that holds
 * the libraries, with the directory that holds ferry's Python package (fs_python_dir(): DIR/ferry, whose
 * subpackages are extract, templates, oracle and prioritize) first on sys.path.
 * Python calls back into C through the built-in module _ferry, whose functions forward to the hooks
 * set here: emit(json_text), skip(reason, where), progress(done, total, label), stage(name),
 * agree(outputs, refs, context, atol, rtol, random); and it carries the program's words as constants
 * (py_words).
 *
 * Include this header before any system header (Python.h requires it).
 * Reference notes: functions returning PyObject * return a new reference unless stated otherwise. */
#ifndef FERRY_PY_H
#define FERRY_PY_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include "err.h"

struct py_hooks {
	void *ctx;
	/* A harvested record, as JSON text. Return -1 (filling e) to make emit() raise in Python. */
	int (*emit)(void *ctx, const char *json, size_t len, struct err *e);
	void (*skip)(void *ctx, const char *reason, const char *where);
	void (*progress)(void *ctx, long done, long total, const char *label);
	void (*stage)(void *ctx, const char *stage);
	/* agree(outputs, refs, context, atol, rtol, random): the value oracle's verdict on two lists of
	 * arrays, (True|False|None, message), None where they cannot be compared. A new reference, or
	 * NULL with a Python exception set. */
	PyObject *(*agree)(void *ctx, PyObject *args);
};

/* Start the interpreter of the virtualenv whose python executable is given. With handle_signals,
 * Python's own SIGINT handler turns Ctrl-C into KeyboardInterrupt (in-process commands); workers
 * leave signals to the runner. */
int py_start(const char *python, int handle_signals, struct err *e);
void py_stop(void);
int py_started(void);
void py_set_hooks(const struct py_hooks *h);
/* Python's warnings (warnings.showwarning) as text, each warning's lines ending in a newline, to
 * fn (NULL: back to Python's own printing on stderr), so that a library's warning in this process
 * is logged rather than written over the progress line. Needs the interpreter. */
int py_set_warning_hook(void (*fn)(void *ctx, const char *text), void *ctx, struct err *e);

/* A constant of the _ferry module: _ferry.NAME is value. */
struct py_word {
	const char *name, *value;
};
/* The constants of _ferry, ended by { NULL, NULL }. They are the words of ferry's processes, which
 * belong to the rooms above lib/: the program that links lib/py.c defines the table (ferry's is
 * pool/protocol.c, from pool/protocol.h), so that lib/ includes nothing of theirs. */
extern const struct py_word py_words[];

/* Import a module. New reference, or NULL with e filled from the Python exception. */
PyObject *py_import(const char *name, struct err *e);
/* Turn the pending Python exception into e: message "what: Type: text", detail the traceback,
 * code EXIT_INTERRUPTED for KeyboardInterrupt, else the code given; an exception whose class has an
 * attribute ferry_plain (ferry's own, whose message says all) is "what: text" alone. Clears the
 * exception; returns -1. */
int py_error(struct err *e, enum ferry_exit code, const char *what);
/* Set an environment variable in os.environ, and so (putenv) in this process and its children. */
int py_setenv(const char *name, const char *value, struct err *e);
/* Call module.func(*args) with string arguments and return str() of the result (caller frees), or
 * NULL with e filled ("what: Type: message" and the traceback). Modules are imported once per
 * process (Python caches them). */
char *py_call_strings(const char *module, const char *func, const char *const *args, int nargs,
		      const char *what, struct err *e);
/* A UTF-8 copy of str(o), never NULL (caller frees); clears any error that str() raises. */
char *py_str(PyObject *o);
/* The module of a library's template ("torch" -> "ferry.templates.torch") into out. A record's library field
 * names it, so only a plain name (lowercase letters, digits and '_', not first) that
 * ferry.templates.registry lists is accepted: the field never reaches Python's import machinery as
 * anything else. EXIT_INPUT otherwise; EXIT_ENV where the registry cannot be read. */
int py_template_module(const char *library, char *out, size_t n, struct err *e);


#endif
