/* warnlog.c: the libraries' warnings into a log file, counted (warnlog.h). */
#include "py.h"
#include "warnlog.h"
#include "esc.h"
#include "xalloc.h"

#include <ctype.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void on_python_warning(void *ctx, const char *text)
{
	warnlog_add(ctx, text);
}

void warnlog_open(struct warnlog *w, const char *dir)
{
	struct err e = ERR_INIT;

	memset(w, 0, sizeof(*w));
	w->path = xasprintf("%s/%s", dir ? dir : ".", WARNLOG_FILE);
	/* Without the hook Python prints them itself, as before: worth a word, not a failure. */
	if (py_started() && py_set_warning_hook(on_python_warning, w, &e) < 0)
		fprintf(stderr, "ferry: warning: %s\n", esc_str(e.msg));
	err_release(&e);
}

void warnlog_open_beside(struct warnlog *w, const char *file)
{
	char *dir = xstrdup(file), *slash = strrchr(dir, '/');

	if (slash)
		slash[slash == dir] = '\0';  /* "/x": the root */
	warnlog_open(w, slash ? dir : NULL);
	free(dir);
}

/* The log, opened (and emptied) at the first warning; NULL when it cannot be. */
static FILE *log_file(struct warnlog *w)
{
	int fd;

	if (w->f || w->failed)
		return w->f;
	/* The directory is the command's output's; a link planted at the log's name is not followed. */
	fd = open(w->path, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0644);
	if (fd < 0 || !(w->f = fdopen(fd, "w"))) {
		if (fd >= 0)
			close(fd);
		w->failed = 1;
		fprintf(stderr, "ferry: warning: cannot write '%s': the libraries' warnings go here\n",
			esc_str(w->path));
	}
	return w->f;
}

void warnlog_add(struct warnlog *w, const char *text)
{
	FILE *f = log_file(w);
	size_t n = strlen(text);

	w->count++;
	if (!f) {
		fputs(text, stderr);
		if (n && text[n - 1] != '\n')
			fputc('\n', stderr);
		return;
	}
	fputs(text, f);
	if (n && text[n - 1] != '\n')
		fputc('\n', f);
	fflush(f);
}

/* "path:LINE: SomethingWarning: ...": Python's format of a warning (warnings.formatwarning). */
static int python_warning(const char *line)
{
	for (const char *p = strstr(line, ": "); p; p = strstr(p + 1, ": ")) {
		const char *q = p, *word = p + 2, *end;

		/* p follows the line number: digits back to a colon */
		while (q > line && isdigit((unsigned char)q[-1]))
			q--;
		if (q == p || q == line || q[-1] != ':')
			continue;
		end = word;
		while (isalnum((unsigned char)*end) || *end == '_' || *end == '.')
			end++;
		if (end - word >= 7 && !strncmp(end - 7, "Warning", 7) && end[0] == ':')
			return 1;
	}
	return 0;
}

/* "I0000 00:00:1796567836.308347 2 file.cc:31] ...": absl's and glog's log lines (TensorFlow's,
 * XLA's), severity, month and day, then the time. */
static int glog_line(const char *line)
{
	if (!strchr("IWEF", line[0]) || !line[0])
		return 0;
	for (int i = 1; i <= 4; i++)
		if (!isdigit((unsigned char)line[i]))
			return 0;
	return line[5] == ' ' && isdigit((unsigned char)line[6]) && strstr(line, "] ") != NULL;
}

int warnlog_line(struct warnlog *w, const char *line)
{
	FILE *f;

	/* The source line Python prints under a warning, indented, is the warning's. */
	if (w->in_warning && (line[0] == ' ' || line[0] == '\t')) {
		if (!(f = log_file(w)))
			return 0;
		fprintf(f, "%s\n", line);
		fflush(f);
		return 1;
	}
	w->in_warning = python_warning(line);
	if (!w->in_warning && !glog_line(line) && strncmp(line, "WARNING: ", 9))
		return 0;
	/* A log that cannot be written leaves the line to the caller, shown as before. */
	if (!log_file(w))
		return w->in_warning = 0;
	warnlog_add(w, line);
	return 1;
}

void warnlog_close(struct warnlog *w)
{
	struct err e = ERR_INIT;

	if (py_started())
		py_set_warning_hook(NULL, NULL, &e);
	err_release(&e);
	if (w->f)
		fclose(w->f);
	w->f = NULL;
	if (w->count && !w->failed)
		fprintf(stderr, "ferry: %zu library warning%s, see '%s'\n", w->count, w->count == 1 ? "" : "s",
			esc_str(w->path));
	free(w->path);
	w->path = NULL;
}
