/* test-canary.c: what the store's canary says of a frontend (report/environment.h, environment_broken): a
 * failed canary of the release the store saw last is a broken environment, with its reason; a passed
 * or inconclusive one, one of another release, and none at all (a store made before the canary) are
 * not; and the warning line of a failed canary names the frontend, its release, what it gave and the
 * fix. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "canary.h"
#include "environment.h"
#include "tap.h"

static int put(struct db *d, const char *frontend, const char *version, long long ok_, const char *detail)
{
	struct db_environment v = { frontend, version, "/venv/bin/python", ok_, detail, 0.5 };
	struct err e = ERR_INIT;
	int r = db_put_environment(d, &v, &e);

	err_release(&e);
	return r;
}

static int run_of(struct db *d, const char *frontend, const char *version)
{
	struct err e = ERR_INIT;
	long long id;
	int r = db_start_run(d, frontend, NULL, "test", &id, &e);

	if (r == 0)
		r = db_finish_run(d, id, version, &e);
	err_release(&e);
	return r;
}

static int broken(struct db *d, const char *frontend, struct buf *why)
{
	struct err e = ERR_INIT;
	int r;

	buf_reset(why);
	r = environment_broken(d, frontend, why, &e);
	if (r < 0)
		diag("%s", e.msg);
	err_release(&e);
	return r;
}

int main(void)
{
	struct err e = ERR_INIT;
	struct buf why = BUF_INIT, line = BUF_INIT;
	char dir[] = "/tmp/ferry-test-canary-XXXXXX", path[256];
	struct db d = DB_INIT;
	struct db_environment v = { "openvino-onnx@2023.0.0", "2023.0.0-10926", "/venv/bin/python", 0,
				    "Range(0, 3, 1) gave [1632543764], expected [0, 1, 2]", 0.4 };

	plan(12);
	if (!mkdtemp(dir))
		return 1;
	snprintf(path, sizeof(path), "%s/r.db", dir);
	if (!ok(db_open(&d, path, DB_CREATE, &e) == 0, "a new store: %s", e.msg))
		return done();
	is_int(broken(&d, "openvino-onnx@2023.0.0", &why), 0, "no canary: not broken");

	ok(put(&d, "openvino-onnx@2023.0.0", v.version, 0, v.detail) == 0, "a failed canary is stored");
	ok(put(&d, "ort", "1.22.0", 1, NULL) == 0 && put(&d, "tvm-onnx", "0.25", -1, "Range: unsupported") == 0,
	   "a passed and an inconclusive one");
	is_int(broken(&d, "openvino-onnx@2023.0.0", &why), 1, "the failed one is a broken environment");
	is(why.data, "the canary of openvino-onnx@2023.0.0 2023.0.0-10926 gave wrong answers: "
	   "Range(0, 3, 1) gave [1632543764], expected [0, 1, 2]", "with its reason, one line");
	is_int(broken(&d, "ort", &why), 0, "a passed one is not");
	is_int(broken(&d, "tvm-onnx", &why), 0, "nor an inconclusive one");
	is_int(broken(&d, "openvino-onnx", &why), 0, "nor another label's");

	/* Under a plain label the release changes: the canary of the one the store saw last decides. */
	put(&d, "openvino-onnx", "2023.0", 0, "Add(1.5, 2.25) gave [7.5], expected 3.75");
	put(&d, "openvino-onnx", "2026.4", 1, NULL);
	run_of(&d, "openvino-onnx", "2023.0");
	is_int(broken(&d, "openvino-onnx", &why), 1, "the release of the latest run failed its canary: broken");
	run_of(&d, "openvino-onnx", "2026.4");
	is_int(broken(&d, "openvino-onnx", &why), 0, "a later run of a release that passed: not broken");

	canary_warning(&v, &line);
	is(line.data, "frontend 'openvino-onnx@2023.0.0' (release 2023.0.0-10926) gave wrong answers to the canary: "
	   "Range(0, 3, 1) gave [1632543764], expected [0, 1, 2]; its environment is broken (a library such as "
	   "numpy newer than the release's), so its failures on 0-d inputs are no frontend bugs: run it under the "
	   "numpy of its release's day (requirements/oldest*.txt, scripts/venv-release)", "the warning, one line");

	db_close(&d);
	unlink(path);
	rmdir(dir);
	buf_release(&why);
	buf_release(&line);
	err_release(&e);
	return done();
}
