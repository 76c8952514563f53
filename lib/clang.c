/* clang.c: libclang through dlopen (see clang.h for why it is never linked). */
#include "clang.h"
#include "xalloc.h"

#include <dlfcn.h>
#include <stdlib.h>

#ifdef HAVE_LIBCLANG
static void *handle;

int clang_load(struct clang_api *api, struct err *e)
{
	const char *path = getenv("FERRY_LIBCLANG");

	if (!path || !*path)
		path = LIBCLANG_PATH;
	/* RTLD_LOCAL: its LLVM must not become what later libraries (TensorFlow's) bind to. */
	if (!handle && !(handle = dlopen(path, RTLD_NOW | RTLD_LOCAL)))
		return err_set(e, EXIT_ENV, "cannot load libclang '%s' (Debian package libclang1-14, or set "
			       "FERRY_LIBCLANG): %s", path, dlerror());
#define SYM(name)                                                                          \
	do {                                                                               \
		*(void **)&api->name = dlsym(handle, "clang_" #name);                      \
		if (!api->name)                                                            \
			return err_set(e, EXIT_ENV, "libclang '%s' lacks clang_%s", path, #name); \
	} while (0)
#define CLANG_SYM(name, ret, params) SYM(name);
	CLANG_API(CLANG_SYM)
#undef CLANG_SYM
#undef SYM
	return 0;
}

char *clang_version(struct err *e)
{
	struct clang_api api;
	CXString v;
	char *s;

	if (clang_load(&api, e) < 0)
		return NULL;
	v = api.getClangVersion();
	s = xstrdup(api.getCString(v) ? api.getCString(v) : "");
	api.disposeString(v);
	return s;
}
#else
char *clang_version(struct err *e)
{
	err_set(e, EXIT_ENV, "ferry was built without libclang (configure --without-libclang)");
	return NULL;
}
#endif
