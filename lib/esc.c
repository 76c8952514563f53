/* esc.c: escaping text from corpora, stores and frontends for terminals and reports (esc.h). */
#include "esc.h"

#include <string.h>

/* The length of the valid UTF-8 sequence at p (1 to 4) with its code point in *cp, or 0 when the
 * bytes at p are not one (overlong forms, surrogates, beyond U+10FFFF, a cut-off sequence). */
static size_t utf8_seq(const unsigned char *p, unsigned *cp)
{
	unsigned c = p[0];
	unsigned char lo = 0x80, hi = 0xbf;
	size_t n;

	if (c < 0x80) {
		*cp = c;
		return 1;
	}
	if (c >= 0xc2 && c <= 0xdf) {
		n = 2;
		*cp = c & 0x1f;
	} else if (c >= 0xe0 && c <= 0xef) {
		n = 3;
		*cp = c & 0x0f;
		if (c == 0xe0)
			lo = 0xa0;
		else if (c == 0xed)
			hi = 0x9f;
	} else if (c >= 0xf0 && c <= 0xf4) {
		n = 4;
		*cp = c & 0x07;
		if (c == 0xf0)
			lo = 0x90;
		else if (c == 0xf4)
			hi = 0x8f;
	} else {
		return 0;
	}
	for (size_t i = 1; i < n; i++) {
		if (p[i] < (i == 1 ? lo : 0x80) || p[i] > (i == 1 ? hi : 0xbf))
			return 0;
		*cp = (*cp << 6) | (p[i] & 0x3f);
	}
	return n;
}

static const char hex[] = "0123456789abcdef";

static void add_hex_byte(struct buf *b, unsigned char c)
{
	char t[4] = { '\\', 'x', hex[c >> 4], hex[c & 15] };

	buf_add(b, t, 4);
}

static void add_code_point(struct buf *b, unsigned cp)
{
	char t[6] = { '\\', 'u', hex[(cp >> 12) & 15], hex[(cp >> 8) & 15], hex[(cp >> 4) & 15], hex[cp & 15] };

	buf_add(b, t, 6);
}

void esc_add(struct buf *b, const char *s, unsigned flags)
{
	const unsigned char *p = (const unsigned char *)s;

	if (!s)
		return;
	while (*p) {
		const unsigned char *run = p;
		unsigned cp;
		size_t n;

		/* The common case, plain printable ASCII, is copied a run at a time. */
		while (*p >= 0x20 && *p < 0x7f && !((flags & ESC_XML) && strchr("&<>\"'", *p)))
			p++;
		if (p > run)
			buf_add(b, run, (size_t)(p - run));
		if (!*p)
			break;
		n = utf8_seq(p, &cp);
		if (!n) {
			add_hex_byte(b, *p++);
			continue;
		}
		if (cp == '\n' || cp == '\t') {
			if (flags & ESC_LINES)
				buf_addc(b, (char)cp);
			else
				buf_adds(b, cp == '\n' ? "\\n" : "\\t");
		} else if (cp == '\r') {
			buf_adds(b, "\\r");
		} else if (cp < 0x20 || cp == 0x7f) {
			add_hex_byte(b, (unsigned char)cp);
		} else if ((cp >= 0x80 && cp <= 0x9f) || cp == 0xfffe || cp == 0xffff) {
			add_code_point(b, cp);
		} else if (cp == '&') {
			buf_adds(b, "&amp;");
		} else if (cp == '<') {
			buf_adds(b, "&lt;");
		} else if (cp == '>') {
			buf_adds(b, "&gt;");
		} else if (cp == '"') {
			buf_adds(b, "&quot;");
		} else if (cp == '\'') {
			buf_adds(b, "&apos;");
		} else {
			buf_add(b, p, n);
		}
		p += n;
	}
}

int esc_is_clean(const char *s, unsigned flags)
{
	struct buf b = BUF_INIT;
	int clean;

	esc_add(&b, s, flags);
	clean = !strcmp(b.data, s ? s : "");
	buf_release(&b);
	return clean;
}

#define RING 16

static const char *ring_add(const char *s, unsigned flags)
{
	static struct buf ring[RING] = { [0 ... RING - 1] = BUF_INIT };
	static unsigned next;
	struct buf *b = &ring[next++ % RING];

	buf_reset(b);
	esc_add(b, s, flags);
	return b->data;
}

const char *esc_str(const char *s)
{
	return ring_add(s, 0);
}

const char *esc_lines(const char *s)
{
	return ring_add(s, ESC_LINES);
}
