/* cmd-apfd.c: ferry apfd --bugs BUGS [LABEL=]QUEUE...
 *
 * Measures how early queues find bugs: APFD, NAPFD for a budget that stops early, and RAUC at 25, 50,
 * 75 and 100% of the queue (prioritize/apfd.h has the definitions), for several queues -- one per
 * strategy, say -- in one table, and optionally the bugs-found curve of each as CSV for plotting.
 * Which tests reveal which unique bugs comes from a results store (its failures grouped into unique
 * bugs as ferry bugs groups them) or from a CSV of test_id,bug_id. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "apfd.h"
#include "buf.h"
#include "cmd.h"
#include "esc.h"
#include "db.h"
#include "kinds.h"
#include "strmap.h"
#include "fsutil.h"
#include "xalloc.h"

static const char usage[] =
	"usage: ferry apfd --bugs BUGS [options] [LABEL=]QUEUE...\n"
	"\n"
	"Measure how early each QUEUE (from 'ferry rank', or one test id a line) finds the bugs of BUGS.\n"
	"Prints one row per queue: tests, bugs found, bugs no queued test reveals, APFD, NAPFD at the\n"
	"budget, and RAUC at 25/50/75/100% of the queue. LABEL names the row (default: the file name).\n";

struct budget {
	double value;
	int percent;
	int given;
};

/* The options' values. */
struct apfd_args {
	const char *bugs_path, *curve, *frontend;
	struct budget budget;
	int csv;
};

#define AT(f) offsetof(struct apfd_args, f)

static int parse_budget(void *value, const char *text, struct err *e)
{
	struct budget *b = value;
	char *end;

	b->value = strtod(text, &end);
	b->percent = *end == '%';
	if (b->percent)
		end++;
	if (end == text || *end || !(b->value > 0) || (b->percent && b->value > 100) ||
	    (!b->percent && b->value != floor(b->value)))
		return err_set(e, EXIT_USAGE, "--budget takes a number of tests or a percentage (10%%)");
	b->given = 1;
	return 0;
}

static int parse_format(void *value, const char *arg, struct err *e)
{
	if (strcmp(arg, "table") && strcmp(arg, "csv"))
		return err_set(e, EXIT_USAGE, "--format is table or csv");
	*(int *)value = !strcmp(arg, "csv");
	return 0;
}

static const struct opt options[] = {
	OPT_STRING('b', "bugs", "BUGS", "which tests reveal which unique bugs: a results store (its unique\n"
		   "bugs, as ferry bugs lists them) or CSV lines of test_id,bug_id", AT(bugs_path)),
	OPT_STRING('F', "frontend", "NAME", "with a store: only this frontend's bugs", AT(frontend)),
	OPT_CALL(0, "budget", "N|P%", "also NAPFD for a run that stops after N tests, or P% of each queue",
		 AT(budget), parse_budget),
	OPT_STRING(0, "curve", "FILE", "write each queue's bugs-found curve as CSV: queue,tests,share,bugs",
		AT(curve)),
	OPT_CALL(0, "format", "table|csv", "how to print the results (default: table)", AT(csv), parse_format),
	OPT_END(),
};

/* The label of a queue argument: LABEL=FILE, or the file's name without directory and extension. */
static char *label_of(const char *arg, const char **file)
{
	const char *eq = strchr(arg, '='), *base, *dot;

	if (eq && eq != arg) {
		*file = eq + 1;
		return xstrndup(arg, (size_t)(eq - arg));
	}
	*file = arg;
	base = strrchr(arg, '/');
	base = base ? base + 1 : arg;
	dot = strchr(base, '.');
	return dot && dot != base ? xstrndup(base, (size_t)(dot - base)) : xstrdup(base);
}

/* A measure: 4 decimals; undefined (no bugs) is "-" in a table and empty in CSV. */
static void add_num(struct buf *b, double v, int width, int csv)
{
	if (csv) {
		if (!isnan(v))
			buf_addf(b, "%.4f", v);
	} else if (isnan(v)) {
		buf_addf(b, "%*s", width, "-");
	} else {
		buf_addf(b, "%*.4f", width, v);
	}
}

static void add_row(struct buf *b, const char *label, const struct apfd_result *r, int has_budget, int csv)
{
	if (csv) {
		buf_add_json_string(b, esc_str(label));  /* quoted, so that a label may hold a comma */
		buf_addf(b, ",%zu,%zu,%zu,", r->n, r->m, r->missing);
	} else {
		buf_addf(b, "%-16s %8zu %5zu %8zu ", esc_str(label), r->n, r->m, r->missing);
	}
	add_num(b, r->apfd, 7, csv);
	if (has_budget) {
		buf_addc(b, csv ? ',' : ' ');
		add_num(b, r->napfd, 9, csv);
		if (csv)
			buf_addf(b, ",%zu", r->budget);
		else
			buf_addf(b, " %6zu", r->budget);
	}
	for (int x = 0; x < APFD_RAUC_POINTS; x++) {
		buf_addc(b, csv ? ',' : ' ');
		add_num(b, r->rauc[x], 8, csv);
	}
	buf_addc(b, '\n');
}

static void add_curve(struct buf *b, const char *label, const struct apfd_result *r)
{
	double n = r->n ? (double)r->n : 1;

	buf_add_json_string(b, esc_str(label));
	buf_adds(b, ",0,0,0\n");
	for (size_t k = 0; k < r->ncurve; k++) {
		/* One point per test position where the count rises (several bugs may rise at once). */
		if (k + 1 < r->ncurve && r->curve_tests[k + 1] == r->curve_tests[k])
			continue;
		buf_add_json_string(b, esc_str(label));
		buf_addf(b, ",%zu,%.6f,%zu\n", r->curve_tests[k], (double)r->curve_tests[k] / n, k + 1);
	}
	if (!r->ncurve || r->curve_tests[r->ncurve - 1] != r->n) {
		buf_add_json_string(b, esc_str(label));
		buf_addf(b, ",%zu,1,%zu\n", r->n, r->m);
	}
}

/* The bugs of a store as the members tell them, without what is not a frontend bug (kinds.h). */
struct store_bugs {
	struct apfd_bugs *bugs;
	struct strmap apart;   /* kinds_tests */
};

static int add_member(void *ctx, const char *frontend, const char *bug_id, const char *id, const char *op,
		      struct err *e)
{
	struct store_bugs *s = ctx;
	char *bug = xasprintf("%s\x1f%s", frontend, id);

	(void)op;
	(void)e;
	if (!strmap_find(&s->apart, bug)) {
		free(bug);
		bug = xasprintf("%s:%s", frontend, bug_id);
		apfd_bugs_add(s->bugs, id, bug);
	}
	free(bug);
	return 0;
}

/* The unique bugs of a store: each failing test reveals its bug (frontend:bug_id); a failure that is
 * not a frontend bug (a lacking operator, a disputed reference, ...) reveals none. */
static int load_store_bugs(struct apfd_bugs *bugs, const char *path, const char *frontend, struct err *e)
{
	struct db d = DB_INIT;
	struct store_bugs s = { bugs, STRMAP_INIT };
	int r = -1;

	if (db_open(&d, path, DB_WRITE, e) == 0 && kinds_tests(&d, &s.apart, e) == 0)
		r = db_bug_members(&d, frontend, NULL, -1, add_member, &s, e);
	kinds_tests_release(&s.apart);
	db_close(&d);
	return r;
}

static int apfd(int argc, char **argv)
{
	struct apfd_args args = { 0 }, *a = &args;
	struct apfd_bugs bugs;
	struct apfd_result r = APFD_RESULT_INIT;
	struct buf table = BUF_INIT, curves = BUF_INIT;
	struct err e = ERR_INIT;
	const char *bugs_path, *curve, *frontend;
	struct budget budget;
	int code = EXIT_OK, has_budget = 0, csv;

	apfd_bugs_init(&bugs);
	if (cmd_parse(&cmd_apfd_entry, argc, argv, a) < 0) {
		code = EXIT_USAGE;
		goto out;
	}
	bugs_path = a->bugs_path;
	curve = a->curve;
	frontend = a->frontend;
	budget = a->budget;
	csv = a->csv;
	has_budget = budget.given;
	if (!bugs_path) {
		code = cmd_usage_error(&cmd_apfd_entry, "--bugs is required: which tests reveal which bugs");
		goto out;
	}
	if (optind >= argc) {
		code = cmd_usage_error(&cmd_apfd_entry, "no queue to measure");
		goto out;
	}
	/* Every input is checked before the first is read: a directory reads as an I/O error later. */
	for (int i = optind; i < argc; i++) {
		const char *file;

		free(label_of(argv[i], &file));
		if (fs_input_file(file, &e) < 0) {
			code = cmd_error(&e);
			goto out;
		}
	}
	if (fs_input_file(bugs_path, &e) < 0 ||
	    (db_is_store(bugs_path) ? load_store_bugs(&bugs, bugs_path, frontend, &e) < 0
				: apfd_bugs_load_csv(&bugs, bugs_path, &e) < 0)) {
		code = cmd_error(&e);
		goto out;
	}
	if (csv) {
		buf_adds(&table, "queue,tests,bugs,missing,apfd");
		if (has_budget)
			buf_adds(&table, ",napfd,budget");
		buf_adds(&table, ",rauc25,rauc50,rauc75,rauc100\n");
	} else {
		buf_addf(&table, "%-16s %8s %5s %8s %7s", "queue", "tests", "bugs", "missing", "APFD");
		if (has_budget)
			buf_addf(&table, " %9s %6s", "NAPFD", "budget");
		buf_addf(&table, " %8s %8s %8s %8s\n", "RAUC25", "RAUC50", "RAUC75", "RAUC100");
	}
	if (curve)
		buf_adds(&curves, "queue,tests,share,bugs\n");
	for (int i = optind; i < argc; i++) {
		struct apfd_queue q;
		const char *file;
		char *label = label_of(argv[i], &file);
		size_t b = 0;

		apfd_queue_init(&q);
		if (apfd_queue_load(&q, file, &e) < 0) {
			free(label);
			apfd_queue_release(&q);
			code = cmd_error(&e);
			goto out;
		}
		if (!q.n) {
			err_set(&e, EXIT_INPUT, "the queue '%s' is empty: nothing to measure", file);
			free(label);
			apfd_queue_release(&q);
			code = cmd_error(&e);
			goto out;
		}
		if (has_budget)
			b = budget.percent ? (size_t)ceil(budget.value * (double)q.n / 100) : (size_t)budget.value;
		if (apfd_eval(&q, &bugs, has_budget ? (b ? b : 1) : 0, &r, &e) < 0) {
			free(label);
			apfd_queue_release(&q);
			code = cmd_error(&e);
			goto out;
		}
		add_row(&table, label, &r, has_budget, csv);
		if (curve)
			add_curve(&curves, label, &r);
		free(label);
		apfd_queue_release(&q);
	}
	if (curve && fs_write_atomic(curve, curves.data, curves.len, &e) < 0) {
		code = cmd_error(&e);
		goto out;
	}
	fwrite(table.data, 1, table.len, stdout);
out:
	apfd_result_release(&r);
	apfd_bugs_release(&bugs);
	buf_release(&table);
	buf_release(&curves);
	err_release(&e);
	return code;
}

const struct cmd_entry cmd_apfd_entry = {
	.name = "apfd", .fn = apfd, .needs = CMD_NEEDS_NOTHING, .usage = usage, .opts = options,
	.summary = "measure how early queues find bugs (APFD, NAPFD, RAUC)",
};
