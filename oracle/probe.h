/* probe.h: what a frontend supports, per (operator, dtype) group (NNSmith's dtype test). A test's
 * group is its operator and its main dtype (probe_dtype); the group's probe is its simplest test,
 * run through the frontend like any test before the first test of the group, once per release of
 * the frontend (the store keeps its outcome: db.h, struct db_support). The probe never changes a
 * test's outcome (only the frontend's own message earns "unsupported"); it tells a reader whether
 * an unsupported or crashing test fails on the group itself or on its particular form. */
#ifndef FERRY_PROBE_H
#define FERRY_PROBE_H

#include <stdbool.h>
#include <stdint.h>

#include "buf.h"
#include "db.h"
#include "record.h"
#include "strmap.h"

/* The dtype of a group when a test has no tensor at all. */
#define PROBE_NO_DTYPE "-"

enum probe_class {
	PROBE_SUPPORTED,     /* the probe passed or mismatched: the frontend converted and ran it */
	PROBE_UNSUPPORTED,   /* the frontend said it lacks something */
	PROBE_FAILING,       /* it crashed, timed out, ran out of memory, or ferry could not run it */
};
#define PROBE_NCLASSES 3

/* The dtype a test is judged by (its tolerance) and grouped by: the first output's, else the first
 * input's; NULL when it has no tensor (borrowed from in). */
const char *probe_dtype(const struct instance *in);
/* The elements of the test's tensor inputs (a dimension of unknown size counts as 1). */
uint64_t probe_elements(const struct instance *in);
/* Whether the test is degenerate: an output, its first tensor input or an input of its group's
 * dtype has a dimension of size 0 (an empty batch; an empty axes or index tensor is not). */
bool probe_degenerate(const struct instance *in);
/* <0 when a is the simpler probe, >0 when b is: a test on an input in the operator's undefined
 * domain last (whatever the frontend answers there means nothing), then a degenerate test, then the
 * fewest input elements, the fewest parameters, the smaller id. Deterministic, so every run picks
 * the same; a group of degenerate tests only still has its probe. */
int probe_cmp(const struct instance *a, int a_undefined, const struct instance *b, int b_undefined);
/* The class of a probe's outcome (by name); a name that is no outcome is failing. */
enum probe_class probe_class(const char *outcome);
/* "supported", "unsupported", "failing". */
const char *probe_class_name(enum probe_class c);

/* A group's key, "OP\tDTYPE" (PROBE_NO_DTYPE for a test without a tensor), into key (reset). */
void probe_group_key(const struct instance *in, struct buf *key);

/* The finer group that generation probes (ferry generate's probes): the group's dtype and every
 * input's, "OUT(IN,IN,...)" (PROBE_NO_DTYPE for an output or input that is no tensor), since the
 * output's dtype alone does not say the inputs' (ArgMax, Cast, Equal). Into sig (reset). */
void probe_signature(const struct instance *in, struct buf *sig);
/* ... and its key, "OP\tSIGNATURE", into key (reset). */
void probe_signature_key(const struct instance *in, struct buf *key);

/* A probe as a report reads it. */
struct probe_row {
	char *op, *dtype, *outcome, *stage, *message, *probe_id;
	enum probe_class cls;
};

/* The probes of a release of a frontend (its name in the store; version NULL: ""), into m: "OP\tDTYPE"
 * -> struct probe_row (m owns them: probe_map_release). A store without probes gives an empty map. */
int probe_map_load(struct strmap *m, struct db *d, const char *frontend, const char *version, struct err *e);
void probe_map_release(struct strmap *m);
/* The probe of the group of a test, by its record's JSON (as the store keeps it); NULL when the
 * record does not parse or its group has no probe. */
const struct probe_row *probe_map_find(const struct strmap *m, const char *record);

#endif
