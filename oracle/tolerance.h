/* tolerance.h: how close a frontend's output must be to the reference (shared/DESIGN.md, "Oracles"):
 * the default, and the overrides per operator, dtype and frontend, each with its reason. Every result
 * stores the tolerance that judged it, and its reproducer uses the same.
 *
 * An override file (--tolerances FILE):
 *   # comment
 *   OP  DTYPE  FRONTEND  ATOL  RTOL  REASON...
 * with * for any operator, dtype or frontend. The first matching line wins.
 *
 * Ownership: struct tolerance_rules owns its rules; tolerance_rules_release frees them. */
#ifndef FERRY_TOLERANCE_H
#define FERRY_TOLERANCE_H

#include <stddef.h>

#include "err.h"

struct tolerance {
	double atol, rtol;
};

/* The default, in one place: ferry run's --atol and --rtol, the worker, and the reproducers of
 * results stored before results kept their tolerance. TOLERANCE_DEFAULT_TEXT is the same number for
 * messages (a unit test holds them equal). */
#define TOLERANCE_DEFAULT_ATOL 1e-3
#define TOLERANCE_DEFAULT_RTOL 1e-3
#define TOLERANCE_DEFAULT_TEXT "1e-3"
#define TOLERANCE_DEFAULT { TOLERANCE_DEFAULT_ATOL, TOLERANCE_DEFAULT_RTOL }

struct tolerance_rule {
	char *op, *dtype, *frontend, *reason;
	struct tolerance tol;
};

struct tolerance_rules {
	struct tolerance_rule *rules;
	size_t n, cap;
};

#define TOLERANCE_RULES_INIT { NULL, 0, 0 }

/* Add the rules of a file: arg is its path, or the name of one of ferry's (torch: torch.txt of the
 * installed tolerances, or the source tree's; home_tolerances). A bad line is bad input naming
 * path:line. */
int tolerance_rules_load(struct tolerance_rules *t, const char *arg, struct err *e);
void tolerance_rules_release(struct tolerance_rules *t);
/* The first rule for a test (dtype may be NULL: only * matches it), or NULL. */
const struct tolerance_rule *tolerance_rules_find(const struct tolerance_rules *t, const char *op,
						  const char *dtype, const char *frontend);
/* The tolerance for a test: its rule's, else deflt. */
struct tolerance tolerance_for(const struct tolerance_rules *t, const char *op, const char *dtype,
			       const char *frontend, struct tolerance deflt);

#endif
