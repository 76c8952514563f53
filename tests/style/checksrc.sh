#!/bin/sh
# The house rules a script can check (tests/style/checksrc): the tree keeps them, and each rule
# fails on tests/data/style/lib/bad.c, a file that breaks every one of them at a known line.
. "${top_srcdir:-$(dirname "$0")/../..}/tests/setup"
plan 22

checksrc=$top_srcdir/tests/style/checksrc
expect_exit 0 "the tree keeps the house rules" -- sh "$checksrc" -r "$top_srcdir"
[ -z "$out" ] || printf '%s\n' "$out" | sed 's/^/#   /'

expect_exit 1 "a file that breaks the rules fails" -- sh "$checksrc" -r "$top_srcdir/tests/data/style" lib/bad.c
for finding in 1:header 10:comment 13:prefix 15:alloc 17:print 18:sql 19:python 20:indent 21:space 22:length; do
	contains "rule ${finding#*:} names lib/bad.c:${finding%%:*}" "$out" "lib/bad.c:${finding%%:*}: ${finding#*:}:"
done
# The state rule: a command keeps no static variable that can change (its options are a struct of the call's).
expect_exit 1 "a command with static variables that can change fails" -- sh "$checksrc" -r "$top_srcdir/tests/data/style" src/state.c
for l in 6 7 12; do
	contains "rule state names src/state.c:$l" "$out" "src/state.c:$l: state:"
done
check "the const ones pass (names, usage, a const pointer)" -- test "$(printf '%s\n' "$out" | grep -c ': state:')" -eq 3
expect_exit 0 "a file that keeps them passes (text in strings is not code)" -- \
	sh "$checksrc" -r "$top_srcdir/tests/data/style" lib/good.c
# The rules of the program (here: print, alloc) do not apply to tests, which allocate as they please.
mkdir -p tests/unit
printf '/* t.c: a test */\n#include <stdlib.h>\nint main(void) { free(malloc(1)); return 0; }\n' >tests/unit/t.c
expect_exit 0 "tests may allocate with malloc" -- sh "$checksrc" -r . tests/unit/t.c
# A folder inside a room is one module: its files export functions named after the folder.
mkdir -p extract/room
printf '/* a.c: a file of a folder */\nint room_a(void)\n{\n\treturn 0;\n}\n' >extract/room/a.c
expect_exit 0 "a folder's file exports the folder's names" -- sh "$checksrc" -r . extract/room/a.c
printf '/* b.c: a file of a folder */\nint b_x(void)\n{\n\treturn 0;\n}\n' >extract/room/b.c
expect_exit 1 "a folder's file that exports its own name fails" -- sh "$checksrc" -r . extract/room/b.c
contains "... named by the prefix rule" "$out" "extract/room/b.c:2: prefix: exported function b_x() is not named room_..."
finish
