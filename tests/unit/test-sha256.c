/* test-sha256.c: SHA-256 (lib/sha256.h) against FIPS 180-4's examples and the padding's edges (55,
 * 56 and 64 bytes: one block of padding or two), checked against Python's hashlib. */
#include <stdio.h>
#include <string.h>

#include "sha256.h"
#include "tap.h"

static void is_sha(const char *s, size_t n, const char *want, const char *name)
{
	uint8_t d[32];
	char hex[65];

	sha256_digest(s, n, d);
	for (int i = 0; i < 32; i++)
		snprintf(hex + 2 * i, 3, "%02x", d[i]);
	is(hex, want, "%s", name);
}

int main(void)
{
	char a[200];

	memset(a, 'a', sizeof(a));
	plan(6);
	is_sha("", 0, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855", "empty");
	is_sha("abc", 3, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad", "abc");
	is_sha("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq", 56,
	       "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1", "two blocks of padding");
	is_sha(a, 55, "9f4390f8d30c2dd92ec9f095b65e2b9ae9b0a925a5258e241c9f1e910f734318", "55 bytes: one block");
	is_sha(a, 64, "ffe054fe7ae0cb6dc65c3af9b61d5209f439851db43d0ba5997337df154668eb", "64 bytes");
	is_sha(a, 200, "c2a908d98f5df987ade41b5fce213067efbcc21ef2240212a41e54b5e7c28ae5", "200 bytes");
	return done();
}
