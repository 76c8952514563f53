/* counts_py.c: count_tests.count() in the embedded interpreter, its result added to a struct counts
 * (counts_py.h). */
#include "py.h"

#include <stdint.h>
#include <stdlib.h>

#include "counts_py.h"

/* Add count_tests.count()'s result to c; -1 with a Python exception pending on failure. */
static int add_result(struct counts *c, PyObject *res, void (*skipped)(void *ctx, const char *why), void *ctx)
{
	PyObject *key, *val; /* borrowed */
	Py_ssize_t pos = 0;

	if (!PyDict_Check(res)) {
		PyErr_Format(PyExc_TypeError, "count_tests.count returned %s, not a dict", Py_TYPE(res)->tp_name);
		return -1;
	}
	while (PyDict_Next(res, &pos, &key, &val)) {
		const char *k = PyUnicode_AsUTF8(key);
		unsigned long long n;

		if (!k)
			return -1;
		if (!*k) {
			/* The files that did not parse. */
			for (Py_ssize_t i = 0; PyList_Check(val) && i < PyList_GET_SIZE(val); i++) {
				char *why = py_str(PyList_GET_ITEM(val, i)); /* borrowed item */

				if (skipped)
					skipped(ctx, why);
				free(why);
			}
			continue;
		}
		n = PyLong_AsUnsignedLongLong(val);
		if (PyErr_Occurred())
			return -1;
		counts_add(c, k, (uint64_t)n);
	}
	return 0;
}

int counts_py_count(struct counts *c, char *const *paths, size_t n, const char *library,
		    void (*skipped)(void *ctx, const char *why), void *ctx, struct err *e)
{
	PyObject *mod = NULL, *list = NULL, *res = NULL;
	int r = -1;

	if (!(mod = py_import("ferry.prioritize.count_tests", e))) /* new */
		goto out;
	list = PyList_New((Py_ssize_t)n); /* new */
	for (size_t i = 0; list && i < n; i++) {
		PyObject *s = PyUnicode_DecodeFSDefault(paths[i]); /* new, stolen by SET_ITEM */

		if (!s) {
			Py_CLEAR(list);
			break;
		}
		PyList_SET_ITEM(list, (Py_ssize_t)i, s);
	}
	if (list)
		res = PyObject_CallMethod(mod, "count", "Os", list, library); /* new */
	if (!res || add_result(c, res, skipped, ctx) < 0) {
		py_error(e, EXIT_ENV, "counting the Python tests failed");
		goto out;
	}
	r = 0;
out:
	Py_XDECREF(res);
	Py_XDECREF(list);
	Py_XDECREF(mod);
	return r;
}

