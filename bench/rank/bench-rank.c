/* bench-rank.c: the ranking benchmark (not a test). It generates a synthetic corpus shaped like the
 * issue asks -- N instances over 500 operators with 3 to 12 parameters each -- and times, for each
 * size, in a child process of its own so that the peak memory is that size's alone:
 *   load   turning the in-memory records into the compact ranking form (subspace codes, interning);
 *          the generation of the records is not timed;
 *   rank   the OPERA ranking itself (rank_run);
 * and prints the peak resident memory of the child. It can also write the same corpus as JSON Lines
 * (to time `ferry rank` end to end, JSON parsing included) and the queue it ranks in memory (to check
 * that the end-to-end queue is the same).
 *
 *   bench-rank [--sizes 10000,100000,1000000] [--seed S]
 *   bench-rank --jsonl FILE --size N [--seed S]       write the corpus
 *   bench-rank --queue FILE --size N [--seed S]       rank it in memory and write the queue
 *   bench-rank --order FILE --size N [--seed S]       write the order that breaks ties (rank_ref.py)
 *
 * The corpus (bench/rank/README.md says more): operator o has 3 + (o's hash mod 10) parameters, of
 * which 1 to 3 are tensor inputs (dtype from 4, rank 0..5, each dimension 1, 2..64 or unknown) and the
 * rest attributes: ints (a small-value-heavy mix), floats (with zeros, negatives, inf and nan), bools,
 * enum strings (2 to 5 values), and int lists (length 1..3). Attributes are set with probability 0.85
 * (otherwise at their default). Operators are drawn Zipf(1), as in library test suites: the most
 * common has about 15% of the instances, the rarest a few hundred per million. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <xxhash.h>

#include "buf.h"
#include "intern.h"
#include "rank.h"
#include "record.h"
#include "subspace.h"
#include "xalloc.h"

#define NOPS 500
#define BATCH 1024

enum ptype { P_INT, P_FLOAT, P_BOOL, P_ENUM, P_LIST, P_TENSOR };

struct opdef {
	char name[16];
	int nparams;            /* attributes */
	int ninputs;            /* tensors */
	enum ptype type[12];
	int nenum[12];
	int dtypes[3];
};

static struct opdef ops[NOPS];
static double zipf_cdf[NOPS];

static uint64_t rng_state;

static uint64_t rnd(void)
{
	rng_state += 0x9e3779b97f4a7c15ULL;
	return intern_mix(rng_state);
}

static double unif(void)
{
	return (double)(rnd() >> 11) / 9007199254740992.0;
}

static const char *const dtype_names[] = { "float32", "float16", "int64", "bool" };

static void setup(uint64_t seed)
{
	double sum = 0;

	rng_state = seed;
	for (int o = 0; o < NOPS; o++) {
		struct opdef *d = &ops[o];
		int total = 3 + (int)(rnd() % 10);

		snprintf(d->name, sizeof(d->name), "Op%03d", o);
		d->ninputs = 1 + (int)(rnd() % 3);
		d->nparams = total - d->ninputs;
		for (int p = 0; p < d->nparams; p++) {
			double u = unif();

			d->type[p] = u < 0.35 ? P_INT : u < 0.50 ? P_FLOAT : u < 0.65 ? P_BOOL : u < 0.80 ? P_ENUM : P_LIST;
			d->nenum[p] = 2 + (int)(rnd() % 4);
		}
		for (int k = 0; k < 3; k++)
			d->dtypes[k] = (int)(rnd() % 4);
	}
	for (int o = 0; o < NOPS; o++) {
		sum += 1.0 / (o + 1);
		zipf_cdf[o] = sum;
	}
	for (int o = 0; o < NOPS; o++)
		zipf_cdf[o] /= sum;
}

static int pick_op(void)
{
	double u = unif();
	int lo = 0, hi = NOPS - 1;

	while (lo < hi) {
		int mid = (lo + hi) / 2;

		if (zipf_cdf[mid] < u)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static int64_t gen_int(void)
{
	double u = unif();

	if (u < 0.05)
		return -2 - (int64_t)(rnd() % 7);
	if (u < 0.15)
		return -1;
	if (u < 0.25)
		return 0;
	if (u < 0.40)
		return 1;
	return 2 + (int64_t)(rnd() % 255);
}

static double gen_float(void)
{
	double u = unif();

	if (u < 0.10)
		return 0;
	if (u < 0.25)
		return -unif() * 10;
	if (u < 0.90)
		return unif() * 10 + 1e-6;
	if (u < 0.95)
		return INFINITY;
	if (u < 0.97)
		return -INFINITY;
	return NAN;
}

static void gen_value(struct value *v, enum ptype t, int nenum)
{
	char buf[32];

	memset(v, 0, sizeof(*v));
	switch (t) {
	case P_INT:
		v->type = V_INT;
		v->u.i = gen_int();
		break;
	case P_FLOAT:
		v->type = V_FLOAT;
		v->u.f = gen_float();
		break;
	case P_BOOL:
		v->type = V_BOOL;
		v->u.b = rnd() % 2;
		break;
	case P_ENUM:
		v->type = V_STR;
		snprintf(buf, sizeof(buf), "mode%d", (int)(rnd() % (uint64_t)nenum));
		v->u.s = xstrdup(buf);
		break;
	case P_LIST:
		v->type = V_LIST;
		v->u.seq.n = 1 + rnd() % 3;
		v->u.seq.items = xcalloc(v->u.seq.n, sizeof(struct value));
		for (size_t i = 0; i < v->u.seq.n; i++) {
			v->u.seq.items[i].type = V_INT;
			v->u.seq.items[i].u.i = gen_int();
		}
		break;
	case P_TENSOR:
		break;
	}
}

static void gen_tensor(struct value *v, const struct opdef *d)
{
	struct tensor *t = &v->u.t;

	memset(v, 0, sizeof(*v));
	v->type = V_TENSOR;
	t->dtype = xstrdup(dtype_names[d->dtypes[rnd() % 3]]);
	t->rank = (int)(rnd() % 6);
	t->shape = xcalloc((size_t)t->rank + 1, sizeof(int64_t));
	for (int i = 0; i < t->rank; i++) {
		double u = unif();

		t->shape[i] = u < 0.15 ? 1 : u < 0.97 ? 2 + (int64_t)(rnd() % 63) : TENSOR_DIM_UNKNOWN;
	}
}

/* One instance of the synthetic corpus, with its id computed as the record module does. */
static void gen_instance(struct instance *in, struct buf *scratch)
{
	const struct opdef *d = &ops[pick_op()];
	XXH128_hash_t h;
	size_t np = 0;

	record_init(in);
	in->library = xstrdup("synthetic");
	in->op = xstrdup(d->name);
	in->kind = xstrdup("node");
	in->params = xcalloc((size_t)d->nparams + 1, sizeof(struct field));
	for (int p = 0; p < d->nparams; p++) {
		char name[16];

		if (unif() >= 0.85)
			continue;
		snprintf(name, sizeof(name), "attr%02d", p);
		in->params[np].name = xstrdup(name);
		in->params[np].value = xmalloc(sizeof(struct value));
		gen_value(in->params[np].value, d->type[p], d->nenum[p]);
		np++;
	}
	in->nparams = np;
	in->ninputs = (size_t)d->ninputs;
	in->inputs = xcalloc(in->ninputs, sizeof(struct value));
	for (size_t i = 0; i < in->ninputs; i++)
		gen_tensor(&in->inputs[i], d);
	buf_reset(scratch);
	record_canonical(in, scratch);
	h = XXH3_128bits(scratch->data, scratch->len);
	snprintf(in->id, sizeof(in->id), "%016llx%016llx", (unsigned long long)h.high64,
		 (unsigned long long)h.low64);
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* Generate n instances into s, timing only the loading; returns the seconds spent loading. */
static double build(struct rank_set *s, size_t n, uint64_t seed)
{
	struct instance *batch = xcalloc(BATCH, sizeof(*batch));
	struct subspace_row row;
	struct buf scratch = BUF_INIT;
	double t = 0;

	setup(seed);
	subspace_row_init(&row);
	for (size_t done = 0; done < n;) {
		size_t b = n - done < BATCH ? n - done : BATCH;
		double t0;

		for (size_t k = 0; k < b; k++)
			gen_instance(&batch[k], &scratch);
		t0 = now();
		for (size_t k = 0; k < b; k++)
			rank_set_add_record(s, &batch[k], &row, &scratch);
		t += now() - t0;
		for (size_t k = 0; k < b; k++)
			record_release(&batch[k]);
		done += b;
	}
	subspace_row_release(&row);
	buf_release(&scratch);
	free(batch);
	return t;
}

static int run_size(size_t n, uint64_t seed)
{
	struct rank_set s;
	struct rank_queue q = RANK_QUEUE_INIT;
	struct rank_opts o = RANK_OPTS_INIT;
	struct err e = ERR_INIT;
	struct rusage ru;
	double load, t0, rank;
	size_t feats = 0;

	rank_set_init(&s);
	load = build(&s, n, seed);
	t0 = now();
	if (rank_run(&s, &o, &q, NULL, &e) < 0) {
		fprintf(stderr, "bench-rank: %s\n", e.msg);
		return 1;
	}
	rank = now() - t0;
	getrusage(RUSAGE_SELF, &ru);
	for (size_t i = 0; i < s.n; i++) {
		size_t P = s.op_nslots[s.op[i]];

		feats += P + P * (P - 1) / 2;
	}
	printf("%9zu  %7.3f  %7.3f  %7.3f  %8.1f  %5zu  %6.1f  %7.2f\n", n, load, rank, load + rank,
	       ru.ru_maxrss / 1024.0, s.ops.n, (double)s.np / (double)s.n, (double)feats / (double)s.n);
	fflush(stdout);
	rank_queue_release(&q);
	rank_set_release(&s);
	return 0;
}

static int write_jsonl(const char *path, size_t n, uint64_t seed)
{
	FILE *fp = strcmp(path, "-") ? fopen(path, "w") : stdout;
	struct buf line = BUF_INIT, scratch = BUF_INIT;
	struct instance in;

	if (!fp) {
		fprintf(stderr, "bench-rank: cannot open '%s': %s\n", path, strerror(errno));
		return 1;
	}
	setup(seed);
	for (size_t i = 0; i < n; i++) {
		gen_instance(&in, &scratch);
		buf_reset(&line);
		record_write(&in, &line);
		buf_addc(&line, '\n');
		fwrite(line.data, 1, line.len, fp);
		record_release(&in);
	}
	buf_release(&line);
	buf_release(&scratch);
	if (fp != stdout && fclose(fp) != 0) {
		fprintf(stderr, "bench-rank: cannot write '%s': %s\n", path, strerror(errno));
		return 1;
	}
	return 0;
}

static int write_queue(const char *path, size_t n, uint64_t seed)
{
	struct rank_set s;
	struct rank_queue q = RANK_QUEUE_INIT;
	struct rank_opts o = RANK_OPTS_INIT;
	struct err e = ERR_INIT;
	int r = 0;

	rank_set_init(&s);
	build(&s, n, seed);
	if (rank_run(&s, &o, &q, NULL, &e) < 0 || rank_queue_write(&s, &q, path, &e) < 0) {
		fprintf(stderr, "bench-rank: %s\n", e.msg);
		r = 1;
	}
	rank_queue_release(&q);
	rank_set_release(&s);
	return r;
}

/* The order that breaks ties (rank_seeded_order at the command's default seed, 1), as queue lines:
 * what rank_ref.py needs to break its ties the same way. The random strategy's queue is not it: its
 * seed is derived apart (rank_random_seed). */
static int write_order(const char *path, size_t n, uint64_t seed)
{
	struct rank_set s;
	struct rank_opts o = RANK_OPTS_INIT;
	uint32_t *order;
	FILE *fp = fopen(path, "w");

	if (!fp) {
		fprintf(stderr, "bench-rank: cannot open '%s': %s\n", path, strerror(errno));
		return 1;
	}
	rank_set_init(&s);
	build(&s, n, seed);
	order = xmalloc((s.n ? s.n : 1) * sizeof(*order));
	rank_seeded_order(&s, o.seed, order, NULL);
	for (size_t k = 0; k < s.n; k++)
		fprintf(fp, "{\"rank\":%zu,\"id\":\"%s\"}\n", k + 1, rank_set_id(&s, order[k]));
	free(order);
	rank_set_release(&s);
	if (fclose(fp)) {
		fprintf(stderr, "bench-rank: cannot write '%s': %s\n", path, strerror(errno));
		return 1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	const char *sizes = "10000,100000,1000000", *jsonl = NULL, *queue = NULL, *order = NULL;
	size_t size = 0;
	uint64_t seed = 20250;
	char *list, *tok, *save = NULL;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--sizes") && i + 1 < argc)
			sizes = argv[++i];
		else if (!strcmp(argv[i], "--seed") && i + 1 < argc)
			seed = strtoull(argv[++i], NULL, 10);
		else if (!strcmp(argv[i], "--jsonl") && i + 1 < argc)
			jsonl = argv[++i];
		else if (!strcmp(argv[i], "--queue") && i + 1 < argc)
			queue = argv[++i];
		else if (!strcmp(argv[i], "--order") && i + 1 < argc)
			order = argv[++i];
		else if (!strcmp(argv[i], "--size") && i + 1 < argc)
			size = strtoull(argv[++i], NULL, 10);
		else {
			fprintf(stderr, "usage: bench-rank [--sizes N,N,...] [--seed S] | --jsonl FILE --size N | "
				"--queue FILE --size N | --order FILE --size N\n");
			return 2;
		}
	}
	if (jsonl)
		return write_jsonl(jsonl, size, seed);
	if (queue)
		return write_queue(queue, size, seed);
	if (order)
		return write_order(order, size, seed);
	printf("# ferry rank benchmark: opera strategy, %d operators, 3-12 parameters each, seed %llu\n", NOPS,
	       (unsigned long long)seed);
	printf("# load = records -> ranking form (not JSON parsing); rank = rank_run; peak = max RSS\n");
	printf("%9s  %7s  %7s  %7s  %8s  %5s  %6s  %7s\n", "instances", "load_s", "rank_s", "total_s",
	       "peak_MB", "ops", "params", "feats");
	list = xstrdup(sizes);
	for (tok = strtok_r(list, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		size_t n = strtoull(tok, NULL, 10);
		pid_t pid;
		int status;

		fflush(stdout);
		pid = fork();
		if (pid == 0)
			_exit(run_size(n, seed));
		if (pid < 0 || waitpid(pid, &status, 0) < 0 || !WIFEXITED(status) || WEXITSTATUS(status)) {
			fprintf(stderr, "bench-rank: the run of %zu instances failed\n", n);
			free(list);
			return 1;
		}
	}
	free(list);
	return 0;
}
