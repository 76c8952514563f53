/* cmd-harvest-child.c: ferry harvest-child SOURCE --resume N [--filter GLOB]... [--suite NAME]...
 *                      [--pytest PATH]...
 *
 * Not for people: ferry harvest (src/cmd-harvest.c) runs the harvest itself, third-party test code
 * and all, in this child process, so that a test that exits, crashes or hangs ends this process and
 * not the harvest. The child runs extract/harvest_SOURCE.py through extract/channel.py, which
 * numbers the tests, skips the first N (those an earlier child did) and sends each record, skip,
 * progress step and test boundary to the parent as one line, written as soon as it is made.
 *
 * The channel is the standard output the parent gave this process. Test code prints, to sys.stdout
 * and to file descriptor 1 directly, so the channel is moved to a descriptor of its own (close-on-exec:
 * the tests' own subprocesses do not get it) and descriptor 1 becomes a copy of stderr, where printed
 * text belonged anyway (the corpus may be ferry's standard output). */
#include "py.h"

#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cmd.h"
#include "xalloc.h"

/* Where the channel moves: out of the way of the descriptors a test opens first. */
#define CHANNEL_FD_MIN 64

static const char usage[] =
	"usage: ferry harvest-child SOURCE --resume N [--filter GLOB]... [--suite NAME]... [--pytest PATH]...\n"
	"\n"
	"The process in which ferry harvest runs a library's tests, speaking to it over its standard\n"
	"output. ferry harvest starts these; there is no need to start one by hand.\n";

struct strv {
	char **v;
	size_t n, cap;
};

static void strv_push(struct strv *s, char *x)
{
	XGROW(s->v, s->cap, s->n + 1);
	s->v[s->n++] = x;
}

static PyObject *str_list(const struct strv *s) /* new reference, NULL on error */
{
	PyObject *list = PyList_New((Py_ssize_t)s->n); /* new */

	for (size_t i = 0; list && i < s->n; i++) {
		PyObject *x = PyUnicode_DecodeFSDefault(s->v[i]); /* new, stolen below */

		if (!x) {
			Py_CLEAR(list);
			break;
		}
		PyList_SET_ITEM(list, (Py_ssize_t)i, x);
	}
	return list;
}

/* ferry.extract.channel.run(fd, source, patterns, suites, pytest, resume). */
static int run(int fd, const char *source, const struct strv *patterns, const struct strv *suites,
	       const struct strv *pytest, long resume, struct err *e)
{
	PyObject *mod = NULL, *res = NULL, *pats = NULL, *sui = NULL, *pyt = NULL;
	int r = -1;

	if (!(mod = py_import("ferry.extract.channel", e)))
		goto out;
	if (!(pats = str_list(patterns)) || !(sui = str_list(suites)) || !(pyt = str_list(pytest))) /* new */
		goto pyfail;
	if (!(res = PyObject_CallMethod(mod, "run", "isOOOl", fd, source, pats, sui, pyt, resume))) /* new */
		goto pyfail;
	r = 0;
	goto out;
pyfail:
	py_error(e, EXIT_ENV, "the harvest failed");
out:
	Py_XDECREF(res);
	Py_XDECREF(pyt);
	Py_XDECREF(sui);
	Py_XDECREF(pats);
	Py_XDECREF(mod);
	return r;
}

static int cmd_harvest_child(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "resume", required_argument, NULL, 'r' },
		{ "filter", required_argument, NULL, 'f' },
		{ "suite", required_argument, NULL, 's' },
		{ "pytest", required_argument, NULL, 'p' },
		{ NULL, 0, NULL, 0 },
	};
	struct strv patterns = { NULL, 0, 0 }, suites = { NULL, 0, 0 }, pytest = { NULL, 0, 0 };
	struct err e = ERR_INIT;
	int opt, resume = 0, fd, code = EXIT_OK;

	while ((opt = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
		switch (opt) {
		case 'r':
			if (cmd_parse_int(optarg, 0, 2147483647, &resume) < 0)
				return cmd_usage_error(&cmd_harvest_child_entry, "bad --resume '%s'", optarg);
			break;
		case 'f': strv_push(&patterns, optarg); break;
		case 's': strv_push(&suites, optarg); break;
		case 'p': strv_push(&pytest, optarg); break;
		default: return cmd_usage_error(&cmd_harvest_child_entry, "bad option");
		}
	}
	if (optind + 1 != argc)
		return cmd_usage_error(&cmd_harvest_child_entry, "harvest-child takes one SOURCE");
	fflush(stdout);
	if ((fd = fcntl(1, F_DUPFD_CLOEXEC, CHANNEL_FD_MIN)) < 0 || dup2(2, 1) < 0) {
		err_errno(&e, EXIT_ENV, "cannot set up the channel to ferry harvest");
		code = cmd_error(&e);
		goto out;
	}
	if (run(fd, argv[optind], &patterns, &suites, &pytest, resume, &e) < 0) {
		char line[32];
		int n;

		code = cmd_error(&e);
		/* The parent is told that the harvest itself failed, not a test: it does not try again. */
		n = snprintf(line, sizeof(line), "fail %d\n", code);
		if (write(fd, line, (size_t)n) < 0)
			code = EXIT_ENV;
	}
out:
	free(patterns.v);
	free(suites.v);
	free(pytest.v);
	err_release(&e);
	fflush(NULL);
	/* The parent has every record. Unloading libraries with live thread pools can hang in their
	 * destructors, and third-party code may have left atexit handlers: skip finalisation. */
	_exit(code);
}

const struct cmd_entry cmd_harvest_child_entry = {
	"harvest-child", cmd_harvest_child, CMD_NEEDS_PYTHON, usage, NULL,
};
