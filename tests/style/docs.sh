#!/bin/sh
# The documentation cannot drift from the command line: for every command of 'ferry help', every
# long option its --help lists is in the man page's entry for it (doc/ferry.1, COMMANDS) and in its
# doc page (the doc/*.md whose title names "ferry COMMAND"), and every long option the man page
# gives a command is in its --help; the man page's SYNOPSIS lists every command exactly once. The
# relative links of README.md and doc/*.md resolve, and so do the files of the tree they name
# (tests/cli/select.sh, oracle/compare.c; a placeholder in capitals, NAME or LIBRARY, stands for
# any name). Every test of TESTS is in exactly one room of Makefile.am (make check-ROOM), every
# name a room lists is a test, and every doc page is distributed. Then each check is shown to fail
# on a copy of the tree with a drift planted in it.
. "${top_srcdir:-$(dirname "$0")/../..}/tests/setup"

# The commands, as 'ferry help' lists them ("  NAME   summary").
commands=$("$FERRY" help | awk '/^  [a-z][a-z-]*  /{print $1}')

# help_options CMD: the long options CMD --help lists, one a line (an option line starts with at
# most six spaces; a continuation of a description starts with more).
help_options() {
	"$FERRY" "$1" --help 2>&1 | sed -nE 's/^ {2,6}(-[A-Za-z0-9], )?(--[a-z0-9][a-z0-9-]*).*/\2/p' | sort -u
}

# man_options MAN CMD: the long options the man page's entry for CMD gives, one a line. A quoted
# command line inside the entry ("ferry generate \-\-seed 1", "rank \-\-counts") names another
# command's option and is left out, and so is --help.
man_options() {
	awk -v cmd="$2" '
		/^\.SH / { in_commands = ($2 == "COMMANDS"); name = ""; next }
		!in_commands { next }
		/^\.TP/ { getline; name = ($1 == ".B") ? $2 : ""; if (name == cmd) print; next }
		name == cmd' "$1" |
		sed -e 's/\\-/-/g' -e 's/"\(ferry \)\{0,1\}[a-z][a-z-]* [^"]*"//g' |
		grep -oE -- '--[a-z0-9][a-z0-9-]*' | grep -vx -- '--help' | sort -u || true
}

# doc_pages DOCDIR CMD: the doc pages whose title (first line) names "ferry CMD".
doc_pages() {
	for f in "$1"/*.md; do
		[ -e "$f" ] || continue
		head -n 1 "$f" | grep -qE "^# .*ferry $2([^a-z-]|\$)" && printf '%s\n' "$f"
	done
	return 0
}

# check_options MAN DOCDIR: prints each drift between --help, the man page and the doc pages.
check_options() {
	for c in $commands; do
		h=$(help_options "$c")
		if [ -z "$h" ]; then echo "$c: --help lists no long option"; continue; fi
		m=$(man_options "$1" "$c")
		for o in $h; do
			printf '%s\n' "$m" | grep -qx -- "$o" || echo "$c: $o is in --help, not in the man page's entry"
		done
		for o in $m; do
			printf '%s\n' "$h" | grep -qx -- "$o" || echo "$c: $o is in the man page's entry, not in --help"
		done
		pages=$(doc_pages "$2" "$c")
		n=$(printf '%s' "$pages" | grep -c . || true)
		if [ "$n" -ne 1 ]; then echo "$c: $n doc pages have \"ferry $c\" in their title, want 1"; continue; fi
		for o in $h; do
			grep -q -- "$o\([^a-z0-9-]\|\$\)" "$pages" || echo "$c: $o is in --help, not in $pages"
		done
	done
}

# check_synopsis MAN: each command of ferry help once in SYNOPSIS, and nothing else but help and
# --version.
check_synopsis() {
	syn=$(awk '/^\.SH /{ in_syn = ($2 == "SYNOPSIS"); next } in_syn && /^\.B ferry /{ print $3 }' "$1" |
		sed 's/\\-/-/g')
	for c in $commands; do
		n=$(printf '%s\n' "$syn" | grep -cx -- "$c" || true)
		[ "$n" -eq 1 ] || echo "SYNOPSIS lists $c $n times, want once"
	done
	for c in $syn; do
		case " help --version $(echo $commands) " in
		*" $c "*) ;;
		*) echo "SYNOPSIS lists $c, which ferry help does not" ;;
		esac
	done
}

# check_links TOP FILE...: each relative link of the Markdown files resolves, and so does each path
# of the tree they name.
check_links() {
	top=$1; shift
	for f in "$@"; do
		dir=$(dirname "$f")
		grep -oE '\]\([^)]+\)' "$f" | sed -e 's/^](//' -e 's/)$//' | while IFS= read -r t; do
			case "$t" in http://* | https://* | mailto:* | '#'*) continue ;; esac
			p=${t%%#*}
			[ -e "$dir/$p" ] || echo "${f#"$top"/}: link $t does not resolve"
		done
		grep -oE '(^|[^A-Za-z0-9_./-])(bench|corpora|doc|extract|gen|lib|oracle|pipeline|pool|prioritize|reduce|report|requirements|scripts|src|templates|tests|vary)/[A-Za-z0-9_./-]*[A-Za-z0-9_]' "$f" |
			sed -E 's/^[^a-z]//' | sort -u | while IFS= read -r p; do
			case "$p" in */*.*) ;; *) continue ;; esac  # a path that names a file, not a folder
			[ -e "$top/$p" ] && continue
			# A placeholder in capitals (NAME, LIBRARY, FRONTEND) stands for any name.
			g=$(printf '%s' "$p" | sed -E 's/[A-Z][A-Z_]+[A-Z]/*/g')
			# shellcheck disable=SC2086
			set -- $top/$g
			[ "$g" != "$p" ] && [ -e "$1" ] && continue
			echo "${f#"$top"/}: names $p, which does not exist"
		done
	done
}

# check_rooms MAKEFILE_AM: every test of TESTS in exactly one room_*_tests, every room entry a test,
# every doc page in doc_pages.
check_rooms() {
	awk -v docdir="$2" '
		# Join continued lines, then read "VAR = words" and "VAR += words".
		{ line = line $0 }
		/\\$/ { sub(/\\$/, " ", line); next }
		{
			if (match(line, /^[A-Za-z_][A-Za-z0-9_]* *\+?= */)) {
				name = line; sub(/ *\+?=.*/, "", name)
				value = substr(line, RLENGTH + 1)
				vars[name] = ((line ~ /^[A-Za-z0-9_]* *\+=/) ? vars[name] " " : "") value
			}
			line = ""
		}
		function expand(s,    out, n, i, w, v) {
			n = split(s, w, /[ \t]+/); out = ""
			for (i = 1; i <= n; i++) {
				if (w[i] ~ /^\$\([A-Za-z0-9_]+\)$/) { v = substr(w[i], 3, length(w[i]) - 3); out = out " " expand(vars[v]) }
				else if (w[i] != "") out = out " " w[i]
			}
			return out
		}
		END {
			n = split(expand(vars["TESTS"]), t, " ")
			for (i = 1; i <= n; i++) is_test[t[i]] = 1
			for (v in vars) {
				if (v !~ /^room_[a-z]+_tests$/) continue
				room = v; sub(/^room_/, "", room); sub(/_tests$/, "", room)
				m = split(expand(vars[v]), r, " ")
				for (j = 1; j <= m; j++) {
					if (!(r[j] in is_test)) print "room " room " lists " r[j] ", which is not in TESTS"
					rooms_of[r[j]] = rooms_of[r[j]] " " room; count[r[j]]++
				}
			}
			for (x in is_test)
				if (count[x] != 1) print x " is in " (count[x] + 0) " rooms (" rooms_of[x] " ), want 1"
			n = split(expand(vars["doc_pages"]), d, " ")
			for (i = 1; i <= n; i++) listed[d[i]] = 1
			while ((("ls " docdir) | getline f) > 0)
				if (f ~ /\.md$/ && !(("doc/" f) in listed)) print "doc/" f " is not in doc_pages"
		}' "$1"
}

# run_all TOP: every check over the tree at TOP.
run_all() {
	check_options "$1/doc/ferry.1" "$1/doc"
	check_synopsis "$1/doc/ferry.1"
	check_links "$1" "$1/README.md" "$1"/doc/*.md "$1/bench/README.md"
	check_rooms "$1/Makefile.am" "$1/doc"
}

none() {  # none NAME: ok if the check found nothing ($found), else what it found
	if [ -z "$found" ]; then ok 0 "$1"; else ok 1 "$1"; printf '%s\n' "$found" | sed 's/^/#   /'; fi
}

plan 11
n=$(printf '%s\n' "$commands" | grep -c . || true)
if [ "$n" -ge 15 ]; then ok 0 "ferry help lists the commands ($n)"; else ok 1 "ferry help lists the commands ($n)"; fi

found=$(check_options "$top_srcdir/doc/ferry.1" "$top_srcdir/doc")
none "--help, the man page and the doc pages give the same options"
found=$(check_synopsis "$top_srcdir/doc/ferry.1")
none "the man page's SYNOPSIS lists every command once"
found=$(check_links "$top_srcdir" "$top_srcdir/README.md" "$top_srcdir"/doc/*.md "$top_srcdir/bench/README.md")
none "README.md's and doc/'s links and named files resolve"
found=$(check_rooms "$top_srcdir/Makefile.am" "$top_srcdir/doc")
none "every test is in one room of Makefile.am, every doc page distributed"

# Each check must be able to fail: a copy of the tree's documents, with one drift planted at a time.
plant() {  # plant NAME SED-SCRIPT FILE WANT: the drift makes run_all say WANT
	rm -rf "$work/t"; mkdir -p "$work/t/doc" "$work/t/bench"
	cp "$top_srcdir/README.md" "$top_srcdir/Makefile.am" "$work/t/"
	cp "$top_srcdir"/doc/*.md "$top_srcdir/doc/ferry.1" "$work/t/doc/"
	cp "$top_srcdir/bench/README.md" "$work/t/bench/"
	# The files the documents name stay where they are: link the tree's folders into the copy.
	for d in "$top_srcdir"/*/; do
		d=${d%/}; [ -e "$work/t/${d##*/}" ] || ln -s "$d" "$work/t/${d##*/}"
	done
	for d in "$top_srcdir"/bench/*/; do d=${d%/}; ln -s "$d" "$work/t/bench/${d##*/}"; done
	sed -i "$2" "$work/t/$3"
	got=$(run_all "$work/t")
	contains "$1" "$got" "$4"
}
plant "an option left out of the man page fails" 's/^\.B \\-\\-per\\-instance \\fIN\\fR$/.B \\-\\-per\\-inst \\fIN\\fR/' \
	doc/ferry.1 "vary: --per-instance is in --help, not in the man page's entry"
plant "an option the man page has and --help has not fails" 's/^\.B \\-\\-per\\-instance \\fIN\\fR$/.B \\-\\-per\\-instance \\fIN\\fR, \\-\\-per\\-parent/' \
	doc/ferry.1 "vary: --per-parent is in the man page's entry, not in --help"
plant "an option left out of its doc page fails" 's/--per-instance/--per-inst/g' \
	doc/vary.md "vary: --per-instance is in --help, not in"
plant "a command twice in SYNOPSIS fails" 's/^\.B ferry baseline$/.B ferry show/' \
	doc/ferry.1 "SYNOPSIS lists show 2 times, want once"
plant "a broken link fails" 's|(doc/go.md)|(doc/gone.md)|' \
	README.md "README.md: link doc/gone.md does not resolve"
plant "a test in no room fails" 's|^room_reduce_tests = tests/cli/reduce.sh |room_reduce_tests = |' \
	Makefile.am "tests/cli/reduce.sh is in 0 rooms"
finish
