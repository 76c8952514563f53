#!/bin/sh
# One exit code per kind of bad input (doc/ferry.1, EXIT STATUS): a missing file, an empty one, a
# directory, random bytes, another program's SQLite database, all bad input (4); and a command that
# fails on its input leaves nothing behind: no store made of an empty file, no output directory,
# no queue, no half-merged store.
. "${top_srcdir:-$(dirname "$0")/../..}/tests/setup"
py=${FERRY_PYTHON:-$top_srcdir/.venv/bin/python}
"$py" -c 'import sqlite3' 2>/dev/null || skip_all "python's sqlite3 module is missing"
plan 50

: > empty
mkdir adir
head -c 4096 /dev/urandom > random
printf 'not json\n0123456789abcdef0123456789abcdef\n' > junk
"$py" -c 'import sqlite3; c = sqlite3.connect("other.db"); c.execute("CREATE TABLE t(x)"); c.commit()'
cp other.db other.orig
rank_corpus=$top_srcdir/tests/data/rank/corpus.jsonl

# Stores: read by report, bugs, show, baseline; shards of merge.
for input in nosuch empty adir random other.db; do
	expect_exit 4 "report on '$input' is bad input" -- "$FERRY" report "$input"
	expect_exit 4 "bugs on '$input' is bad input" -- "$FERRY" bugs "$input"
	expect_exit 4 "baseline on '$input' is bad input" -- "$FERRY" baseline "$input" -o known.txt
	expect_exit 4 "merge of '$input' is bad input" -- "$FERRY" merge -o merged.db "$input"
done
contains "a file that is not a database is named as such" "$err" "'other.db' is not a ferry results store"
expect_exit 4 "show on random bytes is bad input" -- "$FERRY" show random abc
check "report on an empty file leaves it empty (it does not become a store)" -- [ ! -s empty ]
check "another program's database is not changed" -- cmp -s other.db other.orig
check "no baseline is written from a bad store" -- [ ! -e known.txt ]
check "a merge with a bad shard makes no store" -- [ ! -e merged.db ]

# Corpora: wrap and rank. A directory, or a corpus with no record, is bad input too.
for input in nosuch empty adir junk; do
	expect_exit 4 "wrap of '$input' is bad input" -- "$FERRY" wrap "$input" -o "w-$input" -q
	check "and leaves no output directory" -- [ ! -e "w-$input" ]
	expect_exit 4 "rank of '$input' is bad input" -- "$FERRY" rank "$input" -o "q-$input" -q
	check "and writes no queue" -- [ ! -e "q-$input" ]
done
contains "a corpus of bad lines says so" "$err" "holds no instance records (every line is bad)"
expect_exit 4 "apfd of a directory is bad input" -- "$FERRY" apfd adir --bugs junk
expect_exit 4 "apfd of an empty queue is bad input" -- "$FERRY" apfd empty --bugs junk
"$FERRY" rank "$rank_corpus" -o q.jsonl -q
expect_exit 4 "apfd with a directory for bugs is bad input" -- "$FERRY" apfd q.jsonl --bugs adir

# Run and check refuse a store that is no store before running anything.
expect_exit 4 "run into a directory as the store is bad input" -- "$FERRY" run adir -F ort -o adir
expect_exit 4 "run of a missing wrap directory is bad input" -- "$FERRY" run nosuch -F ort -o r.db
expect_exit 4 "run of a file as the wrap directory is bad input" -- "$FERRY" run junk -F ort -o r.db
check "and makes no store" -- [ ! -e r.db ]
finish
