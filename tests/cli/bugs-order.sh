#!/bin/sh
# ferry bugs lists the bugs in filing order (report/filing.h), across frontends: a bug of an older
# release after the newest's, then the most reach first (distinct operators plus the square root of
# the tests), a crash counting double, the more severe first among equals; the other kinds after;
# and --json carries the rank and what it weighed; ferry report starts with the list's head. The
# store is an old one's copy with results written in.
. "${top_srcdir:-$(dirname "$0")/../..}/tests/setup"
py=${FERRY_PYTHON:-$top_srcdir/.venv/bin/python}
"$py" -c 'import sqlite3' 2>/dev/null || skip_all "no python sqlite3"
plan 10
cp "$top_srcdir/tests/data/stores/schema1.db" s.db
chmod u+w s.db
"$py" - s.db <<'PY'
import json, sqlite3, sys
c = sqlite3.connect(sys.argv[1])
base = json.loads(c.execute("SELECT record FROM instances WHERE op = 'Ceil'").fetchone()[0])
n = 0
def test(op):
    global n
    n += 1
    r = dict(base, op=op, id="%032x" % (0xdef000 + n))
    c.execute("INSERT INTO instances(id, library, op, record) VALUES(?, 'onnx', ?, ?)", (r["id"], op, json.dumps(r)))
    return r["id"]
def put(fe, id, outcome, stage=None, exc=None, msg=None):
    c.execute("INSERT OR REPLACE INTO results(frontend, id, outcome, stage, exc_type, message) VALUES(?,?,?,?,?,?)",
              (fe, id, outcome, stage, exc, msg))
c.execute("INSERT INTO runs(frontend, frontend_version, command, started) VALUES('tvm-onnx', '0.25.0', 'x', 1)")
c.execute("INSERT INTO runs(frontend, frontend_version, command, started) VALUES('tvm-onnx@0.20.0', '0.20.0', 'x', 1)")
# wrong: one operator's 16 wrong results (1 + 4 = 5)
for k in range(16):
    put("tvm-onnx", test("Resize"), "mismatch", msg="output 0: 12 of 12 elements differ, the largest by 3.5")
# lone: one crash of one test (2 * (1 + 1) = 4): after the mismatch that reaches more
put("tvm-onnx", test("Gather"), "crash", "compile", "KeyError", "KeyError: 'axis'")
# wide: one crash of three operators (2 * (3 + 1.7) = 9.5): first
for op in ("Acos", "Acosh", "Asinh"):
    put("tvm-onnx", test(op), "crash", "compile", "InternalError", "InternalError: unknown intrinsic tirx.op")
# segv: one signal death (2 * (1 + 1) = 4), as much reach as lone: before it, more severe
put("tvm-onnx", test("Einsum"), "crash", "execute", "signal 11", "the worker killed by signal 11 (SIGSEGV)")
# old: an older release's crash of many tests, after every bug of the newest release
for op in ("Sin", "Cos", "Tan", "Atan", "Sinh"):
    put("tvm-onnx@0.20.0", test(op), "crash", "compile", "TVMError", "TVMError: no schedule")
# apart: a test the frontend says it does not support, after every bug
put("tvm-onnx", test("Loop"), "unsupported", "compile", "OpNotImplemented", "Loop is not supported")
c.commit()
PY
"$FERRY" bugs s.db -w >bugs.txt 2>err.txt
check "bugs lists the store" -- [ -s bugs.txt ]
order=$(awk '$2 ~ /^tvm-onnx/ { print $5 ":" $6 }' bugs.txt | tr '\n' ' ')
contains "the crash of three operators leads" "$order" "3:Acos,Acosh,Asinh 16:Resize"
contains "sixteen wrong results of one operator before one test's crash" "$order" "16:Resize 1:Einsum"
contains "a signal death before a crash of the same reach" "$order" "1:Einsum 1:Gather"
contains "an older release's bug after the newest's" "$order" "1:Gather 5:Atan,Cos,Sin,Sinh,Tan"
"$FERRY" bugs s.db --json >bugs.json
ranks=$("$py" -c 'import json, sys
d = json.load(open(sys.argv[1]))
print(" ".join("%d:%s:%d:%d" % (b["rank"], b["severity"], b["operator_count"], b["older_release"])
               for b in d["bugs"] if b["frontend"].startswith("tvm-onnx")))' bugs.json)
contains "--json carries the rank, severity, operators and release" "$ranks" "1:crash:3:0 2:wrong result:1:0 4:signal:1:0 6:crash:1:0 8:crash:5:1"
check "--json ranks are 1-based places across frontends" -- [ "$(echo "$ranks" | cut -c1-2)" = "1:" ]
"$FERRY" bugs s.db -F tvm-onnx -w >one.txt
check "with -F, the frontend's bugs in the same order" -- \
	[ "$(awk '$2 == "tvm-onnx" { print $6 }' one.txt | tr '\n' ' ')" = "Acos,Acosh,Asinh Resize Einsum Gather " ]
"$FERRY" report s.db -w >report.txt
head=$(sed -n '/^the bugs most worth filing/,/^$/p' report.txt)
contains "the report starts with the bugs most worth filing" "$head" "ferry file s.db BUG"
first=$(printf '%s\n' "$head" | awk 'NR > 2 && $2 ~ /^tvm-onnx/ { print $5; exit }')
check "in filing order ($first first)" -- [ "$first" = "Acos,Acosh,Asinh" ]
finish
