/* apfd.h: how fast a queue finds bugs. Given a queue (the order tests run in) and which tests reveal
 * which unique bugs, with n the tests in the queue and m the bugs that some test of the queue reveals,
 * TF_i the position (from 1) of the first test revealing bug i:
 *
 *   APFD     = 1 - sum(TF_i) / (n m) + 1 / (2n)                        (Rothermel et al.)
 *   NAPFD(b) = p - sum(TF_i <= b) / (b m) + p / (2b)                    (Qu et al.), for a budget that
 *              stops after b tests; p = the share of the m bugs found within them; bugs not found add 0
 *   RAUC(x)  = the area under the bugs-found curve over the first ceil(x n) tests, divided by the same
 *              area for the ideal order, at x = 25, 50, 75, 100%. The ideal order is the greedy one
 *              (most new bugs first), which is optimal when each test reveals at most one bug, as is
 *              usual once failures are deduplicated, and close to it otherwise.
 *   curve    = the points (tests run, bugs found) where a new bug is found, for plotting.
 *
 * Bugs revealed by no test of the queue are counted apart (missing) and left out of m: APFD assumes
 * every bug is found by the full queue. A queue of JSON Lines takes the "id" of each line (the queue
 * of `ferry rank`); a line not starting with '{' is an id by itself.
 *
 * Bug files are CSV, one "test_id,bug_id" pair a line; a first line "test_id,bug_id" is a header;
 * blank lines and lines starting with '#' are skipped. A test may reveal several bugs, a bug be
 * revealed by several tests.
 *
 * Ownership: each struct owns its arrays and strings. */
#ifndef FERRY_APFD_H
#define FERRY_APFD_H

#include <stddef.h>
#include <stdint.h>

#include "err.h"
#include "intern.h"

struct apfd_bugs {
	struct intern tests;   /* test ids -> dense */
	struct intern bugs;    /* bug ids -> dense */
	uint32_t *test, *bug;  /* the pairs */
	size_t n, cap;
};

#define APFD_BUGS_INIT { INTERN_INIT, INTERN_INIT, NULL, NULL, 0, 0 }

void apfd_bugs_init(struct apfd_bugs *b);
void apfd_bugs_release(struct apfd_bugs *b);
void apfd_bugs_add(struct apfd_bugs *b, const char *test, const char *bug);
/* Read a bug CSV; name is used in messages ("NAME:LINE: ..."). */
int apfd_bugs_parse_csv(struct apfd_bugs *b, const char *text, size_t len, const char *name, struct err *e);
int apfd_bugs_load_csv(struct apfd_bugs *b, const char *path, struct err *e);

struct apfd_queue {
	char **ids;
	size_t n, cap;
};

#define APFD_QUEUE_INIT { NULL, 0, 0 }

void apfd_queue_init(struct apfd_queue *q);
void apfd_queue_release(struct apfd_queue *q);
void apfd_queue_add(struct apfd_queue *q, const char *id);
/* Read a queue file. An id that appears twice is an error (the queue is not an order then). */
int apfd_queue_load(struct apfd_queue *q, const char *path, struct err *e);

#define APFD_RAUC_POINTS 4   /* 25, 50, 75, 100% */

struct apfd_result {
	size_t n;              /* tests in the queue */
	size_t m;              /* bugs some test of the queue reveals */
	size_t missing;        /* bugs no test of the queue reveals */
	double apfd;           /* NaN when m == 0 */
	size_t budget;         /* tests, for napfd; 0: none */
	double napfd;          /* NaN without a budget or bugs */
	size_t found_in_budget;
	double rauc[APFD_RAUC_POINTS];
	size_t *curve_tests;   /* the k-th new bug is found after curve_tests[k] tests */
	size_t ncurve;         /* == m */
};

#define APFD_RESULT_INIT { 0, 0, 0, 0, 0, 0, 0, { 0, 0, 0, 0 }, NULL, 0 }

void apfd_result_release(struct apfd_result *r);
/* Evaluate a queue; budget 0 means no budget (napfd NaN), a budget above n is n. Fails if the queue
 * names a test twice. */
int apfd_eval(const struct apfd_queue *q, const struct apfd_bugs *b, size_t budget, struct apfd_result *r,
	      struct err *e);

#endif
