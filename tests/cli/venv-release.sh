#!/bin/sh
# scripts/venv-release makes a second virtualenv for other compiler releases (doc/releases.md).
# It must never install into .venv, which is often a link to a shared one, nor into
# a directory it did not make; and a virtualenv it made that is up to date is not touched again.
# The script runs here from a copy whose .venv links to a stand-in, whose python and pip only leave
# a mark: nothing real can be installed into, whatever the script does.
. "${top_srcdir:-$(dirname "$0")/../..}/tests/setup"
py=${FERRY_PYTHON:-$top_srcdir/.venv/bin/python}
[ -x "$py" ] || skip_all "no Python at $py"
plan 18

mkdir -p top/scripts top/requirements shared/bin made/bin foreign
cp "$top_srcdir/scripts/venv-release" top/scripts/
cp "$top_srcdir/requirements/oldest.txt" top/requirements/
for tool in python pip; do
	printf '#!/bin/sh\necho "%s $*" >> "%s/touched"\nexit 1\n' "$tool" "$work" > shared/bin/$tool
	printf '#!/bin/sh\necho "%s $*" >> "%s/touched"\nexit 1\n' "$tool" "$work" > made/bin/pip
	chmod +x shared/bin/$tool made/bin/pip
done
ln -s "$work/shared" top/.venv
echo x > foreign/file
release=$work/top/scripts/venv-release

expect_exit 2 "DIR is .venv, a link: refused" -- "$release" "$work/top/.venv"
contains "and says it is .venv" "$err" "is .venv"
expect_exit 2 "DIR is what .venv links to: refused" -- "$release" "$work/shared"
expect_exit 2 "DIR is .venv named relative to the current directory: refused" -- sh -c "cd top && scripts/venv-release .venv"
expect_exit 2 "DIR is .venv through another link: refused" -- sh -c "ln -s top/.venv alias && '$release' alias"
expect_exit 2 "a non-empty DIR the script did not make: refused" -- "$release" foreign
contains "and says so" "$err" "not made by scripts/venv-release"
check "nothing ran the stand-in's python or pip" -- [ ! -e touched ]
check "the foreign directory is as it was" -- [ "$(ls -A foreign)" = file ]

expect_exit 2 "no DIR: usage" -- "$release"
expect_exit 4 "a requirements file that does not exist: bad input" -- "$release" made "$work/nosuch.txt"

# A virtualenv the script made, up to date: the listing runs, pip does not.
ln -s "$(command -v "$py")" made/bin/python
sha256sum top/requirements/oldest.txt | cut -c1-16 > made/.ferry-requirements
expect_exit 0 "an up-to-date DIR" -- "$release" made
contains "is said to be up to date" "$out" "is up to date with"
contains "and what it holds is listed, pinned name by name" "$out" "apache-tvm-ffi"
check "pip was not run" -- [ ! -e touched ]
echo changed >> top/requirements/oldest.txt
FERRY_BASE_PYTHON=$py expect_exit 1 "changed requirements: pip runs again (the stand-in fails, so does the script)" -- "$release" made
contains "pip was run with the requirements" "$(cat touched 2>/dev/null)" "pip install"
check "and the stamp no longer says up to date" -- [ ! -s made/.ferry-requirements ]
finish
