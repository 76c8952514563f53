/* cmd-harvest-child.c: ferry harvest-child SOURCE --resume N [--resume-sample K] [--filter GLOB]...
 *                      [--suite NAME]... [--pytest PATH]...
 *
 * Not for people: ferry harvest (src/cmd-harvest.c) runs the harvest itself, third-party test code
 * and all, in this child process, so that a test that exits, crashes or hangs ends this process and
 * not the harvest. The child runs extract/harvest_SOURCE.py through extract/channel.py
 * (harvest_child_run, extract/harvest.h), which numbers the tests, skips the first N (those an
 * earlier child did) and, of test N, its first K samples, and sends each record, skip, progress
 * step, test and sample boundary to the parent as one line, written as soon as it is made.
 *
 * The channel is the standard output the parent gave this process. Test code prints, to sys.stdout
 * and to file descriptor 1 directly, so the channel is moved to a descriptor of its own (close-on-exec:
 * the tests' own subprocesses do not get it) and descriptor 1 becomes a copy of stderr, where printed
 * text belonged anyway (the corpus may be ferry's standard output). */
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "cmd.h"
#include "harvest.h"
#include "protocol.h"

/* Where the channel moves: out of the way of the descriptors a test opens first. */
#define CHANNEL_FD_MIN 64

static const char usage[] =
	"usage: ferry harvest-child SOURCE --resume N [--resume-sample K] [--filter GLOB]... [--suite NAME]...\n"
	"                           [--pytest PATH]...\n"
	"\n"
	"The process in which ferry harvest runs a library's tests, speaking to it over its standard\n"
	"output. ferry harvest starts these; there is no need to start one by hand.\n";

struct harvest_child_args {
	struct opts_list patterns, suites, pytest;
	int resume, resume_sample;
};

#define AT(f) offsetof(struct harvest_child_args, f)

static const struct opt options[] = {
	OPT_INT(0, "resume", "N", "skip the first N tests (an earlier child ran them)", AT(resume), 0, 2147483647),
	OPT_INT(0, "resume-sample", "K", "and the first K samples of test N", AT(resume_sample), 0, 2147483647),
	OPT_LIST(0, "filter", "GLOB", "keep only instances whose operator or test matches GLOB", AT(patterns)),
	OPT_LIST(0, "suite", "NAME", "harvest this suite", AT(suites)),
	OPT_LIST(0, "pytest", "PATH", "run the pytest tests of PATH", AT(pytest)),
	OPT_END(),
};

/* In bwrap's sandbox this process is in a session of its own and has no controlling terminal. Without
 * it (no bubblewrap, --no-sandbox) it is in the user's session: it lets go of the terminal, so that
 * the tests cannot open /dev/tty, and ioctl TIOCSTI, which needs the caller's own controlling
 * terminal unless it has CAP_SYS_ADMIN, cannot type into the user's shell. (Not a session leader: no
 * signal goes to anyone.) */
static void let_go_of_terminal(void)
{
	int tty = open("/dev/tty", O_RDWR | O_NOCTTY | O_CLOEXEC);

	if (tty >= 0) {
		ioctl(tty, TIOCNOTTY);
		close(tty);
	}
}

static int cmd_harvest_child(int argc, char **argv)
{
	struct harvest_child_args args = { 0 }, *a = &args;
	struct err e = ERR_INIT;
	int fd, code = EXIT_OK;

	if (cmd_parse(&cmd_harvest_child_entry, argc, argv, a) < 0)
		return EXIT_USAGE;
	if (optind + 1 != argc)
		return cmd_usage_error(&cmd_harvest_child_entry, "harvest-child takes one SOURCE");
	let_go_of_terminal();
	fflush(stdout);
	if ((fd = fcntl(1, F_DUPFD_CLOEXEC, CHANNEL_FD_MIN)) < 0 || dup2(2, 1) < 0) {
		err_errno(&e, EXIT_ENV, "cannot set up the channel to ferry harvest");
		code = cmd_error(&e);
		goto out;
	}
	if (harvest_child_run(fd, argv[optind], a->patterns.v, a->patterns.n, a->suites.v, a->suites.n, a->pytest.v,
			      a->pytest.n, a->resume, a->resume_sample, &e) < 0) {
		char line[32];
		int n;

		code = cmd_error(&e);
		/* The parent is told that the harvest itself failed, not a test: it does not try again. */
		n = snprintf(line, sizeof(line), PROTO_CH_FAIL " %d\n", code);
		if (write(fd, line, (size_t)n) < 0)
			code = EXIT_ENV;
	}
out:
	opts_list_release(&a->patterns);
	opts_list_release(&a->suites);
	opts_list_release(&a->pytest);
	err_release(&e);
	fflush(NULL);
	/* The parent has every record. Unloading libraries with live thread pools can hang in their
	 * destructors, and third-party code may have left atexit handlers: skip finalisation. */
	_exit(code);
}

const struct cmd_entry cmd_harvest_child_entry = {
	.name = "harvest-child", .fn = cmd_harvest_child, .needs = CMD_NEEDS_PYTHON, .usage = usage,
	.opts = options,
};
