/* canon.h: a fast reader for the lines that ferry itself writes (record_write in lib/record.h): the
 * record in its canonical form, with the id first and the annotations after the identity.
 *
 * Reading a corpus with cJSON and record_from_json costs several mallocs per value and a second pass
 * to write the canonical form that the id hashes; for a million records that is seconds. A line that
 * ferry wrote already holds its canonical form, as one stretch of text: this reader checks, in one
 * pass and without malloc per value, that the line is exactly what record_write would write for it
 * (members in canonical order, strings escaped as buf_add_json_string escapes them, integers and
 * floats spelled as record_canonical spells them, every value well typed), and if so hands back the
 * record's identity as a struct instance whose canonical form is that stretch of text, hashed to the
 * id the slow path would give.
 *
 * It never reports an error: a line it cannot vouch for -- hand-written, re-spaced, with an escape
 * ferry does not write, too deep, malformed, or anything unusual -- is "not canonical", and the
 * caller reads it with record_parse, which accepts or refuses it with a message naming the problem.
 * So for every line, canon_parse accepting it implies record_parse accepts it and gives the same id,
 * identity and unmigratable flag (tests/unit/test-canon.c and the fuzz harness check this).
 *
 * Ownership: a struct canon owns an arena that holds the instance view of the last line parsed; the
 * view (c->in, c->text) is valid until the next canon_parse or canon_release. The view must not be
 * given to record_release: its strings and arrays are in the arena, and tensor values are cJSON
 * nodes that live there too (readable with cJSON's accessors, never to be cJSON_Delete()d). */
#ifndef FERRY_CANON_H
#define FERRY_CANON_H

#include <stdbool.h>
#include <stddef.h>

#include "buf.h"
#include "record.h"

struct canon_chunk;

struct canon {
	struct instance in;          /* the identity of the last line accepted (a view, see above);
	                              * extra is NULL: annotations are checked, not kept */
	bool wrap_invalid;           /* its annotation "wrap" is an object whose first "status" is
	                              * the string "invalid" (rank_tier_of's test) */
	struct buf text;             /* its canonical form, as record_canonical would write it */
	/* private */
	struct canon_chunk *arena;
	struct buf tmp;
	struct value *vstack;
	size_t nv, vcap;
	struct field *fstack;
	size_t nf, fcap;
	int depth;
	bool opaque;
};

void canon_init(struct canon *c);
void canon_release(struct canon *c);

/* Read one line (without its newline). 0: the line is a canonical record, c->in and c->text hold it;
 * -1: it is not (read it with record_parse instead). */
int canon_parse(struct canon *c, const char *line, size_t len);

/* Write d as json_add_double writes it (no quotes: nan and inf give -1), into out; the length. Exact
 * integer arithmetic for the usual magnitudes, json_add_double itself for the rest. */
int canon_double(double d, char out[48]);
/* Write d as printf's "%.{prec}g" writes it (prec 1 to 17), the same exact arithmetic, printf itself
 * where that does not reach (ties, extreme magnitudes, nan, inf); the length. For writing a
 * million-line queue, where snprintf's %g is the larger part of the time. */
int canon_double_g(double d, int prec, char out[48]);

#endif
