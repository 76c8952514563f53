/* worker.h: the worker side of the runner's protocol (see runner.h). A worker is "ferry worker",
 * started by the runner: it imports its libraries once, says it is ready, then serves one request
 * per line of stdin until stdin ends. Two tasks:
 *   {"task": "wrap", "id", "library", "record", "dir"}: ferry.templates.LIBRARY.wrap(record, dir)
 *   {"task": "run", "id", "dir", "random", "atol", "rtol"}: the frontend adapter runs the test
 *     through ferry.oracle.driver (oracle/driver.py); the crash, unsupported and value oracles are applied here.
 * The embedded interpreter must be started before worker_serve is called. */
#ifndef FERRY_WORKER_H
#define FERRY_WORKER_H

#include "err.h"

/* Serve requests. frontend is the adapter to load for run tasks, or NULL for a wrap worker.
 * Returns 0 at the end of stdin; -1 when the worker could not start (it has then told the runner
 * with a fatal event) or the protocol stream failed. */
int worker_serve(const char *frontend, struct err *e);

#endif
