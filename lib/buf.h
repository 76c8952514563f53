/* buf.h: a growable byte buffer that always keeps a terminating NUL (like git's strbuf). */
#ifndef FERRY_BUF_H
#define FERRY_BUF_H

#include <stdarg.h>
#include <stddef.h>

struct buf {
	char *data; /* owned; "" (static) until the first append */
	size_t len;
	size_t cap;
};

extern char buf_empty[];
#define BUF_INIT { buf_empty, 0, 0 }

void buf_init(struct buf *b);
void buf_release(struct buf *b);
/* Hand the contents to the caller (never NULL) and reset the buffer. */
char *buf_detach(struct buf *b);
void buf_reset(struct buf *b);
void buf_grow(struct buf *b, size_t extra);
void buf_add(struct buf *b, const void *p, size_t n);
void buf_adds(struct buf *b, const char *s);
void buf_addc(struct buf *b, char c);
void buf_addf(struct buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void buf_vaddf(struct buf *b, const char *fmt, va_list ap) __attribute__((format(printf, 2, 0)));
/* Append s as a JSON string literal, quotes included. */
void buf_add_json_string(struct buf *b, const char *s);

#endif
