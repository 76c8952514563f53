/* opera.c: the diversity ranking: per-operator greedy selection with incremental rescoring, and the
 * heap merge of the operators' sequences. */
#include "opera.h"
#include "heap.h"
#include "intern.h"
#include "xalloc.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define PAIR_SLOTS 64
#define DONE UINT32_MAX   /* the count of a chosen instance: no longer rescored */

void opera_op_scores(const struct rank_set *s, const struct counts *c, double *opscore, struct rank_stats *st)
{
	size_t nops = s->ops.n;

	if (st) {
		st->ops = nops;
		st->ops_counted = 0;
		st->counts_unknown = 0;
		st->unknown_example[0] = '\0';
	}
	for (uint32_t o = 0; o < nops; o++) {
		uint64_t t = 0;

		if (c) {
			uint32_t id = intern_find(&c->ops, 0, intern_str(&s->ops, o), strlen(intern_str(&s->ops, o)));

			if (id != UINT32_MAX) {
				t = c->count[id];
				if (st)
					st->ops_counted++;
			}
		}
		opscore[o] = c ? ((double)s->op_count[o] + 1) / ((double)t + 1) : 1.0;
	}
	if (!c || !st)
		return;
	for (size_t i = 0; i < counts_size(c); i++) {
		const char *name = counts_name(c, i);

		if (intern_find(&s->ops, 0, name, strlen(name)) == UINT32_MAX) {
			if (!st->counts_unknown++)
				snprintf(st->unknown_example, sizeof(st->unknown_example), "%s", name);
		}
	}
}

void opera_shape(const struct rank_set *s, uint32_t o, uint32_t *P, uint32_t *F)
{
	uint32_t p = s->op_nslots[o] ? s->op_nslots[o] : 1;
	uint32_t pc = p < PAIR_SLOTS ? p : PAIR_SLOTS;

	*P = p;
	*F = p + pc * (pc - 1) / 2;
}

/* --- per-level bitmaps ------------------------------------------------------------------------- */

/* Level c holds the instances with c unseen features; the two-level bitmap finds the earliest of a
 * level without scanning empty words, and the hint remembers where the first set summary word was. */
struct levels {
	uint64_t *bits;     /* (F + 1) * W */
	uint64_t *sum;      /* (F + 1) * SW */
	uint32_t *hint;     /* F + 1 */
	uint32_t *n;        /* F + 1 */
	size_t W, SW;
};

static void levels_init(struct levels *l, uint32_t m, uint32_t F)
{
	size_t nl = (size_t)F + 1;

	l->W = ((size_t)m + 63) / 64;
	l->SW = (l->W + 63) / 64;
	l->bits = xcalloc(nl * l->W, sizeof(uint64_t));
	l->sum = xcalloc(nl * l->SW, sizeof(uint64_t));
	l->hint = xcalloc(nl, sizeof(uint32_t));
	l->n = xcalloc(nl, sizeof(uint32_t));
	/* Everyone starts at level F: nothing has been seen. */
	for (uint32_t j = 0; j < m; j++)
		l->bits[(size_t)F * l->W + j / 64] |= 1ULL << (j % 64);
	for (size_t w = 0; w < l->W; w++)
		l->sum[(size_t)F * l->SW + w / 64] |= 1ULL << (w % 64);
	l->n[F] = m;
}

static void levels_release(struct levels *l)
{
	free(l->bits);
	free(l->sum);
	free(l->hint);
	free(l->n);
}

static void levels_set(struct levels *l, uint32_t c, uint32_t j)
{
	size_t w = j / 64, sw = w / 64;

	l->bits[c * l->W + w] |= 1ULL << (j % 64);
	l->sum[c * l->SW + sw] |= 1ULL << (w % 64);
	if (sw < l->hint[c])
		l->hint[c] = (uint32_t)sw;
	l->n[c]++;
}

static void levels_clear(struct levels *l, uint32_t c, uint32_t j)
{
	size_t w = j / 64;
	uint64_t *word = &l->bits[c * l->W + w];

	*word &= ~(1ULL << (j % 64));
	if (!*word)
		l->sum[c * l->SW + w / 64] &= ~(1ULL << (w % 64));
	l->n[c]--;
}

/* The earliest instance at level c, which must not be empty. */
static uint32_t levels_first(struct levels *l, uint32_t c)
{
	const uint64_t *sum = &l->sum[c * l->SW];
	size_t sw = l->hint[c], w;

	while (!sum[sw])
		sw++;
	l->hint[c] = (uint32_t)sw;
	w = sw * 64 + (size_t)__builtin_ctzll(sum[sw]);
	return (uint32_t)(w * 64 + (size_t)__builtin_ctzll(l->bits[c * l->W + w]));
}

/* --- one operator -------------------------------------------------------------------------------- */

struct op_tables {
	uint32_t m, P, Pc, F;
	uint32_t *sub;      /* m * P: the subspace of each parameter of each instance */
	uint32_t *lbase;    /* P + 1: where parameter p's subspaces start in lo */
	uint32_t *lo;       /* lbase[P] + 1: instances with (p, s) are lidx[lo[lbase[p]+s] .. lo[lbase[p]+s+1]) */
	uint32_t *lidx;     /* m * P */
	uint64_t *seen1;    /* bit per (p, s) */
	/* Pairs seen: a bitmap of S_p x S_q bits where that is small (almost always), else a hash set. */
	uint64_t *pbase;    /* Pc * Pc: bit offset of pair (p, q) in seen2, or NO_BITMAP */
	uint64_t *seen2;
	struct idmap seen2h;
	const uint32_t *j2r; /* m: row j's place in the seeded order of the operator (levels use it) */
	uint32_t *cnt;      /* unseen features per instance, DONE once chosen */
	uint32_t *dec;      /* decrements gathered while processing one choice */
	uint32_t *touched;
	/* scratch for one choice: the pairs each walked parameter checks */
	uint8_t *walk;      /* P: 0 not walked, 1 walked */
	uint8_t *single;    /* P: its single is new */
	uint32_t *grp;      /* P * Pc: the other ends of the pairs assigned to p */
	uint32_t *ngrp;     /* P */
};

#define NO_BITMAP UINT64_MAX
#define PAIR_BITMAP_MAX (1u << 16)

/* The rows of one operator, copied out of the set in corpus order so that building its tables reads
 * memory front to back: row j's parameters are slot[off[j] .. off[j+1]), code[...]. */
struct op_rows {
	const size_t *off;
	const uint32_t *slot;
	const uint64_t *code;
	const uint32_t *j2r;
};

/* Build the tables of operator o from its m rows. Rows are indexed in corpus order (j); the seeded
 * order (r) matters only for ties, so only the levels use it. The subspace codes become dense
 * indices per parameter here, through a table of this operator's codes only, small enough to stay
 * in cache. */
static void tables_build(struct op_tables *t, const struct rank_set *s, uint32_t o, const struct op_rows *rw,
			 uint32_t m)
{
	uint32_t P, F, *nsub;
	uint32_t *fill;
	uint64_t bits = 0;
	struct idmap dense;
	size_t total;

	opera_shape(s, o, &P, &F);
	t->m = m;
	t->P = P;
	t->Pc = P < PAIR_SLOTS ? P : PAIR_SLOTS;
	t->F = F;
	t->j2r = rw->j2r;
	t->sub = xmalloc((size_t)m * P * sizeof(uint32_t));
	nsub = xcalloc(P, sizeof(uint32_t));
	idmap_init(&dense);
	for (uint32_t j = 0; j < m; j++) {
		uint32_t *row = &t->sub[(size_t)j * P];

		for (uint32_t p = 0; p < P; p++)
			row[p] = UINT32_MAX;
		for (size_t k = rw->off[j]; k < rw->off[j + 1]; k++) {
			uint32_t p = rw->slot[k];
			int added;

			row[p] = idmap_put(&dense, p, rw->code[k], nsub[p], &added);
			nsub[p] += (uint32_t)added;
		}
	}
	/* A parameter left out is at "default": one more subspace, after those seen. */
	t->lbase = xmalloc(((size_t)P + 1) * sizeof(uint32_t));
	t->lbase[0] = 0;
	for (uint32_t p = 0; p < P; p++)
		t->lbase[p + 1] = t->lbase[p] + nsub[p] + 1;
	for (size_t k = 0; k < (size_t)m * P; k++)
		if (t->sub[k] == UINT32_MAX)
			t->sub[k] = nsub[k % P];
	idmap_release(&dense);
	free(nsub);
	/* Counting sort of (p, s) -> instances. */
	total = t->lbase[P];
	t->lo = xcalloc(total + 1, sizeof(uint32_t));
	for (uint32_t j = 0; j < m; j++)
		for (uint32_t p = 0; p < P; p++)
			t->lo[t->lbase[p] + t->sub[(size_t)j * P + p] + 1]++;
	for (size_t k = 0; k < total; k++)
		t->lo[k + 1] += t->lo[k];
	fill = xmalloc((total + 1) * sizeof(uint32_t));
	memcpy(fill, t->lo, total * sizeof(uint32_t));
	t->lidx = xmalloc((size_t)m * P * sizeof(uint32_t));
	for (uint32_t j = 0; j < m; j++)
		for (uint32_t p = 0; p < P; p++)
			t->lidx[fill[t->lbase[p] + t->sub[(size_t)j * P + p]]++] = j;
	free(fill);
	t->seen1 = xcalloc((total + 63) / 64 + 1, sizeof(uint64_t));
	t->pbase = xmalloc((size_t)t->Pc * t->Pc * sizeof(uint64_t));
	for (uint32_t p = 0; p < t->Pc; p++)
		for (uint32_t q = p + 1; q < t->Pc; q++) {
			uint64_t sp = t->lbase[p + 1] - t->lbase[p], sq = t->lbase[q + 1] - t->lbase[q];

			if (sp * sq <= PAIR_BITMAP_MAX) {
				t->pbase[p * t->Pc + q] = bits;
				bits += sp * sq;
			} else {
				t->pbase[p * t->Pc + q] = NO_BITMAP;
			}
		}
	t->seen2 = xcalloc(bits / 64 + 1, sizeof(uint64_t));
	idmap_init(&t->seen2h);
	t->cnt = xmalloc((size_t)m * sizeof(uint32_t));
	for (uint32_t j = 0; j < m; j++)
		t->cnt[j] = F;
	t->dec = xcalloc(m, sizeof(uint32_t));
	t->touched = xmalloc((size_t)m * sizeof(uint32_t));
	t->walk = xcalloc(P, 1);
	t->single = xcalloc(P, 1);
	t->grp = xmalloc((size_t)P * t->Pc * sizeof(uint32_t));
	t->ngrp = xcalloc(P, sizeof(uint32_t));
}

static void tables_release(struct op_tables *t)
{
	free(t->sub);
	free(t->lbase);
	free(t->lo);
	free(t->lidx);
	free(t->seen1);
	free(t->pbase);
	free(t->seen2);
	idmap_release(&t->seen2h);
	free(t->cnt);
	free(t->dec);
	free(t->touched);
	free(t->walk);
	free(t->single);
	free(t->grp);
	free(t->ngrp);
}

/* Mark pair (p, q) with subspaces (a, b) seen; 1 if it was new. */
static int see_pair(struct op_tables *t, uint32_t p, uint32_t q, uint32_t a, uint32_t b)
{
	uint64_t base = t->pbase[p * t->Pc + q], bit;
	int added;

	if (base == NO_BITMAP) {
		idmap_put(&t->seen2h, (uint64_t)p * PAIR_SLOTS + q, (uint64_t)a << 32 | b, 0, &added);
		return added;
	}
	bit = base + (uint64_t)a * (t->lbase[q + 1] - t->lbase[q]) + b;
	if (t->seen2[bit / 64] & (1ULL << (bit % 64)))
		return 0;
	t->seen2[bit / 64] |= 1ULL << (bit % 64);
	return 1;
}

static uint32_t list_len(const struct op_tables *t, uint32_t p, uint32_t s)
{
	uint32_t f = t->lbase[p] + s;

	return t->lo[f + 1] - t->lo[f];
}

/* Instance j was chosen with `fresh` unseen features: mark them seen and lower the counts of every
 * other instance that has them.
 *
 * A new single (p, s) lowers every instance in the list of (p, s). A new pair (p, q) lowers the
 * instances in both lists; it is found by walking one of them and checking the other parameter in
 * the instance's row. Each pair is given to an end whose list is walked anyway (a new single, or
 * another pair's choice) when there is one, else to the shorter list, so that each list is walked
 * at most once and each row read once per walk: the walks are memory-bound, the checks are not. */
static void choose(struct op_tables *t, struct levels *l, uint32_t j, uint32_t fresh)
{
	const uint32_t P = t->P, Pc = t->Pc;
	const uint32_t *row = &t->sub[(size_t)j * P];
	uint32_t nt = 0;

	t->cnt[j] = DONE;
	for (uint32_t p = 0; p < P && fresh; p++) {
		uint32_t f = t->lbase[p] + row[p];

		if (t->seen1[f / 64] & (1ULL << (f % 64)))
			continue;
		t->seen1[f / 64] |= 1ULL << (f % 64);
		t->single[p] = t->walk[p] = 1;
		fresh--;
	}
	for (uint32_t p = 0; p < Pc && fresh; p++) {
		for (uint32_t q = p + 1; q < Pc && fresh; q++) {
			uint32_t a, b;

			if (!see_pair(t, p, q, row[p], row[q]))
				continue;
			fresh--;
			if (t->walk[p] != t->walk[q])
				a = t->walk[p] ? p : q;
			else
				a = list_len(t, p, row[p]) <= list_len(t, q, row[q]) ? p : q;
			b = a == p ? q : p;
			t->walk[a] = 1;
			t->grp[a * Pc + t->ngrp[a]++] = b;
		}
	}
	for (uint32_t p = 0; p < P; p++) {
		const uint32_t *g = &t->grp[p * Pc];
		uint32_t f, ng = t->ngrp[p], base = t->single[p];

		if (!t->walk[p])
			continue;
		f = t->lbase[p] + row[p];
		for (uint32_t k = t->lo[f]; k < t->lo[f + 1]; k++) {
			uint32_t i = t->lidx[k], d = base;
			const uint32_t *r = &t->sub[(size_t)i * P];

			if (t->cnt[i] == DONE)
				continue;
			for (uint32_t x = 0; x < ng; x++)
				d += r[g[x]] == row[g[x]];
			if (d) {
				if (!t->dec[i])
					t->touched[nt++] = i;
				t->dec[i] += d;
			}
		}
		t->walk[p] = t->single[p] = 0;
		t->ngrp[p] = 0;
	}
	for (uint32_t k = 0; k < nt; k++) {
		uint32_t i = t->touched[k], c = t->cnt[i];

		levels_clear(l, c, t->j2r[i]);
		t->cnt[i] = c - t->dec[i];
		levels_set(l, t->cnt[i], t->j2r[i]);
		t->dec[i] = 0;
	}
}

/* The greedy sequence of one operator: seq[k] is the seeded position (in idx) of the instance chosen
 * k-th, sc[k] its score; r2k maps the operator's seeded order to positions in idx. */
static void op_sequence(const struct rank_set *s, uint32_t o, const struct op_rows *rw, const uint32_t *r2k,
			uint32_t m, double opscore, uint32_t *seq, double *sc, uint64_t *singles, uint64_t *features)
{
	struct op_tables t;
	struct levels l;
	uint32_t top, *r2j = xmalloc((size_t)m * sizeof(uint32_t));
	uint64_t fresh = 0;

	for (uint32_t j = 0; j < m; j++)
		r2j[rw->j2r[j]] = j;
	tables_build(&t, s, o, rw, m);
	levels_init(&l, m, t.F);
	top = t.F;
	/* The coverage: a single is a non-empty list of (p, s); the features are counted as the greedy
	 * sees them new, which is every distinct one of the operator's instances once the last is chosen. */
	*singles = 0;
	for (uint32_t f = 0; f < t.lbase[t.P]; f++)
		*singles += t.lo[f + 1] > t.lo[f];
	for (uint32_t k = 0; k < m; k++) {
		uint32_t r, j;

		while (!l.n[top])
			top--;
		r = levels_first(&l, top);
		levels_clear(&l, top, r);
		j = r2j[r];
		seq[k] = r2k[r];
		sc[k] = top ? opscore * ((double)top / t.F) : 0.0;
		fresh += top;
		if (top)
			choose(&t, &l, j, top);
		else
			t.cnt[j] = DONE;
	}
	*features = fresh;
	levels_release(&l);
	tables_release(&t);
	free(r2j);
}

/* --- the merge ---------------------------------------------------------------------------------- */

struct merge {
	const uint32_t *seq;     /* per operator block: positions in idx, in chosen order */
	const double *sc;
	const uint32_t *start;   /* block of operator o: [start[o], start[o+1]) */
	uint32_t *head;          /* next unconsumed entry of each block */
};

/* Operators take turns: an operator's k-th instance goes before any operator's (k+1)-th, and within a
 * turn the better score goes first. Merged by score alone, the compiler's counts (which spread the
 * operators' scores over orders of magnitude) let a few operators the compiler's tests rarely use
 * fill the first quarter of the queue with their every instance: on the main job's ONNX stores that
 * found fewer causes than random orders, which reach a hundred operators in the first tenth
 * (bench/rank-causes). The scores still order the operators within a turn, and each operator's own
 * instances by what they add. */
static int merge_before(uint32_t a, uint32_t b, const void *ctx)
{
	const struct merge *mg = ctx;
	uint32_t ha = mg->head[a], hb = mg->head[b];
	uint32_t ta = ha - mg->start[a], tb = hb - mg->start[b];

	if (ta != tb)
		return ta < tb;
	if (mg->sc[ha] != mg->sc[hb])
		return mg->sc[ha] > mg->sc[hb];
	return mg->seq[ha] < mg->seq[hb];
}

/* --- the operators' sequences, on several threads ------------------------------------------------ */

/* Operators are independent until the merge, so threads take them one at a time, largest first (the
 * largest bounds the wall time). Each writes only its own slices of seq and sc, so the result does not
 * depend on the number of threads or on their timing. */
struct seq_work {
	const struct rank_set *s;
	const uint32_t *start, *j2r, *r2k, *slot, *by_size;
	const size_t *roff;
	const uint64_t *code;
	const double *opscore;
	uint32_t *seq;
	double *sc;
	uint64_t *singles, *features;   /* per operator */
	size_t nops;
	atomic_size_t next;
};

static void *seq_worker(void *arg)
{
	struct seq_work *w = arg;
	size_t x;

	while ((x = atomic_fetch_add(&w->next, 1)) < w->nops) {
		uint32_t o = w->by_size[x], a = w->start[o], m = w->start[o + 1] - a;
		struct op_rows rw = { w->roff + a, w->slot, w->code, w->j2r + a };

		if (m)
			op_sequence(w->s, o, &rw, w->r2k + a, m, w->opscore[o], w->seq + a, w->sc + a, &w->singles[o],
				    &w->features[o]);
	}
	return NULL;
}

/* An operator and its size packed in one word: size in the high half, so that sorting the words in
 * descending order puts the largest operators first. */
static int u64_desc(const void *pa, const void *pb)
{
	uint64_t a = *(const uint64_t *)pa, b = *(const uint64_t *)pb;

	return a < b ? 1 : a > b ? -1 : 0;
}

static void run_sequences(const struct rank_set *s, const uint32_t *start, const size_t *roff, const uint32_t *slot,
			  const uint64_t *code, const uint32_t *j2r, const uint32_t *r2k, const double *opscore,
			  uint32_t *seq, double *sc, uint64_t *singles, uint64_t *features, int jobs)
{
	size_t nops = s->ops.n;
	uint32_t *by_size = xmalloc((nops ? nops : 1) * sizeof(uint32_t));
	struct seq_work w = { s, start, j2r, r2k, slot, by_size, roff, code, opscore, seq, sc, singles, features,
			      nops, 0 };
	pthread_t *th;
	int started = 0;

	uint64_t *key = xmalloc((nops ? nops : 1) * sizeof(uint64_t));

	for (uint32_t o = 0; o < nops; o++)
		key[o] = (uint64_t)(start[o + 1] - start[o]) << 32 | (UINT32_MAX - o);
	qsort(key, nops, sizeof(*key), u64_desc);
	for (size_t x = 0; x < nops; x++)
		by_size[x] = UINT32_MAX - (uint32_t)key[x];
	free(key);
	if (jobs <= 0) {
		long c = sysconf(_SC_NPROCESSORS_ONLN);

		jobs = c > 0 ? (int)c : 1;
	}
	if ((size_t)jobs > nops)
		jobs = nops ? (int)nops : 1;
	th = xmalloc((size_t)jobs * sizeof(*th));
	/* The calling thread is one of the workers; a thread that cannot start just means fewer. */
	for (int k = 1; k < jobs; k++)
		if (pthread_create(&th[started], NULL, seq_worker, &w) == 0)
			started++;
	seq_worker(&w);
	for (int k = 0; k < started; k++)
		pthread_join(th[k], NULL);
	free(th);
	free(by_size);
}

/* The instances of a tier laid out by operator: operator o's block is [start[o], start[o+1]), and
 * within a block r numbers the instances in the seeded order. Each row (in corpus order within its
 * block) holds its pairs at [roff, roff of the next); j2r maps a row to its r, r2k an r to its
 * position in idx. */
struct blocks {
	uint32_t *start;
	uint32_t *r2k, *j2r;
	size_t *roff;
	uint32_t *rslot;
	uint64_t *rcode;
};

static void lay_out(const struct rank_set *s, const uint32_t *idx, size_t n, struct blocks *bl)
{
	size_t nops = s->ops.n, np = 0;
	uint32_t *start = xcalloc(nops + 1, sizeof(uint32_t));
	uint32_t *fill = xmalloc((nops + 1) * sizeof(uint32_t));
	size_t *pstart = xcalloc(nops + 1, sizeof(size_t));
	size_t *pfill = xmalloc((nops + 1) * sizeof(size_t));
	uint32_t *rloc = xmalloc(s->n * sizeof(uint32_t));
	uint32_t *r2k = xmalloc(n * sizeof(uint32_t));
	uint32_t *j2r = xmalloc(n * sizeof(uint32_t));
	size_t *roff = xmalloc((n + 1) * sizeof(size_t));
	uint32_t *rslot;
	uint64_t *rcode;
	unsigned char *in_tier = xcalloc(s->n, 1);

	/* Operator blocks; within a block, r numbers the instances in the seeded order. */
	for (size_t k = 0; k < n; k++) {
		uint32_t i = idx[k];

		in_tier[i] = 1;
		start[s->op[i] + 1]++;
		pstart[s->op[i] + 1] += s->poff[i + 1] - s->poff[i];
	}
	for (size_t o = 0; o < nops; o++) {
		start[o + 1] += start[o];
		pstart[o + 1] += pstart[o];
	}
	np = pstart[nops];
	memcpy(fill, start, (nops + 1) * sizeof(uint32_t));
	for (size_t k = 0; k < n; k++) {
		uint32_t i = idx[k], o = s->op[i], at = fill[o]++;

		rloc[i] = at - start[o];
		r2k[at] = (uint32_t)k;
	}
	/* Copy the rows out in corpus order: a front-to-back read of the set, and one front-to-back
	 * write stream per operator. */
	rslot = xmalloc(np * sizeof(uint32_t));
	rcode = xmalloc(np * sizeof(uint64_t));
	memcpy(fill, start, (nops + 1) * sizeof(uint32_t));
	memcpy(pfill, pstart, (nops + 1) * sizeof(size_t));
	for (uint32_t i = 0; i < s->n; i++) {
		uint32_t o, at;
		size_t a, b;

		if (!in_tier[i])
			continue;
		o = s->op[i];
		at = fill[o]++;
		a = s->poff[i];
		b = s->poff[i + 1];
		j2r[at] = rloc[i];
		roff[at] = pfill[o];
		if (b > a) {
			memcpy(rslot + pfill[o], s->pslot + a, (b - a) * sizeof(uint32_t));
			memcpy(rcode + pfill[o], s->pcode + a, (b - a) * sizeof(uint64_t));
			pfill[o] += b - a;
		}
	}
	roff[n] = np;
	free(rloc);
	free(in_tier);
	free(fill);
	free(pstart);
	free(pfill);
	*bl = (struct blocks){ start, r2k, j2r, roff, rslot, rcode };
}

/* Each operator's sequence falls from its best score to a tail of zeros. The heap merges the
 * scored parts, turn by turn (merge_before); the zeros all tie, so they follow in the seeded
 * order, which a scan of idx gives without a heap operation each. */
static void merge_sequences(size_t nops, const uint32_t *idx, size_t n, const uint32_t *start, uint32_t *seq,
			    const double *sc, uint32_t *out, double *score)
{
	uint32_t *head = xmalloc((nops + 1) * sizeof(uint32_t));
	struct merge mg = { seq, sc, start, head };
	unsigned char *zero;
	size_t done;
	struct heap h;

	heap_init(&h, nops, merge_before, &mg);
	for (uint32_t o = 0; o < nops; o++) {
		head[o] = start[o];
		if (start[o + 1] > start[o] && sc[start[o]] > 0)
			heap_push(&h, o);
	}
	done = 0;
	while (h.n) {
		uint32_t o = heap_top(&h), at = head[o];

		out[done] = idx[seq[at]];
		score[done++] = sc[at];
		seq[at] = UINT32_MAX;
		if (++head[o] == start[o + 1] || sc[head[o]] == 0)
			heap_pop(&h);
		else
			heap_update(&h, o);
	}
	zero = xcalloc(n, 1);
	for (size_t x = 0; x < n; x++)
		if (seq[x] != UINT32_MAX)
			zero[seq[x]] = 1;
	for (size_t k = 0; k < n; k++)
		if (zero[k]) {
			out[done] = idx[k];
			score[done++] = 0;
		}
	free(zero);
	heap_release(&h);
	free(head);
}

void opera_rank(const struct rank_set *s, const uint32_t *idx, size_t n, const double *opscore, int jobs,
		uint32_t *out, double *score, struct rank_cover *cover)
{
	size_t nops = s->ops.n;
	uint32_t *seq = xmalloc(n * sizeof(uint32_t));
	double *sc = xmalloc(n * sizeof(double));
	/* Zeroed: an operator with no instance here is never visited and covers nothing. */
	uint64_t *singles = xcalloc(nops + 1, sizeof(uint64_t)), *features = xcalloc(nops + 1, sizeof(uint64_t));
	struct blocks bl;

	lay_out(s, idx, n, &bl);
	run_sequences(s, bl.start, bl.roff, bl.rslot, bl.rcode, bl.j2r, bl.r2k, opscore, seq, sc, singles, features,
		      jobs);
	if (cover) {
		memset(cover, 0, sizeof(*cover));
		for (uint32_t o = 0; o < nops; o++) {
			cover->ops += bl.start[o + 1] > bl.start[o];
			cover->singles += singles[o];
			cover->pairs += features[o] - singles[o];
		}
	}
	free(singles);
	free(features);
	free(bl.rslot);
	free(bl.rcode);
	free(bl.roff);
	free(bl.j2r);
	free(bl.r2k);
	merge_sequences(nops, idx, n, bl.start, seq, sc, out, score);
	free(bl.start);
	free(seq);
	free(sc);
}
