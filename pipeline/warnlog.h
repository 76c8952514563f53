/* warnlog.h: the libraries' warnings that reach a command's own terminal (Python's warnings in
 * ferry's interpreter, and the warning and logging lines of a harvested test's libraries: absl's,
 * TensorFlow's, Python's), kept in a log file of the output or project directory, so that they
 * are not written over the progress line, and counted in one line at the end. The log is written
 * from the first warning of the command on (emptied then: it holds one command's). */
#ifndef FERRY_WARNLOG_H
#define FERRY_WARNLOG_H

#include <stddef.h>
#include <stdio.h>

#define WARNLOG_FILE "warnings.log"

struct warnlog {
	char *path;      /* owned: DIR/warnings.log */
	FILE *f;         /* open from the first warning on */
	size_t count;    /* warnings logged */
	int failed;      /* the log could not be written: warnings go to stderr as before */
	int in_warning;  /* the last line was a warning's: a following indented line is its source */
};

/* Log the warnings of this command into dir/WARNLOG_FILE (dir NULL: the current directory), and
 * take Python's warnings of this process (the interpreter, if started). Nothing is written until
 * there is a warning. */
void warnlog_open(struct warnlog *w, const char *dir);
/* The same in the directory that holds file (a corpus, a store). */
void warnlog_open_beside(struct warnlog *w, const char *file);
/* A line a harvested test wrote to stderr (escaped): 1 when it is a library's warning or log line,
 * then logged; 0 for the test's own output, which the caller shows. */
int warnlog_line(struct warnlog *w, const char *line);
/* One warning's text (may be several lines): logged, or on stderr when the log cannot be. */
void warnlog_add(struct warnlog *w, const char *text);
/* Stop taking Python's warnings, close the log and say on stderr how many there were and where:
 * "ferry: 3 library warnings, see 'DIR/warnings.log'" (nothing when there were none). */
void warnlog_close(struct warnlog *w);

#endif
