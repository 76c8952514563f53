/* status.h: the status page, a page of memory that a worker shares with its runner, where the worker
 * says which request it has taken and which stage its test is in.
 *
 * The runner needs both only when a test ends without a result: a death says whether the test had
 * begun (a test the worker never took goes to another worker) and in which stage it died, a
 * timeout's message names the stage it hung in. A protocol event for each (one write, one wake-up of
 * the runner, one JSON parse) cost more than ONNX Runtime's whole run of a small model; a store into
 * shared memory costs nothing, and the runner reads it at the end.
 *
 * The runner makes the page (status_create: an anonymous memfd, mapped shared) before it starts the
 * worker, which gets it as descriptor STATUS_FD (struct child_process's pass_fd) and maps it
 * (status_attach). The worker is the only writer; a read that overlaps a write is seen by its
 * generation count and taken again, so the runner never reads half a stage name.
 *
 * Ownership: a struct status owns its mapping; status_release unmaps it. What a frontend in the
 * worker does to the page (it is in the worker's memory) can only mislead the runner about that
 * worker's own test, as garbage on the protocol stream could. */
#ifndef FERRY_STATUS_H
#define FERRY_STATUS_H

#include <stdint.h>

#include "err.h"

/* The descriptor a worker finds its page at (lib/proc.h's PROC_PASSED_FD), and the environment
 * variable that tells it the page is there: STATUS_ENV_SET in its environment. */
#define STATUS_FD 3
#define STATUS_ENV "FERRY_STATUS_FD"
#define STATUS_ENV_SET STATUS_ENV "=3"
#define STATUS_STAGE_MAX 32

struct status_page;

struct status {
	struct status_page *page;
};

#define STATUS_INIT { NULL }

/* The runner: a new page, zeroed; *fd (owned by the caller: close it once the worker has it) is
 * its memfd, for the worker. */
int status_create(struct status *s, int *fd, struct err *e);
/* The worker: the page at STATUS_FD, when the environment says there is one; 0 with no page
 * (s->page NULL) when it does not: a worker started by hand. */
int status_attach(struct status *s, struct err *e);
void status_release(struct status *s);

/* The worker took request number taken (counted from 1): its stage is none yet. */
void status_take(struct status *s, uint64_t taken);
/* The worker's test entered stage ("" when the frontend's stages are over); cut to
 * STATUS_STAGE_MAX - 1 bytes. */
void status_stage(struct status *s, const char *stage);
/* The runner: how many requests the worker has taken, and the stage of the last (stage receives
 * at most STATUS_STAGE_MAX bytes, "" for none). A struct with no page reads 0 and "". */
uint64_t status_read(const struct status *s, char stage[STATUS_STAGE_MAX]);

#endif
