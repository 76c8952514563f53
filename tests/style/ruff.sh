#!/bin/sh
# ruff over ferry's Python (ruff.toml says what it checks and why): any finding fails the test.
. "${top_srcdir:-$(dirname "$0")/../..}/tests/setup"
py=${FERRY_PYTHON:-$top_srcdir/.venv/bin/python}
ruff=$(dirname "$py")/ruff
[ -x "$ruff" ] || ruff=$(command -v ruff || true)
[ -n "$ruff" ] || skip_all "ruff is not installed (requirements.txt pins it)"
plan 2
cd "$top_srcdir"
expect_exit 0 "ruff finds nothing in ferry's Python" -- "$ruff" check --no-cache --output-format concise .
[ "$got" -eq 0 ] || printf '%s\n' "$out" | head -40 | sed 's/^/#   /'
# The check must be able to fail: the same ruff on a file with an unused import and an undefined name.
printf 'import os\nprint(undefined_name)\n' > "$work/bad.py"
expect_exit 1 "ruff fails on a file with findings" -- "$ruff" check --no-cache --config "$top_srcdir/ruff.toml" "$work/bad.py"
finish
