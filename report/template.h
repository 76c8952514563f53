/* template.h: message templates learned from the messages themselves, as a log-template miner
 * (Drain and its relatives) learns them. A line is cut into tokens (a quoted string is one token, a
 * number becomes <#>); lines of the same length whose tokens agree at most places are one template,
 * and the places where they differ become <*>: "out_0 has zero dimension" and "in_1 has zero
 * dimension" are "<*> has zero dimension", whatever the names are, with no rule that knows node
 * names. What varies is learned from what the store holds, so a new frontend needs no new rule.
 *
 * Learning is order-dependent; template_learn_all learns a set of lines in a fixed order (sorted), so the
 * same lines always give the same templates. */
#ifndef FERRY_TEMPLATE_H
#define FERRY_TEMPLATE_H

#include <stddef.h>

#include "buf.h"

struct template_set;

struct template_set *template_new(void);
void template_free(struct template_set *t);
/* Learn lines[0..n) (each a line without its newline), in sorted order whatever order they come
 * in; a line learnt twice counts once. The strings are the caller's. */
void template_learn_all(struct template_set *t, const char *const *lines, size_t n);
/* Append to out the template that line belongs to (its own tokens when it matches none): tokens
 * joined by single spaces, <*> where the learnt lines differ, <#> for a number. */
void template_match(const struct template_set *t, const char *line, struct buf *out);
/* How many templates were learnt. */
size_t template_count(const struct template_set *t);

#endif
