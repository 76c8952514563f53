#!/bin/sh
# -F NAME@PYTHON and --frontends FILE, as they are parsed (doc/releases.md): a
# PYTHON that is no interpreter, or another Python than the one ferry embeds, is refused naming it;
# two entries of one release are a usage error; a frontends file takes what -F takes, with comments,
# adds to -F, and names FILE:LINE for a bad line. (The runs themselves: tests/integration/releases.sh.)
. "${top_srcdir:-$(dirname "$0")/../..}/tests/setup"
py=${FERRY_PYTHON:-$top_srcdir/.venv/bin/python}
[ -x "$py" ] || skip_all "no Python at $py"
plan 23
mkdir wrapped

expect_exit 2 "a PYTHON that does not exist: usage error" -- "$FERRY" run wrapped -F "ort@$work/none/bin/python" -o r.db
contains "naming it" "$err" "frontend 'ort@$work/none/bin/python': no Python interpreter at '$work/none/bin/python': No such file or directory"
echo 'not a program' > notpython
expect_exit 2 "a PYTHON that is no executable: usage error" -- "$FERRY" check wrapped -F "ort@$work/notpython" -o r.db
contains "saying so" "$err" "no Python interpreter at '$work/notpython' (not an executable file)"
check "nothing was made" -- test ! -e r.db

# Another Python, if this machine has one: ferry loads its own libpython in every worker.
embedded=$("$py" -c 'import sys; print("%d.%d" % sys.version_info[:2])')
other=
for p in $(command -v python3.8 python3.9 python3.10 python3.11 python3.12 python3.13 python3.14 2>/dev/null) \
	 "${PYENV_ROOT:-$HOME/.pyenv}"/versions/3.*/bin/python3; do
	[ -x "$p" ] || continue
	v=$("$p" -c 'import sys; print("%d.%d" % sys.version_info[:2])' 2>/dev/null) || continue
	if [ "$v" != "$embedded" ]; then other=$p; break; fi
done
if [ -n "$other" ]; then
	expect_exit 2 "a PYTHON of another version ($v): usage error" -- "$FERRY" run wrapped -F "ort@$other" -o r.db
	contains "naming both versions" "$err" "'$other' is Python $v, and ferry embeds Python $embedded"
else
	ok 0 "# SKIP no Python interpreter other than $embedded on this machine"
	ok 0 "# SKIP no Python interpreter other than $embedded on this machine"
fi
expect_exit 2 "an unknown NAME before @ is still unknown" -- "$FERRY" run wrapped -F "nosuch@$py" -o r.db
contains "by name" "$err" "unknown frontend 'nosuch'"
expect_exit 2 "NAME:LIBRARY@PYTHON checks the library" -- "$FERRY" run wrapped -F "ort:torch@$py" -o r.db
contains "as -F NAME:LIBRARY does" "$err" "frontend 'ort' takes onnx models, not torch"

expect_exit 2 "the same release twice: usage error" -- "$FERRY" run wrapped -F ort,tvm-pytorch,ort -o r.db
contains "saying both are the same release" "$err" "frontends 1 and 3 are the same release, ort"

cat > fe.txt <<'TXT'
# the releases of this job

ort          # the current one
TXT
expect_exit 2 "a frontends file parses (the run stops at the missing -o)" -- "$FERRY" run wrapped --frontends fe.txt
contains "at the missing -o, not at the file" "$err" "no output"
expect_exit 2 "--frontends adds to -F" -- "$FERRY" run wrapped -F ort --frontends fe.txt -o r.db
contains "so ort is there twice" "$err" "frontends 1 and 2 are the same release, ort"
printf 'ort\n\nnosuch\n' > bad.txt
expect_exit 2 "an unknown frontend in a file" -- "$FERRY" check wrapped --frontends bad.txt -o r.db
contains "named by FILE:LINE" "$err" "bad.txt:3: unknown frontend 'nosuch'"
printf '# two on a line\nort tvm-pytorch\n' > two.txt
expect_exit 2 "two frontends on a line" -- "$FERRY" run wrapped --frontends two.txt -o r.db
contains "named by FILE:LINE" "$err" "two.txt:2: one frontend per line"
expect_exit 2 "a frontends file that does not exist" -- "$FERRY" run wrapped --frontends none.txt -o r.db
contains "naming it" "$err" "none.txt"
finish
