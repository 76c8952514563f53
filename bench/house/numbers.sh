#!/bin/sh
# bench/house/numbers.sh [-r ROOT]: the house's numbers (issue 28): the longest C files and functions,
# the arrows that point up and the import circles (bench/house/arrows.sh), the README's length, and
# duplicated code when the `duplicates` tool is on PATH. Prints a small table; exit 0.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
[ "${1:-}" = "-r" ] && root=$(cd "$2" && pwd)
cd "$root"
files=$(find lib pool extract templates vary gen prioritize oracle report reduce pipeline src \
	-name '*.c' 2>/dev/null | LC_ALL=C sort)

echo "longest C files (lines):"
# shellcheck disable=SC2086
wc -l $files | grep -v ' total$' | sort -rn | head -n 5 | sed 's/^/  /'

echo "longest C functions (lines, from the line that opens the body to the one that closes it):"
# A function's body opens with "{" alone in column 0 and closes with "}" in column 0 (the house style).
# shellcheck disable=SC2086
awk 'FNR == 1 { name = "" }
     /^[A-Za-z_].*\(/ { sig = $0; sub(/\(.*/, "", sig); n = split(sig, w, /[ *]+/); cand = w[n] }
     /^\{$/ { name = cand; start = FNR }
     /^\}/ && name != "" { printf "%d %s:%s\n", FNR - start + 1, FILENAME, name; name = "" }' $files |
	sort -rn | head -n 5 | sed 's/^/  /'
over=$(awk 'FNR == 1 { name = "" } /^[A-Za-z_].*\(/ { cand = 1 } /^\{$/ { name = cand; start = FNR }
	/^\}/ && name != "" { if (FNR - start + 1 > 120) n++; name = "" } END { print n + 0 }' $files)
echo "  functions over 120 lines: $over"

echo "arrows and circles: $(sh "$here/arrows.sh" -r "$root" 2>/dev/null | tail -n 1)"
echo "README.md: $(wc -l < README.md) lines; doc/: $(cat doc/*.md | wc -l) lines in $(ls doc/*.md | wc -l) pages"
if command -v duplicates >/dev/null 2>&1; then
	# Its first line counts the pairs and the files read.
	echo "duplicates (whole tree): $(duplicates --repo "$root" --seconds 60 --most 1 2>/dev/null | head -n 1)"
else
	echo "duplicates: the duplicates tool is not on PATH"
fi
