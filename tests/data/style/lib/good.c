/* good.c: what tests/style/checksrc accepts: a header comment, exports named after the file, tabs,
 * the xmalloc family, no printing. "// not a comment" and "malloc(" inside a string are text. */
#include <stdlib.h>

#include "xalloc.h"

int good_frob(void);

static const char text[] = "// not a comment, malloc(1), printf(x)";

int good_frob(void)
{
	char *p = xmalloc(16);

	free(p);
	return (int)sizeof(text);
}
