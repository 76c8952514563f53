/* test-gen-spec.c: the spec language's load errors (tests/data/gen/bad/: each file's first line
 * says "# expect: LINE[:COL]: message", and loading it must fail with FILE:LINE[:COL]: message),
 * and that ferry's own specs and the README's example load and pass the sampled self-solve. */
#include <dirent.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "fsutil.h"
#include "solve.h"
#include "spec.h"
#include "tap.h"
#include "xalloc.h"

#define BAD ABS_TOP_SRCDIR "/tests/data/gen/bad"

static const struct solve_opts opts = { 0.97, 8, 65536, 0 };

static int load_and_check(struct spec_set *s, const char *path, struct err *e)
{
	if (spec_load_file(s, path, e) < 0)
		return -1;
	return solve_check(s, &opts, 200, e);
}

static int name_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static void bad_specs(void)
{
	DIR *d = opendir(BAD);
	struct dirent *ent;
	char *names[64];
	int n = 0;

	while (d && (ent = readdir(d)))
		if (strstr(ent->d_name, ".spec") && n < 64)
			names[n++] = xstrdup(ent->d_name);
	if (d)
		closedir(d);
	qsort(names, (size_t)n, sizeof(*names), name_cmp);
	ok(n >= 12, "a dozen bad specs or more (%d)", n);
	for (int k = 0; k < n; k++) {
		char *path = xasprintf("%s/%s", BAD, names[k]), *want;
		struct buf text = BUF_INIT;
		struct spec_set s;
		struct err e = ERR_INIT;
		char *nl;
		int r;

		fs_read(path, &text, &e);
		nl = strchr(text.data, '\n');
		if (nl)
			*nl = '\0';
		want = xasprintf("%s:%s", path, text.data + strlen("# expect: "));
		spec_init(&s);
		r = load_and_check(&s, path, &e);
		ok(r < 0 && e.code == EXIT_INPUT, "%s is refused as bad input", names[k]);
		if (!ok(strstr(e.msg, want) != NULL, "%s: the message names FILE:LINE and says why", names[k]))
			diag("got '%s', wanted it to hold '%s'", e.msg, want);
		spec_release(&s);
		err_release(&e);
		buf_release(&text);
		free(path);
		free(want);
		free(names[k]);
	}
}

static const char example[] =
	"op Conv\n"
	"opset 11\n"
	"type T in float32 float64 float16\n"
	"input X: T rank 3..5\n"
	"let n = X.rank - 2\n"
	"int group in divisors(X[1])\n"
	"int m in 1..4\n"
	"ints dilations len n in 1..2\n"
	"ints pads len 2 * n in 0..2\n"
	"ints kernel_shape len n in 1..4 where (kernel_shape[i] - 1) * dilations[i] + 1 <= X[2 + i] + pads[i] + pads[i + n]\n"
	"ints strides len n in 1..3\n"
	"attr group = group\n"
	"attr kernel_shape = kernel_shape\n"
	"attr dilations = dilations\n"
	"attr pads = pads\n"
	"attr strides = strides\n"
	"input W: T shape [group * m, X[1] / group, ...kernel_shape] const\n"
	"input B: T shape [group * m] const optional\n"
	"output Y: T shape [X[0], group * m, ...[(X[2 + j] + pads[j] + pads[j + n] - ((kernel_shape[j] - 1) * \\\n"
	"    dilations[j] + 1)) / strides[j] + 1 for j in 0..n - 1]]\n";

int main(void)
{
	struct spec_set s;
	struct err e = ERR_INIT;

	plan(43);
	bad_specs();

	spec_init(&s);
	ok(spec_load_text(&s, "example.spec", example, strlen(example), &e) == 0 && solve_check(&s, &opts, 300,
		&e) == 0,
	   "the README's example (with a continued line) loads and solves: %s", e.msg);
	is_int((long long)s.nblocks, 1, "... as one block");
	is_int(s.nblocks ? s.blocks[0]->nstmts : 0, 17, "... of 17 statements");
	spec_release(&s);

	spec_init(&s);
	ok(spec_load_dir(&s, ABS_TOP_SRCDIR "/gen/specs", &e) == 0 && solve_check(&s, &opts, 200, &e) == 0,
	   "ferry's own specs load and pass the self-solve: %s", e.msg);
	ok(s.nblocks >= 30, "... %zu blocks", s.nblocks);
	spec_release(&s);

	spec_init(&s);
	ok(spec_load_dir(&s, ABS_TOP_SRCDIR "/tests/data/gen/none", &e) < 0 && e.code == EXIT_INPUT,
	   "a missing spec directory is bad input");
	spec_release(&s);
	err_release(&e);
	return done();
}
