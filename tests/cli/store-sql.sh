#!/bin/sh
# The store owns its SQL (lib/db.h): no C file of ferry but lib/db.c calls SQLite or holds SQL text.
# (lib/db.h names SQLite's handles by their struct tags only, for struct db.) Tests may read a store
# with SQL of their own, as outsiders: tests/ is not searched.
. "${top_srcdir:-$(dirname "$0")/../..}/tests/setup"
plan 2
cd "$top_srcdir"
pattern='sqlite3_[a-z]+\(|sqlite3\.h|"[^"]*\b(SELECT|INSERT INTO|UPDATE [a-z_]+ SET|DELETE FROM|CREATE (TABLE|INDEX|TEMP)|ALTER TABLE|ATTACH DATABASE|PRAGMA) '
found=$(grep -rnE "$pattern" --include='*.c' --include='*.h' lib src oracle prioritize extract | grep -v '^lib/db\.c:' || true)
if [ -z "$found" ]; then ok 0 "no SQL outside lib/db.c"; else ok 1 "no SQL outside lib/db.c"; printf '%s\n' "$found" | sed 's/^/#   /'; fi
# The search itself finds what it looks for, or the test above could not fail.
n=$(grep -cE "$pattern" lib/db.c || true)
check "the search finds the store's own SQL ($n lines)" -- test "$n" -gt 20
finish
