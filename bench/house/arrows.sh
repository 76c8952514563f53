#!/bin/sh
# arrows.sh: the arrows of ferry's house that run the wrong way. Prints every include of a header of
# ferry's own (C: #include "x.h", resolved as the compiler does: the including file's directory,
# then each room's) and every import of a module of ferry's own (Python: ferry.ROOM...., read with
# Python's ast, so that code in a string is no import) that points UP the room list below, and
# every circle: between rooms, and between the files of a room (a header and the .c files that
# define what it declares are one module). A count ends the output.
#
# Usage: bench/house/arrows.sh [-r ROOT]
# Output: "FILE:LINE: up: TARGET (FROM -> TO)" per arrow, "circle: ..." per circle with the arrows
# that close it, then "arrows up: N, circles: M (rooms R, files F)". Exit 1 when there is any, as
# tests/style/checksrc does; tests/style/arrows.sh runs it.
set -eu

# The rooms, from the bottom up (house-common.md, issue 28): one floor a line, the rooms of a floor
# side by side. An arrow may point down or across its floor, never up. A room that does not exist
# (yet) is left out; a new room is a word here.
floors='lib
pool
extract templates vary gen prioritize
oracle
report
reduce
pipeline
src'

root=.
if [ "${1:-}" = "-r" ]; then
	root=$2
	shift 2
fi
[ $# -eq 0 ] || { echo "usage: arrows.sh [-r ROOT]" >&2; exit 2; }
cd "$root"
python=${PYTHON:-${FERRY_PYTHON:-python3}}
command -v "$python" >/dev/null 2>&1 || { echo "arrows.sh: no Python ('$python') to read the imports" >&2; exit 3; }

rooms=
for r in $(printf '%s\n' "$floors" | awk '{ for (i = 1; i <= NF; i++) print NR ":" $i }'); do
	[ -d "${r#*:}" ] && rooms="$rooms $r"
done
dirs=$(for r in $rooms; do printf '%s\n' "${r#*:}"; done)
[ -n "$dirs" ] || { echo "arrows.sh: no room under '$root'" >&2; exit 2; }
cfiles=$(find $dirs -name '*.[ch]' | LC_ALL=C sort)
pyfiles=$(find $dirs -name '*.py' | LC_ALL=C sort)

{
	# The rooms and their floors.
	for r in $rooms; do echo "room ${r#*:} ${r%%:*}"; done
	# Every header there is, for resolving an include.
	for f in $cfiles; do case $f in *.h) echo "hdr $f" ;; esac; done
	# Includes, the functions each header declares and each .c file defines (at column 0, outside
	# comments; a static one is no module's export).
	[ -z "$cfiles" ] || awk '
	FNR == 1 { incomment = 0 }
	{
		line = $0
		if (incomment) {
			if (index(line, "*/")) incomment = 0
			next
		}
		if (line ~ /^[ \t]*\/\*/ && !index(line, "*/")) { incomment = 1; next }
		if (match(line, /^[ \t]*#[ \t]*include[ \t]*"[^"]+"/)) {
			h = substr(line, RSTART, RLENGTH); sub(/^[^"]*"/, "", h); sub(/"$/, "", h)
			print "inc", FILENAME, FNR, h
			next
		}
		if (line !~ /^[A-Za-z_]/ || line ~ /^(static|typedef|extern|struct [A-Za-z_0-9]+ *\{|enum|union)/)
			next
		if (!match(line, /[A-Za-z_][A-Za-z_0-9]*[ \t]*\(/))
			next
		name = substr(line, RSTART, RLENGTH); sub(/[ \t]*\($/, "", name)
		if (FILENAME ~ /\.h$/ && line ~ /;[ \t]*$|\)[ \t]*$|,[ \t]*$/)
			print "decl", FILENAME, name
		else if (FILENAME ~ /\.c$/ && line !~ /;[ \t]*$/)
			print "def", FILENAME, name
	}' $cfiles
	# Imports of ferry's modules, resolved to the file they load: ferry.A.B is A/B.py or
	# A/B/__init__.py; "from ferry.A import B" is A/B.py when there is one.
	[ -z "$pyfiles" ] || "$python" - $pyfiles <<'EOF'
import ast
import os
import sys


def target(parts):
    path = os.path.join(*parts) if parts else ""
    for cand in (path + ".py", os.path.join(path, "__init__.py")):
        if parts and os.path.isfile(cand):
            return cand
    return None


for f in sys.argv[1:]:
    try:
        tree = ast.parse(open(f, encoding="utf-8").read(), f)
    except (SyntaxError, UnicodeDecodeError) as e:
        print(f"arrows.sh: {f}: {e}", file=sys.stderr)
        continue
    package = os.path.dirname(f).split(os.sep)
    for node in ast.walk(tree):
        found = []
        if isinstance(node, ast.Import):
            for a in node.names:
                parts = a.name.split(".")
                if parts[0] == "ferry":
                    found.append((a.name, target(parts[1:])))
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package[:len(package) - (node.level - 1)] if node.level > 1 else package
                parts = base + (node.module.split(".") if node.module else [])
                name = "." * node.level + (node.module or "")
            elif node.module and node.module.split(".")[0] == "ferry":
                parts = node.module.split(".")[1:]
                name = node.module
            else:
                continue
            for a in node.names:
                t = target(parts + [a.name])
                found.append((f"{name}.{a.name}" if t else name, t or target(parts)))
        for name, t in found:
            if t:
                print("imp", f, node.lineno, name, os.path.normpath(t))
EOF
} | awk '
function room_of(path,   d) { d = path; sub(/\/.*$/, "", d); return d in floor ? d : "" }
function dirname(path) { return path ~ /\// ? substr(path, 1, match(path, /\/[^\/]*$/) - 1) : "." }
function normal(path,   n, i, k, p, out) {
	n = split(path, p, "/"); k = 0
	for (i = 1; i <= n; i++) {
		if (p[i] == "." || p[i] == "") continue
		if (p[i] == ".." && k > 0 && q[k] != "..") { k--; continue }
		q[++k] = p[i]
	}
	out = ""
	for (i = 1; i <= k; i++) out = out (i > 1 ? "/" : "") q[i]
	return out
}
# The header an include names, as the compiler finds it: beside the including file, then in the
# rooms (the -I list of Makefile.am); "" for one that is not ferry`s (config.h, a system header).
function resolve(file, h,   c, i) {
	c = normal(dirname(file) "/" h)
	if (c in hdr) return c
	for (i = 1; i <= nrooms; i++) {
		c = normal(roomlist[i] "/" h)
		if (c in hdr) return c
	}
	return ""
}
# Modules: a header and the .c files that define what it declares (else the .c of its name) are one.
function find(x) { while (x in parent && parent[x] != x) x = parent[x]; return x }
function unite(a, b) { a = find(a); b = find(b); if (!(a in parent)) parent[a] = a; if (a != b) parent[b] = a }
function edge(kind, a, b, site) {
	if (a == b || ((kind, a, b) in seen)) return
	seen[kind, a, b] = 1
	succ[kind, a, ++nsucc[kind, a]] = b
	why[kind, a, b] = site
	if (!((kind, a) in node)) { node[kind, a] = 1; nodes[++nnodes] = kind SUBSEP a }
	if (!((kind, b) in node)) { node[kind, b] = 1; nodes[++nnodes] = kind SUBSEP b }
}
# An include or import (what, at file:line) of t: an arrow between modules, between rooms when it
# leaves its room, and printed when it runs up.
function arrow(file, line, what, t,   site, from, to) {
	site = file ":" line ": " what " is " t
	edge("F", find(file), find(t), site)
	from = room_of(file); to = room_of(t)
	if (from == "" || to == "" || from == to) return
	edge("R", from, to, site)
	if (floor[to] > floor[from]) {
		printf "%s: up: %s is %s (%s -> %s)\n", file ":" line, what, t, from, to
		ups++
	}
}
# Tarjan: the strongly connected parts of a graph; a part of more than one node is a circle.
function strong(kind, v,   i, w) {
	index_[kind, v] = low[kind, v] = ++counter
	stack[++sp] = v; onstack[kind, v] = 1
	for (i = 1; i <= nsucc[kind, v]; i++) {
		w = succ[kind, v, i]
		if (!((kind, w) in index_)) {
			strong(kind, w)
			if (low[kind, w] < low[kind, v]) low[kind, v] = low[kind, w]
		} else if (onstack[kind, w] && index_[kind, w] < low[kind, v])
			low[kind, v] = index_[kind, w]
	}
	if (low[kind, v] == index_[kind, v]) {
		ncomp++; size[ncomp] = 0; first[ncomp] = v
		do {
			w = stack[sp--]; onstack[kind, w] = 0; comp[kind, w] = ncomp; size[ncomp]++
			if (w < first[ncomp]) first[ncomp] = w
		} while (w != v)
	}
}
# One circle of part c, as short as it comes: from its first node back to it, each arrow with where.
function circle(kind, c,   s, head, tail, qu, v, i, w, from, path, n, k, hop, members, kv) {
	s = first[c]; delete from; head = tail = 0; qu[++tail] = s
	while (head < tail) {
		v = qu[++head]
		for (i = 1; i <= nsucc[kind, v]; i++) {
			w = succ[kind, v, i]
			if (comp[kind, w] != c) continue
			if (w == s) { from[s "@"] = v; head = tail; break }
			if (!(w in from)) { from[w] = v; qu[++tail] = w }
		}
	}
	n = 0; v = from[s "@"]; hop[++n] = s
	while (v != s) { hop[++n] = v; v = from[v] }
	path = label(s)
	for (k = n; k >= 1; k--) path = path " -> " label(hop[k])
	members = ""
	for (i = 1; i <= nnodes; i++) {
		split(nodes[i], kv, SUBSEP)
		if (kv[1] == kind && comp[kind, kv[2]] == c) members = members (members == "" ? "" : " ") label(kv[2])
	}
	printf "circle: %s: %s (all of it: %s)\n", kind == "R" ? "rooms" : "files", path, members
	v = s
	for (k = n; k >= 1; k--) { w = hop[k]; printf "  %s\n", why[kind, v, w]; v = w }
}
function label(m) { return m in name_ ? name_[m] : m }
$1 == "room" { floor[$2] = $3; roomlist[++nrooms] = $2; next }
$1 == "hdr" { hdr[$2] = 1; next }
$1 == "decl" { declared[$3] = declared[$3] " " $2; next }
$1 == "def" { defs[++ndefs] = $2 " " $3; next }
$1 == "inc" { inc[++ninc] = $2 " " $3 " " $4; next }
$1 == "imp" { imp[++nimp] = $2 " " $3 " " $4 " " $5; next }
END {
	for (h in hdr) {
		c = h; sub(/\.h$/, ".c", c); unite(h, h)
	}
	for (i = 1; i <= ndefs; i++) {
		split(defs[i], d, " ")
		unite(d[1], d[1])
		if (d[2] in declared) {
			n = split(declared[d[2]], hs, " ")
			for (k = 1; k <= n; k++) if (room_of(hs[k]) == room_of(d[1])) unite(hs[k], d[1])
		}
		c = d[1]; sub(/\.c$/, ".h", c)
		if (c in hdr) unite(c, d[1])
	}
	# A module is shown by its .c files (a header alone, by itself).
	for (i = 1; i <= ndefs; i++) {
		split(defs[i], d, " "); m = find(d[1])
		if (!((m, d[1]) in named)) {
			named[m, d[1]] = 1
			was = (m in name_) ? name_[m] "+" : ""
			name_[m] = was d[1]
		}
	}
	ups = 0
	for (i = 1; i <= ninc; i++) {
		split(inc[i], a, " ")
		if ((t = resolve(a[1], a[3])) != "") arrow(a[1], a[2], "\"" a[3] "\"", t)
	}
	for (i = 1; i <= nimp; i++) {
		split(imp[i], a, " ")
		arrow(a[1], a[2], a[3], a[4])
	}
	# Circles: between rooms, then between the modules (files) of one room.
	rc = fc = 0
	for (i = 1; i <= nnodes; i++) {
		split(nodes[i], kv, SUBSEP)
		if (!((kv[1], kv[2]) in index_)) strong(kv[1], kv[2])
	}
	for (i = 1; i <= nnodes; i++) {
		split(nodes[i], kv, SUBSEP); c = comp[kv[1], kv[2]]
		if (size[c] > 1 && !(c in shown)) { shown[c] = 1; order[++nshown] = kv[1] SUBSEP c }
	}
	for (i = 1; i <= nshown; i++) {
		split(order[i], kv, SUBSEP)
		if (kv[1] == "R") { circle("R", kv[2]); rc++ }
	}
	for (i = 1; i <= nshown; i++) {
		split(order[i], kv, SUBSEP)
		if (kv[1] == "F") { circle("F", kv[2]); fc++ }
	}
	printf "arrows up: %d, circles: %d (rooms %d, files %d)\n", ups, rc + fc, rc, fc
	exit ups + rc + fc > 0
}'
