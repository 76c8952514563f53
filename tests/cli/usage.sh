#!/bin/sh
# The command line: usage errors exit 2 with a message that says what is wrong; help goes to stdout.
. "${top_srcdir:-$(dirname "$0")/../..}/tests/setup"
plan 41

expect_exit 2 "no command is a usage error" -- "$FERRY"
contains "no command shows the overview" "$err" "usage: ferry COMMAND"
expect_exit 2 "an unknown command is a usage error" -- "$FERRY" frobnicate
contains "an unknown command is named" "$err" "ferry: error: 'frobnicate' is not a ferry command"
expect_exit 0 "ferry --help" -- "$FERRY" --help
contains "the overview lists the stages" "$out" "harvest"
expect_exit 0 "ferry --version" -- "$FERRY" --version
contains "the version names ferry" "$out" "ferry "
# libclang is loaded by the C++ harvester alone: linked, its LLVM would sit in every process's global
# scope, where TensorFlow's own LLVM crashes on it. --version loads it to name it.
case "$out" in *"built without libclang"*) ok 0 "--version names libclang # SKIP built without it" ;;
*) contains "--version loads libclang and names it" "$out" "libclang: " ;; esac
check "ferry does not link libclang" -- sh -c "! ldd '$FERRY' | grep -q libclang"
expect_exit 0 "a libclang that cannot be loaded is named" -- env FERRY_LIBCLANG=/nonexistent/libclang.so "$FERRY" --version
contains "and says why it could not be" "$out" "cannot load libclang '/nonexistent/libclang.so'"

for c in harvest wrap run report; do
	expect_exit 0 "ferry help $c" -- "$FERRY" help "$c"
	help_text=$out
	expect_exit 0 "ferry $c --help matches ferry help $c" -- "$FERRY" "$c" --help
	check "ferry $c --help prints the same usage" -- [ "$out" = "$help_text" ]
done

# The usage text is made from each command's option table (src/opts.h): every long option it lists
# is documented in the man page, in that command's entry (check's include run's, which it shares).
man_entry() {  # man_entry CMD: the man page's COMMANDS entry of CMD, from ".B CMD" to the next .TP
	awk -v cmd="$1" '$0 ~ "^\\.B " cmd "( |$)" { on = 1 } on && /^\.TP/ { on = 0 } on' "$top_srcdir/doc/ferry.1"
}
for c in go harvest wrap run check rank report bugs show reduce baseline merge apfd count-tests; do
	entry=$(man_entry "$c"; [ "$c" != check ] || man_entry run)
	missing=
	for o in $("$FERRY" help "$c" | sed -n '/^Options:/,/^$/p' | sed -n 's/^ *\(-., \)\{0,1\}--\([a-z][a-z-]*\).*/\2/p'); do
		case "$entry" in *"\-\-$(printf '%s' "$o" | sed 's/-/\\-/g')"*) ;; *) missing="$missing --$o" ;; esac
	done
	check "doc/ferry.1 documents every option of ferry $c${missing:+ (not:$missing)}" -- test -n "$entry" -a -z "$missing"
done

expect_exit 2 "run without a frontend" -- "$FERRY" run somewhere -o x.db
contains "run says the frontend is missing" "$err" "no frontend"
expect_exit 2 "an unknown frontend" -- "$FERRY" run somewhere --frontend nosuch -o x.db
finish
