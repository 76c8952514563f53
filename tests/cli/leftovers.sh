#!/bin/sh
# What a killed writer leaves beside its output (ferry generate's OUT.tmp-XXXXXX, tens of megabytes
# each time) is removed by the next run of a command that writes there, and only that: a live
# writer's temporary file stays.
. "${top_srcdir:-$(dirname "$0")/../..}/tests/setup"
plan 8

# tmps: the temporary files beside out.jsonl, by name.
tmps() { ls -a | grep '^out\.jsonl\.tmp-' || true; }
# started: until a generate writing out.jsonl has its temporary file, with something in it (20 s).
started() {
	n=0
	while [ -z "$(find . -maxdepth 1 -name 'out.jsonl.tmp-*' -size +0 2>/dev/null)" ] && [ $n -lt 200 ]; do
		sleep 0.1
		n=$((n + 1))
	done
}

"$FERRY" generate -o out.jsonl -n 100000000 -q >/dev/null 2>&1 &
killed=$!
started
kill -KILL $killed 2>/dev/null || true
wait $killed 2>/dev/null || true
left=$(tmps)
check "a generate killed while writing leaves its temporary file ($left)" -- test -n "$left"
expect_exit 0 "the next generate into the same output runs" -- "$FERRY" generate -o out.jsonl -n 5 -q
check "... and removes it" -- test -z "$(tmps)"
contains "... saying so" "$err" "removed 1 temporary file that a killed ferry left beside 'out.jsonl'"
check "... and writes its own output" -- test "$(wc -l < out.jsonl)" -eq 5

"$FERRY" generate -o out.jsonl -n 100000000 -q >/dev/null 2>&1 &
live=$!
started
live_tmp=$(tmps)
expect_exit 0 "a generate beside a live one runs" -- "$FERRY" generate -o out.jsonl -n 5 -q
check "... and leaves the live one's temporary file alone" -- test "$(tmps)" = "$live_tmp" -a -n "$live_tmp"
kill -KILL $live 2>/dev/null || true
wait $live 2>/dev/null || true
"$FERRY" generate -o out.jsonl -n 5 -q >/dev/null 2>&1
check "once that one is killed too, the next removes its file" -- test -z "$(tmps)"
finish
