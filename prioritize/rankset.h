/* rankset.h: what rank.c and the strategies it runs (opera.h, fast.h, coverage.h) share: the
 * loaded corpus as struct rank_set, the tiers, FAST's sizes and variants, and the coverage and
 * stats a ranking reports back. Types only, so that a strategy's header does not include rank.h,
 * whose rank_run calls the strategies (rank.h describes the set, the strategies and the queue).
 *
 * Ownership: the set owns all its arrays and strings (rank_set_release in rank.h). */
#ifndef FERRY_RANKSET_H
#define FERRY_RANKSET_H

#include <stddef.h>
#include <stdint.h>

#include "intern.h"

struct select;

/* Tiers run in this order. */
enum rank_tier { RANK_TIER_OK = 0, RANK_TIER_INVALID = 1, RANK_TIER_UNMIGRATABLE = 2 };
#define RANK_TIERS 3

/* FAST: the number of minhash functions (bands x rows, one row per band, as in Miranda et al.) and
 * the shingle length. */
#define RANK_SIG 10
#define RANK_SHINGLE 5

/* rank_set_load reads a line that ferry wrote with the canonical reader (lib/canon.h) and any other
 * with cJSON (record_parse); RANK_READER_CJSON reads every line with cJSON, the old path, kept to
 * measure the new one against and to check that both give the same queue. */
enum rank_reader { RANK_READER_AUTO, RANK_READER_CJSON };

struct rank_set {
	size_t n, cap;
	/* per instance */
	uint32_t *op;
	uint8_t *tier;
	uint64_t *id_hash;      /* of the id string; the seeded order hashes it with the seed */
	size_t *id_off;         /* into ids */
	size_t *poff;           /* n + 1 entries: the parameters of i are [poff[i], poff[i+1]) */
	uint32_t *pslot;        /* the parameter's index within its operator */
	uint64_t *pcode;        /* its subspace code (made dense per operator when ranking, where the
	                         * tables are small enough to stay in cache) */
	size_t np, npcap;
	char *ids;
	size_t ids_len, ids_cap;
	/* per operator (ids from ops) */
	struct intern ops;
	uint32_t *op_count;     /* instances */
	uint32_t *op_nslots;    /* parameters seen: the union of names */
	size_t opcap;
	/* per parameter (global ids from params: scope = operator + 1) */
	struct intern params;
	uint32_t *slot_op;      /* its operator */
	uint32_t *slot_local;   /* its index within the operator */
	size_t slotcap;
	/* optional */
	uint64_t *sig;          /* n * RANK_SIG minhash values, when want_sig */
	int want_sig;           /* set before adding anything: compute FAST signatures */
	const struct select *select;  /* set before loading: only the instances it selects (--op,
	                               * --test; NULL: all); left_out counts the others */
	size_t left_out;
	enum rank_reader reader; /* how rank_set_load reads lines (default: the canonical reader first) */
	size_t *coff;           /* n + 1, when coverage was loaded */
	uint32_t *cov;          /* covered element ids */
	size_t ncov;
	uint32_t nelems;        /* distinct covered elements */
	size_t ncovered;        /* instances that had coverage data */
	struct intern libs;     /* the libraries of the records loaded (rank_set_add_record) */
	struct intern by_id;    /* id -> dense id, built on demand by rank_set_find */
	uint32_t *by_id_first;  /* dense id -> the first instance with that id */
	size_t by_id_n;         /* instances indexed so far */
};

enum rank_fast_variant { RANK_FAST_PW, RANK_FAST_ONE, RANK_FAST_LOG, RANK_FAST_SQRT, RANK_FAST_ALL };

/* The parameter coverage of a set of instances as the opera ranking counts it (prioritize/opera.h):
 * a single is an (operator, parameter, subspace), a pair an (operator, two parameters, their two
 * subspaces), both over the operator's P parameters with "default" the subspace of a parameter an
 * instance leaves out, pairs among the first 64. The number of distinct ones is what a new instance
 * can add: a corpus plus its variants covers more than the corpus alone by exactly the singles and
 * pairs the variants bring. */
struct rank_cover {
	size_t ops;                       /* operators with at least one instance */
	size_t singles;
	size_t pairs;
};

/* What a ranking noticed, for the command to report. */
struct rank_stats {
	size_t tier[RANK_TIERS];          /* instances per tier */
	int have_cover;                   /* the opera strategy: cover is filled */
	struct rank_cover cover;          /* of the instances that can run (tier ok) */
	size_t ops;                       /* operators in the corpus */
	size_t ops_counted;               /* of which the counts name */
	size_t counts_unknown;            /* operators in the counts that the corpus does not have */
	char unknown_example[128];        /* one of them */
};

#endif
