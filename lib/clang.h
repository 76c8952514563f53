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
#include <clang-c/CXCompilationDatabase.h>
#include <clang-c/Index.h>

/* X(name, return type, parameters): one line per libclang function ferry calls, clang_NAME. */
#define CLANG_API(X)                                                                                \
	X(getClangVersion, CXString, (void))                                                        \
	X(getCString, const char *, (CXString))                                                     \
	X(disposeString, void, (CXString))                                                          \
	X(createIndex, CXIndex, (int, int))                                                         \
	X(disposeIndex, void, (CXIndex))                                                            \
	X(parseTranslationUnit2, enum CXErrorCode, (CXIndex, const char *, const char *const *, int, \
						  struct CXUnsavedFile *, unsigned, unsigned,       \
						  CXTranslationUnit *))                             \
	X(disposeTranslationUnit, void, (CXTranslationUnit))                                        \
	X(getTranslationUnitCursor, CXCursor, (CXTranslationUnit))                                  \
	X(visitChildren, unsigned, (CXCursor, CXCursorVisitor, CXClientData))                       \
	X(getCursorKind, enum CXCursorKind, (CXCursor))                                             \
	X(getCursorSpelling, CXString, (CXCursor))                                                  \
	X(getCursorExtent, CXSourceRange, (CXCursor))                                               \
	X(getCursorLocation, CXSourceLocation, (CXCursor))                                          \
	X(getExpansionLocation, void, (CXSourceLocation, CXFile *, unsigned *, unsigned *, unsigned *)) \
	X(getRangeStart, CXSourceLocation, (CXSourceRange))                                         \
	X(getRangeEnd, CXSourceLocation, (CXSourceRange))                                           \
	X(getFileName, CXString, (CXFile))                                                          \
	X(Location_isInSystemHeader, int, (CXSourceLocation))                                       \
	X(tokenize, void, (CXTranslationUnit, CXSourceRange, CXToken **, unsigned *))               \
	X(disposeTokens, void, (CXTranslationUnit, CXToken *, unsigned))                            \
	X(getTokenSpelling, CXString, (CXTranslationUnit, CXToken))                                 \
	X(getTokenKind, CXTokenKind, (CXToken))                                                     \
	X(getTokenLocation, CXSourceLocation, (CXTranslationUnit, CXToken))                         \
	X(getCursorReferenced, CXCursor, (CXCursor))                                                \
	X(getCursorSemanticParent, CXCursor, (CXCursor))                                            \
	X(getCursorDefinition, CXCursor, (CXCursor))                                                \
	X(getCursorType, CXType, (CXCursor))                                                        \
	X(getTypeSpelling, CXString, (CXType))                                                      \
	X(getTypeDeclaration, CXCursor, (CXType))                                                   \
	X(getPointeeType, CXType, (CXType))                                                         \
	X(getCanonicalType, CXType, (CXType))                                                       \
	X(Cursor_isNull, int, (CXCursor))                                                           \
	X(getSpecializedCursorTemplate, CXCursor, (CXCursor))                                       \
	X(isExpression, unsigned, (enum CXCursorKind))                                              \
	X(isCursorDefinition, unsigned, (CXCursor))                                                 \
	X(Cursor_Evaluate, CXEvalResult, (CXCursor))                                                \
	X(EvalResult_getKind, CXEvalResultKind, (CXEvalResult))                                     \
	X(EvalResult_getAsDouble, double, (CXEvalResult))                                           \
	X(EvalResult_getAsLongLong, long long, (CXEvalResult))                                      \
	X(EvalResult_getAsStr, const char *, (CXEvalResult))                                        \
	X(EvalResult_dispose, void, (CXEvalResult))                                                 \
	X(CompilationDatabase_fromDirectory, CXCompilationDatabase, (const char *,                   \
								     CXCompilationDatabase_Error *)) \
	X(CompilationDatabase_getCompileCommands, CXCompileCommands, (CXCompilationDatabase,         \
								       const char *))               \
	X(CompilationDatabase_dispose, void, (CXCompilationDatabase))                               \
	X(CompileCommands_getSize, unsigned, (CXCompileCommands))                                   \
	X(CompileCommands_getCommand, CXCompileCommand, (CXCompileCommands, unsigned))              \
	X(CompileCommands_dispose, void, (CXCompileCommands))                                       \
	X(CompileCommand_getNumArgs, unsigned, (CXCompileCommand))                                  \
	X(CompileCommand_getArg, CXString, (CXCompileCommand, unsigned))                            \
	X(CompileCommand_getDirectory, CXString, (CXCompileCommand))

struct clang_api {
#define CLANG_FIELD(name, ret, params) ret(*name) params;
	CLANG_API(CLANG_FIELD)
#undef CLANG_FIELD
};

/* Load libclang ($FERRY_LIBCLANG, else the one configure found) and fill api. EXIT_ENV, naming the
 * Debian package, when it cannot be loaded or lacks a function. */
int clang_load(struct clang_api *api, struct err *e);
#endif

/* libclang's version ("Debian clang version 14.0.6"), or NULL with e filled when it cannot be loaded
 * (or ferry was built without it). Caller frees. */
char *clang_version(struct err *e);

#endif
