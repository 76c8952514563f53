/* runopts.c: the options, progress and summary that ferry run and ferry check share. */
#include "runopts.h"
#include "esc.h"
#include "py.h"
#include "xalloc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void on_warn(void *ctx, const char *msg)
{
	struct runopts *r = ctx;

	progress_clear(&r->progress);
	cmd_warn("%s", msg);
}

static void on_started(void *ctx, const struct frontend *fe, size_t total)
{
	struct runopts *r = ctx;

	snprintf(r->label, sizeof(r->label), "run %s", fe->name);
	progress_start(&r->progress, r->label, total, r->quiet);
}

static void on_progress(void *ctx, size_t done, size_t failed)
{
	struct runopts *r = ctx;

	progress_update(&r->progress, done, failed);
}

static void on_finished(void *ctx, int ok)
{
	struct runopts *r = ctx;

	if (ok)
		progress_finish(&r->progress);
	else
		progress_clear(&r->progress);
}

void runopts_init(struct runopts *r)
{
	memset(r, 0, sizeof(*r));
	r->s.atol = r->s.rtol = 1e-3;
	r->s.limit = -1;
	r->s.nshards = 1;
	r->s.runner.jobs = cmd_default_jobs();
	r->s.runner.timeout = 60;
	r->s.runner.start_timeout = 300;
	r->s.runner.stderr_cap = 64 * 1024;
	r->s.ctx = r;
	r->s.warn = on_warn;
	r->s.started = on_started;
	r->s.progress = on_progress;
	r->s.finished = on_finished;
	r->quiet = 0;
}

void runopts_release(struct runopts *r)
{
	for (size_t i = 0; i < r->nfes; i++)
		frontend_release(&r->fes[i]);
	free(r->command);
	r->nfes = 0;
	r->command = NULL;
}

static int parse_frontends(struct runopts *r, const struct cmd_entry *c, const char *list)
{
	char *names = xstrdup(list), *save = NULL;
	struct err e = ERR_INIT;
	int ret = 1;

	/* The frontends are the adapters' declarations, which Python reads (session_frontend_table);
	 * the interpreter installs no signal handlers here: Ctrl-C is the run's. */
	if (py_start(cmd_python(), 0, &e) < 0) {
		ret = -1;
		cmd_error(&e);
		goto out;
	}
	for (char *tok = strtok_r(names, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		if (r->nfes == RUNOPTS_MAX_FRONTENDS) {
			ret = -1;
			cmd_usage_error(c, "at most %d frontends in one run", RUNOPTS_MAX_FRONTENDS);
			break;
		}
		if (session_frontend(tok, &r->fes[r->nfes], &e) < 0) {
			ret = -1;
			cmd_usage_error(c, "%s", e.msg);
			break;
		}
		r->nfes++;
	}
out:
	err_release(&e);
	free(names);
	return ret;
}

void runopts_help(FILE *fp)
{
	struct err e = ERR_INIT;
	char *table = NULL;

	fputs("\nFrontends (as their adapters declare them: ferry/oracle/adapters/, and adapter_NAME.py in\n"
	      "the directories of FERRY_ADAPTERS):\n", fp);
	if (py_start(cmd_python(), 0, &e) < 0 || !(table = session_frontend_table(&e))) {
		fprintf(fp, "  (cannot list them: %s)\n", esc_str(e.msg));
		goto out;
	}
	for (const char *line = table; *line; line += strcspn(line, "\n"), line += *line == '\n') {
		int n = (int)strcspn(line, "\t\n"), libn = 0, sumn = 0;
		const char *lib = line + n, *sum = "";
		char *text;

		if (*lib == '\t') {
			libn = (int)strcspn(++lib, "\t\n");
			if (lib[libn] == '\t')
				sum = lib + libn + 1, sumn = (int)strcspn(sum, "\n");
		}
		text = xasprintf("%.*s %s%.*s%s", sumn, sum, libn ? "(" : "(run it as NAME:LIBRARY",
				       libn, lib, libn ? " models)" : ")");

		/* Summaries are the adapters' text (esc.h): a user's adapter may say anything; names are
		 * letters, digits, - and _ (registry.valid_name). */
		fprintf(fp, "  %-18.*s %s\n", n, line, esc_str(sumn ? text : text + 1));
		free(text);
	}
out:
	free(table);
	err_release(&e);
}

static int parse_nonneg(const char *arg, double *out)
{
	char *end;
	double v = strtod(arg, &end);

	if (end == arg || *end || !(v >= 0))
		return -1;
	*out = v;
	return 0;
}

int runopts_option(struct runopts *r, const struct cmd_entry *c, int opt, const char *arg)
{
	unsigned long long mem;
	int n, i;

	switch (opt) {
	case 'F':
		return parse_frontends(r, c, arg);
	case 'o':
		r->s.store = arg;
		return 1;
	case RUNOPT_QUEUE:
		r->s.queue = arg;
		return 1;
	case RUNOPT_TOLERANCES:
		r->s.tolerances = arg;
		return 1;
	case 'n':
		if (cmd_parse_int(arg, 0, 1 << 30, &n) < 0)
			return cmd_usage_error(c, "--limit takes a number"), -1;
		r->s.limit = n;
		return 1;
	case RUNOPT_BUDGET:
		if (cmd_parse_seconds(arg, &r->s.budget) < 0)
			return cmd_usage_error(c, "--budget takes a number of seconds"), -1;
		return 1;
	case RUNOPT_SHARD:
		if (sscanf(arg, "%d/%d%n", &i, &n, &(int){ 0 }) != 2 || n < 1 || i < 0 || i >= n ||
		    strspn(arg, "0123456789/") != strlen(arg))
			return cmd_usage_error(c, "--shard takes I/N with 0 <= I < N, e.g. 0/4"), -1;
		r->s.shard = i;
		r->s.nshards = n;
		return 1;
	case 'j':
		if (cmd_parse_int(arg, 1, 256, &r->s.runner.jobs) < 0)
			return cmd_usage_error(c, "--jobs takes a number from 1 to 256"), -1;
		return 1;
	case 't':
		if (cmd_parse_seconds(arg, &r->s.runner.timeout) < 0)
			return cmd_usage_error(c, "--timeout takes a number of seconds"), -1;
		return 1;
	case 'm':
		if (cmd_parse_size(arg, &mem) < 0 || !mem)
			return cmd_usage_error(c, "--memory takes a size such as 512M or 4G"), -1;
		r->s.runner.mem_limit = mem;
		return 1;
	case RUNOPT_ATOL: case RUNOPT_RTOL:
		if (parse_nonneg(arg, opt == RUNOPT_ATOL ? &r->s.atol : &r->s.rtol) < 0)
			return cmd_usage_error(c, "--atol and --rtol take a non-negative number"), -1;
		return 1;
	case 'q':
		r->quiet = 1;
		return 1;
	default:
		return 0;
	}
}

int runopts_finish(struct runopts *r, const struct cmd_entry *c, const char *wrapdir, int argc, char **argv)
{
	struct buf cmdline = BUF_INIT;

	if (!r->nfes) {
		cmd_usage_error(c, "no frontend: name one or more with --frontend ('ferry %s --help' lists them)", c->name);
		return -1;
	}
	if (!r->s.store) {
		cmd_usage_error(c, "no output: say which store to write with -o");
		return -1;
	}
	if (!r->s.runner.mem_limit)
		r->s.runner.mem_limit = cmd_default_memory(r->s.runner.jobs);
	r->s.wrapdir = wrapdir;
	r->s.fes = r->fes;
	r->s.nfes = r->nfes;
	for (int i = 0; i < argc; i++)
		buf_addf(&cmdline, "%s%s", i ? " " : "ferry ", argv[i]);
	r->command = buf_detach(&cmdline);
	r->s.command = r->command;
	return 0;
}

void runopts_print(const struct runopts *r, const struct session_result *res)
{
	for (size_t i = 0; i < r->nfes; i++) {
		const struct session_result *x = &res[i];

		if (x->unavailable) {
			printf("run %s: unavailable: %s\n", esc_str(r->fes[i].name), esc_str(x->why));
			continue;
		}
		/* The version is the frontend's own word (esc.h). */
		printf("run %s%s%s%s:\n", esc_str(r->fes[i].name), x->version ? " (" : "", x->version ? esc_str(x->version) : "",
		       x->version ? ")" : "");
		printf("  ran now              %zu\n", x->ran);
		for (size_t k = 0; k < SESSION_N_OUTCOMES; k++)
			if (x->counts[k])
				printf("    %-18s %zu\n", session_outcomes[k], x->counts[k]);
		printf("  already in the store %zu\n", x->already);
		printf("  invalid, not run     %zu\n", x->invalid);
		if (x->budget_left_out)
			printf("  left for later       %zu (limit or budget)\n", x->budget_left_out);
	}
}
