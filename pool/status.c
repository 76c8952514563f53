/* status.c: the status page a worker shares with its runner (status.h). */
#define _GNU_SOURCE
#include "status.h"

#include <stdlib.h>
#include <string.h>
#include <sched.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

/* Written by the worker alone, as a sequence lock: gen is odd while a write is under way. */
struct status_page {
	uint64_t gen;
	uint64_t taken;
	char stage[STATUS_STAGE_MAX];
};

/* A reader that finds a write under way tries again (a live worker's write takes nanoseconds, unless
 * it is preempted in the middle), but not for longer than this: a worker that died or was stopped in
 * the middle of a write leaves gen odd for good, and what is there is then the best there is; a
 * frontend that scribbles on the page without end must not hang the runner either. */
#define READ_WAIT 0.05

static int map(struct status *s, int fd, struct err *e)
{
	void *p = mmap(NULL, sizeof(struct status_page), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);

	if (p == MAP_FAILED)
		return err_errno(e, EXIT_ENV, "cannot map the worker's status page");
	s->page = p;
	return 0;
}

int status_create(struct status *s, int *fd, struct err *e)
{
	int f = memfd_create("ferry-worker-status", MFD_CLOEXEC);

	s->page = NULL;
	*fd = -1;
	if (f < 0)
		return err_errno(e, EXIT_ENV, "cannot make the worker's status page");
	if (ftruncate(f, sizeof(struct status_page)) < 0) {
		err_errno(e, EXIT_ENV, "cannot size the worker's status page");
		close(f);
		return -1;
	}
	if (map(s, f, e) < 0) {
		close(f);
		return -1;
	}
	*fd = f;
	return 0;
}

int status_attach(struct status *s, struct err *e)
{
	const char *v = getenv(STATUS_ENV);

	s->page = NULL;
	int r;

	if (!v || atoi(v) != STATUS_FD)
		return 0;
	r = map(s, STATUS_FD, e);
	/* The mapping outlives the descriptor, which a compiler that the frontend runs need not see. */
	close(STATUS_FD);
	return r;
}

void status_release(struct status *s)
{
	if (s->page)
		munmap(s->page, sizeof(*s->page));
	s->page = NULL;
}

static void write_begin(struct status_page *p)
{
	__atomic_store_n(&p->gen, p->gen + 1, __ATOMIC_RELAXED);
	__atomic_thread_fence(__ATOMIC_RELEASE);
}

static void write_end(struct status_page *p)
{
	__atomic_store_n(&p->gen, p->gen + 1, __ATOMIC_RELEASE);
}

void status_take(struct status *s, uint64_t taken)
{
	if (!s->page)
		return;
	write_begin(s->page);
	s->page->taken = taken;
	s->page->stage[0] = '\0';
	write_end(s->page);
}

void status_stage(struct status *s, const char *stage)
{
	size_t n = strlen(stage);

	if (!s->page)
		return;
	if (n >= STATUS_STAGE_MAX)
		n = STATUS_STAGE_MAX - 1;
	write_begin(s->page);
	memcpy(s->page->stage, stage, n);
	s->page->stage[n] = '\0';
	write_end(s->page);
}

uint64_t status_read(const struct status *s, char stage[STATUS_STAGE_MAX])
{
	struct status_page copy;

	struct timespec t0, t;

	memset(&copy, 0, sizeof(copy));
	clock_gettime(CLOCK_MONOTONIC, &t0);
	while (s->page) {
		uint64_t g = __atomic_load_n(&s->page->gen, __ATOMIC_ACQUIRE);

		memcpy(&copy, s->page, sizeof(copy));
		__atomic_thread_fence(__ATOMIC_ACQUIRE);
		if (!(g & 1) && __atomic_load_n(&s->page->gen, __ATOMIC_RELAXED) == g)
			break;
		clock_gettime(CLOCK_MONOTONIC, &t);
		if ((double)(t.tv_sec - t0.tv_sec) + (double)(t.tv_nsec - t0.tv_nsec) / 1e9 > READ_WAIT)
			break;
		sched_yield(); /* the writer may be waiting for this core */
	}
	copy.stage[STATUS_STAGE_MAX - 1] = '\0';
	memcpy(stage, copy.stage, STATUS_STAGE_MAX);
	return copy.taken;
}
