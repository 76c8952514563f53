/* rank.c: the compact corpus (struct rank_set), its loading, the seeded order, the dispatch to the
 * strategies, and the queue file. */
#include "rank.h"
#include "canon.h"
#include "coverage.h"
#include "fast.h"
#include "fsutil.h"
#include "jsonl.h"
#include "opera.h"
#include "xalloc.h"

#include <cjson/cJSON.h>
#include <dirent.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

void rank_set_init(struct rank_set *s)
{
	memset(s, 0, sizeof(*s));
	intern_init(&s->ops);
	intern_init(&s->params);
	intern_init(&s->libs);
	intern_init(&s->by_id);
}

void rank_set_release(struct rank_set *s)
{
	free(s->op);
	free(s->tier);
	free(s->id_hash);
	free(s->id_off);
	free(s->poff);
	free(s->pslot);
	free(s->pcode);
	free(s->ids);
	intern_release(&s->ops);
	free(s->op_count);
	free(s->op_nslots);
	intern_release(&s->params);
	free(s->slot_op);
	free(s->slot_local);
	free(s->sig);
	free(s->coff);
	free(s->cov);
	intern_release(&s->libs);
	intern_release(&s->by_id);
	free(s->by_id_first);
	rank_set_init(s);
}

static void grow_instances(struct rank_set *s)
{
	size_t c;

	if (s->n + 1 <= s->cap)
		return;
	c = s->cap ? 2 * s->cap : 1024;
	s->op = xrealloc(s->op, c * sizeof(*s->op));
	s->tier = xrealloc(s->tier, c * sizeof(*s->tier));
	s->id_hash = xrealloc(s->id_hash, c * sizeof(*s->id_hash));
	s->id_off = xrealloc(s->id_off, c * sizeof(*s->id_off));
	s->poff = xrealloc(s->poff, (c + 1) * sizeof(*s->poff));
	if (s->want_sig)
		s->sig = xrealloc(s->sig, c * RANK_SIG * sizeof(*s->sig));
	s->cap = c;
}

/* A string with its length and intern_hash, which a loader's threads compute. */
struct hstr {
	const char *s;
	size_t len;
	uint64_t h;
};

static struct hstr hstr_of(const char *str)
{
	struct hstr x = { str, strlen(str), 0 };

	x.h = intern_hash(str, x.len);
	return x;
}

static uint32_t add_op(struct rank_set *s, const struct hstr *op)
{
	int added;
	uint32_t o = intern_add_hashed(&s->ops, 0, op->s, op->len, op->h, &added);

	if (added) {
		if (o + 1 > s->opcap) {
			size_t c = s->opcap ? 2 * s->opcap : 64;

			s->op_count = xrealloc(s->op_count, c * sizeof(*s->op_count));
			s->op_nslots = xrealloc(s->op_nslots, c * sizeof(*s->op_nslots));
			s->opcap = c;
		}
		s->op_count[o] = 0;
		s->op_nslots[o] = 0;
	}
	s->op_count[o]++;
	return o;
}

static uint32_t add_slot(struct rank_set *s, uint32_t o, const char *name, size_t len, uint64_t h)
{
	int added;
	uint32_t g = intern_add_hashed(&s->params, o + 1, name, len, h, &added);

	if (added) {
		if (g + 1 > s->slotcap) {
			size_t c = s->slotcap ? 2 * s->slotcap : 256;

			s->slot_op = xrealloc(s->slot_op, c * sizeof(*s->slot_op));
			s->slot_local = xrealloc(s->slot_local, c * sizeof(*s->slot_local));
			s->slotcap = c;
		}
		s->slot_op[g] = o;
		s->slot_local[g] = s->op_nslots[o]++;
	}
	return g;
}

/* rank_set_add with the strings' hashes given (phash[k] for p[k].name). The id's hash is
 * intern_hash's, which is XXH3_64bits: id_hash is the same either way. */
static uint32_t add_hashed(struct rank_set *s, const struct hstr *id, const struct hstr *op, enum rank_tier tier,
			   const struct subspace_param *p, const uint64_t *phash, size_t np)
{
	uint32_t i = (uint32_t)s->n;
	size_t idlen = id->len;

	grow_instances(s);
	if (!i)
		s->poff[0] = 0;
	s->op[i] = add_op(s, op);
	s->tier[i] = (uint8_t)tier;
	s->id_hash[i] = id->h;
	XGROW(s->ids, s->ids_cap, s->ids_len + idlen + 1);
	memcpy(s->ids + s->ids_len, id->s, idlen);
	s->ids[s->ids_len + idlen] = '\0';
	s->id_off[i] = s->ids_len;
	s->ids_len += idlen + 1;
	if (s->np + np > s->npcap) {
		size_t c = s->npcap;

		XGROW(s->pslot, c, s->np + np);
		XGROW(s->pcode, s->npcap, s->np + np);
	}
	for (size_t k = 0; k < np; k++) {
		uint32_t g = add_slot(s, s->op[i], p[k].name, p[k].len,
				      phash ? phash[k] : intern_hash(p[k].name, p[k].len));

		s->pslot[s->np] = s->slot_local[g];
		s->pcode[s->np] = p[k].code;
		s->np++;
	}
	s->poff[i + 1] = s->np;
	if (s->want_sig)
		for (int k = 0; k < RANK_SIG; k++)
			s->sig[(size_t)i * RANK_SIG + k] = UINT64_MAX;
	s->n++;
	return i;
}

uint32_t rank_set_add(struct rank_set *s, const char *id, const char *op, enum rank_tier tier,
		      const struct subspace_param *p, size_t np)
{
	struct hstr hid = hstr_of(id), hop = hstr_of(op);

	return add_hashed(s, &hid, &hop, tier, p, NULL, np);
}

enum rank_tier rank_tier_of(const struct instance *in)
{
	const cJSON *wrap, *status;

	if (in->unmigratable)
		return RANK_TIER_UNMIGRATABLE;
	wrap = in->extra ? cJSON_GetObjectItemCaseSensitive(in->extra, "wrap") : NULL;
	status = wrap ? cJSON_GetObjectItemCaseSensitive(wrap, "status") : NULL;
	if (cJSON_IsString(status) && !strcmp(status->valuestring, "invalid"))
		return RANK_TIER_INVALID;
	return RANK_TIER_OK;
}

uint32_t rank_set_add_record(struct rank_set *s, const struct instance *in, struct subspace_row *row,
			     struct buf *scratch)
{
	uint32_t i;

	subspace_row_fill(row, in);
	i = rank_set_add(s, in->id, in->op ? in->op : "", rank_tier_of(in), row->p, row->n);
	if (in->library)
		intern_add(&s->libs, 0, in->library, strlen(in->library), NULL);
	if (s->want_sig) {
		buf_reset(scratch);
		record_canonical(in, scratch);
		fast_signature(scratch->data, scratch->len, &s->sig[(size_t)i * RANK_SIG]);
	}
	return i;
}

const char *rank_set_id(const struct rank_set *s, uint32_t i)
{
	return s->ids + s->id_off[i];
}

const char *rank_set_op(const struct rank_set *s, uint32_t i)
{
	return intern_str(&s->ops, s->op[i]);
}

uint32_t rank_set_find(struct rank_set *s, const char *id)
{
	uint32_t d;

	/* Index whatever was added since the last call; the first instance of an id wins. */
	for (; s->by_id_n < s->n; s->by_id_n++) {
		const char *x = rank_set_id(s, (uint32_t)s->by_id_n);
		int added;

		d = intern_add(&s->by_id, 0, x, strlen(x), &added);
		if (added) {
			s->by_id_first = xrealloc(s->by_id_first, s->by_id.n * sizeof(*s->by_id_first));
			s->by_id_first[d] = (uint32_t)s->by_id_n;
		}
	}
	d = intern_find(&s->by_id, 0, id, strlen(id));
	return d == UINT32_MAX ? UINT32_MAX : s->by_id_first[d];
}

/* --- loading, on several threads -------------------------------------------------------------------- */

/* Parsing and validating records (lib/record.c) is most of the cost of loading a corpus, and each line
 * is independent: worker threads parse blocks of whole lines into the few things the ranking keeps,
 * and the calling thread adds them to the set in corpus order, so the set -- and every queue -- is
 * the same as a one-line-at-a-time load would give. A bounded ring of blocks keeps memory flat. */

#define LOAD_BLOCK (4u << 20)
#define LOAD_SLOTS 8
#define LOAD_MAX_WORKERS 8

enum { SLOT_FREE, SLOT_READY, SLOT_BUSY, SLOT_DONE };

struct parsed {
	size_t line;
	int bad;                 /* 1: msg is "FILE:LINE: why"; 2: not selected (--op, --test) */
	enum rank_tier tier;
	size_t id, op, lib, msg; /* offsets into the block's strings */
	size_t idlen, oplen, liblen;
	uint64_t idh, oph, libh; /* their intern_hash, computed on the worker's thread */
	size_t p0, np;           /* parameters: pname/plen/phash/pcode[p0 .. p0 + np) */
	uint64_t sig[RANK_SIG];
};

struct block {
	char *text;
	size_t len, cap, first_line;
	int long_first;          /* its first line stands for one beyond JSONL_MAX_LINE (read_block) */
	int state;
	struct parsed *rec;
	size_t nrec, reccap;
	struct buf strs;
	size_t *pname;           /* offsets into strs */
	size_t *plen;
	uint64_t *phash;
	uint64_t *pcode;
	size_t npar, parcap;
};

struct loader {
	const char *path;
	int want_sig;
	int cjson_only;
	const struct select *select;
	struct block slot[LOAD_SLOTS];
	size_t next_fill, next_claim;
	int eof;
	pthread_mutex_t mu;
	pthread_cond_t cv;
};

static size_t add_str(struct buf *b, const char *s)
{
	size_t at = b->len;

	buf_adds(b, s);
	buf_addc(b, '\0');
	return at;
}

/* Keep a string of the record with its length and hash. */
static size_t add_hstr(struct buf *b, const char *s, size_t *len, uint64_t *h)
{
	size_t at = b->len;

	*len = strlen(s);
	*h = intern_hash(s, *len);
	buf_add(b, s, *len + 1);
	return at;
}

/* What a worker thread keeps from line to line. */
struct parser {
	struct subspace_row row;
	struct buf scratch;
	struct canon canon;
};

static void parser_init(struct parser *ps)
{
	subspace_row_init(&ps->row);
	buf_init(&ps->scratch);
	canon_init(&ps->canon);
}

static void parser_release(struct parser *ps)
{
	subspace_row_release(&ps->row);
	buf_release(&ps->scratch);
	canon_release(&ps->canon);
}

/* Keep what the ranking needs of a record: in is the instance, text its canonical form (NULL: to
 * be written when needed), tier its tier. */
static void keep_record(struct loader *L, struct block *b, struct parsed *r, const struct instance *in,
			const struct buf *text, enum rank_tier tier, struct parser *ps)
{
	struct subspace_row *row = &ps->row;

	r->bad = 0;
	r->tier = tier;
	r->id = add_hstr(&b->strs, in->id, &r->idlen, &r->idh);
	r->op = add_hstr(&b->strs, in->op, &r->oplen, &r->oph);
	r->lib = add_hstr(&b->strs, in->library, &r->liblen, &r->libh);
	subspace_row_fill(row, in);
	r->p0 = b->npar;
	r->np = row->n;
	if (b->npar + row->n > b->parcap) {
		size_t c = b->parcap;

		XGROW(b->pname, c, b->npar + row->n);
		c = b->parcap;
		XGROW(b->plen, c, b->npar + row->n);
		c = b->parcap;
		XGROW(b->phash, c, b->npar + row->n);
		XGROW(b->pcode, b->parcap, b->npar + row->n);
	}
	for (size_t k = 0; k < row->n; k++) {
		b->pname[b->npar] = b->strs.len;
		b->plen[b->npar] = row->p[k].len;
		b->phash[b->npar] = intern_hash(row->p[k].name, row->p[k].len);
		buf_add(&b->strs, row->p[k].name, row->p[k].len);
		buf_addc(&b->strs, '\0');
		b->pcode[b->npar++] = row->p[k].code;
	}
	if (L->want_sig) {
		if (!text) {
			buf_reset(&ps->scratch);
			record_canonical(in, &ps->scratch);
			text = &ps->scratch;
		}
		fast_signature(text->data, text->len, r->sig);
	}
}

/* A line that ferry wrote is read by the canonical reader (lib/canon.h), which gives the same
 * instance as record_parse without its cost; any other line, or every line when cjson_only, goes
 * through record_parse, which also names what is wrong with a bad one. */
static void parse_line(struct loader *L, struct block *b, const char *line, size_t len, size_t lineno,
		       struct parser *ps)
{
	struct instance in;
	struct err e = ERR_INIT;
	struct parsed *r;

	XGROW(b->rec, b->reccap, b->nrec + 1);
	r = &b->rec[b->nrec++];
	r->line = lineno;
	/* The canonical reader keeps no annotations, so a --test selection (source.test) reads every
	 * line the slow way; --op alone needs only the operator, which it has. */
	if (!L->cjson_only && !(L->select && L->select->ntests) && canon_parse(&ps->canon, line, len) == 0) {
		const struct canon *c = &ps->canon;

		if (select_any(L->select) && !select_match(L->select, c->in.op, NULL)) {
			r->bad = 2;
			return;
		}
		keep_record(L, b, r, &c->in, &c->text, c->in.unmigratable ? RANK_TIER_UNMIGRATABLE :
			    c->wrap_invalid ? RANK_TIER_INVALID : RANK_TIER_OK, ps);
		return;
	}
	if (record_parse(&in, line, len, &e) < 0) {
		char *msg = xasprintf("%s:%zu: %s", L->path, lineno, e.msg);

		r->bad = 1;
		r->msg = add_str(&b->strs, msg);
		free(msg);
		err_release(&e);
		return;
	}
	if (select_any(L->select) && !select_instance(L->select, &in)) {
		r->bad = 2;
		record_release(&in);
		return;
	}
	keep_record(L, b, r, &in, NULL, rank_tier_of(&in), ps);
	record_release(&in);
}

static void parse_block(struct loader *L, struct block *b, struct parser *ps)
{
	const char *p = b->text, *end = b->text + b->len;
	size_t lineno = b->first_line;

	b->nrec = 0;
	b->npar = 0;
	buf_reset(&b->strs);
	if (b->long_first) {
		struct parsed *r;
		char *msg = xasprintf("%s:%zu: line longer than %zu MiB", L->path, lineno, JSONL_MAX_LINE >> 20);

		XGROW(b->rec, b->reccap, b->nrec + 1);
		r = &b->rec[b->nrec++];
		memset(r, 0, sizeof(*r));
		r->line = lineno;
		r->bad = 1;
		r->msg = add_str(&b->strs, msg);
		free(msg);
	}
	for (; p < end; lineno++) {
		const char *nl = memchr(p, '\n', (size_t)(end - p)), *q;
		size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p);

		while (n > 0 && p[n - 1] == '\r')
			n--;
		for (q = p; q < p + n && (*q == ' ' || *q == '\t'); q++)
			;
		if (q < p + n)
			parse_line(L, b, p, n, lineno, ps);
		p = nl ? nl + 1 : end;
	}
}

static void *load_worker(void *arg)
{
	struct loader *L = arg;
	struct parser ps;

	parser_init(&ps);
	pthread_mutex_lock(&L->mu);
	for (;;) {
		struct block *b;

		while (L->next_claim == L->next_fill && !L->eof)
			pthread_cond_wait(&L->cv, &L->mu);
		if (L->next_claim == L->next_fill)
			break;
		b = &L->slot[L->next_claim++ % LOAD_SLOTS];
		b->state = SLOT_BUSY;
		pthread_mutex_unlock(&L->mu);
		parse_block(L, b, &ps);
		pthread_mutex_lock(&L->mu);
		b->state = SLOT_DONE;
		pthread_cond_broadcast(&L->cv);
	}
	pthread_mutex_unlock(&L->mu);
	parser_release(&ps);
	return NULL;
}

/* The rest of a line too long to hold read through and dropped: b becomes an empty line in its
 * place (marked long_first) and whatever followed it. 0, or -1 on a read error. */
static int skip_line(FILE *fp, struct block *b)
{
	char chunk[65536];

	b->long_first = 1;
	b->text[0] = '\n';
	b->len = 1;
	for (;;) {
		size_t got = fread(chunk, 1, sizeof(chunk), fp);
		const char *nl = memchr(chunk, '\n', got);

		if (ferror(fp))
			return -1;
		if (!got)
			return 0;
		if (nl) {
			size_t rest = got - (size_t)(nl + 1 - chunk);

			XGROW(b->text, b->cap, 1 + rest);
			memcpy(b->text + 1, nl + 1, rest);
			b->len += rest;
			return 0;
		}
	}
}

/* Read the next block of whole lines into b: about LOAD_BLOCK bytes, more when a line is longer (a
 * graph's base64 can be); the start of a line that does not fit waits in carry for the next block.
 * A line beyond JSONL_MAX_LINE is not held: parse_block reports it as bad.
 * 1: a block; 0: the end; -1: a read error. */
static int read_block(FILE *fp, struct block *b, struct buf *carry, size_t *lines)
{
	size_t cut = 0;

	b->len = 0;
	b->long_first = 0;
	XGROW(b->text, b->cap, carry->len + LOAD_BLOCK);
	memcpy(b->text, carry->data, carry->len);
	b->len = carry->len;
	buf_reset(carry);
	for (;;) {
		size_t from = b->len, got;
		const char *nl;

		XGROW(b->text, b->cap, b->len + LOAD_BLOCK);
		got = fread(b->text + b->len, 1, LOAD_BLOCK, fp);
		if (ferror(fp))
			return -1;
		b->len += got;
		if (!got) {
			cut = b->len;   /* the end: the last line may lack its newline */
			break;
		}
		/* Neither the carry nor earlier reads have a newline: the first one ends the block's
		 * first line, which is not held when it is too long. */
		nl = memchr(b->text + from, '\n', got);
		if (nl ? (size_t)(nl - b->text) > JSONL_MAX_LINE : b->len > JSONL_MAX_LINE) {
			if (nl) {
				size_t rest = b->len - (size_t)(nl + 1 - b->text);

				memmove(b->text + 1, nl + 1, rest);
				b->text[0] = '\n';
				b->len = 1 + rest;
				b->long_first = 1;
			} else if (skip_line(fp, b) < 0) {
				return -1;
			}
			for (cut = b->len; cut > 1 && b->text[cut - 1] != '\n'; cut--)
				;
			break;
		}
		for (cut = b->len; cut > from && b->text[cut - 1] != '\n'; cut--)
			;
		if (cut > from)
			break;
	}
	buf_add(carry, b->text + cut, b->len - cut);
	b->len = cut;
	if (!b->len)
		return 0;
	b->first_line = *lines + 1;
	/* memchr, which goes a vector at a time, rather than a loop over the bytes: this runs on the
	 * thread that everything waits for. */
	for (const char *q = b->text, *end = b->text + b->len; (q = memchr(q, '\n', (size_t)(end - q))); q++)
		(*lines)++;
	if (b->text[b->len - 1] != '\n')
		(*lines)++;
	return 1;
}

/* Add a parsed block to the set, in order. */
static void take_block(struct rank_set *s, struct block *b, rank_bad_line_fn bad, void *ctx, size_t *nbad)
{
	struct subspace_param *p = NULL;
	size_t cap = 0;

	for (size_t k = 0; k < b->nrec; k++) {
		const struct parsed *r = &b->rec[k];
		const char *str = b->strs.data;
		uint32_t i;

		if (r->bad == 2) {
			s->left_out++;
			continue;
		}
		if (r->bad) {
			struct err e = ERR_INIT;

			(*nbad)++;
			err_set(&e, EXIT_INPUT, "%s", str + r->msg);
			if (bad)
				bad(ctx, &e);
			err_release(&e);
			continue;
		}
		XGROW(p, cap, r->np);
		for (size_t x = 0; x < r->np; x++) {
			p[x].name = str + b->pname[r->p0 + x];
			p[x].len = b->plen[r->p0 + x];
			p[x].code = b->pcode[r->p0 + x];
		}
		{
			struct hstr id = { str + r->id, r->idlen, r->idh }, op = { str + r->op, r->oplen, r->oph };

			i = add_hashed(s, &id, &op, r->tier, p, b->phash + r->p0, r->np);
		}
		intern_add_hashed(&s->libs, 0, str + r->lib, r->liblen, r->libh, NULL);
		if (s->want_sig)
			memcpy(&s->sig[(size_t)i * RANK_SIG], r->sig, sizeof(r->sig));
	}
	free(p);
}

int rank_set_load(struct rank_set *s, const char *path, rank_bad_line_fn bad, void *ctx, size_t *nbad,
		  struct err *e)
{
	struct loader L;
	struct buf carry = BUF_INIT;
	pthread_t th[LOAD_MAX_WORKERS];
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	int nth = 0, want = ncpu > LOAD_MAX_WORKERS ? LOAD_MAX_WORKERS : ncpu > 1 ? (int)ncpu : 1;
	size_t lines = 0, next_take = 0;
	FILE *fp = strcmp(path, "-") ? fopen(path, "r") : stdin;
	int ret = -1, rd = 1;

	*nbad = 0;
	if (!fp)
		return err_errno(e, errno == ENOENT || errno == EISDIR ? EXIT_INPUT : EXIT_ENV, "cannot open '%s'",
			path);
	memset(&L, 0, sizeof(L));
	L.path = path;
	L.want_sig = s->want_sig;
	L.cjson_only = s->reader == RANK_READER_CJSON;
	L.select = s->select;
	pthread_mutex_init(&L.mu, NULL);
	pthread_cond_init(&L.cv, NULL);
	for (int k = 0; k < LOAD_SLOTS; k++)
		buf_init(&L.slot[k].strs);
	for (int k = 0; k < want; k++)
		if (pthread_create(&th[nth], NULL, load_worker, &L) == 0)
			nth++;
	for (;;) {
		struct block *b;

		pthread_mutex_lock(&L.mu);
		/* Fill a free slot while there is input and room; otherwise wait for the oldest block. */
		if (!L.eof && L.next_fill - next_take < LOAD_SLOTS) {
			b = &L.slot[L.next_fill % LOAD_SLOTS];
			pthread_mutex_unlock(&L.mu);
			rd = read_block(fp, b, &carry, &lines);
			pthread_mutex_lock(&L.mu);
			if (rd == 1) {
				b->state = SLOT_READY;
				L.next_fill++;
			} else {
				L.eof = 1;
			}
			pthread_cond_broadcast(&L.cv);
			pthread_mutex_unlock(&L.mu);
			continue;
		}
		if (next_take == L.next_fill) {
			pthread_mutex_unlock(&L.mu);
			break;
		}
		b = &L.slot[next_take % LOAD_SLOTS];
		/* No worker started (or all failed to): parse here. */
		if (!nth && b->state == SLOT_READY) {
			struct parser ps;

			L.next_claim++;
			pthread_mutex_unlock(&L.mu);
			parser_init(&ps);
			parse_block(&L, b, &ps);
			parser_release(&ps);
			pthread_mutex_lock(&L.mu);
			b->state = SLOT_DONE;
		}
		while (b->state != SLOT_DONE)
			pthread_cond_wait(&L.cv, &L.mu);
		pthread_mutex_unlock(&L.mu);
		if (rd >= 0 && s->n + b->nrec >= UINT32_MAX - 1) {
			err_set(e, EXIT_INPUT, "%s: more than %u instances", path, UINT32_MAX - 2);
			rd = -2;
		}
		if (rd >= 0)
			take_block(s, b, bad, ctx, nbad);
		pthread_mutex_lock(&L.mu);
		b->state = SLOT_FREE;
		next_take++;
		if (rd == -2)
			L.eof = 1;
		pthread_mutex_unlock(&L.mu);
	}
	pthread_mutex_lock(&L.mu);
	L.eof = 1;
	pthread_cond_broadcast(&L.cv);
	pthread_mutex_unlock(&L.mu);
	for (int k = 0; k < nth; k++)
		pthread_join(th[k], NULL);
	if (rd == -1)
		err_errno(e, EXIT_ENV, "cannot read '%s'", path);
	else if (rd != -2)
		ret = 0;
	for (int k = 0; k < LOAD_SLOTS; k++) {
		free(L.slot[k].text);
		free(L.slot[k].rec);
		buf_release(&L.slot[k].strs);
		free(L.slot[k].pname);
		free(L.slot[k].plen);
		free(L.slot[k].phash);
		free(L.slot[k].pcode);
	}
	pthread_mutex_destroy(&L.mu);
	pthread_cond_destroy(&L.cv);
	buf_release(&carry);
	if (fp != stdin)
		fclose(fp);
	return ret;
}

/* --- coverage ----------------------------------------------------------------------------------- */

struct cov_pairs {
	uint32_t *inst, *elem;
	size_t n, cap;
	struct intern elems;
};

static void cov_pair(struct cov_pairs *cp, uint32_t inst, const char *el, size_t len)
{
	uint32_t e = intern_add(&cp->elems, 0, el, len, NULL);

	if (cp->n + 1 > cp->cap) {
		size_t c = cp->cap;

		XGROW(cp->inst, c, cp->n + 1);
		XGROW(cp->elem, cp->cap, cp->n + 1);
	}
	cp->inst[cp->n] = inst;
	cp->elem[cp->n] = e;
	cp->n++;
}

static int u32_cmp(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

/* Turn (instance, element) pairs into the set's CSR, each test's elements sorted and distinct. */
static void cov_finish(struct rank_set *s, struct cov_pairs *cp)
{
	size_t *fill;
	size_t w = 0;

	free(s->coff);
	free(s->cov);
	s->coff = xcalloc(s->n + 1, sizeof(*s->coff));
	for (size_t k = 0; k < cp->n; k++)
		s->coff[cp->inst[k] + 1]++;
	for (size_t i = 0; i < s->n; i++)
		s->coff[i + 1] += s->coff[i];
	fill = xmalloc((s->n + 1) * sizeof(*fill));
	memcpy(fill, s->coff, (s->n + 1) * sizeof(*fill));
	s->cov = xmalloc((cp->n ? cp->n : 1) * sizeof(*s->cov));
	for (size_t k = 0; k < cp->n; k++)
		s->cov[fill[cp->inst[k]]++] = cp->elem[k];
	s->ncovered = 0;
	for (size_t i = 0; i < s->n; i++) {
		size_t a = s->coff[i], b = s->coff[i + 1];

		qsort(s->cov + a, b - a, sizeof(*s->cov), u32_cmp);
		s->coff[i] = w;
		for (size_t k = a; k < b; k++)
			if (k == a || s->cov[k] != s->cov[k - 1])
				s->cov[w++] = s->cov[k];
		s->ncovered += b > a;
	}
	s->coff[s->n] = w;
	s->ncov = w;
	s->nelems = (uint32_t)cp->elems.n;
	free(fill);
}

static int cov_read_file(struct cov_pairs *cp, uint32_t inst, const char *path, struct err *e)
{
	FILE *fp = fopen(path, "r");
	char *line = NULL;
	size_t cap = 0;
	ssize_t n;
	int r = -1;

	if (!fp)
		return err_errno(e, EXIT_INPUT, "cannot open '%s'", path);
	while ((n = getline(&line, &cap, fp)) >= 0) {
		while (n > 0 && (line[n - 1] == '\n' || line[n - 1] == '\r' || line[n - 1] == ' '))
			line[--n] = '\0';
		if (n > 0)
			cov_pair(cp, inst, line, (size_t)n);
	}
	if (ferror(fp)) {
		err_errno(e, EXIT_ENV, "cannot read '%s'", path);
		goto out;
	}
	r = 0;
out:
	free(line);
	fclose(fp);
	return r;
}

static int cov_load_dir(struct rank_set *s, struct cov_pairs *cp, const char *path, size_t *unknown,
			struct err *e)
{
	DIR *d = opendir(path);
	struct dirent *de;
	int r = -1;

	if (!d)
		return err_errno(e, EXIT_INPUT, "cannot open '%s'", path);
	while ((de = readdir(d))) {
		char *dot, *id, *file;
		uint32_t i;

		if (de->d_name[0] == '.')
			continue;
		id = xstrdup(de->d_name);
		if ((dot = strchr(id, '.')))
			*dot = '\0';
		i = rank_set_find(s, id);
		free(id);
		if (i == UINT32_MAX) {
			(*unknown)++;
			continue;
		}
		file = xasprintf("%s/%s", path, de->d_name);
		if (cov_read_file(cp, i, file, e) < 0) {
			free(file);
			goto out;
		}
		free(file);
	}
	r = 0;
out:
	closedir(d);
	return r;
}

static int cov_load_jsonl(struct rank_set *s, struct cov_pairs *cp, const char *path, size_t *unknown,
			  struct err *e)
{
	struct jsonl_reader r;
	cJSON *j = NULL;
	int st, ret = -1;

	if (jsonl_open(&r, path, e) < 0)
		return -1;
	while ((st = jsonl_next_json(&r, &j, e)) != JSONL_END) {
		const cJSON *id, *covered, *it;
		uint32_t i;

		if (st != JSONL_OK)
			goto out;
		id = cJSON_GetObjectItemCaseSensitive(j, "id");
		covered = cJSON_GetObjectItemCaseSensitive(j, "covered");
		if (!cJSON_IsString(id) || !cJSON_IsArray(covered)) {
			err_set(e, EXIT_INPUT, "%s:%zu: expected {\"id\": \"...\", \"covered\": [...]}", path,
				r.lineno);
			goto out;
		}
		if ((i = rank_set_find(s, id->valuestring)) == UINT32_MAX) {
			(*unknown)++;
		} else {
			cJSON_ArrayForEach(it, covered) {
				if (!cJSON_IsString(it)) {
					err_set(e, EXIT_INPUT, "%s:%zu: covered: expected strings", path, r.lineno);
					goto out;
				}
				cov_pair(cp, i, it->valuestring, strlen(it->valuestring));
			}
		}
		cJSON_Delete(j);
		j = NULL;
	}
	ret = 0;
out:
	cJSON_Delete(j);
	jsonl_close(&r);
	return ret;
}

int rank_set_load_coverage(struct rank_set *s, const char *path, size_t *unknown, struct err *e)
{
	struct cov_pairs cp = { NULL, NULL, 0, 0, INTERN_INIT };
	struct stat st;
	int r;

	*unknown = 0;
	if (stat(path, &st) < 0)
		return err_errno(e, EXIT_INPUT, "cannot open '%s'", path);
	r = S_ISDIR(st.st_mode) ? cov_load_dir(s, &cp, path, unknown, e) : cov_load_jsonl(s, &cp, path, unknown, e);
	if (!r)
		cov_finish(s, &cp);
	free(cp.inst);
	free(cp.elem);
	intern_release(&cp.elems);
	return r;
}

/* --- queues and the seeded order ---------------------------------------------------------------- */

void rank_queue_init(struct rank_queue *q, size_t n)
{
	q->order = xmalloc((n ? n : 1) * sizeof(*q->order));
	q->score = xmalloc((n ? n : 1) * sizeof(*q->score));
	q->n = n;
}

void rank_queue_release(struct rank_queue *q)
{
	free(q->order);
	free(q->score);
	q->order = NULL;
	q->score = NULL;
	q->n = 0;
}

void rank_seeded_order(const struct rank_set *s, uint64_t seed, uint32_t *order, uint32_t *pos)
{
	size_t n = s->n;
	uint64_t *key = xmalloc((n ? n : 1) * sizeof(*key)), *key2 = xmalloc((n ? n : 1) * sizeof(*key2));
	uint32_t *ix = xmalloc((n ? n : 1) * sizeof(*ix)), *ix2 = xmalloc((n ? n : 1) * sizeof(*ix2));
	uint64_t salt = intern_mix(seed);
	size_t *cnt = xmalloc((1 << 16) * sizeof(*cnt));

	for (size_t i = 0; i < n; i++) {
		key[i] = intern_mix(s->id_hash[i] ^ salt);
		ix[i] = (uint32_t)i;
	}
	/* LSD radix sort, 16 bits a pass: stable, so equal keys (the same id twice) keep their order. */
	for (int shift = 0; shift < 64; shift += 16) {
		size_t sum = 0;

		memset(cnt, 0, (1 << 16) * sizeof(*cnt));
		for (size_t i = 0; i < n; i++)
			cnt[(key[i] >> shift) & 0xffff]++;
		for (size_t d = 0; d < (1 << 16); d++) {
			size_t c = cnt[d];

			cnt[d] = sum;
			sum += c;
		}
		for (size_t i = 0; i < n; i++) {
			size_t at = cnt[(key[i] >> shift) & 0xffff]++;

			key2[at] = key[i];
			ix2[at] = ix[i];
		}
		{
			uint64_t *tk = key;
			uint32_t *ti = ix;

			key = key2;
			key2 = tk;
			ix = ix2;
			ix2 = ti;
		}
	}
	for (size_t k = 0; k < n; k++) {
		if (order)
			order[k] = ix[k];
		if (pos)
			pos[ix[k]] = (uint32_t)k;
	}
	free(key);
	free(key2);
	free(ix);
	free(ix2);
	free(cnt);
}

uint64_t rank_random_seed(uint64_t seed)
{
	/* "random.1" in ASCII, and a mix: no seed of the tie-breaking order maps onto it by chance. */
	return intern_mix(seed ^ UINT64_C(0x72616e646f6d2e31));
}

int rank_run(const struct rank_set *s, const struct rank_opts *o, struct rank_queue *q,
	     struct rank_stats *st, struct err *e)
{
	uint32_t *order = xmalloc((s->n ? s->n : 1) * sizeof(*order));
	uint32_t *idx = xmalloc((s->n ? s->n : 1) * sizeof(*idx));
	double *opscore = NULL;
	size_t done = 0;
	int r = -1;

	if ((o->strategy == RANK_TOTAL || o->strategy == RANK_ADDITIONAL) && !s->coff) {
		err_set(e, EXIT_USAGE, "the %s strategy needs coverage (--coverage)", rank_strategy_name(o->strategy));
		goto out;
	}
	if (o->strategy == RANK_FAST && !s->sig) {
		err_set(e, EXIT_USAGE, "the fast strategy needs signatures: load the corpus with want_sig set");
		goto out;
	}
	rank_queue_release(q);
	rank_queue_init(q, s->n);
	if (st) {
		memset(st, 0, sizeof(*st));
		st->ops = s->ops.n;
	}
	if (o->strategy == RANK_OPERA) {
		if (st)
			st->have_cover = 1;
		opscore = xmalloc((s->ops.n ? s->ops.n : 1) * sizeof(*opscore));
		opera_op_scores(s, o->counts, opscore, st);
	}
	rank_seeded_order(s, o->strategy == RANK_RANDOM ? rank_random_seed(o->seed) : o->seed, order, NULL);
	for (int t = 0; t < RANK_TIERS; t++) {
		size_t n = 0;

		for (size_t k = 0; k < s->n; k++)
			if (s->tier[order[k]] == t)
				idx[n++] = order[k];
		if (st)
			st->tier[t] = n;
		if (!n)
			continue;
		switch (o->strategy) {
		case RANK_OPERA:
			/* Coverage is counted over what can run: the invalid and unmigratable never reach a
			 * frontend, so their parameters test nothing. */
			opera_rank(s, idx, n, opscore, o->jobs, q->order + done, q->score + done,
				   st && t == RANK_TIER_OK ? &st->cover : NULL);
			break;
		case RANK_RANDOM:
			memcpy(q->order + done, idx, n * sizeof(*idx));
			for (size_t k = 0; k < n; k++)
				q->score[done + k] = 0;
			break;
		case RANK_FAST:
			fast_rank(s, idx, n, o->fast, o->seed, q->order + done, q->score + done);
			break;
		case RANK_TOTAL:
		case RANK_ADDITIONAL:
			coverage_rank(s, idx, n, o->strategy == RANK_ADDITIONAL, q->order + done, q->score + done);
			break;
		}
		done += n;
	}
	r = 0;
out:
	free(order);
	free(idx);
	free(opscore);
	return r;
}

/* --- the queue file ----------------------------------------------------------------------------- */

static const char *const tier_names[RANK_TIERS] = { NULL, "invalid", "unmigratable" };

/* Decimal digits of v into the end of buf; returns the first digit. */
static char *utoa_end(char *end, uint64_t v)
{
	do {
		*--end = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	return end;
}

/* Ids and operator names are written as they are when they need no escaping (the usual case: hex
 * digits and identifiers), which keeps writing a million-line queue well under a second. */
static void add_plain_or_json(struct buf *out, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;

	for (; *p; p++)
		if (*p < 0x20 || *p == '"' || *p == '\\')
			break;
	if (*p) {
		buf_add_json_string(out, s);
		return;
	}
	buf_addc(out, '"');
	buf_add(out, s, (size_t)((const char *)p - s));
	buf_addc(out, '"');
}

void rank_queue_line(const struct rank_set *s, const struct rank_queue *q, size_t k, struct buf *out)
{
	uint32_t i = q->order[k];
	double sc = q->score[k];
	char num[48], *d;

	buf_adds(out, "{\"rank\":");
	d = utoa_end(num + sizeof(num), (uint64_t)k + 1);
	buf_add(out, d, (size_t)(num + sizeof(num) - d));
	buf_adds(out, ",\"id\":");
	add_plain_or_json(out, rank_set_id(s, i));
	buf_adds(out, ",\"op\":");
	add_plain_or_json(out, rank_set_op(s, i));
	if (sc == 0) {
		buf_adds(out, ",\"score\":0");
	} else {
		/* printf's %.6g, without printf's cost (a third of writing a million lines). */
		int n = canon_double_g(sc, 6, num);

		buf_adds(out, ",\"score\":");
		buf_add(out, num, (size_t)n);
	}
	if (tier_names[s->tier[i]]) {
		buf_adds(out, ",\"status\":\"");
		buf_adds(out, tier_names[s->tier[i]]);
		buf_addc(out, '"');
	}
	buf_addc(out, '}');
}

int rank_queue_write(const struct rank_set *s, const struct rank_queue *q, const char *path, struct err *e)
{
	struct buf b = BUF_INIT;
	/* A temporary file beside a regular target, renamed over it at the end, so that a reader (or a
	 * crash) never sees half a queue; a device or a pipe is written in place (fsutil.h). */
	struct fs_output out = FS_OUTPUT_INIT;
	FILE *fp;
	int r = -1;

	if (fs_output_open(&out, path, e) < 0)
		return -1;
	fp = out.fp;
	for (size_t k = 0; k < q->n; k++) {
		/* The queue visits the set in a random order: fetch ahead what the lines will read, the
		 * per-instance entries 16 lines ahead and the id they point to 8 lines ahead, so that a line
		 * does not wait for main memory four times over. */
		if (k + 16 < q->n) {
			uint32_t a = q->order[k + 16];

			__builtin_prefetch(&s->id_off[a]);
			__builtin_prefetch(&s->op[a]);
			__builtin_prefetch(&s->tier[a]);
		}
		if (k + 8 < q->n)
			__builtin_prefetch(s->ids + s->id_off[q->order[k + 8]]);
		rank_queue_line(s, q, k, &b);
		buf_addc(&b, '\n');
		if (b.len >= 1 << 20 || k + 1 == q->n) {
			if (fwrite(b.data, 1, b.len, fp) != b.len)
				break;
			buf_reset(&b);
		}
	}
	if (ferror(fp)) {
		err_errno(e, EXIT_ENV, "cannot write '%s'", strcmp(path, "-") ? path : "standard output");
		fs_output_abort(&out);
		goto out;
	}
	r = fs_output_commit(&out, e);
out:
	buf_release(&b);
	return r;
}

/* --- names -------------------------------------------------------------------------------------- */

static const char *const strategy_names[] = {
	[RANK_OPERA] = "opera", [RANK_RANDOM] = "random", [RANK_FAST] = "fast",
	[RANK_TOTAL] = "total", [RANK_ADDITIONAL] = "additional",
};

const char *rank_strategy_name(enum rank_strategy st)
{
	return strategy_names[st];
}

int rank_strategy_parse(const char *name, enum rank_strategy *st)
{
	for (size_t i = 0; i < sizeof(strategy_names) / sizeof(strategy_names[0]); i++)
		if (!strcmp(name, strategy_names[i])) {
			*st = (enum rank_strategy)i;
			return 0;
		}
	return -1;
}

int rank_fast_parse(const char *name, enum rank_fast_variant *v)
{
	static const char *const names[] = {
		[RANK_FAST_PW] = "pw", [RANK_FAST_ONE] = "one", [RANK_FAST_LOG] = "log",
		[RANK_FAST_SQRT] = "sqrt", [RANK_FAST_ALL] = "all",
	};

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (!strcmp(name, names[i])) {
			*v = (enum rank_fast_variant)i;
			return 0;
		}
	return -1;
}
