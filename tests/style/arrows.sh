#!/bin/sh
# The house's arrows point down (bench/house/arrows.sh; the rooms, bottom up, are listed there): no
# include or import runs up from lib/, pool/, the stages' engines or oracle/. The check must be able
# to fail: a small tree with an upward include, an upward import and a circle is caught.
. "${top_srcdir:-$(dirname "$0")/../..}/tests/setup"
plan 8

arrows=$top_srcdir/bench/house/arrows.sh
PYTHON=${FERRY_PYTHON:-$top_srcdir/.venv/bin/python}
export PYTHON
# Exit 0 or 1 (arrows or circles found: the circles of src/ are another issue's); 2 or 3 is a failure.
set +e; out=$(sh "$arrows" -r "$top_srcdir" 2>"$work/.err"); got=$?; set -e
if [ "$got" -le 1 ]; then ok 0 "arrows.sh reads the tree"; else ok 1 "arrows.sh reads the tree"; sed 's/^/#   /' "$work/.err"; fi
contains "it ends with the count" "$out" "arrows up: "
up=$(printf '%s\n' "$out" | grep -E '^(lib|pool|extract|templates|vary|gen|prioritize|oracle)/[^:]*:[0-9]+: up:' || true)
name="no arrow runs up from lib/, pool/, the engines or oracle/"
if [ -z "$up" ]; then ok 0 "$name"; else ok 1 "$name"; printf '%s\n' "$up" | sed 's/^/#   /'; fi

# A tree that breaks the rule: lib/ includes a header of oracle/'s, templates/ imports an oracle
# module, and oracle/ includes lib/ back (a circle between rooms).
mkdir -p tree/lib tree/oracle tree/templates
printf '/* a.h */\nint a_one(void);\n' >tree/lib/a.h
printf '/* a.c */\n#include "a.h"\n#include "b.h"\nint a_one(void)\n{\n\treturn b_one();\n}\n' >tree/lib/a.c
printf '/* b.h */\nint b_one(void);\n' >tree/oracle/b.h
printf '/* b.c */\n#include "b.h"\n#include "a.h"\nint b_one(void)\n{\n\treturn 1;\n}\n' >tree/oracle/b.c
printf '"""t."""\nfrom ferry.oracle import driver\nTEXT = "from ferry.oracle import registry"\n' >tree/templates/t.py
printf '"""driver."""\n' >tree/oracle/driver.py
printf '"""registry."""\n' >tree/oracle/registry.py
expect_exit 1 "a tree with arrows up fails" -- sh "$arrows" -r tree
contains "the upward include is named" "$out" 'lib/a.c:3: up: "b.h" is oracle/b.h (lib -> oracle)'
contains "the upward import is named" "$out" 'templates/t.py:2: up: ferry.oracle.driver is oracle/driver.py (templates -> oracle)'
contains "the circle between rooms is named" "$out" 'circle: rooms: lib -> oracle -> lib'
case $out in *registry*) ok 1 "an import in a string is no import" ;; *) ok 0 "an import in a string is no import" ;; esac
finish
