/* clang.h: libclang, loaded when a command needs it (the C++ harvester) and never linked. libclang
 * carries a whole LLVM; linked into ferry, that LLVM sits in the global symbol scope of every
 * process, where TensorFlow's own LLVM binds to it and crashes at start-up. Loaded here with
 * RTLD_LOCAL, it is visible only through the functions below, and only in the process that asked.
 *
 * struct clang_api holds the libclang functions ferry calls, each looked up by name; the handle is
 * process-wide and stays loaded until exit. */
#ifndef FERRY_CLANG_H
#define FERRY_CLANG_H

#include "config.h" /* HAVE_LIBCLANG */
#include "err.h"

#ifdef HAVE_LIBCLANG
#include <clang-c/Index.h>

struct clang_api {
	CXString (*getClangVersion)(void);
	const char *(*getCString)(CXString);
	void (*disposeString)(CXString);
};

/* Load libclang ($FERRY_LIBCLANG, else the one configure found) and fill api. EXIT_ENV, naming the
 * Debian package, when it cannot be loaded or lacks a function. */
int clang_load(struct clang_api *api, struct err *e);
#endif

/* libclang's version ("Debian clang version 14.0.6"), or NULL with e filled when it cannot be loaded
 * (or ferry was built without it). Caller frees. */
char *clang_version(struct err *e);

#endif
