#include <stdio.h>
#include <stdlib.h>

/* Each line below breaks one rule of tests/style/checksrc; tests/style/checksrc.sh expects each at
 * its line. The file has no header comment at its top, which is the first rule broken. */
int frob(void);

static int helper(void)
{
	return 0; // a C++ comment
}

int frob(void)
{
	char *p = malloc(16);

	printf("lib/ must not print\n");
	sqlite3_prepare_v2(NULL, "SELECT 1", -1, NULL, NULL);
	PyList_New(0);
        free(p);
	return helper(); 
	/* a line that is far too long: ......................................................................................... */
}
