/* test-esc.c: escaping text from corpora, stores and frontends (lib/esc.h). */
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "esc.h"
#include "tap.h"

static char *escaped(const char *s, unsigned flags)
{
	struct buf b = BUF_INIT;

	esc_add(&b, s, flags);
	return buf_detach(&b);
}

static void is_esc(const char *s, unsigned flags, const char *want, const char *name)
{
	char *got = escaped(s, flags);

	is(got, want, "%s", name);
	free(got);
}

int main(void)
{
	plan(16);
	is_esc("Conv2d", 0, "Conv2d", "plain text is unchanged");
	is_esc("héllo → 世界 🙂", 0, "héllo → 世界 🙂", "valid UTF-8 is unchanged");
	is_esc("\033[31mred\033[0m", 0, "\\x1b[31mred\\x1b[0m", "ESC is escaped, so no colour reaches the terminal");
	is_esc("a\nb\tc\rd", 0, "a\\nb\\tc\\rd", "one line: newline, tab and carriage return are escaped");
	is_esc("a\nb\tc\rd", ESC_LINES, "a\nb\tc\\rd", "multi-line: newline and tab stay, carriage return does not");
	is_esc("a\033b\n", ESC_LINES, "a\\x1bb\n", "multi-line text loses its ESC");
	is_esc("\x7f\x01", 0, "\\x7f\\x01", "DEL and other C0 controls");
	is_esc("x\xc2\x9b" "31m", 0, "x\\u009b31m", "C1 CSI (U+009B) in UTF-8 is escaped");
	is_esc("x\x9b" "31m", 0, "x\\x9b31m", "a lone 0x9b byte (CSI to a Latin-1 terminal) is escaped");
	is_esc("\xc0\xaf", 0, "\\xc0\\xaf", "an overlong form is invalid UTF-8");
	is_esc("\xed\xa0\x80", 0, "\\xed\\xa0\\x80", "a surrogate is invalid UTF-8");
	is_esc("ab\xe4\xb8", 0, "ab\\xe4\\xb8", "a cut-off sequence at the end");
	is_esc("\xef\xbf\xbe", 0, "\\ufffe", "the noncharacter U+FFFE (forbidden in XML)");
	is_esc("<a href=\"x\">&'</a>", ESC_XML, "&lt;a href=&quot;x&quot;&gt;&amp;&apos;&lt;/a&gt;", "XML specials");
	is_esc("C:\\path", 0, "C:\\path", "backslashes stay as they are");
	ok(!strcmp(esc_str(NULL), "") && esc_is_clean("ok", 0) && !esc_is_clean("\033", 0),
	   "NULL is empty; esc_is_clean tells clean text from dirty");
	return done();
}
