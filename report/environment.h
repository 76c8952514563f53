/* environment.h: what a store's canary says of a frontend (oracle/canary.h runs it; db.h, struct
 * db_environment, keeps its verdict): whether the frontend's environment was broken when its results
 * were made, so that its failures are listed apart, as "environment", rather than as its bugs. */
#ifndef FERRY_ENVIRONMENT_H
#define FERRY_ENVIRONMENT_H

#include "buf.h"
#include "db.h"
#include "err.h"

/* Whether the store's canary for a frontend (its label as the results have it, e.g.
 * "openvino-onnx@2023.0.0") failed: 1, with a one-line reason appended to why ("the canary of
 * openvino-onnx@2023.0.0 2023.0.0-10926-... gave wrong answers: Range(0, 3, 1) gave [], expected
 * [0, 1, 2]"); 0 when it passed, told nothing (inconclusive) or never ran (a store made before the
 * canary too); -1 on error. The canary read is the newest of the release the store saw last (its
 * latest run's), else the newest of any release: a run that takes a verdict from the store records it
 * again, so the newest is that of the interpreter the latest run used. */
int environment_broken(struct db *d, const char *frontend, struct buf *why, struct err *e);

#endif
