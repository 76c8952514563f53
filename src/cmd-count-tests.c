/* cmd-count-tests.c: ferry count-tests --library LIB PATH... [-o COUNTS]
 *
 * Counts how often a compiler's own frontend tests use each operator: the COUNTS input of `ferry
 * rank`, which puts first the operators the compiler tests least. Python test files are parsed with
 * the embedded interpreter's ast module (prioritize/counts_py.h); C++
 * test files of ONNX Runtime are read with libclang by the C++ harvester's front end (extract/cpp.h:
 * each tester a TEST runs, through its helpers and templates, counts once), other libraries' C++
 * files scanned for OpTester("Op") constructions (counts_scan_cpp); and
 * for ONNX, MLIR files for the importer's torch.operator "onnx.Op" (counts_scan_mlir: IREE's tests).
 * Directories are searched for such files. The output records the compiler, its version, the files
 * and the command line, so that shipped counts say how they were made. */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cmd.h"
#include "counts.h"
#include "counts_py.h"
#include "cpp.h"
#include "fsutil.h"
#include "libraries.h"
#include "xalloc.h"

static const char usage[] =
	"usage: ferry count-tests --library LIB [options] PATH...\n"
	"\n"
	"Count the operators a compiler's frontend tests use, for 'ferry rank --counts'. PATHs are test\n"
	"files or directories: Python files (*.py) are parsed with the ast module, C++ files (*.cc, *.cpp,\n"
	"*.h, ...) of ONNX Runtime are read with libclang (each OpTester a TEST runs counts once, through\n"
	"its helpers and templates), and with --library onnx, MLIR files\n"
	"(*.mlir) for torch.operator \"onnx.Op\" operations (IREE's imported ONNX tests).\n";

/* The options' values. */
struct count_tests_args {
	const char *library, *output, *strip, *frontend, *compiler, *compiler_version;
};

#define AT(f) offsetof(struct count_tests_args, f)

static const struct opt options[] = {
	OPT_STRING('l', "library", "LIB", "whose operator names to count: onnx, torch, keras, tensorflow",
		AT(library)),
	OPT_STRING('o', "output", "COUNTS", "where the counts go (default: standard output)", AT(output)),
	OPT_STRING(0, "frontend", "NAME", "recorded in the file, e.g. tvm-relax-onnx", AT(frontend)),
	OPT_STRING(0, "compiler", "NAME", "recorded in the file, e.g. tvm", AT(compiler)),
	OPT_STRING(0, "compiler-version", "V", "recorded in the file", AT(compiler_version)),
	OPT_STRING(0, "strip", "PREFIX", "leave PREFIX out of the file names recorded as sources", AT(strip)),
	OPT_END(),
};

struct files {
	char **py, **cpp, **mlir;
	size_t npy, ncpp, nmlir, pycap, cppcap, mlircap;
	int want_mlir; /* only ONNX operators are named in MLIR files */
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
	} else if (f->want_mlir && has_suffix(path, ".mlir")) {
		XGROW(f->mlir, f->mlircap, f->nmlir + 1);
		f->mlir[f->nmlir++] = xstrdup(path);
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
		if (top && has_suffix(path, ".mlir") && !f->want_mlir)
			return err_set(e, EXIT_USAGE, "'%s': MLIR files are counted for --library onnx only", path);
		if (top && !has_suffix(path, ".py") && !is_cpp(path) && !has_suffix(path, ".mlir"))
			return err_set(e, EXIT_USAGE, "'%s' is neither a Python, a C++ nor an MLIR file", path);
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

static void on_skipped(void *ctx, const char *why)
{
	cmd_warn("skipped %s", why);
}

/* Scan text files with a C scanner (C++ OpTester, MLIR torch.operator). */
static int count_text(struct counts *c, char **paths, size_t n,
		      void (*scan)(struct counts *, const char *, size_t), struct err *e)
{
	for (size_t i = 0; i < n; i++) {
		struct buf text = BUF_INIT;

		if (fs_read(paths[i], &text, e) < 0) {
			buf_release(&text);
			return -1;
		}
		scan(c, text.data, text.len);
		buf_release(&text);
	}
	return 0;
}

static void cpp_warn(void *ctx, const char *msg)
{
	(void)ctx;
	cmd_warn("%s", msg);
}

/* ONNX Runtime's C++ tests through libclang: the sources only, since each includes its headers. */
static int count_cpp(struct counts *c, const struct files *f, struct err *e)
{
	struct cpp_opts o;
	char **src = xcalloc(f->ncpp + 1, sizeof(*src));
	size_t n = 0;
	int r;

	memset(&o, 0, sizeof(o));
	o.warn = cpp_warn;
	for (size_t i = 0; i < f->ncpp; i++)
		if (has_suffix(f->cpp[i], ".cc") || has_suffix(f->cpp[i], ".cpp") || has_suffix(f->cpp[i], ".cxx"))
			src[n++] = f->cpp[i];
	r = n ? cpp_count_onnx(c, src, n, &o, e) : 0;
	free(src);
	return r;
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
	struct count_tests_args args = { NULL, "-", NULL, NULL, NULL, NULL }, *a = &args;
	const char *library, *output, *strip;
	struct counts c;
	struct files f = { NULL, NULL, NULL, 0, 0, 0, 0, 0, 0, 0 };
	struct err e = ERR_INIT;
	struct buf out = BUF_INIT;
	int code = EXIT_OK;

	counts_init(&c);
	/* Before opts_parse, which reorders argv. */
	c.made_by = command_line(argc, argv);
	if (cmd_parse(&cmd_count_tests_entry, argc, argv, a) < 0) {
		code = EXIT_USAGE;
		goto out;
	}
	library = a->library;
	output = a->output;
	strip = a->strip;
	c.frontend = a->frontend ? xstrdup(a->frontend) : NULL;
	c.compiler = a->compiler ? xstrdup(a->compiler) : NULL;
	c.compiler_version = a->compiler_version ? xstrdup(a->compiler_version) : NULL;
	if (libraries_load(cmd_python(), &e) < 0) {
		code = cmd_error(&e);
		goto out;
	}
	/* the source libraries' names, and tensorflow's, which the TensorFlow frontends' tests use */
	if (!library || (!libraries_find(library) && strcmp(library, "tensorflow"))) {
		struct buf known = BUF_INIT;

		libraries_names(&known);
		code = library ? cmd_usage_error(&cmd_count_tests_entry, "unknown library '%s' (%s, tensorflow)",
						 library, known.data)
			       : cmd_usage_error(&cmd_count_tests_entry, "--library is required (%s, tensorflow)",
						 known.data);
		buf_release(&known);
		goto out;
	}
	if (optind >= argc) {
		code = cmd_usage_error(&cmd_count_tests_entry, "no test files given");
		goto out;
	}
	f.want_mlir = !strcmp(library, "onnx");
	for (int i = optind; i < argc; i++)
		if (walk(&f, argv[i], 1, &e) < 0) {
			code = e.code == EXIT_USAGE ? cmd_usage_error(&cmd_count_tests_entry, "%s", e.msg)
						    : cmd_error(&e);
			goto out;
		}
	if (!f.npy && !f.ncpp && !f.nmlir) {
		code = cmd_usage_error(&cmd_count_tests_entry, "no Python, C++ or MLIR files under the paths given");
		goto out;
	}
	/* Either list may be empty and then NULL, which qsort must not be given even with no items. */
	if (f.npy)
		qsort(f.py, f.npy, sizeof(*f.py), str_cmp);
	if (f.ncpp)
		qsort(f.cpp, f.ncpp, sizeof(*f.cpp), str_cmp);
	if (f.nmlir)
		qsort(f.mlir, f.nmlir, sizeof(*f.mlir), str_cmp);
	c.library = xstrdup(library);
	if ((f.npy && counts_py_count(&c, f.py, f.npy, library, on_skipped, NULL, &e) < 0) ||
	    (strcmp(library, "onnx") ? count_text(&c, f.cpp, f.ncpp, counts_scan_cpp, &e)
				     : count_cpp(&c, &f, &e)) < 0 ||
	    count_text(&c, f.mlir, f.nmlir, counts_scan_mlir, &e) < 0) {
		code = cmd_error(&e);
		goto out;
	}
	record_sources(&c, f.py, f.npy, strip);
	record_sources(&c, f.cpp, f.ncpp, strip);
	record_sources(&c, f.mlir, f.nmlir, strip);
	counts_write(&c, &out);
	if (!strcmp(output, "-"))
		fwrite(out.data, 1, out.len, stdout);
	else if (fs_write_atomic(output, out.data, out.len, &e) < 0)
		code = cmd_error(&e);
	if (code == EXIT_OK)
		fprintf(stderr, "ferry: counted %zu operators in %zu Python, %zu C++ and %zu MLIR files\n",
			counts_size(&c), f.npy, f.ncpp, f.nmlir);
out:
	for (size_t i = 0; i < f.npy; i++)
		free(f.py[i]);
	for (size_t i = 0; i < f.ncpp; i++)
		free(f.cpp[i]);
	for (size_t i = 0; i < f.nmlir; i++)
		free(f.mlir[i]);
	free(f.py);
	free(f.cpp);
	free(f.mlir);
	buf_release(&out);
	counts_release(&c);
	err_release(&e);
	return code;
}

const struct cmd_entry cmd_count_tests_entry = {
	.name = "count-tests", .fn = count_tests, .needs = CMD_NEEDS_PYTHON, .usage = usage, .opts = options,
	.summary = "count the operators a compiler's frontend tests use (the counts for rank)",
};
