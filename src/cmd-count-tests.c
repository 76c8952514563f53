/* cmd-count-tests.c: ferry count-tests --library LIB PATH... [-o COUNTS]
 *
 * Counts how often a compiler's own frontend tests use each operator: the COUNTS input of `ferry
 * rank`, which puts first the operators the compiler tests least. Python test files are parsed with
 * the embedded interpreter's ast module (prioritize/count_tests.py says what counts as a use); C++
 * test files are scanned for ONNX Runtime-style OpTester("Op") constructions (counts_scan_cpp).
 * Directories are searched for such files. The output records the compiler, its version, the files
 * and the command line, so that shipped counts say how they were made. */
#include "py.h"

#include <dirent.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cmd.h"
#include "counts.h"
#include "fsutil.h"
#include "xalloc.h"

static const char usage[] =
	"usage: ferry count-tests --library LIB [options] PATH...\n"
	"\n"
	"Count the operators a compiler's frontend tests use, for 'ferry rank --counts'. PATHs are test\n"
	"files or directories: Python files (*.py) are parsed with the ast module, C++ files (*.cc, *.cpp,\n"
	"*.h, ...) are scanned for OpTester(\"Op\") constructions.\n"
	"\n"
	"Options:\n"
	"  -l, --library LIB            whose operator names to count: onnx, torch, keras, tensorflow\n"
	"  -o, --output COUNTS          where the counts go (default: standard output)\n"
	"      --frontend NAME          recorded in the file, e.g. tvm-relax-onnx\n"
	"      --compiler NAME          recorded in the file, e.g. tvm\n"
	"      --compiler-version V     recorded in the file\n"
	"      --strip PREFIX           leave PREFIX out of the file names recorded as sources\n";

extern const struct cmd_entry cmd_count_tests_entry;

struct files {
	char **py, **cpp;
	size_t npy, ncpp, pycap, cppcap;
};

static int has_suffix(const char *s, const char *suf)
{
	size_t n = strlen(s), m = strlen(suf);

	return n >= m && !strcmp(s + n - m, suf);
}

static int is_cpp(const char *name)
{
	static const char *const ext[] = { ".cc", ".cpp", ".cxx", ".c", ".h", ".hpp", ".cu", ".inc" };

	for (size_t i = 0; i < sizeof(ext) / sizeof(ext[0]); i++)
		if (has_suffix(name, ext[i]))
			return 1;
	return 0;
}

static void add_file(struct files *f, const char *path)
{
	if (has_suffix(path, ".py")) {
		XGROW(f->py, f->pycap, f->npy + 1);
		f->py[f->npy++] = xstrdup(path);
	} else if (is_cpp(path)) {
		XGROW(f->cpp, f->cppcap, f->ncpp + 1);
		f->cpp[f->ncpp++] = xstrdup(path);
	}
}

static int walk(struct files *f, const char *path, int top, struct err *e)
{
	struct stat st;
	DIR *d;
	struct dirent *de;

	if (stat(path, &st) < 0)
		return err_errno(e, EXIT_INPUT, "cannot open '%s'", path);
	if (!S_ISDIR(st.st_mode)) {
		if (top && !has_suffix(path, ".py") && !is_cpp(path))
			return err_set(e, EXIT_USAGE, "'%s' is neither a Python nor a C++ file", path);
		add_file(f, path);
		return 0;
	}
	if (!(d = opendir(path)))
		return err_errno(e, EXIT_INPUT, "cannot open '%s'", path);
	while ((de = readdir(d))) {
		char *sub;
		int r;

		if (de->d_name[0] == '.')
			continue;
		sub = xasprintf("%s/%s", path, de->d_name);
		r = walk(f, sub, 0, e);
		free(sub);
		if (r < 0) {
			closedir(d);
			return -1;
		}
	}
	closedir(d);
	return 0;
}

static int str_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Add count_tests.count()'s result to c; -1 with a Python exception pending on failure. */
static int add_result(struct counts *c, PyObject *res)
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

				cmd_warn("skipped %s", why);
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

/* Run count_tests.count(paths, library) and add its result to c. */
static int count_python(struct counts *c, char **paths, size_t n, const char *library, struct err *e)
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
	if (!res || add_result(c, res) < 0) {
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

static int count_cpp(struct counts *c, char **paths, size_t n, struct err *e)
{
	for (size_t i = 0; i < n; i++) {
		struct buf text = BUF_INIT;

		if (fs_read(paths[i], &text, e) < 0) {
			buf_release(&text);
			return -1;
		}
		counts_scan_cpp(c, text.data, text.len);
		buf_release(&text);
	}
	return 0;
}

static char *command_line(int argc, char **argv)
{
	struct buf b = BUF_INIT;

	buf_adds(&b, "ferry");
	for (int i = 0; i < argc; i++) {
		buf_addc(&b, ' ');
		buf_adds(&b, argv[i]);
	}
	return buf_detach(&b);
}

static void record_sources(struct counts *c, char **paths, size_t n, const char *strip)
{
	c->sources = xrealloc(c->sources, (c->nsources + n) * sizeof(*c->sources));
	for (size_t i = 0; i < n; i++) {
		const char *p = paths[i];

		if (strip && !strncmp(p, strip, strlen(strip)))
			p += strlen(strip);
		c->sources[c->nsources++] = xstrdup(p);
	}
}

static int count_tests(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "library", required_argument, NULL, 'l' },
		{ "output", required_argument, NULL, 'o' },
		{ "frontend", required_argument, NULL, 'F' },
		{ "compiler", required_argument, NULL, 'C' },
		{ "compiler-version", required_argument, NULL, 'V' },
		{ "strip", required_argument, NULL, 'S' },
		{ NULL, 0, NULL, 0 },
	};
	const char *library = NULL, *output = "-", *strip = NULL;
	struct counts c;
	struct files f = { NULL, NULL, 0, 0, 0, 0 };
	struct err e = ERR_INIT;
	struct buf out = BUF_INIT;
	int opt, code = EXIT_OK;

	counts_init(&c);
	/* Before getopt, which reorders argv. */
	c.made_by = command_line(argc, argv);
	while ((opt = getopt_long(argc, argv, "l:o:", longopts, NULL)) != -1) {
		switch (opt) {
		case 'l': library = optarg; break;
		case 'o': output = optarg; break;
		case 'F': free(c.frontend); c.frontend = xstrdup(optarg); break;
		case 'C': free(c.compiler); c.compiler = xstrdup(optarg); break;
		case 'V': free(c.compiler_version); c.compiler_version = xstrdup(optarg); break;
		case 'S': strip = optarg; break;
		default:
			code = cmd_usage_error(&cmd_count_tests_entry, "unknown option");
			goto out;
		}
	}
	if (!library || (strcmp(library, "onnx") && strcmp(library, "torch") && strcmp(library, "keras") &&
			 strcmp(library, "tensorflow"))) {
		code = library ? cmd_usage_error(&cmd_count_tests_entry, "unknown library '%s' (onnx, torch, keras, tensorflow)", library)
			       : cmd_usage_error(&cmd_count_tests_entry, "--library is required (onnx, torch, keras, tensorflow)");
		goto out;
	}
	if (optind >= argc) {
		code = cmd_usage_error(&cmd_count_tests_entry, "no test files given");
		goto out;
	}
	for (int i = optind; i < argc; i++)
		if (walk(&f, argv[i], 1, &e) < 0) {
			code = e.code == EXIT_USAGE ? cmd_usage_error(&cmd_count_tests_entry, "%s", e.msg) : cmd_error(&e);
			goto out;
		}
	if (!f.npy && !f.ncpp) {
		code = cmd_usage_error(&cmd_count_tests_entry, "no Python or C++ files under the paths given");
		goto out;
	}
	/* Either list may be empty and then NULL, which qsort must not be given even with no items. */
	if (f.npy)
		qsort(f.py, f.npy, sizeof(*f.py), str_cmp);
	if (f.ncpp)
		qsort(f.cpp, f.ncpp, sizeof(*f.cpp), str_cmp);
	c.library = xstrdup(library);
	if ((f.npy && count_python(&c, f.py, f.npy, library, &e) < 0) || count_cpp(&c, f.cpp, f.ncpp, &e) < 0) {
		code = cmd_error(&e);
		goto out;
	}
	record_sources(&c, f.py, f.npy, strip);
	record_sources(&c, f.cpp, f.ncpp, strip);
	counts_write(&c, &out);
	if (!strcmp(output, "-"))
		fwrite(out.data, 1, out.len, stdout);
	else if (fs_write_atomic(output, out.data, out.len, &e) < 0)
		code = cmd_error(&e);
	if (code == EXIT_OK)
		fprintf(stderr, "ferry: counted %zu operators in %zu Python and %zu C++ files\n", counts_size(&c),
			f.npy, f.ncpp);
out:
	for (size_t i = 0; i < f.npy; i++)
		free(f.py[i]);
	for (size_t i = 0; i < f.ncpp; i++)
		free(f.cpp[i]);
	free(f.py);
	free(f.cpp);
	buf_release(&out);
	counts_release(&c);
	err_release(&e);
	return code;
}

const struct cmd_entry cmd_count_tests_entry = {
	"count-tests", count_tests, CMD_NEEDS_PYTHON, usage,
	"count the operators a compiler's frontend tests use (the counts for rank)",
};
