/* torch-int.h: what the two files of the libtorch translator share (torch.c, what a call means;
 * torch-parse.c, the parser over a TEST body's tokens). Values live in the file's arena. */
#ifndef FERRY_CPP_TORCH_INT_H
#define FERRY_CPP_TORCH_INT_H

#include "cpp-int.h"

#ifdef HAVE_LIBCLANG

struct ttensor {
	const char *dtype;      /* "float32" */
	struct cval shape;      /* a CV_LIST of sizes, or unknown */
	struct cval values;     /* flat, row-major; unknown when not written (random, empty) */
};

struct tmod {                   /* a torch::nn module, shared by every copy of its value */
	const char *cname, *op; /* "Conv2d", "torch.nn.Conv2d" */
	const char *why;        /* why its calls cannot be instances, or NULL */
	const char **pnames;
	struct cval *pvals;
	size_t np;
	int training, called;
	const char *dtype;      /* after ->to(torch::kDouble) */
	struct tmod *next;      /* the modules of one test */
};

struct topts {                  /* an options builder: XOptions(args).a(v).b(w) */
	const char *name;       /* "Conv2d" of Conv2dOptions and of F::Conv2dFuncOptions */
	struct cval *args;
	size_t nargs;
	const char **snames;
	struct cval *svals;
	size_t ns;
};

struct tp {                     /* the parser over one TEST body's tokens */
	struct run *r;
	const struct tok *t;
	size_t n, i;
	struct frame *f;
	struct tmod *mods;      /* the modules this test made */
	int failing;            /* inside ASSERT_THROWS_WITH and its kind: the calls are meant to fail */
};

static inline int tx_at(const struct tp *p, const char *s)
{
	return p->i < p->n && !strcmp(p->t[p->i].s, s);
}

/* torch.c: what a call means (a tensor, an options builder, a module, a functional's instance). */
struct cval cpp_tx_sym(const char *s);
int cpp_tx_is_module(const char *name);
void cpp_tx_module_call(struct tp *p, struct tmod *m, const struct cval *a, size_t n, unsigned line);
struct cval cpp_tx_call(struct tp *p, const char *ns, const char *base, const char *targs, unsigned line);
struct cval cpp_tx_method(struct tp *p, struct cval v, struct cval *lv, const char *name, int arrow,
			  unsigned line);

/* torch-parse.c: a call's arguments at "(" or "{", each evaluated; a helper function of the file run. */
struct cval *cpp_tx_args(struct tp *p, size_t *n);
struct cval cpp_tx_helper(struct tp *p, CXCursor fn, struct cval *a, size_t n);
#endif

#endif
