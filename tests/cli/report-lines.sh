#!/bin/sh
# ferry report and ferry bugs lead with what decides: the frontend's unsupported reasons grouped with
# their counts and operators, a crash by its decisive line (not OpenVINO's generic first line), a
# mismatch by its NaN/Inf and out-of-tolerance counts before its largest difference. The results are
# real messages (tests/data/messages) written into a copy of an old store's results.
. "${top_srcdir:-$(dirname "$0")/../..}/tests/setup"
py=${FERRY_PYTHON:-$top_srcdir/.venv/bin/python}
"$py" -c 'import sqlite3' 2>/dev/null || skip_all "no python sqlite3"
plan 10
cp "$top_srcdir/tests/data/stores/schema1.db" s.db
chmod u+w s.db
"$py" - s.db <<'PY'
import sqlite3, sys
c = sqlite3.connect(sys.argv[1])
ids = {op: i for i, op in c.execute("SELECT id, op FROM instances")}
def put(op, outcome, stage, exc, msg):
    c.execute("UPDATE results SET outcome = ?, stage = ?, exc_type = ?, message = ? WHERE frontend = 'ort' AND id = ?",
              (outcome, stage, exc, msg, ids[op]))
ir = ("[ONNXRuntimeError] : 1 : FAIL : /onnxruntime_src/onnxruntime/core/graph/model.cc:256 onnxruntime::Model::Model("
      "onnx::ModelProto&&, const onnxruntime::PathString&) Unsupported model IR version: 14, max supported IR version: 13")
put("Add", "unsupported", "compile", "Fail", ir)
put("Sigmoid", "unsupported", "compile", "Fail", ir)
# A cascade: the line that earned "unsupported" is not the first specific one (in OpenVINO's report a
# later translator fails because of the missing one, and is logged first); the reason is the matched line.
put("Relu", "unsupported", "compile", "Fail", "Failed operations detailed log:\n"
    "Reshape `shape` input can't hold a negative size.\nSummary:\n" + ir)
put("Floor", "unsupported", "compile", "NotImplemented",
    "[ONNXRuntimeError] : 9 : NOT_IMPLEMENTED : Could not find an implementation for Floor(13) node with name ''")
put("Ceil", "mismatch", None, None,
    "output 3: max |got - want| = 2.384185791015625e-07 at [0, 0, 2, 3] (got 2.1340654, want 2.1340652), 0 of 432 "
    "elements beyond atol 0.001 + rtol 0.001, 84 Inf mismatches (first at [0, 0, 0, 13]: got -3.4028235e+38, want -inf)")
put("Exp", "crash", "compile", "OpConversionFailure",
    "Check 'false' failed at src/frontends/common_translators/src/unconverted_ops_report.cpp:151:\n"
    "FrontEnd API failed with OpConversionFailure:\nModel wasn't fully converted. Failed operations detailed log:\n"
    "-- aten::scatter_reduce with a message:\nException happened during conversion of operation aten::scatter_reduce\n"
    "Check 'input_rank.get_length() > 0' failed at src/core/shape_inference/include/slice_shape_inference.hpp:66:\n"
    "While validating node 'opset8::Slice Slice_128218' with friendly_name 'Slice_128218':\n"
    "Shape inference input shapes {[],[0],[0],[0],[0]}\nSlice `data` input can't be a scalar.\n")
c.commit()
PY
expect_exit 0 "report" -- "$FERRY" report s.db -F ort
contains "unsupported reasons are counted" "$out" "unsupported: 2 reasons"
contains "the commonest first, with its tests and operators" "$out" "     3  Unsupported model IR version: 14, max supported IR version: 13  (Add, Relu, Sigmoid)"
case "$out" in *"negative size"*) ok 1 "a cascade's later line is no reason" ;; *) ok 0 "a cascade's later line is no reason" ;; esac
contains "a reason of one operator" "$out" "     1  Could not find an implementation for Floor(13) node with name ''  (Floor)"
contains "a crash's line starts with its exception type and decisive line" "$out" \
	"[compile] OpConversionFailure: Slice \`data\` input can't be a scalar."
contains "a mismatch's line with its Inf count first, then its largest difference" "$out" \
	"output 3: 84 Inf mismatches (first at [0, 0, 0, 13]: got -3.4028235e+38, want -inf), max |got - want| = 2.38"
expect_exit 0 "bugs" -- "$FERRY" bugs s.db -F ort
contains "a bug is listed by its decisive line" "$out" "Slice \`data\` input can't be a scalar."
case "$out" in *"Check 'false'"*) ok 1 "not by OpenVINO's generic first line" ;; *) ok 0 "not by OpenVINO's generic first line" ;; esac
finish
