#!/bin/sh
# A found bug as a regression test in its compiler's own form (ferry show -o), and a store's failures
# as the expected-failure lists those projects keep (ferry report --xfail), each run here against the
# installed frontend: real bugs of OpenVINO's and TVM's ONNX frontends and of IREE (the lines of
# tests/data/onnx-frontends/corpus.jsonl that onnx-frontends.sh checks), and the fault-injecting
# frontend (tests/data/adapters/adapter_fault.py: Ceil answers its output plus one, Exp raises).
# Every generated test must fail for its bug, and one generated for a test that passes must pass.
. "${top_srcdir:-$(dirname "$0")/../..}/tests/setup"
need_python_module onnx
need_python_module onnxruntime
need_python_module pytest
py=${FERRY_PYTHON:-$top_srcdir/.venv/bin/python}
export PYTHONPATH="$top_builddir/python"
sql() { "$py" -c 'import sqlite3, sys; print("\n".join("|".join(map(str, r)) for r in sqlite3.connect(sys.argv[1]).execute(sys.argv[2])))' "$@"; }
corpus=$top_srcdir/tests/data/onnx-frontends/corpus.jsonl
# the test's directory name, as ferry show -o and the lists give it
name() { "$py" -c 'import sys; from ferry.oracle.regress import regress_name; print(regress_name(*sys.argv[1:]))' "$@"; }
# export the test ID of the store as FRONTEND's bug would be, whatever its outcome: into DIR
export_test() {  # export_test FRONTEND ID DIR
	"$py" -c 'import sqlite3, sys
from ferry.oracle import reproducer
rec, d = sqlite3.connect("results.db").execute("SELECT record, dir FROM instances WHERE id LIKE ?", (sys.argv[2] + "%",)).fetchone()
reproducer.export("onnx", rec, d, sys.argv[3], sys.argv[1])' "$@"
}
# pytest on the files given, its summary line in $out and its status in $rc
run_pytest() {
	set +e; "$py" -m pytest -q -p no:cacheprovider "$@" >pytest.out 2>&1; rc=$?; set -e
	out=$(tail -1 pytest.out)
	[ "$rc" -le 1 ] || sed 's/^/#   /' pytest.out | tail -20
}
same() {  # same NAME GOT WANT: GOT is WANT, and neither is empty
	if [ -n "$3" ] && [ "$2" = "$3" ]; then ok 0 "$1"; else ok 1 "$1"; echo "#   got '$2', want '$3'"; fi
}
# the ids of the failing tests of a frontend, as the lists name them
failing() { sql results.db "SELECT i.op, i.id FROM results r JOIN instances i USING(id) WHERE r.frontend = '$1'
	AND r.outcome NOT IN ('pass', 'unsupported', 'undefined', 'error') ${2:-} ORDER BY i.id" | while IFS='|' read -r op id; do name "$op" "$id"; done | sort; }
plan 27

# --- OpenVINO and TVM: a pytest file in the manner of their own tests ------------------------------
# BitShift c70662226c85 (a real mismatch on both), Celu 62c0e8298c0c (bfloat16: OpenVINO crashes; the
# file then runs the reproducer), Abs 50c0eb459201 (passes on both)
grep -e c70662226c85 -e 62c0e8298c0c -e 50c0eb459201 "$corpus" >small.jsonl
"$FERRY" wrap small.jsonl -o wrapped -q >/dev/null
for entry in openvino-onnx:openvino tvm-onnx:tvm; do
	fe=${entry%%:*}
	if ! "$py" -c "import ${entry#*:}" 2>/dev/null; then
		k=0; while [ $k -lt 7 ]; do ok 0 "# SKIP $fe is not installed"; k=$((k + 1)); done; continue
	fi
	"$FERRY" run wrapped -F "$fe" -o results.db -j 2 -q >/dev/null
	bug=$("$FERRY" bugs results.db -F "$fe" --op BitShift --json | "$py" -c 'import json, sys; print(json.load(sys.stdin)["bugs"][0]["bug"])')
	expect_exit 0 "$fe: show -o exports the BitShift bug" -- "$FERRY" show results.db "$bug" -o "bug-$fe"
	file=$(ls bug-$fe/test_BitShift_c70662226c85/test_ferry_bitshift_c70662226c85.py)
	case $fe in
	openvino*) contains "$fe: a layer-test class compiled with openvino.Core" "$(cat "$file")" "def create_model(self)" ;;
	*) contains "$fe: a check_correctness on the model, as TVM's tests" "$(cat "$file")" "check_correctness(model, inputs, expected" ;;
	esac
	run_pytest "$file"
	contains "$fe: the exported test fails for the bug" "$rc $out" "1 1 failed"
	export_test "$fe" 50c0eb459201 "pass-$fe"
	run_pytest pass-$fe/test_ferry_*.py
	contains "$fe: the same export of a test that passes passes" "$rc $out" "0 1 passed"
	# the expected-failure marks of the whole store: the failing test is xfail, the passing one passes
	expect_exit 0 "$fe: report --xfail writes the lists" -- "$FERRY" report results.db -F "$fe" --xfail xf
	mkdir "xfail-$fe"
	cp "xf/$fe/conftest.py" "$file" pass-$fe/test_ferry_*.py "xfail-$fe"
	run_pytest "xfail-$fe"
	contains "$fe: with its conftest.py the bug is an expected failure" "$rc $out" "1 passed, 1 xfailed"
	if [ "$fe" = openvino-onnx ]; then
		bug=$("$FERRY" bugs results.db -F "$fe" --op Celu --json | "$py" -c 'import json, sys; print(json.load(sys.stdin)["bugs"][0]["bug"])')
		"$FERRY" show results.db "$bug" -o celu >/dev/null
		run_pytest celu/test_Celu_62c0e8298c0c/test_ferry_celu_*.py
		contains "$fe: a bfloat16 test runs its reproducer, and fails for the crash" "$rc $out" "1 1 failed"
	else
		ok 0 "# SKIP $fe: Celu is no bug of it"
	fi
done

# --- IREE: the backend test-data directory and its onnx_ops config ---------------------------------
# Unique 31f1dcefd150 (iree-compile fails), CenterCropPad 088df11ded91 (a wrong shape: a run failure)
if "$py" -c "import iree.runtime, iree.compiler" 2>/dev/null; then
	rm -rf results.db wrapped
	grep -e 31f1dcefd150 -e 088df11ded91 -e 50c0eb459201 "$corpus" >iree.jsonl
	"$FERRY" wrap iree.jsonl -o wrapped -q >/dev/null
	"$FERRY" run wrapped -F iree-onnx -o results.db -j 2 -q >/dev/null
	bug=$("$FERRY" bugs results.db --op CenterCropPad --json | "$py" -c 'import json, sys; print(json.load(sys.stdin)["bugs"][0]["bug"])')
	expect_exit 0 "iree-onnx: show -o exports the CenterCropPad bug" -- "$FERRY" show results.db "$bug" -o bug-iree
	d=bug-iree/test_CenterCropPad_088df11ded91
	check "iree-onnx: the export is a backend test-data directory" -- test -f "$d/test_data_set_0/output_0.pb"
	got=$("$py" -c 'import json, sys; print(json.load(open(sys.argv[1])))' "$d/iree_onnx_ops.json")
	contains "iree-onnx: its config entry expects a run failure of it" "$got" \
		"{'expected_compile_failures': [], 'expected_run_failures': ['test_CenterCropPad_088df11ded91']}"
	"$FERRY" report results.db --xfail xf >/dev/null
	lists=$("$py" -c 'import json, sys
c = json.load(open(sys.argv[1]))
print(" ".join(c["expected_compile_failures"]), "|", " ".join(c["expected_run_failures"]))' xf/iree-onnx/iree_onnx_ops.json)
	want="$(failing iree-onnx "AND r.stage IN ('load', 'compile')" | xargs) | $(failing iree-onnx "AND coalesce(r.stage, '') NOT IN ('load', 'compile')" | xargs)"
	same "iree-onnx: the config names exactly the failing tests, by stage" "$lists" "$want"
	contains "iree-onnx: ... and both failures are in it" "$lists" "test_Unique_31f1dcefd150 | test_CenterCropPad_088df11ded91"
else
	k=0; while [ $k -lt 5 ]; do ok 0 "# SKIP iree is not installed"; k=$((k + 1)); done
fi

# --- the fault-injecting frontend: the ONNX backend runner's exclude list --------------------------
rm -rf results.db wrapped xf
"$FERRY" harvest onnx -q -o corpus.jsonl -f test_ceil -f test_exp -f test_add >/dev/null
"$FERRY" wrap corpus.jsonl -o wrapped -q >/dev/null
export FERRY_ADAPTERS="$top_srcdir/tests/data/adapters"
"$FERRY" run wrapped --frontend fault:onnx -o results.db -j 2 -q >/dev/null
expect_exit 0 "fault: report --xfail writes the lists" -- "$FERRY" report results.db --xfail xf
check "fault: no IREE config for a frontend that is not IREE" -- test ! -e xf/fault/iree_onnx_ops.json
expect_exit 2 "--xfail writes only the lists: with -o it is a usage error" -- "$FERRY" report results.db --xfail xf -o r
expect_exit 4 "--xfail of a store that is not there" -- "$FERRY" report nothing.db --xfail xf
excluded=$(grep -v '^#' xf/fault/onnx_backend_exclude.txt | sed 's/^\^//; s/_$//' | sort | xargs)
want=$(failing fault | xargs)
same "fault: the exclude list names exactly the failing tests" "$excluded" "$want"
contains "fault: ... Ceil's wrong answers and Exp's exceptions among them" "$excluded" "test_Ceil_"
# every test of the store as a backend test-data directory, run by ONNX's own runner on the fault
# frontend: without the list exactly the failing ones fail, with it none does
mkdir -p suite/ferry
sql results.db "SELECT i.id FROM instances i JOIN results r USING(id) WHERE r.frontend = 'fault'" | while read -r id; do
	export_test fault "$id" "suite/ferry/$(name "$(sql results.db "SELECT op FROM instances WHERE id = '$id'")" "$id")"
done
runner() { "$py" -W ignore "$top_srcdir/tests/integration/regress_backend.py" fault suite "$@"; }
got=$(runner | "$py" -c 'import json, sys; print(" ".join(sorted(t[:-len("_cpu")] for t in json.load(sys.stdin)["failed"])))')
same "fault: BackendTest fails exactly the listed tests without the list" "$got" "$want"
got=$(runner xf/fault/onnx_backend_exclude.txt)
contains "fault: BackendTest with the list's exclude() patterns fails none" "$got" '"failed": []'
finish
