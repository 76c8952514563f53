/* pairs.c: the differential oracle's part of a session: where a frontend keeps its outputs of a
 * test, which other frontends kept theirs, and each pair's verdict as a result of its own. */
#include "private.h"
#include "buf.h"
#include "fsutil.h"
#include "protocol.h"
#include "xalloc.h"

#include <dirent.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* STORE.outputs/LABEL/ID, where the worker keeps test t's outputs (driver.save_outputs), made where
 * missing: the store's directory is the user's, those three are ferry's, and a store's side directory
 * may come from someone else (unpacked from an archive): a link planted there stops the run, naming
 * it, rather than have the outputs written where it points (fsutil.h fs_dir_beneath). */
int session_outputs_dir(const struct session *s, const struct wrapped *t, struct err *e)
{
	char *dir = xasprintf("%s/%s/%s", s->outputs, s->fe->label, t->in.id);
	int fd = fs_dir_beneath(dir, 3, 1, e);

	free(dir);
	if (fd < 0)
		return -1;
	close(fd);
	return 0;
}

/* The other labels that kept outputs of graph tests beside the store (this run's earlier frontends,
 * or an earlier run's): each a directory of STORE.outputs. */
void session_find_peers(struct session *s)
{
	DIR *d = opendir(s->outputs);
	struct dirent *ent;
	size_t cap = 0;

	session_forget_peers(s);
	while (d && (ent = readdir(d))) {
		char *path;

		if (ent->d_name[0] == '.' || !strcmp(ent->d_name, s->fe->label))
			continue;
		path = xasprintf("%s/%s", s->outputs, ent->d_name);
		if (fs_is_dir(path)) {
			XGROW(s->peers, cap, s->npeers + 1);
			s->peers[s->npeers++] = xstrdup(ent->d_name);
		}
		free(path);
	}
	if (d)
		closedir(d);
}

void session_forget_peers(struct session *s)
{
	for (size_t i = 0; i < s->npeers; i++)
		free(s->peers[i]);
	free(s->peers);
	s->peers = NULL;
	s->npeers = 0;
}

char *session_pair_label(const char *a, const char *b)
{
	return xasprintf("%s" SESSION_PAIR_SEP "%s", a, b);
}

char *session_pair_culprit(const char *label, const char *agrees)
{
	const char *sep = strstr(label, SESSION_PAIR_SEP), *second;
	const char *who = agrees && !strncmp(agrees, "agrees: ", 8) ? agrees + 8 : "";

	if (!sep)
		return xstrdup(label);
	second = sep + strlen(SESSION_PAIR_SEP);
	/* A disagreement where one of the two agrees with the reference is the other's bug. */
	if (!strcmp(who, second))
		return xstrndup(label, (size_t)(sep - label));
	return xstrdup(second);
}

static int outcome_of(void *ctx, const struct db_row *row, struct err *e)
{
	(void)e;
	*(int *)ctx = outcome_from_name(row->outcome);
	return 0;
}

/* The differential oracle's verdicts in the reply to test id: each a result of its own, under the
 * pair's label (earlier~this), a disagreement naming which of the two agrees with the reference. */
int session_put_pairs(struct session *s, const struct db_result *mine, const cJSON *reply, struct err *e)
{
	const cJSON *p;

	cJSON_ArrayForEach(p, cJSON_GetObjectItemCaseSensitive(reply, PROTO_KEY_PAIRS)) {
		const char *other = session_json_str(p, PROTO_KEY_FRONTEND);
		const char *outcome = session_json_str(p, PROTO_KEY_OUTCOME);
		const cJSON *m = cJSON_GetObjectItemCaseSensitive(p, PROTO_KEY_MAX_ABS);
		struct db_result r = *mine;
		struct buf msg = BUF_INIT, agrees = BUF_INIT;
		char *label;
		int theirs = -1, ret, o = outcome_from_name(outcome);

		if (!other || (o != OUTCOME_PASS && o != OUTCOME_MISMATCH))
			continue;
		if (db_result(&s->db, other, mine->id, outcome_of, &theirs, e) < 0)
			return -1;
		label = session_pair_label(other, mine->frontend);
		r.frontend = label;
		r.outcome = (enum outcome)o;
		r.stage = r.frame = r.exc_type = NULL;
		r.detail = session_json_str(p, PROTO_KEY_DETAIL);
		r.max_abs = cJSON_IsNumber(m) ? m->valuedouble : NAN;
		r.seconds = 0;
		r.timed = 0;
		r.message = NULL;
		if (r.outcome == OUTCOME_MISMATCH) {
			int a = theirs == OUTCOME_PASS, b = mine->outcome == OUTCOME_PASS;

			buf_addf(&agrees, "agrees: %s", a && b ? "both" : a ? other : b ? mine->frontend : "neither");
			buf_addf(&msg, "%s against %s: %s; ", mine->frontend, other,
				 session_json_str(p, PROTO_KEY_MESSAGE) ? session_json_str(p, PROTO_KEY_MESSAGE) : "?");
			if (a != b)
				buf_addf(&msg, "%s agrees with the reference: %s's bug", a ? other : mine->frontend,
					 a ? mine->frontend : other);
			else
				buf_adds(&msg, a ? "both agree with the reference (within the tolerance: a question "
					 "of tolerance)"
					 : "neither agrees with the reference: a question for the reference");
			r.exc_type = agrees.data;
			r.message = msg.data;
		}
		ret = db_put_result(&s->db, &r, e);
		buf_release(&msg);
		buf_release(&agrees);
		free(label);
		if (ret < 0)
			return -1;
	}
	return 0;
}
