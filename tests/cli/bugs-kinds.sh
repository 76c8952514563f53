#!/bin/sh
# ferry bugs keeps what is not a frontend bug out of the bug list and lists it apart, each kind with
# its reason (report/kinds.h): a frontend's own "not supported" by ferry's patterns of today, an
# operator a frontend lacks for every form of some dtypes (one entry for all of them), a difference
# within half precision, a reference that the reference runtime and another frontend dispute alike
# (one line for both), a test ferry made that the reference runtime and another frontend refused, and
# a 0-d input on a frontend whose canary failed. The same failures one change
# away stay bugs: a harvested test that every frontend refuses, a mismatch no other frontend shares, a
# lacking group where one form passes, a half-precision difference of many ulp. And wrong shapes from
# inputs with no elements are one bug whatever the operator, values wrong in every element one bug
# whatever the dtype. An MLIR compiler's failure to legalize torch-mlir's generic operation is told
# by the operation's name, and a generated graph holding an operator the frontend lacks joins the
# lack when it fails alike. The store is an old
# one's copy with results written in, the messages real ones (tests/data/messages).
. "${top_srcdir:-$(dirname "$0")/../..}/tests/setup"
py=${FERRY_PYTHON:-$top_srcdir/.venv/bin/python}
"$py" -c 'import sqlite3' 2>/dev/null || skip_all "no python sqlite3"
plan 31
cp "$top_srcdir/tests/data/stores/schema1.db" s.db
chmod u+w s.db
"$py" - s.db <<'PY'
import json, sqlite3, sys
c = sqlite3.connect(sys.argv[1])
base = json.loads(c.execute("SELECT record FROM instances WHERE op = 'Ceil'").fetchone()[0])
n = 0
def test(op, dtype="float32", variant=False, shape=(3, 4)):
    global n
    n += 1
    r = dict(base, op=op, id="%032x" % (0xabc000 + n))
    r["inputs"] = [{"tensor": {"dtype": dtype, "range": [-3, 3], "shape": list(shape)}}]
    r["outputs"] = [{"tensor": {"dtype": dtype, "shape": [3, 4]}}]
    if variant:
        r["variant"] = {"parent": base["id"], "vary": "param:+axis"}
    c.execute("INSERT INTO instances(id, library, op, record) VALUES(?, 'onnx', ?, ?)", (r["id"], op, json.dumps(r)))
    return r["id"]
def put(fe, id, outcome, stage=None, exc=None, msg=None):
    c.execute("INSERT OR REPLACE INTO results(frontend, id, outcome, stage, exc_type, message) VALUES(?,?,?,?,?,?)",
              (fe, id, outcome, stage, exc, msg))
shape = "output 1: shape mismatch: got [2], want [2, 1]"
# A disputed reference: ONNX Runtime and OpenVINO give the same wrong answer; TVM refuses the Loop.
d = test("Loop")
put("ort", d, "mismatch", msg=shape)
put("openvino-onnx", d, "mismatch", msg=shape)
put("tvm-onnx", d, "unsupported", "compile", "OpNotImplemented", "Loop")
# ... but a mismatch that only one frontend makes is its bug.
m = test("Resize")
put("ort", m, "pass")
put("openvino-onnx", m, "mismatch", msg="output 0: shape mismatch: got [1, 1, 7, 8], want [1, 1, 7, 14]")
# A variant every frontend refused, ONNX Runtime among them: suspected invalid.
v = test("LayerNormalization", variant=True)
put("ort", v, "crash", "compile", "Fail", "[ShapeInferenceError] Unexpected axis value (1) rank of first input is 1")
put("openvino-onnx", v, "crash", "compile", "RuntimeError", "While validating ONNX node: Check 'axis' failed")
# ... but a harvested test every frontend refuses is the library's own test: a bug of each.
h = test("Mod")
put("ort", h, "crash", "compile", "Fail", "Mod: fmod must be 1 for floating types")
put("openvino-onnx", h, "crash", "compile", "RuntimeError", "Check 'dividend is integral' failed")
# Half precision: 1 ulp at the largest difference is rounding; 500 ulp is a wrong answer.
f = test("Conv", "float16")
put("tvm-onnx", f, "mismatch", msg="output 0: max |got - want| = 0.00390625 at [0, 0, 0, 2] (got 4.453125, "
    "want 4.4570312), 1 of 16 elements beyond atol 0.001 + rtol 0.001 or 2 ulp of float16")
g = test("Sub", "float16")
put("tvm-onnx", g, "mismatch", msg="output 0: 500 of 500 elements beyond atol 0.001 + rtol 0.002 or 2 ulp of "
    "float16, max |got - want| = 8.91796875 at [7, 4, 0] (got -5.1914062, want -14.109375)")
# TVM says so in words that ferry's patterns of today know.
s = test("Split")
put("tvm-onnx", s, "crash", "compile", "ValueError", "Dynamic Split not yet supported")
# Every Reshape test of two dtypes fails alike on TVM: it lacks Reshape there, one entry for both.
why = "Reshape requires the input new shape to be Shape. However, the given one is relax.TensorType"
for dtype in ("float32", "int64"):
    for _ in range(5):
        put("tvm-onnx", test("Reshape", dtype), "crash", "compile", "TypeError", why)
# Two int32 tests fail as the larger groups do: too few to show it alone, they join what TVM lacks.
for _ in range(2):
    put("tvm-onnx", test("Reshape", "int32"), "crash", "compile", "TypeError", why)
# A variant of Reshape that ONNX Runtime refused too is a suspected invalid test, and says nothing of
# what TVM supports: float32's five tests still show the lack.
v = test("Reshape", variant=True)
put("ort", v, "crash", "compile", "Fail", "[ShapeInferenceError] Target shape may not have multiple -1 dimensions")
put("tvm-onnx", v, "crash", "compile", "TypeError", why)
# Five Expand tests of float32 fail alike, but the probe of Expand float32 passed: a bug, not a lack.
c.execute("CREATE TABLE IF NOT EXISTS support(frontend TEXT NOT NULL, version TEXT NOT NULL, op TEXT NOT NULL,"
          " dtype TEXT NOT NULL, probe_id TEXT NOT NULL, outcome TEXT NOT NULL, stage TEXT, message TEXT,"
          " PRIMARY KEY(frontend, version, op, dtype))")
c.execute("INSERT INTO support VALUES('tvm-onnx', '0.27.0', 'Expand', 'float32', 'p', 'pass', NULL, NULL)")
for _ in range(5):
    put("tvm-onnx", test("Expand"), "crash", "compile", "ValueError",
        "broadcast_to expects the input shape to have the number of ndim at least as the input tensor's")
# Five of Gather's six float32 tests fail alike, one passes: a bug, not a lack.
for _ in range(5):
    put("tvm-onnx", test("Gather"), "crash", "compile", "TypeError", "Gather indices must be int64")
put("tvm-onnx", test("Gather"), "pass")
# An old OpenVINO whose canary gave wrong answers (db.c's environment table): its failure on a 0-d
# input, the canary's form, is the environment's; its failure on another input stays its bug.
c.execute("CREATE TABLE IF NOT EXISTS environment(frontend TEXT NOT NULL, version TEXT NOT NULL, python TEXT NOT NULL,"
          " ok INTEGER, detail TEXT, seconds REAL, PRIMARY KEY(frontend, version, python))")
c.execute("INSERT INTO environment VALUES('openvino-onnx@2023.0.0', '2023.0.0', '/old/bin/python', 0,"
          " 'Range(0, 3, 1) gave [], expected [0, 1, 2]', 0.7)")
put("openvino-onnx@2023.0.0", test("Range", "int64", shape=()), "mismatch", msg="output 0: shape mismatch: got [1], want [3]")
put("openvino-onnx@2023.0.0", test("Gather", shape=(2, 2)), "crash", "compile", "RuntimeError", "Gather axis out of range")
# A wrong shape from an input with no elements is one cause whatever the reduction; another wrong
# shape of ReduceMax is another.
put("ort", test("ReduceMax", shape=(2, 0)), "mismatch", msg="output 0: shape mismatch: got [2, 0], want [2, 1]")
put("ort", test("ReduceSum", shape=(0, 2, 2)), "mismatch", msg="output 0: shape mismatch: got [0, 2, 2], want [0, 1, 2]")
put("ort", test("ReduceMax", shape=(2, 3)), "mismatch", msg="output 0: shape mismatch: got [2, 3], want [2, 1]")
# Values wrong in every element (a wrong formula) are one cause whatever the dtype; a few wrong
# elements of another dtype are another.
put("openvino-onnx", test("Sub", "int32"), "mismatch",
    msg="output 0: max |got - want| = 7 at [1, 0] (got -1, want -8), 12 of 12 elements differ")
put("openvino-onnx", test("Sub", "int64"), "mismatch",
    msg="output 0: max |got - want| = 28 at [0, 1] (got 13, want -15), 12 of 12 elements differ")
put("openvino-onnx", test("Sub", "int16"), "mismatch",
    msg="output 0: max |got - want| = 1 at [2, 1] (got 32767, want -32768), 1 of 12 elements differ")
# IREE's "failed to legalize operation 'torch.operator'" is told apart by the operation's name (the
# operands' count tells nothing): every LpPool test lacks it, a generated graph holding LpPool that
# fails alike joins that entry, and DFT's two forms are one bug of their own.
def legalize(name, args):
    return ("Error invoking IREE compiler tool iree-compile\nError code: 1\nDiagnostics:\n<stdin>:4:10: error: failed to "
            "legalize operation 'torch.operator' that was explicitly marked illegal: %%0 = \"torch.operator\"(%s) <{name = "
            "\"onnx.%s\"}> : (!torch.vtensor<[3,4],f32>) -> !torch.vtensor<[3,4],f32>\n    %%0 = torch.operator \"onnx.%s\"(%s) "
            ": (!torch.vtensor<[3,4],f32>) -> !torch.vtensor<[3,4],f32>\n         ^\n" % (args, name, name, args))
for _ in range(5):
    put("iree-onnx", test("LpPool"), "crash", "compile", "CompilerToolError", legalize("LpPool", "%arg0"))
gr = dict(base, op="graph", kind="graph", id="%032x" % 0xabcfff)
gr["graph"] = {"inputs": ["x0"], "constants": [], "outputs": ["t1"],
               "nodes": [{"op": "Abs", "inputs": ["x0"], "outputs": ["t0"], "params": {}},
                         {"op": "LpPool", "inputs": ["t0"], "outputs": ["t1"], "params": {}}]}
c.execute("INSERT INTO instances(id, library, op, record) VALUES(?, 'onnx', 'graph', ?)", (gr["id"], json.dumps(gr)))
put("iree-onnx", gr["id"], "crash", "compile", "CompilerToolError", legalize("LpPool", "%arg0"))
put("iree-onnx", test("DFT"), "crash", "compile", "CompilerToolError", legalize("DFT", "%arg0"))
put("iree-onnx", test("DFT"), "crash", "compile", "CompilerToolError", legalize("DFT", "%arg0, %arg1"))
put("iree-onnx", test("DFT"), "pass")
# An MLIR error echoes the operation under it with a caret: the echo is where, the error what. Det's
# and Unique's errors are two bugs, though their echoes are alike.
def echoed(error, name):
    return ("Error invoking IREE compiler tool iree-compile\nError code: 1\nDiagnostics:\n<stdin>:4:10: error: %s\n"
            "    %%0 = torch.operator \"onnx.%s\"(%%arg0) : (!torch.vtensor<[3,4],f32>) -> !torch.vtensor<[3],f32>\n"
            "         ^\n" % (error, name))
put("iree-onnx", test("Det"), "crash", "compile", "CompilerToolError",
    echoed("'linalg.generic' op expected operand #0 rank (4) to match the result rank of indexing_map (2)", "Det"))
put("iree-onnx", test("Det"), "pass")
put("iree-onnx", test("Unique"), "crash", "compile", "CompilerToolError",
    echoed("operand and result must have the same size and dtype", "Unique"))
put("iree-onnx", test("Unique"), "pass")
c.commit()
PY
expect_exit 0 "bugs" -- "$FERRY" bugs s.db
bugs=$(printf '%s\n' "$out" | sed '/^Not a frontend bug/,$d')
apart=$(printf '%s\n' "$out" | sed -n '/^Not a frontend bug/,$p')
contains "the head counts the bugs and the entries apart" "$out" \
	"17 unique bugs from 55 failures in s.db (and 8 entries that are not frontend bugs, listed after them)"
contains "a mismatch only one frontend makes is a bug" "$bugs" "got [1, 1, 7, 8], want [1, 1, 7, 14]"
contains "a harvested test every frontend refuses is a bug" "$bugs" "fmod must be 1"
contains "a half-precision difference of many ulp is a bug" "$bugs" "500 of 500 elements"
contains "a lacking group with a passing form is a bug" "$bugs" "Gather indices must be int64"
contains "a reference that two frontends dispute alike is listed apart" "$apart" "reference disputed"
contains "once, naming both frontends" "$apart" "openvino-onnx,ort"
contains "with why" "$apart" "Loop: other frontends give the same answer, none the reference's"
contains "a variant every frontend refused is a suspected invalid test" "$apart" \
	"LayerNormalization made by ferry, refused by every frontend that ran it"
case $(printf '%s\n' "$apart" | grep -c "LayerNormalization made by ferry, refused by every frontend") in
1) ok 0 "once, for all the frontends that refused it" ;; *) ok 1 "once, for all the frontends that refused it" ;; esac
contains "a difference within 2 ulp is undefined" "$apart" "within the precision of float16"
contains "the frontend's words are unsupported, with the pattern" "$apart" "ferry's pattern: not yet supported"
contains "what a frontend lacks for three dtypes is one entry, a small group among them" "$apart" \
	"lacks Reshape for float32, int32, int64"
contains "a group whose probe passed is no lack" "$bugs" "broadcast_to expects the input shape"
lp=$(printf '%s\n' "$apart" | grep "lacks LpPool")
contains "an MLIR compiler's failure to legalize an operator in every test of it is a lack" "$lp" \
	"lacks LpPool for float32"
contains "... that a generated graph holding it, failing alike, joins" "$lp" " 6  LpPool,graph "
case $(printf '%s\n' "$bugs" | grep -c "iree-onnx .* DFT ") in
1) ok 0 "the same failure to legalize DFT with one operand or two is one bug" ;;
*) ok 1 "the same failure to legalize DFT with one operand or two is one bug"; printf '%s\n' "$bugs" | sed 's/^/#   /' ;;
esac
contains "... of both tests" "$(printf '%s\n' "$bugs" | grep "iree-onnx .* DFT ")" " 2  DFT "
case $(printf '%s\n' "$bugs" | grep -c -E "iree-onnx .* (Det|Unique) ") in
2) ok 0 "two MLIR errors whose echoed operations look alike are two bugs" ;;
*) ok 1 "two MLIR errors whose echoed operations look alike are two bugs"; printf '%s\n' "$bugs" | sed 's/^/#   /' ;;
esac
contains "a 0-d input on a frontend whose canary failed is the environment's" "$apart" \
	"a 0-d input, the form of ferry's canary, which failed: the canary of openvino-onnx@2023.0.0"
contains "its failure on another input stays its bug" "$bugs" "Gather axis out of range"
case $(printf '%s\n' "$bugs" | grep -c " ort .*shape mismatch") in
2) ok 0 "empty inputs' wrong shapes are one bug, another wrong shape another" ;;
*) ok 1 "empty inputs' wrong shapes are one bug, another wrong shape another"; printf '%s\n' "$bugs" | sed 's/^/#   /' ;;
esac
case $(printf '%s\n' "$bugs" | grep -c " openvino-onnx .*Sub ") in
2) ok 0 "values wrong everywhere are one bug across dtypes, a few wrong elements another" ;;
*) ok 1 "values wrong everywhere are one bug across dtypes, a few wrong elements another"
   printf '%s\n' "$bugs" | sed 's/^/#   /' ;;
esac
expect_exit 0 "bugs --json" -- "$FERRY" bugs --json s.db
kinds=$(printf '%s\n' "$out" | "$py" -c 'import json, sys
d = json.load(sys.stdin)
print(" ".join(sorted(b["kind"] + ":" + b["frontend"] for b in d["bugs"] if b["kind"] != "bug")))
print(all(b.get("reason") for b in d["bugs"] if b["kind"] != "bug"))')
contains "each entry's kind in JSON" "$(printf '%s\n' "$kinds" | head -1)" \
	"disputed:openvino-onnx disputed:ort environment:openvino-onnx@2023.0.0 invalid:openvino-onnx invalid:ort invalid:ort invalid:tvm-onnx lacks:iree-onnx lacks:tvm-onnx undefined:tvm-onnx unsupported:tvm-onnx"
contains "each with its reason" "$(printf '%s\n' "$kinds" | tail -1)" "True"
# What is listed apart reveals no bug to ferry apfd either: every test in one queue finds the 17 bugs.
"$py" -c 'import sqlite3, sys; print("\n".join(r[0] for r in sqlite3.connect(sys.argv[1]).execute("SELECT id FROM instances")))' \
	s.db > all.ids
expect_exit 0 "apfd" -- "$FERRY" apfd --bugs s.db --format csv all=all.ids
contains "ferry apfd counts the frontend bugs only" "$out" "\"all\",$("$py" -c 'import sqlite3, sys; print(len(sqlite3.connect(sys.argv[1]).execute("SELECT id FROM instances").fetchall()))' s.db),17,"
id=$(printf '%s\n' "$apart" | awk '/lacks Reshape/ { print $1; exit }')
expect_exit 0 "show the lacking entry" -- "$FERRY" show s.db "$id"
contains "show says it is not a frontend bug, and why" "$out" "not a frontend bug: lacks: lacks Reshape for float32, int32, int64"
finish
