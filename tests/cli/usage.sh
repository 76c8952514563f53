#!/bin/sh
# The command line: usage errors exit 2 with a message that says what is wrong; help goes to stdout.
. "${top_srcdir:-$(dirname "$0")/../..}/tests/setup"
plan 23

expect_exit 2 "no command is a usage error" -- "$FERRY"
contains "no command shows the overview" "$err" "usage: ferry COMMAND"
expect_exit 2 "an unknown command is a usage error" -- "$FERRY" frobnicate
contains "an unknown command is named" "$err" "ferry: error: 'frobnicate' is not a ferry command"
expect_exit 0 "ferry --help" -- "$FERRY" --help
contains "the overview lists the stages" "$out" "harvest"
expect_exit 0 "ferry --version" -- "$FERRY" --version
contains "the version names ferry" "$out" "ferry "

for c in harvest wrap run report; do
	expect_exit 0 "ferry help $c" -- "$FERRY" help "$c"
	help_text=$out
	expect_exit 0 "ferry $c --help matches ferry help $c" -- "$FERRY" "$c" --help
	check "ferry $c --help prints the same usage" -- [ "$out" = "$help_text" ]
done

expect_exit 2 "run without a frontend" -- "$FERRY" run somewhere -o x.db
contains "run says the frontend is missing" "$err" "no frontend"
expect_exit 2 "an unknown frontend" -- "$FERRY" run somewhere --frontend nosuch -o x.db
finish
