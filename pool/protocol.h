/* protocol.h: every word that ferry's processes exchange, in one place. The Python side gets the same
 * names from the built-in _ferry module (pool/protocol.c hands lib/py.c PROTO_EXPORTS as
 * _ferry.KEY_..., ...), so that no key is spelled twice.
 *
 * The worker protocol (pool/runner.c <-> oracle/worker.c): one JSON object per line.
 *   runner -> worker  a request: {task: run|wrap, id, ...}
 *     run:  dir (the test directory), random, atol, rtol; for the differential oracle also save
 *           (a directory where the frontend's outputs are kept when it gives any) and against
 *           ([{frontend, dir}]: other frontends' outputs of the test, kept so, to compare with)
 *           or instead of dir a batch: [{id, dir, random, atol, rtol}], tests the worker runs as one
 *           model (ferry/oracle/batch.py; ferry run --batch)
 *     wrap: library, record, dir
 *     validate: library, record (ferry vary's candidate: the library's reference run only)
 *   worker -> runner  events: {event: ready, version} once started, or {event: fatal, message};
 *     then per request {event: result, id, ...} (that it took the request, and its test's stage
 *     as the test moves on, it says on its status page: pool/status.h):
 *       run:  outcome (lib/outcome.h), stage, exc_type, message, detail, frame, max_abs; or
 *             unavailable (why) when this release of the frontend cannot take the format at all;
 *             pairs: [{frontend, outcome, message, detail, max_abs}], the outputs against each of
 *             against's, judged as against the reference
 *             a batch's: batch, [{id, times, outcome, ...}] a run's result per test, or, where
 *             the batch failed as a whole (any stage of the merged model), no batch and the
 *             failure as a run's
 *       wrap: status (ok|invalid), reason, random, undefined
 *       validate: status (ok|invalid|error), reason, outputs (an array of tagged values), undefined;
 *             error: the template cannot validate at all (no validate())
 * The driver (oracle/driver.py) answers the worker's run() with a tuple tagged by a verdict:
 *   (VERDICT_OK, outputs, refs, context), (VERDICT_MISMATCH, message), (VERDICT_UNAVAILABLE, why),
 *   (VERDICT_CRASH, stage, ...) or (VERDICT_ERROR, stage, ...) (ferry's own failure, as a crash's
 *   fields), the stage one of STAGE_LOAD, STAGE_COMPILE, STAGE_EXECUTE (an error's also STAGE_WRAP).
 *
 * The harvest channel (extract/channel.py -> src/cmd-harvest.c): one line per message, a word
 * and a JSON value: CH_EMIT record, CH_SKIP [reason, where], CH_PROGRESS [done, total, label],
 * CH_TEST [index, name], CH_SAMPLE [k, name] (sample k of that test starts), CH_DONE counts,
 * CH_END counts; and CH_FAIL code from ferry harvest-child itself.
 *
 * The C++ parse channel (ferry harvest-cpp-child -> extract/cpp/watch.c): one line per event, a word and a
 * JSON value: CPP_EMIT record, CPP_COUNT [n, key], CPP_WARN message, CPP_OP [operator, n] (for
 * count-tests), CPP_SKIP why (libclang gave the file up), CPP_FAIL [code, message] (ferry's own
 * failure: the harvest stops), and CPP_DONE (no value) last. */
#ifndef FERRY_PROTOCOL_H
#define FERRY_PROTOCOL_H

/* Keys of the worker protocol's objects. */
#define PROTO_KEY_EVENT "event"
#define PROTO_KEY_TASK "task"
#define PROTO_KEY_ID "id"
#define PROTO_KEY_DIR "dir"
#define PROTO_KEY_RANDOM "random"
#define PROTO_KEY_ATOL "atol"
#define PROTO_KEY_RTOL "rtol"
#define PROTO_KEY_LIBRARY "library"
#define PROTO_KEY_RECORD "record"
#define PROTO_KEY_VERSION "version"
#define PROTO_KEY_MESSAGE "message"
#define PROTO_KEY_STAGE "stage"
#define PROTO_KEY_OUTCOME "outcome"
#define PROTO_KEY_EXC_TYPE "exc_type"
#define PROTO_KEY_DETAIL "detail"
#define PROTO_KEY_FRAME "frame"
#define PROTO_KEY_MAX_ABS "max_abs"
#define PROTO_KEY_STATUS "status"
#define PROTO_KEY_REASON "reason"
/* With status "error": the exit code the command stops with (enum ferry_exit; EXIT_ENV when absent). */
#define PROTO_KEY_CODE "code"
#define PROTO_KEY_UNDEFINED "undefined"
/* with it: the undefined concerns the values alone (the reference is not finite); a crash stays a crash */
#define PROTO_KEY_UNDEFINED_VALUES "undefined_values"
#define PROTO_KEY_UNAVAILABLE "unavailable"
#define PROTO_KEY_OUTPUTS "outputs"
#define PROTO_KEY_SAVE "save"
#define PROTO_KEY_AGAINST "against"
#define PROTO_KEY_PAIRS "pairs"
#define PROTO_KEY_FRONTEND "frontend"
#define PROTO_KEY_BATCH "batch"
/* What a run result says beyond what the store keeps, for ferry run --one: the stages with their
 * times, the unsupported pattern that matched (FILE:LINE: PATTERN), and, when the request asks
 * (explain: true), each output beside its reference. */
#define PROTO_KEY_EXPLAIN "explain"
#define PROTO_KEY_STAGES "stages"
#define PROTO_KEY_PATTERN "pattern"
#define PROTO_KEY_COMPARED "compared"
/* A run result's seconds in the frontend's own stages: {load, compile, execute}, measured by the
 * worker from each stage's start to the next's, the last ending where the driver says
 * (_ferry.stage("")) or at the verdict: the rest of the test's time is ferry's (ferry run's
 * durations). */
#define PROTO_KEY_TIMES "times"
/* ... and, on the worker's clock, how long it waited for the request after its last answer, and
 * how long it then had the test: from reading the request to its verdict. */
#define PROTO_TIME_WAIT "wait"
#define PROTO_TIME_WORKER "worker"

/* The metamorphic oracle (oracle/metamorphic_run.py): a run request's oracle, mutations (k) and
 * seed; its result's chain and mutation_stats (JSON text), nodes (of m') and original_nodes; a
 * reduce request (task reduce: dir, mutations, seed, atol, rtol, random, seconds) answered with
 * reduced (an object, see metamorphic_run.reduce). A stage of the mutated model m' is announced as
 * the stage's name followed by PROTO_STAGE_MUTATED. */
#define PROTO_KEY_ORACLE "oracle"
#define PROTO_KEY_MUTATIONS "mutations"
#define PROTO_KEY_SEED "seed"
#define PROTO_KEY_SECONDS "seconds"
#define PROTO_KEY_CHAIN "chain"
#define PROTO_KEY_MUTATION_STATS "mutation_stats"
#define PROTO_KEY_NODES "nodes"
#define PROTO_KEY_ORIGINAL_NODES "original_nodes"
#define PROTO_KEY_REDUCED "reduced"
#define PROTO_ORACLE_METAMORPHIC "metamorphic"
#define PROTO_TASK_REDUCE "reduce"
#define PROTO_STAGE_MUTATED ":mutated"

/* The longest line of the worker protocol the runner reads: a result carries a message, a traceback
 * and a comparison, far below this. A result line that passes it ends its test as a crash
 * (pool/runner.c); other text that long is dropped. */
/* What a worker writes to its stderr when a test ends, just before the test's result on the protocol
 * stream: the runner gives a test the stderr before it, and the test behind (which the worker
 * starts the moment it has answered) what follows, however the two pipes' reads interleave. Its
 * first byte occurs nowhere else in it. */
#define PROTO_STDERR_MARK "\x1e" "ferry: the test's stderr ends here\n"

#define PROTO_LINE_MAX (8u << 20)
#define PROTO_LINE_MAX_TEXT "8 MiB"
/* A frontend's text in a result (its exception's message, the traceback, the frame, why a format is
 * unavailable) is cut by the worker to this many bytes, its first and last halves kept around a
 * marker that says how much was cut ("[... 99,993,123 bytes cut ...]"), so that a 100 MB message
 * is still a crash, recorded at once, and not a line too long for the runner. */
#define PROTO_TEXT_MAX (64u << 10)

/* Events, tasks, verdicts and stages. */
#define PROTO_EVENT_READY "ready"
#define PROTO_EVENT_FATAL "fatal"
#define PROTO_EVENT_RESULT "result"
#define PROTO_TASK_RUN "run"
#define PROTO_TASK_WRAP "wrap"
#define PROTO_TASK_VALIDATE "validate"
#define PROTO_VERDICT_OK "ok"
#define PROTO_VERDICT_MISMATCH "mismatch"
#define PROTO_VERDICT_CRASH "crash"
#define PROTO_VERDICT_ERROR "error"
#define PROTO_VERDICT_UNAVAILABLE "unavailable"
#define PROTO_STAGE_LOAD "load"
#define PROTO_STAGE_COMPILE "compile"
#define PROTO_STAGE_EXECUTE "execute"
/* An error's stage when the model in the frontend's format was never made: the template recorded at
 * wrap why it could not (a converter that refused, an export PyTorch cannot do). Deterministic: the
 * test is not built for that frontend, which ferry check says without failing. */
#define PROTO_STAGE_WRAP "wrap"

/* The harvest channel's words. */
#define PROTO_CH_EMIT "emit"
#define PROTO_CH_SKIP "skip"
#define PROTO_CH_PROGRESS "progress"
#define PROTO_CH_TEST "test"
#define PROTO_CH_SAMPLE "sample"
#define PROTO_CH_DONE "done"
#define PROTO_CH_END "end"
#define PROTO_CH_FAIL "fail"

/* The C++ parse channel's words. */
#define PROTO_CPP_EMIT "emit"
#define PROTO_CPP_COUNT "count"
#define PROTO_CPP_WARN "warn"
#define PROTO_CPP_OP "op"
#define PROTO_CPP_SKIP "skip"
#define PROTO_CPP_FAIL "fail"
#define PROTO_CPP_DONE "done"

/* What _ferry exports, as X(NAME): _ferry.NAME is PROTO_NAME. */
#define PROTO_EXPORTS(X) \
	X(KEY_EVENT) X(KEY_TASK) X(KEY_ID) X(KEY_DIR) X(KEY_RANDOM) X(KEY_ATOL) X(KEY_RTOL) X(KEY_LIBRARY) \
	X(KEY_RECORD) X(KEY_VERSION) X(KEY_MESSAGE) X(KEY_STAGE) X(KEY_OUTCOME) X(KEY_EXC_TYPE) X(KEY_DETAIL) \
	X(KEY_FRAME) X(KEY_MAX_ABS) X(KEY_STATUS) X(KEY_REASON) X(KEY_UNDEFINED) X(KEY_UNDEFINED_VALUES) \
	X(KEY_UNAVAILABLE) X(KEY_OUTPUTS) \
	X(EVENT_READY) X(EVENT_FATAL) X(EVENT_RESULT) \
	X(TASK_RUN) X(TASK_WRAP) X(TASK_VALIDATE) \
	X(VERDICT_OK) X(VERDICT_MISMATCH) X(VERDICT_CRASH) X(VERDICT_ERROR) X(VERDICT_UNAVAILABLE) \
	X(STAGE_LOAD) X(STAGE_COMPILE) X(STAGE_EXECUTE) X(STAGE_WRAP) \
	X(CH_EMIT) X(CH_SKIP) X(CH_PROGRESS) X(CH_TEST) X(CH_SAMPLE) X(CH_DONE) X(CH_END) X(CH_FAIL) \
	X(STAGE_MUTATED)

#endif
