/* fuzz-record.c: a libFuzzer harness for the corpus reader and the canonical writer (lib/jsonl.c,
 * lib/record.c), built by "make fuzz" and, briefly, by tests/fuzz/fuzz-short.sh in "make check".
 *
 * The input is read as a corpus file: line by line through jsonl_next, and whole through record_parse
 * and jsonl_next_json. Bad input must be refused with a message, never crash, leak or trip a
 * sanitizer. Every record that is accepted must survive the round trip that a corpus goes through
 * between harvest, merge and run: parse -> write -> parse -> write gives the same bytes, the same
 * canonical form and the same id. A record that changed its id on the way would be two instances in
 * the store. The canonical-line reader (lib/canon.c, which ferry rank uses) must agree with
 * record_parse on every line it takes, the input's and each written one: same id, canonical form,
 * unmigratable flag, wrap status and subspace codes. A failed invariant prints both sides and aborts,
 * which libFuzzer reports as a crash. */
#include <cjson/cJSON.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "canon.h"
#include "jsonl.h"
#include "record.h"
#include "subspace.h"
#include "xalloc.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void fail(const char *what, const char *a, const char *b)
{
	fprintf(stderr, "fuzz-record: %s\n  first:  %s\n  second: %s\n", what, a, b);
	abort();
}

static struct canon cn;
static int cn_ready;

/* rank_tier_of's reading of the wrap annotation (prioritize/rank.c, not linked here). */
static int wrap_invalid(const struct instance *in)
{
	const cJSON *wrap = in->extra ? cJSON_GetObjectItemCaseSensitive(in->extra, "wrap") : NULL;
	const cJSON *status = wrap ? cJSON_GetObjectItemCaseSensitive(wrap, "status") : NULL;

	return cJSON_IsString(status) && !strcmp(status->valuestring, "invalid");
}

static void codes(const struct instance *in, struct buf *out)
{
	struct subspace_row row;

	subspace_row_init(&row);
	subspace_row_fill(&row, in);
	buf_addf(out, "%s %s %d %d", in->op, in->library, (int)in->unmigratable, (int)row.n);
	for (size_t i = 0; i < row.n; i++)
		buf_addf(out, " %.*s=%llx", (int)row.p[i].len, row.p[i].name, (unsigned long long)row.p[i].code);
	subspace_row_release(&row);
}

/* A line the canonical reader takes reads the same through record_parse. */
static void check_canon(const char *text, size_t len)
{
	struct instance slow;
	struct err e = ERR_INIT;
	struct buf c1 = BUF_INIT, c2 = BUF_INIT, k1 = BUF_INIT, k2 = BUF_INIT;

	if (!cn_ready) {
		canon_init(&cn);
		cn_ready = 1;
	}
	if (canon_parse(&cn, text, len) < 0)
		return;
	if (record_parse(&slow, text, len, &e) < 0)
		fail("the canonical reader took a line that record_parse refuses", text, e.msg);
	record_canonical(&slow, &c1);
	record_canonical(&cn.in, &c2);
	if (strcmp(c1.data, cn.text.data) || strcmp(c2.data, cn.text.data))
		fail("the canonical reader's canonical form differs", c1.data, cn.text.data);
	if (strcmp(slow.id, cn.in.id))
		fail("the canonical reader's id differs", slow.id, cn.in.id);
	if (wrap_invalid(&slow) != cn.wrap_invalid)
		fail("the canonical reader's wrap status differs", text, cn.wrap_invalid ? "invalid" : "not invalid");
	codes(&slow, &k1);
	codes(&cn.in, &k2);
	if (strcmp(k1.data, k2.data))
		fail("the canonical reader's parameters differ", k1.data, k2.data);
	record_release(&slow);
	err_release(&e);
	buf_release(&c1);
	buf_release(&c2);
	buf_release(&k1);
	buf_release(&k2);
}

static void check_roundtrip(const struct instance *in)
{
	struct instance again;
	struct err e = ERR_INIT;
	struct buf c1 = BUF_INIT, c2 = BUF_INIT, w1 = BUF_INIT, w2 = BUF_INIT;

	record_canonical(in, &c1);
	record_write(in, &w1);
	if (memchr(w1.data, '\n', w1.len))
		fail("a written record spans lines", w1.data, "");
	check_canon(w1.data, w1.len);
	if (record_parse(&again, w1.data, w1.len, &e) < 0)
		fail("the written form does not read back", w1.data, e.msg);
	record_canonical(&again, &c2);
	record_write(&again, &w2);
	if (strcmp(c1.data, c2.data))
		fail("the canonical form changed on a round trip", c1.data, c2.data);
	if (strcmp(w1.data, w2.data))
		fail("writing is not a fixed point", w1.data, w2.data);
	if (strcmp(in->id, again.id))
		fail("the id changed on a round trip", in->id, again.id);
	if (in->unmigratable != again.unmigratable)
		fail("unmigratable changed on a round trip", w1.data, w2.data);
	record_release(&again);
	err_release(&e);
	buf_release(&c1);
	buf_release(&c2);
	buf_release(&w1);
	buf_release(&w2);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct jsonl_reader r = JSONL_READER_INIT;
	struct instance in;
	struct err e = ERR_INIT;
	enum jsonl_status st;
	cJSON *j;

	check_canon((const char *)data, size);
	/* The whole input as one record, as src/cmd-harvest.c and oracle/dedup.c hand text over. */
	if (record_parse(&in, (const char *)data, size, &e) == 0) {
		check_roundtrip(&in);
		record_release(&in);
	}

	/* fmemopen refuses a zero-sized buffer. */
	if (!size)
		goto out;
	r.fp = fmemopen((void *)data, size, "r");
	if (!r.fp)
		goto out;
	r.path = xstrdup("fuzz");
	while ((st = jsonl_next(&r, &in, &e)) != JSONL_END && st != JSONL_FAIL) {
		if (st != JSONL_OK)
			continue;
		check_roundtrip(&in);
		record_release(&in);
	}
	jsonl_close(&r);

	/* Queues and manifests: any JSON object per line. */
	r = (struct jsonl_reader)JSONL_READER_INIT;
	r.fp = fmemopen((void *)data, size, "r");
	if (!r.fp)
		goto out;
	r.path = xstrdup("fuzz");
	while ((st = jsonl_next_json(&r, &j, &e)) != JSONL_END && st != JSONL_FAIL)
		cJSON_Delete(j);
	jsonl_close(&r);
out:
	err_release(&e);
	return 0;
}
