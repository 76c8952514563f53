/* spec.h: operator specifications, the data that ferry generate instantiates (the language:
 * gen/specs/README). A spec file holds blocks; a block names operators, the opsets where it holds,
 * and statements in instantiation order. Loading parses every file and checks each block before
 * anything is generated: a name used before the statement that chooses it (the order would need
 * backtracking), a where that mentions a later name, and, by solving the block on sampled first
 * inputs (spec_check), a domain that can become empty. Every error names FILE:LINE[:COL].
 *
 * Ownership: a spec_set owns its blocks, statements, expressions and interned strings; blocks
 * are borrowed by the solver for as long as the set lives. */
#ifndef FERRY_GEN_SPEC_H
#define FERRY_GEN_SPEC_H

#include <stddef.h>

#include "err.h"
#include "expr.h"
#include "strmap.h"

enum stmt_kind {
	S_TYPE, S_INPUT, S_INPUTS, S_LET, S_INT, S_INTS, S_FLOAT, S_STR, S_ATTR, S_OUTPUT, S_OUTPUTS
};

struct stmt {
	int kind, line, col;
	const char *name;         /* the name chosen, or the attribute's name (interned) */
	int slot;                 /* the chosen name's slot; -1 for attr */
	unsigned dtypes;          /* S_TYPE: the dtype set, one bit per enum gen_dtype */
	int tyvar;                /* inputs and outputs: the type variable's slot, or -1 ... */
	int dtype;                /* ... and then the concrete dtype */
	unsigned tyrefs;          /* the type variables (their ordinals) this statement mentions */
	struct expr *rank, *dims, *shape, *values, *count;
	struct expr *lo, *hi;     /* values range(lo, hi), or a float's uniform(lo, hi) */
	int is_const, optional;
	struct expr *e;           /* let, attr: the value; int, ints, float, str: the list */
	struct expr *cond;        /* int, ints: where; attr, input: if */
	struct expr *len;         /* ints */
	int islot, kslot;         /* the slots of i and k */
};

struct block {
	const char *file;         /* the spec file's path as it was named (interned) */
	int line;                 /* of the op statement */
	const char **ops;
	int nops;
	int opset_lo, opset_hi;   /* opset_hi: SPEC_OPSET_OPEN when the block holds from opset_lo on */
	const char *domain;       /* "" for ai.onnx */
	struct stmt *stmts;
	int nstmts;
	int nslots;
	const char **slot_names;
	int ntyvars;
	int tyvar_slot[32];       /* ordinal -> slot */
	unsigned tyvar_set[32];   /* ordinal -> dtype set */
};

#define SPEC_OPSET_OPEN 1000000

/* How deep an expression may nest (parentheses, brackets, calls, unary operators, and chains of
 * binary operators, a level each): deeper is a load error at its FILE:LINE:COL, not a stack
 * overflow in the parser or in what walks the tree after it. */
#define SPEC_MAX_DEPTH 100

struct spec_set {
	struct arena arena;       /* statements and expressions */
	struct strmap names;      /* interned strings: a key's pointer is the string */
	struct block **blocks;
	size_t nblocks, cap;
};

#define SPEC_SET_INIT { ARENA_INIT, STRMAP_INIT, NULL, 0, 0 }

void spec_init(struct spec_set *s);
void spec_release(struct spec_set *s);

/* Parse spec text; name is the file's path as messages show it. */
int spec_load_text(struct spec_set *s, const char *name, const char *text, size_t len, struct err *e);
int spec_load_file(struct spec_set *s, const char *path, struct err *e);
/* Every DIR/\*.spec, in name order; a directory with none is an error. */
int spec_load_dir(struct spec_set *s, const char *dir, struct err *e);

/* An interned copy of str. */
const char *spec_intern(struct spec_set *s, const char *str);

/* The slot of a type variable in block b, by ordinal, and the ordinal of a slot (-1 if none). */
int spec_tyvar_ordinal(const struct block *b, int slot);

/* Where ferry's own specs are: $FERRY_SPECS, else the source tree's gen/specs when this binary runs
 * from its build tree, else the installed ones (home.h: beside the binary, then the configured
 * pkgdatadir). Caller frees. */
char *spec_default_dir(void);

#endif
