/* test-trigger.c: what trigger_describe (report/trigger.h) makes of a real store whose bugs'
 * representatives have neighbours: the changes that pass name the trigger, those that fail alike
 * join the failing side, and a bug with no neighbour that ran has no title. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <sqlite3.h>

#include "db.h"
#include "dedup.h"
#include "tap.h"
#include "trigger.h"
#include "xalloc.h"

static struct db d = DB_INIT;
static long long run_id;

/* An Add of two inputs of dtype and shape ("2,3"), with params (JSON members, or ""); recorded
 * in the store, its id into id. */
static void instance(const char *op, const char *dtype, const char *shape, const char *params, char id[33])
{
	char *rec = xasprintf("{\"op\":\"%s\",\"library\":\"onnx\",\"kind\":\"node\",\"inputs\":["
			      "{\"tensor\":{\"dtype\":\"%s\",\"shape\":[%s]}},{\"tensor\":{\"dtype\":\"%s\",\"shape\":[%s]}}],"
			      "\"params\":{%s}}", op, dtype, shape, dtype, shape, params);
	struct instance in;
	struct err e = ERR_INIT;

	if (record_parse(&in, rec, strlen(rec), &e) < 0 || db_put_instance(&d, &in, rec, "ok", NULL, 0, NULL, &e) < 0) {
		diag("%s: %s", rec, e.msg);
		exit(1);
	}
	memcpy(id, in.id, 33);
	record_release(&in);
	free(rec);
}

/* Its result on frontend: outcome, with msg (a crash's at compile). */
static void put_result(const char *frontend, const char *id, enum outcome outcome, const char *msg)
{
	struct db_result r;
	struct err e = ERR_INIT;

	memset(&r, 0, sizeof(r));
	r.frontend = frontend;
	r.id = id;
	r.run_id = run_id;
	r.outcome = outcome;
	r.stage = outcome == OUTCOME_CRASH ? "compile" : NULL;
	r.exc_type = outcome == OUTCOME_CRASH ? "RuntimeError" : NULL;
	r.message = msg;
	r.max_abs = NAN;
	r.atol = r.rtol = NAN;
	if (db_put_result(&d, &r, &e) < 0) {
		diag("%s", e.msg);
		exit(1);
	}
}

/* A pass, or a crash with msg. */
static void result(const char *frontend, const char *id, const char *msg)
{
	put_result(frontend, id, msg ? OUTCOME_CRASH : OUTCOME_PASS, msg);
}

/* Wrong values, described by msg. */
static void wrong(const char *frontend, const char *id, const char *msg)
{
	put_result(frontend, id, OUTCOME_MISMATCH, msg);
}

static void neighbour(const char *parent, const char *id, const char *change)
{
	struct err e = ERR_INIT;

	if (db_put_neighbour(&d, parent, id, change, &e) < 0) {
		diag("%s", e.msg);
		exit(1);
	}
}

/* An op of dtype with params whose values are wrong on "fe" (into id), and its neighbour by change
 * (of ndtype, without params: into nid), which passes. */
static void wrong_but(char id[33], char nid[33], const char *op, const char *dtype, const char *params,
		      const char *ndtype, const char *change)
{
	instance(op, dtype, "2", params, id);
	instance(op, ndtype, "2", "", nid);
	wrong("fe", id, "output 0: max |got - want| = 7 at [1] (got -1, want -8), 1 of 2 elements differ");
	result("fe", nid, NULL);
	neighbour(id, nid, change);
}

static int find_rep(void *ctx, const struct db_bug *b, struct err *e)
{
	char **pair = ctx;

	(void)e;
	if (!strcmp(b->representative, pair[0]) || !strcmp(b->representative, pair[2]))
		pair[1] = xstrdup(b->bug_id);
	return 0;
}

/* The bug whose representative is rep (or also, where it is not NULL), on frontend. */
static char *bug_of(const char *frontend, const char *rep, const char *also)
{
	char *pair[3] = { (char *)rep, NULL, (char *)(also ? also : rep) };
	struct err e = ERR_INIT;

	db_bugs(&d, frontend, find_rep, pair, &e);
	return pair[1];
}

/* The bug that test id is a member of, on frontend. */
static char *bug_having(const char *frontend, const char *id)
{
	sqlite3_stmt *st = NULL;
	char *bug = NULL;

	if (sqlite3_prepare_v2(d.h, "SELECT bug_id FROM bug_members WHERE frontend = ?1 AND id = ?2", -1, &st,
			       NULL) != SQLITE_OK)
		return NULL;
	sqlite3_bind_text(st, 1, frontend, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, id, -1, SQLITE_STATIC);
	if (sqlite3_step(st) == SQLITE_ROW)
		bug = xstrdup((const char *)sqlite3_column_text(st, 0));
	sqlite3_finalize(st);
	return bug;
}

/* Whether tests a and b are members of one bug on "fe" (same) or of two, as what says. */
static void one_bug(const char *a, const char *b, int same, const char *what)
{
	char *x = bug_having("fe", a), *y = bug_having("fe", b);

	ok(x && y && (strcmp(x, y) == 0) == same, "%s", what);
	free(x);
	free(y);
}

static char *title_of(const char *frontend, const char *bug)
{
	struct buf t = BUF_INIT;
	struct err e = ERR_INIT;

	if (!bug || trigger_describe(&d, frontend, bug, NULL, &t, &e) < 0) {
		diag("%s", bug ? e.msg : "no such bug");
		return xstrdup("(error)");
	}
	return t.data ? buf_detach(&t) : xstrdup("");
}

int main(void)
{
	char dir[] = "/tmp/ferry-trigger-XXXXXX", *path, *bug, *t;
	char r16[33], f32[33], i32[33], c64[33], r1[33], mp[33], mpd[33], mpc[33], mpk[33], lone[33], lone32[33];
	char al[33], al32[33], ad[33], ad0[33], sb[33], sb0[33], ml[33], ml32[33], dv[33], dv32[33];
	char rz[33], rzd[33], rz1[33], cl[33], cld[33], tl[33], tl1[33], md[33], md1[33], vp[33], vv[33];
	struct err e = ERR_INIT;
	const char *boom = "noint16: int16 inputs are not handled";

	plan(18);
	if (!mkdtemp(dir))
		return 1;
	path = xasprintf("%s/results.db", dir);
	if (db_open(&d, path, DB_CREATE, &e) < 0 || db_start_run(&d, "fe", NULL, "test", &run_id, &e) < 0) {
		diag("%s", e.msg);
		return 1;
	}

	/* A dtype's bug: int16 fails, complex64 fails alike, float32 and int32 pass; the rank-1 form
	 * fails alike, and being simpler it is the bug's representative. */
	instance("Add", "int16", "2,3", "", r16);
	instance("Add", "float32", "2,3", "", f32);
	instance("Add", "int32", "2,3", "", i32);
	instance("Add", "complex64", "2,3", "", c64);
	instance("Add", "int16", "3", "", r1);
	result("fe", r16, boom);
	result("fe", c64, boom);
	result("fe", r1, boom);
	result("fe", f32, NULL);
	result("fe", i32, NULL);
	neighbour(r16, f32, "dtype:float32");
	neighbour(r16, i32, "dtype:int32");
	neighbour(r16, c64, "dtype:complex64");
	neighbour(r16, r1, "rank:-1");

	/* A parameter's bug: ceil_mode=1 fails; at its default it passes, and at the corpus's common
	 * value 0 too. */
	instance("MaxPool", "float32", "1,1,4,4", "\"ceil_mode\":{\"int\":1},\"kernel_shape\":{\"list\":[{\"int\":3},{\"int\":3}]}", mp);
	instance("MaxPool", "float32", "1,1,4,4", "\"kernel_shape\":{\"list\":[{\"int\":3},{\"int\":3}]}", mpd);
	instance("MaxPool", "float32", "1,1,4,4", "\"ceil_mode\":{\"int\":0},\"kernel_shape\":{\"list\":[{\"int\":3},{\"int\":3}]}", mpc);
	result("fe", mp, "output shape is wrong with ceil");
	result("fe", mpd, NULL);
	result("fe", mpc, NULL);
	neighbour(mp, mpd, "param:-ceil_mode");
	neighbour(mp, mpc, "param:ceil_mode=0");
	instance("MaxPool", "float32", "1,1,4,4", "\"ceil_mode\":{\"int\":1},\"kernel_shape\":{\"list\":[{\"int\":2},{\"int\":2}]}", mpk);
	result("fe", mpk, NULL);
	neighbour(mp, mpk, "param:kernel_shape=[2,2]");

	/* A bug whose neighbour did not run on its frontend (another's result only). */
	instance("Sub", "int8", "2", "", lone);
	instance("Sub", "float32", "2", "", lone32);
	result("fe", lone, "Sub of int8 breaks");
	result("other", lone32, NULL);
	neighbour(lone, lone32, "dtype:float32");

	/* A bug that no change makes go away. */
	instance("Mul", "int64", "2,2", "", al);
	instance("Mul", "float32", "2,2", "", al32);
	result("fe", al, "Mul breaks whatever");
	result("fe", al32, "Mul breaks whatever");
	neighbour(al, al32, "dtype:float32");

	/* Two operators' wrong values that one parameter's default makes right: one cause. */
	wrong_but(ad, ad0, "Add", "int32", "\"alpha\":{\"int\":2}", "int32", "param:-alpha");
	wrong_but(sb, sb0, "Sub", "int32", "\"alpha\":{\"int\":2}", "int32", "param:-alpha");
	/* Two operators' wrong values that another dtype makes right: that is true of many causes. */
	wrong_but(ml, ml32, "Mul", "int8", "", "float32", "dtype:float32");
	wrong_but(dv, dv32, "Div", "int8", "", "float32", "dtype:float32");

	/* Two operators' wrong values that one parameter's default makes right, where a dimension
	 * of size 1 makes one of them right too: the parameter's clauses alone are compared. */
	wrong_but(rz, rzd, "Round", "int32", "\"mode\":{\"int\":1}", "int32", "param:-mode");
	instance("Round", "int32", "1", "\"mode\":{\"int\":1}", rz1);
	result("fe", rz1, NULL);
	neighbour(rz, rz1, "dim:0=1");
	wrong_but(cl, cld, "Ceil", "int32", "\"mode\":{\"int\":1}", "int32", "param:-mode");

	/* Wrong values of one operator in every element of one form and in some of another, the one
	 * a dimension's change of the other: one cause, as the change did not right it; Mod's two
	 * forms, unlinked, stay two. */
	instance("Tile", "float32", "2,3", "", tl);
	instance("Tile", "float32", "1,3", "", tl1);
	wrong("fe", tl, "output 0: max |got - want| = 7 at [1] (got -1, want -8), 1 of 6 elements differ");
	wrong("fe", tl1, "output 0: max |got - want| = 7 at [1] (got -1, want -8), 3 of 3 elements differ");
	neighbour(tl, tl1, "dim:0=1");
	instance("Mod", "float32", "2,3", "", md);
	instance("Mod", "float32", "1,3", "", md1);
	wrong("fe", md, "output 0: max |got - want| = 7 at [1] (got -1, want -8), 1 of 6 elements differ");
	wrong("fe", md1, "output 0: max |got - want| = 7 at [1] (got -1, want -8), 3 of 3 elements differ");
	/* ... and a variant that ferry made of a test (its record names its parent), the same. */
	instance("Gather", "float32", "2,3", "", vp);
	{
		char *rec = xasprintf("{\"op\":\"Gather\",\"library\":\"onnx\",\"kind\":\"node\",\"inputs\":["
				      "{\"tensor\":{\"dtype\":\"float32\",\"shape\":[1,3]}},"
				      "{\"tensor\":{\"dtype\":\"float32\",\"shape\":[1,3]}}],\"params\":{},"
				      "\"variant\":{\"parent\":\"%s\",\"vary\":\"dim:0=1\",\"dim\":\"dim\"}}", vp);
		struct instance in;

		if (record_parse(&in, rec, strlen(rec), &e) < 0 ||
		    db_put_instance(&d, &in, rec, "ok", NULL, 0, NULL, &e) < 0) {
			diag("%s: %s", rec, e.msg);
			return 1;
		}
		memcpy(vv, in.id, 33);
		record_release(&in);
		free(rec);
	}
	wrong("fe", vp, "output 0: max |got - want| = 7 at [1] (got -1, want -8), 1 of 6 elements differ");
	wrong("fe", vv, "output 0: max |got - want| = 7 at [1] (got -1, want -8), 3 of 3 elements differ");

	ok(dedup_rebuild(&d, NULL, NULL, NULL, &e) == 0, "the failures grouped into bugs");

	bug = bug_having("fe", ad);
	t = bug_having("fe", sb);
	ok(bug && t && !strcmp(bug, t), "Add's and Sub's wrong values that alpha's default rights are one bug");
	free(t);
	t = bug ? title_of("fe", bug) : xstrdup("");
	is(t, "fails with alpha=2; passes with alpha at its default", "... whose trigger is alpha");
	free(t);
	free(bug);
	bug = bug_having("fe", ml);
	t = bug_having("fe", dv);
	ok(bug && t && strcmp(bug, t), "Mul's and Div's that float32 rights stay two bugs");
	free(t);
	free(bug);

	one_bug(rz, cl, 1, "Round's and Ceil's that mode's default rights are one bug, though a dimension rights "
		"Round's too");
	one_bug(tl, tl1, 1, "Tile's wrong values in every element and in one are one bug: a change links them");
	one_bug(md, md1, 0, "Mod's, that nothing links, stay two");
	one_bug(vp, vv, 1, "a variant's wrong values join its parent's");
	one_bug(tl, vp, 0, "... and no other operator's");

	bug = bug_of("fe", r1, NULL);
	ok(bug != NULL, "the rank-1 form represents the int16 bug (a neighbour of a member)");
	t = title_of("fe", bug);
	is(t, "fails for int16 and complex64 inputs; passes for float32 and int32",
	   "the int16 bug is said by the dtypes that pass, with those that fail alike");
	free(t);
	free(bug);

	bug = bug_of("fe", mp, NULL);
	t = title_of("fe", bug);
	is(t, "fails with ceil_mode=1, with kernel_shape=[3,3]; passes with ceil_mode=0 or at its default, with kernel_shape=[2,2]",
	   "the parameter's bug is said by the parameter");
	free(t);
	free(bug);

	bug = bug_of("fe", lone, NULL);
	t = title_of("fe", bug);
	is(t, "", "no title where no neighbour ran on the bug's frontend");
	free(t);
	free(bug);

	bug = bug_of("fe", al, al32);
	t = title_of("fe", bug);
	ok(strstr(t, "fails alike") && strstr(t, "float32"), "no change that passes: it fails alike (%s)", t);
	free(t);
	free(bug);

	t = title_of("fe", "0000000000000000");
	is(t, "", "an unknown bug has no title");
	free(t);

	/* A store made before neighbours, read-only: it has none, and no title. */
	bug = bug_of("fe", r1, NULL);
	ok(sqlite3_exec(d.h, "DROP TABLE neighbours", NULL, NULL, NULL) == SQLITE_OK, "a store without neighbours");
	db_close(&d);
	ok(db_open(&d, path, DB_READ, &e) == 0, "opened read-only");
	t = title_of("fe", bug);
	is(t, "", "no title, and no error");
	free(t);
	free(bug);
	db_close(&d);
	unlink(path);
	free(path);
	rmdir(dir);
	return done();
}
