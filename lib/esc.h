/* esc.h: text from outside ferry made safe to show. Operator names, ids, messages and tracebacks come
 * from corpora, stores and frontends; printed raw, an ESC byte in one of them drives the terminal
 * (colours, cursor moves, a cleared screen, a retitled window), a newline forges a line of a report
 * or of a baseline file, and a control character makes JUnit XML unreadable. Everything ferry prints
 * or writes into a report that came from such a source passes through here.
 *
 * What is escaped: C0 controls (below 0x20) and DEL as \n, \t, \r or \xNN; C1 controls (U+0080 to
 * U+009F, which some terminals obey as they obey ESC) as \u0080; the noncharacters U+FFFE and U+FFFF
 * (forbidden in XML) as \uFFFE; and each byte of invalid UTF-8 as \xNN (a lone 0x9b byte is CSI to a
 * terminal that is not in UTF-8 mode). Backslashes stay as they are: escapes are for reading, and
 * Windows paths and regular expressions in messages would suffer. */
#ifndef FERRY_ESC_H
#define FERRY_ESC_H

#include "buf.h"

enum esc_flags {
	ESC_LINES = 1 << 0, /* keep newlines and tabs: multi-line text such as a traceback or a script */
	ESC_XML = 1 << 1,   /* also write & < > " ' as XML entities (for attributes and text alike) */
};

/* Append s (NULL: nothing) to b, escaped. */
void esc_add(struct buf *b, const char *s, unsigned flags);
/* s escaped as one line, in one of a ring of 16 buffers owned here: valid until 16 more calls of
 * esc_str or esc_lines. Made for printf arguments: printf("%s %s\n", esc_str(op), esc_str(msg)). */
const char *esc_str(const char *s);
/* The same, keeping newlines and tabs. */
const char *esc_lines(const char *s);
/* Whether s would come out of esc_add(flags) unchanged. */
int esc_is_clean(const char *s, unsigned flags);

#endif
