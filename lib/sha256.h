/* sha256.h: SHA-256 (FIPS 180-4), for the hash of the HTML page's own script that its
 * Content-Security-Policy names (report/htmlreport.c): the page runs that script and nothing else.
 * No library ferry depends on offers it (xxhash is not a cryptographic hash). */
#ifndef FERRY_SHA256_H
#define FERRY_SHA256_H

#include <stddef.h>
#include <stdint.h>

/* The 32-byte digest of data[0..n) into out. */
void sha256_digest(const void *data, size_t n, uint8_t out[32]);

#endif
