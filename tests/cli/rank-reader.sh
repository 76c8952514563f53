#!/bin/sh
# ferry rank reads the lines that ferry wrote with its canonical reader (lib/canon.c) and every other
# line with cJSON; FERRY_RANK_READER=cjson reads all of them with cJSON, the old path. Both must give
# the same queue, byte for byte, for every strategy, with --counts, with --stats, and the same
# warnings for bad lines: on a corpus of canonical lines from tests/data and handmade records with
# escapes, raw unicode, nested tensors, big integers, nan and inf, opaque values and graphs, mixed
# with hostile re-spellings of them (white space, number and escape spellings, duplicates, cut
# lines, flipped bytes), as tests/unit/test-canon writes it.
. "${top_srcdir:-$(dirname "$0")/../..}/tests/setup"
gen=$top_builddir/tests/unit/test-canon
[ -x "$gen" ] || skip_all "tests/unit/test-canon is not built"
plan 12

"$gen" --write "$work"
corpus=$work/hostile.jsonl
check "the corpus has canonical and hostile lines ($(wc -l < "$corpus"))" -- [ "$(wc -l < "$corpus")" -gt 3000 ]

# rank_both NAME ARGS...: the queue and stderr of both readers, compared.
rank_both() {
	name=$1
	shift
	set +e
	"$FERRY" rank "$corpus" -o new.jsonl "$@" > new.out 2> new.err
	a=$?
	FERRY_RANK_READER=cjson "$FERRY" rank "$corpus" -o old.jsonl "$@" > old.out 2> old.err
	b=$?
	set -e
	if [ $a -eq 0 ] && [ $b -eq 0 ] && [ -s new.jsonl ] && cmp -s new.jsonl old.jsonl && cmp -s new.err old.err &&
		cmp -s new.out old.out; then
		ok 0 "$name: the same queue ($(wc -l < new.jsonl) lines) and the same messages from both readers"
	else
		ok 1 "$name: the readers differ (exit $a and $b)"
		diff new.jsonl old.jsonl | head -5 | sed 's/^/#   /'
		diff new.err old.err | head -5 | sed 's/^/#   /'
	fi
}

rank_both "opera" --strategy opera
rank_both "opera with counts" --counts "$top_srcdir/tests/data/rank/counts.json" --seed 3
rank_both "random" --strategy random --seed 5
rank_both "fast" --strategy fast
rank_both "fast, all" --strategy fast --fast all
rank_both "total" --strategy total --coverage "$work/coverage.jsonl"
rank_both "additional" --strategy additional --coverage "$work/coverage.jsonl"
rank_both "opera --stats" --stats
contains "bad lines are named by file and line" "$(cat new.err)" "hostile.jsonl:"

# Quiet, and strict: the same queue without the warnings, and no queue at all with --strict.
"$FERRY" rank "$corpus" -o all.jsonl -q 2>/dev/null
FERRY_RANK_READER=cjson "$FERRY" rank "$corpus" -o all-old.jsonl -q 2>/dev/null
check "a corpus with bad lines gives the same queue either way under -q" -- cmp all.jsonl all-old.jsonl
expect_exit 4 "--strict refuses the corpus for its bad lines" -- "$FERRY" rank "$corpus" -o strict.jsonl --strict -q
finish
