/* cmd-harvest-cpp-child.c: ferry harvest-cpp-child onnx|torch|count --stub PATH --cpu SECS [-I DIR]...
 *                          [-D NAME]... [--compile-commands DIR] [--] FILE
 *
 * Not for people: the C++ harvester (extract/cpp.h), for ferry harvest --cpp and count-tests, parses
 * each file with libclang in one of these, so that a file whose parse exhausts memory or time (a
 * macro bomb, #include "/dev/zero") ends this process and not the harvest. The parent sets the
 * memory limit (RLIMIT_AS) and watches the resident memory and the wall clock; the CPU limit is set
 * here, on this process alone. What the parse gives goes to the parent, one line per event
 * (cpp_child_run), over the standard output the parent gave: it moves to a descriptor of its own,
 * and descriptor 1 becomes a copy of stderr, so that nothing libclang prints can reach the channel.
 * What goes to stderr the parent keeps for its message (LLVM's "out of memory"). */
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <unistd.h>

#include "cmd.h"
#include "cpp.h"

/* Where the channel moves: out of the way of the descriptors libclang opens. */
#define CHANNEL_FD_MIN 64

static const char usage[] =
	"usage: ferry harvest-cpp-child onnx|torch|count --stub PATH --cpu SECS [-I DIR]... [-D NAME]...\n"
	"                               [--compile-commands DIR] [--] FILE\n"
	"\n"
	"The process in which ferry harvest --cpp and count-tests parse one C++ file, speaking to them over\n"
	"its standard output. They start these; there is no need to start one by hand.\n";

struct harvest_cpp_child_args {
	const char *stub, *compile_commands;
	struct opts_list includes, defines;
	double cpu;
};

#define AT(f) offsetof(struct harvest_cpp_child_args, f)

static const struct opt options[] = {
	OPT_STRING(0, "stub", "PATH", "ferry's header, injected with -include", AT(stub)),
	OPT_SECONDS(0, "cpu", "SECS", "the CPU time this process may use", AT(cpu)),
	OPT_LIST('I', "include", "DIR", "an include directory of the checkout", AT(includes)),
	OPT_LIST('D', "define", "NAME[=V]", "a macro the checkout's build defines", AT(defines)),
	OPT_STRING(0, "compile-commands", "DIR", "parse the file with its command in DIR/compile_commands.json",
		   AT(compile_commands)),
	OPT_END(),
};

static int cmd_harvest_cpp_child(int argc, char **argv)
{
	struct harvest_cpp_child_args args = { 0 }, *a = &args;
	struct err e = ERR_INIT;
	struct cpp_opts o;
	enum cpp_mode mode;
	int fd, code = EXIT_OK;

	if (cmd_parse(&cmd_harvest_cpp_child_entry, argc, argv, a) < 0)
		return EXIT_USAGE;
	if (optind + 2 != argc || cpp_mode_parse(argv[optind], &mode) < 0 || !a->stub || !(a->cpu > 0))
		return cmd_usage_error(&cmd_harvest_cpp_child_entry,
				       "harvest-cpp-child takes onnx, torch or count, --stub, --cpu and one FILE");
	/* A parent that is killed takes this child with it: a parse blocked on a FIFO it includes
	 * would otherwise outlive everything. */
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (getppid() == 1)
		_exit(EXIT_ENV);
	{
		/* SIGXCPU at the limit, SIGKILL a second later; no core file of it in the user's
		 * directory */
		struct rlimit cpu_rl = { (rlim_t)ceil(a->cpu), (rlim_t)ceil(a->cpu) + 1 }, core = { 0, 0 };

		if (setrlimit(RLIMIT_CPU, &cpu_rl) < 0 || setrlimit(RLIMIT_CORE, &core) < 0) {
			err_errno(&e, EXIT_ENV, "cannot limit the parse's CPU time");
			code = cmd_error(&e);
			goto out;
		}
	}
	fflush(stdout);
	if ((fd = fcntl(1, F_DUPFD_CLOEXEC, CHANNEL_FD_MIN)) < 0 || dup2(2, 1) < 0) {
		err_errno(&e, EXIT_ENV, "cannot set up the channel to ferry harvest");
		code = cmd_error(&e);
		goto out;
	}
	memset(&o, 0, sizeof(o));
	o.includes = (const char *const *)a->includes.v;
	o.nincludes = a->includes.n;
	o.defines = (const char *const *)a->defines.v;
	o.ndefines = a->defines.n;
	o.compile_commands = a->compile_commands;
	/* The parent hears of a failure on the channel and says it; this side says nothing more. */
	if (cpp_child_run(fd, mode, argv[optind + 1], a->stub, &o, &e) < 0)
		code = e.code ? (int)e.code : EXIT_ENV;
out:
	opts_list_release(&a->includes);
	opts_list_release(&a->defines);
	err_release(&e);
	return code;
}

const struct cmd_entry cmd_harvest_cpp_child_entry = {
	.name = "harvest-cpp-child", .fn = cmd_harvest_cpp_child, .needs = CMD_NEEDS_NOTHING, .usage = usage,
	.opts = options,
};
