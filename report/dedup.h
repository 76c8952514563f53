/* dedup.h: from failures to unique bugs (shared/DESIGN.md, "Oracles: unique bugs"). Failures are
 * grouped by frontend, conversion function and symptom:
 *   crash        stage, exception type, the frame where it arose (for Python frontends, the innermost
 *                frame inside the frontend's package), the operator, and the message's decisive line
 *                (dedup_decisive), normalised (numbers, addresses, paths and quoted names stripped),
 *                which is what tells apart errors raised from native code behind one binding;
 *   signal death stage, signal and operator (no frame survives a signal);
 *   timeout/oom  stage and operator;
 *   mismatch     operator and the kind of disagreement (shape, dtype, NaN/Inf placement, values); for
 *                two frontends against each other (session.h's pairs), also which of them agrees with
 *                the reference.
 *   inconsistent (the metamorphic oracle) the kind of the mutation that shows it and the operator it
 *                targets (kind:target_op, in the result's frame: its reduction's minimal mutation).
 * Each bug keeps its members and a representative, the simplest member: fewest parameters, then
 * fewest input elements, then the smallest id. Bug ids are stable: a hash of the signature. */
#ifndef FERRY_DEDUP_H
#define FERRY_DEDUP_H

#include "buf.h"
#include "db.h"
#include "err.h"

/* Append msg with what varies between failures of one cause replaced: hex addresses by 0x#,
 * numbers by #, quoted text by '*', paths by PATH; white space folded; at most 240 characters. */
void dedup_normalize(const char *msg, struct buf *out);

/* Append the line of a crash message that says what failed: the first line that is not generic
 * (OpenVINO's "Check '...' failed at FILE:N" and "Exception from FILE:N" locations and its
 * conversion report's headings, torch.onnx's step banners and advice, traceback frames, a native
 * backtrace), with ANSI escapes, ONNX Runtime's status prefix and C++ signatures taken off and
 * torch.onnx's "<class 'pkg.Error'>: " made "Error: ". With no such line: the last check's
 * condition, else the first line. */
void dedup_decisive(const char *msg, struct buf *out);

struct failure {
	const char *frontend, *op, *outcome, *stage, *exc_type, *frame, *message;
};

/* Append the signature that groups f with the failures of the same root cause. */
void dedup_signature(const struct failure *f, struct buf *out);

/* Recompute the store's bugs and bug_members tables from its failing results (frontend NULL: all).
 * Results on inputs flagged undefined are not failures and join no bug. *nbugs and *nfailures (may be
 * NULL) receive the counts. */
int dedup_rebuild(struct db *d, const char *frontend, size_t *nbugs, size_t *nfailures, struct err *e);

#endif
