/* cpp.h: the C++ harvester, ferry harvest onnx|torch --cpp. It reads C++ test suites with libclang
 * (lib/clang.h) rather than running them: ONNX Runtime's OpTester tests (onnxruntime/test/providers/)
 * and libtorch's C++ API tests (test/cpp/api/). Each file is parsed on its own, without the checkout's
 * headers unless -I/-D or a compile_commands.json give them: a small header of ferry's own, written
 * to a scratch directory and injected with -include, declares the OpTester API, gtest's TEST macros
 * and the torch::nn names, so that libclang builds a usable syntax tree from a file whose includes it
 * cannot find.
 *
 * In every TEST body the harvester follows each tester from its construction to its Run by a small
 * abstract interpretation of the tree: local variables, initializer lists and std::vector
 * declarations, constants, struct aggregates, calls into helper functions and function templates of
 * the file (with their template arguments), lambdas, and range-for loops over literal data. What cannot
 * be evaluated statically (counted loops, random data, values computed by calls) is counted by reason;
 * an instance is kept with shapes and dtypes where its values are not essential, dropped where they
 * are. Records are JSON text in the corpus format (lib/record.h), handed to the caller one by one.
 *
 * Each file is parsed in a child process of its own, ferry harvest-cpp-child (fork and exec of ferry
 * itself, lib/proc.h), with a memory limit (RLIMIT_AS, and its resident memory watched from here)
 * and a time limit (RLIMIT_CPU there, the wall clock here): libclang has neither, and one hostile
 * file (a macro bomb, #include "/dev/zero") would otherwise take the machine's memory or hang the
 * harvest. A file whose parse passes a limit or dies is skipped (the skip hook says which and why)
 * and the harvest goes on; what it would have given is dropped whole, counts included.
 *
 * The code is the folder extract/cpp/, one file a step: files.c finds the files; watch.c runs a child
 * per file and child.c is the child's side; parse.c parses a file (with stub.c's header) and finds
 * its tests; exec.c, eval.c and call.c interpret them over the values of value.c and the cursors of
 * cursor.c; tester.c follows OpTester and onnx.c writes its records; torch.c and torch-parse.c read
 * libtorch's tests from their tokens. cpp-int.h is what those files share.
 *
 * Nothing here prints: counts and warnings go through the hooks. */
#ifndef FERRY_CPP_H
#define FERRY_CPP_H

#include <stddef.h>
#include <stdint.h>

#include "err.h"

/* One file's parse may use this much memory and take this many seconds (CPU and wall clock) by
 * default: ONNX Runtime's biggest test files take a few hundred MB and a few seconds. */
#define CPP_DEFAULT_MEMORY (2ull << 30)
#define CPP_DEFAULT_TIMEOUT 60.0

struct counts;

struct cpp_opts {
	const char *const *includes;    /* -I directories (borrowed) */
	size_t nincludes;
	const char *const *defines;     /* -D NAME[=VALUE] (borrowed) */
	size_t ndefines;
	const char *compile_commands;   /* a directory holding compile_commands.json, or NULL */
	uint64_t mem_limit;             /* bytes one file's parse may use; 0: CPP_DEFAULT_MEMORY */
	double timeout;                 /* seconds one file's parse may take; 0: CPP_DEFAULT_TIMEOUT */

	void *ctx;
	/* One record (JSON text, one object); -1 with e filled stops the harvest. */
	int (*emit)(void *ctx, const char *json, size_t len, struct err *e);
	/* Add n to the count named key ("files parsed", "not recorded: REASON", ...). */
	void (*count)(void *ctx, const char *key, long n);
	/* Something worth saying that does not stop the harvest (a file libclang could not parse). */
	void (*warn)(void *ctx, const char *msg);
	/* The file being parsed, and how many there are. */
	void (*progress)(void *ctx, long done, long total, const char *file);
	/* A file skipped, and why ("over the 2 GiB memory limit"); NULL: said through warn. */
	void (*skip)(void *ctx, const char *file, const char *why);
};

/* The C++ files under paths (files or directories; directories searched for *.cc, *.cpp, *.cxx, *.h,
 * *.hpp, *.inc), sorted, in *files (the caller frees each and the array). 0, or -1 with e filled
 * (EXIT_INPUT) for a path that cannot be read. With headers 0, headers are left out of directories:
 * they are parsed as part of the files that include them. */
int cpp_files(const char *const *paths, size_t n, int headers, char ***files, size_t *nfiles, struct err *e);

/* ONNX Runtime's OpTester tests: one ONNX node record per Run reached from a TEST (suite "ort-cpp"). */
int cpp_harvest_onnx(char *const *files, size_t n, const struct cpp_opts *o, struct err *e);

/* libtorch's C++ API tests: one torch module or function record per torch::nn::X(XOptions(...)) or
 * F::x(input, F::XFuncOptions()...) (suite "libtorch-cpp"). */
int cpp_harvest_torch(char *const *files, size_t n, const struct cpp_opts *o, struct err *e);

/* count-tests for ONNX Runtime's tests: each tester that a TEST reaches and runs counts once for its
 * operator (a helper called from ten tests, ten times; a template instantiated for four types, four
 * times), whatever becomes of its values. */
int cpp_count_onnx(struct counts *c, char *const *files, size_t n, const struct cpp_opts *o, struct err *e);

/* What a child parses for: the harvests above, or count-tests. */
enum cpp_mode { CPP_ONNX, CPP_TORCH, CPP_COUNT };

/* 0 and *mode for "onnx", "torch" or "count"; -1 otherwise. */
int cpp_mode_parse(const char *name, enum cpp_mode *mode);

/* The child's side (ferry harvest-cpp-child): parse file here, in this process, with ferry's header
 * at stub and o's -I, -D and compile commands, and write what it gives to fd, one line per event
 * (the C++ parse channel, pool/protocol.h), ending with PROTO_CPP_DONE; o's hooks and limits are
 * not used. 0, or -1 with e filled (also written to fd, so that the parent can say it). */
int cpp_child_run(int fd, enum cpp_mode mode, const char *file, const char *stub, const struct cpp_opts *o,
		  struct err *e);

#endif
