#!/usr/bin/env bash
# Build an earlier commit of ferry beside this checkout, for the benchmarks that compare before with
# after: a worktree of REV at DIR/src-REV (kept for the next time), built with this checkout's
# virtualenv (nothing is installed; the pinned libraries must be the same). Prints the path of its
# ferry binary.
#     bench/build-rev.sh REV DIR
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
rev=$(git -C "$top" rev-parse --short "$1")
dir=$(mkdir -p "$2" && cd "$2" && pwd)
src=$dir/src-$rev
if [ ! -d "$src" ]; then
	git -C "$top" worktree add -q --detach "$src" "$rev"
	ln -s "$top/.venv" "$src/.venv"
	mkdir -p "$src/.setup"
	cp "$top/.setup/venv" "$src/.setup/venv"
fi
(cd "$src" && scripts/setup) >"$dir/build-$rev.log" 2>&1 || {
	echo "bench: cannot build $rev (see $dir/build-$rev.log)" >&2
	exit 3
}
echo "$src/ferry"
