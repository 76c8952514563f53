/* kinds.h: what a failure is when it is not a frontend bug (issue "a bug is a cause"). Every failure
 * stays in the store and in ferry report; the bug list keeps only frontend bugs, and lists the
 * others apart, each kind with its reason:
 *   unsupported  the frontend says so: its message matches one of ferry's patterns for it
 *                (oracle/unsupported/), which may have grown since the run that recorded it a crash;
 *   lacks        the frontend lacks an operator for a dtype: every one of five or more of its tests
 *                of that (operator, dtype) crashes alike, its simplest form included (dedup.c);
 *   undefined    the difference is within the precision of a half-precision dtype: the largest one
 *                is at most COMPARE_HALF_ULPS units in the last place of the reference there, so the
 *                elements beyond the tolerance are values near zero rounded (the comparison's
 *                absolute term is smaller than half precision can resolve next to the output's large
 *                values);
 *   disputed     the reference is disputed: the library's reference runtime and another frontend, or
 *                three frontends, give the same wrong answer (the same mismatch, value for value)
 *                and none passes it: they agree with each other and not with the reference;
 *   invalid      a suspected invalid test: a variant or a generated graph (ferry made it, no library
 *                test did) that the library's reference runtime (ONNX Runtime for ONNX) crashed on
 *                and another frontend refused, or, where that runtime did not run it, that two
 *                frontends or more refused and none ran; every failure of it, a mismatch too;
 *   environment  a test of the canary's form (a 0-d input) on a frontend whose canary gave wrong
 *                answers (environment.h): nothing it answers there tells a bug from its environment.
 * The kind leads a failure's signature ("KIND|..."), so failures of different kinds never share an
 * entry; a frontend bug's signature has no such prefix. */
#ifndef FERRY_KINDS_H
#define FERRY_KINDS_H

#include <stdbool.h>

#include "buf.h"
#include "db.h"
#include "err.h"
#include "strmap.h"

enum kind { KIND_BUG, KIND_UNSUPPORTED, KIND_LACKS, KIND_UNDEFINED, KIND_DISPUTED, KIND_INVALID, KIND_ENVIRONMENT };
#define KIND_COUNT 7

/* "bug", "unsupported", "lacks", "undefined", "disputed", "invalid", "environment". */
const char *kinds_name(enum kind k);
/* What a reader is told a kind is, for a heading: "the frontend lacks it", ... */
const char *kinds_heading(enum kind k);
/* The kind of an entry from its signature's prefix. */
enum kind kinds_of_signature(const char *signature);

/* Every frontend's outcome on every test of a store: the evidence the kinds are judged by. */
struct kinds_evidence;

int kinds_load(struct db *d, struct kinds_evidence **out, struct err *e);
void kinds_free(struct kinds_evidence *ev);

/* One failure to judge. */
struct kinds_case {
	const char *frontend, *id, *op, *outcome, *stage, *message;
	bool derived;   /* a variant or a generated graph: ferry made it */
};

/* The kind of c when it is not a frontend bug, and then the signature's prefix and the part of the
 * signature it is grouped by into sig ("disputed|OP|..."): the caller appends what else groups it.
 * KIND_BUG (sig untouched) otherwise. Environment and lacks are decided elsewhere (dedup.c). */
enum kind kinds_judge(const struct kinds_evidence *ev, const struct kinds_case *c, struct buf *sig);

/* Append why an entry of kind k is not a frontend bug, for its line: from its signature and its
 * simplest member's message. Nothing for KIND_BUG. */
void kinds_reason(const char *signature, struct buf *out);

/* The failures of the store that are not frontend bugs, after grouping them afresh (dedup.h): into
 * out, "FRONTEND\x1fID" -> count: the kind, ptr: the reason (owned: kinds_tests_release). For
 * ferry check, whose verdicts do not count them as new failures. */
int kinds_tests(struct db *d, struct strmap *out, struct err *e);
void kinds_tests_release(struct strmap *m);

#endif
