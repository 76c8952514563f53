/* protocol.c: the protocol's words as the constants of the _ferry module (lib/py.h's py_words), so
 * that the Python side spells no key of its own: _ferry.NAME is PROTO_NAME, for each NAME of
 * PROTO_EXPORTS. lib/py.c reads the table and includes nothing of pool/'s. */
#include "py.h"
#include "protocol.h"

const struct py_word py_words[] = {
#define PROTO_WORD(name) { #name, PROTO_##name },
	PROTO_EXPORTS(PROTO_WORD)
#undef PROTO_WORD
	{ NULL, NULL },
};
