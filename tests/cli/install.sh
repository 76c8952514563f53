#!/bin/sh
# Installed as autotools users expect (issue 17): "make install prefix=DIR" and "make install
# DESTDIR=STAGE" (the staged tree moved elsewhere) give a ferry that, run from another directory,
# finds its Python package and its files beside its own binary, and does a small real job (harvest
# onnx, wrap, run on ONNX Runtime, report); --tolerances takes the name of an installed file; a
# binary with no ferry package near it says every path it tried; a store run with a user's adapter
# shows its bugs' reproducers without FERRY_ADAPTERS; make uninstall leaves no file behind.
. "${top_srcdir:-$(dirname "$0")/../..}/tests/setup"
need_python_module onnx
need_python_module onnxruntime
command -v "${MAKE:-make}" >/dev/null 2>&1 || skip_all "no make"
test -f "$top_builddir/Makefile" || skip_all "no configured build tree at '$top_builddir'"
py=${FERRY_PYTHON:-$top_srcdir/.venv/bin/python}
plan 46
sql() { "$py" -c 'import sqlite3, sys; print("\n".join("|".join(map(str, r)) for r in sqlite3.connect(sys.argv[1]).execute(sys.argv[2])))' "$@"; }
# make check's own make must not hand its jobserver or its variables to this one.
mk() { env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL "${MAKE:-make}" -s -C "$top_builddir" "$@" >"$work/.make" 2>&1; }
unset FERRY_PYDIR FERRY_ADAPTERS FERRY_SPECS
configured=$(sed -n 's/^#define FERRY_PKGDATADIR "\(.*\)"$/\1/p' "$top_builddir/config.h")

# --- make install prefix=DIR --------------------------------------------------------------------
prefix=$work/prefix
check "make install prefix=DIR" -- mk install prefix="$prefix"
fi=$prefix/bin/ferry
check "the binary, the Python package, the tolerances and the specs are installed" -- \
	test -x "$fi" -a -f "$prefix/share/ferry/python/ferry/__init__.py" -a -f "$prefix/share/ferry/tolerances/torch.txt" \
	-a -f "$prefix/share/ferry/python/ferry/oracle/unsupported/ort.txt" -a -f "$prefix/share/ferry/specs/conv.spec"
mkdir elsewhere
cd elsewhere
expect_exit 0 "the installed ferry harvests from another directory" -- "$fi" harvest onnx -q -f test_relu -f test_abs \
	-f test_sigmoid -o corpus.jsonl
contains "three instances" "$out" "instances            3"
expect_exit 0 "it wraps them" -- "$fi" wrap corpus.jsonl -q -o wrapped
expect_exit 0 "it runs them on ONNX Runtime" -- "$fi" run wrapped -F ort -q -j 1 -o r.db
contains "all three ran" "$out" "ran now              3"
expect_exit 0 "it reports" -- "$fi" report r.db
contains "three results of ort" "$out" "total             3"

# --- --tolerances by name -------------------------------------------------------------------------
printf '# the tightest there is: found by name\n* * * 0 0 any difference at all\n' > "$prefix/share/ferry/tolerances/exact.txt"
expect_exit 0 "--tolerances NAME finds the installed pkgdatadir/tolerances/NAME.txt" -- \
	"$fi" run wrapped -F ort -q -j 1 --tolerances exact -o exact.db
check "its tolerance judged every result" -- test "$(sql exact.db "SELECT count(*) FROM results WHERE atol = 0 AND rtol = 0")" = 3
expect_exit 0 "--tolerances torch: ferry's own file by name" -- "$fi" run wrapped -F ort -q -j 1 --tolerances torch.txt -o t.db
echo '* * * 1 1 mine' > torch
expect_exit 0 "a file of that name in the current directory is the user's" -- "$fi" run wrapped -F ort -q -j 1 --tolerances torch -o mine.db
check "and judges the results" -- test "$(sql mine.db "SELECT count(*) FROM results WHERE atol = 1")" = 3
expect_exit 4 "an unknown name is bad input" -- "$fi" run wrapped -F ort -q --tolerances nosuch -o x.db
contains "naming the installed place it looked in" "$err" "'$prefix/share/ferry/tolerances/nosuch.txt' (beside the binary $fi)"
contains "and the configured one" "$err" "'$configured/tolerances/nosuch.txt' (the configured pkgdatadir)"
check "and creating no store" -- test ! -e x.db
expect_exit 4 "run from its build tree, ferry looks in the source tree" -- "$FERRY" run wrapped -F ort -q --tolerances nosuch -o x.db
contains "and says so" "$err" "'$top_srcdir/oracle/tolerances/nosuch.txt' (ferry runs from its build tree)"

# --- unsupported patterns: ferry's own, by the frontend's name, from the installed package -----------
# The fault-injecting adapter (a test adapter: its Exp raises in execute) without its own patterns.
mkdir "$work/fault"
cp "$top_srcdir/tests/data/adapters/adapter_fault.py" "$work/fault/"
"$fi" harvest onnx -q -f test_exp -o exp.jsonl >/dev/null
"$fi" wrap exp.jsonl -q -o wexp >/dev/null
expect_exit 1 "a crash with no pattern for it" -- env FERRY_ADAPTERS="$work/fault" "$fi" check wexp -F fault -q -j 1 -o f1.db
check "is a crash" -- test "$(sql f1.db "SELECT outcome FROM results")" = crash
patterns=$prefix/share/ferry/python/ferry/oracle/unsupported/fault.txt
echo 'injected fault in execute' > "$patterns"
expect_exit 0 "the installed patterns of the frontend" -- env FERRY_ADAPTERS="$work/fault" "$fi" check wexp -F fault -q -j 1 -o f2.db
check "make it unsupported" -- test "$(sql f2.db "SELECT outcome FROM results")" = unsupported
rm "$patterns"

# --- no Python package near the binary ----------------------------------------------------------
mkdir -p "$work/lost/bin"
cp "$fi" "$work/lost/bin/ferry"
expect_exit 3 "a binary with no ferry package near it is an environment error" -- \
	"$work/lost/bin/ferry" harvest onnx -q -f test_relu -o lost.jsonl
contains "that says what it could not find" "$err" "cannot find ferry's Python package"
contains "and every path it tried: beside the binary" "$err" \
	"'$work/lost/share/ferry/python/ferry/__init__.py' (beside the binary $work/lost/bin/ferry)"
contains "the configured pkgdatadir" "$err" "'$configured/python/ferry/__init__.py' (the configured pkgdatadir)"
contains "and how to point it at one" "$err" "set FERRY_PYDIR"
check "said once, not by every harvest child" -- test "$(grep -c "cannot find ferry's Python package" "$work/.err")" -eq 1
expect_exit 0 "FERRY_PYDIR points it at one" -- env FERRY_PYDIR="$prefix/share/ferry/python" \
	"$work/lost/bin/ferry" harvest onnx -q -f test_relu -o lost.jsonl
expect_exit 3 "a FERRY_PYDIR without the package is the one place tried" -- env FERRY_PYDIR="$work/nowhere" \
	"$fi" harvest onnx -q -f test_relu -o lost.jsonl
contains "and named" "$err" "looked in '$work/nowhere/ferry/__init__.py' (FERRY_PYDIR); set FERRY_PYDIR"

# --- a user's adapter: the store records which, and ferry finds it only where the user points -------
mkdir "$work/mine"
cp "$top_srcdir/tests/data/user-adapter/adapter_mine.py" "$work/mine/"
expect_exit 0 "a run with a user's adapter (FERRY_ADAPTERS)" -- env FERRY_ADAPTERS="$work/mine" \
	"$fi" run wrapped -F mine -q -j 1 -o u.db
bug=$("$fi" bugs u.db | awk '$2 == "mine" { print $1; exit }')
expect_exit 3 "show without FERRY_ADAPTERS loads no adapter the store names" -- "$fi" show u.db "$bug"
contains "and names the frontend and what to set" "$err" \
	"no adapter for frontend 'mine': the store was run with a user's adapter of it (ferry loads no adapter a store names), and FERRY_ADAPTERS is not set; set FERRY_ADAPTERS"
case "$err" in *Traceback*) ok 1 "no Python traceback reaches the user" ;; *) ok 0 "no Python traceback reaches the user" ;; esac
mv "$work/mine" "$work/moved-adapter"
expect_exit 0 "FERRY_ADAPTERS, set, finds it where it is now" -- env FERRY_ADAPTERS="$work/moved-adapter" "$fi" show u.db "$bug"
contains "its reproducer pastes the user's adapter" "$out" "# --- the mine adapter (adapter_mine.py, whole)"
expect_exit 0 "merge" -- "$fi" merge -o merged.db u.db
check "keeps the shards' adapters, by the hash of their source" -- \
	test "$(sql merged.db "SELECT value FROM meta WHERE key = 'adapter:mine'")" = "$(sql u.db "SELECT value FROM meta WHERE key = 'adapter:mine'")"

# --- make install DESTDIR=STAGE, the tree moved into place ------------------------------------------
cd "$work"
check "make uninstall prefix=DIR" -- mk uninstall prefix="$prefix"
rm -f "$prefix/share/ferry/tolerances/exact.txt"
check "leaves no file behind" -- test -z "$(find "$prefix" -type f)"
check "make install DESTDIR=STAGE" -- mk install DESTDIR="$work/stage" prefix=/opt/ferry-staged
mv "$work/stage/opt/ferry-staged" "$work/placed"
cd elsewhere
expect_exit 0 "the staged tree, moved, runs a job from another directory" -- "$work/placed/bin/ferry" run wrapped -F ort \
	-q -j 1 -o placed.db
check "with the same results" -- test "$(sql placed.db "SELECT group_concat(outcome) FROM (SELECT outcome FROM results ORDER BY id)")" = \
	"$(sql r.db "SELECT group_concat(outcome) FROM (SELECT outcome FROM results ORDER BY id)")"
finish
